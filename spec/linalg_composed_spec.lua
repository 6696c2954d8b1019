-- The functions of dlx.linalg composed in lua/dlx/linalg.lua: the norms, cond, matrix_rank,
-- pinv, matrix_power and multi_dot, for every dtype, against known values and identities.
local h = require "spec.helper"
local dlx = h.dlx
local L = dlx.linalg

local DTYPES, REAL, EPS = h.LINALG_DTYPES, h.REAL_OF, h.EPS
local INF = math.huge

local randn, maxabs = h.randn, h.maxabs

local function assert_near(got, want, dtype, scale, what)
  local err = maxabs(dlx.sub(got, want))
  local tol = 1000 * EPS[REAL[dtype]] * math.max(scale or 1, 1)
  if not (err <= tol) then -- luacheck: ignore 581 (NaN fails too)
    error(("%s: off by %g, more than %g (%s)"):format(what, err, tol, dtype), 2)
  end
end

local A = dlx.tensor({ { 1, -2, 3 }, { -4, 5, -6 } }, { dtype = "float64" })

dlx.manual_seed(7)

describe("dlx.linalg composed functions", function()
  describe("matrix_norm", function()
    it("gives every ord's value", function()
      local want = { fro = math.sqrt(91), [1] = 9, [-1] = 5, [INF] = 15, [-INF] = 6 }
      for ord, value in pairs(want) do
        h.assert_close(value, L.matrix_norm(A, ord):item(), 1e-14)
      end
      local s = L.svdvals(A):totable()
      h.assert_close(s[1], L.matrix_norm(A, 2):item(), 1e-14)
      h.assert_close(s[2], L.matrix_norm(A, -2):item(), 1e-14)
      h.assert_close(s[1] + s[2], L.matrix_norm(A, "nuc"):item(), 1e-14)
      h.assert_close(math.sqrt(91), L.matrix_norm(A):item(), 1e-14)
    end)

    it("is batched, keeps dims on request, and takes every dtype", function()
      for _, dtype in ipairs(DTYPES) do
        local a = randn({ 2, 3, 4, 5 }, dtype)
        local n = L.matrix_norm(a, 1)
        assert.same({ 2, 3 }, n.shape)
        assert.equal(REAL[dtype], n.dtype)
        assert.same({ 2, 3, 1, 1 }, L.matrix_norm(a, "fro", { keepdim = true }).shape)
        assert_near(L.matrix_norm(a), a:abs():norm { dim = { -2, -1 } }, dtype, 10, "fro")
      end
      assert.equal("float64", L.matrix_norm(dlx.tensor({ { 1, 2 }, { 3, 4 } })).dtype)
    end)

    it("refuses unknown ords and vectors", function()
      h.raises("ValueError", L.matrix_norm, A, 3)
      h.raises("ValueError", L.matrix_norm, A, "max")
      h.raises("ValueError", L.matrix_norm, dlx.ones({ 3 }))
      h.raises("TypeError", L.matrix_norm, A, "fro", { dim = 1 })
    end)
  end)

  describe("vector_norm and norm", function()
    it("gives every ord's value", function()
      local x = dlx.tensor({ 3, -4, 0, 12 }, { dtype = "float64" })
      local want = { [2] = 13, [1] = 19, [INF] = 12, [-INF] = 0, [0] = 3,
        [3] = (27 + 64 + 1728) ^ (1 / 3) }
      for ord, value in pairs(want) do
        h.assert_close(value, L.vector_norm(x, ord):item(), 1e-14)
      end
      h.assert_close(13, L.norm(x):item(), 1e-14)
      h.assert_close(19, L.norm(x, 1):item(), 1e-14)
    end)

    it("reduces over dims with keepdim, for complex values too", function()
      local z = dlx.tensor({ { { re = 3, im = 4 }, { re = 0, im = 0 } } }, { dtype = "complex128" })
      local n = L.vector_norm(z, 2, { dim = -1, keepdim = true })
      assert.same({ 1, 1 }, n.shape)
      h.assert_close(5, n:item(), 1e-15)
      assert.same({ 2, 3 }, L.vector_norm(randn({ 2, 3, 4 }, "float32"), 1, { dim = 3 }).shape)
    end)

    it("dispatches as torch.linalg.norm", function()
      h.assert_close(math.sqrt(91), L.norm(A):item(), 1e-14) -- all elements
      h.assert_close(9, L.norm(A, 1):item(), 1e-14) -- a 2-D A with ord: the matrix norm
      local batch = randn({ 4, 2, 3 }, "float64")
      local by_dims = L.norm(batch, INF, { dim = { 1, 3 } }) -- rows over dims 1 and 3
      assert.same({ 2 }, by_dims.shape)
      assert_near(by_dims, L.matrix_norm(batch:permute { 2, 1, 3 }, INF), "float64", 10, "dims")
      assert.same({ 1, 2, 1 }, L.norm(batch, "fro", { dim = { 1, 3 }, keepdim = true }).shape)
      h.raises("ValueError", L.norm, batch, 2)
    end)
  end)

  describe("cond", function()
    it("is S[1] / S[k] for p nil and 2, its inverse for -2, norms otherwise", function()
      for _, dtype in ipairs(DTYPES) do
        local a = dlx.add(randn({ 2, 4, 4 }, dtype), dlx.mul(dlx.eye(4, { dtype = dtype }), 4))
        local s = L.svdvals(a)
        local ratio = dlx.div(s:max(-1), s:min(-1))
        assert_near(L.cond(a), ratio, dtype, maxabs(ratio), "cond")
        assert_near(L.cond(a, -2), dlx.reciprocal(ratio), dtype, 1, "cond -2")
        local fro = dlx.mul(L.matrix_norm(a), L.matrix_norm(L.inv(a)))
        assert_near(L.cond(a, "fro"), fro, dtype, maxabs(fro), "cond fro")
      end
      assert.equal(INF, L.cond(dlx.tensor({ { 1, 0 }, { 0, 0 } }, { dtype = "float64" })):item())
      local batch = dlx.tensor({ { { 1, 0 }, { 0, 0 } }, { { 2, 0 }, { 0, 1 } } },
        { dtype = "float64" })
      assert.same({ INF, 2 }, L.cond(batch, 1):totable()) -- inf for the singular one, as NumPy
      h.raises("ValueError", L.cond, dlx.ones({ 2, 3 }), "fro")
    end)
  end)

  describe("matrix_rank and pinv", function()
    it("counts the singular values above the tolerance", function()
      local a = dlx.tensor({ { 1, 2, 3 }, { 2, 4, 6 }, { 1, 0, 1 } }, { dtype = "float64" })
      assert.equal(2, L.matrix_rank(a):item())
      assert.equal(3, L.matrix_rank(dlx.eye(3)):item())
      assert.equal(0, L.matrix_rank(dlx.zeros({ 2, 3 })):item())
      assert.equal(1, L.matrix_rank(a, { atol = 1.5 }):item())
      assert.equal(1, L.matrix_rank(a, { rtol = 0.2 }):item())
      local sym = dlx.tensor({ { 1, 2, 3 }, { 2, 4, 6 }, { 3, 6, 9 } }, { dtype = "float64" })
      assert.equal(1, L.matrix_rank(sym, { hermitian = true }):item())
      local ranks = L.matrix_rank(randn({ 2, 3, 4, 4 }, "complex64"))
      assert.same({ { 4, 4, 4 }, { 4, 4, 4 } }, ranks:totable())
      assert.equal("int64", ranks.dtype)
    end)

    it("gives the Moore-Penrose pseudo-inverse", function()
      for _, dtype in ipairs(DTYPES) do
        for _, shape in ipairs { { 2, 5, 3 }, { 3, 5 } } do
          local a = randn(shape, dtype)
          local p = L.pinv(a)
          assert.equal(shape[#shape], p.shape[p.ndim - 1])
          local scale = maxabs(a) * maxabs(p) * 10
          assert_near(dlx.matmul(dlx.matmul(a, p), a), a, dtype, scale * maxabs(a), "A A+ A")
          assert_near(dlx.matmul(dlx.matmul(p, a), p), p, dtype, scale * maxabs(p), "A+ A A+")
        end
      end
      local rank1 = dlx.tensor({ { 1, 2 }, { 2, 4 } }, { dtype = "float64" })
      assert_near(L.pinv(rank1), dlx.div(rank1, 25), "float64", 10, "rank 1")
      assert_near(L.pinv(rank1, { hermitian = true }), dlx.div(rank1, 25), "float64", 10, "herm")
    end)
  end)

  describe("matrix_power", function()
    it("multiplies by squaring, with the identity for 0 and inv for negative powers", function()
      for _, dtype in ipairs(DTYPES) do
        local a = dlx.add(randn({ 2, 3, 3 }, dtype), dlx.mul(dlx.eye(3, { dtype = dtype }), 3))
        local a3 = dlx.matmul(dlx.matmul(a, a), a)
        assert_near(L.matrix_power(a, 3), a3, dtype, maxabs(a3), "A^3")
        assert_near(L.matrix_power(a, 1), a, dtype, 1, "A^1")
        local identity = dlx.eye(3, { dtype = dtype }):expand { 2, 3, 3 }
        assert.is_true(dlx.equal(L.matrix_power(a, 0), identity))
        local ai = L.inv(a)
        assert_near(L.matrix_power(a, -2), dlx.matmul(ai, ai), dtype, maxabs(ai) ^ 2, "A^-2")
      end
      assert.equal("int64", L.matrix_power(dlx.tensor({ { 1, 1 }, { 1, 0 } }), 10).dtype)
      assert.same({ { 89, 55 }, { 55, 34 } }, L.matrix_power(dlx.tensor({ { 1, 1 }, { 1, 0 } }), 10)
        :totable())
      h.raises("TypeError", L.matrix_power, A, 1.5)
      h.raises("ValueError", L.matrix_power, A, 2)
      h.raises("LinAlgError", L.matrix_power, dlx.zeros({ 2, 2 }), -1)
    end)
  end)

  describe("multi_dot", function()
    it("multiplies a chain in the cheapest order, with vectors at the ends", function()
      local a, b, c, d = randn({ 10, 100 }, "float64"), randn({ 100, 5 }, "float64"),
          randn({ 5, 50 }, "float64"), randn({ 50 }, "float64")
      local want = dlx.matmul(dlx.matmul(dlx.matmul(a, b), c), d)
      assert_near(L.multi_dot { a, b, c, d }, want, "float64", maxabs(want) * 100, "chain")
      local v = randn({ 10 }, "float64")
      local scalar = L.multi_dot { v, a, b, c, d }
      assert.equal(0, scalar.ndim)
      assert_near(scalar, dlx.matmul(v, want), "float64", maxabs(want) * 1000, "vector ends")
    end)

    it("refuses what does not chain", function()
      h.raises("ValueError", L.multi_dot, { dlx.ones({ 2, 3 }) })
      h.raises("ValueError", L.multi_dot, { dlx.ones({ 2, 3 }), dlx.ones({ 2, 3 }) })
      h.raises("ValueError", L.multi_dot, { dlx.ones({ 2, 3 }), dlx.ones({ 3 }), dlx.ones({ 3 }) })
      h.raises("TypeError", L.multi_dot, { dlx.ones({ 2, 3 }), "x" })
    end)
  end)
end)
