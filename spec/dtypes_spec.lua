-- Dtypes: the 27 names, their properties and DLPack triples, storage-only rules, and bit-for-bit
-- copies of fp8/fp6/fp4 (packed, element i at bit i * bits).
local h = require "spec.helper"
local dlx = h.dlx

describe("dtypes", function()
  local tp = h.testprod()

  for _, name in ipairs(h.dtype_names()) do
    local d = h.DTYPES[name]
    it(name .. " has itemsize " .. d[4] .. " and DLPack type (" .. d[1] .. ", " .. d[2] .. ", "
      .. d[3] .. ")", function()
      local t = dlx.empty({ 4 }, { dtype = name })
      assert.equal(name, t.dtype)
      assert.equal(d[4], t.itemsize)
      assert.equal(math.ceil(4 * d[4]), t.nbytes)
      local e = assert(tp.export(t))
      h.exact({ d[1], d[2], d[3] }, e.dtype)
    end)
  end

  it("rounds nbytes up for fp4 and fp6", function()
    assert.equal(3, dlx.empty({ 5 }, { dtype = "float4_e2m1fn" }).nbytes)
    assert.equal(4, dlx.empty({ 5 }, { dtype = "float6_e2m3fn" }).nbytes)
    assert.equal(3, dlx.empty({ 4 }, { dtype = "float6_e3m2fn" }).nbytes)
    assert.equal(1, dlx.empty({ 1 }, { dtype = "float4_e2m1fn" }).nbytes)
    assert.equal(5, dlx.empty({ 5 }, { dtype = "float4_e2m1fn_x2" }).nbytes)
    assert.equal(0, dlx.empty({ 0 }, { dtype = "float4_e2m1fn" }).nbytes)
  end)

  it("gives itemsizes 0.5 and 0.75 as numbers", function()
    assert.equal(0.5, dlx.empty({ 2 }, { dtype = "float4_e2m1fn" }).itemsize)
    assert.equal(0.75, dlx.empty({ 2 }, { dtype = "float6_e2m3fn" }).itemsize)
  end)

  it("lists 15 computing and 12 storage-only dtypes", function()
    assert.equal(15, #h.dtype_names(true))
    assert.equal(12, #h.dtype_names(false))
  end)
end)

describe("storage-only dtypes", function()
  for _, name in ipairs(h.dtype_names(false)) do
    describe(name, function()
      it("can be created with empty, viewed and cloned", function()
        local t = dlx.empty({ 2, 4 }, { dtype = name })
        assert.equal(name, t:transpose(1, 2).dtype)
        assert.equal(name, t:view({ 8 }).dtype)
        assert.equal(name, t:select(1, 2).dtype)
        assert.equal(name, t:clone().dtype)
        assert.equal(name, t:transpose(1, 2):contiguous().dtype)
        assert.is_true(rawequal(t, t:to("cpu")))
      end)

      it("refuses to be computed on with a TypeError", function()
        local t = dlx.empty({ 4 }, { dtype = name })
        h.raises("TypeError", dlx.zeros, { 2 }, { dtype = name })
        h.raises("TypeError", dlx.ones, { 2 }, { dtype = name })
        h.raises("TypeError", dlx.full, { 2 }, 1, { dtype = name })
        h.raises("TypeError", dlx.tensor, { 1, 2 }, { dtype = name })
        h.raises("TypeError", dlx.arange, 3, { dtype = name })
        h.raises("TypeError", t.fill_, t, 0)
        h.raises("TypeError", t.astype, t, "float32")
        h.raises("TypeError", t.to, t, { dtype = "float32" })
        h.raises("TypeError", dlx.zeros({ 4 }).astype, dlx.zeros({ 4 }), name)
        h.raises("TypeError", t.copy_, t, dlx.zeros({ 4 }))
        h.raises("TypeError", dlx.zeros({ 4 }).copy_, dlx.zeros({ 4 }), t)
        for _, op in ipairs({ "sum", "prod", "mean", "min", "max", "argmin", "argmax", "all",
          "any" }) do
          h.raises("TypeError", t[op], t)
        end
        h.raises("TypeError", t.item, t:slice(1, 1, 1))
        h.raises("TypeError", t.totable, t)
      end)

      it("prints without computing", function()
        local s = tostring(dlx.empty({ 3 }, { dtype = name }))
        assert.truthy(s:find("dtype=" .. name, 1, true), s)
      end)
    end)
  end

  it("refuses a cast between two storage-only dtypes", function()
    local a = dlx.empty({ 4 }, { dtype = "float8_e4m3fn" })
    h.raises("TypeError", a.astype, a, "float8_e5m2")
    h.raises("TypeError", dlx.empty({ 4 }, { dtype = "float8_e5m2" }).copy_,
      dlx.empty({ 4 }, { dtype = "float8_e5m2" }), a)
  end)
end)

-- Reads n packed elements of `bits` bits from a byte reader (0-based byte index).
local function unpack_bits(read_byte, n, bits)
  local out = {}
  for i = 0, n - 1 do
    local v = 0
    for b = 0, bits - 1 do
      local bit = i * bits + b
      local byte = read_byte(bit // 8)
      v = v | (((byte >> (bit % 8)) & 1) << b)
    end
    out[i + 1] = v
  end
  return out
end

describe("bit-for-bit copies of storage-only data", function()
  local tp = h.testprod()

  -- A tensor of `dtype` over testprod's bytes 0, 1, 2, ... and its expected element values.
  local function source(dtype, shape)
    local d = h.DTYPES[dtype]
    local cap, id = tp.make { dtype = { d[1], d[2], d[3] }, shape = shape, fill = "u8" }
    local t = dlx.from_dlpack(cap)
    local n = 1
    for _, s in ipairs(shape) do n = n * s end
    local bits = d[2] * d[3]
    local elems = unpack_bits(function(j) return tp.read_u8(id, j) end, n, bits)
    return t, elems, bits
  end

  -- The element values of a C-contiguous tensor t, read through a DLPack export.
  local function elements(t, bits)
    local e = assert(tp.export(t, { keep = true }))
    local vals = unpack_bits(function(j) return tp.read_export(e.handle, j, "u8") end, t.numel,
      bits)
    tp.release(e.handle)
    return vals
  end

  local function pick(elems, idx)
    local out = {}
    for k, i in ipairs(idx) do out[k] = elems[i] end
    return out
  end

  for _, dtype in ipairs({ "float8_e4m3fn", "float8_e5m2", "float8_e8m0fnu", "float6_e2m3fn",
    "float6_e3m2fn", "float4_e2m1fn", "float4_e2m1fn_x2" }) do
    describe(dtype, function()
      it("clone keeps every bit", function()
        local t, want, bits = source(dtype, { 13 })
        local c = t:clone()
        assert.equal(dtype, c.dtype)
        h.exact(want, elements(c, bits))
      end)

      it("copy_ from the same dtype keeps every bit", function()
        local t, want, bits = source(dtype, { 11 })
        local dst = dlx.empty({ 11 }, { dtype = dtype })
        assert.is_true(rawequal(dst, dst:copy_(t)))
        h.exact(want, elements(dst, bits))
      end)

      it("an odd slice made contiguous holds the right elements", function()
        local t, want, bits = source(dtype, { 13 })
        h.exact(pick(want, { 2, 3, 4, 5, 6 }), elements(t:slice(1, 2, 6):contiguous(), bits))
        h.exact(pick(want, { 4, 5, 6, 7, 8, 9, 10 }), elements(t:narrow(1, 4, 7):clone(), bits))
        h.exact(pick(want, { 2, 5, 8, 11 }), elements(t:slice(1, 2, 13, 3):contiguous(), bits))
      end)

      it("a flipped view made contiguous is reversed", function()
        local t, want, bits = source(dtype, { 7 })
        h.exact(pick(want, { 7, 6, 5, 4, 3, 2, 1 }), elements(t:flip(1):contiguous(), bits))
      end)

      it("a transposed view made contiguous is transposed", function()
        local t, want, bits = source(dtype, { 3, 5 })
        local idx = {}
        for j = 0, 4 do
          for i = 0, 2 do idx[#idx + 1] = i * 5 + j + 1 end
        end
        h.exact(pick(want, idx), elements(t:transpose(1, 2):contiguous(), bits))
      end)

      it("copy_ into an odd slice leaves the neighbours alone", function()
        local t, want, bits = source(dtype, { 9 })
        local dst = t:clone()
        local src, srcvals = source(dtype, { 3 })
        dst:slice(1, 4, 6):copy_(src)
        local expect = {}
        for i = 1, 9 do expect[i] = want[i] end
        expect[4], expect[5], expect[6] = srcvals[1], srcvals[2], srcvals[3]
        h.exact(expect, elements(dst, bits))
      end)
    end)
  end
end)

describe("bool storage", function()
  it("is one byte per value, 0 or 1", function()
    local tp = h.testprod()
    local t = dlx.tensor({ true, false, true, true })
    local e = assert(tp.export(t, { keep = true }))
    h.exact({ 6, 8, 1 }, e.dtype)
    local bytes = {}
    for i = 0, 3 do bytes[i + 1] = tp.read_export(e.handle, i, "u8") end
    tp.release(e.handle)
    h.exact({ 1, 0, 1, 1 }, bytes)
  end)
end)
