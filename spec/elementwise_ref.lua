--- Reference values for the elementwise specs, computed in Lua: broadcasting over nested
-- tables, and the same 2-d values laid out in several ways (contiguous, transposed, stepped,
-- negative strides). Not a spec itself: the elementwise_*_spec files require it.
local dlx = require "dlx"

local R = {}

function R.shape_of(v)
  local shape = {}
  while type(v) == "table" do
    shape[#shape + 1] = #v
    v = v[1]
  end
  return shape
end

-- The element of nested table v at index idx (1-based, one per dim of shape), where size-1 and
-- missing leading dims broadcast.
local function at(v, shape, idx, n)
  for d = 1, #shape do
    local i = idx[n - #shape + d]
    v = v[shape[d] == 1 and 1 or i]
  end
  return v
end

--- fn applied elementwise to a and b (nested tables or numbers), broadcast as NumPy.
function R.binary(fn, a, b)
  local sa, sb = R.shape_of(a), R.shape_of(b)
  local n = math.max(#sa, #sb)
  local shape = {}
  for d = 1, n do
    local x = sa[d - (n - #sa)] or 1
    local y = sb[d - (n - #sb)] or 1
    assert(x == y or x == 1 or y == 1, "the reference shapes do not broadcast")
    shape[d] = x == 1 and y or x
  end
  local idx = {}
  local function build(d)
    if d > n then return fn(at(a, sa, idx, n), at(b, sb, idx, n)) end
    local out = {}
    for i = 1, shape[d] do
      idx[d] = i
      out[i] = build(d + 1)
    end
    return out
  end
  return build(1)
end

--- fn applied to every element of a (a nested table or a number).
function R.unary(fn, a)
  if type(a) ~= "table" then return fn(a) end
  local out = {}
  for i, v in ipairs(a) do out[i] = R.unary(fn, v) end
  return out
end

local function transpose(m)
  local t = {}
  for j = 1, #m[1] do
    t[j] = {}
    for i = 1, #m do t[j][i] = m[i][j] end
  end
  return t
end

local function reversed(m)
  local r = {}
  for i = 1, #m do
    r[i] = {}
    for j = 1, #m[1] do r[i][j] = m[#m - i + 1][#m[1] - j + 1] end
  end
  return r
end

local function spread(m, fill)
  local s = {}
  for i = 1, #m do
    s[i] = {}
    for j = 1, #m[1] do
      s[i][2 * j - 1] = m[i][j]
      s[i][2 * j] = fill
    end
  end
  return s
end

--- The 2-d values m (at least 1 x 1) as tensors of dtype in four layouts: {name, tensor}.
function R.layouts(m, dtype)
  local o = { dtype = dtype }
  local fill = dtype == "bool" and false or 0
  return {
    { "contiguous", dlx.tensor(m, o) },
    { "transposed", dlx.tensor(transpose(m), o):transpose(1, 2) },
    { "stepped", dlx.tensor(spread(m, fill), o):slice(2, 1, -1, 2) },
    { "negative strides", dlx.tensor(reversed(m), o):flip() },
  }
end

--- Checks that got (nested tables) equals want elementwise: exactly, or within rel when given;
-- NaN equals NaN.
function R.same(got, want, rel, path)
  path = path or ""
  if type(want) == "table" then
    assert(type(got) == "table", "expected a table at " .. path)
    assert(#got == #want, ("size %d vs %d at %s"):format(#got, #want, path))
    for i = 1, #want do R.same(got[i], want[i], rel, path .. "[" .. i .. "]") end
    return
  end
  if want ~= want then
    assert(got ~= got, ("expected NaN at %s, got %s"):format(path, tostring(got)))
  elseif rel and type(want) == "number" and type(got) == "number" then
    local ok = got == want or math.abs(got - want) <= rel * math.max(math.abs(got), math.abs(want))
    assert(ok, ("expected %.17g, got %.17g at %s"):format(want, got, path))
  else
    assert(got == want, ("expected %s, got %s at %s"):format(tostring(want), tostring(got), path))
  end
end

return R
