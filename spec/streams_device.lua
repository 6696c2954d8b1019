--- Streams of a device (dlx.stream, dlx.current_stream, s:use): new streams and their DLPack
--- value, running work with a stream current and restoring the previous one (also on error),
--- printing, wrapping a handle made elsewhere without owning it, the fall back to the default
--- stream when the current one is closed, a current stream per device, dlx.type. Used by
--- cuda_streams_spec.lua and oneapi_streams_spec.lua: require "spec.streams_device" (device, it)
--- inside a describe defines the tests (busted gives `it` to spec files, not to the modules they
--- require). What a default stream is differs (CUDA's legacy stream is handle 0, a oneapi
--- device's is its immediate command list): the cases compare with the default they find.
local h = require "spec.helper"
local dlx = h.dlx
local assert = require "luassert" -- specs get it as their assert; this module does not

--- Registers the stream cases of `device` ("cuda:0", "oneapi:0") with `it`.
return function(device, it)
  local name = tostring(dlx.device(device))

  it("makes new streams whose handle is their DLPack value", function()
    local s <close> = dlx.stream(device)
    assert.is_true(math.type(s.handle) == "integer" and s.handle > 2)
    assert.are.equal(s.handle, s.dlpack)
    assert.truthy(tostring(s):find("dlx.Stream(" .. name, 1, true))
  end)

  it("runs code with a stream current and restores the previous one", function()
    local default = dlx.current_stream(device)
    local s <close> = dlx.stream(device)
    assert.equal(name, tostring(s.device))
    assert.is_true(s.handle ~= default.handle)
    local a, b = dlx.with_stream(s, function(x)
      assert.are.equal(s, dlx.current_stream(device))
      return x, "done"
    end, 42)
    assert.are.same({ 42, "done" }, { a, b })
    assert.are.equal(default.handle, dlx.current_stream(device).handle)
    assert.has_error(function()
      s:use(function() error("boom") end)
    end)
    assert.are.equal(default.handle, dlx.current_stream(device).handle)
    -- work queued on s, read back on the host
    local total = s:use(function()
      assert.equal(s.handle, dlx.current_stream(device).handle)
      local t = dlx.arange(100, { device = device }):view{ 10, 10 }:transpose(1, 2)
      return t:contiguous():sum(1):totable()
    end)
    assert.equal(default.handle, dlx.current_stream(device).handle)
    assert.equal(45, total[1])
    assert.equal(945, total[10])
    s:synchronize()
    default:synchronize()
  end)

  it("prints its device and its handle as one hex number", function()
    local s = dlx.stream(device)
    assert.equal(("dlx.Stream(%s, handle=0x%x)"):format(name, s.handle), tostring(s))
    s:close()
    assert.equal(("dlx.Stream(%s, handle=0x%x, closed)"):format(name, s.handle), tostring(s))
    assert.equal(("dlx.Stream(%s, handle=0x0)"):format(name), tostring(dlx.stream(device, 0)))
  end)

  it("wraps a stream handle made elsewhere without owning it", function()
    local made <close> = dlx.stream(device)
    local wrapped = dlx.stream(device, made.handle)
    assert.are.equal(made, wrapped)
    assert.equal(made.handle, wrapped.handle)
    local value = wrapped:use(function()
      return dlx.full({ 3 }, 2.5, { dtype = "float32", device = device }):sum():item()
    end)
    assert.equal(7.5, value)
    wrapped:close() -- does not destroy it
    made:synchronize()
  end)

  it("falls back to the default stream when the current one is closed", function()
    local default = dlx.current_stream(device).handle
    local s = dlx.stream(device)
    s:use(function() s:close() end)
    assert.are.equal(default, dlx.current_stream(device).handle)
    assert.are.equal(6, dlx.arange(4, { device = device }):sum():item())
  end)

  it("has a current stream per device", function()
    local kind, seen = dlx.device(device).type, 0
    for _, d in ipairs(dlx.devices()) do
      if d.type == kind then
        local dev = tostring(d)
        local s <close> = dlx.stream(dev)
        s:use(function()
          assert.are.equal(s, dlx.current_stream(dev))
          assert.are.equal(10, dlx.arange(5, { device = dev }):sum():item())
        end)
        seen = seen + 1
      end
    end
    assert.is_true(seen >= 1)
  end)

  it("are streams to dlx.type, open and closed", function()
    local s = dlx.stream(device)
    assert.equal("stream", dlx.type(s))
    assert.equal("stream", dlx.type(dlx.current_stream(device)))
    s:close()
    assert.equal("stream", dlx.type(s))
  end)
end
