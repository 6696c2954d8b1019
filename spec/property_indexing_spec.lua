-- Property test of t[{...}] against a reference on nested Lua tables: random shapes (zero sizes
-- among them), random keys of integers, ranges (negative bounds and steps, clamped ends) and {},
-- read as views and written through. DLX_PROPERTY_SEED fixes the seed (printed on every run);
-- DLX_PROPERTY_CASES the count.
local h = require "spec.helper"
local dlx = h.dlx

local SEED = tonumber(os.getenv("DLX_PROPERTY_SEED") or "") or os.time()
local CASES = tonumber(os.getenv("DLX_PROPERTY_CASES") or "") or 300

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

local function random_key(shape)
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
      local key = random_key(shape)
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
