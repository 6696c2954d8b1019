-- Property tests of dlx.linalg's decompositions against NumPy 2
-- (tests/property/numpy_linalg_decomp.py): random ops, batch shapes (zero sizes among them),
-- matrix sizes, dtypes and layouts (transposed and flipped views), on well-conditioned,
-- ill-conditioned (columns scaled over 10^3 in float32, 10^6 in float64), rank-deficient (a
-- repeated row) and singular (a zero column) matrices. What is compared is what both libraries
-- define the same way: values where they are unique (det, slogdet, singular values, eigvalsh,
-- |R|, inverses and solutions of non-singular matrices, ranks, norms, the pseudo-inverse), a
-- LinAlgError on both sides for a singular matrix, with a tolerance of the dtype's epsilon
-- scaled by the size and the conditioning. DLX_PROPERTY_SEED fixes the seed (printed on every
-- run); DLX_PROPERTY_CASES the count.
local h = require "spec.helper"
local N = require "spec.property_numpy"
local dlx = h.dlx
local L = dlx.linalg

local SEED, CASES = N.seed(), N.cases(200)
local SCRIPT = "tests/property/numpy_linalg_decomp.py"

local DTYPES, REAL, EPS = h.LINALG_DTYPES, h.REAL_OF, h.EPS

-- op -> the kinds of matrices it is tried on
local OPS = {
  solve = { "well", "ill", "singular" }, inv = { "well", "ill", "singular" },
  det = { "well", "ill", "singular", "deficient" }, slogdet = { "well", "ill" },
  cholesky = { "spd", "singular_spd" }, qr_r = { "well", "ill" },
  svdvals = { "well", "ill", "deficient" }, eigvalsh = { "hermitian" },
  lstsq = { "well", "deficient" }, pinv = { "well", "deficient" },
  matrix_rank = { "well", "ill", "deficient" }, matrix_norm = { "well", "ill" },
  cond = { "well", "ill", "singular" },
}
local OP_NAMES = {}
for name in pairs(OPS) do OP_NAMES[#OP_NAMES + 1] = name end
table.sort(OP_NAMES)
local NORMS = { "fro", "nuc", "1", "-1", "2", "-2", "inf", "-inf" }

local pick = N.pick

local function gaussian()
  return math.sqrt(-2 * math.log(1 - math.random())) * math.cos(2 * math.pi * math.random())
end

-- A batch of matrices of a kind, as nested lists of {re, im} per element (im 0 for real ones).
local function matrices(kind, batch, m, n, dtype)
  local count, complex = 1, dtype:sub(1, 7) == "complex"
  for _, s in ipairs(batch) do count = count * s end
  local spread = REAL[dtype] == "float32" and 3 or 6
  local list = {}
  for b = 1, count do
    local a = {}
    for i = 1, m do
      a[i] = {}
      for j = 1, n do
        a[i][j] = { gaussian(), complex and gaussian() or 0 }
        if kind == "well" and i == j then a[i][j][1] = a[i][j][1] + n end
        if kind == "ill" then
          local s = 10 ^ (-spread * (j - 1) / math.max(n - 1, 1))
          a[i][j] = { a[i][j][1] * s, a[i][j][2] * s }
        end
      end
    end
    if kind == "singular" then -- a zero column: an exact zero pivot in any LU
      local c = math.random(1, n)
      for i = 1, m do a[i][c] = { 0, 0 } end
    elseif kind == "singular_spd" then -- a zero row: a zero row and column of A Aᴴ
      local r = math.random(1, m)
      for j = 1, n do a[r][j] = { 0, 0 } end
    end
    if kind == "deficient" and m > 1 then
      for j = 1, n do a[m][j] = { a[1][j][1], a[1][j][2] } end
    end
    if kind == "spd" or kind == "singular_spd" or kind == "hermitian" then -- A Aᴴ (+ n I)
      local s = {}
      for i = 1, n do
        s[i] = {}
        for j = 1, n do
          local re, im = kind == "spd" and i == j and n or 0, 0
          for k = 1, n do -- a[i][k] * conj(a[j][k])
            local x, y = a[i][k], a[j][k]
            re = re + x[1] * y[1] + x[2] * y[2]
            im = im + x[2] * y[1] - x[1] * y[2]
          end
          s[i][j] = { re, im }
        end
      end
      a = s
    end
    list[b] = a
  end
  return list
end

-- The field for NumPy and the dlx tensor of a batch of matrices (or vectors) of shape dims.
local function operand(list, batch, dtype, dims)
  local re, im = {}, {}
  local function walk(v)
    if type(v[1]) == "number" then
      re[#re + 1], im[#im + 1] = v[1], v[2]
    else
      for _, x in ipairs(v) do walk(x) end
    end
  end
  walk(list)
  local shape = table.move(batch, 1, #batch, 1, {})
  table.move(dims, 1, #dims, #shape + 1, shape)
  local real = REAL[dtype]
  local t = dlx.tensor(re, { dtype = "float64" }):view(shape)
  if dtype:sub(1, 7) == "complex" then
    t = dlx.add(t:astype(dtype), dlx.mul(dlx.tensor(im, { dtype = "float64" }):view(shape)
      :astype(dtype), { re = 0, im = 1 }))
  else
    t = t:astype(real)
  end
  local r = math.random()
  if #shape >= 2 and r < 0.3 then
    local d = #shape
    t = t:transpose(d - 1, d):contiguous():transpose(d - 1, d)
  elseif r < 0.5 then
    t = t:flip(#shape):contiguous():flip(#shape)
  end
  local fmt = function(v) return ("%.17g"):format(v) end
  local function join(values)
    local out = {}
    for i, v in ipairs(values) do out[i] = fmt(v) end
    return table.concat(out, " ")
  end
  local field = table.concat({ table.concat(shape, ","), join(re),
    dtype:sub(1, 7) == "complex" and join(im) or "" }, "|")
  return field, t
end

local function random_case(id)
  local op = pick(OP_NAMES)
  local kind = pick(OPS[op])
  local dtype = pick(DTYPES)
  local batch = {}
  for d = 1, math.random(0, 2) do batch[d] = math.random() < 0.1 and 0 or math.random(1, 3) end
  local n = math.random(1, 6)
  local m = n
  if op == "qr_r" or op == "svdvals" or op == "pinv" or op == "matrix_rank" or
      op == "matrix_norm" then
    m = math.random(1, 6)
  elseif op == "lstsq" then
    m = n + math.random(0, 3) -- tall or square
  end
  if kind == "deficient" and m < 2 then -- a repeated row needs two
    if m == n then n = 2 end
    m = 2
  end
  local arg = op == "matrix_norm" and pick(NORMS) or op == "cond" and pick { "-", "2", "fro" }
      or "-"
  if op == "cond" and kind == "singular" then arg = "fro" end -- inf on both sides
  local a_field, a = operand(matrices(kind, batch, m, n, dtype), batch, dtype, { m, n })
  local fields, tensors = { id, op, dtype, arg, a_field }, { a }
  if op == "solve" or op == "lstsq" then
    local k = math.random(0, 1) == 0 and 0 or math.random(1, 3)
    local rows = op == "solve" and n or m
    local b_list = {}
    local complex = dtype:sub(1, 7) == "complex"
    local function value() return { gaussian(), complex and gaussian() or 0 } end
    for i = 1, rows do
      b_list[i] = k == 0 and value() or {}
      for j = 1, k do b_list[i][j] = value() end
    end
    fields[6], tensors[2] = operand({ b_list }, {}, dtype, k == 0 and { rows } or { rows, k })
  end
  local name = ("case %d (seed %d): %s of %s %s matrices, batch {%s}, %d x %d%s"):format(id, SEED,
    op, kind, dtype, table.concat(batch, ","), m, n, arg ~= "-" and (", ord " .. arg) or "")
  return { op = op, kind = kind, dtype = dtype, arg = arg, n = math.max(m, n), tensors = tensors,
    line = table.concat(fields, "\t"), name = name }
end

local ORD = { fro = "fro", nuc = "nuc", inf = math.huge, ["-inf"] = -math.huge }

local function dlx_results(case)
  local a, b = case.tensors[1], case.tensors[2]
  local op = case.op
  if op == "solve" then return { L.solve(a, b) } end
  if op == "inv" then return { L.inv(a) } end
  if op == "det" then return { L.det(a) } end
  if op == "slogdet" then return { L.slogdet(a) } end
  if op == "cholesky" then return { L.cholesky(a) } end
  if op == "qr_r" then
    local _, r = L.qr(a, { mode = "r" })
    return { r:abs() }
  end
  if op == "svdvals" then return { L.svdvals(a) } end
  if op == "eigvalsh" then return { L.eigvalsh(a) } end
  if op == "lstsq" then
    local x, _, rank, s = L.lstsq(a, b)
    return { x, rank, s }
  end
  if op == "pinv" then return { L.pinv(a) } end
  if op == "matrix_rank" then return { L.matrix_rank(a) } end
  if op == "matrix_norm" then return { L.matrix_norm(a, ORD[case.arg] or tonumber(case.arg)) } end
  return { L.cond(a, case.arg == "-" and nil or (ORD[case.arg] or tonumber(case.arg))) }
end

-- Which outputs are compared for a kind of matrix (lstsq of a rank-deficient one: the rank and
-- the singular values, not the solution, which depends on rounding at the threshold).
local function compared(case, k)
  if case.op == "lstsq" and case.kind == "deficient" then return k ~= 1 end
  return true
end

-- The tolerance of a case: the dtype's epsilon times the size, the conditioning and the scale.
local function tolerance(case, scale)
  local eps = EPS[REAL[case.dtype]]
  local cond = case.kind == "ill" and (REAL[case.dtype] == "float32" and 1e3 or 1e6) or 1
  if case.op == "det" or case.op == "slogdet" or case.op == "svdvals" or case.op == "eigvalsh"
      or case.op == "matrix_norm" or case.op == "qr_r" or case.op == "matrix_rank" then
    cond = 1
  end
  return 200 * case.n * eps * cond * math.max(scale, 1)
end

local SPECIAL = { inf = math.huge, ["-inf"] = -math.huge, nan = 0 / 0 }

local function number(text) return tonumber(text) or SPECIAL[text] end

local function parse_output(text)
  local shape, re, im = text:match("^([^|]*)|([^|]*)|(.*)$")
  local values = {}
  for v in re:gmatch("%S+") do values[#values + 1] = { number(v), 0 } end
  local i = 0
  for v in im:gmatch("%S+") do
    i = i + 1
    values[i][2] = number(v)
  end
  return shape, values
end

-- The values of t in row-major order as {re, im} (complex values are {re =, im =} tables).
local function flat_complex(t)
  local out = {}
  local function walk(v)
    if type(v) ~= "table" then
      out[#out + 1] = { v, 0 }
    elseif v.re ~= nil then
      out[#out + 1] = { v.re, v.im }
    else
      for _, x in ipairs(v) do walk(x) end
    end
  end
  walk(t:totable())
  return out
end

local function check(case, result)
  local function fail(why) error(case.name .. ": " .. why, 0) end
  local fields = {}
  for f in result:gmatch("[^\t]+") do fields[#fields + 1] = f end
  local ok, outs = pcall(dlx_results, case)
  if fields[2] == "LinAlgError" then
    if ok then fail("NumPy raised LinAlgError, dlx did not") end
    if dlx.error_class(outs) ~= "LinAlgError" then fail("dlx raised " .. tostring(outs)) end
    return
  end
  if not ok then fail("dlx raised " .. tostring(outs) .. " where NumPy did not") end
  for k = 1, #fields - 2 do
    if compared(case, k) then
      local shape, want = parse_output(fields[k + 2])
      local got_t = outs[k]
      if table.concat(got_t.shape, ",") ~= shape then
        fail(("output %d: shape {%s} vs NumPy's (%s)"):format(k, table.concat(got_t.shape, ","),
          shape))
      end
      local got, scale = flat_complex(got_t), 0
      for _, v in ipairs(want) do scale = math.max(scale, math.abs(v[1]), math.abs(v[2])) end
      local tol = tolerance(case, scale)
      for i, v in ipairs(want) do
        local g = got[i]
        local same_inf = v[1] == g[1] and v[2] == g[2]
        local err = math.max(math.abs(g[1] - v[1]), math.abs(g[2] - v[2]))
        if not same_inf and not (err <= tol) then -- luacheck: ignore 581 (NaN fails too)
          fail(("output %d element %d: NumPy %.9g%+.9gi, dlx %.9g%+.9gi (tolerance %g)"):format(
            k, i, v[1], v[2], g[1], g[2], tol))
        end
      end
    end
  end
end

-- A Python with NumPy 2 (NumPy 1 batches solve's 1-D B otherwise): DLX_PYTHON, the venv that
-- ctest's interop.python.numpy2.venv makes in build/, or python3; nil when none has NumPy 2.
local function python_with_numpy2()
  local candidates = { "build/.venv-numpy2/bin/python", "python3", "/usr/bin/python3" }
  if os.getenv("DLX_PYTHON") then table.insert(candidates, 1, os.getenv("DLX_PYTHON")) end
  for _, python in ipairs(candidates) do
    local command = "env -u LD_PRELOAD " .. python
    if os.execute(command .. " -c 'import numpy, sys; sys.exit(numpy.__version__ < \"2\")' " ..
        ">/dev/null 2>&1") == true then
      return command
    end
  end
end

describe("dlx.linalg's decompositions against NumPy 2", function()
  local python = python_with_numpy2()
  N.it_holds(it, pending, "linalg decompositions",
    { seed = SEED, count = CASES, script = SCRIPT, case = random_case, check = check,
      python = python, missing = python == nil and "no python3 with NumPy 2 (DLX_PYTHON, or " ..
      "ctest's build/.venv-numpy2): skipped" or nil })
end)
