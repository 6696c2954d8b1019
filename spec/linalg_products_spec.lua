-- Matrix products (docs/linalg.md): every function against a reference made of other dlx ops
-- (broadcast elementwise products summed over the inner dim, in float64, complex128 or int64),
-- for every dtype family and the layouts BLAS can and cannot take as they are, with tolerances
-- scaled by the inner size and the dtype's epsilon.
local h = require "spec.helper"
local dlx = h.dlx

local EPS = { float16 = 2 ^ -10, bfloat16 = 2 ^ -7, float32 = 2 ^ -23, float64 = 2 ^ -52,
  complex64 = 2 ^ -23, complex128 = 2 ^ -52 }
local WIDE = { float16 = "float64", bfloat16 = "float64", float32 = "float64", float64 = "float64",
  complex64 = "complex128", complex128 = "complex128", int64 = "int64", int32 = "int64",
  int8 = "int64", uint8 = "int64", bool = "bool" }

-- The reference product of a and b (at least 2-d, batch dims broadcasting) in the wide dtype.
local function reference(a, b, wide)
  local x, y = a:astype(wide), b:astype(wide)
  if wide == "bool" then return (x:unsqueeze(-1):logical_and(y:unsqueeze(-3))):any(-2) end
  return (x:unsqueeze(-1) * y:unsqueeze(-3)):sum(-2)
end

-- Checks got against the reference of a @ b: exact for integers and bool, else within
-- k * eps * (|a| @ |b|) (and a little for the final rounding of float16 and bfloat16).
local function check_close(got, a, b, dtype)
  local wide = WIDE[dtype]
  local want = reference(a, b, wide)
  assert.are.same(want.shape, got.shape)
  if EPS[dtype] == nil then
    assert.is_true(dlx.equal(got:astype(wide), want), "values differ from the reference")
    return
  end
  local k = a.shape[a.ndim]
  local bound = reference(a:astype(wide):abs(), b:astype(wide):abs(), "float64")
  local tol = bound * ((k + 2) * EPS[dtype]) + 1e-300
  local diff = (got:astype(wide) - want):abs()
  assert.is_true((diff - tol):le(0):all():item(), ("%s: off by %g (allowed %g)"):format(dtype,
    diff:max():item(), tol:max():item()))
end

local J = { re = 0, im = 1 }

local function rand(shape, dtype)
  dlx.manual_seed(#shape * 7 + (shape[1] or 0))
  if dtype == "bool" then return dlx.rand(shape):gt(0.5) end
  if dtype:match("int") then return (dlx.rand(shape) * 7 - 3):floor():astype(dtype) end
  if dtype:match("complex") then
    return (dlx.randn(shape):astype("complex128") + dlx.randn(shape) * J):astype(dtype)
  end
  return dlx.randn(shape):astype(dtype)
end

local crand = rand

local DTYPES = { "float32", "float64", "complex64", "complex128", "float16", "bfloat16", "int64",
  "int32", "bool" }

-- Layouts of an {m, k} operand made from fresh data: each gives a tensor of that shape.
local LAYOUTS = {
  contiguous = function(m, k, dtype) return crand({ m, k }, dtype) end,
  transposed = function(m, k, dtype) return crand({ k, m }, dtype):transpose(1, 2) end,
  strided = function(m, k, dtype) return crand({ m, 2 * k }, dtype):slice(2, 1, -1, 2) end,
  flipped = function(m, k, dtype) return crand({ m, k }, dtype):flip(1) end,
}

describe("dlx.matmul", function()
  for _, dtype in ipairs(DTYPES) do
    for name, make in pairs(LAYOUTS) do
      for _, size in ipairs({ { 1, 1, 1 }, { 3, 4, 5 }, { 4, 4, 4 }, { 40, 50, 30 } }) do
        local m, k, n = size[1], size[2], size[3]
        it(("%s, %s operands, %dx%d @ %dx%d"):format(dtype, name, m, k, k, n), function()
          local a, b = make(m, k, dtype), make(k, n, dtype)
          local c = dlx.matmul(a, b)
          assert.are.equal(dtype, c.dtype)
          check_close(c, a, b, dtype)
          check_close(a:matmul(b), a, b, dtype)
        end)
      end
    end
  end

  for _, dtype in ipairs({ "float32", "float64", "complex64", "int64", "bool", "float16" }) do
    it(dtype .. ": a BLAS-sized product (and the own loops' size) in every layout pair", function()
      for _, m in ipairs({ 7, 70 }) do
        for _, la in pairs(LAYOUTS) do
          for _, lb in pairs(LAYOUTS) do
            local a, b = la(m, 33, dtype), lb(33, m + 3, dtype)
            check_close(dlx.matmul(a, b), a, b, dtype)
          end
        end
      end
    end)
  end

  it("promotes 1-d operands and removes the added dim, as NumPy", function()
    local m, v, w = rand({ 3, 4 }, "float64"), rand({ 4 }, "float64"), rand({ 3 }, "float64")
    assert.are.same({ 3 }, dlx.matmul(m, v).shape)
    assert.are.same({ 4 }, dlx.matmul(w, m).shape)
    assert.are.same({}, dlx.matmul(v, v).shape)
    check_close(dlx.matmul(m, v):unsqueeze(2), m, v:unsqueeze(2), "float64")
    check_close(dlx.matmul(w, m):unsqueeze(1), w:unsqueeze(1), m, "float64")
    assert.are.same({ 2, 3 }, dlx.matmul(rand({ 2, 3, 4 }, "float64"), v).shape)
    assert.are.same({ 2, 4 }, dlx.matmul(w, rand({ 2, 3, 4 }, "float64")).shape)
  end)

  it("broadcasts batch dims (stride-0 operands never copied into a batch)", function()
    for _, dtype in ipairs({ "float32", "float64", "int32", "complex128" }) do
      local a, b = rand({ 3, 1, 5, 6 }, dtype), rand({ 2, 6, 4 }, dtype)
      local c = dlx.matmul(a, b)
      assert.are.same({ 3, 2, 5, 4 }, c.shape)
      check_close(c, a, b, dtype)
      local big_a, big_b = rand({ 6, 40, 50 }, dtype), rand({ 50, 30 }, dtype)
      check_close(dlx.matmul(big_a, big_b), big_a, big_b, dtype)
      local t = rand({ 5, 4, 3 }, dtype):permute({ 2, 1, 3 }) -- batch stride not outermost
      local u = rand({ 3, 2 }, dtype)
      check_close(dlx.matmul(t, u), t, u, dtype)
    end
  end)

  it("handles zero-size dims: empty results, and zeros for an empty inner dim", function()
    for _, dtype in ipairs(DTYPES) do
      assert.are.same({ 0, 4 }, dlx.matmul(rand({ 0, 3 }, dtype), rand({ 3, 4 }, dtype)).shape)
      assert.are.same({ 2, 0 }, dlx.matmul(rand({ 2, 3 }, dtype), rand({ 3, 0 }, dtype)).shape)
      assert.are.same({ 0, 2, 4 },
        dlx.matmul(rand({ 0, 2, 3 }, dtype), rand({ 3, 4 }, dtype)).shape)
      local z = dlx.matmul(rand({ 2, 0 }, dtype), rand({ 0, 5 }, dtype))
      assert.are.same({ 2, 5 }, z.shape)
      assert.is_true(dlx.equal(z, dlx.zeros({ 2, 5 }, { dtype = dtype })))
    end
  end)

  it("promotes mixed dtypes as the elementwise ops do", function()
    local a, b = rand({ 3, 4 }, "int32"), rand({ 4, 2 }, "float32")
    local c = dlx.matmul(a, b)
    assert.are.equal("float32", c.dtype)
    check_close(c, a:astype("float32"), b, "float32")
    assert.are.equal("complex128", dlx.matmul(rand({ 2, 2 }, "float64"),
      rand({ 2, 2 }, "complex64")).dtype)
    assert.are.equal("int64", dlx.matmul(rand({ 2, 2 }, "bool"), rand({ 2, 2 }, "int64")).dtype)
  end)

  it("accumulates float16 and bfloat16 in float32 (one rounding), own loops and sgemm", function()
    for _, dtype in ipairs({ "float16", "bfloat16" }) do
      for _, m in ipairs({ 1, 64 }) do
        local a = dlx.ones({ m, 4096 }, { dtype = dtype })
        local b = dlx.ones({ 4096, m }, { dtype = dtype })
        local c = dlx.matmul(a, b)
        assert.are.equal(4096, c:max():item()) -- float16 sums would stop at 2048
        assert.are.equal(4096, c:min():item())
      end
    end
  end)

  it("accumulates integers in 64 bits and wraps into the result dtype, as NumPy", function()
    local a = dlx.full({ 1, 2 }, 2 ^ 30, { dtype = "int32" })
    local b = dlx.full({ 2, 1 }, 2, { dtype = "int32" })
    assert.are.equal(0, dlx.matmul(a, b):item()) -- 2^32 wraps to 0
    local c = dlx.full({ 1, 3 }, 100, { dtype = "int8" })
    assert.are.equal(44, dlx.matmul(c, dlx.ones({ 3, 1 }, { dtype = "int8" })):item()) -- 300 - 256
  end)

  it("bool products are logical (or of ands)", function()
    local a = dlx.tensor({ { true, false }, { false, false } })
    local b = dlx.tensor({ { true, true }, { true, false } })
    assert.are.same({ { true, true }, { false, false } }, dlx.matmul(a, b):totable())
  end)

  it("gives the same bits on 1 and 2 threads", function()
    local before = dlx.get_num_threads()
    for _, dtype in ipairs({ "float32", "float64", "complex64", "float16", "int64" }) do
      local a, b = rand({ 300, 500 }, dtype), rand({ 500, 200 }, dtype)
      dlx.set_num_threads(1)
      local one = dlx.matmul(a, b)
      dlx.set_num_threads(2)
      local two = dlx.matmul(a, b)
      assert.is_true(dlx.equal(one, two), dtype)
    end
    for _, dtype in ipairs({ "float32", "float64" }) do -- batches of 3x3, 4x4, 6x6: fixed sizes
      for _, n in ipairs({ 3, 4, 6 }) do
        local a, b = rand({ 20000, n, n }, dtype), rand({ 20001, n, n }, dtype):slice(1, 2, -1)
        for _, x in ipairs({ a, a:transpose(2, 3) }) do
          dlx.set_num_threads(1)
          local one = dlx.matmul(x, b)
          dlx.set_num_threads(2)
          local two = dlx.matmul(x, b)
          assert.is_true(dlx.equal(one, two), ("%s %dx%d"):format(dtype, n, n))
        end
      end
    end
    dlx.set_num_threads(before)
  end)

  it("batches of 3x3, 4x4 and 6x6 (rotations, poses, spatial inertias), shared or each", function()
    for _, dtype in ipairs({ "float32", "float64" }) do
      for _, n in ipairs({ 3, 4, 6 }) do
        local a, b, pose = rand({ 3000, n, n }, dtype),
            rand({ 3001, n, n }, dtype):slice(1, 2, -1), rand({ n, n }, dtype)
        check_close(dlx.matmul(a, b), a, b, dtype)
        check_close(dlx.matmul(a, pose), a, pose, dtype)
        check_close(dlx.matmul(pose, a), pose, a, dtype)
        check_close(dlx.matmul(a:transpose(2, 3), b), a:transpose(2, 3), b, dtype)
        local padded = rand({ 3000, n, n + 3 }, dtype):slice(3, 2, n + 1)
        check_close(dlx.matmul(b, padded:transpose(2, 3)), b, padded:transpose(2, 3), dtype)
      end
    end
  end)

  it("computes a batch of fixed size with the bits of the own loops of any size", function()
    -- (n x n) @ (n x n+1) runs the own loops, which sum in the same order: its first n
    -- columns are the n x n product's, bit for bit, whichever ISA the fixed kernels use
    for _, dtype in ipairs({ "float32", "float64" }) do
      for _, n in ipairs({ 3, 4, 6 }) do
        local a, b = rand({ 500, n, n }, dtype), rand({ 500, n, n + 1 }, dtype)
        local wide = dlx.matmul(a, b):slice(3, 1, n)
        assert.is_true(dlx.equal(dlx.matmul(a, b:slice(3, 1, n)), wide), dtype .. " " .. n)
        local at = a:transpose(2, 3)
        assert.is_true(dlx.equal(dlx.matmul(at, b:slice(3, 1, n)),
          dlx.matmul(at, b):slice(3, 1, n)), dtype .. " " .. n .. ", a transposed")
      end
    end
  end)

  it("writes out =, casting by the same-kind rule, through a temporary when it overlaps", function()
    local a, b = rand({ 3, 4 }, "float32"), rand({ 4, 3 }, "float32")
    local out = dlx.zeros({ 3, 3 }, { dtype = "float64" })
    assert.are.equal(out, dlx.matmul(a, b, { out = out }))
    check_close(out:astype("float32"), a, b, "float32")
    local t = dlx.zeros({ 3, 6 }):slice(2, 1, -1, 2) -- a strided out
    dlx.matmul(a, b, { out = t })
    check_close(t, a, b, "float32")
    local sq = rand({ 4, 4 }, "float64")
    local want = dlx.matmul(sq, sq)
    dlx.matmul(sq, sq, { out = sq })
    assert.is_true(dlx.equal(want, sq))
    h.raises("ValueError", dlx.matmul, a, b, { out = dlx.zeros({ 3, 4 }) })
    h.raises("TypeError", dlx.matmul, a, b, { out = dlx.zeros({ 3, 3 }, { dtype = "int32" }) })
    h.raises("TypeError", dlx.matmul, a, b, { output = out })
    h.raises("ValueError", dlx.matmul, a, b, { out = dlx.zeros({ 1, 3 }):expand({ 3, 3 }) })
  end)

  it("names both shapes when they do not match", function()
    local msg = h.raises("ValueError", dlx.matmul, dlx.zeros({ 2, 3 }), dlx.zeros({ 4, 5 }))
    assert.truthy(msg:find("{2, 3}", 1, true) and msg:find("{4, 5}", 1, true))
    msg = h.raises("ValueError", dlx.matmul, dlx.zeros({ 2, 2, 3 }), dlx.zeros({ 3, 3, 5 }))
    assert.truthy(msg:find("{2, 2, 3}", 1, true) and msg:find("{3, 3, 5}", 1, true))
    h.raises("ValueError", dlx.matmul, dlx.tensor(1), dlx.zeros({ 3 }))
    h.raises("TypeError", dlx.matmul, dlx.zeros({ 2, 2 }), 3)
    h.raises("TypeError", dlx.matmul, dlx.empty({ 2, 2 }, { dtype = "float8_e4m3fn" }),
      dlx.empty({ 2, 2 }, { dtype = "float8_e4m3fn" }))
    local closed = dlx.zeros({ 2, 2 })
    closed:close()
    h.raises("ValueError", dlx.matmul, closed, dlx.zeros({ 2, 2 }))
  end)

  it("NaN and inf propagate and never hang", function()
    local a = dlx.tensor({ { 0 / 0, 1 }, { 1, 1 } })
    local c = dlx.matmul(a, dlx.ones({ 2, 40 }))
    assert.is_true(c:select(1, 1):isnan():all():item())
    assert.is_false(c:select(1, 2):isnan():any():item())
    local big = dlx.full({ 64, 64 }, 1 / 0)
    assert.is_true(dlx.matmul(big, big):isinf():all():item())
  end)
end)

describe("the device cases of spec/matmul_device.lua on the CPU", function()
  -- the comparisons every device runs (spec/oneapi_matmul_spec.lua, spec/cuda_linalg_spec.lua)
  -- pass on the CPU itself
  require "spec.matmul_device" ("cpu", it, { integers = true })
end)

describe("the strict forms", function()
  it("mm, bmm, mv take only their shapes", function()
    local a, b = rand({ 3, 4 }, "float64"), rand({ 4, 2 }, "float64")
    check_close(dlx.mm(a, b), a, b, "float64")
    h.raises("ValueError", dlx.mm, a, rand({ 4 }, "float64"))
    h.raises("ValueError", dlx.mm, rand({ 2, 3, 4 }, "float64"), b)
    local x, y = rand({ 5, 3, 4 }, "float32"), rand({ 5, 4, 2 }, "float32")
    check_close(dlx.bmm(x, y), x, y, "float32")
    h.raises("ValueError", dlx.bmm, x, rand({ 1, 4, 2 }, "float32"))
    h.raises("ValueError", dlx.bmm, a, b)
    local v = rand({ 4 }, "float64")
    check_close(dlx.mv(a, v):unsqueeze(2), a, v:unsqueeze(2), "float64")
    h.raises("ValueError", dlx.mv, a, a)
    local out = dlx.zeros({ 3, 2 }, { dtype = "float64" })
    dlx.mm(a, b, { out = out })
    check_close(out, a, b, "float64")
  end)

  it("dot and vdot: 1-d, one length, vdot conjugating the first", function()
    local a = dlx.tensor({ 1, 2, 3 }, { dtype = "float64" })
    assert.are.equal(14, dlx.dot(a, a):item())
    local z = dlx.tensor({ 1, 2 }, { dtype = "complex128" }) * J + 1 -- {1+1j, 1+2j}
    local d, v = dlx.dot(z, z):item(), dlx.vdot(z, z):item()
    assert.are.same({ -3, 6 }, { d.re, d.im }) -- (1+i)^2 + (1+2i)^2 = -3 + 6i
    assert.are.same({ 7, 0 }, { v.re, v.im }) -- |1+i|^2 + |1+2i|^2
    h.raises("ValueError", dlx.dot, a, dlx.zeros({ 4 }))
    h.raises("ValueError", dlx.vdot, dlx.zeros({ 2, 2 }), dlx.zeros({ 2, 2 }))
  end)

  it("outer", function()
    local a, b = dlx.tensor({ 1, 2 }), dlx.tensor({ 3, 4, 5 }, { dtype = "float32" })
    assert.are.same({ { 3, 4, 5 }, { 6, 8, 10 } }, dlx.outer(a, b):totable())
    assert.are.equal("float32", dlx.outer(a, b).dtype)
    h.raises("ValueError", dlx.outer, dlx.zeros({ 2, 2 }), b)
  end)

  it("addmm and baddbmm: beta * c + alpha * a @ b, c broadcast, beta = 0 not reading c", function()
    local c, a, b = rand({ 3, 2 }, "float64"), rand({ 3, 4 }, "float64"), rand({ 4, 2 }, "float64")
    local r = dlx.addmm(c, a, b, { beta = 0.5, alpha = 2 })
    assert.is_true(dlx.allclose(r, c * 0.5 + dlx.mm(a, b) * 2))
    assert.is_true(dlx.allclose(dlx.addmm(dlx.tensor({ 1, 2 }, { dtype = "float64" }), a, b),
      dlx.mm(a, b) + dlx.tensor({ 1, 2 }, { dtype = "float64" })))
    local nan = dlx.full({ 3, 2 }, 0 / 0, { dtype = "float64" })
    assert.is_false(dlx.addmm(nan, a, b, { beta = 0 }):isnan():any():item())
    local x, y = rand({ 2, 3, 4 }, "float32"), rand({ 2, 4, 5 }, "float32")
    local base = rand({ 2, 3, 5 }, "float32")
    assert.is_true(dlx.allclose(dlx.baddbmm(base, x, y, { alpha = -1 }), base - dlx.bmm(x, y),
      { rtol = 1e-5, atol = 1e-5 }))
    local inplace = c:clone()
    dlx.addmm(inplace, a, b, { out = inplace })
    assert.is_true(dlx.allclose(inplace, c + dlx.mm(a, b)))
    local one = dlx.ones({ 2, 2 }, { dtype = "int64" })
    local i = dlx.addmm(one, one,
      dlx.ones({ 2, 2 }, { dtype = "int64" }), { alpha = 3, beta = 2 })
    assert.are.same({ { 8, 8 }, { 8, 8 } }, i:totable())
    h.raises("TypeError", dlx.addmm, dlx.ones({ 2, 2 }, { dtype = "int64" }),
      dlx.ones({ 2, 2 }, { dtype = "int64" }), dlx.ones({ 2, 2 }, { dtype = "int64" }),
      { alpha = 0.5 })
    h.raises("ValueError", dlx.addmm, rand({ 4, 4 }, "float64"), a, b)
    h.raises("TypeError", dlx.addmm, c, a, b, { gamma = 1 })
  end)
end)

describe("views and traces", function()
  it("t:diagonal is a view: offsets, dims, writes", function()
    local t = dlx.arange(12):view({ 3, 4 })
    assert.are.same({ 0, 5, 10 }, t:diagonal():totable())
    assert.are.same({ 1, 6, 11 }, t:diagonal(1):totable())
    assert.are.same({ 4, 9 }, t:diagonal(-1):totable())
    assert.are.same({}, t:diagonal(4):totable())
    assert.are.same({}, t:diagonal(-3):totable())
    local cube = dlx.arange(24):view({ 2, 3, 4 })
    assert.are.same({ 3, 2 }, cube:diagonal(0, 1, 3).shape)
    assert.are.same({ { 0, 13 }, { 4, 17 }, { 8, 21 } }, cube:diagonal(0, 1, 3):totable())
    t:diagonal():fill_(-1)
    assert.are.same({ -1, 1, 2, 3 }, t:select(1, 1):totable())
    h.raises("ValueError", function() return dlx.arange(3):diagonal() end)
    h.raises("ValueError", function() return cube:diagonal(0, 2, 2) end)
  end)

  it("t:trace and dlx.diag", function()
    assert.are.equal(12, dlx.arange(9):view({ 3, 3 }):trace():item())
    assert.are.equal("int64", dlx.arange(9, { dtype = "int32" }):view({ 3, 3 }):trace().dtype)
    h.raises("ValueError", function() return dlx.zeros({ 2, 2, 2 }):trace() end)
    assert.are.same({ { 0, 1, 0 }, { 0, 0, 2 }, { 0, 0, 0 } },
      dlx.diag(dlx.tensor({ 1, 2 }), 1):totable())
    assert.are.same({ { 0, 0 }, { 3, 0 } }, dlx.diag(dlx.tensor({ 3 }), -1):totable())
    assert.are.same({ 3, 7 }, dlx.diag(dlx.arange(9):view({ 3, 3 }), -1):totable())
    h.raises("ValueError", dlx.diag, dlx.zeros({ 2, 2, 2 }))
  end)
end)

describe("tensordot, kron, cross", function()
  it("tensordot with a count and with dim lists", function()
    local a, b = rand({ 2, 3, 4 }, "float64"), rand({ 3, 4, 5 }, "float64")
    local r = dlx.tensordot(a, b, 2)
    assert.are.same({ 2, 5 }, r.shape)
    check_close(r, a:reshape({ 2, 12 }), b:reshape({ 12, 5 }), "float64")
    local r2 = dlx.tensordot(a, b, { { 2, 3 }, { 1, 2 } })
    assert.is_true(dlx.equal(r, r2))
    local r3 = dlx.tensordot(a, b:permute({ 2, 1, 3 }), { { 3, 2 }, { 1, 2 } })
    assert.is_true(dlx.allclose(r, r3))
    assert.are.same({ 2, 3, 4, 3, 4, 5 }, dlx.tensordot(a, b, 0).shape)
    h.raises("ValueError", dlx.tensordot, a, b, { { 1 }, { 1 } })
    h.raises("ValueError", dlx.tensordot, a, b, 4)
    h.raises("TypeError", dlx.tensordot, a, b, "x")
  end)

  it("kron as NumPy's", function()
    local r = dlx.kron(dlx.tensor({ { 1, 2 }, { 3, 4 } }), dlx.tensor({ { 0, 1 }, { 1, 0 } }))
    assert.are.same({ { 0, 1, 0, 2 }, { 1, 0, 2, 0 }, { 0, 3, 0, 4 }, { 3, 0, 4, 0 } }, r:totable())
    assert.are.same({ 2, 6 }, dlx.kron(dlx.ones({ 2, 3 }), dlx.ones({ 2 })).shape)
  end)

  it("cross of 3-vectors along a dim, broadcasting the others", function()
    assert.are.same({ 0, 0, 1 },
      dlx.cross(dlx.tensor({ 1, 0, 0 }), dlx.tensor({ 0, 1, 0 })):totable())
    local a, b = rand({ 4, 3 }, "float64"), rand({ 3 }, "float64")
    local c = dlx.cross(a, b)
    assert.are.same({ 4, 3 }, c.shape)
    assert.is_true(dlx.allclose(dlx.matmul(c, b), dlx.zeros({ 4 }, { dtype = "float64" }),
      { atol = 1e-12 }))
    local t = dlx.cross(a:transpose(1, 2), b:unsqueeze(2), 1)
    assert.is_true(dlx.allclose(t:transpose(1, 2), c))
    h.raises("ValueError", dlx.cross, dlx.zeros({ 2 }), dlx.zeros({ 2 }))
  end)
end)

describe("dlx.einsum", function()
  it("contracts, traces, transposes, broadcasts", function()
    local a, b = rand({ 2, 3 }, "float64"), rand({ 3, 4 }, "float64")
    assert.is_true(dlx.allclose(dlx.einsum("ij,jk->ik", a, b), dlx.matmul(a, b)))
    assert.is_true(dlx.allclose(dlx.einsum("ij,jk", a, b), dlx.matmul(a, b)))
    assert.is_true(dlx.equal(dlx.einsum("ij->ji", a), a:transpose(1, 2)))
    local sq = rand({ 3, 3 }, "float64")
    assert.is_true(dlx.allclose(dlx.einsum("ii", sq), sq:trace()))
    assert.is_true(dlx.equal(dlx.einsum("ii->i", sq), sq:diagonal()))
    assert.are.same({ 5, 2, 4 },
      dlx.einsum("...ij,...jk->...ik", rand({ 5, 2, 3 }, "float64"), b).shape)
    assert.are.equal("int32", dlx.einsum("ij->", rand({ 2, 3 }, "int32")).dtype)
  end)

  -- Paths from NumPy 2.4: np.einsum_path(spec, *ops, optimize=("greedy", 10**18)), 1-based.
  local PATHS = {
    { "ij,jk,kl->il", { { 100, 100 }, { 100, 100 }, { 100, 2 } }, { { 2, 3 }, { 1, 2 } } },
    { "ij,jk,kl->il", { { 2, 100 }, { 100, 100 }, { 100, 100 } }, { { 1, 2 }, { 1, 2 } } },
    { "ab,bc,cd,de->ae", { { 50, 2 }, { 2, 50 }, { 50, 3 }, { 3, 50 } },
      { { 2, 3 }, { 2, 3 }, { 1, 2 } } },
    { "i,ij,jk->k", { { 40 }, { 40, 30 }, { 30, 20 } }, { { 1, 2 }, { 1, 2 } } },
    { "ab,cd,bc->ad", { { 10, 20 }, { 30, 40 }, { 20, 30 } }, { { 2, 3 }, { 1, 2 } } },
    { "ij,jk,ki->", { { 5, 6 }, { 6, 7 }, { 7, 5 } }, { { 2, 3 }, { 1, 2 } } },
    { "abc,bd,cd->a", { { 4, 5, 6 }, { 5, 7 }, { 6, 7 } }, { { 2, 3 }, { 1, 2 } } },
    { "ij,kl,jk->il", { { 3, 4 }, { 5, 6 }, { 4, 5 } }, { { 2, 3 }, { 1, 2 } } },
    { "ii,ij,jk->k", { { 30, 30 }, { 30, 30 }, { 30, 2 } }, { { 1, 2 }, { 1, 2 } } },
  }

  it("contracts 3 operands or more in NumPy's greedy order (einsum_path)", function()
    for _, case in ipairs(PATHS) do
      local spec, shapes, want = case[1], case[2], case[3]
      local ops = {}
      for i, shape in ipairs(shapes) do ops[i] = rand(shape, "float64") end
      assert.are.same(want, dlx.einsum_path(spec, table.unpack(ops)), spec)
      -- the value, against a contraction left to right
      local lhs, out = spec:match("^(.-)%->(.*)$")
      local parts = {}
      for p in lhs:gmatch("[^,]+") do parts[#parts + 1] = p end
      local acc, labels = ops[1], parts[1]
      for i = 2, #ops do
        local seen, keep = {}, ""
        for c in (labels .. parts[i]):gmatch("%a") do
          local later = out:find(c, 1, true) or table.concat(parts, "", i + 1):find(c, 1, true)
          if later and not seen[c] then seen[c], keep = true, keep .. c end
        end
        acc, labels = dlx.einsum(labels .. "," .. parts[i] .. "->" .. keep, acc, ops[i]), keep
      end
      local got = dlx.einsum(spec, table.unpack(ops))
      assert.is_true(dlx.allclose(got, dlx.einsum(labels .. "->" .. out, acc), { rtol = 1e-10 }),
        spec)
    end
    -- no pair shares a label: outer products, the smallest first; one operand: no step
    local a, b, c = rand({ 2 }, "float64"), rand({ 3 }, "float64"), rand({ 4 }, "float64")
    assert.are.same({ { 1, 2 }, { 1, 2 } }, dlx.einsum_path("a,b,c->abc", a, b, c))
    assert.are.same({ { 2, 3 }, { 1, 2 } }, dlx.einsum_path("c,a,b->abc", c, a, b))
    assert.are.same({}, dlx.einsum_path("ab->", rand({ 2, 3 }, "float64")))
    assert.are.same({ { 1, 2 } }, dlx.einsum_path("ab,bc", rand({ 2, 3 }, "float64"),
      rand({ 3, 4 }, "float64")))
    assert.is_true(dlx.allclose(dlx.einsum("c,a,b->abc", c, a, b),
      a:view({ 2, 1, 1 }) * b:view({ 1, 3, 1 }) * c:view({ 1, 1, 4 })))
    h.raises("ValueError", dlx.einsum_path, "ij,jk->ik", a)
  end)

  it("rejects bad subscripts", function()
    local a = rand({ 2, 3 }, "float64")
    h.raises("ValueError", dlx.einsum, "ij,jk->ik", a)
    h.raises("ValueError", dlx.einsum, "ijk->i", a)
    h.raises("ValueError", dlx.einsum, "ij->q", a)
    h.raises("ValueError", dlx.einsum, "ij->ii", a)
    h.raises("ValueError", dlx.einsum, "i1->i", a)
    h.raises("ValueError", dlx.einsum, "ii->i", a) -- sizes 2 and 3
    h.raises("ValueError", dlx.einsum, "ij,ij->ij", a, rand({ 3, 3 }, "float64"))
    h.raises("TypeError", dlx.einsum, 3, a)
  end)
end)
