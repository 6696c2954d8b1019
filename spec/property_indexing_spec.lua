-- Property tests of indexing. First t[{...}] against a reference on nested Lua tables: random
-- shapes (zero sizes among them), random keys of integers, ranges (negative bounds and steps,
-- clamped ends) and {}, read as views and written through. Then every indexing form and method
-- against NumPy (tests/property/numpy_indexing.py): t[i], t[{...}] and t[mask] read and written,
-- index_select, gather, scatter_, index_add_ (np.add.at), masked_select, masked_fill_ and nonzero,
-- on random shapes, dtypes and layouts (inputs, indices and masks are often strided views:
-- flipped, transposed or every other element). DLX_PROPERTY_SEED fixes the seed (printed on
-- every run); DLX_PROPERTY_CASES the count.
local h = require "spec.helper"
local N = require "spec.property_numpy"
local dlx = h.dlx

local SEED, CASES = N.seed(), N.cases(300)
local SCRIPT = "tests/property/numpy_indexing.py"

-- The positions (1-based) a range {first, last, step} takes of a dim of size n, as the docs say.
local function positions(range, n)
  local step = range[3] or 1
  local function pos(i, def)
    if i == nil then return def end
    return i < 0 and n + i + 1 or i
  end
  local first = pos(range[1], step > 0 and 1 or n)
  local last = #range == 1 and first or pos(range[2], step > 0 and n or 1)
  local out = {}
  if step > 0 then
    for i = math.max(first, 1), math.min(last, n), step do out[#out + 1] = i end
  else
    for i = math.min(first, n), math.max(last, 1), step do out[#out + 1] = i end
  end
  return out
end

-- The reference: the key's entries applied to nested tables, dim by dim.
local function reference(data, shape, key, k)
  k = k or 1
  local entry = key[k]
  if entry == nil then return data end
  local n = shape[k]
  if type(entry) == "number" then
    local i = entry < 0 and n + entry + 1 or entry
    return reference(data[i], shape, key, k + 1)
  end
  local out = {}
  for _, i in ipairs(positions(entry, n)) do
    out[#out + 1] = reference(data[i], shape, key, k + 1)
  end
  return out
end

local function random_key_entries(shape)
  local key = {}
  for d = 1, math.random(0, #shape) do
    local n, r = shape[d], math.random(4)
    if r == 1 and n > 0 then
      key[d] = math.random(2) == 1 and math.random(n) or -math.random(n)
    elseif r == 2 then
      key[d] = {}
    else
      local step = math.random(2) == 1 and 1 or ({ -2, -1, 2, 3 })[math.random(4)]
      key[d] = { math.random(-n - 1, n + 1), math.random(-n - 1, n + 1), step }
      if math.random(4) == 1 then key[d] = { key[d][1] } end
    end
  end
  return key
end

local function describe_key(key)
  local parts = {}
  for _, e in ipairs(key) do
    parts[#parts + 1] = type(e) == "number" and tostring(e) or "{" .. table.concat(e, ", ") .. "}"
  end
  return "{" .. table.concat(parts, ", ") .. "}"
end

describe("t[{...}] (property, seed " .. SEED .. ")", function()
  it("matches the reference for random shapes and keys, and writes through the view", function()
    print(("property_indexing: DLX_PROPERTY_SEED=%d"):format(SEED))
    math.randomseed(SEED)
    for case = 1, CASES do
      local shape = {}
      for d = 1, math.random(1, 4) do shape[d] = math.random(0, 4) end
      local t = dlx.arange(1, (function()
        local n = 1
        for _, s in ipairs(shape) do n = n * s end
        return n + 1
      end)(), { device = "cpu", dtype = "int64" }):reshape(shape)
      local key = random_key_entries(shape)
      local what = ("case %d, shape {%s}, key %s"):format(case, table.concat(shape, ", "),
        describe_key(key))
      local view = t[key]
      local want = reference(t:totable(), shape, key)
      local ok, err = pcall(h.exact, want, type(view) == "number" and view or view:totable())
      if not ok then error(what .. ": " .. tostring(err)) end
      if type(view) ~= "number" then
        t[key] = 0
        assert(view:eq(0):all():item(), what .. ": the write did not reach the view")
      end
    end
  end)
end)

-- ---- against NumPy

-- Every dtype NumPy has too (not bfloat16; complex values would need another encoding).
local DTYPES = { "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
  "float16", "float32", "float64" }

local pick, numel = N.pick, N.numel

local function copy(list) return table.move(list, 1, #list, 1, {}) end

-- The positions of shape in row-major order, each a table of 1-based coordinates.
local function positions_of(shape)
  local out, index = {}, {}
  local function walk(d)
    if d > #shape then
      out[#out + 1] = copy(index)
      return
    end
    for i = 1, shape[d] do
      index[d] = i
      walk(d + 1)
    end
  end
  walk(1)
  return out
end

-- t as a strided view with the same values: flipped, transposed, every other element of a
-- larger tensor, or as it is.
local function strided(t)
  local r = math.random(4)
  if t.ndim == 0 or r == 1 then return t end
  if r == 2 then return t:flip(1):contiguous():flip(1) end
  if r == 3 and t.ndim >= 2 then return t:transpose(1, t.ndim):contiguous():transpose(1, t.ndim) end
  local shape = copy(t.shape)
  shape[1] = 2 * shape[1]
  local big = dlx.zeros(shape, { dtype = t.dtype, device = "cpu" })
  if t.shape[1] == 0 then return big:slice(1, 1, 0) end
  local every_other = big:slice(1, 2, -1, 2)
  every_other:copy_(t)
  return every_other
end

-- A tensor of the given values: its field for NumPy and the dlx tensor (often strided).
local function tensor_of(dtype, shape, values)
  local t = dlx.tensor(values, { dtype = dtype, device = "cpu" }):view(shape)
  return table.concat({ dtype, table.concat(shape, ","), table.concat(values, " ") }, "|"),
    strided(t)
end

local function random_values(dtype, n)
  local values = {}
  for i = 1, n do
    if dtype == "bool" then
      values[i] = math.random(0, 1)
    elseif dtype:find("^uint") then
      values[i] = math.random(0, 5)
    else
      values[i] = math.random(-5, 5)
    end
  end
  return values
end

local function random_tensor(dtype, shape)
  return tensor_of(dtype, shape, random_values(dtype, numel(shape)))
end

-- A shape of min_ndim..3 dims of sizes 0..4 (sizes at least 1 where `full`).
local function random_shape(min_ndim, full)
  local shape = {}
  for d = 1, math.random(min_ndim, 3) do
    shape[d] = math.random(full and 1 or 0, 4)
    if not full and math.random() < 0.1 then shape[d] = 0 end
  end
  return shape
end

-- An index into a dim of size n: 1..n or -n..-1.
local function random_index(n)
  local i = math.random(n)
  return math.random() < 0.3 and i - n - 1 or i
end

local function random_key(shape)
  local parts = {}
  local key = random_key_entries(shape)
  for d, e in ipairs(key) do
    if type(e) == "number" then
      parts[d] = tostring(e)
    elseif #e == 0 then
      parts[d] = "{}"
    else
      parts[d] = "r:" .. (e[1] or "") .. (#e >= 2 and ":" .. (e[2] or "") or "") ..
        (#e >= 3 and ":" .. e[3] or "")
    end
  end
  return key, table.concat(parts, ";")
end

-- A mask for t's shape: some leading dims left out and some sizes 1 (broadcast) when `broadcast`.
local function random_mask(shape, broadcast)
  local mshape = copy(shape)
  if broadcast then
    local drop = math.random(0, #mshape)
    mshape = table.move(shape, drop + 1, #shape, 1, {})
    for d = 1, #mshape do
      if math.random() < 0.3 then mshape[d] = 1 end
    end
  end
  return random_tensor("bool", mshape)
end

-- An index of index_shape along dim for a tensor of shape, no position repeated in a line along
-- dim (scatter_'s, whose order NumPy does not keep).
local function distinct_index(shape, index_shape, dim)
  local lines, values = {}, {}
  for k, p in ipairs(positions_of(index_shape)) do
    local line_key = table.concat(p, ",", 1, dim - 1) .. "|" .. table.concat(p, ",", dim + 1)
    local order = lines[line_key]
    if order == nil then
      order = {}
      for i = 1, shape[dim] do order[i] = i end
      for i = #order, 2, -1 do
        local j = math.random(i)
        order[i], order[j] = order[j], order[i]
      end
      lines[line_key] = order
    end
    local i = order[p[dim]]
    values[k] = math.random() < 0.3 and i - shape[dim] - 1 or i
  end
  return values
end

local OPS = { "item", "key", "key_set", "mask", "mask_set", "index_select", "gather", "scatter",
  "index_add", "masked_select", "masked_fill", "nonzero" }

-- A random case: its line for NumPy, a name, and run(), which gives dlx's result.
local function random_case(id)
  local op, dtype = pick(OPS), pick(DTYPES)
  local value = dtype == "bool" and math.random(0, 1) or math.random(0, 5)
  local fields, run
  if op == "item" then
    local shape = random_shape(1, true)
    local tf, t = random_tensor(dtype, shape)
    local i = random_index(shape[1])
    fields, run = { tf, i }, function() return t[i] end
  elseif op == "key" or op == "key_set" then
    local shape = random_shape(1)
    local tf, t = random_tensor(dtype, shape)
    local key, text = random_key(shape)
    fields = { tf, text }
    if op == "key" then
      run = function() return t[key] end
    else
      fields[3] = value
      run = function()
        t[key] = value
        return t
      end
    end
  elseif op == "mask" or op == "mask_set" or op == "masked_select" or op == "masked_fill" then
    local shape = random_shape(op == "masked_select" and 0 or 1)
    local tf, t = random_tensor(dtype, shape)
    local mf, mask = random_mask(shape, op == "masked_select" or op == "masked_fill")
    fields = { tf, mf }
    if op == "mask" then
      run = function() return t[mask] end
    elseif op == "masked_select" then
      run = function() return t:masked_select(mask) end
    else
      fields[3] = value
      run = function()
        if op == "mask_set" then
          t[mask] = value
        else
          t:masked_fill_(mask, value)
        end
        return t
      end
    end
  elseif op == "nonzero" then
    local tf, t = random_tensor(dtype, random_shape(0))
    fields, run = { tf }, function() return t:nonzero() end
  else -- index_select, gather, scatter, index_add
    local shape = random_shape(1)
    local dim = math.random(#shape)
    shape[dim] = math.random(1, 4)
    local tf, t = random_tensor(dtype, shape)
    local index_shape, values = { math.random(0, 5) }, {}
    if op == "gather" or op == "scatter" then
      index_shape = {}
      for d = 1, #shape do index_shape[d] = math.random(0, shape[d]) end
      if op == "gather" then index_shape[dim] = math.random(0, 5) end
    end
    if op == "scatter" then
      values = distinct_index(shape, index_shape, dim)
    else
      for k = 1, numel(index_shape) do values[k] = random_index(shape[dim]) end
    end
    local xf, index = tensor_of("int64", index_shape, values)
    fields = { tf, dim, xf }
    if op == "index_select" then
      run = function() return t:index_select(dim, index) end
    elseif op == "gather" then
      run = function() return t:gather(dim, index) end
    else
      local src_shape = copy(shape)
      if op == "index_add" then src_shape[dim] = index_shape[1] end
      if op == "scatter" then
        for d = 1, #shape do src_shape[d] = index_shape[d] + math.random(0, 1) end
      end
      local sf, src = random_tensor(dtype, src_shape)
      fields[4] = sf
      run = function()
        if op == "scatter" then return t:scatter_(dim, index, src) end
        return t:index_add_(dim, index, src)
      end
    end
  end
  local name = ("case %d (seed %d): %s of %s"):format(id, SEED, op, table.concat(fields, "  "))
  table.insert(fields, 1, op)
  table.insert(fields, 1, id)
  return { line = table.concat(fields, "\t"), name = name, run = run }
end

-- dlx's result as a dtype, a shape and values in row-major order (a Lua value is 0-d).
local function result_of(r)
  if type(r) ~= "userdata" then return nil, "", { r } end
  return r.dtype, table.concat(r.shape, ","), N.flat(r)
end

local function check(case, result)
  local function fail(why) error(case.name .. ": " .. why, 0) end
  local dtype, shape, values = result:match("^[^\t]*\t([^\t]*)\t([^\t]*)\t([^\t]*)$")
  if not dtype or dtype == "error" then fail("NumPy refused it: " .. result) end
  local ok, r = pcall(case.run)
  if not ok then fail("dlx raised " .. tostring(r)) end
  local got_dtype, got_shape, got = result_of(r)
  if got_dtype and got_dtype ~= dtype then
    fail(("dtype %s vs NumPy's %s"):format(got_dtype, dtype))
  end
  if got_shape ~= shape then fail(("shape {%s} vs NumPy's (%s)"):format(got_shape, shape)) end
  N.check_values(values, got, fail)
end

describe("indexing against NumPy", function()
  N.it_holds(it, pending, "indexing",
    { seed = SEED, count = CASES, script = SCRIPT, case = random_case, check = check })
end)
