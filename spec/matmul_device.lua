--- Matrix products on a device against a reference made on the CPU of other dlx ops (broadcast
--- elementwise products summed in float64, complex128 or int64), with tolerances scaled by the
--- inner size and the dtype's epsilon (integers and bool exactly), so that any summation order
--- passes and a wrong layout, stride, transpose, conjugate, batch, alpha or beta does not. Every
--- dtype, layout and product function; k = 0, 1 x 1, sizes that are not multiples of a tile,
--- batches of small matrices and broadcasts, NaN and inf. The one file of product cases for
--- every device: spec/linalg_products_spec.lua (the CPU), spec/oneapi_matmul_spec.lua and
--- spec/cuda_linalg_spec.lua (cuda:0, cuda_host, cuda_managed) run it; called as
--- `require "spec.matmul_device" (device, it, opts)`, opts.integers saying whether the device
--- multiplies integers and bool (else each is a TypeError naming the device and the dtype).
local h = require "spec.helper"
local dlx = h.dlx
local assert = require "luassert" -- specs get it as their assert; this module does not

local EPS = { float16 = 2 ^ -10, bfloat16 = 2 ^ -7, float32 = 2 ^ -23, float64 = 2 ^ -52,
  complex64 = 2 ^ -23, complex128 = 2 ^ -52 }
local WIDE = { float16 = "float64", bfloat16 = "float64", float32 = "float64", float64 = "float64",
  complex64 = "complex128", complex128 = "complex128", bool = "bool" }
local FLOATS = { "float32", "float64", "complex64", "complex128", "float16", "bfloat16" }
local INTEGERS = { "int64", "int32", "int16", "int8", "uint8", "uint64", "bool" }
local J = { re = 0, im = 1 }

-- The reference product of a and b (CPU tensors, at least 2-d, batch dims broadcasting).
local function reference(a, b, wide)
  local x, y = a:astype(wide), b:astype(wide)
  if wide == "bool" then return (x:unsqueeze(-1):logical_and(y:unsqueeze(-3))):any(-2) end
  return (x:unsqueeze(-1) * y:unsqueeze(-3)):sum(-2)
end

local function magnitude(x)
  if type(x) == "table" then return math.sqrt(x.re ^ 2 + x.im ^ 2) end
  return math.abs(x)
end

-- got (any device) against alpha * a @ b + beta * c (on any device; 1-d operands as matmul takes
-- them): exact for integers and bool (which wrap in int64 as the product does), else within
-- (k + 2) * eps * (|alpha| |a| @ |b| + |beta c|), and the rounding into float16 or bfloat16.
local function check_close(got, a, b, dtype, alpha, beta, c)
  a, b, got = a:to("cpu"), b:to("cpu"), got:to("cpu")
  if a.ndim == 1 then a = a:unsqueeze(1) end
  if b.ndim == 1 then b = b:unsqueeze(2) end
  local wide = WIDE[dtype] or "int64"
  local want = reference(a, b, wide)
  if alpha ~= nil then want = want * alpha end
  if c ~= nil then want = want + c:to("cpu"):astype(wide) * beta end
  if got.ndim < want.ndim then want = want:reshape(got.shape) end
  assert.are.same(want.shape, got.shape)
  if EPS[dtype] == nil then -- (the cast from int64 wraps as the product does)
    assert.is_true(dlx.equal(got, want:astype(dtype)), dtype .. ": values differ from reference")
    return
  end
  local k = a.shape[a.ndim]
  local bound = reference(a:astype(wide):abs(), b:astype(wide):abs(), "float64"):reshape(want.shape)
  if alpha ~= nil then bound = bound * magnitude(alpha) end
  if c ~= nil then bound = bound + (c:to("cpu"):astype(wide) * beta):abs() end
  local rounding = (dtype == "float16" or dtype == "bfloat16") and EPS[dtype] or 0
  local tol = bound * ((k + 2) * (rounding > 0 and 2 ^ -23 or EPS[dtype]))
    + want:abs() * rounding + (dtype == "float16" and 2 ^ -24 or 1e-30)
  local diff = (got:astype(wide) - want):abs()
  assert.is_true((diff - tol):le(0):all():item(), ("%s: off by %g (allowed %g)"):format(dtype,
    diff:max():item(), tol:max():item()))
end

-- Random values of dtype made on the CPU (one generator for every device), moved to device:
-- floats of both signs, small integers (whose products wrap in int8), bools.
local function rand(shape, dtype, device, seed)
  seed = seed or (#shape * 7 + (shape[1] or 0) + (shape[#shape] or 0))
  local o = { generator = dlx.Generator(seed), device = "cpu" }
  local t
  if dtype == "bool" then
    t = dlx.rand(shape, o):gt(0.5)
  elseif dtype:match("int") then
    t = (dlx.rand(shape, o) * 15 - 7):floor():astype("int64")
    if dtype:match("^uint") then t = t:abs() end
    t = t:astype(dtype)
  elseif dtype:match("complex") then
    t = (dlx.randn(shape, o):astype("complex128") + dlx.randn(shape, o) * J):astype(dtype)
  else
    t = dlx.randn(shape, o):astype(dtype)
  end
  return t:to(device)
end

-- Layouts of an {m, k} operand, made on the device: each a view of that shape. (The core
-- passes contiguous and transposed ones as they are, padded ones with their leading dim, and
-- copies the others.)
local LAYOUTS = {
  contiguous = function(m, k, dtype, device) return rand({ m, k }, dtype, device) end,
  transposed = function(m, k, dtype, device)
    return rand({ k, m }, dtype, device):transpose(1, 2)
  end,
  padded = function(m, k, dtype, device)
    return rand({ m, k + 3 }, dtype, device):slice(2, 2, k + 1)
  end,
  strided = function(m, k, dtype, device)
    return rand({ m, 2 * k }, dtype, device):slice(2, 1, -1, 2)
  end,
  flipped = function(m, k, dtype, device) return rand({ m, k }, dtype, device):flip(1) end,
}
local LAYOUT_NAMES = { "contiguous", "transposed", "padded", "strided", "flipped" }
-- {m, k, n} of the products in every layout: 1 x 1, the own loops, past a tile (twice), thin
local LAYOUT_SIZES = { { 1, 1, 1 }, { 3, 4, 5 }, { 40, 50, 30 }, { 40, 50, 33 }, { 2, 70, 65 } }

return function(device, it, opts)
  opts = opts or {}
  local name = tostring(dlx.device(device))
  local DTYPES = { table.unpack(FLOATS) }
  if opts.integers then
    for _, dtype in ipairs(INTEGERS) do DTYPES[#DTYPES + 1] = dtype end
  end

  for _, dtype in ipairs(DTYPES) do
    it(("%s: %s products in every layout, 1 x 1 to past a tile"):format(name, dtype), function()
      for _, layout in ipairs(LAYOUT_NAMES) do
        local make = LAYOUTS[layout]
        for _, size in ipairs(LAYOUT_SIZES) do
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

  local pair_dtypes = { "float32", "float64", "complex64", "float16", opts.integers and "int32" }
  for _, dtype in ipairs(pair_dtypes) do
    it(("%s: %s, every pair of layouts, thin and tiled shapes"):format(name, dtype), function()
      for _, la in ipairs(LAYOUT_NAMES) do
        for _, lb in ipairs(LAYOUT_NAMES) do
          for _, mn in ipairs({ { 70, 73 }, { 5, 37 } }) do
            local a = LAYOUTS[la](mn[1], 33, dtype, device)
            local b = LAYOUTS[lb](33, mn[2], dtype, device)
            check_close(dlx.matmul(a, b), a, b, dtype)
          end
        end
      end
    end)
  end

  it(name .. ": broadcast batch dims, shared operands and a batch dim not outermost", function()
    local dtypes = { "float32", "float64", "complex128", "bfloat16", opts.integers and "int64" }
    for _, dtype in ipairs(dtypes) do
      local a, b = rand({ 3, 1, 5, 6 }, dtype, device), rand({ 2, 6, 4 }, dtype, device)
      local c = dlx.matmul(a, b)
      assert.are.same({ 3, 2, 5, 4 }, c.shape)
      check_close(c, a, b, dtype)
      local big_a, big_b = rand({ 6, 40, 50 }, dtype, device), rand({ 50, 34 }, dtype, device)
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

  it(name .. ": many small products in one call (100,000 4 x 4; 3 x 3 and 6 x 6)", function()
    for _, dtype in ipairs({ "float32", "float64" }) do
      local a, b = rand({ 100000, 4, 4 }, dtype, device), rand({ 100000, 4, 4 }, dtype, device)
      check_close(dlx.bmm(a, b), a, b, dtype)
      for _, n in ipairs({ 3, 6 }) do -- packed, a transposed, b padded and shared
        local x, y = rand({ 20000, n, n }, dtype, device), rand({ 20000, n, n }, dtype, device)
        check_close(dlx.matmul(x, y), x, y, dtype)
        local xt = x:transpose(2, 3)
        local yp = rand({ n, n + 2 }, dtype, device):slice(2, 1, n)
        check_close(dlx.matmul(xt, yp), xt, yp, dtype)
      end
    end
  end)

  if opts.integers then
    it(name .. ": a batch of more tiles than one launch of 65,536 work-groups takes", function()
      -- 17,000 int8 65 x 33 products: 4 tiles each with sub-groups of 16, up to 8 with others
      local a, b = rand({ 17000, 65, 33 }, "int8", device), rand({ 33, 33 }, "int8", device)
      local want = dlx.matmul(a:to("cpu"), b:to("cpu"))
      assert.is_true(dlx.equal(dlx.matmul(a, b):to("cpu"), want))
    end)
  end

  it(name .. ": 1-d operands, mv, dot, vdot (conjugating) and outer", function()
    for _, dtype in ipairs({ "float32", "complex64", "complex128", "float16" }) do
      local m, v, w = rand({ 3, 4 }, dtype, device), rand({ 4 }, dtype, device),
          rand({ 3 }, dtype, device, 5)
      assert.are.same({ 3 }, dlx.matmul(m, v).shape)
      check_close(dlx.matmul(m, v), m, v, dtype)
      check_close(dlx.matmul(w, m), w, m, dtype)
      check_close(dlx.mv(m, v), m, v, dtype)
      check_close(dlx.dot(v, v), v, v, dtype)
      check_close(dlx.vdot(v, v), v:conj(), v, dtype)
      check_close(dlx.vdot(v:flip(1), v), v:flip(1):conj(), v, dtype)
      check_close(dlx.outer(v, w), v:unsqueeze(2), w:unsqueeze(1), dtype)
      local long = rand({ 300 }, dtype, device)
      check_close(dlx.vdot(long, long), long:conj(), long, dtype)
    end
    local z = (dlx.tensor({ 1, 2 }, { dtype = "complex128" }) * J + 1):to(device)
    local d, v = dlx.dot(z, z):item(), dlx.vdot(z, z):item()
    assert.are.same({ -3, 6 }, { d.re, d.im })
    assert.are.same({ 7, 0 }, { v.re, v.im })
  end)

  it(name .. ": k = 0 gives zeros (and beta * c), zero-size results stay empty", function()
    for _, dtype in ipairs(DTYPES) do
      local z = dlx.matmul(rand({ 2, 0 }, dtype, device), rand({ 0, 5 }, dtype, device))
      assert.are.equal(name, tostring(z.device))
      local zeros = dlx.zeros({ 2, 5 }, { dtype = dtype, device = "cpu" })
      assert.is_true(dlx.equal(z:to("cpu"), zeros))
      assert.are.same({ 0, 4 }, dlx.matmul(rand({ 0, 3 }, dtype, device),
        rand({ 3, 4 }, dtype, device)).shape)
      assert.are.same({ 3, 2, 0 }, dlx.matmul(rand({ 3, 2, 3 }, dtype, device),
        rand({ 3, 0 }, dtype, device)).shape)
    end
    local c = rand({ 3, 4 }, "float64", device)
    local r = dlx.addmm(c, rand({ 3, 0 }, "float64", device), rand({ 0, 4 }, "float64", device),
      { beta = 0.5 })
    assert.is_true(dlx.equal(r:to("cpu"), c:to("cpu") * 0.5))
    for _, dtype in ipairs(FLOATS) do -- an empty batch; a batch with an empty inner dim
      assert.are.same({ 0, 2, 4 }, dlx.matmul(rand({ 0, 2, 3 }, dtype, device),
        rand({ 3, 4 }, dtype, device)).shape)
      local base = rand({ 3, 5, 2 }, dtype, device)
      local r3 = dlx.baddbmm(base, rand({ 3, 5, 0 }, dtype, device),
        rand({ 3, 0, 2 }, dtype, device), { beta = 2 })
      assert.is_true(dlx.equal(r3:to("cpu"), (base * 2):to("cpu")))
    end
  end)

  it(name .. ": addmm and baddbmm (alpha, beta, c broadcast, beta = 0 not reading c)", function()
    local dtypes = { "float32", "float64", "complex64", "complex128", "float16",
      opts.integers and "int64", opts.integers and "int8" }
    for _, dtype in ipairs(dtypes) do
      local complex = dtype:match("complex")
      local integer = dtype:match("int")
      local alpha = integer and 3 or complex and { re = 0.5, im = -2 } or 1.5
      local beta = integer and -2 or complex and { re = -1, im = 0.25 } or 0.5
      for _, mn in ipairs({ { 3, 2 }, { 40, 33 } }) do
        local m, n = mn[1], mn[2]
        local c, a, b = rand({ m, n }, dtype, device, 1), rand({ m, 17 }, dtype, device, 2),
            rand({ 17, n }, dtype, device, 3)
        check_close(dlx.addmm(c, a, b, { alpha = alpha, beta = beta }), a, b, dtype, alpha, beta, c)
        local row = rand({ n }, dtype, device, 4) -- broadcast over the rows
        check_close(dlx.addmm(row, a, b, { alpha = alpha, beta = beta }), a, b, dtype, alpha,
          beta, row)
        check_close(dlx.addmm(row, a, b), a, b, dtype, 1, 1, row) -- alpha and beta 1 by default
        if not integer then
          local nan = dlx.full({ m, n }, 0 / 0, { dtype = dtype }):to(device)
          local r = dlx.addmm(nan, a, b, { beta = 0 })
          assert.is_false(r:isnan():any():item())
          check_close(r, a, b, dtype)
        end
        local inplace = c:clone()
        dlx.addmm(inplace, a, b, { out = inplace, alpha = alpha, beta = beta })
        check_close(inplace, a, b, dtype, alpha, beta, c)
      end
      local x, y = rand({ 2, 3, 4 }, dtype, device), rand({ 2, 4, 5 }, dtype, device)
      local base = rand({ 2, 3, 5 }, dtype, device, 9)
      check_close(dlx.baddbmm(base, x, y, { alpha = alpha, beta = beta }), x, y, dtype, alpha,
        beta, base)
      check_close(dlx.baddbmm(base, x, y, { alpha = -1 }), x, y, dtype, -1, 1, base)
    end
  end)

  it(name .. ": out = (same-kind casts, strided, overlapping the operands)", function()
    for _, size in ipairs({ { 3, 4, 3 }, { 3, 40, 35 } }) do -- own loops and a library's size
      local m, k, n = size[1], size[2], size[3]
      local a, b = rand({ m, k }, "float32", device), rand({ k, n }, "float32", device)
      local out = dlx.zeros({ m, n }, { dtype = "float64" }):to(device)
      assert.are.equal(out, dlx.matmul(a, b, { out = out }))
      check_close(out:astype("float32"), a, b, "float32")
      local t = dlx.zeros({ m, 2 * n }):to(device):slice(2, 1, -1, 2)
      dlx.matmul(a, b, { out = t })
      check_close(t, a, b, "float32")
    end
    for _, n in ipairs({ 4, 34 }) do
      local sq = rand({ n, n }, "float64", device)
      local want = dlx.matmul(sq, sq)
      dlx.matmul(sq, sq, { out = sq })
      assert.is_true(dlx.equal(want:to("cpu"), sq:to("cpu")))
    end
  end)

  it(name .. ": float16 and bfloat16 accumulate in float32 and round once", function()
    for _, dtype in ipairs({ "float16", "bfloat16" }) do
      for _, m in ipairs({ 1, 40, 64 }) do
        local a = dlx.ones({ m, 4096 }, { dtype = dtype }):to(device)
        local b = dlx.ones({ 4096, m }, { dtype = dtype }):to(device)
        local c = dlx.matmul(a, b)
        assert.are.equal(4096, c:max():item()) -- float16 sums would stop at 2048
        assert.are.equal(4096, c:min():item())
      end
    end
  end)

  if opts.integers then
    it(name .. ": integers accumulate in 64 bits and wrap, bool products are logical", function()
      local a = dlx.full({ 1, 2 }, 2 ^ 30, { dtype = "int32" }):to(device)
      local b = dlx.full({ 2, 1 }, 2, { dtype = "int32" }):to(device)
      assert.are.equal(0, dlx.matmul(a, b):item()) -- 2^32 wraps to 0
      local c = dlx.full({ 1, 3 }, 100, { dtype = "int8" }):to(device)
      assert.are.equal(44, dlx.matmul(c, dlx.ones({ 3, 1 }, { dtype = "int8" }):to(device))
        :item()) -- 300 - 256
      local big = dlx.full({ 40, 40 }, 2 ^ 40, { dtype = "int64" }):to(device)
      local sq = dlx.matmul(big, big) -- 40 * 2^80 wraps to 0 in 64 bits
      assert.is_true(sq:eq(0):all():item())
      local x = dlx.tensor({ { true, false }, { false, false } }):to(device)
      local y = dlx.tensor({ { true, true }, { true, false } }):to(device)
      assert.are.same({ { true, true }, { false, false } }, dlx.matmul(x, y):totable())
    end)
  else
    it(name .. ": integer and bool products are a TypeError naming the device", function()
      for _, dtype in ipairs(INTEGERS) do
        local a = dlx.ones({ 2, 2 }, { dtype = dtype }):to(device)
        local msg = h.raises("TypeError", dlx.matmul, a, a)
        assert.truthy(msg:find(dtype, 1, true) and msg:find(name, 1, true), msg)
      end
    end)
  end

  it(name .. ": NaN and inf propagate and never hang", function()
    for _, n in ipairs({ 2, 40, 64 }) do
      local a = dlx.ones({ n, n }):to(device)
      a[{ 1, 1 }] = 0 / 0
      local c = dlx.matmul(a, dlx.ones({ n, 40 }):to(device))
      assert.is_true(c:select(1, 1):isnan():all():item())
      assert.is_false(c:select(1, 2):isnan():any():item())
      local big = dlx.full({ n, n }, 1 / 0):to(device)
      assert.is_true(dlx.matmul(big, big):isinf():all():item())
    end
  end)

  it(name .. ": einsum and tensordot through the device's products", function()
    local a, b = rand({ 2, 3, 4 }, "float64", device), rand({ 4, 3, 5 }, "float64", device)
    local e = dlx.einsum("bij,jik->bk", a, b)
    assert.are.equal(name, tostring(e.device))
    local want = dlx.einsum("bij,jik->bk", a:to("cpu"), b:to("cpu"))
    assert.is_true(dlx.allclose(e:to("cpu"), want, { rtol = 1e-12, atol = 1e-12 }))
    local t = dlx.tensordot(a, b, { { 2, 3 }, { 2, 1 } })
    assert.is_true(dlx.allclose(t:to("cpu"), want, { rtol = 1e-12, atol = 1e-12 }))
    local p, q = rand({ 2, 3, 4 }, "float64", device), rand({ 3, 4, 5 }, "float64", device)
    assert.is_true(dlx.allclose(dlx.tensordot(p, q, 2):to("cpu"),
      dlx.tensordot(p:to("cpu"), q:to("cpu"), 2)))
    local x, y = rand({ 5, 2, 3 }, "complex64", device), rand({ 3, 4 }, "complex64", device)
    assert.is_true(dlx.allclose(dlx.einsum("bij,jk->bki", x, y):to("cpu"),
      dlx.einsum("bij,jk->bki", x:to("cpu"), y:to("cpu")), { rtol = 1e-5, atol = 1e-5 }))
  end)

  it(name .. ": operands on two devices are a DeviceError", function()
    if name == "cpu" then return end
    h.raises("DeviceError", dlx.matmul, rand({ 2, 2 }, "float32", device),
      rand({ 2, 2 }, "float32", "cpu"))
  end)
end
