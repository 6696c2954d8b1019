-- Random numbers on the CPU: known values, reproducibility (seeds, generators, offsets, thread
-- counts, strided views), the distributions' statistics at fixed seeds (so these cannot flake),
-- and the errors.
local h = require "spec.helper"
local dlx = h.dlx

local cpu = {device = "cpu"}

local function opts(extra)
  local o = {device = "cpu"}
  for k, v in pairs(extra or {}) do o[k] = v end
  return o
end

-- Mean and variance of a float tensor (in float64).
local function moments(t)
  local x = t:astype("float64")
  return x:mean():item(), x:var({}, false, 0):item()
end

-- Pearson's chi-square of counts against equal expectations.
local function chi_square(counts, n)
  local bins, stat = #counts, 0
  for _, c in ipairs(counts) do stat = stat + (c - n / bins) ^ 2 / (n / bins) end
  return stat
end

describe("random numbers", function()
  local saved
  before_each(function() saved = dlx.get_num_threads() end)
  after_each(function() dlx.set_num_threads(saved) end)

  it("draws Philox4x32-10's words: seed 0 gives the known-answer block", function()
    -- Philox4x32-10(counter 0, key 0) = 6627e8d5 e169c58d bc57ac4c 9b00dbd8 (Random123)
    dlx.manual_seed(0)
    local got = dlx.rand(4, cpu):totable()
    local words = {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}
    for i, w in ipairs(words) do assert.equal((w >> 8) / (1 << 24), got[i]) end
    dlx.manual_seed(0)
    got = dlx.rand(2, opts {dtype = "float64"}):totable()
    assert.equal(((0x6627e8d5 << 32 | 0xe169c58d) >> 11) / 2.0 ^ 53, got[1])
    assert.equal(((0xbc57ac4c << 32 | 0x9b00dbd8) >> 11) / 2.0 ^ 53, got[2])
    dlx.manual_seed(0)
    got = dlx.randint(0, 10, {4}, cpu):totable()
    for i, w in ipairs(words) do assert.equal((w * 10) >> 32, got[i]) end
  end)

  it("repeats a seed, and generators are independent of the default one", function()
    dlx.manual_seed(123)
    local a = dlx.randn({1000}, cpu):tobytes()
    local b = dlx.randn({1000}, cpu):tobytes()
    assert.is_false(a == b)
    assert.equal(a, dlx.randn({1000}, opts {generator = dlx.Generator(123)}):tobytes())
    dlx.manual_seed(123)
    assert.equal(a, dlx.randn({1000}, cpu):tobytes())
    assert.equal(b, dlx.randn({1000}, cpu):tobytes())
  end)

  it("moves the offset by the blocks used, and set_offset replays", function()
    local g = dlx.Generator(9)
    assert.equal(9, g:initial_seed())
    assert.equal(0, g:get_offset())
    dlx.rand({10}, opts {generator = g}) -- 4 float32 a block
    assert.equal(3, g:get_offset())
    dlx.rand({3}, opts {generator = g, dtype = "float64"}) -- 2 float64 a block
    assert.equal(5, g:get_offset())
    dlx.randint(0, 1 << 40, {5}, opts {generator = g}) -- 2 wide integers a block
    assert.equal(8, g:get_offset())
    dlx.randperm(7, opts {generator = g})
    assert.equal(12, g:get_offset())
    local x = dlx.rand({6}, opts {generator = g}):tobytes()
    assert.equal(x, dlx.rand({6}, opts {generator = g:set_offset(12)}):tobytes())
    assert.equal(g, g:manual_seed(9))
    assert.equal(0, g:get_offset())
    assert.matches("dlx.Generator%(seed = 9, offset = 0%)", tostring(g))
    assert.equal(dlx.manual_seed(4), dlx.manual_seed(5)) -- the state's default generator
    local s = g:seed()
    assert.equal(s, g:initial_seed())
    assert.is_true(s >= 0)
  end)

  it("takes negative and large seeds modulo 2^64", function()
    local g = dlx.Generator(-1)
    assert.equal(-1, g:initial_seed())
    assert.equal(math.mininteger, dlx.Generator(math.mininteger):initial_seed())
    assert.is_false(dlx.rand(8, opts {generator = dlx.Generator(-1)}):tobytes() ==
                    dlx.rand(8, opts {generator = dlx.Generator(1)}):tobytes())
  end)

  it("gives a strided view the values of its row-major order", function()
    local t = dlx.zeros({7, 5}, cpu):transpose(1, 2)
    t:uniform_(0, 1, {generator = dlx.Generator(3)})
    local c = dlx.rand({5, 7}, opts {generator = dlx.Generator(3)})
    assert.equal(c:tobytes(), t:contiguous():tobytes())
  end)

  it("gives the same bits on 1 and 4 threads", function()
    for _, draw in ipairs {
      function() return dlx.rand({1 << 20}, opts {generator = dlx.Generator(1)}) end,
      function()
        return dlx.randn({1 << 19}, opts {dtype = "float64", generator = dlx.Generator(1)})
      end,
      function()
        return dlx.randint(-9, 9, {1 << 20}, opts {dtype = "int16", generator = dlx.Generator(1)})
      end,
    } do
      dlx.set_num_threads(1)
      local one = draw():tobytes()
      dlx.set_num_threads(4)
      assert.is_true(one == draw():tobytes())
    end
  end)

  it("rand: uniform moments and a chi-square on 100 bins", function()
    local x = dlx.rand({1 << 20}, opts {generator = dlx.Generator(2024)})
    local mean, var = moments(x)
    assert.is_true(math.abs(mean - 0.5) < 0.002, mean)
    assert.is_true(math.abs(var - 1 / 12) < 0.001, var)
    assert.is_true(x:min():item() >= 0 and x:max():item() < 1)
    local n, counts = 200000, {}
    for i = 1, 100 do counts[i] = 0 end
    for _, v in ipairs(dlx.rand({n}, opts {generator = dlx.Generator(7)}):totable()) do
      local b = math.floor(v * 100) + 1
      counts[b] = counts[b] + 1
    end
    local stat = chi_square(counts, n)
    -- 99 degrees of freedom: mean 99, sd 14
    assert.is_true(stat > 50 and stat < 160, stat)
  end)

  it("rand of float64, float16 and bfloat16: the dtype's grid in [0, 1)", function()
    for dtype, bits in pairs {float64 = 53, float16 = 11, bfloat16 = 8} do
      local x = dlx.rand({4096}, opts {dtype = dtype, generator = dlx.Generator(5)})
      assert.equal(dtype, x.dtype)
      local mean = moments(x)
      assert.is_true(math.abs(mean - 0.5) < 0.03, dtype)
      for _, v in ipairs(x:totable()) do
        local k = v * 2.0 ^ bits
        assert.is_true(v >= 0 and v < 1 and k == math.floor(k), dtype)
      end
    end
  end)

  it("randn: normal moments, tails and a chi-square of its CDF", function()
    for _, dtype in ipairs {"float32", "float64"} do
      local z = dlx.randn({1 << 20}, opts {dtype = dtype, generator = dlx.Generator(99)})
      local mean, var = moments(z)
      assert.is_true(math.abs(mean) < 0.005, mean)
      assert.is_true(math.abs(var - 1) < 0.006, var)
      local z64 = z:astype("float64")
      local third = (z64 * z64 * z64):mean():item()
      local fourth = (z64 * z64 * z64 * z64):mean():item()
      assert.is_true(math.abs(third) < 0.02, third)
      assert.is_true(math.abs(fourth - 3) < 0.05, fourth)
      local within = z64:abs():lt(1):astype("float64"):mean():item()
      assert.is_true(math.abs(within - 0.682689) < 0.002, within)
    end
    local z = dlx.randn({1000}, opts {generator = dlx.Generator(1)}):normal_(10, 0.25)
    local mean, var = moments(z)
    assert.is_true(math.abs(mean - 10) < 0.05 and math.abs(var - 0.0625) < 0.01)
  end)

  it("uniform_(a, b) stays in [a, b) with the right moments", function()
    local x = dlx.empty({1 << 18}, opts {dtype = "float64"})
    x:uniform_(-2, 6, {generator = dlx.Generator(8)})
    local mean, var = moments(x)
    assert.is_true(math.abs(mean - 2) < 0.03, mean)
    assert.is_true(math.abs(var - 64 / 12) < 0.05, var)
    assert.is_true(x:min():item() >= -2 and x:max():item() < 6)
    local same = dlx.full({4}, 1.5, cpu):uniform_(3, 3)
    assert.same({3, 3, 3, 3}, same:totable())
  end)

  it("randint covers [low, high) uniformly", function()
    local x = dlx.randint(-3, 7, {100000}, opts {generator = dlx.Generator(11)})
    assert.equal("int64", x.dtype)
    local counts = {}
    for i = 1, 10 do counts[i] = 0 end
    for _, v in ipairs(x:totable()) do counts[v + 4] = counts[v + 4] + 1 end
    for i = 1, 10 do assert.is_true(counts[i] > 0) end
    assert.equal(-3, x:min():item())
    assert.equal(6, x:max():item())
    local stat = chi_square(counts, 100000) -- 9 degrees of freedom
    assert.is_true(stat < 40, stat)
    local short = dlx.randint(5, {1000}, opts {dtype = "uint8"})
    assert.equal("uint8", short.dtype)
    assert.is_true(short:min():item() == 0 and short:max():item() == 4)
    local wide = dlx.randint(0, 1 << 50, {1 << 16}, opts {generator = dlx.Generator(2)})
    local mean = wide:astype("float64"):mean():item() / 2.0 ^ 50
    assert.is_true(math.abs(mean - 0.5) < 0.01, mean)
    local full = dlx.randint(math.mininteger, math.maxinteger, {64}, cpu)
    assert.is_true(full:min():item() < 0 and full:max():item() > 0)
    assert.same({7, 7, 7}, dlx.randint(7, 8, {3}, cpu):totable())
  end)

  it("randperm is a 1-based permutation", function()
    local p = dlx.randperm(1000, opts {generator = dlx.Generator(12)})
    assert.equal("int64", p.dtype)
    local v, seen, fixed = p:totable(), {}, 0
    for i, x in ipairs(v) do
      assert.is_true(x >= 1 and x <= 1000 and not seen[x])
      seen[x] = true
      if x == i then fixed = fixed + 1 end
    end
    assert.is_true(fixed < 8)
    assert.same({}, dlx.randperm(0, cpu):totable())
    assert.same({1}, dlx.randperm(1, cpu):totable())
    assert.equal("int16", dlx.randperm(10, opts {dtype = "int16"}).dtype)
  end)

  it("refuses bad arguments with the right class", function()
    h.raises("ValueError", dlx.randint, 3, 3, {2}, cpu)
    h.raises("ValueError", dlx.randint, 5, 2, {2}, cpu)
    h.raises("ValueError", dlx.randint, 0, 300, {2}, opts {dtype = "uint8"})
    h.raises("ValueError", dlx.randint, -1, 3, {2}, opts {dtype = "uint32"})
    h.raises("TypeError", dlx.randint, 0, 3, {2}, opts {dtype = "float32"})
    h.raises("TypeError", dlx.randint, 0, 3, {2}, opts {dtype = "bool"})
    h.raises("ValueError", dlx.randint, 0.5, 3, {2}, cpu)
    h.raises("TypeError", dlx.randint, "0", 3, {2}, cpu)
    h.raises("ValueError", dlx.randperm, -1, cpu)
    h.raises("TypeError", dlx.randperm, 3, opts {dtype = "float32"})
    h.raises("ValueError", dlx.randperm, 300, opts {dtype = "int8"})
    h.raises("TypeError", dlx.rand, {2}, opts {dtype = "int32"})
    h.raises("TypeError", dlx.randn, {2}, opts {dtype = "complex64"})
    h.raises("ValueError", dlx.rand, {-1}, cpu)
    h.raises("TypeError", dlx.rand, {2}, opts {generator = 5})
    h.raises("TypeError", dlx.rand, {2}, {generatr = dlx.Generator()})
    h.raises("TypeError", dlx.manual_seed, "1")
    h.raises("ValueError", dlx.manual_seed, 1.5)
    h.raises("ValueError", dlx.Generator(1).set_offset, dlx.Generator(1), -1)
    local t = dlx.zeros({3}, cpu)
    h.raises("ValueError", t.uniform_, t, 2, 1)
    h.raises("ValueError", t.uniform_, t, 0, math.huge)
    h.raises("ValueError", t.normal_, t, 0, -1)
    h.raises("TypeError", t.normal_, t, "0")
    h.raises("TypeError", t.uniform_, t, 0, 1, {dtype = "float64"})
    local ints = dlx.zeros({3}, opts {dtype = "int32"})
    h.raises("TypeError", ints.uniform_, ints)
    h.raises("ValueError", t:expand({2, 3}).uniform_, t:expand({2, 3}))
    assert.same({0, 0, 0}, t:totable())
  end)

  it("closes a result whose fill failed before raising", function()
    collectgarbage("stop")
    local before = dlx.memory_allocated("cpu")
    h.raises("TypeError", dlx.rand, {1000}, opts {dtype = "int64"})
    h.raises("TypeError", dlx.randn, {1000}, opts {dtype = "int32"})
    local after = dlx.memory_allocated("cpu")
    collectgarbage("restart")
    assert.equal(before, after)
  end)

  describe("the CPU against itself on 3 threads", function()
    before_each(function() dlx.set_num_threads(3) end)
    require "spec.random_device" ("cpu", it)
  end)
end)
