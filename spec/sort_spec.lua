-- Sorting on the CPU: sort, argsort, topk and unique against known results and a stable
-- reference sort in Lua, for every real dtype, along every dim, on views, 0-d and zero-size
-- tensors, and the errors.
local h = require "spec.helper"
local dlx = h.dlx

local nan, inf = 0 / 0, math.huge

-- The reference order: NaN after everything (equal to each other), -0.0 equal to 0.0.
local function less(a, b)
  if a ~= a then return false end
  if b ~= b then return true end
  return a < b
end

-- The 1-based positions of a list in stable order (descending reverses the order of keys only).
local function ref_argsort(list, descending)
  local pos = {}
  for i = 1, #list do pos[i] = i end
  table.sort(pos, function(i, j)
    local a, b = list[i], list[j]
    if descending then a, b = b, a end
    if less(a, b) then return true end
    if less(b, a) then return false end
    return i < j
  end)
  return pos
end

-- Pseudo-random lists with many equal values (an LCG: the same lists on every run).
local function make_list(n, pool, seed)
  local x, list = seed, {}
  for i = 1, n do
    x = (x * 1103515245 + 12345) % 2147483648
    list[i] = pool[x % #pool + 1]
  end
  return list
end

local FLOAT_POOL = {nan, -inf, inf, -0.0, 0.0, 1.5, -1.5, 2, -2, 0.25, 1000, -nan}
local POOLS = {
  bool = {true, false},
  int8 = {-128, 127, 0, -1, 1, 5},
  int16 = {-32768, 32767, 0, -1, 300},
  int32 = {-2147483648, 2147483647, 0, -1, 70000},
  int64 = {math.mininteger, math.maxinteger, 0, -1, 1099511627776},
  uint8 = {0, 255, 1, 128, 127},
  uint16 = {0, 65535, 1, 32768},
  uint32 = {0, 4294967295, 1, 2147483648},
  uint64 = {0, 1, 1099511627776, 12},
  float16 = FLOAT_POOL,
  bfloat16 = FLOAT_POOL,
  float32 = FLOAT_POOL,
  float64 = FLOAT_POOL,
}

local function as_numbers(list)
  local out = {}
  for i, v in ipairs(list) do
    if v == true then out[i] = 1 elseif v == false then out[i] = 0 else out[i] = v end
  end
  return out
end

-- The values a reference order picks, compared by bits through 1/x for the zeros.
local function assert_same_values(want, got)
  assert.are.equal(#want, #got)
  for i = 1, #want do
    local a, b = want[i], got[i]
    if type(a) == "number" and a ~= a then
      assert.is_true(b ~= b, "NaN expected at " .. i)
    else
      assert.are.equal(a, b, "at " .. i)
      if a == 0 and type(a) == "number" then
        assert.are.equal(1 / a, 1 / b, "zero sign at " .. i)
      end
    end
  end
end

describe("sort", function()
  it("orders known values stably, NaN last, -0.0 and 0.0 equal", function()
    local t = dlx.tensor {3, 1, 2, 1, nan, -0.0, 0.0, -1}
    local v, i = t:sort()
    assert.are.same({8, 6, 7, 2, 4, 3, 1, 5}, i:totable())
    assert_same_values({-1, -0.0, 0.0, 1, 1, 2, 3, nan}, v:totable())
    v, i = t:sort(1, true)
    assert.are.same({5, 1, 3, 2, 4, 6, 7, 8}, i:totable())
    assert_same_values({nan, 3, 2, 1, 1, -0.0, 0.0, -1}, v:totable())
    assert.are.equal("int64", i.dtype)
    assert.are.equal("float32", v.dtype)
  end)

  it("keeps equal keys in order when descending, as torch.sort(stable = True)", function()
    local _, i = dlx.tensor({1, 2, 1, 2, 1}):sort(-1, true)
    assert.are.same({2, 4, 1, 3, 5}, i:totable())
  end)

  for _, dtype in ipairs {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
    "uint64", "float16", "bfloat16", "float32", "float64"} do
    it("matches a stable reference sort for " .. dtype, function()
      for _, n in ipairs {1, 2, 7, 300} do
        local list = make_list(n, POOLS[dtype], n * 7 + #dtype)
        local t = dlx.tensor(list, {dtype = dtype})
        local numbers = as_numbers(t:totable())
        for _, descending in ipairs {false, true} do
          local v, i = t:sort(1, descending)
          local want = ref_argsort(numbers, descending)
          assert.are.same(want, i:totable())
          local want_values = {}
          for k, p in ipairs(want) do want_values[k] = t:totable()[p] end
          assert_same_values(want_values, v:totable())
          assert.are.equal(dtype, v.dtype)
          assert.are.same(want, t:argsort(1, descending):totable())
        end
      end
    end)
  end

  it("orders uint64 above 2^63 as unsigned", function()
    local t = dlx.tensor({5, -1, 0, math.mininteger}):astype("uint64") -- 2^64 - 1 and 2^63
    local _, i = t:sort()
    assert.are.same({3, 1, 4, 2}, i:totable())
  end)

  it("sorts along any dim, the last one by default", function()
    local t = dlx.tensor {{3, 1, 2}, {0, 5, 4}}
    local v, i = t:sort()
    assert.are.same({{1, 2, 3}, {0, 4, 5}}, v:totable())
    assert.are.same({{2, 3, 1}, {1, 3, 2}}, i:totable())
    v, i = t:sort(1)
    assert.are.same({{0, 1, 2}, {3, 5, 4}}, v:totable())
    assert.are.same({{2, 1, 1}, {1, 2, 2}}, i:totable())
    v = t:sort(-2, true)
    assert.are.same({{3, 5, 4}, {0, 1, 2}}, v:totable())
    assert.are.same({3, 1}, v.strides) -- C-contiguous
  end)

  it("sorts the rows of a 3-d tensor along its middle dim", function()
    local t = dlx.arange(24):reshape {2, 3, 4}:flip(2)
    local v, i = t:sort(2)
    assert.are.same(dlx.arange(24):reshape {2, 3, 4}:totable(), v:totable())
    assert.are.same({3, 2, 1}, i:select(1, 2):select(2, 4):totable())
  end)

  it("reads transposed and stepped views", function()
    local base = dlx.tensor {{4, 9, 1}, {7, 2, 8}}
    local v, i = base:transpose(1, 2):sort(1)
    assert.are.same({{1, 2}, {4, 7}, {9, 8}}, v:totable())
    assert.are.same({{3, 2}, {1, 1}, {2, 3}}, i:totable())
    v, i = dlx.tensor({9, 0, 3, 0, 1, 0, 2}):slice(1, 1, 7, 2):sort()
    assert.are.same({1, 2, 3, 9}, v:totable())
    assert.are.same({3, 4, 2, 1}, i:totable())
    v = dlx.tensor({1, 2, 3}):flip(1):sort()
    assert.are.same({1, 2, 3}, v:totable())
  end)

  it("gives 0-d and zero-size tensors back in their shape", function()
    local v, i = dlx.tensor(5):sort()
    assert.are.same({}, v.shape)
    assert.are.equal(5, v:item())
    assert.are.equal(1, i:item())
    v, i = dlx.zeros {3, 0}:sort(1)
    assert.are.same({3, 0}, v.shape)
    assert.are.same({3, 0}, i.shape)
    v = dlx.zeros {0}:argsort()
    assert.are.same({0}, v.shape)
  end)

  it("gives the same result on 1 and 2 threads", function()
    local saved = dlx.get_num_threads()
    local t = dlx.tensor(make_list(4096, FLOAT_POOL, 3)):reshape {64, 64}
    dlx.set_num_threads(1)
    local _, one = t:sort(1)
    dlx.set_num_threads(2)
    local _, two = t:sort(1)
    dlx.set_num_threads(saved)
    assert.is_true(dlx.equal(one, two))
  end)

  it("refuses complex tensors, bad dims and bad flags", function()
    h.raises("TypeError", function() dlx.tensor({1, 2}, {dtype = "complex64"}):sort() end)
    h.raises("TypeError", function() dlx.tensor({1, 2}, {dtype = "complex128"}):argsort() end)
    h.raises("ValueError", function() dlx.tensor({1, 2}):sort(2) end)
    h.raises("ValueError", function() dlx.tensor({1, 2}):sort(0) end)
    h.raises("TypeError", function() dlx.tensor({1, 2}):sort(1, "yes") end)
    h.raises("TypeError", function() dlx.tensor({1, 2}):sort("1") end)
  end)
end)

-- Long rows are cut into blocks over the threads when there are fewer rows than threads and
-- each block gets at least a grain: 2^20 bytes of (element + 8-byte position) each.
describe("sort of long rows on several threads", function()
  local saved
  before_each(function() saved = dlx.get_num_threads() end)
  after_each(function() dlx.set_num_threads(saved) end)

  local SIZE = {bool = 1, int8 = 1, uint8 = 1, int16 = 2, uint16 = 2, float16 = 2, bfloat16 = 2,
    int32 = 4, uint32 = 4, float32 = 4, int64 = 8, uint64 = 8, float64 = 8}
  local DTYPES = {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "bfloat16", "float32", "float64"}

  -- n numbers of the dtype: many equal ones, every digit varied, floats with NaN, inf, -0.0.
  local function long_list(n, dtype, seed)
    local x, list, float = seed, {}, dtype:match("float") ~= nil
    for i = 1, n do
      x = (x * 1103515245 + 12345) % 2147483648
      local v = (x >> 8) % 3001
      if dtype == "bool" then
        v = v % 2 == 0
      elseif float then
        v = x % 53 == 0 and FLOAT_POOL[x % #FLOAT_POOL + 1] or (v - 1500) / 7
      elseif not dtype:match("^u") then
        v = v - 1500
      end
      list[i] = v
    end
    return dlx.tensor(list, {dtype = dtype})
  end

  -- A row is in order when no element's key is below the one before it, and equal keys keep
  -- their positions' order.
  local function assert_sorted_stably(v, i, descending)
    local values, positions, bad = as_numbers(v:totable()), i:totable(), nil
    for k = 2, #values do
      local a, b = values[k - 1], values[k]
      if descending then a, b = b, a end
      if less(b, a) or (not less(a, b) and positions[k - 1] > positions[k]) then
        bad = bad or k
      end
    end
    assert.is_nil(bad, "out of order or unstable at this place")
  end

  -- The grain's lengths around 2, 3 and 4 blocks, uneven blocks included.
  local function lengths(dtype)
    local g = (1 << 20) // (SIZE[dtype] + 8)
    return {2 * g - 1, 2 * g, 2 * g + 1, 3 * g + 2, 4 * g + 3}
  end

  for _, dtype in ipairs(DTYPES) do
    it("gives " .. dtype .. " the one-thread result bit for bit on 2, 3 and 4 threads", function()
      local all = long_list(lengths(dtype)[5], dtype, #dtype)
      for _, n in ipairs(lengths(dtype)) do
        local t = all:slice(1, 1, n)
        for _, descending in ipairs {false, true} do
          dlx.set_num_threads(1)
          local v1, i1 = t:sort(1, descending)
          if n == lengths(dtype)[2] then assert_sorted_stably(v1, i1, descending) end
          for threads = 2, 4 do
            dlx.set_num_threads(threads)
            local v, i = t:sort(1, descending)
            assert.are.equal(v1:tobytes(), v:tobytes(), n .. " on " .. threads .. " threads")
            assert.are.equal(i1:tobytes(), i:tobytes(), n .. " on " .. threads .. " threads")
          end
        end
      end
    end)
  end

  it("sorts a few long rows, argsort, topk and unique as on one thread", function()
    local t = long_list(3 * 200003, "float32", 5)
    local rows = t:reshape {3, 200003}
    local function results()
      local v, i = rows:sort(2, true)
      local tv, ti = t:topk(1000)
      local u, inverse, counts = t:unique {return_inverse = true, return_counts = true}
      return {v, i, rows:argsort(2), rows:transpose(1, 2):argsort(1), tv, ti, u, inverse, counts}
    end
    dlx.set_num_threads(1)
    local one = results()
    assert_sorted_stably(one[1]:select(1, 3), one[2]:select(1, 3), true)
    for threads = 2, 4 do
      dlx.set_num_threads(threads)
      for k, r in ipairs(results()) do
        assert.are.equal(one[k]:tobytes(), r:tobytes(), "result " .. k .. " on " .. threads)
      end
    end
  end)
end)

describe("topk", function()
  it("gives the k largest in order, NaN first, as torch.topk", function()
    local t = dlx.tensor {3, nan, 1, 5, 5, 2}
    local v, i = t:topk(3)
    assert_same_values({nan, 5, 5}, v:totable())
    assert.are.same({2, 4, 5}, i:totable())
    v, i = t:topk(2, 1, false)
    assert.are.same({1, 2}, v:totable())
    assert.are.same({3, 6}, i:totable())
  end)

  it("works along a dim, with k = 0 and k = n", function()
    local t = dlx.tensor {{1, 9}, {8, 2}, {5, 5}}
    local v, i = t:topk(2, 1)
    assert.are.same({{8, 9}, {5, 5}}, v:totable())
    assert.are.same({{2, 1}, {3, 3}}, i:totable())
    v, i = t:topk(0, 1)
    assert.are.same({0, 2}, v.shape)
    assert.are.same({0, 2}, i.shape)
    v = t:topk(2)
    assert.are.same({{9, 1}, {8, 2}, {5, 5}}, v:totable())
    v = dlx.tensor(4):topk(1)
    assert.are.equal(4, v:item())
    v = dlx.tensor(4):topk(0)
    assert.are.same({0}, v.shape)
  end)

  it("refuses k out of range and complex tensors", function()
    h.raises("ValueError", function() dlx.tensor({1, 2}):topk(3) end)
    h.raises("ValueError", function() dlx.tensor({1, 2}):topk(-1) end)
    h.raises("TypeError", function() dlx.tensor({1, 2}):topk() end)
    h.raises("TypeError", function() dlx.tensor({1, 2}, {dtype = "complex64"}):topk(1) end)
  end)
end)

describe("unique", function()
  it("gives the sorted distinct values, with inverse and counts", function()
    local t = dlx.tensor {{3, 1, 3}, {2, 1, 1}}
    local u, inverse, counts = t:unique {return_inverse = true, return_counts = true}
    assert.are.same({1, 2, 3}, u:totable())
    assert.are.same({{3, 1, 3}, {2, 1, 1}}, inverse:totable())
    assert.are.same({3, 1, 2}, counts:totable())
    assert.are.equal("int64", u.dtype)
    local _, c = t:unique {return_counts = true}
    assert.are.same({3, 1, 2}, c:totable())
    assert.are.equal(1, select("#", t:unique()))
  end)

  it("makes one value of -0.0 and 0.0 and one of every NaN, as np.unique", function()
    local t = dlx.tensor {0.0, nan, -0.0, 1, -nan, nan}
    local u, inverse, counts = t:unique {return_inverse = true, return_counts = true}
    assert_same_values({0.0, 1, nan}, u:totable())
    assert.are.same({1, 3, 1, 2, 3, 3}, inverse:totable())
    assert.are.same({2, 1, 3}, counts:totable())
  end)

  it("works for every real dtype, 0-d, zero-size and views", function()
    for _, dtype in ipairs {"bool", "int8", "uint64", "float16", "bfloat16", "float64"} do
      local u = dlx.tensor({1, 0, 1, 1}, {dtype = dtype}):unique()
      assert.are.equal(dtype, u.dtype)
      assert.are.same(as_numbers({0, 1}), as_numbers(u:totable()))
    end
    local u, inverse = dlx.tensor(7):unique {return_inverse = true}
    assert.are.same({7}, u:totable())
    assert.are.same({}, inverse.shape)
    u = dlx.zeros {2, 0}:unique()
    assert.are.same({0}, u.shape)
    u = dlx.tensor({{1, 2}, {3, 1}}):transpose(1, 2):unique()
    assert.are.same({1, 2, 3}, u:totable())
  end)

  it("refuses complex tensors and bad options", function()
    h.raises("TypeError", function() dlx.tensor({1, 2}, {dtype = "complex64"}):unique() end)
    h.raises("TypeError", function() dlx.tensor({1, 2}):unique(true) end)
    h.raises("TypeError", function() dlx.tensor({1, 2}):unique {return_counts = 1} end)
  end)
end)

describe("sorting against the device comparisons' reference", function()
  -- spec/sort_device.lua's comparisons run on the CPU itself, so that they are known to pass
  -- where the devices agree with the CPU.
  require "spec.sort_device" ("cpu", it)
end)
