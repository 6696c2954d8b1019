--- A plain-Lua reference for the property specs: arrays as {shape = {...}, values = {...}} in
-- row-major order (booleans, Lua integers or floats, complex as {re =, im =}), with the views,
-- casts and reductions of dlx written the obvious way, element by element. It shares no code
-- with dlx, so agreement is evidence.
local R = {}

-- ---- dtypes

local INT_BITS = { int8 = 8, int16 = 16, int32 = 32, int64 = 64 }
local UINT_BITS = { uint8 = 8, uint16 = 16, uint32 = 32, uint64 = 64 }
local FLOAT_FORMAT = { -- significand bits after the point, lowest normal exponent, largest finite
  float16 = { 10, -14, 65504.0 },
  bfloat16 = { 7, -126, 3.3895313892515355e38 },
  float32 = { 23, -126, 3.4028234663852886e38 },
}

function R.kind(dtype)
  if dtype == "bool" then return "bool" end
  if INT_BITS[dtype] then return "int" end
  if UINT_BITS[dtype] then return "uint" end
  if dtype:find("^complex") then return "complex" end
  return "float"
end

-- The exponent of the leading bit of a > 0.
local function exponent(a)
  local e = math.floor(math.log(a, 2))
  while 2.0 ^ e > a do e = e - 1 end
  while 2.0 ^ (e + 1) <= a do e = e + 1 end
  return e
end

--- x rounded to nearest even with `bits` significand bits after the point; overflow gives inf.
local function round_float(x, format)
  local bits, min_exp, max_finite = format[1], format[2], format[3]
  if x ~= x or x == 0 or x == math.huge or x == -math.huge then return x end
  local a = math.abs(x)
  local quantum = 2.0 ^ (math.max(exponent(a), min_exp) - bits)
  local q = a / quantum
  local r = math.floor(q)
  local rest = q - r
  if rest > 0.5 or (rest == 0.5 and r % 2 == 1) then r = r + 1 end
  local y = r * quantum
  if y > max_finite then y = math.huge end
  return x < 0 and -y or y
end

-- An integer (Lua integer, wrapping) brought into a `bits`-bit two's complement range.
local function wrap(v, bits, signed)
  if bits == 64 then return v end
  local m = 1 << bits
  v = v & (m - 1)
  if signed and v >= m >> 1 then v = v - m end
  return v
end

-- float -> integer type: toward zero, NaN gives 0, out of range saturates (dlx's rule).
local function float_to_int(x, bits, signed)
  if x ~= x then return 0 end
  local lo = signed and -(2.0 ^ (bits - 1)) or 0.0
  local hi = signed and 2.0 ^ (bits - 1) or 2.0 ^ bits
  if x <= lo then return math.tointeger(lo) or math.mininteger end
  if x >= hi then -- the largest value; uint64's does not fit a Lua integer: -1 wraps to it
    if bits == 64 then return signed and math.maxinteger or -1 end
    return math.tointeger(hi) - 1
  end
  local t = x < 0 and math.ceil(x) or math.floor(x)
  if not signed and bits == 64 and t >= 2.0 ^ 63 then return math.tointeger(t - 2.0 ^ 64) end
  return math.tointeger(t)
end

local function is_complex(v) return type(v) == "table" end

local function to_number(v)
  if type(v) == "boolean" then return v and 1 or 0 end
  if is_complex(v) then return v.re end
  return v
end

-- A uint64 kept in a Lua integer (two's complement) as the float it stands for, rounded once:
-- halve it keeping the lost bit as a sticky bit (round to odd), convert, then double exactly.
-- (v + 2.0 ^ 64 would round twice: v to a float, then the sum.)
local function uint64_float(v)
  if v >= 0 then return v + 0.0 end
  return ((v >> 1) | (v & 1)) * 2.0
end

--- v, a value of dtype `from`, cast to dtype `to`.
function R.cast(v, from, to)
  local k_from, k_to = R.kind(from), R.kind(to)
  if k_to == "bool" then
    if is_complex(v) then return v.re ~= 0 or v.im ~= 0 end
    if type(v) == "boolean" then return v end
    return v ~= 0
  end
  if k_to == "complex" then
    if is_complex(v) then
      if to == "complex64" then
        return { re = round_float(v.re, FLOAT_FORMAT.float32),
          im = round_float(v.im, FLOAT_FORMAT.float32) }
      end
      return { re = v.re, im = v.im }
    end
    return R.cast({ re = R.cast(v, from, "float64"), im = 0.0 }, "complex128", to)
  end
  local n = to_number(v)
  if k_to == "float" then
    if k_from == "uint" and from == "uint64" then n = uint64_float(n) end
    n = n + 0.0
    if to == "float64" then return n end
    return round_float(n, FLOAT_FORMAT[to])
  end
  local bits, signed = INT_BITS[to] or UINT_BITS[to], k_to == "int"
  if math.type(n) == "float" then return float_to_int(n, bits, signed) end
  return wrap(n, bits, signed)
end

-- ---- arrays and views (dims 1-based, as in dlx)

local numel = require("spec.helper").numel
R.numel = numel
R.uint64_float = uint64_float

-- Calls fn(index) for every index of shape in row-major order (index is reused).
local function each_index(shape, fn)
  local n, index = numel(shape), {}
  if n == 0 then return end
  for d = 1, #shape do index[d] = 1 end
  for _ = 1, n do
    fn(index)
    for d = #shape, 1, -1 do
      index[d] = index[d] + 1
      if index[d] <= shape[d] then break end
      index[d] = 1
    end
  end
end
R.each_index = each_index

local function offset_of(shape, index)
  local off = 0
  for d = 1, #shape do off = off * shape[d] + (index[d] - 1) end
  return off + 1
end

-- A new array of `shape` whose element at index is a.values at source(index).
local function gather(a, shape, source)
  local values = {}
  each_index(shape, function(index)
    values[#values + 1] = a.values[offset_of(a.shape, source(index))]
  end)
  return { shape = shape, values = values }
end

function R.permute(a, dims)
  local shape = {}
  for i, d in ipairs(dims) do shape[i] = a.shape[d] end
  return gather(a, shape, function(index)
    local src = {}
    for i, d in ipairs(dims) do src[d] = index[i] end
    return src
  end)
end

--- Elements first, first + step, ... while within [first, last] (or [last, first] for a negative
-- step); first and last are in range.
function R.slice(a, dim, first, last, step)
  local shape = { table.unpack(a.shape) }
  local count = 0
  if step > 0 and last >= first then count = (last - first) // step + 1 end
  if step < 0 and first >= last then count = (first - last) // -step + 1 end
  shape[dim] = count
  return gather(a, shape, function(index)
    local src = { table.unpack(index) }
    src[dim] = first + (index[dim] - 1) * step
    return src
  end)
end

function R.flip(a, dim)
  return gather(a, a.shape, function(index)
    local src = { table.unpack(index) }
    src[dim] = a.shape[dim] + 1 - index[dim]
    return src
  end)
end

function R.select(a, dim, i)
  local shape = { table.unpack(a.shape) }
  table.remove(shape, dim)
  return gather(a, shape, function(index)
    local src = { table.unpack(index) }
    table.insert(src, dim, i)
    return src
  end)
end

function R.unsqueeze(a, dim)
  local shape = { table.unpack(a.shape) }
  table.insert(shape, dim, 1)
  return { shape = shape, values = a.values }
end

--- Size-1 dims broadcast to `shape` (same ndim).
function R.expand(a, shape)
  return gather(a, shape, function(index)
    local src = {}
    for d = 1, #shape do src[d] = a.shape[d] == 1 and 1 or index[d] end
    return src
  end)
end

function R.cast_all(a, from, to)
  local values = {}
  for i, v in ipairs(a.values) do values[i] = R.cast(v, from, to) end
  return { shape = a.shape, values = values }
end

-- ---- reductions

local SUM_DTYPE = { bool = "int64", int = "int64", uint = "int64" } -- uint64 stays uint64

--- The dtype dlx's reduction gives for an input dtype.
function R.reduce_dtype(op, dtype)
  local kind = R.kind(dtype)
  if op == "sum" or op == "prod" then
    if dtype == "uint64" then return "uint64" end
    return SUM_DTYPE[kind] or dtype
  elseif op == "mean" then
    return (kind == "bool" or kind == "int" or kind == "uint") and "float64" or dtype
  elseif op == "argmin" or op == "argmax" then
    return "int64"
  elseif op == "all" or op == "any" then
    return "bool"
  end
  return dtype
end

local function add(x, y)
  if is_complex(x) then return { re = x.re + y.re, im = x.im + y.im } end
  return x + y
end

local function mul(x, y)
  if is_complex(x) then
    return { re = x.re * y.re - x.im * y.im, im = x.re * y.im + x.im * y.re }
  end
  return x * y
end

-- op over a list of values already cast to the accumulator; returns the result value.
local REDUCERS = {
  sum = function(vs, zero)
    local acc = zero
    for _, v in ipairs(vs) do acc = add(acc, v) end
    return acc
  end,
  prod = function(vs, _, one)
    local acc = one
    for _, v in ipairs(vs) do acc = mul(acc, v) end
    return acc
  end,
  min = function(vs)
    local best = vs[1]
    for _, v in ipairs(vs) do if v < best then best = v end end
    return best
  end,
  max = function(vs)
    local best = vs[1]
    for _, v in ipairs(vs) do if v > best then best = v end end
    return best
  end,
  argmin = function(vs)
    local best = 1
    for i, v in ipairs(vs) do if v < vs[best] then best = i end end
    return best
  end,
  argmax = function(vs)
    local best = 1
    for i, v in ipairs(vs) do if v > vs[best] then best = i end end
    return best
  end,
  all = function(vs)
    for _, v in ipairs(vs) do if not v then return false end end
    return true
  end,
  any = function(vs)
    for _, v in ipairs(vs) do if v then return true end end
    return false
  end,
}

-- The accumulator dtype of a reduction: exact wide types, so that rounding happens once, at the
-- end (float16 and bfloat16 sums of the specs' small values are exact in float32 too).
local function accumulator(op, dtype)
  local kind = R.kind(dtype)
  if op == "all" or op == "any" then return "bool" end
  if op == "min" or op == "max" or op == "argmin" or op == "argmax" then
    return kind == "bool" and "int64" or (kind == "float" and "float64" or dtype)
  end
  if kind == "complex" then return "complex128" end
  if kind == "float" or op == "mean" then return "float64" end
  return "int64"
end

--- a reduced over `dims` (a set {[d] = true}; every dim when nil) with keepdim; returns the
-- array (of values in the result dtype) and the result dtype.
function R.reduce(a, dtype, op, dims, keepdim)
  local out_dtype = R.reduce_dtype(op, dtype)
  local acc = accumulator(op, dtype)
  local reduced = {}
  for d = 1, #a.shape do reduced[d] = dims == nil or dims[d] == true end
  local out_shape, kept = {}, {}
  for d = 1, #a.shape do
    if not reduced[d] then
      out_shape[#out_shape + 1] = a.shape[d]
      kept[#kept + 1] = d
    elseif keepdim then
      out_shape[#out_shape + 1] = 1
    end
  end
  local groups, order = {}, {}
  each_index(a.shape, function(index)
    local key = {}
    for _, d in ipairs(kept) do key[#key + 1] = index[d] end
    local k = table.concat(key, ",")
    if not groups[k] then
      groups[k] = {}
      order[#order + 1] = k
    end
    local g = groups[k]
    g[#g + 1] = R.cast(a.values[offset_of(a.shape, index)], dtype, acc)
  end)
  local values = {}
  local zero = acc == "complex128" and { re = 0.0, im = 0.0 } or (acc == "float64" and 0.0 or 0)
  local one = acc == "complex128" and { re = 1.0, im = 0.0 } or (acc == "float64" and 1.0 or 1)
  local n_out = numel(out_shape)
  for i = 1, n_out do
    local vs = groups[order[i]] or {}
    local v
    if op == "mean" then
      v = REDUCERS.sum(vs, zero)
      if is_complex(v) then v = { re = v.re / #vs, im = v.im / #vs } else v = v / #vs end
      v = R.cast(v, acc, out_dtype)
    elseif op == "argmin" or op == "argmax" then
      v = REDUCERS[op](vs)
    elseif #vs == 0 and (op == "min" or op == "max") then
      v = nil -- dlx raises a ValueError: the extreme of nothing
    else
      v = R.cast(REDUCERS[op](vs, zero, one), acc, out_dtype)
    end
    values[i] = v
  end
  if n_out > 0 and #order == 0 and (op == "sum" or op == "prod" or op == "mean"
        or op == "all" or op == "any") then -- reducing over an empty dim
    for i = 1, n_out do
      local v = REDUCERS[op == "mean" and "sum" or op]({}, zero, one)
      if op == "mean" then -- 0 / 0, in both parts of a complex
        v = is_complex(v) and { re = 0.0 / 0.0, im = 0.0 / 0.0 } or 0.0 / 0.0
      end
      values[i] = R.cast(v, acc, out_dtype)
    end
  end
  return { shape = out_shape, values = values }, out_dtype
end

--- Flattens nested tables from t:totable() (complex leaves stay tables).
function R.flatten(v, out)
  out = out or {}
  if type(v) == "table" and v.re == nil then
    for _, x in ipairs(v) do R.flatten(x, out) end
  else
    out[#out + 1] = v
  end
  return out
end

return R
