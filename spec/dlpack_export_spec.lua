-- DLPack export: t:__dlpack{...} and t:__dlpack_device(). The structs are inspected with
-- testprod.export, which hands the capsule to dlx_to_dlpack (a capsule comes back as it is).
local h = require "spec.helper"
local dlx = h.dlx
local tp = h.testprod()

local V13 = { max_version = { 1, 3 } }

-- The struct inside a versioned capsule, kept alive (release it with tp.release(e.handle)).
local function inspect(cap, legacy)
  return assert(tp.export(cap, { keep = true, legacy = legacy }))
end

local function data_address(t)
  local e = assert(tp.export(t))
  return e.data + e.byte_offset
end

describe("t:__dlpack", function()
  it("gives a legacy \"dltensor\" capsule without max_version", function()
    local c = dlx.arange(3):__dlpack()
    assert.is_true(dlx.is_capsule(c))
    assert.equal("dltensor", c.name)
    local c2 = dlx.arange(3):__dlpack({})
    assert.equal("dltensor", c2.name)
  end)

  it("gives a versioned capsule of DLPack 1.3 for a major-1 max_version", function()
    for _, mv in ipairs({ { 1, 0 }, { 1, 3 }, { 1, 7 } }) do
      local c = dlx.arange(3):__dlpack({ max_version = mv })
      assert.equal("dltensor_versioned", c.name)
      local e = inspect(c)
      h.exact({ 1, 3 }, e.version)
      tp.release(e.handle)
    end
  end)

  it("gives a legacy capsule for a major-0 max_version", function()
    assert.equal("dltensor", dlx.arange(3):__dlpack({ max_version = { 0, 8 } }).name)
  end)

  it("gives its own version, 1.3, to a consumer with a newer major", function()
    local c = dlx.arange(3):__dlpack({ max_version = { 2, 0 } })
    assert.equal("dltensor_versioned", c.name)
    local e = inspect(c)
    h.exact({ 1, 3 }, e.version)
    tp.release(e.handle)
  end)

  it("rejects a malformed max_version with a TypeError", function()
    local t = dlx.arange(3)
    h.raises("TypeError", t.__dlpack, t, { max_version = "1.3" })
    h.raises("TypeError", t.__dlpack, t, { max_version = { 1 } })
    h.raises("TypeError", t.__dlpack, t, { max_version = { "1", "3" } })
    h.raises("TypeError", t.__dlpack, t, { max_version = 13 })
    h.raises("TypeError", t.__dlpack, t, { max_version = { 1.5, 0 } })
  end)

  it("rejects options that are not a table with a TypeError", function()
    local t = dlx.arange(3)
    h.raises("TypeError", t.__dlpack, t, 5)
    h.raises("TypeError", t.__dlpack, t, "max_version")
  end)

  it("describes the tensor: device, ndim, dtype, shape, contiguous strides, flags 0", function()
    local t = dlx.zeros({ 2, 3 }, { dtype = "int16" })
    local e = inspect(t:__dlpack(V13))
    h.exact({ 1, 0 }, e.device)
    assert.equal(2, e.ndim)
    h.exact({ 0, 16, 1 }, e.dtype)
    h.exact({ 2, 3 }, e.shape)
    h.exact({ 3, 1 }, e.strides)
    assert.equal(0, e.byte_offset)
    assert.equal(0, e.flags)
    assert.is_true(e.has_deleter)
    tp.release(e.handle)
  end)

  it("is zero-copy by default", function()
    local t = dlx.zeros({ 4 }, { dtype = "float32" })
    local e = inspect(t:__dlpack(V13))
    assert.equal(data_address(t), e.data + e.byte_offset)
    tp.write_export_f32(e.handle, 2, 5.5)
    h.exact({ 0.0, 0.0, 5.5, 0.0 }, t:totable())
    t:fill_(3)
    assert.equal(3, tp.read_export_f32(e.handle, 0))
    tp.release(e.handle)
  end)

  it("copies with copy = true and sets IS_COPIED", function()
    local t = dlx.arange(4, { dtype = "float32" })
    local e = inspect(t:__dlpack({ max_version = { 1, 3 }, copy = true }))
    assert.equal(h.FLAG_IS_COPIED, e.flags & h.FLAG_IS_COPIED)
    assert.are_not.equal(data_address(t), e.data + e.byte_offset)
    assert.equal(2, tp.read_export_f32(e.handle, 2))
    tp.write_export_f32(e.handle, 2, 99)
    h.exact({ 0.0, 1.0, 2.0, 3.0 }, t:totable())
    tp.release(e.handle)
  end)

  it("copies a non-contiguous view with copy = true into its logical order", function()
    local t = dlx.arange(6, { dtype = "float32" }):view({ 2, 3 }):transpose(1, 2)
    local e = inspect(t:__dlpack({ max_version = { 1, 3 }, copy = true }))
    h.exact({ 3, 2 }, e.shape)
    local got = {}
    for i = 0, 5 do
      -- element (r, c) of the copy is at r * strides[1] + c * strides[2]
      local r, c = i // 2, i % 2
      got[i + 1] = tp.read_export_f32(e.handle, r * e.strides[1] + c * e.strides[2])
    end
    h.exact({ 0.0, 3.0, 1.0, 4.0, 2.0, 5.0 }, got)
    tp.release(e.handle)
  end)

  it("copies a legacy export with copy = true too", function()
    local t = dlx.arange(4, { dtype = "float32" })
    local e = inspect(t:__dlpack({ copy = true }), true)
    assert.are_not.equal(data_address(t), e.data + e.byte_offset)
    assert.equal(3, tp.read_export_f32(e.handle, 3))
    tp.release(e.handle)
  end)

  it("does not copy with copy = false on the same device", function()
    local t = dlx.zeros({ 4 }, { dtype = "float32" })
    local e = inspect(t:__dlpack({ max_version = { 1, 3 }, copy = false }))
    assert.equal(0, e.flags & h.FLAG_IS_COPIED)
    assert.equal(data_address(t), e.data + e.byte_offset)
    tp.release(e.handle)
  end)

  it("is zero-copy for dl_device = its own device", function()
    local t = dlx.zeros({ 4 }, { dtype = "float32" })
    local e = inspect(t:__dlpack({ max_version = { 1, 3 }, dl_device = { 1, 0 } }))
    assert.equal(data_address(t), e.data + e.byte_offset)
    assert.equal(0, e.flags)
    h.exact({ 1, 0 }, e.device)
    tp.release(e.handle)
    local e2 = inspect(t:__dlpack({ max_version = { 1, 3 }, dl_device = { 1, 0 }, copy = false }))
    assert.equal(data_address(t), e2.data + e2.byte_offset)
    tp.release(e2.handle)
  end)

  it("gives a BufferError for a dl_device it cannot reach", function()
    local t = dlx.zeros({ 4 })
    local has_cuda = false
    for _, d in ipairs(dlx.devices()) do
      if d.dltype == 2 then has_cuda = true end
    end
    if not has_cuda then
      h.raises("BufferError", t.__dlpack, t, { max_version = { 1, 3 }, dl_device = { 2, 0 } })
    end
    h.raises("BufferError", t.__dlpack, t, { max_version = { 1, 3 }, dl_device = { 4, 0 } })
    h.raises("BufferError", t.__dlpack, t,
      { max_version = { 1, 3 }, dl_device = { 2, 0 }, copy = false })
  end)

  it("accepts stream = nil and refuses any other stream on the CPU with a ValueError", function()
    local t = dlx.zeros({ 4 })
    assert.equal("dltensor_versioned", t:__dlpack({ max_version = { 1, 3 }, stream = nil }).name)
    for _, s in ipairs({ -1, 0, 1, 2, 3, 12345 }) do
      h.raises("ValueError", t.__dlpack, t, { max_version = { 1, 3 }, stream = s })
    end
    -- a CPU export takes no stream at all: any value, of any type, is a ValueError
    for _, s in ipairs({ "default", true, 1.5 }) do
      h.raises("ValueError", t.__dlpack, t,
        { max_version = { 1, 3 }, stream = s })
    end
    h.raises("ValueError", t.__dlpack, t, { stream = 1 })
  end)
end)

describe("exported strides and offsets", function()
  local function described(t)
    local e = assert(tp.export(t:__dlpack(V13)))
    return e
  end

  it("are never NULL for ndim > 0", function()
    for _, shape in ipairs({ { 5 }, { 2, 3 }, { 1 }, { 0 }, { 3, 0 }, { 1, 1, 1 } }) do
      local e = described(dlx.zeros(shape))
      assert.is_table(e.strides)
      assert.equal(#shape, #e.strides)
      h.exact(shape, e.shape)
    end
    local legacy = assert(tp.export(dlx.zeros({ 2, 3 }):__dlpack(), { legacy = true }))
    h.exact({ 3, 1 }, legacy.strides)
  end)

  it("describe a 0-d tensor with ndim 0", function()
    local e = described(dlx.tensor(5))
    assert.equal(0, e.ndim)
    assert.equal(0, e.byte_offset)
  end)

  it("are the true strides of a transposed view", function()
    local base = dlx.arange(6, { dtype = "float32" }):view({ 2, 3 })
    local e = described(base:transpose(1, 2))
    h.exact({ 3, 2 }, e.shape)
    h.exact({ 1, 3 }, e.strides)
    assert.equal(0, e.byte_offset)
  end)

  it("are the true strides and offset of a sliced view", function()
    local base = dlx.arange(10, { dtype = "float32" })
    local e = described(base:slice(1, 3, 9, 2))
    h.exact({ 4 }, e.shape)
    h.exact({ 2 }, e.strides)
    assert.equal(data_address(base) + 2 * 4, e.data + e.byte_offset)
  end)

  it("put byte_offset at the view's first element", function()
    local base = dlx.arange(12, { dtype = "float64" }):view({ 3, 4 })
    local e = assert(tp.export(base:select(1, 3):__dlpack(V13), { keep = true }))
    assert.equal(data_address(base) + 8 * 8, e.data + e.byte_offset)
    assert.equal(8.0, tp.read_export(e.handle, 0, "f64"))
    assert.equal(11.0, tp.read_export(e.handle, 3, "f64"))
    tp.release(e.handle)
  end)

  it("are negative for a flipped view, with the offset at the first element", function()
    local base = dlx.arange(5, { dtype = "float32" })
    local e = assert(tp.export(base:flip(1):__dlpack(V13), { keep = true }))
    h.exact({ -1 }, e.strides)
    assert.equal(data_address(base) + 4 * 4, e.data + e.byte_offset)
    assert.equal(4, tp.read_export_f32(e.handle, 0))
    assert.equal(3, tp.read_export_f32(e.handle, -1))
    tp.release(e.handle)
  end)

  it("are 0 for an expanded dim", function()
    local e = described(dlx.tensor({ 1, 2 }):view({ 1, 2 }):expand({ 3, 2 }))
    h.exact({ 3, 2 }, e.shape)
    h.exact({ 0, 1 }, e.strides)
  end)

  it("are not normalised for size-1 dims", function()
    local t = dlx.zeros({ 3, 1 }):transpose(1, 2) -- {1, 3}, strides {1, 1}
    local e = described(t)
    h.exact({ 1, 3 }, e.shape)
    h.exact(t.strides, e.strides)
  end)

  it("describe every view of a chain", function()
    local base = dlx.arange(60, { dtype = "float32" }):view({ 3, 4, 5 })
    local v = base:permute({ 3, 1, 2 }):slice(1, 2, 5, 2):flip(3)
    local e = assert(tp.export(v:__dlpack(V13), { keep = true }))
    h.exact(v.shape, e.shape)
    h.exact(v.strides, e.strides)
    -- element (a, i, j) is base[i][4 - j + 1][2 + 2(a - 1)]
    local want, got = {}, {}
    for a = 1, 2 do
      for i = 1, 3 do
        for j = 1, 4 do
          want[#want + 1] = (i - 1) * 20 + (4 - j) * 5 + (1 + 2 * (a - 1)) + 0.0
          got[#got + 1] = tp.read_export_f32(e.handle,
            (a - 1) * e.strides[1] + (i - 1) * e.strides[2] + (j - 1) * e.strides[3])
        end
      end
    end
    h.exact(want, got)
    tp.release(e.handle)
  end)
end)

describe("read-only tensors", function()
  it("export with READ_ONLY in a versioned capsule", function()
    local t = h.readonly_tensor({ 3 })
    local e = assert(tp.export(t:__dlpack(V13)))
    assert.equal(h.FLAG_READ_ONLY, e.flags & h.FLAG_READ_ONLY)
    local v = assert(tp.export(t:flip(1):__dlpack(V13)))
    assert.equal(h.FLAG_READ_ONLY, v.flags & h.FLAG_READ_ONLY)
  end)

  it("refuse a legacy export with a BufferError", function()
    local t = h.readonly_tensor({ 3 })
    h.raises("BufferError", t.__dlpack, t)
    h.raises("BufferError", t.__dlpack, t, { max_version = { 0, 8 } })
    h.raises("BufferError", t.__dlpack, t, { copy = false })
    local v = t:select(1, 2)
    h.raises("BufferError", v.__dlpack, v)
  end)

  it("allow a legacy export with copy = true", function()
    local t = h.readonly_tensor({ 3 })
    local c = t:__dlpack({ copy = true })
    assert.equal("dltensor", c.name)
    local e = inspect(c, true)
    assert.equal(2, tp.read_export_f32(e.handle, 2))
    tp.release(e.handle)
  end)

  it("set IS_COPIED for a copy", function()
    local t = h.readonly_tensor({ 3 })
    local e = assert(tp.export(t:__dlpack({ max_version = { 1, 3 }, copy = true })))
    assert.equal(h.FLAG_IS_COPIED, e.flags & h.FLAG_IS_COPIED)
  end)
end)

describe("broadcast views (a stride-0 dim of size > 1)", function()
  local function broadcast()
    return dlx.tensor({ 1, 2 }, { dtype = "float32" }):view({ 1, 2 }):expand({ 3, 2 })
  end

  it("export shared, with READ_ONLY in a versioned capsule (dlx refuses writes to them)", function()
    local base = dlx.tensor({ 1, 2 }, { dtype = "float32" })
    local e = assert(tp.export(base:view({ 1, 2 }):expand({ 3, 2 }):__dlpack(V13)))
    assert.equal(h.FLAG_READ_ONLY, e.flags)
    h.exact({ 0, 1 }, e.strides)
    assert.equal(data_address(base), e.data + e.byte_offset)
    local back = dlx.from_dlpack(broadcast())
    assert.equal(true, back.readonly)
    local column = back:select(2, 1) -- no stride 0 left, but still read-only
    h.raises("ValueError", column.fill_, column, 0)
  end)

  it("refuse a legacy export with a BufferError that says why, like read-only tensors", function()
    local b = broadcast()
    local msg = h.raises("BufferError", b.__dlpack, b)
    assert.truthy(msg:find("broadcast view", 1, true))
    h.raises("BufferError", b.__dlpack, b, { max_version = { 0, 8 } })
    h.raises("BufferError", b.__dlpack, b, { copy = false })
    local v, why = tp.export(b, { legacy = true }) -- dlx_to_dlpack_legacy
    h.failed_with({ "BufferError" }, v, why)
  end)

  it("export a writable copy with copy = true, legacy or versioned", function()
    local b = broadcast()
    local e = inspect(b:__dlpack({ copy = true }), true)
    h.exact({ 2, 1 }, e.strides)
    assert.equal(2, tp.read_export_f32(e.handle, 5))
    tp.release(e.handle)
    local v = assert(tp.export(b:__dlpack({ max_version = { 1, 3 }, copy = true })))
    assert.equal(h.FLAG_IS_COPIED, v.flags)
  end)

  it("are only views with a stride-0 dim of size > 1", function()
    local one = assert(tp.export(dlx.zeros({ 1 }):expand({ 1, 1 }):__dlpack(V13)))
    assert.equal(0, one.flags)
    assert.equal("dltensor", dlx.zeros({ 1, 3 }):expand({ 1, 3 }):__dlpack().name)
    local sliced = assert(tp.export(broadcast():select(1, 2):__dlpack(V13)))
    assert.equal(0, sliced.flags) -- one row of the broadcast is an ordinary view
  end)
end)

describe("exported memory", function()
  it("outlives the tensor, closed and collected", function()
    local t = dlx.arange(4, { dtype = "float32" })
    local e = inspect(t:__dlpack(V13))
    t:close()
    t = nil -- luacheck: ignore 311
    collectgarbage()
    collectgarbage()
    assert.equal(3, tp.read_export_f32(e.handle, 3))
    tp.release(e.handle)
  end)

  it("is released by the deleter", function()
    collectgarbage()
    collectgarbage()
    collectgarbage("stop")
    local m0 = dlx.memory_allocated("cpu")
    local t = dlx.empty({ 1024 * 1024 }, { dtype = "uint8" })
    local e = inspect(t:__dlpack(V13))
    t:close()
    local held = dlx.memory_allocated("cpu")
    tp.release(e.handle)
    local after = dlx.memory_allocated("cpu")
    collectgarbage("restart")
    assert.is_true(held >= m0 + 1024 * 1024)
    assert.equal(m0, after)
  end)

  it("of an unconsumed capsule is released when the capsule is collected", function()
    collectgarbage()
    collectgarbage()
    local m0 = dlx.memory_allocated("cpu")
    local c
    do
      local t = dlx.empty({ 1024 * 1024 }, { dtype = "uint8" })
      c = t:__dlpack(V13)
      t:close()
    end
    assert.is_true(dlx.memory_allocated("cpu") >= m0 + 1024 * 1024)
    assert.equal("dltensor_versioned", c.name)
    c = nil -- luacheck: ignore 311
    collectgarbage()
    collectgarbage()
    assert.equal(m0, dlx.memory_allocated("cpu"))
  end)
end)

describe("dtypes in exports", function()
  it("carry every dtype's DLPack triple", function()
    for _, name in ipairs(h.dtype_names()) do
      local d = h.DTYPES[name]
      local e = assert(tp.export(dlx.empty({ 4 }, { dtype = name }):__dlpack(V13)))
      h.exact({ d[1], d[2], d[3] }, e.dtype)
    end
  end)
end)

describe("round trips", function()
  it("give back every dtype, shape and value through both capsule kinds", function()
    for _, name in ipairs(h.dtype_names()) do
      for _, kw in ipairs({ V13, {} }) do
        local t = dlx.empty({ 2, 3 }, { dtype = name })
        local back = dlx.from_dlpack(t:__dlpack(kw))
        assert.equal(name, back.dtype)
        h.exact({ 2, 3 }, back.shape)
        h.exact({ 3, 1 }, back.strides)
        assert.equal(data_address(t), data_address(back))
      end
    end
    local v = dlx.tensor({ { 1.5, -2 }, { 3, 4 } }, { dtype = "float64" }):transpose(1, 2)
    local back = dlx.from_dlpack(v:__dlpack(V13))
    h.exact(v.strides, back.strides)
    h.exact({ { 1.5, 3.0 }, { -2.0, 4.0 } }, back:totable())
    local b = dlx.from_dlpack(dlx.tensor({ true, false }):__dlpack())
    h.exact({ true, false }, b:totable())
  end)

  it("keep views writable both ways", function()
    local t = dlx.zeros({ 3 }, { dtype = "int32" })
    for _, kw in ipairs({ V13, {} }) do
      local back = dlx.from_dlpack(t:__dlpack(kw))
      assert.equal(false, back.readonly)
      back:fill_(7)
      h.exact({ 7, 7, 7 }, t:totable())
      t:fill_(0)
    end
  end)
end)

describe("dropped capsules", function()
  it("keep a create-and-drop loop bounded without collectgarbage", function()
    local peak = h.peak_growth(1000, function()
      local c = dlx.empty({ 4 * 1024 * 1024 }, { dtype = "uint8" }):__dlpack(V13)
      assert(c.name == "dltensor_versioned")
    end)
    assert.is_true(peak < 1024 * 1024 * 1024, ("peak %.0f MiB"):format(peak / 1048576))
  end)

  it("keep a create-import-drop loop bounded and call every deleter once", function()
    local first, last
    for i = 1, 500 do
      local cap, id = tp.make { shape = { 1024 * 1024 } } -- 4 MiB of producer memory
      local t = dlx.from_dlpack(cap)
      assert(t.numel == 1024 * 1024)
      if i == 1 then first = id end
      last = id
    end
    collectgarbage()
    collectgarbage()
    for id = first, last do assert.equal(1, tp.deleted(id)) end
  end)
end)

describe("t:__dlpack_device", function()
  it("returns two integers: the DLPack device type and id", function()
    local t = dlx.zeros({ 2 })
    assert.equal(2, select("#", t:__dlpack_device()))
    local dt, id = t:__dlpack_device()
    assert.equal(1, dt)
    assert.equal(0, id)
    assert.equal("integer", math.type(dt))
    assert.equal("integer", math.type(id))
  end)
end)

describe("dlx.is_capsule", function()
  it("tells capsules from everything else", function()
    local t = dlx.zeros({ 2 })
    assert.is_true(dlx.is_capsule(t:__dlpack()))
    assert.is_false(dlx.is_capsule(t))
    assert.is_false(dlx.is_capsule({}))
    assert.is_false(dlx.is_capsule(nil))
    assert.is_false(dlx.is_capsule("dltensor"))
    assert.is_false(dlx.is_capsule(io.stdout))
  end)

  it("is true for used capsules too", function()
    local c = dlx.zeros({ 2 }):__dlpack(V13)
    dlx.from_dlpack(c)
    assert.equal("used_dltensor_versioned", c.name)
    assert.is_true(dlx.is_capsule(c))
    local l = dlx.zeros({ 2 }):__dlpack()
    dlx.from_dlpack(l)
    assert.equal("used_dltensor", l.name)
  end)
end)
