--- dlx.linalg's decompositions on a device, checked on the CPU: each result moved to the host is
--- held to the identities that define it (A X = B, A inv(A) = I, Q R = A with Q orthonormal and R
--- upper, U diag(S) Vh = A, A V = V diag(w), L Lᴴ = A, P L U = A, lstsq's normal equations) with
--- tolerances scaled by the size and the dtype's epsilon, values that are unique (det, S, w, the
--- factors of LU and Cholesky, lstsq's solution and residuals) against the CPU's, eig's
--- conventions (unit vectors, their largest component real, a real matrix's conjugate pairs
--- side by side), and the errors against the CPU's: the same LinAlgError message for a singular
--- or non positive definite matrix, NaN for a matrix holding NaN. Batches of many small matrices
--- take the batched routines. Used by spec/linalg_decomp_spec.lua (the CPU itself) and
--- spec/cuda_linalg_spec.lua (cuda:0).
local h = require "spec.helper"
local dlx = h.dlx
local assert = require "luassert" -- specs get it as their assert; this module does not
local L = dlx.linalg

local DTYPES, REAL, EPS = h.LINALG_DTYPES, h.REAL_OF, h.EPS
local J = { re = 0, im = 1 }

local is_complex, mm, adj, maxabs = h.is_complex, h.mm, h.adj, h.maxabs

-- Random values made on the CPU (the same on every device), of dtype.
local function randn(shape, dtype)
  local g = dlx.Generator(#shape * 31 + shape[#shape])
  local t = dlx.randn(shape, { dtype = "float64", generator = g })
  if is_complex(dtype) then
    t = t:astype("complex128") + dlx.randn(shape, { dtype = "float64", generator = g }) * J
  end
  return t:astype(dtype)
end

-- Random right-hand sides for matrices of shape: the same batch and rows, k columns.
local function rhs(shape, k, dtype)
  local bshape = { table.unpack(shape) }
  bshape[#bshape] = k
  return randn(bshape, dtype)
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

-- The eigenvalues of each batch element of w (..., n), on the host: lists sorted by their real
-- parts, then (real parts within tol) their imaginary parts, so that two devices' values compare
-- whatever order each gives them in.
local function sorted_eigenvalues(w, tol)
  local n = w.shape[#w.shape]
  local flat, out = w:reshape({ -1 }):totable(), {}
  for first = 1, #flat, n do
    local row = { table.unpack(flat, first, first + n - 1) }
    table.sort(row, function(x, y)
      if math.abs(x.re - y.re) > tol then return x.re < y.re end
      return x.im < y.im
    end)
    table.move(row, 1, n, #out + 1, out)
  end
  return out
end

local function near_lists(got, want, what, tol)
  assert.are.equal(#want, #got, what)
  local err = 0
  for i = 1, #want do
    err = math.max(err, math.abs(got[i].re - want[i].re), math.abs(got[i].im - want[i].im))
  end
  assert(err <= tol, ("%s: off by %g, more than %g"):format(what, err, tol))
end

-- eig's conventions on (w, V) of a batch: each column of V has its largest component real; for
-- a real A a complex eigenvalue with a positive imaginary part is followed by its conjugate, the
-- vector by the conjugate vector, exactly.
local function eig_conventions(w, v, real, tol)
  local n = w.shape[#w.shape]
  local wf = w:reshape({ -1, n }):totable()
  local vf = v:reshape({ -1, n, n }):totable()
  for b = 1, #wf do
    for c = 1, n do
      local big, at = -1, 1
      for r = 1, n do
        local z = vf[b][r][c]
        if z.re * z.re + z.im * z.im > big then big, at = z.re * z.re + z.im * z.im, r end
      end
      assert(math.abs(vf[b][at][c].im) <= tol, "the largest component of a vector is real")
      if real and wf[b][c].im > 0 then
        assert.is_true(c < n and wf[b][c + 1].re == wf[b][c].re and wf[b][c + 1].im == -wf[b][c].im,
          "a conjugate pair, the positive imaginary part first")
        for r = 1, n do
          assert.is_true(vf[b][r][c + 1].re == vf[b][r][c].re
            and vf[b][r][c + 1].im == -vf[b][r][c].im, "conjugate vectors")
        end
      end
    end
  end
end

--- Registers the cases of `device` with `it`. opts.lstsq_qr: the device solves lstsq through QR
--- (CUDA): no singular values (an empty tensor), and a LinAlgError for a rank-deficient matrix.
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
        local b = rhs(shape, 2, dtype)
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
        local b = rhs(shape, 3, dtype)
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
        local b = rhs(shape, 2, dtype)
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

  for _, dtype in ipairs(DTYPES) do
    local cx = is_complex(dtype) and dtype or (dtype == "float32" and "complex64" or "complex128")

    it(("%s: %s eig, eigvals: the CPU's values, A V = V diag(w), LAPACK's conventions, NaN")
      :format(name, dtype), function()
        for _, shape in ipairs(SHAPES) do
          local n = shape[#shape]
          local a = randn(shape, dtype)
          local w_cpu = L.eigvals(a)
          local scale = maxabs(w_cpu)
          local tol = 200 * n * EPS[REAL[dtype]] * math.max(scale, 1)
          local w, v = L.eig(on(a))
          w, v = back(w), back(v)
          assert.are.equal(cx, w.dtype)
          assert.are.equal(cx, v.dtype)
          near_lists(sorted_eigenvalues(w, 1e-3 * scale), sorted_eigenvalues(w_cpu, 1e-3 * scale),
            "w", tol)
          near(mm(a:astype(cx), v), v * w:unsqueeze(-2), cx, n, scale + 1, "A V = V diag(w)")
          near(v:abs():norm({ dim = -2 }), dlx.ones(w.shape, { dtype = REAL[dtype] }), dtype, n, 1,
            "unit columns")
          eig_conventions(w, v, not is_complex(dtype), tol)
          assert.is_true(dlx.equal(back(L.eigvals(on(a))), w), "eigvals gives eig's values")
        end
        local nan = randn({ 3, 4, 4 }, dtype)
        nan:select(1, 2):select(1, 1):select(1, 3):fill_(0 / 0)
        local w, v = L.eig(on(nan))
        w, v = back(w), back(v)
        assert.is_true(w:select(1, 2):isnan():all():item() and v:select(1, 2):isnan():all():item())
        assert.is_false(w:select(1, 1):isnan():any():item() or w:select(1, 3):isnan():any():item())
      end)

    it(("%s: %s lstsq, tall, square and wide, one matrix and many; rank deficiency; NaN")
      :format(name, dtype), function()
        for _, size in ipairs({ { 6, 4 }, { 4, 4 }, { 3, 5 }, { 200, 5, 3 }, { 200, 2, 4 } }) do
          local m, n = size[#size - 1], size[#size]
          local a = randn(size, dtype) + dlx.eye(m, n, { dtype = dtype }) * 3
          local b = rhs(size, 2, dtype)
          local x, res, rank, s = L.lstsq(on(a), on(b))
          x, res, rank, s = back(x), back(res), back(rank), back(s)
          local want, cres, crank, cs = L.lstsq(a, b)
          local scale = maxabs(want) * (maxabs(a) + 1)
          near(x, want, dtype, math.max(m, n), scale, "the solution")
          near(res, cres, dtype, math.max(m, n), maxabs(cres) + 1, "the residuals")
          assert.is_true(dlx.equal(rank, crank), "the ranks")
          if opts.lstsq_qr then
            assert.same({ 0 }, s.shape, "no singular values on the QR route")
          else
            near(s, cs, dtype, math.max(m, n), maxabs(cs), "S")
          end
          if m >= n then -- the normal equations: Aᴴ (A X - B) = 0
            near(mm(adj(a), mm(a, x) - b), dlx.zeros(x.shape, { dtype = dtype }), dtype, m, scale,
              "Aᴴ (A X - B) = 0")
          else -- exact, and the minimum norm: X in the row space of A
            near(mm(a, x), b, dtype, n, scale, "A X = B")
          end
        end
        local deficient = randn({ 3, 4, 3 }, dtype)
        deficient:select(1, 2):select(2, 2):fill_(0) -- batch element 2: a zero column
        local ones = dlx.ones({ 4, 1 }, { dtype = dtype })
        if opts.lstsq_qr then
          local msg = h.raises("LinAlgError", L.lstsq, on(deficient), on(ones))
          assert.truthy(msg:find("(Batch element 2)", 1, true), msg)
          assert.truthy(msg:find("does not have full rank", 1, true), msg)
        else
          local _, _, rank = L.lstsq(on(deficient), on(ones))
          assert.same({ 3, 2, 3 }, back(rank):totable())
        end
        local nan = randn({ 3, 4, 3 }, dtype) + dlx.eye(4, 3, { dtype = dtype }) * 3
        nan:select(1, 3):select(1, 1):select(1, 1):fill_(0 / 0)
        local x, _, rank = L.lstsq(on(nan), on(ones))
        x, rank = back(x), back(rank)
        assert.is_true(x:select(1, 3):isnan():all():item(), "the NaN matrix gives NaN")
        assert.is_false(x:select(1, 1):isnan():any():item(), "the others do not")
        assert.same({ 3, 3, 0 }, rank:totable())
      end)

    it(("%s: %s empty shapes: no right-hand sides, an empty batch, 0 x 0 and 0-row matrices")
      :format(name, dtype), function()
        local function z(shape) return dlx.zeros(shape, { dtype = dtype }) end
        local a, many = square({ 3, 3 }, dtype), square({ 300, 3, 3 }, dtype) -- many: batched
        local tall = randn({ 4, 5, 3 }, dtype) + dlx.eye(5, 3, { dtype = dtype }) * 3
        local wide = randn({ 3, 5 }, dtype) + dlx.eye(3, 5, { dtype = dtype }) * 3
        local function id(t) return t end
        -- { what, the call on tensors moved by f, NumPy's shapes of its results }
        local cases = {
          { "solve, B n x 0", function(f) return L.solve(f(a), f(z({ 3, 0 }))) end, { { 3, 0 } } },
          { "solve, a batch, B n x 0", function(f) return L.solve(f(many), f(z({ 300, 3, 0 }))) end,
            { { 300, 3, 0 } } },
          { "solve, an empty batch",
            function(f) return L.solve(f(z({ 0, 3, 3 })), f(z({ 0, 3, 2 }))) end, { { 0, 3, 2 } } },
          { "solve, 0 x 0", function(f) return L.solve(f(z({ 0, 0 })), f(z({ 0, 2 }))) end,
            { { 0, 2 } } },
          { "lu_solve, B n x 0", function(f)
            local lu, piv = L.lu_factor(f(many))
            return L.lu_solve(lu, piv, f(z({ 300, 3, 0 })))
          end, { { 300, 3, 0 } } },
          { "solve_triangular, B n x 0", function(f)
            return L.solve_triangular(f(a), f(z({ 3, 0 })), { upper = true })
          end, { { 3, 0 } } },
          { "solve_triangular, left = false, B 0 x n", function(f)
            return L.solve_triangular(f(a), f(z({ 0, 3 })), { upper = false, left = false })
          end, { { 0, 3 } } },
          { "lstsq, tall, B m x 0", function(f) return L.lstsq(f(tall), f(z({ 4, 5, 0 }))) end,
            { { 4, 3, 0 }, { 4, 0 }, { 4 } } },
          { "lstsq, wide, B m x 0", function(f) return L.lstsq(f(wide), f(z({ 3, 0 }))) end,
            { { 5, 0 }, { 0 }, {} } },
          { "lstsq, A 0 x n", function(f) return L.lstsq(f(z({ 0, 3 })), f(z({ 0, 2 }))) end,
            { { 3, 2 }, { 0 }, {} } },
          { "inv, 0 x 0", function(f) return L.inv(f(z({ 0, 0 }))) end, { { 0, 0 } } },
          { "inv, an empty batch", function(f) return L.inv(f(z({ 0, 3, 3 }))) end,
            { { 0, 3, 3 } } },
          { "det, 0 x 0 (1)", function(f) return L.det(f(z({ 0, 0 }))) end, { {} } },
          { "slogdet, an empty batch", function(f) return L.slogdet(f(z({ 0, 3, 3 }))) end,
            { { 0 }, { 0 } } },
          { "cholesky, an empty batch", function(f) return L.cholesky(f(z({ 0, 3, 3 }))) end,
            { { 0, 3, 3 } } },
          { "qr complete, 3 x 0 (Q = I)",
            function(f) return L.qr(f(z({ 3, 0 })), { mode = "complete" }) end,
            { { 3, 3 }, { 3, 0 } } },
          { "svd, 0 x 3 (Vh = I)", function(f) return L.svd(f(z({ 0, 3 }))) end,
            { { 0, 0 }, { 0 }, { 3, 3 } } },
          { "eigh, 0 x 0", function(f) return L.eigh(f(z({ 0, 0 }))) end, { { 0 }, { 0, 0 } } },
          { "eigvals, an empty batch", function(f) return L.eigvals(f(z({ 0, 2, 2 }))) end,
            { { 0, 2 } } },
          { "lu, 2 x 0 (P = I)", function(f) return L.lu(f(z({ 2, 0 }))) end,
            { { 2, 2 }, { 2, 0 }, { 0, 0 } } },
        }
        for _, c in ipairs(cases) do
          local what, call, shapes = c[1], c[2], c[3]
          local got, want = table.pack(call(on)), table.pack(call(id))
          for i, shape in ipairs(shapes) do
            local g = back(got[i])
            assert.same(shape, g.shape, what)
            assert.same(want[i].shape, g.shape, what)
            assert.are.equal(want[i].dtype, g.dtype, what)
            assert.is_true(dlx.equal(g, want[i]), what .. ": the CPU's values")
          end
          if what:find("^lstsq") then -- the singular values: A's (none on the QR route)
            assert.same(opts.lstsq_qr and { 0 } or want[4].shape, back(got[4]).shape, what)
          end
        end
        -- no right-hand sides: a singular matrix fails all the same, as on the CPU (and NumPy)
        local singular = square({ 3, 3 }, dtype)
        singular:select(2, 3):fill_(0) -- a zero column
        assert.are.equal(h.raises("LinAlgError", L.solve, singular, z({ 3, 0 })),
          h.raises("LinAlgError", L.solve, on(singular), on(z({ 3, 0 }))))
        local zero_diagonal = square({ 3, 3 }, dtype)
        zero_diagonal:select(1, 2):select(1, 2):fill_(0)
        local msg = h.raises("LinAlgError", L.solve_triangular, on(zero_diagonal), on(z({ 3, 0 })),
          { upper = true })
        assert.are.equal(h.raises("LinAlgError", L.solve_triangular, zero_diagonal, z({ 3, 0 }),
          { upper = true }), msg)
        assert.truthy(msg:find("diagonal element 2 is zero", 1, true), msg)
      end)

    it(("%s: %s solve, inv, det of batches of 33 x 33 matrices, and a singular one among many")
      :format(name, dtype), function()
        local a = square({ 6, 33, 33 }, dtype) * (1 / 33) -- det of order 1, even in float32
        local b = randn({ 6, 33, 2 }, dtype)
        near(mm(a, back(L.solve(on(a), on(b)))), b, dtype, 33, 33 * 33, "A X = B")
        near(mm(a, back(L.inv(on(a)))), ident(a.shape, 33, dtype), dtype, 33, 33 * 33,
          "A inv(A) = I")
        near(back(L.det(on(a))), L.det(a), dtype, 33, maxabs(L.det(a)), "det")
        for _, n in ipairs({ 3, 33 }) do
          local zb = square({ 50, n, n }, dtype) * (1 / n)
          zb:select(1, 17):select(2, 2):fill_(0) -- batch element 17: a zero column
          assert.are.equal(h.raises("LinAlgError", L.inv, zb),
            h.raises("LinAlgError", L.inv, on(zb)))
          assert.are.equal(h.raises("LinAlgError", L.solve, zb, dlx.ones({ n }, { dtype = dtype })),
            h.raises("LinAlgError", L.solve, on(zb), on(dlx.ones({ n }, { dtype = dtype }))))
          near(back(L.det(on(zb))), L.det(zb), dtype, n, maxabs(L.det(zb)), "det, one of them 0")
        end
      end)
  end
end
