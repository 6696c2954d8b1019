--- unique_consecutive and argwhere on a device against the CPU's results on the same data, bit
--- for bit (they are built from comparisons, sums, nonzero and index_select, which are exact):
--- every dtype family, flattened and along each dim, transposed, stepped, 0-d and zero-size
--- inputs, NaN and -0.0. Used by runs_spec.lua (on the CPU itself), oneapi_runs_spec.lua and
--- cuda_runs_spec.lua: require "spec.runs_device" (device, it) inside a describe.
local h = require "spec.helper"
local dlx = h.dlx
local assert = require "luassert" -- specs get it as their assert; this module does not

local NAN = 0 / 0

-- n values with long runs: each repeats the one before it with probability 1/2.
local function runs_of(dtype, n, seed)
  math.randomseed(seed)
  local out, specials = {}, { -0.0, 0.0, NAN, math.huge }
  for i = 1, n do
    if i > 1 and math.random(2) == 1 then out[i] = out[i - 1]
    elseif dtype == "bool" then out[i] = math.random(0, 1) == 1
    elseif dtype:match("^uint") then out[i] = math.random(0, 3)
    elseif dtype:match("^int") then out[i] = math.random(-2, 2)
    elseif math.random(5) == 1 then out[i] = specials[math.random(#specials)]
    else out[i] = math.random(-3, 3) / 2 end
  end
  return out
end

local DTYPES = { "bool", "uint8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
  "float64" }

local function layouts(dtype, seed)
  local base = dlx.tensor(runs_of(dtype, 48, seed), { dtype = dtype, device = "cpu" })
  local rows = dlx.tensor(runs_of(dtype, 4, seed + 1), { dtype = dtype, device = "cpu" })
  return {
    base:view{ 48 },
    base:view{ 6, 8 },
    base:view{ 8, 6 }:transpose(1, 2),
    base:view{ 4, 12 }:narrow(2, 2, 9),
    rows:view{ 4, 1 }:expand{ 4, 3 }:contiguous(), -- equal slices along dim 2
    base:view{ 2, 3, 8 },
    base:narrow(1, 1, 1):view{}, -- 0-d
    base:narrow(1, 1, 0),
  }
end

return function(device, it)
  local function on(t) return t:to(device) end

  local function same_results(want, got)
    assert.equal(#want, #got)
    for i = 1, #want do h.same_bits(want[i], got[i]) end
  end

  it("unique_consecutive gives the CPU's values, inverse and counts, bit for bit", function()
    for _, dtype in ipairs(DTYPES) do
      for _, t in ipairs(layouts(dtype, 3 + #dtype)) do
        local d = on(t)
        local dims = { false }
        for dim = 1, t.ndim do dims[#dims + 1] = dim end
        for _, dim in ipairs(dims) do
          if t.numel > 0 or dim == false or t.shape[dim] == 0 then
            local opts = { return_inverse = true, return_counts = true, dim = dim or nil }
            local got = { d:unique_consecutive(opts) }
            same_results({ t:unique_consecutive(opts) }, got)
            assert.equal(device, tostring(got[1].device))
            h.same_bits(t:unique_consecutive { dim = dim or nil },
              dlx.unique_consecutive(d, { dim = dim or nil }))
          end
        end
      end
    end
  end)

  it("argwhere gives the CPU's positions", function()
    for _, dtype in ipairs(DTYPES) do
      for _, t in ipairs(layouts(dtype, 5 + #dtype)) do
        local got = on(t):argwhere()
        h.same_bits(t:argwhere(), got)
        assert.equal(device, tostring(got.device))
        h.same_bits(dlx.argwhere(t), dlx.argwhere(on(t)))
      end
    end
  end)
end
