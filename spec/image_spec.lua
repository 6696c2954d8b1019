--- dlx.max_pool2d, dlx.avg_pool2d and dlx.interpolate on the CPU: values worked out by hand,
-- output sizes (ceil_mode, padding, dilation, scale factors), 3-d and 4-d inputs, the options'
-- defaults, thread counts, the errors. The GPUs' kernels are checked against these CPU kernels by
-- spec/image_device.lua (oneapi_image_spec.lua, cuda_image_spec.lua).
local h = require "spec.helper"
local dlx = h.dlx

local function grid(n, dtype) -- 1 x 1 x n x n of 0 .. n * n - 1
  return dlx.arange(0, n * n, { dtype = dtype or "float32" }):reshape({ 1, 1, n, n })
end

describe("max_pool2d", function()
  it("takes each window's maximum and its 1-based position in the plane", function()
    local v, i = dlx.max_pool2d(grid(4), 2, { return_indices = true })
    h.same({ { { { 5, 7 }, { 13, 15 } } } }, v:totable())
    h.same({ { { { 6, 8 }, { 14, 16 } } } }, i:totable())
    assert.equal("int64", i.dtype)
    assert.equal("float32", v.dtype)
  end)

  it("pads with -inf, steps, dilates, and rounds the size up with ceil_mode", function()
    local v, i = dlx.max_pool2d(grid(3, "float64"), 2, { stride = 1, padding = 1,
      return_indices = true })
    h.same({ { 0, 1, 2, 2 }, { 3, 4, 5, 5 }, { 6, 7, 8, 8 }, { 6, 7, 8, 8 } }, v[1][1]:totable())
    h.same({ { 1, 2, 3, 3 }, { 4, 5, 6, 6 }, { 7, 8, 9, 9 }, { 7, 8, 9, 9 } }, i[1][1]:totable())
    h.same({ { 12, 13, 14 }, { 17, 18, 19 }, { 22, 23, 24 } },
      dlx.max_pool2d(grid(5), 2, { dilation = 2, stride = 1 })[1][1]:totable())
    assert.same({ 1, 1, 2, 2 }, dlx.max_pool2d(grid(5), 2).shape)
    h.same({ { 6, 8, 9 }, { 16, 18, 19 }, { 21, 23, 24 } },
      dlx.max_pool2d(grid(5), 2, { ceil_mode = true })[1][1]:totable())
    assert.same({ 1, 1, 2, 1 }, dlx.max_pool2d(grid(5), { 2, 3 }, { stride = { 2, 3 } }).shape)
  end)

  it("lets NaN win (the last one) and keeps the first of ties, as PyTorch", function()
    local nan = 0 / 0
    local t = dlx.tensor({ { { 1, nan, 3, nan } } }, { dtype = "float32" })
    local v, i = dlx.max_pool2d(t, { 1, 4 }, { return_indices = true })
    assert.is_true(h.isnan(v:item()))
    assert.equal(4, i:item())
    local ties = dlx.tensor({ { { 2, 1, 2 } } }, { dtype = "float32" })
    v, i = dlx.max_pool2d(ties, { 1, 3 }, { return_indices = true })
    assert.equal(2, v:item())
    assert.equal(1, i:item())
    v, i = dlx.max_pool2d(dlx.tensor({ { { -math.huge, -math.huge } } }), { 1, 2 },
      { return_indices = true })
    assert.equal(-math.huge, v:item())
    assert.equal(1, i:item())
  end)

  it("takes (C, H, W) and (N, C, H, W), and transposed views", function()
    local t = dlx.rand({ 2, 3, 8, 9 })
    local v, i = dlx.max_pool2d(t, 3, { stride = 2, return_indices = true })
    assert.same({ 2, 3, 3, 4 }, v.shape)
    local v3, i3 = dlx.max_pool2d(t[2], 3, { stride = 2, return_indices = true })
    h.same_bits(v[2], v3)
    h.same_bits(i[2], i3)
    local tt = t:transpose(3, 4):contiguous():transpose(3, 4)
    h.same_bits(v, dlx.max_pool2d(tt, 3, { stride = 2 }))
  end)
end)

describe("avg_pool2d", function()
  it("averages each window, with PyTorch's divisors", function()
    h.same({ { 2.5, 4.5 }, { 10.5, 12.5 } }, dlx.avg_pool2d(grid(4), 2)[1][1]:totable())
    local ones = dlx.ones({ 1, 3, 3 }, { dtype = "float64" })
    local incl = dlx.avg_pool2d(ones, 3, { stride = 1, padding = 1 })
    h.same({ { 4 / 9, 6 / 9, 4 / 9 }, { 6 / 9, 1, 6 / 9 }, { 4 / 9, 6 / 9, 4 / 9 } },
      incl[1]:totable())
    local excl = dlx.avg_pool2d(ones, 3, { stride = 1, padding = 1, count_include_pad = false })
    h.same({ { 1, 1, 1 }, { 1, 1, 1 }, { 1, 1, 1 } }, excl[1]:totable())
    local div = dlx.avg_pool2d(ones, 3, { stride = 1, padding = 1, divisor_override = 2 })
    h.same({ { 2, 3, 2 }, { 3, 4.5, 3 }, { 2, 3, 2 } }, div[1]:totable())
  end)

  it("with ceil_mode, clips the last window to the input plus its padding", function()
    local t = dlx.ones({ 1, 5, 5 }, { dtype = "float64" })
    local out = dlx.avg_pool2d(t, 2, { ceil_mode = true })
    -- the last windows run past the input: their divisors count only what is inside
    h.same({ 1, 1, 1 }, out[1][3]:totable())
    out = dlx.avg_pool2d(t, 2, { ceil_mode = true, divisor_override = 4 })
    h.same({ 1, 1, 0.5 }, out[1][1]:totable())
    h.same({ 0.5, 0.5, 0.25 }, out[1][3]:totable())
  end)
end)

describe("interpolate", function()
  local t22 = dlx.tensor({ { { { 1, 2 }, { 3, 4 } } } }, { dtype = "float32" })

  it("nearest repeats the source pixels (PyTorch's floor rule)", function()
    h.same({ { 1, 1, 2, 2 }, { 1, 1, 2, 2 }, { 3, 3, 4, 4 }, { 3, 3, 4, 4 } },
      dlx.interpolate(t22, { scale_factor = 2 })[1][1]:totable())
    h.same({ { 1, 1, 2 }, { 3, 3, 4 } }, dlx.interpolate(t22, { size = { 2, 3 } })[1][1]:totable())
    h.same({ { 0, 2, 4 } }, dlx.interpolate(grid(6), { size = { 1, 3 } })[1][1]:totable())
  end)

  it("nearest steps by 1 / scale_factor even where out is in or 2 * in", function()
    -- PyTorch's CUDA kernels and its CPU kernel on images wider than about 119 columns give
    -- these rows; its CPU kernel on narrower 2-d inputs copies (out == in) or halves
    -- (out == 2 * in) whatever the scale (docs/lua-api.md, "dlx.interpolate")
    local col = dlx.arange(0, 5, { dtype = "float32" }):reshape({ 1, 1, 5, 1 })
    local rows = function(t) return t:reshape({ -1 }):totable() end
    h.same({ 0, 0, 0, 1, 1, 2, 2, 3, 3, 4 },
      rows(dlx.interpolate(col, { scale_factor = { 2.08, 1 } })))
    h.same({ 0, 0, 1, 2, 3 }, rows(dlx.interpolate(col, { scale_factor = { 1.04, 1 } })))
    h.same({ 0, 0, 1, 1, 2, 2, 3, 3, 4, 4 }, rows(dlx.interpolate(col, { size = { 10, 1 } })))
  end)

  it("bilinear, with and without align_corners", function()
    h.same({ { 1, 1.25, 1.75, 2 }, { 1.5, 1.75, 2.25, 2.5 }, { 2.5, 2.75, 3.25, 3.5 },
      { 3, 3.25, 3.75, 4 } }, dlx.interpolate(t22, { size = 4, mode = "bilinear" })[1][1]:totable())
    h.same({ { 1, 1.5, 2 }, { 2, 2.5, 3 }, { 3, 3.5, 4 } },
      dlx.interpolate(t22, { size = 3, mode = "bilinear", align_corners = true })[1][1]:totable())
    h.same({ { 2.5 } }, dlx.interpolate(t22, { size = 1, mode = "bilinear" })[1][1]:totable())
  end)

  it("bicubic with A = -0.75: the identity at scale 1, overshoot at edges", function()
    local t = dlx.rand({ 1, 2, 5, 6 }, { dtype = "float64" })
    h.same_bits(t, dlx.interpolate(t, { size = { 5, 6 }, mode = "bicubic" }))
    h.same_bits(t, dlx.interpolate(t, { size = { 5, 6 }, mode = "bicubic", align_corners = true }))
    local step = dlx.tensor({ { { { 0, 0, 1, 1 } } } }, { dtype = "float64" })
    local up = dlx.interpolate(step, { size = { 1, 8 }, mode = "bicubic", align_corners = true })
    -- x = 3/7 between 0 and 1 past a step: Keys' kernel dips below 0 before the step
    assert.is_true(up[1][1][1][2] < 0)
    assert.is_true(up[1][1][1][7] > 1)
  end)

  it("sizes the output as PyTorch: floor(in * scale_factor), positions by the scale", function()
    local t = dlx.zeros({ 1, 1, 5, 7 })
    assert.same({ 1, 1, 7, 4 }, dlx.interpolate(t, { scale_factor = { 1.5, 0.6 } }).shape)
    -- a scale_factor of 1.7 on 5 rows gives 8 rows whose positions step by 1 / 1.7, not 5 / 8
    local col = dlx.arange(0, 5, { dtype = "float64" }):reshape({ 1, 1, 5, 1 })
    local up = dlx.interpolate(col, { scale_factor = { 1.7, 1 }, mode = "bilinear" })
    assert.same({ 1, 1, 8, 1 }, up.shape)
    h.assert_close(1.5 / 1.7 - 0.5, up[1][1][2][1], 1e-15, 0)
  end)

  it("gives the same bits on 1 and 2 threads", function()
    local t = dlx.rand({ 2, 3, 300, 200 })
    local n = dlx.get_num_threads()
    local run = function()
      return { dlx.interpolate(t, { size = { 123, 457 }, mode = "bicubic" }),
        dlx.interpolate(t, { scale_factor = 0.5, mode = "bilinear" }),
        dlx.max_pool2d(t, 3, { stride = 2, return_indices = true }), dlx.avg_pool2d(t, 3) }
    end
    dlx.set_num_threads(1)
    local one = run()
    dlx.set_num_threads(2)
    local two = run()
    dlx.set_num_threads(n)
    for i = 1, #one do h.same_bits(one[i], two[i]) end
  end)
end)

describe("pooling and resizing errors", function()
  local t = dlx.zeros({ 1, 1, 4, 4 })

  it("are TypeErrors for a bad dtype, argument or option", function()
    h.raises("TypeError", dlx.max_pool2d, dlx.zeros({ 1, 4, 4 }, { dtype = "int64" }), 2)
    h.raises("TypeError", dlx.interpolate, dlx.zeros({ 1, 1, 4, 4 }, { dtype = "float16" }),
      { size = 2 })
    h.raises("TypeError", dlx.max_pool2d, "image", 2)
    h.raises("TypeError", dlx.max_pool2d, t, "2")
    h.raises("TypeError", dlx.avg_pool2d, t, 2, { dilation = 2 })
    h.raises("TypeError", dlx.max_pool2d, t, 2, { ceil_mode = 1 })
    h.raises("TypeError", dlx.interpolate, t, 2)
    h.raises("TypeError", dlx.interpolate, t, { size = 2, antialias = true })
    h.raises("TypeError", dlx.interpolate, t, { scale_factor = "2" })
  end)

  it("are ValueErrors for bad shapes, sizes and parameters", function()
    h.raises("ValueError", dlx.max_pool2d, dlx.zeros({ 4, 4 }), 2)
    h.raises("ValueError", dlx.interpolate, dlx.zeros({ 1, 4, 4 }), { size = 2 })
    h.raises("ValueError", dlx.max_pool2d, t, 0)
    h.raises("ValueError", dlx.max_pool2d, t, 2, { padding = 2 })
    h.raises("ValueError", dlx.max_pool2d, t, 5)
    h.raises("ValueError", dlx.max_pool2d, t, { 2, 2, 2 })
    h.raises("ValueError", dlx.avg_pool2d, t, 2, { divisor_override = 0 })
    h.raises("ValueError", dlx.interpolate, t, { size = 2, scale_factor = 2 })
    h.raises("ValueError", dlx.interpolate, t, {})
    h.raises("ValueError", dlx.interpolate, t, { size = 0 })
    h.raises("ValueError", dlx.interpolate, t, { scale_factor = 0.1 })
    h.raises("ValueError", dlx.interpolate, t, { scale_factor = -1 })
    h.raises("ValueError", dlx.interpolate, t, { size = 2, mode = "linear" })
    h.raises("ValueError", dlx.interpolate, t, { size = 2, align_corners = false })
    h.raises("ValueError", dlx.max_pool2d, dlx.zeros({ 1, 0, 4 }), 1)
  end)
end)
