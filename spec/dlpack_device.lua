--- DLPack exchange of a device's tensors: the device pair they report, zero-copy export (the
--- view's strides and offset) and import (writes show through), exported memory that outlives
--- its tensor, and dl_device copies to the CPU and from the CPU to the device. Used by
--- cuda_dlpack_spec.lua and oneapi_dlpack_spec.lua: require "spec.dlpack_device" (device, it,
--- dltype) inside a describe defines the tests (busted gives `it` to spec files, not to the
--- modules they require); dltype is the DLPack device type the device's tensors must report (2
--- for CUDA, 14 for oneapi). CPU tensors are made with device = "cpu".
local h = require "spec.helper"
local dlx = h.dlx
local assert = require "luassert" -- specs get it as their assert; this module does not

local V13 = { 1, 3 }

--- Registers the exchanges of `device` ("cuda:0", "oneapi:0") with `it`.
return function(device, it, dltype)
  local dev = dlx.device(device)
  local name, pair = tostring(dev), { dltype, dev.id }
  local second = name:gsub("%d+$", "1") -- the next device of the same kind, when there is one

  local function sample()
    return dlx.arange(12, { dtype = "float32", device = "cpu" }):view{ 3, 4 }:to(device)
  end

  it("reports its device as (device type, id)", function()
    assert.equal(dltype, dev.dltype)
    local t = sample()
    assert.same(pair, { t:__dlpack_device() })
    assert.same(pair, { dlx.zeros({ 4 }, { device = device }):__dlpack_device() })
    if pcall(dlx.device, second) then
      assert.same({ dltype, 1 }, { t:to(second):__dlpack_device() })
    end
  end)

  it("exports zero-copy with the device, strides and offset of the view", function()
    local t = sample():transpose(1, 2):slice(1, 2)
    local d = h.testprod().export(t)
    assert.same(pair, d.device)
    assert.same({ 3, 3 }, d.shape)
    assert.same({ 1, 4 }, d.strides)
    assert.equal(4, d.byte_offset) -- one float32 in
    assert.equal(0, d.flags)
  end)

  it("imports its own export without a copy (writes show through)", function()
    local z = dlx.zeros({ 1000 }, { device = device })
    local u = dlx.from_dlpack(z) -- through __dlpack_device and __dlpack
    assert.are.equal(name, tostring(u.device))
    u:fill_(7)
    assert.are.equal(7000, z:sum():item())
    local cap = z:__dlpack { max_version = V13 }
    assert.are.equal(0, cap.flags & h.FLAG_IS_COPIED)
    local t = sample()
    local back = dlx.from_dlpack(t:__dlpack{ max_version = V13 })
    assert.equal(name, tostring(back.device))
    back:select(1, 1):fill_(-1)
    h.same({ -1, -1, -1, -1 }, t:select(1, 1):totable())
    local legacy = dlx.from_dlpack(t:__dlpack())
    h.same(t:totable(), legacy:totable())
  end)

  it("keeps exported memory alive after the tensor is closed", function()
    local t = sample()
    local cap = t:__dlpack{ max_version = V13 }
    t:close()
    collectgarbage()
    h.same({ 8, 9, 10, 11 }, dlx.from_dlpack(cap):select(1, 3):totable())
  end)

  it("exports a copy to the CPU with dl_device, and from the CPU to the device", function()
    local t = sample():transpose(1, 2)
    local cap = t:__dlpack{ max_version = V13, dl_device = { 1, 0 } }
    assert.equal(h.FLAG_IS_COPIED, cap.flags)
    local host = dlx.from_dlpack(cap)
    assert.equal("cpu", tostring(host.device))
    h.same(t:totable(), host:totable())
    local up = host:__dlpack{ max_version = V13, dl_device = pair }
    local back = dlx.from_dlpack(up)
    assert.equal(name, tostring(back.device))
    h.same(host:totable(), back:totable())
    h.raises("BufferError", function() t:__dlpack{ dl_device = { 1, 0 }, copy = false } end)
    h.same(t:totable(), dlx.from_dlpack(t, { device = "cpu" }):totable())
    assert.equal("cpu", tostring(dlx.from_dlpack(t, { device = "cpu" }).device))
  end)
end
