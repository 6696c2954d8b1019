-- Property tests of dlx.matmul and dlx.einsum against NumPy 2 (tests/property/numpy_linalg.py):
-- random shapes (zero sizes and 1-d operands among them), broadcast batch dims, dtypes and
-- layouts (transposed and flipped views), and einsum over a fixed list of subscripts (traces,
-- diagonals, batched products, outer products, "...", repeated indices, implicit outputs, chains
-- of up to 5 operands contracted in the greedy order) with random sizes. Values are small
-- integers, so every product is exact in every dtype and the comparison is exact.
-- DLX_PROPERTY_SEED fixes the seed (printed on every run); DLX_PROPERTY_CASES the count.
local h = require "spec.helper"
local N = require "spec.property_numpy"
local dlx = h.dlx

local SEED, CASES = N.seed(), N.cases(200)
local SCRIPT = "tests/property/numpy_linalg.py"

local DTYPES = { "float32", "float64", "complex64", "complex128", "float16", "bfloat16", "int32",
  "int64", "int8", "bool" }

-- Subscripts with the sizes of their labels drawn per case ("..." draws 0 to 2 dims).
local EINSUM = {
  "ij,jk->ik", "ij,jk", "ij,kj->ik", "ji,jk->ik", "bij,bjk->bik", "bij,jk->bik", "ij,bjk->bik",
  "ii->i", "ii", "ii->", "iji->j", "ij->ji", "ij->", "ij->i", "ij->j", "i,i->", "i,i", "i,j->ij",
  "i,j", "ij,j->i", "j,ij->i", "ijk->kji", "ijk,ikl->ijl", "ij,ij->ij", "ij,ij->", "ij,ji->",
  "...ij,...jk->...ik", "...ij,jk->...ik", "...i,...i->...", "i...,i...->...", "...ii->...i",
  "ab,bc,cd->ad", "ab,bc,cd", "i,j,k->ijk", "ij,jk,ki->", "ijk,jkl->il", "aij,ajk,akl->ail",
  "i->", "iij->j", "ab,cd->abcd", "ab,cd->cadb", "ba,ab->", "abc,c->ab", "abc,b->ac",
  "...,...->...", "a...,a...->...",
}
-- Three operands or more, in the greedy order (dlx.einsum_path); their sums may pass what float16
-- and bfloat16 hold exactly, so they take the dtypes below.
local EINSUM_MANY = {
  "ab,bc,cd,de->ae", "a,ab,bc->c", "abc,bd,cd->a", "ij,kl,jk->il", "i,i,i->", "ab,b,c->ac",
  "ab,ab,ab->a", "ijk,jl,kl,lm->im", "ab,cd,bc,de,ea->", "a,b,c,d->abcd", "...ij,jk,...k->...i",
}
local EXACT = { "float32", "float64", "complex64", "complex128", "int32", "int64", "int8", "bool" }

local pick, numel = N.pick, N.numel

-- An operand: its field for NumPy and the dlx tensor, sometimes a transposed or flipped view of
-- the same values.
local function operand(dtype, shape)
  local values = {}
  for i = 1, numel(shape) do
    values[i] = dtype == "bool" and math.random(0, 1) or math.random(-3, 3)
  end
  local data = dlx.tensor(values, { dtype = dtype == "bool" and "int64" or dtype })
  local t = data:astype(dtype):view(shape)
  local r = math.random()
  if #shape >= 2 and r < 0.3 then
    local n = #shape
    t = t:transpose(n - 1, n):contiguous():transpose(n - 1, n)
  elseif #shape >= 1 and r < 0.5 then
    t = t:flip(1):contiguous():flip(1)
  end
  return table.concat({ dtype, table.concat(shape, ","), table.concat(values, " ") }, "|"), t
end

local function size() return math.random() < 0.1 and 0 or math.random(1, 5) end

local function matmul_case(dtypes)
  local k, nb = size(), math.random(0, 2)
  local a, b = { size(), k }, { k, size() }
  if math.random() < 0.15 then a = { k } end
  if math.random() < 0.15 then b = { k } end
  for _ = 1, nb do
    local s = size()
    if #a >= 2 then table.insert(a, 1, math.random() < 0.3 and 1 or s) end
    if #b >= 2 and math.random() < 0.7 then table.insert(b, 1, math.random() < 0.3 and 1 or s) end
  end
  return "matmul", { a, b }, dtypes
end

-- Shapes for an einsum spec: a size per letter and per "..." dim.
local function einsum_case(spec, dtypes)
  local sizes, ell = {}, {}
  for i = 1, 2 do ell[i] = size() end
  local shapes = {}
  local lhs = spec:match("^([^%-]*)") or spec
  for text in (lhs .. ","):gmatch("([^,]*),") do
    local shape, count = {}, math.random(0, 2)
    for part in text:gmatch("(%.?%.?%.?%a?)") do
      if part:sub(1, 3) == "..." then
        for i = 2 - count + 1, 2 do shape[#shape + 1] = ell[i] end
        part = part:sub(4)
      end
      if part ~= "" then
        sizes[part] = sizes[part] or size()
        shape[#shape + 1] = sizes[part]
      end
    end
    shapes[#shapes + 1] = shape
  end
  local list = {}
  for i = 1, #shapes do list[i] = dtypes[1] end
  return "einsum:" .. spec, shapes, list
end

local function random_case(id)
  local dtype = pick(DTYPES)
  local other = math.random() < 0.2 and pick({ "float32", "float64", "int64" }) or dtype
  local op, shapes, dtypes
  local r = math.random()
  if r < 0.5 then
    op, shapes, dtypes = matmul_case({ dtype, other })
  elseif r < 0.8 then
    op, shapes, dtypes = einsum_case(pick(EINSUM), { dtype })
  else
    op, shapes, dtypes = einsum_case(pick(EINSUM_MANY), { pick(EXACT) })
  end
  local fields, tensors = { id, op }, {}
  for i, shape in ipairs(shapes) do fields[2 + i], tensors[i] = operand(dtypes[i], shape) end
  return { op = op, tensors = tensors, line = table.concat(fields, "\t"),
    name = ("case %d (seed %d): %s of %s"):format(id, SEED, op, table.concat(fields, "  ", 3)) }
end

-- The values of t as NumPy's script writes them: real parts, then imaginary parts.
local function values_of(t)
  if t.dtype:match("complex") then
    local re, im = N.flat(t:real():astype("float64")), N.flat(t:imag():astype("float64"))
    return table.move(im, 1, #im, #re + 1, re)
  end
  return N.flat(t:astype(t.dtype == "bool" and "bool" or "float64"))
end

local function check(case, result)
  local function fail(why) error(case.name .. ": " .. why, 0) end
  local shape, values = result:match("^[^\t]*\t([^\t]*)\t(.*)$")
  local ok, t = pcall(function()
    if case.op == "matmul" then return dlx.matmul(case.tensors[1], case.tensors[2]) end
    return dlx.einsum(case.op:sub(8), table.unpack(case.tensors))
  end)
  if shape == nil then
    if ok then fail("NumPy refused it (" .. result .. ") but dlx gave shape {"
      .. table.concat(t.shape, ",") .. "}") end
    if h.error_class(t) ~= "ValueError" then fail("expected a ValueError, got " .. tostring(t)) end
    return
  end
  if not ok then fail("dlx refused it: " .. tostring(t)) end
  N.check_shape(t, shape, fail)
  N.check_values(values, values_of(t), fail)
end

describe("matmul and einsum against NumPy", function()
  N.it_holds(it, pending, "linalg",
    { seed = SEED, count = CASES, script = SCRIPT, case = random_case, check = check })
end)
