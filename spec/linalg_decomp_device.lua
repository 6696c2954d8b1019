--- dlx.linalg's decompositions on a device, checked on the CPU: each result moved to the host is
--- held to the identities that define it (A X = B, A inv(A) = I, Q R = A with Q orthonormal and R
--- upper, U diag(S) Vh = A, A V = V diag(w), L Lᴴ = A, P L U = A) with tolerances scaled by the
--- size and the dtype's epsilon, values that are unique (det, S, w, the factors of LU and
--- Cholesky) against the CPU's, and the errors against the CPU's: the same LinAlgError message for
--- a singular or non positive definite matrix, NaN for a matrix holding NaN. Used by
--- spec/linalg_decomp_spec.lua (the CPU itself) and spec/cuda_linalg_spec.lua (cuda:0).
local h = require "spec.helper"
local dlx = h.dlx
local assert = require "luassert" -- specs get it as their assert; this module does not
local L = dlx.linalg

local DTYPES = { "float32", "float64", "complex64", "complex128" }
local REAL = { float32 = "float32", float64 = "float64", complex64 = "float32",
  complex128 = "float64" }
local EPS = { float32 = 1.1920928955078125e-07, float64 = 2.220446049250313e-16 }
local J = { re = 0, im = 1 }

local function is_complex(dtype) return dtype:sub(1, 7) == "complex" end

-- Random values made on the CPU (the same on every device), of dtype.
local function randn(shape, dtype)
  local g = dlx.Generator(#shape * 31 + shape[#shape])
  local t = dlx.randn(shape, { dtype = "float64", generator = g })
  if is_complex(dtype) then
    t = t:astype("complex128") + dlx.randn(shape, { dtype = "float64", generator = g }) * J
  end
  return t:astype(dtype)
end

local function mm(a, b) return (a:unsqueeze(-1) * b:unsqueeze(-3)):sum(-2) end

local function adj(t)
  local tt = t:transpose(-2, -1)
  return is_complex(t.dtype) and tt:conj() or tt
end

local function eye(n, dtype) return dlx.eye(n, { dtype = dtype }) end

-- The k x k identity broadcast to the batch dims of shape.
local function ident(shape, k, dtype)
  local s = {}
  for i = 1, #shape - 2 do s[i] = shape[i] end
  s[#s + 1] = k
  s[#s + 1] = k
  return eye(k, dtype):expand(s)
end

local function maxabs(t)
  if t.numel == 0 then return 0 end
  return t:abs():max():item()
end

local function near(got, want, dtype, n, scale, what)
  local err = maxabs(got - want)
  local tol = 200 * math.max(n, 1) * EPS[REAL[dtype]] * math.max(scale or 1, 1)
  assert(err <= tol, ("%s: off by %g, more than %g (%s, n = %d)"):format(what, err, tol, dtype, n))
end

local function square(shape, dtype) -- well conditioned: randn + n I
  local n = shape[#shape]
  return randn(shape, dtype) + eye(n, dtype) * n
end

local function spd(shape, dtype) -- Hermitian positive definite: A Aᴴ + n I
  local a = randn(shape, dtype)
  return mm(a, adj(a)) + eye(shape[#shape], dtype) * shape[#shape]
end

local function hermitian(shape, dtype)
  local a = randn(shape, dtype)
  return (a + adj(a)) * 0.5
end

--- Registers the cases of `device` with `it`. opts.unmapped: the functions this device refuses
--- with a DeviceError (CUDA: eig, eigvals, lstsq).
return function(device, it, opts)
  opts = opts or {}
  local name = tostring(dlx.device(device))
  local function on(t) return t:to(device) end
  local function back(t)
    assert.are.equal(name, tostring(t.device))
    return t:to("cpu")
  end
  -- shapes: one matrix, a batch, and a batch of many small ones (the batched routines)
  local SHAPES = { { 5, 5 }, { 3, 4, 4 }, { 300, 3, 3 } }

  for _, dtype in ipairs(DTYPES) do
    it(("%s: %s solve, inv, det, slogdet"):format(name, dtype), function()
      for _, shape in ipairs(SHAPES) do
        local n = shape[#shape]
        local a = square(shape, dtype)
        local bshape = { table.unpack(shape) }
        bshape[#bshape] = 2
        local b = randn(bshape, dtype)
        local x = back(L.solve(on(a), on(b)))
        near(mm(a, x), b, dtype, n, n * n, "A X = B")
        local inv = back(L.inv(on(a)))
        near(mm(a, inv), ident(a.shape, n, dtype), dtype, n, n * n, "A inv(A) = I")
        local det = back(L.det(on(a)))
        near(det, L.det(a), dtype, n, maxabs(L.det(a)), "det")
        local sign, logabs = L.slogdet(on(a))
        local csign, clogabs = L.slogdet(a)
        near(back(sign), csign, dtype, n, 1, "sign")
        near(back(logabs), clogabs, dtype, n, maxabs(clogabs), "log |det|")
      end
    end)

    it(("%s: %s cholesky (lower and upper), and its LinAlgError"):format(name, dtype), function()
      for _, shape in ipairs(SHAPES) do
        local n = shape[#shape]
        local a = spd(shape, dtype)
        local l = back(L.cholesky(on(a)))
        near(l, L.cholesky(a), dtype, n, n, "L")
        near(mm(l, adj(l)), a, dtype, n, n * n, "L Lᴴ = A")
        assert.is_true(dlx.equal(l:triu(1), dlx.zeros_like(l)), "L has zeros above the diagonal")
        local u = back(L.cholesky(on(a), { upper = true }))
        near(mm(adj(u), u), a, dtype, n, n * n, "Uᴴ U = A")
        assert.is_true(dlx.equal(u:tril(-1), dlx.zeros_like(u)), "U has zeros below the diagonal")
      end
      local bad = spd({ 4, 3, 3 }, dtype)
      bad:select(1, 3):select(1, 2):select(1, 2):fill_(-5) -- batch element 3, the minor of order 2
      local want = h.raises("LinAlgError", L.cholesky, bad)
      local got = h.raises("LinAlgError", L.cholesky, on(bad))
      assert.are.equal(want, got)
      local nan = spd({ 3, 3 }, dtype)
      nan:select(1, 2):select(1, 2):fill_(0 / 0)
      assert.are.equal(h.raises("LinAlgError", L.cholesky, nan),
        h.raises("LinAlgError", L.cholesky, on(nan)))
    end)

    it(("%s: %s qr in every mode, tall and wide"):format(name, dtype), function()
      for _, size in ipairs({ { 6, 4 }, { 4, 6 }, { 5, 5 }, { 200, 3, 2 } }) do
        local a = randn(size, dtype)
        local m, n = size[#size - 1], size[#size]
        for _, mode in ipairs({ "reduced", "complete" }) do
          local q, r = L.qr(on(a), { mode = mode })
          q, r = back(q), back(r)
          near(mm(q, r), a, dtype, math.max(m, n), m, mode .. ": Q R = A")
          near(mm(adj(q), q), ident(q.shape, q.shape[#q.shape], dtype), dtype, m, 1,
            mode .. ": Qᴴ Q = I")
          assert.is_true(dlx.equal(r:tril(-1), dlx.zeros_like(r)), "R is upper triangular")
        end
        local _, r = L.qr(on(a), { mode = "r" })
        local _, rr = L.qr(a, { mode = "r" })
        near(back(r):abs(), rr:abs(), dtype, math.max(m, n), m, "R alone")
      end
    end)

    it(("%s: %s svd (full and reduced, tall and wide), svdvals, NaN"):format(name, dtype),
      function()
        for _, size in ipairs({ { 6, 4 }, { 4, 6 }, { 5, 5 }, { 100, 3, 4 } }) do
          local a = randn(size, dtype)
          local m, n = size[#size - 1], size[#size]
          local k = math.min(m, n)
          local s_cpu = L.svdvals(a)
          near(back(L.svdvals(on(a))), s_cpu, dtype, math.max(m, n), maxabs(s_cpu), "svdvals")
          for _, full in ipairs({ true, false }) do
            local u, s, vh = L.svd(on(a), { full_matrices = full })
            u, s, vh = back(u), back(s), back(vh)
            near(s, s_cpu, dtype, math.max(m, n), maxabs(s_cpu), "S")
            local uk = u:narrow(-1, 1, k)
            local vk = vh:narrow(-2, 1, k)
            near(mm(uk * s:astype(dtype):unsqueeze(-2), vk), a, dtype, math.max(m, n),
              maxabs(s_cpu), "U diag(S) Vh = A")
            near(mm(adj(u), u), ident(u.shape, u.shape[#u.shape], dtype), dtype, m, 1,
              "Uᴴ U = I")
          end
        end
        local nan = randn({ 3, 4, 3 }, dtype)
        nan:select(1, 2):select(1, 1):select(1, 1):fill_(0 / 0)
        local s = back(L.svdvals(on(nan)))
        assert.is_true(s:select(1, 2):isnan():all():item(), "the NaN matrix gives NaN")
        assert.is_false(s:select(1, 1):isnan():any():item(), "the others do not")
      end)

    it(("%s: %s eigh (lower and upper), eigvalsh, NaN"):format(name, dtype), function()
      for _, shape in ipairs(SHAPES) do
        local n = shape[#shape]
        local a = hermitian(shape, dtype)
        for _, uplo in ipairs({ "L", "U" }) do
          local w_cpu = L.eigvalsh(a, { uplo = uplo })
          local w, v = L.eigh(on(a), { uplo = uplo })
          w, v = back(w), back(v)
          near(w, w_cpu, dtype, n, maxabs(w_cpu), "w")
          near(mm(a, v), v * w:astype(dtype):unsqueeze(-2), dtype, n, maxabs(w_cpu) + 1,
            "A V = V diag(w)")
          near(back(L.eigvalsh(on(a), { uplo = uplo })), w_cpu, dtype, n, maxabs(w_cpu),
            "eigvalsh")
        end
      end
      local nan = hermitian({ 3, 3, 3 }, dtype)
      nan:select(1, 3):select(1, 3):select(1, 1):fill_(0 / 0) -- in the lower triangle
      local w, v = L.eigh(on(nan))
      w, v = back(w), back(v)
      assert.is_true(w:select(1, 3):isnan():all():item() and v:select(1, 3):isnan():all():item())
      assert.is_false(w:select(1, 1):isnan():any():item())
      -- the upper triangle is not read: NaN below does not matter with uplo = "U"
      assert.is_false(back(L.eigvalsh(on(nan), { uplo = "U" })):isnan():any():item())
    end)

    it(("%s: %s lu_factor, lu_solve, lu, and their errors"):format(name, dtype), function()
      for _, shape in ipairs(SHAPES) do
        local n = shape[#shape]
        local a = square(shape, dtype)
        local lu, piv = L.lu_factor(on(a))
        local clu, cpiv = L.lu_factor(a)
        assert.is_true(dlx.equal(back(piv), cpiv), "the pivots")
        near(back(lu), clu, dtype, n, n, "LU")
        local bshape = { table.unpack(shape) }
        bshape[#bshape] = 3
        local b = randn(bshape, dtype)
        near(mm(a, back(L.lu_solve(lu, piv, on(b)))), b, dtype, n, n * n, "lu_solve")
      end
      for _, size in ipairs({ { 5, 3 }, { 3, 5 }, { 4, 4 }, { 50, 2, 3 } }) do
        local a = randn(size, dtype)
        local p, l, u = L.lu(on(a))
        p, l, u = back(p), back(l), back(u)
        local m, n = size[#size - 1], size[#size]
        near(mm(mm(p, l), u), a, dtype, math.max(m, n), m, "P L U = A")
        local cp, cl, cu = L.lu(a)
        assert.is_true(dlx.equal(p, cp), "P")
        near(l, cl, dtype, math.max(m, n), m, "L")
        near(u, cu, dtype, math.max(m, n), m, "U")
      end
      local z = dlx.zeros({ 2, 2 }, { dtype = dtype })
      assert.are.equal(h.raises("LinAlgError", L.inv, z), h.raises("LinAlgError", L.inv, on(z)))
      local zb = square({ 4, 2, 2 }, dtype)
      zb:select(1, 3):fill_(0)
      assert.are.equal(h.raises("LinAlgError", L.solve, zb, dlx.ones({ 2 }, { dtype = dtype })),
        h.raises("LinAlgError", L.solve, on(zb), on(dlx.ones({ 2 }, { dtype = dtype }))))
      local lu, piv = L.lu_factor(zb)
      assert.are.equal(h.raises("LinAlgError", L.lu_solve, lu, piv, dlx.ones({ 2, 1 },
          { dtype = dtype })),
        h.raises("LinAlgError", L.lu_solve, on(lu), on(piv), on(dlx.ones({ 2, 1 },
          { dtype = dtype }))))
      local good_lu, good_piv = L.lu_factor(square({ 3, 3 }, dtype))
      good_piv:select(1, 2):fill_(7)
      assert.are.equal(h.raises("ValueError", L.lu_solve, good_lu, good_piv,
          dlx.ones({ 3, 1 }, { dtype = dtype })),
        h.raises("ValueError", L.lu_solve, on(good_lu), on(good_piv),
          on(dlx.ones({ 3, 1 }, { dtype = dtype }))))
    end)

    it(("%s: %s solve_triangular, and a zero on the diagonal"):format(name, dtype), function()
      for _, shape in ipairs(SHAPES) do
        local n = shape[#shape]
        local a = square(shape, dtype)
        local bshape = { table.unpack(shape) }
        bshape[#bshape] = 2
        local b = randn(bshape, dtype)
        for _, upper in ipairs({ true, false }) do
          for _, unit in ipairs({ false, true }) do
            local x = back(L.solve_triangular(on(a), on(b), { upper = upper,
              unitriangular = unit }))
            local tt = upper and a:triu() or a:tril()
            if unit then
              tt = tt * (1 - eye(n, REAL[dtype])):astype(dtype) + eye(n, dtype)
            end
            near(mm(tt, x), b, dtype, n, n * n, "A X = B")
          end
        end
        local xl = back(L.solve_triangular(on(a), on(adj(b)), { upper = true, left = false }))
        near(mm(xl, a:triu()), adj(b), dtype, n, n * n, "X A = B")
      end
      local z = square({ 3, 3 }, dtype)
      z:select(1, 2):select(1, 2):fill_(0)
      local b = dlx.ones({ 3, 1 }, { dtype = dtype })
      assert.are.equal(h.raises("LinAlgError", L.solve_triangular, z, b, { upper = true }),
        h.raises("LinAlgError", L.solve_triangular, on(z), on(b), { upper = true }))
    end)
  end

  for _, fname in ipairs(opts.unmapped or {}) do
    it(("%s: linalg.%s is a DeviceError naming it"):format(name, fname), function()
      local a = on(square({ 3, 3 }, "float64"))
      local msg = h.raises("DeviceError", L[fname], a, fname == "lstsq" and a or nil)
      assert.truthy(msg:find("linalg." .. fname, 1, true) and msg:find(name, 1, true), msg)
    end)
  end
end
