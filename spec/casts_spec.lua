-- Casts: every pair of computing dtypes on representative values, then the rules one by one:
-- round to nearest even (float16 and bfloat16 included, no double rounding), int wrap-around,
-- float-to-int truncation with NaN -> 0 and saturation, bool, complex.
local h = require "spec.helper"
local dlx = h.dlx

local INF, NAN = math.huge, 0 / 0
local U64MAX = 18446744073709551615.0 -- 2^64 - 1 as a float: 2^64
local TWO63 = 9223372036854775808.0

local function cast(values, from, to)
  return dlx.tensor(values, { dtype = from }):astype(to):totable()
end

local function kind(dtype)
  if dtype == "bool" then return "bool" end
  if dtype:match("^complex") then return "complex" end
  if dtype:match("float") then return "float" end
  return "int"
end

describe("casts between every pair of computing dtypes", function()
  local base = { 0, 1, 2, 3, 100, 127 }

  local function source_values(from)
    local k, out = kind(from), {}
    if k == "bool" then return { false, true } end
    for i, v in ipairs(base) do
      if k == "complex" then
        out[i] = { re = v + 0.0, im = 0.0 }
      else
        out[i] = v
      end
    end
    return out
  end

  local function expected(from, to)
    local src = kind(from) == "bool" and { 0, 1 } or base
    local k, out = kind(to), {}
    for i, v in ipairs(src) do
      if k == "bool" then
        out[i] = v ~= 0
      elseif k == "complex" then
        out[i] = { re = v + 0.0, im = 0.0 }
      elseif k == "float" then
        out[i] = v + 0.0
      else
        out[i] = v
      end
    end
    return out
  end

  for _, from in ipairs(h.NUMERIC) do
    for _, to in ipairs(h.NUMERIC) do
      it(from .. " -> " .. to, function()
        local t = dlx.tensor(source_values(from), { dtype = from }):astype(to)
        assert.equal(to, t.dtype)
        h.exact(expected(from, to), t:totable())
      end)
    end
  end
end)

describe("float rounding", function()
  it("float64 -> float32 rounds to nearest even", function()
    h.same({ 1.0, 1 + 2 ^ -22, INF, -INF, 0.0, 2 ^ -149, 0.0, 2 ^ -149 },
      cast({ 1 + 2 ^ -24, 1 + 3 * 2 ^ -24, 1e300, -1e300, 1e-50, 2 ^ -149, 2 ^ -150,
        3 * 2 ^ -151 }, "float64", "float32"))
  end)

  it("float32 -> float16 rounds to nearest even, subnormals and overflow included", function()
    h.same({ 1.0, 1 + 2 ^ -9, 2048.0, 2052.0, 65504.0, 65504.0, INF, 2 ^ -24, 0.0, 2 ^ -24, INF,
      -INF, 0.0999755859375 },
      cast({ 1 + 2 ^ -11, 1 + 3 * 2 ^ -11, 2049, 2051, 65504, 65519, 65520, 2 ^ -24, 2 ^ -25,
        3 * 2 ^ -26, 1e6, -1e6, 0.1 }, "float32", "float16"))
  end)

  it("float64 -> float16 rounds once (no double rounding through float32)", function()
    h.same({ 1 + 2 ^ -10, 1.0 }, cast({ 1 + 2 ^ -11 + 2 ^ -40, 1 + 2 ^ -11 }, "float64",
      "float16"))
  end)

  it("float32 -> bfloat16 rounds to nearest even", function()
    h.same({ 1.0, 1 + 2 ^ -6, 256.0, 260.0, INF, 2 ^ -133, 0.10009765625, -2.0 },
      cast({ 1 + 2 ^ -8, 1 + 3 * 2 ^ -8, 257, 259, 3.4028234663852886e38, 2 ^ -133, 0.1,
        -2.0078125 }, "float32", "bfloat16"))
  end)

  it("float64 -> bfloat16 rounds once (no double rounding through float32)", function()
    h.same({ 1 + 2 ^ -7, 1.0 }, cast({ 1 + 2 ^ -8 + 2 ^ -40, 1 + 2 ^ -8 }, "float64",
      "bfloat16"))
  end)

  it("keeps NaN a NaN and infinities infinite in float16 and bfloat16", function()
    for _, to in ipairs({ "float16", "bfloat16", "float32" }) do
      local r = cast({ NAN, INF, -INF }, "float64", to)
      assert.is_true(h.isnan(r[1]), to)
      assert.equal(INF, r[2])
      assert.equal(-INF, r[3])
      local back = dlx.tensor({ NAN }, { dtype = "float64" }):astype(to):astype("float64")
      assert.is_true(h.isnan(back:item()), to)
    end
  end)

  it("keeps the sign of zero", function()
    for _, to in ipairs({ "float16", "bfloat16", "float32" }) do
      h.same({ -0.0, 0.0 }, cast({ -0.0, 0.0 }, "float64", to), { strict_zero = true })
    end
    h.same({ -0.0 }, dlx.tensor({ -0.0 }, { dtype = "float64" }):astype("float16")
      :astype("float32"):totable(), { strict_zero = true })
  end)

  it("widens float16 and bfloat16 exactly", function()
    h.exact({ 0.0999755859375, 65504.0, 2 ^ -24 },
      cast({ 0.1, 65504, 2 ^ -24 }, "float64", "float16"))
    local f16 = dlx.tensor({ 0.1, 2 ^ -24 }, { dtype = "float16" })
    h.exact({ 0.0999755859375, 2 ^ -24 }, f16:astype("float64"):totable())
    h.exact({ 0.0999755859375, 2 ^ -24 }, f16:astype("float32"):totable())
    local bf = dlx.tensor({ 0.1 }, { dtype = "bfloat16" })
    h.exact({ 0.10009765625 }, bf:astype("float64"):totable())
    h.exact({ 0.10009765625 }, bf:astype("float16"):astype("float64"):totable())
  end)

  it("float32 widens exactly to float64", function()
    h.exact({ 0.10000000149011612 }, cast({ 0.1 }, "float32", "float64"))
  end)
end)

describe("integer to float", function()
  it("rounds to nearest even", function()
    h.exact({ 2 ^ 53, 2 ^ 53 + 4, TWO63 },
      cast({ (1 << 53) + 1, (1 << 53) + 3, math.maxinteger }, "int64", "float64"))
    h.exact({ 16777216.0, 16777220.0, TWO63 },
      cast({ 16777217, 16777219, math.maxinteger }, "int64", "float32"))
    h.exact({ 2048.0, 65504.0, INF, -INF }, cast({ 2049, 65519, 70000, -70000 }, "int64",
      "float16"))
    h.exact({ 256.0, 260.0 }, cast({ 257, 259 }, "int32", "bfloat16"))
  end)

  it("converts uint64 values above math.maxinteger", function()
    local u = dlx.tensor({ -1, math.mininteger }):astype("uint64")
    h.exact({ U64MAX, TWO63 }, u:astype("float64"):totable())
    h.exact({ U64MAX, TWO63 }, u:astype("float32"):totable())
  end)
end)

describe("integer to integer", function()
  it("wraps around", function()
    h.exact({ 44, -1, -128, 127 }, cast({ 300, -1, 128, -129 }, "int64", "int8"))
    h.exact({ 255 }, cast({ -1 }, "int64", "uint8"))
    h.exact({ 65535 }, cast({ -1 }, "int64", "uint16"))
    h.exact({ 4294967295 }, cast({ -1 }, "int64", "uint32"))
    h.exact({ 5 }, cast({ (1 << 40) + 5 }, "int64", "int32"))
    h.exact({ -1 }, cast({ 4294967295 }, "uint32", "int32"))
    h.exact({ -56 }, cast({ 200 }, "uint8", "int8"))
    h.exact({ 32768 }, cast({ -32768 }, "int16", "uint16"))
    h.exact({ 0 }, cast({ 256 }, "int16", "uint8"))
  end)

  it("wraps uint64 <-> int64", function()
    local u = dlx.tensor({ -1, 5 }):astype("uint64")
    h.exact({ U64MAX, 5 }, u:totable())
    h.exact({ -1, 5 }, u:astype("int64"):totable())
    h.exact({ -1, 5 }, u:astype("int32"):totable())
    h.exact({ 255, 5 }, u:astype("uint8"):totable())
  end)
end)

describe("float to integer", function()
  it("truncates toward zero", function()
    h.exact({ 2, -2, 0, 0, 7 }, cast({ 2.7, -2.7, 0.5, -0.5, 7.999 }, "float64", "int32"))
    h.exact({ 2, -2 }, cast({ 2.7, -2.7 }, "float32", "int64"))
    h.exact({ 2, -2 }, cast({ 2.5, -2.5 }, "float16", "int8"))
    h.exact({ 2 }, cast({ 2.9 }, "bfloat16", "uint16"))
  end)

  it("gives 0 for NaN", function()
    for _, to in ipairs({ "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32" }) do
      h.exact({ 0 }, cast({ NAN }, "float64", to))
      h.exact({ 0 }, cast({ NAN }, "float32", to))
      h.exact({ 0 }, cast({ NAN }, "float16", to))
    end
    h.exact({ 0 }, cast({ NAN }, "float64", "uint64"))
  end)

  it("saturates out-of-range values", function()
    h.exact({ 2147483647, -2147483648, 2147483647, -2147483648 },
      cast({ 1e10, -1e10, INF, -INF }, "float64", "int32"))
    h.exact({ 127, -128 }, cast({ 200.0, -200.0 }, "float64", "int8"))
    h.exact({ 255, 0, 255, 0, 0 }, cast({ 300.5, -2.7, INF, -INF, -1e20 }, "float64", "uint8"))
    h.exact({ math.maxinteger, math.mininteger, math.maxinteger, math.mininteger,
      9223372036854774784 },
      cast({ 1e30, -1e30, TWO63, -TWO63, 9223372036854774784.0 }, "float64", "int64"))
    h.exact({ 127 }, cast({ 65504 }, "float16", "int8"))
    h.exact({ 32767 }, cast({ 1e38 }, "float32", "int16"))
  end)

  it("saturates to uint64's range", function()
    h.exact({ U64MAX, 0, TWO63, 3 }, cast({ 1e30, -1.0, TWO63, 3.5 }, "float64", "uint64"))
  end)
end)

describe("to bool", function()
  it("is ~= 0, NaN true", function()
    h.exact({ false, false, true, true, true, true },
      cast({ 0.0, -0.0, 0.1, NAN, INF, -1 }, "float64", "bool"))
    h.exact({ false, true }, cast({ 0.0, NAN }, "float16", "bool"))
    h.exact({ false, true }, cast({ 0.0, 2 ^ -133 }, "float32", "bool"))
  end)

  it("does not wrap integers first", function()
    h.exact({ false, true, true, true }, cast({ 0, -1, 256, 1 << 40 }, "int64", "bool"))
    h.exact({ true }, cast({ 256 }, "int16", "bool"))
  end)

  it("is true for complex values with any nonzero part", function()
    local c = dlx.tensor({ { re = 0, im = 1 }, { re = 0, im = 0 }, { re = NAN, im = 0 },
      { re = 2, im = 0 } }, { dtype = "complex64" })
    h.exact({ true, false, true, true }, c:astype("bool"):totable())
  end)
end)

describe("from bool", function()
  it("gives 1 and 0", function()
    local b = dlx.tensor({ true, false })
    h.exact({ 1, 0 }, b:astype("int8"):totable())
    h.exact({ 1, 0 }, b:astype("uint64"):totable())
    h.exact({ 1.0, 0.0 }, b:astype("float16"):totable())
    h.exact({ 1.0, 0.0 }, b:astype("bfloat16"):totable())
    h.same({ { re = 1, im = 0 }, { re = 0, im = 0 } }, b:astype("complex128"):totable())
  end)
end)

describe("complex", function()
  local c = function()
    return dlx.tensor({ { re = 1.5, im = 2 }, { re = -2.5, im = -7 } }, { dtype = "complex64" })
  end

  it("to real keeps the real part", function()
    h.exact({ 1.5, -2.5 }, c():astype("float32"):totable())
    h.exact({ 1.5, -2.5 }, c():astype("float64"):totable())
    h.exact({ 1.5, -2.5 }, c():astype("float16"):totable())
    h.exact({ 1, -2 }, c():astype("int32"):totable())
    h.exact({ 1, 0 }, c():astype("uint8"):totable())
  end)

  it("from real has a zero imaginary part", function()
    h.same({ { re = 2.5, im = 0 }, { re = -1, im = 0 } },
      dlx.tensor({ 2.5, -1 }, { dtype = "float32" }):astype("complex64"):totable())
    h.same({ { re = 3, im = 0 } }, dlx.tensor({ 3 }):astype("complex128"):totable())
  end)

  it("complex128 -> complex64 rounds both parts", function()
    local t = dlx.tensor({ { re = 1 + 2 ^ -30, im = -(1 + 2 ^ -30) }, { re = 1e300, im = 0.1 } },
      { dtype = "complex128" }):astype("complex64")
    h.same({ { re = 1, im = -1 }, { re = INF, im = 0.10000000149011612 } }, t:totable())
  end)

  it("complex64 -> complex128 is exact", function()
    h.same({ { re = 0.10000000149011612, im = -0.10000000149011612 } },
      dlx.tensor({ { re = 0.1, im = -0.1 } }, { dtype = "complex64" }):astype("complex128")
      :totable())
  end)
end)

describe("casts of views", function()
  it("follow the view's strides", function()
    local t = dlx.arange(6, { dtype = "int32" }):view({ 2, 3 }):transpose(1, 2):flip(1)
    h.exact({ { 2.0, 5.0 }, { 1.0, 4.0 }, { 0.0, 3.0 } }, t:astype("float16"):totable())
    local e = dlx.tensor({ 1.5 }, { dtype = "float64" }):expand({ 3 })
    h.exact({ 1, 1, 1 }, e:astype("int16"):totable())
  end)
end)
