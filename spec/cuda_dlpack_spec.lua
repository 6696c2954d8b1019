-- #gpu: DLPack with CUDA tensors: the cases of spec/dlpack_device.lua (zero-copy export and
-- import, exported memory that outlives its tensor, dl_device copies both ways), and CUDA's own:
-- the pinned and managed devices, the consumer's stream values (nil, -1, 0, 1, 2, a handle), the
-- producer's event that the consumer's stream waits for, dl_device = {1, 0} after pending work,
-- managed memory, and the device made current around each call.
local h = require "spec.helper"
local dlx = h.dlx

describe("#gpu CUDA DLPack", function()
  if not h.has_device("cuda:0", pending) then return end
  dlx.set_default_device("cpu") -- tensors made without a device are the CPU references
  local BUSY = 200000000
  local V13 = { 1, 3 }

  require "spec.dlpack_device" ("cuda:0", it, 2)

  it("says where its pinned and managed tensors live", function()
    local p = dlx.zeros({ 4 }, { device = "cuda_host" })
    assert.are.same({ 3, 0 }, { p:__dlpack_device() })
    local m = dlx.zeros({ 4 }, { device = "cuda_managed" })
    assert.are.same({ 13, 0 }, { m:__dlpack_device() })
  end)

  it("takes the consumer's stream values of the CUDA table", function()
    local t = dlx.ones({ 10 }, { device = "cuda" })
    local s <close> = dlx.stream("cuda")
    for _, stream in ipairs { -1, 1, 2, s.handle } do
      dlx.from_dlpack(t:__dlpack { stream = stream, max_version = V13 }):close()
    end
    dlx.from_dlpack(t:__dlpack { stream = s, max_version = V13 }):close()
    dlx.from_dlpack(t:__dlpack { max_version = V13 }):close() -- nil: the legacy default stream
    local msg = h.raises("ValueError", t.__dlpack, t, { stream = 0 })
    assert.truthy(msg:find("ambiguous", 1, true), msg)
    h.raises("ValueError", t.__dlpack, t, { stream = -2 })
    h.raises("TypeError", t.__dlpack, t, { stream = "1" })
    h.raises("TypeError", t.__dlpack, t, { stream = 1.5 })
  end)

  it("makes the consumer's stream wait for the producer's work", function()
    local consumer <close> = dlx.stream("cuda")
    local producer <close> = dlx.stream("cuda")
    for _ = 1, 3 do
      local t = dlx.zeros({ 1 << 20 }, { device = "cuda" })
      dlx.cuda.synchronize() -- the zeros (default stream) are in place before the producer runs
      local cap = producer:use(function()
        dlx.cuda.busy_wait(BUSY) -- still running when the consumer queues its read
        t:fill_(1)
        return t:__dlpack { stream = consumer.dlpack, max_version = V13 }
      end)
      local total = consumer:use(function()
        return dlx.from_dlpack(cap):sum():item()
      end)
      assert.are.equal(1 << 20, total)
    end
  end)

  it("passes its current stream when it imports from a CUDA producer", function()
    local s <close> = dlx.stream("cuda")
    local t = dlx.full({ 100 }, 2, { device = "cuda" })
    -- the producer below is dlx itself, called inside s:use: its current stream is s, so its
    -- export orders nothing after the fill queued on the default stream; finish the fill first
    dlx.cuda.synchronize()
    local asked
    local producer = {
      __dlpack_device = function() return 2, 0 end,
      __dlpack = function(_, opts)
        asked = opts.stream
        return t:__dlpack { stream = opts.stream, max_version = opts.max_version }
      end,
    }
    local total = s:use(function() return dlx.from_dlpack(producer):sum():item() end)
    assert.are.equal(s.dlpack, asked)
    assert.are.equal(200, total)
    dlx.from_dlpack(producer):close()
    assert.are.equal(1, asked) -- the legacy default stream, named 1
  end)

  it("copies to the host for dl_device = {1, 0}, after the pending work", function()
    local t = dlx.zeros({ 1000 }, { device = "cuda" })
    dlx.cuda.busy_wait(BUSY)
    t:fill_(5)
    local cap = t:__dlpack { dl_device = { 1, 0 }, max_version = V13 }
    assert.are.equal(h.FLAG_IS_COPIED, cap.flags & h.FLAG_IS_COPIED)
    local host = dlx.from_dlpack(cap)
    assert.are.equal("cpu", tostring(host.device))
    assert.are.equal(5000, host:sum():item())
    -- PyTorch and JAX pass their stream on the tensor's device with dl_device = {1, 0}: the copy
    -- is complete all the same; the value follows the CUDA table
    dlx.cuda.busy_wait(BUSY)
    t:fill_(6)
    host = dlx.from_dlpack(t:__dlpack { dl_device = { 1, 0 }, stream = 1, max_version = V13 })
    assert.are.equal(6000, host:sum():item())
    h.raises("ValueError", t.__dlpack, t, { dl_device = { 1, 0 }, stream = 0 })
  end)

  it("keeps managed memory managed through an exchange", function()
    local m = dlx.arange(10, { device = "cuda_managed" })
    local back = dlx.from_dlpack(m:__dlpack { max_version = V13 })
    assert.are.equal("cuda_managed", tostring(back.device))
    assert.are.equal(45, back:sum():item())
    assert.are.equal(45, back:to("cuda"):sum():item())
    -- CuPy passes its stream for managed memory (as for cuda:N): taken, the data is complete
    local s <close> = dlx.stream("cuda")
    for _, stream in ipairs { 1, 2, -1, s.handle } do
      local u = dlx.from_dlpack(m:__dlpack { stream = stream, max_version = V13 })
      assert.are.equal(45, u:sum():item())
    end
    h.raises("ValueError", m.__dlpack, m, { stream = -2 })
  end)

  if dlx.cuda.device_count() < 2 then
    pending("one GPU only: the exchange on a second GPU did not run")
    return
  end

  it("works on another GPU and restores the current device", function()
    local before = dlx.cuda.current_device()
    local t = dlx.arange(100, { device = "cuda:1" })
    local u = dlx.from_dlpack(t:__dlpack { stream = 1, max_version = V13 })
    assert.are.equal("cuda:1", tostring(u.device))
    assert.are.equal(4950, u:sum():item())
    assert.are.equal(before, dlx.cuda.current_device())
  end)
end)
