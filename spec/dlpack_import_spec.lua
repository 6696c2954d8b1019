-- DLPack import: dlx.from_dlpack on capsules made by testprod (a C producer of edge cases).
-- Every import check of docs/dlpack.md is a BufferError after which the producer's deleter has
-- run exactly once; capsules are consumed exactly once; imports are zero-copy and honour every
-- field.
local h = require "spec.helper"
local dlx = h.dlx
local tp = h.testprod()

local rejects, accepts = h.import_rejects, h.import_accepts

describe("from_dlpack of a capsule", function()
  it("imports a versioned capsule zero-copy and renames it", function()
    local cap, id = tp.make { shape = { 2, 3 } }
    assert.equal("dltensor_versioned", cap.name)
    local t = dlx.from_dlpack(cap)
    assert.equal("used_dltensor_versioned", cap.name)
    h.exact({ 2, 3 }, t.shape)
    h.exact({ 3, 1 }, t.strides)
    assert.equal("float32", t.dtype)
    assert.is_true(t.device == dlx.device("cpu"))
    assert.equal(false, t.readonly)
    h.exact({ { 0.0, 1.0, 2.0 }, { 3.0, 4.0, 5.0 } }, t:totable())
    assert.equal(0, tp.deleted(id))
    t:close()
    assert.equal(1, tp.deleted(id))
  end)

  it("imports a legacy capsule and renames it", function()
    local cap, id = tp.make { shape = { 4 }, legacy = true }
    assert.equal("dltensor", cap.name)
    local t = dlx.from_dlpack(cap)
    assert.equal("used_dltensor", cap.name)
    h.exact({ 0.0, 1.0, 2.0, 3.0 }, t:totable())
    assert.equal(false, t.readonly)
    t:fill_(1)
    assert.equal(1, tp.read_f32(id, 3))
    t:close()
    assert.equal(1, tp.deleted(id))
  end)

  it("shares memory both ways (zero-copy)", function()
    local t, id = accepts { shape = { 2, 3 } }
    tp.write_f32(id, 4, 42)
    assert.equal(42, t:totable()[2][2])
    t:select(1, 1):fill_(7)
    assert.equal(7, tp.read_f32(id, 0))
    assert.equal(7, tp.read_f32(id, 2))
    assert.equal(3, tp.read_f32(id, 3))
  end)

  it("calls the deleter once, when the last view is released", function()
    local t, id = accepts { shape = { 4 } }
    local v = t:flip(1)
    t:close()
    assert.equal(0, tp.deleted(id))
    h.exact({ 3.0, 2.0, 1.0, 0.0 }, v:totable())
    v:close()
    assert.equal(1, tp.deleted(id))
    collectgarbage()
    collectgarbage()
    assert.equal(1, tp.deleted(id))
  end)

  it("calls the deleter once when the tensor is collected", function()
    local id
    do
      local t
      t, id = accepts { shape = { 4 } }
      assert.equal(4, t.numel)
    end
    collectgarbage()
    collectgarbage()
    assert.equal(1, tp.deleted(id))
  end)

  it("calls the deleter once when a closed tensor is collected", function()
    local t, id = accepts { shape = { 4 } }
    t:close()
    t = nil -- luacheck: ignore 311
    collectgarbage()
    collectgarbage()
    assert.equal(1, tp.deleted(id))
  end)

  it("keeps working when the capsule was a temporary that has been collected", function()
    local t = dlx.from_dlpack((tp.make { shape = { 4 } }))
    collectgarbage()
    collectgarbage()
    h.exact({ 0.0, 1.0, 2.0, 3.0 }, t:totable())
  end)

  it("accepts a NULL deleter", function()
    local t = accepts { shape = { 3 }, no_deleter = true }
    h.exact({ 0.0, 1.0, 2.0 }, t:totable())
    t:close()
    local cap = tp.make { shape = { 3 }, no_deleter = true, version = { 2, 0 } }
    h.raises("BufferError", dlx.from_dlpack, cap)
    do -- an unconsumed capsule with a NULL deleter is collected without a call
      local cap2 = tp.make { shape = { 3 }, no_deleter = true }
      assert.equal("dltensor_versioned", cap2.name)
    end
    collectgarbage()
    collectgarbage()
  end)
end)

describe("capsules are consumed exactly once", function()
  it("a second from_dlpack is a ValueError", function()
    local cap, id = tp.make { shape = { 2 } }
    local t = dlx.from_dlpack(cap)
    h.raises("ValueError", dlx.from_dlpack, cap)
    assert.equal(0, tp.deleted(id))
    h.exact({ 0.0, 1.0 }, t:totable())
    t:close()
    assert.equal(1, tp.deleted(id))
  end)

  it("a second use of a legacy capsule is a ValueError", function()
    local cap = tp.make { shape = { 2 }, legacy = true }
    dlx.from_dlpack(cap)
    h.raises("ValueError", dlx.from_dlpack, cap)
  end)

  it("an unconsumed capsule calls its deleter once when collected", function()
    local id, lid
    do
      local cap, lcap
      cap, id = tp.make { shape = { 2 } }
      lcap, lid = tp.make { shape = { 2 }, legacy = true }
      assert.equal("dltensor_versioned", cap.name)
      assert.equal("dltensor", lcap.name)
      assert.equal(0, tp.deleted(id))
    end
    collectgarbage()
    collectgarbage()
    assert.equal(1, tp.deleted(id))
    assert.equal(1, tp.deleted(lid))
  end)

  it("a used capsule does not call the deleter when collected", function()
    local cap, id = tp.make { shape = { 2 } }
    local t = dlx.from_dlpack(cap)
    cap = nil -- luacheck: ignore 311
    collectgarbage()
    collectgarbage()
    assert.equal(0, tp.deleted(id))
    h.exact({ 0.0, 1.0 }, t:totable())
  end)

  it("the capsule is used even when the import fails", function()
    local cap, id = tp.make { shape = { 2 }, dtype = { 99, 8, 1 } }
    h.raises("BufferError", dlx.from_dlpack, cap)
    assert.equal("used_dltensor_versioned", cap.name)
    assert.equal(1, tp.deleted(id))
  end)
end)

describe("import checks", function()
  it("major version other than 1: BufferError, deleter called, nothing else read", function()
    rejects({ shape = { 2 }, version = { 2, 0 } }, "major 2")
    rejects({ shape = { 2 }, version = { 0, 8 } }, "major 0")
    -- the rest of the struct is garbage: only version and deleter may be touched
    rejects({ ndim = 1 << 30, null_shape = true, null_data = true, dtype = { 250, 3, 9 },
      device = { 77, 5 }, version = { 2, 0 } }, "major 2 with garbage")
    rejects({ ndim = -5, version = { 3, 1 } }, "major 3 with bad ndim")
  end)

  it("accepts a newer minor version", function()
    h.exact({ 0.0, 1.0 }, accepts({ shape = { 2 }, version = { 1, 4 } }):totable())
    h.exact({ 0.0, 1.0 }, accepts({ shape = { 2 }, version = { 1, 99 } }):totable())
    h.exact({ 0.0, 1.0 }, accepts({ shape = { 2 }, version = { 1, 0 } }):totable())
  end)

  it("unknown dtype codes: BufferError", function()
    rejects({ shape = { 2 }, dtype = { 18, 8, 1 } }, "code 18")
    rejects({ shape = { 2 }, dtype = { 255, 8, 1 } }, "code 255")
    rejects({ shape = { 2 }, dtype = { 3, 64, 1 } }, "opaque handle")
    rejects({ shape = { 2 }, dtype = { 18, 8, 1 }, legacy = true }, "legacy code 18")
  end)

  it("unknown bits: BufferError", function()
    rejects({ shape = { 2 }, dtype = { 2, 24, 1 } }, "float24")
    rejects({ shape = { 2 }, dtype = { 2, 128, 1 } }, "float128")
    rejects({ shape = { 2 }, dtype = { 0, 4, 1 } }, "int4")
    rejects({ shape = { 2 }, dtype = { 5, 32, 1 } }, "complex32")
    rejects({ shape = { 2 }, dtype = { 4, 32, 1 } }, "bfloat32")
    rejects({ shape = { 2 }, dtype = { 6, 1, 1 } }, "1-bit bool")
    rejects({ shape = { 2 }, dtype = { 6, 32, 1 } }, "32-bit bool")
    rejects({ shape = { 2 }, dtype = { 15, 8, 1 } }, "fp6 with 8 bits")
    rejects({ shape = { 2 }, dtype = { 16, 4, 1 } }, "fp6 with 4 bits")
    rejects({ shape = { 2 }, dtype = { 17, 8, 1 } }, "fp4 with 8 bits")
    rejects({ shape = { 2 }, dtype = { 10, 16, 1 } }, "fp8 with 16 bits")
  end)

  it("unknown lanes: BufferError", function()
    rejects({ shape = { 2 }, dtype = { 2, 32, 4 } }, "float32x4")
    rejects({ shape = { 2 }, dtype = { 2, 32, 0 } }, "0 lanes")
    rejects({ shape = { 2 }, dtype = { 17, 4, 4 } }, "fp4 x4")
    rejects({ shape = { 2 }, dtype = { 6, 8, 2 } }, "bool x2")
  end)

  it("fp4/fp6 with IS_SUBBYTE_TYPE_PADDED: BufferError", function()
    rejects({ shape = { 2 }, dtype = { 17, 4, 1 }, flags = h.FLAG_SUBBYTE_PADDED }, "fp4 padded")
    rejects({ shape = { 2 }, dtype = { 17, 4, 2 }, flags = h.FLAG_SUBBYTE_PADDED }, "fp4x2 padded")
    rejects({ shape = { 2 }, dtype = { 15, 6, 1 }, flags = h.FLAG_SUBBYTE_PADDED }, "fp6 padded")
    rejects({ shape = { 2 }, dtype = { 16, 6, 1 }, flags = h.FLAG_SUBBYTE_PADDED }, "fp6 padded")
  end)

  it("unknown flags: BufferError", function()
    rejects({ shape = { 2 }, flags = 1 << 3 }, "flag bit 3")
    rejects({ shape = { 2 }, flags = 1 << 40 }, "flag bit 40")
    rejects({ shape = { 2 }, flags = math.mininteger }, "flag bit 63")
  end)

  it("accepts IS_COPIED", function()
    local t = accepts { shape = { 2 }, flags = h.FLAG_IS_COPIED }
    assert.equal(false, t.readonly)
    t:fill_(2)
    h.exact({ 2.0, 2.0 }, t:totable())
  end)

  it("devices dlx does not serve: BufferError", function()
    local has = {}
    for _, d in ipairs(dlx.devices()) do has[d.dltype] = true end
    for _, dev in ipairs({ { 4, 0 }, { 7, 0 }, { 8, 0 }, { 10, 0 }, { 12, 0 }, { 15, 0 },
      { 18, 0 }, { 0, 0 }, { 5, 0 }, { 99, 0 } }) do
      rejects({ shape = { 2 }, device = dev }, "device " .. dev[1])
    end
    if not has[2] then rejects({ shape = { 2 }, device = { 2, 0 } }, "CUDA") end
    if not has[14] then rejects({ shape = { 2 }, device = { 14, 0 } }, "oneAPI") end
    rejects({ shape = { 2 }, device = { 4, 0 }, legacy = true }, "legacy OpenCL")
  end)

  it("ndim < 0 or > 32: BufferError", function()
    rejects({ shape = { 2 }, ndim = -1 }, "ndim -1")
    rejects({ shape = { 2 }, ndim = -2147483648 }, "ndim min")
    rejects({ shape = { 2 }, ndim = 2147483647 }, "ndim max")
    local ones = {}
    for i = 1, 33 do ones[i] = 1 end
    rejects({ shape = ones }, "ndim 33")
    rejects({ shape = ones, legacy = true }, "legacy ndim 33")
  end)

  it("accepts ndim 32", function()
    local ones = {}
    for i = 1, 32 do ones[i] = 1 end
    local t = accepts { shape = ones }
    assert.equal(32, t.ndim)
    assert.equal(0.0, t:item())
  end)

  it("NULL shape with ndim > 0: BufferError", function()
    rejects({ shape = { 2 }, null_shape = true }, "NULL shape")
    rejects({ shape = { 2, 2 }, null_shape = true, null_strides = true }, "NULL shape/strides")
    rejects({ shape = { 2 }, null_shape = true, legacy = true }, "legacy NULL shape")
  end)

  it("negative sizes: BufferError", function()
    rejects({ shape = { 2, -3 }, strides = { 1, 1 } }, "size -3")
    rejects({ shape = { -1 }, strides = { 1 } }, "size -1")
    rejects({ shape = { math.mininteger }, strides = { 1 } }, "size min")
  end)

  it("element counts or extents that overflow: BufferError", function()
    rejects({ shape = { 1 << 40, 1 << 40 }, strides = { 1, 1 } }, "count 2^80")
    rejects({ shape = { 1 << 32, 1 << 32 }, strides = { 0, 0 } }, "count 2^64 with stride 0")
    rejects({ shape = { 3 }, strides = { 1 << 62 } }, "extent 2^63 elements")
    rejects({ shape = { 1 << 31 }, strides = { 1 << 40 } }, "extent 2^71")
    rejects({ shape = { 2, 2 }, strides = { math.maxinteger, 1 } }, "stride maxinteger")
    rejects({ shape = { 2 }, strides = { math.mininteger } }, "stride mininteger")
    rejects({ shape = { 1 << 61 }, strides = { 1 }, dtype = { 2, 64, 1 } }, "bytes 2^64")
  end)

  it("NULL strides from a versioned >= 1.2 producer: BufferError", function()
    rejects({ shape = { 2, 3 }, null_strides = true }, "1.3 NULL strides")
    rejects({ shape = { 2, 3 }, null_strides = true, version = { 1, 2 } }, "1.2 NULL strides")
    rejects({ shape = { 4 }, null_strides = true, version = { 1, 5 } }, "1.5 NULL strides")
  end)

  it("accepts NULL strides, as row-major, from legacy and < 1.2 producers", function()
    local cases = { { legacy = true }, { version = { 1, 1 } }, { version = { 1, 0 } } }
    for _, extra in ipairs(cases) do
      local spec = { shape = { 2, 3 }, null_strides = true }
      for k, v in pairs(extra) do spec[k] = v end
      local t = accepts(spec)
      h.exact({ 3, 1 }, t.strides)
      h.exact({ { 0.0, 1.0, 2.0 }, { 3.0, 4.0, 5.0 } }, t:totable())
    end
  end)

  it("byte_offset not a multiple of the item size: BufferError", function()
    rejects({ shape = { 2 }, byte_offset = 2 }, "offset 2 for float32")
    rejects({ shape = { 2 }, byte_offset = 7 }, "offset 7 for float32")
    rejects({ shape = { 2 }, byte_offset = 4, dtype = { 2, 64, 1 } }, "offset 4 for float64")
    rejects({ shape = { 2 }, byte_offset = 2, legacy = true }, "legacy offset 2")
  end)

  it("NULL data with elements: BufferError", function()
    rejects({ shape = { 2 }, null_data = true }, "NULL data")
    rejects({ shape = {}, null_data = true }, "NULL data 0-d")
    rejects({ shape = { 2 }, null_data = true, legacy = true }, "legacy NULL data")
  end)
end)

describe("import of valid edge cases", function()
  it("NULL data for zero-size tensors", function()
    local t = accepts { shape = { 0 }, null_data = true }
    h.exact({ 0 }, t.shape)
    assert.equal(0, t.numel)
    h.exact({}, t:totable())
    local u = accepts { shape = { 2, 0, 3 }, null_data = true }
    h.exact({ 2, 0, 3 }, u.shape)
    h.exact({ {}, {} }, u:totable())
    assert.equal(0.0, u:sum():item())
    local l = accepts { shape = { 0 }, null_data = true, legacy = true }
    assert.equal(0, l.numel)
  end)

  it("zero-size tensors with any strides", function()
    local t = accepts { shape = { 0, 3 }, strides = { 0, 0 } }
    h.exact({ 0, 3 }, t.shape)
    assert.is_true(rawequal(t, t:contiguous()))
  end)

  it("0-d tensors with NULL shape and strides", function()
    local t = accepts { shape = {}, null_shape = true, null_strides = true }
    assert.equal(0, t.ndim)
    h.exact(0.0, t:item())
    local u = accepts { shape = {}, null_shape = true, null_strides = true, byte_offset = 8 }
    h.exact(2.0, u:item())
    local l = accepts { shape = {}, null_shape = true, null_strides = true, legacy = true }
    h.exact(0.0, l:item())
    local v = accepts { ndim = 0, shape = {}, strides = {} }
    h.exact(0.0, v:item())
  end)

  it("byte_offset that is not a multiple of 256", function()
    h.exact({ 1.0, 2.0 }, accepts({ shape = { 2 }, byte_offset = 4 }):totable())
    h.exact({ 3.0, 4.0, 5.0 }, accepts({ shape = { 3 }, byte_offset = 12 }):totable())
    h.exact({ 75.0 }, accepts({ shape = { 1 }, byte_offset = 300 }):totable())
    h.exact({ 2.0, 3.0 }, accepts({ shape = { 2 }, byte_offset = 8, legacy = true }):totable())
  end)

  it("byte_offset with writes going to the right place", function()
    local t, id = accepts { shape = { 2 }, byte_offset = 12 }
    t:fill_(-1)
    assert.equal(2, tp.read_f32(id, 2))
    assert.equal(-1, tp.read_f32(id, 3))
    assert.equal(-1, tp.read_f32(id, 4))
    assert.equal(5, tp.read_f32(id, 5))
  end)

  it("byte_offset and NULL strides together (< 1.2)", function()
    local t = accepts { shape = { 2, 2 }, byte_offset = 16, null_strides = true,
      version = { 1, 1 } }
    h.exact({ { 4.0, 5.0 }, { 6.0, 7.0 } }, t:totable())
  end)

  it("negative strides", function()
    local t = accepts { shape = { 4 }, strides = { -1 }, byte_offset = 12 }
    h.exact({ -1 }, t.strides)
    h.exact({ 3.0, 2.0, 1.0, 0.0 }, t:totable())
    local m = accepts { shape = { 2, 3 }, strides = { -3, 1 }, byte_offset = 12 }
    h.exact({ { 3.0, 4.0, 5.0 }, { 0.0, 1.0, 2.0 } }, m:totable())
    local both = accepts { shape = { 2, 2 }, strides = { -2, -1 }, byte_offset = 12 }
    h.exact({ { 3.0, 2.0 }, { 1.0, 0.0 } }, both:totable())
    assert.equal(6.0, both:sum():item())
  end)

  it("negative strides: writes land in the producer's memory", function()
    local t, id = accepts { shape = { 3 }, strides = { -2 }, byte_offset = 16 }
    h.exact({ 4.0, 2.0, 0.0 }, t:totable())
    t:select(1, 1):fill_(40)
    assert.equal(40, tp.read_f32(id, 4))
    assert.equal(3, tp.read_f32(id, 3))
  end)

  it("non-compact strides: transposed and with gaps", function()
    local tr = accepts { shape = { 3, 2 }, strides = { 1, 3 } }
    h.exact({ { 0.0, 3.0 }, { 1.0, 4.0 }, { 2.0, 5.0 } }, tr:totable())
    local gap = accepts { shape = { 2, 2 }, strides = { 10, 3 } }
    h.exact({ { 0.0, 3.0 }, { 10.0, 13.0 } }, gap:totable())
  end)

  it("zero strides import as a broadcast that refuses writes", function()
    local t = accepts { shape = { 3 }, strides = { 0 }, byte_offset = 8 }
    h.exact({ 2.0, 2.0, 2.0 }, t:totable())
    h.raises("ValueError", t.fill_, t, 1)
  end)

  it("size-1 dims with any strides", function()
    local a = accepts { shape = { 1, 3 }, strides = { 12345, 1 } }
    h.exact({ { 0.0, 1.0, 2.0 } }, a:totable())
    assert.is_true(rawequal(a, a:contiguous()))
    local e = assert(tp.export(a))
    h.exact({ 12345, 1 }, e.strides)
    local b = accepts { shape = { 3, 1 }, strides = { 1, -7 } }
    h.exact({ { 0.0 }, { 1.0 }, { 2.0 } }, b:totable())
    local c = accepts { shape = { 1 }, strides = { 0 } }
    h.exact({ 0.0 }, c:totable())
    c:fill_(5) -- a size-1 dim is not a broadcast, whatever its stride
    h.exact({ 5.0 }, c:totable())
  end)

  it("bool with 8 bits", function()
    local t = accepts { shape = { 4 }, dtype = { 6, 8, 1 } }
    assert.equal("bool", t.dtype)
    h.exact({ false, true, false, true }, t:totable())
  end)

  it("every dtype dlx knows, by its DLPack triple", function()
    for _, name in ipairs(h.dtype_names()) do
      local d = h.DTYPES[name]
      local t = accepts { shape = { 4 }, dtype = { d[1], d[2], d[3] } }
      assert.equal(name, t.dtype)
    end
  end)

  it("fp4 in both forms: lanes 1 (DLPack) and lanes 2 (PyTorch)", function()
    local a = accepts { shape = { 5 }, dtype = { 17, 4, 1 } }
    assert.equal("float4_e2m1fn", a.dtype)
    assert.equal(3, a.nbytes)
    local b = accepts { shape = { 5 }, dtype = { 17, 4, 2 } }
    assert.equal("float4_e2m1fn_x2", b.dtype)
    assert.equal(5, b.nbytes)
    local e = assert(tp.export(b))
    h.exact({ 17, 4, 2 }, e.dtype)
  end)

  it("integer and float64 data", function()
    h.exact({ 0, 1, 2 }, accepts({ shape = { 3 }, dtype = { 0, 64, 1 } }):totable())
    h.exact({ 0, 1, 2 }, accepts({ shape = { 3 }, dtype = { 0, 32, 1 } }):totable())
    h.exact({ 0.0, 1.0 }, accepts({ shape = { 2 }, dtype = { 2, 64, 1 } }):totable())
    h.exact({ 0, 1, 2 }, accepts({ shape = { 3 }, strides = { 1 }, dtype = { 1, 8, 1 } })
      :totable())
    h.exact({ 255, 0 }, accepts({ shape = { 2 }, dtype = { 1, 8, 1 }, byte_offset = 255 })
      :totable())
    h.exact({ 3, 2, 1 }, accepts({ shape = { 3 }, strides = { -1 }, byte_offset = 3,
      dtype = { 0, 8, 1 } }):totable())
  end)
end)

describe("READ_ONLY imports", function()
  it("are read-only, and so are their views", function()
    local t, id = accepts { shape = { 2, 3 }, flags = h.FLAG_READ_ONLY }
    assert.equal(true, t.readonly)
    h.raises("ValueError", t.fill_, t, 1)
    h.raises("ValueError", t.copy_, t, dlx.zeros({ 2, 3 }))
    for _, v in ipairs({ t:transpose(1, 2), t:select(1, 1), t:slice(2, 1, 2), t:flip(1),
      t:view({ 6 }), t:reshape({ 3, 2 }), t:unsqueeze(1), t:narrow(2, 1, 1), t:squeeze(),
      t:permute({ 2, 1 }), t:expand({ 2, 2, 3 }), t:contiguous(), t:to("cpu") }) do
      assert.equal(true, v.readonly)
      h.raises("ValueError", v.fill_, v, 1)
    end
    assert.equal(0, tp.read_f32(id, 0))
    assert.equal(5, tp.read_f32(id, 5))
    h.exact({ { 0.0, 1.0, 2.0 }, { 3.0, 4.0, 5.0 } }, t:totable())
  end)

  it("still read the producer's memory (zero-copy)", function()
    local t, id = accepts { shape = { 3 }, flags = h.FLAG_READ_ONLY }
    tp.write_f32(id, 1, 11)
    h.exact({ 0.0, 11.0, 2.0 }, t:totable())
  end)

  it("give writable copies", function()
    local t = accepts { shape = { 3 }, flags = h.FLAG_READ_ONLY }
    for _, c in ipairs({ t:clone(), t:astype("float64"), t:to({ copy = true }),
      t:transpose(1, 1):flip(1):contiguous() }) do
      assert.equal(false, c.readonly)
      c:fill_(1)
    end
  end)

  it("are READ_ONLY with IS_COPIED too", function()
    local t = accepts { shape = { 2 }, flags = h.FLAG_READ_ONLY | h.FLAG_IS_COPIED }
    assert.equal(true, t.readonly)
  end)

  it("writable imports stay writable (versioned without the flag, legacy)", function()
    local v = accepts { shape = { 2 } }
    assert.equal(false, v.readonly)
    v:fill_(3)
    local l = accepts { shape = { 2 }, legacy = true }
    assert.equal(false, l.readonly)
    l:fill_(3)
  end)
end)

describe("from_dlpack options with a capsule", function()
  it("copy = true gives an independent, writable copy", function()
    local cap, id = tp.make { shape = { 3 }, flags = h.FLAG_READ_ONLY }
    local t = dlx.from_dlpack(cap, { copy = true })
    assert.equal(false, t.readonly)
    h.exact({ 0.0, 1.0, 2.0 }, t:totable())
    t:fill_(9)
    h.exact({ 9.0, 9.0, 9.0 }, t:totable())
    if tp.deleted(id) == 0 then -- the producer's memory may already have been given back
      assert.equal(1, tp.read_f32(id, 1))
      tp.write_f32(id, 0, 100)
      h.exact({ 9.0, 9.0, 9.0 }, t:totable())
    end
    t = nil -- luacheck: ignore 311
    collectgarbage()
    collectgarbage()
    assert.equal(1, tp.deleted(id))
  end)

  it("copy = false imports without copying", function()
    local cap, id = tp.make { shape = { 3 } }
    local t = dlx.from_dlpack(cap, { copy = false })
    tp.write_f32(id, 0, 100)
    h.exact({ 100.0, 1.0, 2.0 }, t:totable())
  end)

  it("device = \"cpu\" keeps the values", function()
    local cap = tp.make { shape = { 3 } }
    local t = dlx.from_dlpack(cap, { device = "cpu" })
    assert.is_true(t.device == dlx.device("cpu"))
    h.exact({ 0.0, 1.0, 2.0 }, t:totable())
  end)

  it("a device that is not available is a DeviceError, and the deleter still runs once",
    function()
      local cap, id = tp.make { shape = { 3 } }
      h.raises("DeviceError", dlx.from_dlpack, cap, { device = "oneapi:4096" })
      cap = nil -- luacheck: ignore 311
      collectgarbage()
      collectgarbage()
      assert.equal(1, tp.deleted(id))
    end)
end)
