-- The distributions of src/common/distributions.h on the CPU: moments and chi-square tests at
-- fixed seeds (so these cannot flake), the definitions that tie them to other calls (multinomial
-- against exponential_ and rand), the generator's counter, the dtypes and the errors. Their bits
-- on the devices are spec/random_device.lua's cases.
local h = require "spec.helper"
local dlx = h.dlx

local function opts(extra)
  local o = {device = "cpu"}
  for k, v in pairs(extra or {}) do o[k] = v end
  return o
end

local function gen(seed) return {generator = dlx.Generator(seed)} end

-- Mean and variance of a tensor (in float64).
local function moments(t)
  local x = t:astype("float64")
  return x:mean():item(), x:var({}, false, 0):item()
end

-- Pearson's chi-square of counts against expected counts.
local function chi_square(counts, expected)
  local stat = 0
  for i, c in ipairs(counts) do stat = stat + (c - expected[i]) ^ 2 / expected[i] end
  return stat
end

-- The statistic is within 5 standard deviations of its mean for `dof` degrees of freedom.
local function assert_chi_square(stat, dof, what)
  local sd = math.sqrt(2 * dof)
  assert.is_true(stat < dof + 5 * sd and stat > dof - 4.5 * sd,
                 string.format("%s: chi-square %.1f for %d degrees of freedom", what, stat, dof))
end

-- Counts of values in [0, 1) over `bins` equal bins, against a flat expectation.
local function flat_chi_square(values, bins, what)
  local counts, expected = {}, {}
  for i = 1, bins do counts[i], expected[i] = 0, #values / bins end
  for _, v in ipairs(values) do
    local b = math.floor(v * bins) + 1
    counts[b] = counts[b] + 1
  end
  assert_chi_square(chi_square(counts, expected), bins - 1, what)
end

-- Counts of the integer values 0 .. last (the rest in one bin) against a pmf.
local function pmf_chi_square(values, first, last, pmf, what)
  local counts, expected, n, tail = {}, {}, #values, 1
  for k = first, last do
    counts[#counts + 1] = 0
    expected[#expected + 1] = n * pmf(k)
    tail = tail - pmf(k)
  end
  counts[#counts + 1] = 0
  expected[#expected + 1] = n * tail
  for _, v in ipairs(values) do
    local b = v > last and #counts or v - first + 1
    counts[b] = counts[b] + 1
  end
  assert_chi_square(chi_square(counts, expected), #counts - 1, what)
end

local function poisson_pmf(rate)
  return function(k)
    local log = -rate + k * math.log(rate)
    for i = 2, k do log = log - math.log(i) end
    return math.exp(log)
  end
end

describe("random distributions", function()
  describe("bernoulli", function()
    it("bernoulli_(p): its mean, only 0 and 1, in every real dtype", function()
      local x = dlx.empty({1 << 20}, opts()):bernoulli_(0.3, gen(1))
      local mean, var = moments(x)
      assert.is_true(math.abs(mean - 0.3) < 0.002, mean)
      assert.is_true(math.abs(var - 0.21) < 0.002, var)
      assert.is_true((x * x):eq(x):all():item()) -- 0 and 1 only
      for _, dtype in ipairs {"bool", "int8", "uint64", "float16", "bfloat16", "float64"} do
        local t = dlx.empty({10000}, opts {dtype = dtype}):bernoulli_(0.75, gen(2))
        assert.equal(dtype, t.dtype)
        local m = t:astype("float64"):mean():item()
        assert.is_true(math.abs(m - 0.75) < 0.02, dtype)
      end
      assert.is_true(dlx.empty({100}, opts()):bernoulli_(0):eq(0):all():item())
      assert.is_true(dlx.empty({100}, opts()):bernoulli_(1):eq(1):all():item())
      local half = dlx.empty({1 << 16}, opts()):bernoulli_(nil, gen(3)):mean():item()
      assert.is_true(math.abs(half - 0.5) < 0.01, half) -- p = 0.5 by default
    end)

    it("takes a tensor p that broadcasts: each column's rate", function()
      local p = dlx.linspace(0, 1, 11, opts {dtype = "float64"})
      local t = dlx.empty({20000, 11}, opts {dtype = "float32"}):bernoulli_(p, gen(4))
      local means = t:astype("float64"):mean(1):totable()
      for i, m in ipairs(means) do
        assert.is_true(math.abs(m - (i - 1) / 10) < 0.012, i)
      end
      assert.equal(0, means[1])
      assert.equal(1, means[11])
      local b = dlx.bernoulli(dlx.full({3, 5000}, 0.25, opts {dtype = "float16"}), gen(5))
      assert.equal("float16", b.dtype)
      assert.same({3, 5000}, b.shape)
      assert.is_true(math.abs(b:astype("float64"):mean():item() - 0.25) < 0.015)
      local n = dlx.bernoulli(0.5, {4, 4}, opts {dtype = "int32", generator = dlx.Generator(6)})
      assert.equal("int32", n.dtype)
      assert.same({4, 4}, n.shape)
      -- an integer p tensor gives float32 (p of 0 and 1 only)
      assert.equal("float32", dlx.bernoulli(dlx.tensor({0, 1, 1}, opts())).dtype)
    end)

    it("refuses p outside [0, 1] and dtypes it cannot fill", function()
      local t = dlx.zeros({4}, opts())
      h.raises("ValueError", t.bernoulli_, t, 1.5)
      h.raises("ValueError", t.bernoulli_, t, -0.1)
      h.raises("ValueError", t.bernoulli_, t, 0 / 0)
      h.raises("ValueError", t.bernoulli_, t, dlx.tensor({0.5, 2}, opts()))
      h.raises("ValueError", t.bernoulli_, t, dlx.tensor({0.5, 0 / 0}, opts()))
      h.raises("ValueError", t.bernoulli_, t, dlx.tensor({0.5, 0.5, 0.5}, opts()))
      h.raises("TypeError", t.bernoulli_, t, "0.5")
      h.raises("TypeError", t.bernoulli_, t, dlx.tensor({0.5}, opts {dtype = "complex64"}))
      local c = dlx.zeros({4}, opts {dtype = "complex64"})
      h.raises("TypeError", c.bernoulli_, c, 0.5)
      h.raises("TypeError", dlx.bernoulli, "p")
      h.raises("ValueError", dlx.bernoulli, dlx.tensor({1.5}, opts()))
      assert.same({0, 0, 0, 0}, t:totable()) -- nothing written
    end)
  end)

  describe("exponential_", function()
    it("has mean 1 / lambda and variance 1 / lambda^2; exp(-lambda x) is uniform", function()
      for _, dtype in ipairs {"float32", "float64"} do
        local x = dlx.empty({1 << 20}, opts {dtype = dtype}):exponential_(2, gen(10))
        local mean, var = moments(x)
        assert.is_true(math.abs(mean - 0.5) < 0.002, mean)
        assert.is_true(math.abs(var - 0.25) < 0.003, var)
        assert.is_true(x:min():item() > 0)
        local u = (x:astype("float64")[{{1, 200000}}] * -2):exp()
        flat_chi_square(u:totable(), 100, "exponential " .. dtype)
      end
      local one = dlx.empty({1 << 18}, opts()):exponential_(nil, gen(11))
      assert.is_true(math.abs(one:mean():item() - 1) < 0.01) -- lambda = 1 by default
      assert.equal("float16", dlx.empty({8}, opts {dtype = "float16"}):exponential_(3).dtype)
    end)

    it("refuses lambda <= 0 and non-float dtypes", function()
      local t = dlx.zeros({4}, opts())
      h.raises("ValueError", t.exponential_, t, 0)
      h.raises("ValueError", t.exponential_, t, -1)
      h.raises("ValueError", t.exponential_, t, math.huge)
      h.raises("TypeError", t.exponential_, t, "1")
      local i = dlx.zeros({4}, opts {dtype = "int32"})
      h.raises("TypeError", i.exponential_, i)
    end)
  end)

  describe("cauchy_", function()
    it("has the median and quartiles of its location and scale; its CDF is uniform", function()
      local x = dlx.empty({200001}, opts {dtype = "float64"}):cauchy_(3, 2, gen(20))
      local sorted = x:sort():totable()
      assert.is_true(math.abs(sorted[100001] - 3) < 0.03, sorted[100001])
      assert.is_true(math.abs(sorted[50001] - 1) < 0.05, sorted[50001])
      assert.is_true(math.abs(sorted[150001] - 5) < 0.05, sorted[150001])
      local u = ((x - 3) / 2):atan() / math.pi + 0.5
      flat_chi_square(u:totable(), 100, "cauchy")
      local std = dlx.empty({1 << 16}, opts()):cauchy_(nil, nil, gen(21)):astype("float64")
      local s = std:sort():totable()
      assert.is_true(math.abs(s[1 << 15]) < 0.03) -- median 0, sigma 1 by default
    end)

    it("refuses sigma <= 0 and a non-finite median", function()
      local t = dlx.zeros({4}, opts())
      h.raises("ValueError", t.cauchy_, t, 0, 0)
      h.raises("ValueError", t.cauchy_, t, 0, -2)
      h.raises("ValueError", t.cauchy_, t, math.huge, 1)
      local i = dlx.zeros({4}, opts {dtype = "int64"})
      h.raises("TypeError", i.cauchy_, i)
    end)
  end)

  describe("log_normal_", function()
    it("is e^x for x normal of its mean and std", function()
      local x = dlx.empty({1 << 20}, opts {dtype = "float64"}):log_normal_(0.5, 0.75, gen(30))
      assert.is_true(x:min():item() > 0)
      local mean, var = moments(x:log())
      assert.is_true(math.abs(mean - 0.5) < 0.003, mean)
      assert.is_true(math.abs(var - 0.5625) < 0.003, var)
      local m = moments(x) -- e^(mu + sigma^2 / 2)
      assert.is_true(math.abs(m / math.exp(0.5 + 0.28125) - 1) < 0.005, m)
      local d = dlx.empty({1 << 18}, opts()):log_normal_(nil, nil, gen(31)):astype("float64")
      local dm, dv = moments(d:log()) -- mean 1, std 2 by default (PyTorch's)
      assert.is_true(math.abs(dm - 1) < 0.02 and math.abs(dv - 4) < 0.05, dm .. " " .. dv)
    end)

    it("reaches far tails exactly, and refuses std <= 0", function()
      local x = dlx.empty({4096}, opts {dtype = "float64"}):log_normal_(-700, 20, gen(32))
      assert.is_true(x:min():item() >= 0 and x:max():item() < math.huge)
      local t = dlx.zeros({4}, opts())
      h.raises("ValueError", t.log_normal_, t, 0, 0)
      h.raises("ValueError", t.log_normal_, t, 0 / 0, 1)
    end)
  end)

  describe("geometric_", function()
    it("counts the trials to a success: mean 1 / p, its pmf", function()
      local x = dlx.empty({1 << 18}, opts {dtype = "float64"}):geometric_(0.2, gen(40))
      local mean, var = moments(x)
      assert.is_true(math.abs(mean - 5) < 0.03, mean)
      assert.is_true(math.abs(var - 20) < 0.4, var)
      assert.equal(1, x:min():item())
      assert.is_true((x - x:floor()):eq(0):all():item())
      pmf_chi_square(x[{{1, 100000}}]:totable(), 1, 25, function(k) return 0.2 * 0.8 ^ (k - 1) end,
                     "geometric")
      local ints = dlx.empty({100000}, opts {dtype = "int32"}):geometric_(0.5, gen(41))
      assert.equal("int32", ints.dtype)
      assert.is_true(math.abs(ints:astype("float64"):mean():item() - 2) < 0.02)
      assert.is_true(dlx.empty({50}, opts()):geometric_(1):eq(1):all():item())
    end)

    it("saturates an integer dtype, and refuses p outside (0, 1]", function()
      local x = dlx.empty({1000}, opts {dtype = "int8"}):geometric_(1e-4, gen(42))
      assert.equal(127, x:max():item())
      local t = dlx.zeros({4}, opts())
      h.raises("ValueError", t.geometric_, t, 0)
      h.raises("ValueError", t.geometric_, t, 1.5)
      h.raises("TypeError", t.geometric_, t)
      h.raises("TypeError", t.geometric_, t, dlx.tensor({0.5}, opts()))
    end)
  end)

  describe("poisson", function()
    it("has mean and variance of each rate, small and large, and its pmf", function()
      for _, rate in ipairs {0.5, 3.5, 9.99, 10, 37.5, 1000, 1e6} do
        local x = dlx.poisson(dlx.full({1 << 17}, rate, opts {dtype = "float64"}), gen(50))
        local mean, var = moments(x)
        local sd = math.sqrt(rate / (1 << 17))
        assert.is_true(math.abs(mean - rate) < 5 * sd, rate .. ": mean " .. mean)
        assert.is_true(math.abs(var / rate - 1) < 0.03, rate .. ": var " .. var)
        assert.is_true((x - x:floor()):eq(0):all():item() and x:min():item() >= 0)
      end
      for _, rate in ipairs {3.5, 37.5} do
        local x = dlx.poisson(dlx.full({100000}, rate, opts {dtype = "float64"}), gen(51))
        local first, last = rate < 10 and 0 or 20, rate < 10 and 10 or 56
        local values = x:totable()
        if first > 0 then -- the lower tail in its own bin
          for i, v in ipairs(values) do values[i] = math.max(v, first - 1) end
          local below = 0
          for k = 0, first - 1 do below = below + poisson_pmf(rate)(k) end
          local pmf = poisson_pmf(rate)
          pmf_chi_square(values, first - 1, last,
                         function(k) return k == first - 1 and below or pmf(k) end,
                         "poisson " .. rate)
        else
          pmf_chi_square(values, first, last, poisson_pmf(rate), "poisson " .. rate)
        end
      end
    end)

    it("gives 0 for rate 0, the rates' shape and dtype, float32 for integer rates", function()
      local rates = dlx.tensor({{0, 1, 2}, {100, 0, 5}}, opts {dtype = "float32"})
      local x = dlx.poisson(rates, gen(52))
      assert.equal("float32", x.dtype)
      assert.same({2, 3}, x.shape)
      assert.equal(0, x[{1, 1}]:item())
      assert.equal(0, x[{2, 2}]:item())
      assert.equal("float32", dlx.poisson(dlx.tensor({1, 2}, opts())).dtype)
      assert.equal("float64", dlx.poisson(rates, {dtype = "float64"}).dtype)
    end)

    it("refuses negative, NaN and huge rates, and non-tensors", function()
      h.raises("ValueError", dlx.poisson, dlx.tensor({1, -1}, opts {dtype = "float64"}))
      h.raises("ValueError", dlx.poisson, dlx.tensor({1, 0 / 0}, opts {dtype = "float64"}))
      h.raises("ValueError", dlx.poisson, dlx.tensor({2.0 ^ 52}, opts {dtype = "float64"}))
      h.raises("TypeError", dlx.poisson, 3)
      h.raises("TypeError", dlx.poisson, dlx.tensor({1}, opts()), {dtype = "int32"})
    end)
  end)

  describe("normal", function()
    it("takes tensor means and stds that broadcast", function()
      local mean = dlx.tensor({-10, 0, 10}, opts {dtype = "float64"})
      local std = dlx.tensor({{0.5}, {2}}, opts {dtype = "float64"})
      local x = dlx.normal(mean:reshape({1, 1, 3}), std:reshape({1, 2, 1}):expand({50000, 2, 1}),
                           gen(60))
      assert.same({50000, 2, 3}, x.shape)
      assert.equal("float64", x.dtype)
      local m = x:mean(1):totable()
      local s = x:std(1):totable()
      for i = 1, 2 do
        for j = 1, 3 do
          assert.is_true(math.abs(m[i][j] - (j - 2) * 10) < 0.03, i .. j)
          assert.is_true(math.abs(s[i][j] / (i == 1 and 0.5 or 2) - 1) < 0.01, i .. j)
        end
      end
      local fixed = dlx.normal(dlx.arange(5, opts {dtype = "float32"}), 0)
      assert.same({0, 1, 2, 3, 4}, fixed:totable()) -- std 0: the mean itself
      assert.equal("float32", fixed.dtype)
      local n = dlx.normal(2, 3, {1 << 18}, opts {dtype = "float64", generator = dlx.Generator(61)})
      local nm, nv = moments(n)
      assert.is_true(math.abs(nm - 2) < 0.02 and math.abs(nv - 9) < 0.06)
      local promoted = dlx.normal(dlx.zeros({2}, opts {dtype = "float16"}),
                                  dlx.ones({2}, opts {dtype = "float32"}))
      assert.equal("float32", promoted.dtype)
    end)

    it("gives normal_'s bits for number parameters", function()
      local a = dlx.normal(1, 2, {1000}, opts {generator = dlx.Generator(62)})
      local b = dlx.empty({1000}, opts()):normal_(1, 2, gen(62))
      assert.equal(a:tobytes(), b:tobytes())
    end)

    it("refuses negative stds, shapes that do not broadcast, and strings", function()
      h.raises("ValueError", dlx.normal, 0, dlx.tensor({1, -1}, opts()))
      h.raises("ValueError", dlx.normal, dlx.zeros({3}, opts()), dlx.ones({2}, opts()))
      h.raises("ValueError", dlx.normal, 0, -1, {3})
      h.raises("TypeError", dlx.normal, "0", 1, {3})
      h.raises("TypeError", dlx.normal, 0, 1, {3}, opts {dtype = "int32"})
    end)
  end)

  describe("random_", function()
    it("covers [low, high) uniformly, in integer, float and bool dtypes", function()
      local x = dlx.empty({100000}, opts {dtype = "int16"}):random_(-3, 7, gen(70))
      local values = x:totable()
      for i, v in ipairs(values) do values[i] = v + 3 end
      pmf_chi_square(values, 0, 8, function() return 0.1 end, "random_ int16")
      assert.equal(-3, x:min():item())
      assert.equal(6, x:max():item())
      local f = dlx.empty({100000}, opts {dtype = "float32"}):random_(10, gen(71))
      assert.is_true(f:min():item() == 0 and f:max():item() == 9)
      assert.is_true((f - f:floor()):eq(0):all():item())
      local b = dlx.empty({100000}, opts {dtype = "bool"}):random_(gen(72))
      assert.is_true(math.abs(b:astype("float64"):mean():item() - 0.5) < 0.01)
    end)

    it("defaults to the dtype's range: [0, max], [0, 2^significand]", function()
      local i8 = dlx.empty({100000}, opts {dtype = "int8"}):random_(gen(73))
      assert.is_true(i8:min():item() == 0 and i8:max():item() == 127)
      local u8 = dlx.empty({100000}, opts {dtype = "uint8"}):random_(gen(74))
      assert.is_true(u8:min():item() == 0 and u8:max():item() == 255)
      local i64 = dlx.empty({100000}, opts {dtype = "int64"}):random_(gen(75))
      assert.is_true(i64:min():item() >= 0 and i64:max():item() > (1 << 62))
      local f16 = dlx.empty({100000}, opts {dtype = "float16"}):random_(gen(76))
      assert.is_true(f16:min():item() == 0 and f16:max():item() == 2048)
      local f32 = dlx.empty({100000}, opts {dtype = "float32"}):random_(gen(77))
      assert.is_true(f32:max():item() <= 2 ^ 24 and f32:max():item() > 2 ^ 23)
    end)

    it("refuses empty and unrepresentable ranges", function()
      local t = dlx.zeros({4}, opts {dtype = "int8"})
      h.raises("ValueError", t.random_, t, 5, 5)
      h.raises("ValueError", t.random_, t, 0, 300)
      h.raises("ValueError", t.random_, t, 0.5, 3)
      local f = dlx.zeros({4}, opts {dtype = "float16"})
      h.raises("ValueError", f.random_, f, 0, 2050) -- 2049 is not a float16
      local b = dlx.zeros({4}, opts {dtype = "bool"})
      h.raises("ValueError", b.random_, b, 0, 3)
      local c = dlx.zeros({4}, opts {dtype = "complex128"})
      h.raises("TypeError", c.random_, c)
      assert.same({0, 0, 0, 0}, t:totable())
    end)
  end)

  describe("multinomial", function()
    local fl = opts {dtype = "float32"}
    local w = dlx.tensor({1, 2, 3, 4}, opts {dtype = "float64"})

    it("with replacement: the weights' frequencies", function()
      local x = dlx.multinomial(w, 100000, {replacement = true, generator = dlx.Generator(80)})
      assert.equal("int64", x.dtype)
      assert.same({100000}, x.shape)
      pmf_chi_square(x:totable(), 1, 3, function(k) return k / 10 end, "with replacement")
      local rows = dlx.multinomial(dlx.tensor({{0, 5, 0}, {1, 0, 0}}, fl), 1000,
                                   {replacement = true})
      assert.is_true(rows[1]:eq(2):all():item() and rows[2]:eq(1):all():item())
    end)

    it("without replacement: the first draw's and the ordered pairs' frequencies", function()
      local rows = 60000
      local x = dlx.multinomial(w:reshape({1, 4}):expand({rows, 4}), 2, gen(81))
      assert.same({rows, 2}, x.shape)
      local ordered, firsts = {}, {}
      for _, r in ipairs(x:totable()) do
        assert.is_true(r[1] ~= r[2])
        firsts[#firsts + 1] = r[1]
        ordered[#ordered + 1] = (r[1] - 1) * 4 + r[2]
      end
      pmf_chi_square(firsts, 1, 3, function(k) return k / 10 end, "first draw")
      -- P(i then j) = w_i / 10 * w_j / (10 - w_i), over the 12 ordered pairs
      local counts, expected = {}, {}
      for i = 1, 4 do
        for j = 1, 4 do
          if i ~= j then
            counts[(i - 1) * 4 + j] = 0
            expected[(i - 1) * 4 + j] = rows * i / 10 * j / (10 - i)
          end
        end
      end
      for _, p in ipairs(ordered) do counts[p] = counts[p] + 1 end
      local c, e = {}, {}
      for k, v in pairs(counts) do c[#c + 1], e[#e + 1] = v, expected[k] end
      assert_chi_square(chi_square(c, e), 11, "ordered pairs")
    end)

    it("draws every category once when n = k, and never a zero weight", function()
      local x = dlx.multinomial(dlx.rand({50, 30}, opts()), 30, gen(82))
      for _, r in ipairs(x:sort():totable()) do
        for i = 1, 30 do assert.equal(i, r[i]) end
      end
      local z = dlx.tensor({{0, 1, 0, 2, 0}}, opts {dtype = "float32"}):expand({1000, 5})
      local y = dlx.multinomial(z, 2, gen(83))
      assert.is_true(((y - 2) * (y - 4)):eq(0):all():item()) -- positions 2 and 4 only
    end)

    it("is the top n of w / exponential_(), and with replacement a search of rand()", function()
      local weights = dlx.rand({7, 50}, opts {generator = dlx.Generator(84)})
      weights[{{}, {3, 9}}] = 0
      local e = dlx.empty({7, 50}, opts {dtype = "float64"}):exponential_(1, gen(85))
      local _, want = (weights:astype("float64") / e):topk(12)
      local g = dlx.Generator(85)
      local got = dlx.multinomial(weights, 12, {generator = g})
      assert.equal(want:tobytes(), got:tobytes())
      assert.equal(175, g:get_offset()) -- ceil(7 * 50 / 2)
      -- with replacement: the first j whose cumulative sum exceeds u times the row's sum
      local u = dlx.rand({7, 40}, opts {dtype = "float64", generator = dlx.Generator(86)})
      local cdf = weights:astype("float64"):cumsum(2)
      local x = u * cdf[{{}, {50}}]
      local pos = cdf:unsqueeze(2):le(x:unsqueeze(3)):sum(3) + 1
      g = dlx.Generator(86)
      got = dlx.multinomial(weights, 40, {replacement = true, generator = g})
      assert.equal(pos:tobytes(), got:tobytes())
      assert.equal(140, g:get_offset()) -- ceil(7 * 40 / 2)
    end)

    it("gives the same bits on 1 and 4 threads", function()
      local saved = dlx.get_num_threads()
      local weights = dlx.rand({300, 700}, opts {generator = dlx.Generator(87)})
      local bits = {}
      for _, threads in ipairs {1, 4} do
        dlx.set_num_threads(threads)
        bits[threads] = dlx.multinomial(weights, 50, gen(88)):tobytes() ..
                        dlx.multinomial(weights, 900, {replacement = true,
                                                       generator = dlx.Generator(88)}):tobytes() ..
                        dlx.poisson(weights * 30, gen(88)):tobytes()
      end
      dlx.set_num_threads(saved)
      assert.is_true(bits[1] == bits[4])
    end)

    it("makes empty results, and leaves the counter for n = 0", function()
      local g = dlx.Generator(89)
      assert.same({3, 0}, dlx.multinomial(dlx.ones({3, 4}, opts()), 0, {generator = g}).shape)
      assert.equal(0, g:get_offset())
      assert.same({0, 2}, dlx.multinomial(dlx.ones({0, 4}, opts()), 2).shape)
    end)

    it("refuses bad weights naming the row, and bad arguments", function()
      local ok, msg = pcall(dlx.multinomial, dlx.tensor({{1, 1}, {1, -1}}, fl), 1)
      assert.is_false(ok)
      assert.matches("ValueError: multinomial: row 2 has a negative", msg)
      h.raises("ValueError", dlx.multinomial, dlx.tensor({{1, 1}, {0, 0}}, fl), 1)
      h.raises("ValueError", dlx.multinomial, dlx.tensor({1, 0 / 0}, fl), 1)
      h.raises("ValueError", dlx.multinomial, dlx.tensor({1, math.huge}, fl), 1)
      h.raises("ValueError", dlx.multinomial, dlx.tensor({1e308, 1e308}, fl), 1)
      h.raises("ValueError", dlx.multinomial, dlx.tensor({1, 0, 1}, fl), 3)
      h.raises("ValueError", dlx.multinomial, dlx.tensor({1, 2}, fl), 3)
      h.raises("ValueError", dlx.multinomial, dlx.tensor({1, 2}, fl), -1)
      h.raises("ValueError", dlx.multinomial, dlx.ones({2, 2, 2}, fl), 1)
      h.raises("ValueError", dlx.multinomial, dlx.ones({2, 0}, fl), 0)
      h.raises("TypeError", dlx.multinomial, dlx.tensor({1, 2}, opts {dtype = "int64"}), 1)
      h.raises("TypeError", dlx.multinomial, w, 1, {replace = true})
      h.raises("TypeError", dlx.multinomial, w, 1, {replacement = "yes"})
      h.raises("TypeError", dlx.multinomial, w, 1, {generator = 1})
      h.raises("ValueError", dlx.multinomial, w, 1.5)
    end)

    it("closes a result whose draws failed", function()
      local bad, rates = dlx.tensor({{1, 1}, {0, 0}}, fl), dlx.tensor({1, -1}, fl)
      collectgarbage("stop")
      local before = dlx.memory_allocated("cpu")
      h.raises("ValueError", dlx.multinomial, bad, 1)
      h.raises("ValueError", dlx.poisson, rates)
      local after = dlx.memory_allocated("cpu")
      collectgarbage("restart")
      assert.equal(before, after)
    end)
  end)

  it("moves the counter by the blocks each kind uses", function()
    local g = dlx.Generator(90)
    dlx.empty({10}, opts()):exponential_(1, {generator = g}) -- 4 a block
    assert.equal(3, g:get_offset())
    dlx.empty({10}, opts()):bernoulli_(0.5, {generator = g}) -- 2 a block: 53-bit uniforms
    assert.equal(8, g:get_offset())
    dlx.poisson(dlx.ones({10}, opts()), {generator = g}) -- a counter each
    assert.equal(18, g:get_offset())
    dlx.empty({10}, opts {dtype = "int64"}):geometric_(0.5, {generator = g}) -- 8 bytes: 2 a block
    assert.equal(23, g:get_offset())
    dlx.empty({10}, opts {dtype = "float64"}):cauchy_(0, 1, {generator = g})
    assert.equal(28, g:get_offset())
    dlx.empty({10}, opts {dtype = "int8"}):random_({generator = g})
    assert.equal(31, g:get_offset())
  end)
end)
