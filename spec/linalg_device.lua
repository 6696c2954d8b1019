--- Matrix products on a device against a reference computed on the CPU (broadcast elementwise
--- products summed in float64 or complex128), with tolerances scaled by the inner size and the
--- dtype's epsilon, so that any summation order a library picks passes and a wrong layout,
--- transpose, conjugate, batch stride or scale does not. Used by spec/linalg_products_spec.lua
--- (the CPU) and spec/cuda_linalg_spec.lua (cuda:0, cuda_host, cuda_managed).
local h = require "spec.helper"
local dlx = h.dlx
local assert = require "luassert" -- specs get it as their assert; this module does not

local EPS = { float16 = 2 ^ -10, bfloat16 = 2 ^ -7, float32 = 2 ^ -23, float64 = 2 ^ -52,
  complex64 = 2 ^ -23, complex128 = 2 ^ -52 }
local WIDE = { float16 = "float64", bfloat16 = "float64", float32 = "float64", float64 = "float64",
  complex64 = "complex128", complex128 = "complex128" }
local FLOATS = { "float32", "float64", "complex64", "complex128", "float16", "bfloat16" }
local INTEGERS = { "int64", "int32", "int8", "bool" }
local J = { re = 0, im = 1 }

-- The reference product of a and b (CPU tensors, batch dims broadcasting) in dtype `wide`.
local function reference(a, b, wide)
  local x, y = a:astype(wide), b:astype(wide)
  if wide == "bool" then return (x:unsqueeze(-1):logical_and(y:unsqueeze(-3))):any(-2) end
  return (x:unsqueeze(-1) * y:unsqueeze(-3)):sum(-2)
end

-- got (any device) against a @ b (any device): exact for integers and bool, else within
-- (k + 2) * eps * (|a| @ |b|).
local function check_close(got, a, b, dtype)
  a, b, got = a:to("cpu"), b:to("cpu"), got:to("cpu")
  if a.ndim == 1 then a = a:unsqueeze(1) end
  if b.ndim == 1 then b = b:unsqueeze(2) end
  local wide = WIDE[dtype] or (dtype == "bool" and "bool" or "int64")
  local want = reference(a, b, wide)
  if got.ndim < want.ndim then want = want:reshape(got.shape) end
  assert.are.same(want.shape, got.shape)
  if EPS[dtype] == nil then
    assert.is_true(dlx.equal(got:astype(wide), want), "values differ from the reference")
    return
  end
  local k = a.shape[a.ndim]
  local bound = reference(a:astype(wide):abs(), b:astype(wide):abs(), "float64"):reshape(got.shape)
  local tol = bound * ((k + 2) * EPS[dtype]) + 1e-300
  local diff = (got:astype(wide) - want):abs()
  assert.is_true((diff - tol):le(0):all():item(), ("%s: off by %g (allowed %g)"):format(dtype,
    diff:max():item(), tol:max():item()))
end

-- Random values of dtype, made on the CPU (one generator for every device) and moved to device.
local function rand(shape, dtype, device)
  local g = dlx.Generator(#shape * 7 + (shape[1] or 0) + (shape[#shape] or 0))
  local t
  if dtype == "bool" then
    t = dlx.rand(shape, { generator = g }):gt(0.5)
  elseif dtype:match("int") then
    t = (dlx.rand(shape, { generator = g }) * 7 - 3):floor():astype(dtype)
  elseif dtype:match("complex") then
    t = (dlx.randn(shape, { generator = g }):astype("complex128")
      + dlx.randn(shape, { generator = g }) * J):astype(dtype)
  else
    t = dlx.randn(shape, { generator = g }):astype(dtype)
  end
  return t:to(device)
end

-- Layouts of an {m, k} operand, made on the device: each gives a view of that shape.
local LAYOUTS = {
  contiguous = function(m, k, dtype, device) return rand({ m, k }, dtype, device) end,
  transposed = function(m, k, dtype, device)
    return rand({ k, m }, dtype, device):transpose(1, 2)
  end,
  strided = function(m, k, dtype, device)
    return rand({ m, 2 * k }, dtype, device):slice(2, 1, -1, 2)
  end,
  flipped = function(m, k, dtype, device) return rand({ m, k }, dtype, device):flip(1) end,
}

--- Registers the product cases of `device` with `it`. opts.integers: the device multiplies
--- integers and bool (else each is a TypeError naming the device and the dtype).
return function(device, it, opts)
  opts = opts or {}
  local name = tostring(dlx.device(device))

  for _, dtype in ipairs(FLOATS) do
    it(("%s: %s products in every layout against the reference"):format(name, dtype), function()
      for _, make in pairs(LAYOUTS) do
        for _, size in ipairs({ { 1, 1, 1 }, { 3, 4, 5 }, { 40, 50, 30 } }) do
          local m, k, n = size[1], size[2], size[3]
          local a, b = make(m, k, dtype, device), make(k, n, dtype, device)
          local c = dlx.matmul(a, b)
          assert.are.equal(name, tostring(c.device))
          assert.are.equal(dtype, c.dtype)
          check_close(c, a, b, dtype)
        end
      end
    end)
  end

  for _, dtype in ipairs({ "float32", "float64", "complex64", "float16" }) do
    it(("%s: %s, every pair of layouts at a library's size"):format(name, dtype), function()
      for _, la in pairs(LAYOUTS) do
        for _, lb in pairs(LAYOUTS) do
          local a, b = la(70, 33, dtype, device), lb(33, 73, dtype, device)
          check_close(dlx.matmul(a, b), a, b, dtype)
        end
      end
    end)
  end

  it(name .. ": broadcast batch dims, batch strides of 0 and a batch dim not outermost", function()
    for _, dtype in ipairs({ "float32", "float64", "complex128", "bfloat16" }) do
      local a, b = rand({ 3, 1, 5, 6 }, dtype, device), rand({ 2, 6, 4 }, dtype, device)
      local c = dlx.matmul(a, b)
      assert.are.same({ 3, 2, 5, 4 }, c.shape)
      check_close(c, a, b, dtype)
      local big_a, big_b = rand({ 6, 40, 50 }, dtype, device), rand({ 50, 30 }, dtype, device)
      check_close(dlx.matmul(big_a, big_b), big_a, big_b, dtype)
      check_close(dlx.matmul(big_b:transpose(1, 2), big_a:transpose(2, 3)),
        big_b:transpose(1, 2), big_a:transpose(2, 3), dtype)
      local t = rand({ 5, 4, 3 }, dtype, device):permute({ 2, 1, 3 })
      local u = rand({ 3, 2 }, dtype, device)
      check_close(dlx.matmul(t, u), t, u, dtype)
      local x, y = rand({ 7, 3, 4 }, dtype, device), rand({ 7, 4, 2 }, dtype, device)
      check_close(dlx.bmm(x, y), x, y, dtype)
    end
  end)

  it(name .. ": many small products in one call (100,000 4x4)", function()
    for _, dtype in ipairs({ "float32", "float64" }) do
      local a, b = rand({ 100000, 4, 4 }, dtype, device), rand({ 100000, 4, 4 }, dtype, device)
      check_close(dlx.bmm(a, b), a, b, dtype)
    end
  end)

  it(name .. ": 1-d operands, mv, dot, vdot (conjugating) and outer", function()
    for _, dtype in ipairs({ "float32", "complex64", "complex128", "float16" }) do
      local m, v, w = rand({ 3, 4 }, dtype, device), rand({ 4 }, dtype, device),
          rand({ 3 }, dtype, device)
      assert.are.same({ 3 }, dlx.matmul(m, v).shape)
      check_close(dlx.matmul(m, v), m, v, dtype)
      check_close(dlx.matmul(w, m), w, m, dtype)
      check_close(dlx.mv(m, v), m, v, dtype)
      check_close(dlx.dot(v, v), v, v, dtype)
      check_close(dlx.vdot(v, v), v:conj(), v, dtype)
      check_close(dlx.vdot(v:flip(1), v), v:flip(1):conj(), v, dtype)
      check_close(dlx.outer(v, w), v:unsqueeze(2), w:unsqueeze(1), dtype)
    end
    local z = (dlx.tensor({ 1, 2 }, { dtype = "complex128" }) * J + 1):to(device)
    local d, v = dlx.dot(z, z):item(), dlx.vdot(z, z):item()
    assert.are.same({ -3, 6 }, { d.re, d.im })
    assert.are.same({ 7, 0 }, { v.re, v.im })
  end)

  it(name .. ": empty dims give empty results, and an empty inner dim zeros or beta * c", function()
    for _, dtype in ipairs(FLOATS) do
      assert.are.same({ 0, 4 }, dlx.matmul(rand({ 0, 3 }, dtype, device),
        rand({ 3, 4 }, dtype, device)).shape)
      assert.are.same({ 0, 2, 4 }, dlx.matmul(rand({ 0, 2, 3 }, dtype, device),
        rand({ 3, 4 }, dtype, device)).shape)
      local z = dlx.matmul(rand({ 2, 0 }, dtype, device), rand({ 0, 5 }, dtype, device))
      assert.are.equal(name, tostring(z.device))
      local zeros = dlx.zeros({ 2, 5 }, { dtype = dtype, device = "cpu" }) -- (not the default)
      assert.is_true(dlx.equal(z:to("cpu"), zeros))
      local c = rand({ 3, 5, 2 }, dtype, device)
      local r = dlx.baddbmm(c, rand({ 3, 5, 0 }, dtype, device), rand({ 3, 0, 2 }, dtype, device),
        { beta = 2 })
      assert.is_true(dlx.equal(r:to("cpu"), (c * 2):to("cpu")))
    end
  end)

  it(name .. ": addmm and baddbmm: alpha, beta, broadcast c, beta = 0 not reading c", function()
    for _, dtype in ipairs({ "float32", "float64", "complex64", "float16" }) do
      local tol = { rtol = EPS[dtype] * 64, atol = EPS[dtype] * 64 }
      local c, a, b = rand({ 3, 2 }, dtype, device), rand({ 3, 4 }, dtype, device),
          rand({ 4, 2 }, dtype, device)
      local r = dlx.addmm(c, a, b, { beta = 0.5, alpha = 2 })
      local want = dlx.addmm(c:to("cpu"), a:to("cpu"), b:to("cpu"), { beta = 0.5, alpha = 2 })
      assert.is_true(dlx.allclose(r:to("cpu"), want, tol))
      local row = rand({ 2 }, dtype, device)
      assert.is_true(dlx.allclose(dlx.addmm(row, a, b):to("cpu"),
        dlx.addmm(row:to("cpu"), a:to("cpu"), b:to("cpu")), tol))
      local nan = dlx.full({ 3, 2 }, 0 / 0, { dtype = dtype }):to(device)
      assert.is_false(dlx.addmm(nan, a, b, { beta = 0 }):isnan():any():item())
      local x, y = rand({ 2, 3, 4 }, dtype, device), rand({ 2, 4, 5 }, dtype, device)
      local base = rand({ 2, 3, 5 }, dtype, device)
      assert.is_true(dlx.allclose(dlx.baddbmm(base, x, y, { alpha = -1 }):to("cpu"),
        (base - dlx.bmm(x, y)):to("cpu"), tol))
      local inplace = c:clone()
      dlx.addmm(inplace, a, b, { out = inplace })
      assert.is_true(dlx.allclose(inplace:to("cpu"), (c + dlx.mm(a, b)):to("cpu"), tol))
    end
  end)

  it(name .. ": out =, cast by the same-kind rule, strided, overlapping", function()
    local a, b = rand({ 3, 4 }, "float32", device), rand({ 4, 3 }, "float32", device)
    local out = dlx.zeros({ 3, 3 }, { dtype = "float64" }):to(device)
    assert.are.equal(out, dlx.matmul(a, b, { out = out }))
    check_close(out:astype("float32"), a, b, "float32")
    local t = dlx.zeros({ 3, 6 }):to(device):slice(2, 1, -1, 2)
    dlx.matmul(a, b, { out = t })
    check_close(t, a, b, "float32")
    local sq = rand({ 4, 4 }, "float64", device)
    local want = dlx.matmul(sq, sq)
    dlx.matmul(sq, sq, { out = sq })
    assert.is_true(dlx.equal(want:to("cpu"), sq:to("cpu")))
  end)

  it(name .. ": float16 and bfloat16 accumulate in float32 and round once", function()
    for _, dtype in ipairs({ "float16", "bfloat16" }) do
      for _, m in ipairs({ 1, 64 }) do
        local a = dlx.ones({ m, 4096 }, { dtype = dtype }):to(device)
        local b = dlx.ones({ 4096, m }, { dtype = dtype }):to(device)
        local c = dlx.matmul(a, b)
        assert.are.equal(4096, c:max():item()) -- float16 sums would stop at 2048
        assert.are.equal(4096, c:min():item())
      end
    end
  end)

  it(name .. ": NaN and inf propagate", function()
    local a = dlx.tensor({ { 0 / 0, 1 }, { 1, 1 } }):to(device)
    local c = dlx.matmul(a, dlx.ones({ 2, 40 }):to(device))
    assert.is_true(c:select(1, 1):isnan():all():item())
    assert.is_false(c:select(1, 2):isnan():any():item())
    local big = dlx.full({ 64, 64 }, 1 / 0):to(device)
    assert.is_true(dlx.matmul(big, big):isinf():all():item())
  end)

  it(name .. ": einsum and tensordot", function()
    local a, b = rand({ 2, 3, 4 }, "float64", device), rand({ 3, 4, 5 }, "float64", device)
    local want = dlx.tensordot(a:to("cpu"), b:to("cpu"), 2)
    assert.is_true(dlx.allclose(dlx.tensordot(a, b, 2):to("cpu"), want))
    local x, y = rand({ 5, 2, 3 }, "complex64", device), rand({ 3, 4 }, "complex64", device)
    assert.is_true(dlx.allclose(dlx.einsum("bij,jk->bki", x, y):to("cpu"),
      dlx.einsum("bij,jk->bki", x:to("cpu"), y:to("cpu")), { rtol = 1e-5, atol = 1e-5 }))
  end)

  for _, dtype in ipairs(INTEGERS) do
    if opts.integers then
      it(("%s: %s products are exact"):format(name, dtype), function()
        local a, b = rand({ 5, 7 }, dtype, device), rand({ 7, 3 }, dtype, device)
        check_close(dlx.matmul(a, b), a, b, dtype)
      end)
    else
      it(("%s: %s products are a TypeError naming the device and the dtype"):format(name, dtype),
        function()
          local a, b = rand({ 5, 7 }, dtype, device), rand({ 7, 3 }, dtype, device)
          local msg = h.raises("TypeError", dlx.matmul, a, b)
          assert.truthy(msg:find(name, 1, true) and msg:find(dtype, 1, true), msg)
        end)
    end
  end

  it(name .. ": operands on two devices are a DeviceError", function()
    if name == "cpu" then return end
    h.raises("DeviceError", dlx.matmul, rand({ 2, 2 }, "float32", device),
      rand({ 2, 2 }, "float32", "cpu"))
  end)
end
