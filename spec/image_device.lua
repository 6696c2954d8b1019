--- dlx.max_pool2d, dlx.avg_pool2d and dlx.interpolate on a device against the CPU's kernels on
--- the same data: every op and mode, with and without padding, dilation, ceil_mode, indices,
--- align_corners, sizes and scale factors, on float32 and float64, including NaN, -inf and
--- transposed inputs. A device without the entry image_op composes the ops (lua/dlx/image.lua):
--- the max pools, nearest, bilinear and bicubic match bit for bit (the same source positions and
--- weights, each product and sum rounded once in the same order), the average pools within
--- rounding (their sums run in another order). On "cpu" the composed route itself is checked
--- against the kernels (dlx.image's force_composed). Used by image_spec.lua, cuda_image_spec.lua
--- and oneapi_image_spec.lua: require "spec.image_device" (device, it) inside a describe.
local h = require "spec.helper"
local dlx = h.dlx
local image = require "dlx.image"
local assert = require "luassert"

local NAN, INF = 0 / 0, math.huge

-- A (n, c, hh, ww) image of small values with ties; specials adds NaN and -inf now and then.
local function picture(dtype, shape, specials)
  local values, n = {}, 1
  for _, s in ipairs(shape) do n = n * s end
  for i = 1, n do
    values[i] = ((i * 37) % 23 - 11) / 4
    if specials and i % 7 == 3 then values[i] = NAN end
    if specials and i % 11 == 5 then values[i] = -INF end
  end
  return dlx.tensor(values, { dtype = dtype }):view(shape)
end

return function(device, it)
  -- f on the CPU's kernels and on device (on "cpu": composed), each result bit for bit, or
  -- within rounding when close.
  local function check(t, f, close)
    local want = { f(t) }
    local d = t:to(device)
    image.force_composed = device == "cpu"
    local ok, got = pcall(function() return { f(d) } end)
    image.force_composed = false
    if not ok then error(got, 0) end
    assert.equal(#want, #got)
    for i = 1, #want do
      if close then
        h.same_as_cpu(device, want[i], got[i], 1e-12)
      else
        h.same(device, tostring(got[i].device))
        h.same_bits(want[i], got[i])
      end
    end
  end

  local function layouts(dtype, shape, specials)
    local t = picture(dtype, shape, specials)
    local n = #shape
    return { t, t:transpose(n - 1, n):contiguous():transpose(n - 1, n), t:flip(n) }
  end

  local POOLS = {
    { 2, {} },
    { 3, { stride = 2, padding = 1 } },
    { { 3, 2 }, { stride = { 1, 2 }, padding = { 1, 0 }, ceil_mode = true } },
    { 2, { stride = 3, ceil_mode = true } },
  }

  it("max_pool2d: values and indices as on the CPU, NaN and -inf included", function()
    for _, dtype in ipairs { "float32", "float64" } do
      for _, t in ipairs(layouts(dtype, { 2, 3, 7, 6 }, true)) do
        for _, case in ipairs(POOLS) do
          local opts = { return_indices = true }
          for k, v in pairs(case[2]) do opts[k] = v end
          check(t, function(x) return dlx.max_pool2d(x, case[1], opts) end)
          check(t, function(x) return dlx.max_pool2d(x, case[1], case[2]) end)
        end
        check(t, function(x)
          return dlx.max_pool2d(x, 3, { dilation = 2, padding = 1, return_indices = true })
        end)
        check(t:select(1, 1),
          function(x) return dlx.max_pool2d(x, 2, { return_indices = true }) end)
      end
    end
    -- rows wide enough for the CPU's blocks of 64 outputs
    for _, t in ipairs(layouts("float32", { 1, 2, 5, 150 }, true)) do
      check(t, function(x) return dlx.max_pool2d(x, 3, { stride = 1, return_indices = true }) end)
      check(t, function(x)
        return dlx.max_pool2d(x, { 2, 3 }, { stride = { 1, 2 }, padding = 1, dilation = 2 })
      end)
    end
    -- a window of -inf only, and one with two NaN (the last wins)
    local t = dlx.tensor({ { { -INF, -INF, 1 }, { NAN, 2, NAN } } })
    check(t, function(x) return dlx.max_pool2d(x, 2, { stride = 1, return_indices = true }) end)
  end)

  it("avg_pool2d: as on the CPU within rounding, every divisor rule", function()
    for _, dtype in ipairs { "float32", "float64" } do
      for _, t in ipairs(layouts(dtype, { 2, 3, 7, 6 })) do
        for _, case in ipairs(POOLS) do
          check(t, function(x) return dlx.avg_pool2d(x, case[1], case[2]) end, true)
          local opts = { count_include_pad = false }
          for k, v in pairs(case[2]) do opts[k] = v end
          check(t, function(x) return dlx.avg_pool2d(x, case[1], opts) end, true)
          opts.divisor_override = 3
          check(t, function(x) return dlx.avg_pool2d(x, case[1], opts) end, true)
        end
      end
    end
  end)

  it("interpolate: nearest, bilinear and bicubic bit for bit as on the CPU", function()
    local CASES = {
      { mode = "nearest", size = { 5, 9 } },
      { mode = "nearest", scale_factor = 2 },
      { mode = "nearest", scale_factor = { 0.5, 1.7 } },
      { mode = "bilinear", size = { 3, 4 } },
      { mode = "bilinear", size = { 11, 6 }, align_corners = true },
      { mode = "bilinear", scale_factor = { 1.5, 0.75 } },
      { mode = "bicubic", size = { 9, 4 } },
      { mode = "bicubic", size = { 3, 13 }, align_corners = true },
      { mode = "bicubic", scale_factor = 1.3 },
      { mode = "bilinear", size = { 1, 1 }, align_corners = true },
    }
    for _, dtype in ipairs { "float32", "float64" } do
      for _, t in ipairs(layouts(dtype, { 2, 2, 6, 5 })) do
        for _, opts in ipairs(CASES) do
          check(t, function(x) return dlx.interpolate(x, opts) end)
        end
      end
    end
  end)

  it("gives empty results for an empty batch", function()
    local t = dlx.zeros({ 0, 3, 4, 4 }, { device = device })
    assert.same({ 0, 3, 2, 2 }, dlx.max_pool2d(t, 2).shape)
    assert.same({ 0, 3, 2, 2 }, dlx.avg_pool2d(t, 2).shape)
    assert.same({ 0, 3, 8, 8 }, dlx.interpolate(t, { scale_factor = 2, mode = "bilinear" }).shape)
  end)
end
