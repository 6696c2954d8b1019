--- dlx.linalg: linear algebra, batched over the leading dims as torch.linalg. The
-- decompositions (solve, inv, det, slogdet, cholesky, qr, svd, svdvals, eigh, eigvalsh, eig,
-- eigvals, lstsq, lu_factor, lu, lu_solve, solve_triangular) are C functions of dlx.core over the
-- backends' linalg entry; this file adds what is composed of them and of the elementwise ops and
-- reductions: the norms, cond, matrix_rank, pinv, matrix_power and multi_dot. docs/linalg.md
-- says what each returns and why.
local core = require "dlx.core"
local raise = require "dlx.raise"

local api = core.api
local is_tensor = core.is_tensor

local M = {}
for name, fn in pairs(core.linalg) do M[name] = fn end

local INF = math.huge

-- Dtypes computed as they are; bools and integers are converted to float64 (as NumPy does);
-- float16 and bfloat16 are a TypeError (the decompositions say so).
local AS_IS = { float32 = true, float64 = true, complex64 = true, complex128 = true }
local REAL_OF = { float32 = "float32", float64 = "float64", complex64 = "float32",
  complex128 = "float64" }
local EPS = { float32 = 1.1920928955078125e-07, float64 = 2.220446049250313e-16 }

local function check_tensor(t, fname, what)
  if not is_tensor(t) then
    raise("TypeError", "%s: %s must be a tensor, got %s", fname, what, type(t))
  end
end

-- t in the dtype linalg computes in.
local function computable(t, fname)
  check_tensor(t, fname, "A")
  local dtype = t.dtype
  if AS_IS[dtype] then return t end
  if dtype == "bool" or dtype:match("^u?int%d+$") then return t:astype("float64") end
  raise("TypeError", "%s: dtype %s is not supported (float32, float64, complex64 and complex128 "
    .. "are; convert first, t:astype(\"float32\"))", fname, dtype)
end

local function check_matrix(t, fname)
  if t.ndim < 2 then
    raise("ValueError", "%s: A must have at least 2 dims, got %d", fname, t.ndim)
  end
end

-- The conjugate transpose of a batch of matrices.
local function adjoint(t)
  local tt = t:transpose(-2, -1)
  if t.dtype == "complex64" or t.dtype == "complex128" then return tt:conj() end
  return tt
end

local matmul = api.matmul

-- The options table at position opts of fname, with only the known keys.
local function options(opts, fname, known)
  if opts == nil then return {} end
  if type(opts) ~= "table" or is_tensor(opts) then
    raise("TypeError", "%s: opts must be a table or nil, got %s", fname, type(opts))
  end
  for key in pairs(opts) do
    if not known[key] then
      local names = {}
      for name in pairs(known) do names[#names + 1] = name end
      table.sort(names)
      raise("TypeError", "%s: unknown option '%s' (options are %s)", fname, tostring(key),
        table.concat(names, ", "))
    end
  end
  return opts
end

local function keep_dims(t, keepdim, count)
  if not keepdim then return t end
  for _ = 1, count do t = t:unsqueeze(-1) end
  return t
end

-- ---- norms

--- vector_norm(x[, ord = 2][, {dim =, keepdim = false}]): the ord-norm of the elements over dim
-- (nil: all of them): inf is the largest magnitude, -inf the smallest, 0 the count of non-zeros.
function M.vector_norm(x, ord, opts)
  local fname = "linalg.vector_norm"
  x = computable(x, fname)
  opts = options(opts, fname, { dim = true, keepdim = true })
  ord = ord == nil and 2 or ord
  if type(ord) ~= "number" or ord ~= ord then
    raise("ValueError", "linalg.vector_norm: ord must be a number, got %s", tostring(ord))
  end
  local dim, keepdim = opts.dim, opts.keepdim or false
  local mag = x:abs()
  if ord == 2 or ord == 1 or ord == INF then
    return mag:norm { p = ord, dim = dim, keepdim = keepdim }
  elseif ord == -INF then
    return mag:min(dim, keepdim)
  elseif ord == 0 then
    return api.ne(mag, 0):sum(dim, keepdim):astype(mag.dtype)
  end
  return api.pow(api.pow(mag, ord):sum(dim, keepdim), 1 / ord)
end

local MATRIX_ORDS = { fro = true, nuc = true, [1] = true, [-1] = true, [2] = true, [-2] = true,
  [INF] = true, [-INF] = true }

--- matrix_norm(A[, ord = "fro"][, {keepdim = false}]): the ord-norm of each matrix (the last two
-- dims): "fro", "nuc", 1 and -1 (largest and smallest column sum of magnitudes), inf and -inf
-- (row sums), 2 and -2 (largest and smallest singular value).
function M.matrix_norm(a, ord, opts)
  local fname = "linalg.matrix_norm"
  a = computable(a, fname)
  check_matrix(a, fname)
  opts = options(opts, fname, { keepdim = true })
  ord = ord == nil and "fro" or ord
  if not MATRIX_ORDS[ord] then
    raise("ValueError", "%s: ord must be \"fro\", \"nuc\", 1, -1, 2, -2, math.huge or "
      .. "-math.huge, got %s", fname, tostring(ord))
  end
  local keepdim = opts.keepdim or false
  local result
  if ord == "fro" then
    return a:abs():norm { p = 2, dim = { -2, -1 }, keepdim = keepdim }
  elseif ord == "nuc" then
    result = M.svdvals(a):sum(-1)
  elseif ord == 2 or ord == -2 then
    local s = M.svdvals(a)
    result = ord == 2 and s:max(-1) or s:min(-1)
  else
    local sums = a:abs():sum((ord == 1 or ord == -1) and -2 or -1)
    result = (ord > 0) and sums:max(-1) or sums:min(-1)
  end
  return keep_dims(result, keepdim, 2)
end

--- norm(A[, ord][, {dim =, keepdim = false}]): matrix_norm when dim lists two dims, or when ord is
-- given and A is 2-D (dim nil); else vector_norm (the 2-norm of all elements by default).
function M.norm(a, ord, opts)
  local fname = "linalg.norm"
  check_tensor(a, fname, "A")
  opts = options(opts, fname, { dim = true, keepdim = true })
  local dim = opts.dim
  if type(dim) == "table" and #dim == 2 then -- the two dims moved last
    local d1 = dim[1] < 0 and a.ndim + dim[1] + 1 or dim[1]
    local d2 = dim[2] < 0 and a.ndim + dim[2] + 1 or dim[2]
    local order = {}
    for d = 1, a.ndim do
      if d ~= d1 and d ~= d2 then order[#order + 1] = d end
    end
    order[#order + 1], order[#order + 2] = d1, d2
    local result = M.matrix_norm(a:permute(order), ord)
    if opts.keepdim then
      for _, d in ipairs(d1 < d2 and { d1, d2 } or { d2, d1 }) do result = result:unsqueeze(d) end
    end
    return result
  end
  if dim == nil and ord ~= nil and a.ndim == 2 then
    return M.matrix_norm(a, ord, { keepdim = opts.keepdim })
  end
  if dim == nil and ord ~= nil and a.ndim ~= 1 then
    raise("ValueError", "%s: ord without dim needs a 1-D or 2-D tensor, got %d dims", fname,
      a.ndim)
  end
  return M.vector_norm(a, ord, { dim = dim, keepdim = opts.keepdim })
end

--- cond(A[, p]): the condition number: the largest over the smallest singular value for p nil
-- or 2 (-2: the inverse), else matrix_norm(A, p) * matrix_norm(inv(A), p), inf for a singular
-- matrix (one inv refuses: an exact zero in its LU, which slogdet's sign 0 tells), as NumPy.
function M.cond(a, p)
  local fname = "linalg.cond"
  a = computable(a, fname)
  check_matrix(a, fname)
  if p == nil or p == 2 or p == -2 then
    local s = M.svdvals(a)
    local ratio = api.div(s:max(-1), s:min(-1))
    return p == -2 and api.reciprocal(ratio) or ratio
  end
  local n = a.shape[a.ndim]
  if a.shape[a.ndim - 1] ~= n then
    raise("ValueError", "%s: p = %s needs (batches of) square matrices, got %d x %d", fname,
      tostring(p), a.shape[a.ndim - 1], n)
  end
  local singular = api.eq(M.slogdet(a), 0)
  local eye = api.eye(n, { dtype = a.dtype, device = a.device })
  local safe = api.where(singular:unsqueeze(-1):unsqueeze(-1), eye, a) -- inv of I in their place
  local c = api.mul(M.matrix_norm(a, p), M.matrix_norm(M.inv(safe), p))
  return api.where(singular, INF, c)
end

-- ---- rank and pseudo-inverse

-- The tolerance of matrix_rank and pinv: max(atol, rtol * the largest singular value), rtol
-- eps * max(m, n) when neither is given (0 when only atol is).
local function tolerance(a, s, opts)
  local atol, rtol = opts.atol, opts.rtol
  if rtol == nil then
    rtol = atol == nil and EPS[REAL_OF[a.dtype]] * math.max(a.shape[a.ndim - 1], a.shape[a.ndim])
        or 0
  end
  local largest = a.shape[a.ndim] * a.shape[a.ndim - 1] > 0 and s:max(-1, true)
      or api.zeros_like(s:sum(-1, true))
  return api.maximum(api.mul(largest, rtol), atol or 0)
end

-- The matrix and the options {atol =, rtol =, hermitian =} of matrix_rank and pinv, checked.
local function tolerance_args(a, opts, fname)
  a = computable(a, fname)
  check_matrix(a, fname)
  return a, options(opts, fname, { atol = true, rtol = true, hermitian = true })
end

-- The singular values (or eigenvalue magnitudes of a Hermitian A), largest first or not.
local function magnitudes(a, hermitian)
  if hermitian then return M.eigvalsh(a):abs() end
  return M.svdvals(a)
end

--- matrix_rank(A[, {atol =, rtol =, hermitian = false}]): the number of singular values above
-- the tolerance, int64.
function M.matrix_rank(a, opts)
  a, opts = tolerance_args(a, opts, "linalg.matrix_rank")
  local s = magnitudes(a, opts.hermitian)
  return api.gt(s, tolerance(a, s, opts)):sum(-1)
end

--- pinv(A[, {atol =, rtol =, hermitian = false}]): the Moore-Penrose pseudo-inverse, from the
-- SVD (or eigh for a Hermitian A), singular values below the tolerance taken as zero.
function M.pinv(a, opts)
  a, opts = tolerance_args(a, opts, "linalg.pinv")
  if opts.hermitian then
    local w, v = M.eigh(a)
    local tol = tolerance(a, w:abs(), opts)
    local winv = api.where(api.gt(w:abs(), tol), api.reciprocal(w), 0)
    return matmul(api.mul(v, winv:unsqueeze(-2)), adjoint(v))
  end
  local u, s, vh = M.svd(a, { full_matrices = false })
  local sinv = api.where(api.gt(s, tolerance(a, s, opts)), api.reciprocal(s), 0)
  return matmul(api.mul(adjoint(vh), sinv:unsqueeze(-2)), adjoint(u))
end

-- ---- products

--- matrix_power(A, n): A multiplied by itself n times (by squaring); n = 0 gives the identity,
-- n < 0 the power of inv(A).
function M.matrix_power(a, n)
  local fname = "linalg.matrix_power"
  check_tensor(a, fname, "A")
  check_matrix(a, fname)
  if math.type(n) ~= "integer" then
    raise("TypeError", "%s: n must be an integer, got %s", fname, tostring(n))
  end
  if a.shape[a.ndim] ~= a.shape[a.ndim - 1] then
    raise("ValueError", "%s: A must be (batches of) square matrices, got %d x %d", fname,
      a.shape[a.ndim - 1], a.shape[a.ndim])
  end
  if n == 0 then
    local eye = api.eye(a.shape[a.ndim], { dtype = a.dtype, device = a.device })
    return eye:expand(a.shape):contiguous()
  end
  if n < 0 then a, n = M.inv(a), -n end
  local result, square = nil, a
  while true do
    if n % 2 == 1 then result = result and matmul(result, square) or square end
    n = n // 2
    if n == 0 then break end
    square = matmul(square, square)
  end
  return result == a and a:clone() or result
end

-- The cheapest order to multiply matrices of dims p[1] x p[2], p[2] x p[3], ... (the classic
-- dynamic programme): split[i][j] is where the product of i..j splits.
local function chain_order(p, n)
  local cost, split = {}, {}
  for i = 1, n do
    cost[i], split[i] = { [i] = 0 }, {}
  end
  for len = 2, n do
    for i = 1, n - len + 1 do
      local j = i + len - 1
      cost[i][j] = INF
      for k = i, j - 1 do
        local c = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
        if c < cost[i][j] then cost[i][j], split[i][j] = c, k end
      end
    end
  end
  return split
end

--- multi_dot(list): the product of the matrices of the list in the cheapest order; the first
-- may be a 1-D row vector and the last a 1-D column vector (their dims are dropped again).
function M.multi_dot(list)
  local fname = "linalg.multi_dot"
  if type(list) ~= "table" or is_tensor(list) or #list < 2 then
    raise("ValueError", "%s takes a list of at least two tensors", fname)
  end
  local mats, n = {}, #list
  for i, t in ipairs(list) do
    check_tensor(t, fname, ("list[%d]"):format(i))
    local ok = t.ndim == 2 or (t.ndim == 1 and (i == 1 or i == n))
    if not ok then
      raise("ValueError", "%s: list[%d] must be 2-D (1-D only first or last), got %d dims", fname,
        i, t.ndim)
    end
    mats[i] = t
  end
  local first_vector, last_vector = mats[1].ndim == 1, mats[n].ndim == 1
  if first_vector then mats[1] = mats[1]:unsqueeze(1) end
  if last_vector then mats[n] = mats[n]:unsqueeze(2) end
  local p = {}
  for i = 1, n do
    p[i] = mats[i].shape[1]
    if i > 1 and mats[i - 1].shape[2] ~= p[i] then
      raise("ValueError", "%s: list[%d] (%d x %d) and list[%d] (%d x %d) do not chain", fname,
        i - 1, mats[i - 1].shape[1], mats[i - 1].shape[2], i, p[i], mats[i].shape[2])
    end
  end
  p[n + 1] = mats[n].shape[2]
  local split = chain_order(p, n)
  local function product(i, j)
    if i == j then return mats[i] end
    local k = split[i][j]
    return matmul(product(i, k), product(k + 1, j))
  end
  local result = product(1, n)
  if first_vector then result = result:squeeze(1) end
  if last_vector then result = result:squeeze(-1) end
  return result
end

return M
