-- The C API for other modules (dlx_capi_get): push_capsule(_legacy) and to_dlpack(_legacy),
-- exercised through testprod, a C module that links neither dlx nor liblua.
local h = require "spec.helper"
local dlx = h.dlx
local tp = h.testprod()

describe("dlx_capi_get", function()
  it("finds dlx's table once dlx is loaded", function()
    assert.is_true(tp.has_capi())
  end)
end)

describe("to_dlpack", function()
  it("exports a tensor as a versioned 1.3 struct and leaves the stack as it was", function()
    local e = assert(tp.export(dlx.zeros({ 2, 3 }, { dtype = "float64" })))
    assert.equal(false, e.legacy)
    h.exact({ 1, 3 }, e.version)
    h.exact({ 1, 0 }, e.device)
    h.exact({ 2, 64, 1 }, e.dtype)
    h.exact({ 2, 3 }, e.shape)
    h.exact({ 3, 1 }, e.strides)
    assert.equal(0, e.flags)
    assert.is_true(e.has_deleter)
    assert.is_true(e.stack_balanced)
  end)

  it("exports a tensor as a legacy struct with to_dlpack_legacy", function()
    local e = assert(tp.export(dlx.arange(3), { legacy = true }))
    assert.equal(true, e.legacy)
    assert.is_nil(e.version)
    h.exact({ 0, 64, 1 }, e.dtype)
    h.exact({ 3 }, e.shape)
    h.exact({ 1 }, e.strides)
    assert.is_true(e.stack_balanced)
  end)

  it("is zero-copy", function()
    local t = dlx.zeros({ 3 }, { dtype = "float32" })
    local e = assert(tp.export(t, { keep = true }))
    tp.write_export_f32(e.handle, 1, 8)
    h.exact({ 0.0, 8.0, 0.0 }, t:totable())
    t:fill_(2)
    assert.equal(2, tp.read_export_f32(e.handle, 2))
    tp.release(e.handle)
  end)

  it("keeps the data valid after the Lua tensor is closed and collected", function()
    local t = dlx.arange(5, { dtype = "float32" })
    local e = assert(tp.export(t, { keep = true }))
    local le = assert(tp.export(t, { keep = true, legacy = true }))
    t:close()
    t = nil -- luacheck: ignore 311
    collectgarbage()
    collectgarbage()
    assert.equal(4, tp.read_export_f32(e.handle, 4))
    assert.equal(3, tp.read_export_f32(le.handle, 3))
    tp.release(e.handle)
    tp.release(le.handle)
  end)

  it("holds the memory until the deleter runs", function()
    collectgarbage()
    collectgarbage()
    collectgarbage("stop")
    local m0 = dlx.memory_allocated("cpu")
    local t = dlx.empty({ 1 << 20 }, { dtype = "uint8" })
    local e = assert(tp.export(t, { keep = true }))
    t:close()
    local held = dlx.memory_allocated("cpu")
    tp.release(e.handle)
    local after = dlx.memory_allocated("cpu")
    collectgarbage("restart")
    assert.is_true(held >= m0 + (1 << 20))
    assert.equal(m0, after)
  end)

  it("exports views with their strides and offset", function()
    local base = dlx.arange(12, { dtype = "float32" }):view({ 3, 4 })
    local b = assert(tp.export(base))
    local e = assert(tp.export(base:transpose(1, 2):select(1, 2), { keep = true }))
    h.exact({ 3 }, e.shape)
    h.exact({ 4 }, e.strides)
    assert.equal(b.data + b.byte_offset + 4, e.data + e.byte_offset)
    assert.equal(9, tp.read_export_f32(e.handle, 2 * 4))
    tp.release(e.handle)
  end)

  it("sets READ_ONLY for a read-only tensor, and the legacy call refuses it", function()
    local t = h.readonly_tensor({ 2 })
    local e = assert(tp.export(t))
    assert.equal(h.FLAG_READ_ONLY, e.flags & h.FLAG_READ_ONLY)
    local v, msg, nulled = tp.export(t, { legacy = true })
    h.failed_with({ "BufferError" }, v, msg)
    assert.is_true(nulled)
  end)

  it("consumes a capsule and hands over its struct", function()
    local cap, id = tp.make { shape = { 3 } }
    local e = assert(tp.export(cap, { keep = true }))
    assert.equal("used_dltensor_versioned", cap.name)
    assert.equal(tp.address(id), e.data)
    h.exact({ 3 }, e.shape)
    assert.equal(2, tp.read_export_f32(e.handle, 2))
    assert.equal(0, tp.deleted(id))
    tp.release(e.handle)
    assert.equal(1, tp.deleted(id))
    collectgarbage()
    collectgarbage()
    assert.equal(1, tp.deleted(id))
  end)

  it("consumes a legacy capsule through the versioned call", function()
    local cap, id = tp.make { shape = { 2 }, legacy = true }
    local e = assert(tp.export(cap, { keep = true }))
    assert.equal("used_dltensor", cap.name)
    assert.equal(1, e.version[1]) -- a versioned struct
    assert.equal(1, tp.read_export_f32(e.handle, 1))
    tp.release(e.handle)
    assert.equal(1, tp.deleted(id))
    collectgarbage()
    assert.equal(1, tp.deleted(id))
  end)

  it("consumes a legacy capsule through the legacy call", function()
    local cap, id = tp.make { shape = { 2 }, legacy = true }
    local e = assert(tp.export(cap, { keep = true, legacy = true }))
    assert.equal("used_dltensor", cap.name)
    assert.equal(tp.address(id), e.data)
    tp.release(e.handle)
    assert.equal(1, tp.deleted(id))
  end)

  it("refuses a used capsule without raising", function()
    local cap = tp.make { shape = { 2 } }
    dlx.from_dlpack(cap)
    local v, msg, nulled = tp.export(cap)
    h.failed_with({ "ValueError" }, v, msg)
    assert.is_true(nulled)
  end)

  it("exports an object with a __dlpack method", function()
    local inner = dlx.arange(3, { dtype = "float32" })
    local obj = {
      __dlpack_device = function() return inner:__dlpack_device() end,
      __dlpack = function(_, kw) return inner:__dlpack(kw) end,
    }
    local e = assert(tp.export(obj, { keep = true }))
    assert.equal(2, tp.read_export_f32(e.handle, 2))
    tp.release(e.handle)
  end)

  it("passes a producer's error back as a message", function()
    local obj = {
      __dlpack_device = function() return 1, 0 end,
      __dlpack = function() error("BufferError: cannot export this one", 0) end,
    }
    local v, msg, nulled = tp.export(obj)
    h.failed_with({ "BufferError" }, v, msg)
    assert.truthy(msg:find("cannot export this one", 1, true))
    assert.is_true(nulled)
  end)

  it("returns an error for values it cannot export, never raises", function()
    for _, bad in ipairs({ 42, "tensor", {}, true, io.stdout }) do
      local v, msg, nulled = tp.export(bad)
      h.failed_with({ "TypeError" }, v, msg)
      assert.is_true(nulled)
      local lv, lmsg = tp.export(bad, { legacy = true })
      h.failed_with({ "TypeError" }, lv, lmsg)
    end
  end)

  it("returns an error for a closed tensor", function()
    local t = dlx.zeros({ 2 })
    t:close()
    local v, msg = tp.export(t)
    h.failed_with({ "ValueError" }, v, msg)
  end)

  it("gives exports that are released exactly once by the consumer", function()
    local before = tp.live_exports()
    local handles = {}
    for i = 1, 10 do
      handles[i] = assert(tp.export(dlx.zeros({ i }), { keep = true })).handle
    end
    assert.equal(before + 10, tp.live_exports())
    for _, hd in ipairs(handles) do tp.release(hd) end
    assert.equal(before, tp.live_exports())
  end)
end)

describe("push_capsule", function()
  it("round-trips host memory: push, import, export, zero-copy all the way", function()
    local cap, id = tp.make { shape = { 2, 2 }, byte_offset = 8 }
    local t = dlx.from_dlpack(cap)
    h.exact({ { 2.0, 3.0 }, { 4.0, 5.0 } }, t:totable())
    local e = assert(tp.export(t, { keep = true }))
    assert.equal(tp.address(id) + 8, e.data + e.byte_offset)
    tp.write_f32(id, 5, 50)
    assert.equal(50, tp.read_export_f32(e.handle, 3))
    -- the producer's deleter waits for both the tensor and the export
    t:close()
    assert.equal(0, tp.deleted(id))
    tp.release(e.handle)
    assert.equal(1, tp.deleted(id))
  end)

  it("waits for the tensor when the export is released first", function()
    local cap, id = tp.make { shape = { 2 } }
    local t = dlx.from_dlpack(cap)
    local e = assert(tp.export(t, { keep = true }))
    tp.release(e.handle)
    assert.equal(0, tp.deleted(id))
    h.exact({ 0.0, 1.0 }, t:totable())
    t:close()
    assert.equal(1, tp.deleted(id))
  end)

  it("carries the producer's flags through a round trip", function()
    local cap = tp.make { shape = { 2 }, flags = h.FLAG_READ_ONLY }
    local e = assert(tp.export(dlx.from_dlpack(cap)))
    assert.equal(h.FLAG_READ_ONLY, e.flags & h.FLAG_READ_ONLY)
  end)
end)
