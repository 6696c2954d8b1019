--- var, std, logsumexp, norm, cumsum, cumprod, softmax and log_softmax on a GPU, against the CPU's
--- results on the same data: each dtype family, dims and keepdim, the layouts (transposed,
--- reversed, stepped, 0-d, empty reduced extents, long lines), the NaN and inf rules. Used by
--- oneapi_stats_spec.lua and cuda_stats_spec.lua: require "spec.stats_device" (device, it) inside
--- a describe defines the tests (busted gives `it` to spec files, not to the modules they require).
local h = require "spec.helper"
local dlx = h.dlx
local assert = require "luassert" -- specs get it as their assert; this module does not

local INF, NAN = math.huge, 0 / 0

local function values(dtype, n, seed)
  return h.seeded_values(dtype, n, seed, { bool = 2, uint = { 0, 9 }, int = { -9, 9 } })
end

--- float64 results agree with the CPU's to 1e-10 (another order of the sums, the device's exp).
local function same_as_cpu(device, want, got) h.same_as_cpu(device, want, got, 1e-10) end

local DTYPES = { "bool", "int8", "int32", "uint8", "int64", "float16", "bfloat16", "float32",
  "float64" }

--- The layouts a 2-d tensor of these values is seen through (3 x 8 each).
local function layouts(dtype, seed)
  local base = dlx.tensor(values(dtype, 48, seed), { dtype = dtype, device = "cpu" })
  return {
    base:view{ 3, 16 }:narrow(2, 1, 8), -- rows with a gap between them
    base:narrow(1, 1, 24):view{ 8, 3 }:transpose(1, 2), -- transposed
    base:narrow(1, 1, 24):view{ 3, 8 }:flip(2), -- reversed
    base:view{ 6, 8 }:narrow(1, 1, 3):flip(1), -- reversed rows
  }
end

return function(device, it)

  it("var, std, logsumexp and norm match the CPU over every dims, dtype and layout", function()
    for _, dtype in ipairs(DTYPES) do
      for k, x in ipairs(layouts(dtype, 11 + #dtype)) do
        local d = x:to(device)
        for _, dims in ipairs{ nil, 1, 2, { 1, 2 } } do
          local keep = k % 2 == 0
          same_as_cpu(device, x:var(dims, keep), d:var(dims, keep))
          same_as_cpu(device, x:var{ dim = dims, correction = 1 },
            d:var{ dim = dims, correction = 1 })
          same_as_cpu(device, x:std{ dim = dims, correction = 1.5, keepdim = keep },
            d:std{ dim = dims, correction = 1.5, keepdim = keep })
          same_as_cpu(device, x:logsumexp(dims, keep), d:logsumexp(dims, keep))
          for _, p in ipairs{ 1, 2, INF } do
            same_as_cpu(device, x:norm{ p = p, dim = dims }, d:norm{ p = p, dim = dims })
          end
        end
      end
    end
  end)

  it("var, std, logsumexp and norm keep their edge rules", function()
    local x = dlx.tensor({ { 1, NAN, 3 }, { 1, INF, 2 }, { -INF, -INF, -INF },
      { 1e300, 1e300, 0 } }, { dtype = "float64", device = "cpu" })
    local d = x:to(device)
    for _, op in ipairs{ "var", "std", "logsumexp", "norm" } do
      same_as_cpu(device, x[op](x, 2), d[op](d, 2))
    end
    same_as_cpu(device, x:norm{ p = INF, dim = 2 }, d:norm{ p = INF, dim = 2 })
    h.same({ 1e300 * math.sqrt(2) }, { d:narrow(1, 4, 1):norm():item() }, { rel = 1e-12 })
    local big = dlx.tensor({ 1e6 + 1, 1e6 + 2, 1e6 + 3 }, { dtype = "float32", device = "cpu" })
    h.assert_close(2 / 3, big:to(device):var():item(), 1e-5)
    -- nothing to reduce: NaN, -inf and 0
    local empty = dlx.zeros({ 2, 0 }, { dtype = "float32", device = device })
    assert.is_true(h.isnan(empty:var(2):totable()[1]))
    h.same({ -INF, -INF }, empty:logsumexp(2):totable())
    h.same({ 0, 0 }, empty:norm{ dim = 2 }:totable())
    local scalar = dlx.tensor(3.5, { dtype = "float32", device = device })
    h.same(0, scalar:var():item())
    h.same(3.5, scalar:norm():item())
  end)

  it("var of a long tensor matches the CPU (many chunks)", function()
    local x = dlx.arange(200001, { dtype = "float32", device = "cpu" }):mul(0.001):sin()
    local d = x:to(device)
    for _, op in ipairs{ "var", "std", "logsumexp", "norm" } do
      same_as_cpu(device, x[op](x), d[op](d))
    end
  end)

  it("cumsum, cumprod, softmax and log_softmax match the CPU along each dim", function()
    for _, dtype in ipairs(DTYPES) do
      for _, x in ipairs(layouts(dtype, 23 + #dtype)) do
        local d = x:to(device)
        for dim = 1, 2 do
          same_as_cpu(device, x:cumsum(dim), d:cumsum(dim))
          same_as_cpu(device, x:cumprod(dim), d:cumprod(dim))
          same_as_cpu(device, dlx.softmax(x, dim), dlx.softmax(d, dim))
          same_as_cpu(device, dlx.log_softmax(x, dim), dlx.log_softmax(d, dim))
        end
      end
    end
  end)

  it("scans and softmaxes long lines (a work-group each) and many short ones", function()
    local long = dlx.arange(3000, { dtype = "float32", device = "cpu" }):mul(0.01):cos()
      :view{ 2, 1500 }
    local ints = dlx.arange(3000, { dtype = "int32", device = "cpu" }):view{ 2, 1500 }
    for _, x in ipairs{ long, long:transpose(1, 2), ints } do
      local d = x:to(device)
      for dim = 1, 2 do
        same_as_cpu(device, x:cumsum(dim), d:cumsum(dim))
        same_as_cpu(device, dlx.softmax(x, dim), dlx.softmax(d, dim))
        same_as_cpu(device, dlx.log_softmax(x, dim), dlx.log_softmax(d, dim))
      end
    end
    local wrap = dlx.full({ 70 }, 2 ^ 62, { dtype = "int64", device = "cpu" })
    same_as_cpu(device, wrap:cumsum(1), wrap:to(device):cumsum(1)) -- integers wrap
    same_as_cpu(device, ints:cumprod(2), ints:to(device):cumprod(2))
  end)

  it("softmax gives NaN lines for NaN, +inf or only -inf; 0-d tensors are one line", function()
    local x = dlx.tensor({ { 1, NAN, 2 }, { 1, INF, 2 }, { -INF, -INF, -INF }, { -INF, 0, 1 } },
      { dtype = "float32", device = "cpu" })
    local d = x:to(device)
    same_as_cpu(device, dlx.softmax(x, 2), dlx.softmax(d, 2))
    same_as_cpu(device, dlx.log_softmax(x, 2), dlx.log_softmax(d, 2))
    local scalar = dlx.tensor(2.5, { dtype = "float64", device = device })
    h.same(1, dlx.softmax(scalar, 1):item())
    h.same(2.5, scalar:cumsum(1):item())
  end)
end
