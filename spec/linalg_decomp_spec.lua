-- dlx.linalg's decompositions: every function for every dtype and layout (contiguous,
-- transposed, strided and negatively strided views, broadcast batches, zero-size dims, 1 x 1),
-- checked by identities with tolerances scaled by the size and the dtype's epsilon; every
-- LinAlgError; NaN and inf inputs; the errors of bad arguments. The products here are an
-- independent reference (a broadcast product summed over the shared dim), not dlx.matmul.
local h = require "spec.helper"
local dlx = h.dlx
local L = dlx.linalg

local DTYPES, REAL, EPS = h.LINALG_DTYPES, h.REAL_OF, h.EPS

local randn, mm, adj, maxabs = h.randn, h.mm, h.adj, h.maxabs

local function eye(n, dtype) return dlx.eye(n, { dtype = dtype }) end

--- |got - want| <= factor * n * eps * scale, elementwise at most.
local function assert_near(got, want, dtype, n, scale, what, factor)
  local err = maxabs(dlx.sub(got, want))
  local tol = (factor or 100) * math.max(n, 1) * EPS[REAL[dtype]] * math.max(scale or 1, 1)
  if not (err <= tol) then -- luacheck: ignore 581 (NaN fails too)
    error(("%s: off by %g, more than %g (%s, n = %d)"):format(what, err, tol, dtype, n), 2)
  end
end

-- The layouts: each gives a tensor of t's values and shape in another memory layout.
local LAYOUTS = {
  contiguous = function(t) return t:contiguous() end,
  transposed = function(t) return t:transpose(-2, -1):contiguous():transpose(-2, -1) end,
  strided = function(t) -- every other column of a wider tensor
    local shape = t.shape
    shape[#shape] = 2 * shape[#shape]
    local wide = dlx.zeros(shape, { dtype = t.dtype })
    if t.numel == 0 then return wide:slice(-1, 1, -1, 2) end
    local view = wide:slice(-1, 1, -1, 2)
    view:copy_(t)
    return view
  end,
  flipped = function(t) -- negative strides
    return t:flip(t.ndim - 1):contiguous():flip(t.ndim - 1)
  end,
}
local LAYOUT_NAMES = { "contiguous", "transposed", "strided", "flipped" }

-- A well-conditioned n x n batch: randn + n I.
local function square(shape, dtype)
  local n = shape[#shape]
  return dlx.add(randn(shape, dtype), dlx.mul(eye(n, dtype), n))
end

-- A Hermitian positive definite batch: A Aᴴ + n I.
local function spd(shape, dtype)
  local a = randn(shape, dtype)
  return dlx.add(mm(a, adj(a)), dlx.mul(eye(shape[#shape], dtype), shape[#shape]))
end

local function each_case(fn)
  for _, dtype in ipairs(DTYPES) do
    for _, layout in ipairs(LAYOUT_NAMES) do fn(dtype, layout, LAYOUTS[layout]) end
  end
end

local function is_lower(t, dtype, what)
  assert_near(t:triu(1), dlx.zeros(t.shape, { dtype = t.dtype }), dtype, 1, 1, what .. " lower")
end

local function is_upper(t, dtype, what)
  assert_near(t:tril(-1), dlx.zeros(t.shape, { dtype = t.dtype }), dtype, 1, 1, what .. " upper")
end

local function is_unitary_columns(q, dtype, what)
  local k = q.shape[q.ndim]
  assert_near(mm(adj(q), q), eye(k, dtype), dtype, q.shape[q.ndim - 1], 1, what .. " orthonormal")
end

dlx.manual_seed(20261127)

describe("dlx.linalg", function()
  describe("solve, inv, det, slogdet", function()
    it("solves A X = B for every dtype and layout, batched and broadcast", function()
      each_case(function(dtype, layout, as)
        local a = as(square({ 2, 1, 5, 5 }, dtype))
        local b = as(randn({ 3, 5, 2 }, dtype))
        local x = L.solve(a, b)
        assert.same({ 2, 3, 5, 2 }, x.shape)
        assert.equal(dtype, x.dtype)
        assert_near(mm(a, x), b:expand { 2, 3, 5, 2 }, dtype, 5, maxabs(b) * 5, "solve " .. layout)
      end)
    end)

    it("takes a 1-D B as a vector", function()
      local a = square({ 3, 4, 4 }, "float64")
      local b = randn({ 4 }, "float64")
      local x = L.solve(a, b)
      assert.same({ 3, 4 }, x.shape)
      assert_near(mm(a, x:unsqueeze(-1)):squeeze(-1), b:expand { 3, 4 }, "float64", 4, 10, "vector")
    end)

    it("inverts, A inv(A) = I", function()
      each_case(function(dtype, layout, as)
        local a = as(square({ 3, 6, 6 }, dtype))
        local ai = L.inv(a)
        assert.same({ 3, 6, 6 }, ai.shape)
        assert_near(mm(a, ai), eye(6, dtype), dtype, 6, 10, "inv " .. layout)
      end)
    end)

    it("gives column-major results (strides {..., 1, rows})", function()
      local ai = L.inv(square({ 2, 3, 3 }, "float64"))
      assert.same({ 9, 1, 3 }, ai.strides)
    end)

    it("computes det and slogdet, against known values and LU's diagonal", function()
      local a = dlx.tensor({ { 4, 1, 2 }, { 1, 5, 3 }, { 2, 3, 6 } }, { dtype = "float64" })
      h.assert_close(70, L.det(a):item(), 1e-13)
      local sign, logabs = L.slogdet(a)
      assert.equal(1, sign:item())
      h.assert_close(math.log(70), logabs:item(), 1e-14)
      h.assert_close(-70, L.det(a:flip(1)):item(), 1e-13) -- one row swap of three rows: odd
      assert.equal(1, L.det(eye(5, "float32")):item())
      each_case(function(dtype, layout, as)
        local m = as(square({ 2, 4, 4 }, dtype))
        local det = L.det(m)
        local p, _, u = L.lu(m)
        local want = dlx.mul(L.det(p), dlx.tensor(1.0, { dtype = dtype }))
        for i = 1, 4 do want = dlx.mul(want, u:select(-1, i):select(-1, i)) end
        assert_near(det, want, dtype, 4, maxabs(det), "det " .. layout)
        local s, la = L.slogdet(m)
        assert.equal(REAL[dtype], la.dtype)
        assert_near(dlx.mul(s, la:exp()), det, dtype, 4, maxabs(det), "slogdet " .. layout)
      end)
    end)

    it("gives det 0 and slogdet (0, -inf) for a singular matrix", function()
      local a = dlx.tensor({ { 1, 2 }, { 2, 4 } }, { dtype = "float64" })
      assert.equal(0, L.det(a):item())
      local s, la = L.slogdet(a)
      assert.equal(0, s:item())
      assert.equal(-math.huge, la:item())
    end)
  end)

  describe("cholesky", function()
    it("gives L with L Lᴴ = A, and U with Uᴴ U = A (small kernels and LAPACK)", function()
      each_case(function(dtype, layout, as)
        for _, n in ipairs { 5, 20 } do
          local a = as(spd({ 2, n, n }, dtype))
          local l = L.cholesky(a)
          is_lower(l, dtype, "cholesky " .. layout)
          assert_near(mm(l, adj(l)), a, dtype, n, maxabs(a), "L Lᴴ " .. layout)
          local u = L.cholesky(a, { upper = true })
          is_upper(u, dtype, "cholesky upper " .. layout)
          assert_near(mm(adj(u), u), a, dtype, n, maxabs(a), "Uᴴ U " .. layout)
        end
      end)
    end)

    it("names the same minor in the small kernels as LAPACK does", function()
      for _, n in ipairs { 4, 20 } do
        local a = spd({ n, n }, "float64")
        a:select(1, 3):select(1, 3):fill_(-1e6)
        local err = h.raises("LinAlgError", L.cholesky, a:astype("float32"))
        assert.truthy(err:find("minor of order 3 ", 1, true))
        err = h.raises("LinAlgError", L.cholesky, a, { upper = true })
        assert.truthy(err:find("minor of order 3 ", 1, true))
      end
    end)

    it("reads only the triangle it needs", function()
      local a = spd({ 4, 4 }, "float64")
      local junk = dlx.add(a, dlx.full({ 4, 4 }, 1e300, { dtype = "float64" }):triu(1))
      assert_near(L.cholesky(junk), L.cholesky(a), "float64", 4, 1, "lower only")
    end)
  end)

  describe("qr", function()
    it("gives orthonormal Q and upper R with Q R = A, in every mode", function()
      each_case(function(dtype, layout, as)
        for _, shape in ipairs { { 2, 6, 4 }, { 2, 4, 6 } } do
          local a = as(randn(shape, dtype))
          local m, n = shape[2], shape[3]
          local k = math.min(m, n)
          local q, r = L.qr(a)
          assert.same({ 2, m, k }, q.shape)
          assert.same({ 2, k, n }, r.shape)
          is_unitary_columns(q, dtype, "Q " .. layout)
          is_upper(r, dtype, "R " .. layout)
          assert_near(mm(q, r), a, dtype, m, maxabs(a), "Q R " .. layout)
          local qc, rc = L.qr(a, { mode = "complete" })
          assert.same({ 2, m, m }, qc.shape)
          assert.same({ 2, m, n }, rc.shape)
          is_unitary_columns(qc, dtype, "complete Q " .. layout)
          assert_near(mm(qc, rc), a, dtype, m, maxabs(a), "complete Q R " .. layout)
          local q0, r0 = L.qr(a, { mode = "r" })
          assert.same({ 0 }, q0.shape)
          assert_near(r0:abs(), r:abs(), dtype, m, maxabs(a), "mode r")
        end
      end)
    end)
  end)

  describe("svd and svdvals", function()
    it("gives U diag(S) Vh = A with unitary U and Vh and descending S", function()
      each_case(function(dtype, layout, as)
        for _, shape in ipairs { { 2, 5, 3 }, { 3, 5 } } do
          local a = as(randn(shape, dtype))
          local m, n = shape[#shape - 1], shape[#shape]
          local k = math.min(m, n)
          local u, s, vh = L.svd(a)
          assert.equal(REAL[dtype], s.dtype)
          assert.equal(m, u.shape[u.ndim])
          assert.equal(n, vh.shape[vh.ndim - 1])
          is_unitary_columns(u, dtype, "U " .. layout)
          is_unitary_columns(adj(vh), dtype, "Vh " .. layout)
          local us = dlx.mul(u:narrow(-1, 1, k), s:unsqueeze(-2))
          assert_near(mm(us, vh:narrow(-2, 1, k)), a, dtype, m, maxabs(a), "U S Vh " .. layout)
          local values = s:totable()
          if #shape == 3 then values = values[1] end
          for i = 2, #values do assert.is_true(values[i] <= values[i - 1]) end
          local ur, sr, vr = L.svd(a, { full_matrices = false })
          assert.equal(k, ur.shape[ur.ndim])
          assert.equal(k, vr.shape[vr.ndim - 1])
          assert_near(mm(dlx.mul(ur, sr:unsqueeze(-2)), vr), a, dtype, m, maxabs(a), "reduced")
          assert_near(L.svdvals(a), s, dtype, m, maxabs(s), "svdvals " .. layout)
        end
      end)
    end)
  end)

  describe("eigh, eigvalsh, eig, eigvals", function()
    it("eigh: A V = V diag(w), V unitary, w ascending, from either triangle", function()
      each_case(function(dtype, layout, as)
        local a = as(spd({ 2, 5, 5 }, dtype))
        local w, v = L.eigh(a)
        assert.equal(REAL[dtype], w.dtype)
        is_unitary_columns(v, dtype, "V " .. layout)
        assert_near(mm(a, v), dlx.mul(v, w:unsqueeze(-2)), dtype, 5, maxabs(w), "A V " .. layout)
        local values = w:totable()[1]
        for i = 2, 5 do assert.is_true(values[i] >= values[i - 1]) end
        assert_near(L.eigvalsh(a, { uplo = "U" }), w, dtype, 5, maxabs(w), "uplo U " .. layout)
      end)
    end)

    it("eig: A V = V diag(w), complex, with unit columns", function()
      each_case(function(dtype, layout, as)
        local a = as(randn({ 2, 5, 5 }, dtype))
        local w, v = L.eig(a)
        local cx = REAL[dtype] == "float32" and "complex64" or "complex128"
        assert.equal(cx, w.dtype)
        assert.equal(cx, v.dtype)
        local ac = a:astype(cx)
        assert_near(mm(ac, v), dlx.mul(v, w:unsqueeze(-2)), cx, 5, maxabs(w) * 5, "eig " .. layout)
        assert_near(v:abs():norm { dim = -2 }, dlx.ones({ 2, 5 }, { dtype = REAL[dtype] }), dtype,
          5, 1, "unit columns")
        assert_near(L.eigvals(a), w, cx, 5, maxabs(w), "eigvals " .. layout)
      end)
    end)

    it("eig of a rotation gives a conjugate pair", function()
      local w = L.eigvals(dlx.tensor({ { 0, -1 }, { 1, 0 } }, { dtype = "float64" })):totable()
      table.sort(w, function(x, y) return x.im < y.im end)
      h.assert_close(-1, w[1].im, 1e-15)
      h.assert_close(1, w[2].im, 1e-15)
    end)
  end)

  describe("lstsq", function()
    it("solves tall, square and wide problems with the residuals and ranks", function()
      each_case(function(dtype, layout, as)
        local a = as(randn({ 2, 6, 3 }, dtype))
        local b = as(randn({ 2, 6, 2 }, dtype))
        local x, res, rank, s = L.lstsq(a, b)
        assert.same({ 2, 3, 2 }, x.shape)
        assert.same({ 3, 3 }, rank:totable())
        assert_near(s, L.svdvals(a), dtype, 6, maxabs(s), "S " .. layout)
        local r = dlx.sub(mm(a, x), b)
        assert_near(mm(adj(a), r), dlx.zeros({ 2, 3, 2 }, { dtype = dtype }), dtype, 6,
          maxabs(a) * maxabs(b) * 6, "normal equations " .. layout)
        assert_near(res, dlx.mul(r:abs(), r:abs()):sum(-2), dtype, 6, maxabs(res),
          "residuals " .. layout)
        -- wide: the minimum-norm solution, A x = b exactly
        local w = as(randn({ 3, 5 }, dtype))
        local bw = randn({ 3 }, dtype)
        local xw, rw = L.lstsq(w, bw)
        assert.same({ 5 }, xw.shape)
        assert.same({ 0 }, rw.shape)
        assert_near(mm(w, xw:unsqueeze(-1)):squeeze(-1), bw, dtype, 5, maxabs(bw) * 5, "wide")
      end)
    end)

    it("tells the rank of a rank-deficient matrix and gives no residuals then", function()
      local a = dlx.tensor({ { 1, 2 }, { 2, 4 }, { 3, 6 } }, { dtype = "float64" })
      local _, res, rank = L.lstsq(a, dlx.tensor({ 1, 2, 3 }, { dtype = "float64" }))
      assert.equal(1, rank:item())
      assert.same({ 0 }, res.shape)
    end)
  end)

  describe("lu_factor, lu, lu_solve", function()
    it("gives A = P L U and solves through the factors", function()
      each_case(function(dtype, layout, as)
        for _, shape in ipairs { { 2, 5, 5 }, { 5, 3 }, { 3, 5 } } do
          local a = as(randn(shape, dtype))
          local m, n = shape[#shape - 1], shape[#shape]
          local k = math.min(m, n)
          local p, l, u = L.lu(a)
          assert.equal(k, l.shape[l.ndim])
          assert.equal(k, u.shape[u.ndim - 1])
          is_lower(l, dtype, "L " .. layout)
          is_upper(u, dtype, "U " .. layout)
          assert_near(mm(mm(p, l), u), a, dtype, m, maxabs(a), "P L U " .. layout)
          local lu, piv = L.lu_factor(a)
          assert.equal("int64", piv.dtype)
          assert.equal(k, piv.shape[piv.ndim])
          for _, v in ipairs(#shape == 3 and piv:totable()[1] or piv:totable()) do
            assert.is_true(v >= 1 and v <= m)
          end
          assert_near(lu:narrow(-2, 1, k):triu(), u, dtype, m, maxabs(a), "LU's U " .. layout)
        end
        local a = as(square({ 2, 4, 4 }, dtype))
        local lu, piv = L.lu_factor(a)
        local b = randn({ 4, 3 }, dtype)
        local x = L.lu_solve(lu, piv, b)
        assert_near(mm(a, x), b:expand { 2, 4, 3 }, dtype, 4, maxabs(b) * 4, "lu_solve " .. layout)
      end)
    end)
  end)

  describe("solve_triangular", function()
    it("solves A X = B and X A = B, lower, upper and unit", function()
      each_case(function(dtype, layout, as)
        local full = as(square({ 2, 4, 4 }, dtype))
        local b = randn({ 2, 4, 3 }, dtype)
        for _, upper in ipairs { false, true } do
          local tri = upper and full:triu() or full:tril()
          local x = L.solve_triangular(full, b, { upper = upper })
          assert_near(mm(tri, x), b, dtype, 4, maxabs(b) * 4, "left " .. layout)
          local bt = randn({ 2, 3, 4 }, dtype)
          local xr = L.solve_triangular(full, bt, { upper = upper, left = false })
          assert.same({ 2, 3, 4 }, xr.shape)
          assert_near(mm(xr, tri), bt, dtype, 4, maxabs(bt) * 4, "right " .. layout)
          local unit = dlx.add(dlx.sub(tri, dlx.mul(tri, eye(4, dtype))), eye(4, dtype))
          local xu = L.solve_triangular(full, b, { upper = upper, unitriangular = true })
          assert_near(mm(unit, xu), b, dtype, 4, maxabs(b) * 40, "unit " .. layout)
        end
      end)
    end)
  end)

  describe("threads", function()
    it("give a batch of small matrices the same bits on 1 and 2 threads", function()
      local a = spd({ 3000, 6, 6 }, "float64")
      local before = dlx.get_num_threads()
      local results = {}
      for _, n in ipairs { 1, 2 } do
        dlx.set_num_threads(n)
        local u, s = L.svd(a)
        results[n] = { L.cholesky(a), L.inv(a), u, s, L.eigh(a) }
      end
      dlx.set_num_threads(before)
      for i = 1, 5 do assert.is_true(dlx.equal(results[1][i], results[2][i])) end
    end)
  end)

  describe("zero-size and 1 x 1", function()
    it("gives empty results for an empty batch and the mathematics' values for 0 x 0", function()
      local none = dlx.zeros({ 0, 3, 3 }, { dtype = "float64" })
      assert.same({ 0, 3, 3 }, L.inv(none).shape)
      assert.same({ 0 }, L.det(none).shape)
      assert.same({ 0, 3 }, L.eigvalsh(none).shape)
      assert.same({ 0, 3, 2 }, L.solve(none, dlx.zeros({ 3, 2 }, { dtype = "float64" })).shape)
      local empty = dlx.zeros({ 2, 0, 0 }, { dtype = "float32" })
      assert.same({ 1, 1 }, L.det(empty):totable())
      local s, la = L.slogdet(empty)
      assert.same({ 1, 1 }, s:totable())
      assert.same({ 0, 0 }, la:totable())
      assert.same({ 2, 0, 0 }, L.cholesky(empty).shape)
      local q, r = L.qr(dlx.zeros({ 3, 0 }), { mode = "complete" })
      assert.is_true(dlx.equal(q, eye(3, "float32")))
      assert.same({ 3, 0 }, r.shape)
      local u, sv, vh = L.svd(dlx.zeros({ 2, 0 }))
      assert.is_true(dlx.equal(u, eye(2, "float32")))
      assert.same({ 0 }, sv.shape)
      assert.same({ 0, 0 }, vh.shape)
      local x = L.lstsq(dlx.zeros({ 0, 2 }), dlx.zeros({ 0, 3 }))
      assert.same({ { 0, 0, 0 }, { 0, 0, 0 } }, x:totable())
      local p = L.lu(dlx.zeros({ 2, 0 }))
      assert.is_true(dlx.equal(p, eye(2, "float32")))
    end)

    it("handles 1 x 1 matrices", function()
      for _, dtype in ipairs(DTYPES) do
        local a = dlx.full({ 1, 1 }, 4, { dtype = dtype })
        assert_near(L.inv(a), dlx.full({ 1, 1 }, 0.25, { dtype = dtype }), dtype, 1, 1, "inv")
        assert_near(L.det(a), dlx.full({}, 4, { dtype = dtype }), dtype, 1, 4, "det")
        assert_near(L.cholesky(a), dlx.full({ 1, 1 }, 2, { dtype = dtype }), dtype, 1, 2, "chol")
        assert_near(L.svdvals(a), dlx.full({ 1 }, 4, { dtype = REAL[dtype] }), dtype, 1, 4, "svd")
        assert_near(L.eigvalsh(a), dlx.full({ 1 }, 4, { dtype = REAL[dtype] }), dtype, 1, 4, "eigh")
      end
    end)
  end)

  describe("dtypes", function()
    it("converts bool and integers to float64, as NumPy", function()
      local a = dlx.tensor({ { 2, 1 }, { 1, 3 } }, { dtype = "int32" })
      assert.equal("float64", L.inv(a).dtype)
      assert.equal(5, L.det(a):item())
      assert.equal("float64", L.det(dlx.tensor({ { true, false }, { false, true } })).dtype)
    end)

    it("promotes two operands together", function()
      local a = square({ 3, 3 }, "float32")
      assert.equal("float64", L.solve(a, randn({ 3 }, "float64")).dtype)
      assert.equal("complex64", L.solve(a, randn({ 3 }, "complex64")).dtype)
    end)

    it("refuses float16 and bfloat16 with a TypeError saying what to do", function()
      local err = h.raises("TypeError", L.inv, dlx.zeros({ 2, 2 }, { dtype = "float16" }))
      assert.truthy(err:find("astype", 1, true))
      h.raises("TypeError", L.svd, dlx.zeros({ 2, 2 }, { dtype = "bfloat16" }))
    end)
  end)

  describe("LinAlgError", function()
    it("names the batch element and the diagonal element of a singular matrix", function()
      local a = square({ 4, 3, 3 }, "float64")
      a:select(1, 3):select(2, 2):fill_(0) -- column 2 of batch element 3 is zero
      local err = h.raises("LinAlgError", L.inv, a)
      assert.truthy(err:find("linalg.inv: (Batch element 3): The diagonal element 2 is zero, " ..
        "the inversion could not be completed because the input matrix is singular.", 1, true))
      assert.equal("LinAlgError", dlx.error_class(err))
      err = h.raises("LinAlgError", L.solve, a, dlx.ones({ 3 }, { dtype = "float64" }))
      assert.truthy(err:find("linalg.solve: (Batch element 3): The diagonal element 2 is zero",
        1, true))
      local lu, piv = L.lu_factor(a)
      err = h.raises("LinAlgError", L.lu_solve, lu, piv, dlx.ones({ 3, 1 }, { dtype = "float64" }))
      assert.truthy(err:find("linalg.lu_solve: (Batch element 3): The diagonal element", 1, true))
    end)

    it("has no batch element for a single matrix", function()
      local err = h.raises("LinAlgError", L.inv, dlx.zeros({ 2, 2 }))
      assert.truthy(err:find("linalg.inv: The diagonal element 1 is zero", 1, true))
    end)

    it("names the minor that is not positive definite", function()
      local a = dlx.tensor({ { { 4, 0 }, { 0, 1 } }, { { 1, 2 }, { 2, 1 } } },
        { dtype = "float64" })
      local err = h.raises("LinAlgError", L.cholesky, a)
      assert.truthy(err:find("linalg.cholesky: (Batch element 2): The factorization could not " ..
        "be completed because the input is not positive-definite (the leading minor of order " ..
        "2 is not positive-definite).", 1, true))
      err = h.raises("LinAlgError", L.cholesky, dlx.tensor({ { -1.0 } }), { upper = true })
      assert.truthy(err:find("minor of order 1", 1, true))
    end)

    it("names the zero on a triangular matrix's diagonal", function()
      local a = dlx.tensor({ { 1, 0, 0 }, { 1, 0, 0 }, { 1, 1, 1 } }, { dtype = "float64" })
      local err = h.raises("LinAlgError", L.solve_triangular, a, eye(3, "float64"),
        { upper = false })
      assert.truthy(err:find("The diagonal element 2 is zero", 1, true))
    end)
  end)

  describe("NaN and infinities", function()
    local nan, inf = 0 / 0, math.huge

    it("give NaN results in svd, eigh, eig and lstsq, for that batch element only", function()
      for _, bad in ipairs { nan, inf, -inf } do
        local a = spd({ 3, 4, 4 }, "float64")
        a:select(1, 2):select(1, 3):select(1, 1):fill_(bad)
        local s = L.svdvals(a):totable()
        assert.is_true(h.isnan(s[2][1]) and not h.isnan(s[1][1]) and not h.isnan(s[3][4]))
        local u, sv, vh = L.svd(a)
        assert.is_true(h.isnan(u:totable()[2][1][1]) and h.isnan(vh:totable()[2][4][4]))
        assert.is_false(h.isnan(sv:totable()[3][1]))
        local w, v = L.eigh(a)
        assert.is_true(h.isnan(w:totable()[2][1]) and h.isnan(v:totable()[2][2][2]))
        assert.is_false(h.isnan(w:totable()[1][1]))
        local ew = L.eigvals(a):totable()
        assert.is_true(h.isnan(ew[2][1].re))
        local x, _, rank = L.lstsq(a, dlx.ones({ 4, 1 }, { dtype = "float64" }))
        assert.is_true(h.isnan(x:totable()[2][1][1]))
        assert.same({ 4, 0, 4 }, rank:totable())
      end
    end)

    it("eigh looks only at the triangle it reads", function()
      local a = spd({ 3, 3 }, "float64")
      a:select(1, 1):select(1, 3):fill_(nan) -- upper triangle
      assert.is_false(h.isnan(L.eigvalsh(a):totable()[1]))
      assert.is_true(h.isnan(L.eigvalsh(a, { uplo = "U" }):totable()[1]))
    end)

    it("flow through the direct factorisations, and fail cholesky", function()
      local a = square({ 3, 3 }, "float64")
      a:select(1, 1):select(1, 1):fill_(nan)
      assert.is_true(h.isnan(L.det(a):item()))
      assert.is_true(h.isnan(L.solve(a, dlx.ones({ 3 }, { dtype = "float64" })):totable()[1]))
      local q = L.qr(a)
      assert.is_true(h.isnan(q:totable()[1][1]))
      h.raises("LinAlgError", L.cholesky, a)
      local b = square({ 3, 3 }, "float64")
      b:select(1, 2):select(1, 2):fill_(inf)
      assert.same({ 3, 3 }, L.inv(b).shape) -- infinities in, an answer out (NaN or not)
    end)

    it("reach the composed functions", function()
      local a = dlx.full({ 2, 2 }, nan, { dtype = "float64" })
      assert.is_true(h.isnan(L.matrix_norm(a, 2):item()))
      assert.is_true(h.isnan(L.cond(a):item()))
      assert.equal(0, L.matrix_rank(a):item())
    end)
  end)

  describe("bad arguments", function()
    it("are ValueErrors naming the shapes", function()
      local err = h.raises("ValueError", L.inv, dlx.zeros({ 2, 3 }))
      assert.truthy(err:find("{2, 3}", 1, true))
      h.raises("ValueError", L.det, dlx.zeros({ 3 }))
      err = h.raises("ValueError", L.solve, dlx.zeros({ 3, 3 }), dlx.zeros({ 4, 2 }))
      assert.truthy(err:find("{3, 3}", 1, true) and err:find("{4, 2}", 1, true))
      err = h.raises("ValueError", L.solve, dlx.zeros({ 2, 3, 3 }), dlx.zeros({ 4, 3, 1 }))
      assert.truthy(err:find("do not broadcast", 1, true))
      h.raises("ValueError", L.lstsq, dlx.zeros({ 4, 3 }), dlx.zeros({ 3 }))
      h.raises("ValueError", L.solve_triangular, dlx.zeros({ 3, 3 }), dlx.zeros({ 2, 3 }),
        { upper = true })
      h.raises("ValueError", L.qr, dlx.zeros({ 3, 3 }), { mode = "economic" })
      h.raises("ValueError", L.eigh, dlx.zeros({ 3, 3 }), { uplo = "X" })
      h.raises("ValueError", L.lstsq, dlx.zeros({ 3, 3 }), dlx.zeros({ 3 }), { rcond = -1 })
    end)

    it("checks lu_solve's pivots", function()
      local lu, piv = L.lu_factor(square({ 3, 3 }, "float64"))
      h.raises("ValueError", L.lu_solve, lu, dlx.tensor({ 1, 5, 3 }), dlx.ones({ 3 }))
      h.raises("ValueError", L.lu_solve, lu, dlx.tensor({ 1, 0, 3 }), dlx.ones({ 3 }))
      h.raises("ValueError", L.lu_solve, lu, dlx.tensor({ 1, 2 }), dlx.ones({ 3 }))
      h.raises("TypeError", L.lu_solve, lu, piv:astype("float64"), dlx.ones({ 3 }))
    end)

    it("are TypeErrors for wrong kinds of values and options", function()
      h.raises("TypeError", L.inv, { { 1 } })
      h.raises("TypeError", L.cholesky, dlx.eye(2), { lower = true })
      h.raises("TypeError", L.cholesky, dlx.eye(2), { upper = "yes" })
      h.raises("TypeError", L.solve_triangular, dlx.eye(2), dlx.eye(2))
      h.raises("TypeError", L.solve_triangular, dlx.eye(2), dlx.eye(2), { left = true })
      h.raises("TypeError", L.svd, dlx.eye(2), "full")
    end)

    it("leave their inputs as they were", function()
      local a = dlx.tensor({ { 1, 2 }, { 2, 4 } }, { dtype = "float64" })
      local before = a:totable()
      h.raises("LinAlgError", L.inv, a)
      L.eigh(a)
      L.svd(a)
      assert.same(before, a:totable())
    end)
  end)
end)

describe("the device cases of spec/linalg_decomp_device.lua on the CPU", function()
  -- the checks every device runs (spec/cuda_linalg_spec.lua) pass on the CPU against itself
  require "spec.linalg_decomp_device" ("cpu", it)
end)
