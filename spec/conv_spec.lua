-- conv1d, conv2d, conv3d, convolve and correlate on the CPU: the cases of spec/conv_device.lua
-- (against sums written out in Lua), then the options and the errors (PyTorch's and NumPy's
-- messages, in dlx's classes).
local h = require "spec.helper"
local dlx = h.dlx

describe("convolutions on the CPU", function()
  require "spec.conv_device" ("cpu", it, { integers = true })
end)

describe("convolution options and errors", function()
  local x, w = dlx.ones({ 1, 4, 5, 5 }), dlx.ones({ 2, 2, 3, 3 })

  it("gives PyTorch's shapes for its options", function()
    assert.same({ 1, 4, 3, 3 }, dlx.conv2d(x, dlx.ones({ 4, 4, 3, 3 })).shape)
    assert.same({ 1, 2, 5, 5 }, dlx.conv2d(x, w, { groups = 2, padding = "same" }).shape)
    assert.same({ 1, 2, 3, 2 },
      dlx.conv2d(x, w, { groups = 2, stride = { 2, 3 }, padding = 1 }).shape)
    assert.same({ 1, 2, 1, 1 }, dlx.conv2d(x, w, { groups = 2, dilation = 2 }).shape)
    assert.same({ 2, 3, 3 }, dlx.conv2d(dlx.ones({ 4, 5, 5 }), w, { groups = 2 }).shape)
    assert.same({ 3, 7 }, dlx.conv1d(dlx.ones({ 2, 9 }), dlx.ones({ 3, 2, 3 })).shape)
    assert.same({ 1, 1, 2, 2, 2 },
      dlx.conv3d(dlx.ones({ 1, 1, 3, 3, 3 }), dlx.ones({ 1, 1, 2, 2, 2 })).shape)
    -- the result's dtype is the promotion of input, weight and bias
    assert.equal("float64", dlx.conv1d(dlx.ones({ 1, 1, 4 }, { dtype = "float64" }),
      dlx.ones({ 1, 1, 2 })).dtype)
    assert.equal("float32", dlx.conv1d(dlx.ones({ 1, 1, 4 }, { dtype = "int32" }),
      dlx.ones({ 1, 1, 2 })).dtype)
    -- no input channels: the sums are empty, the bias alone
    h.same({ { { 3, 3 } } }, dlx.conv1d(dlx.ones({ 1, 0, 3 }), dlx.ones({ 1, 0, 2 }),
      { bias = dlx.tensor({ 3.0 }) }):totable())
  end)

  it("refuses bad channel and group counts with PyTorch's messages", function()
    local msg = h.raises("ValueError", dlx.conv2d, x, dlx.ones({ 2, 3, 3, 3 }))
    assert.truthy(msg:find("Given groups=1, weight of size {2, 3, 3, 3}, expected "
      .. "input{1, 4, 5, 5} to have 3 channels, but got 4 channels instead", 1, true), msg)
    msg = h.raises("ValueError", dlx.conv2d, x, dlx.ones({ 3, 2, 3, 3 }), { groups = 2 })
    assert.truthy(msg:find("expected weight to be divisible by 2 at dimension 0", 1, true), msg)
    msg = h.raises("ValueError", dlx.conv2d, x, w, { groups = 2, bias = dlx.ones({ 3 }) })
    assert.truthy(msg:find("expected bias to be 1-dimensional with 2 elements", 1, true), msg)
    msg = h.raises("ValueError", dlx.conv2d, x, w, { groups = 2, dilation = 3 })
    assert.truthy(msg:find("Kernel size can't be greater than actual input size", 1, true), msg)
    h.raises("ValueError", dlx.conv2d, x, w, { groups = 0 })
    h.raises("ValueError", dlx.conv2d, x, w, { groups = 3 })
  end)

  it("refuses bad strides, paddings, dilations and dims", function()
    h.raises("ValueError", dlx.conv2d, x, w, { groups = 2, stride = 0 })
    h.raises("ValueError", dlx.conv2d, x, w, { groups = 2, padding = -1 })
    h.raises("ValueError", dlx.conv2d, x, w, { groups = 2, dilation = { 1, 0 } })
    h.raises("ValueError", dlx.conv2d, x, w, { groups = 2, stride = { 1, 1, 1 } })
    local msg = h.raises("ValueError", dlx.conv2d, x, w, { groups = 2, padding = "same",
      stride = 2 })
    assert.truthy(msg:find("padding='same' is not supported for strided convolutions", 1, true))
    h.raises("ValueError", dlx.conv2d, x, w, { groups = 2, padding = "full" })
    msg = h.raises("ValueError", dlx.conv2d, dlx.ones({ 5, 5 }), w)
    assert.truthy(msg:find("Expected 3D (unbatched) or 4D (batched) input to conv2d", 1, true))
    h.raises("ValueError", dlx.conv2d, x, dlx.ones({ 2, 4, 3 }))
    h.raises("ValueError", dlx.conv1d, dlx.ones({ 1, 1, 2 }), dlx.ones({ 1, 1, 3 }))
    h.raises("ValueError", dlx.conv2d, x, w, { groups = 2, stride = 1.5 })
    -- absurd sizes: refused before any sum of them could overflow
    h.raises("ValueError", dlx.conv1d, dlx.ones({ 1, 1, 4 }), dlx.ones({ 1, 1, 2 }),
      { padding = 2 ^ 40 })
    h.raises("ValueError", dlx.conv1d, dlx.ones({ 1, 1, 4 }), dlx.empty({ 0, 1, 2 ^ 40 }),
      { dilation = 2 ^ 30 })
    h.raises("TypeError", dlx.conv2d, x, w, { groups = 2, stride = "1" })
    h.raises("TypeError", dlx.conv2d, x, w, { group = 2 })
    h.raises("TypeError", dlx.conv2d, x, w, 2)
    h.raises("TypeError", dlx.conv2d, x, { 1 })
    h.raises("TypeError", dlx.conv2d, x, w, { groups = 2, bias = 1 })
    h.raises("TypeError", dlx.conv1d, dlx.empty({ 1, 1, 4 }, { dtype = "float8_e4m3fn" }),
      dlx.ones({ 1, 1, 2 }))
  end)

  it("refuses bad convolve and correlate operands with NumPy's messages", function()
    local a = dlx.ones({ 3 })
    -- NumPy swaps first: the empty operand is then v
    local msg = h.raises("ValueError", dlx.convolve, dlx.ones({ 0 }), a)
    assert.truthy(msg:find("v cannot be empty", 1, true))
    msg = h.raises("ValueError", dlx.correlate, a, dlx.ones({ 0 }))
    assert.truthy(msg:find("second array argument cannot be empty", 1, true))
    msg = h.raises("ValueError", dlx.correlate, dlx.ones({ 0 }), a)
    assert.truthy(msg:find("first array argument cannot be empty", 1, true))
    msg = h.raises("ValueError", dlx.convolve, a, a, "middle")
    assert.truthy(msg:find("mode must be one of 'valid', 'same', or 'full'", 1, true))
    h.raises("ValueError", dlx.convolve, dlx.ones({ 2, 2 }), a)
    h.raises("TypeError", dlx.correlate, a, { 1, 2 })
    -- 0-d operands are one element, as NumPy's ndmin=1
    h.same({ 2, 2, 2 }, dlx.convolve(a, dlx.tensor(2.0)):totable())
    -- integers stay integers and wrap as NumPy's
    local r = dlx.convolve(dlx.tensor({ 1, 2 }, { dtype = "int8" }),
      dlx.tensor({ 100, 100 }, { dtype = "int8" }))
    assert.equal("int8", r.dtype)
    h.same({ 100, 44, -56 }, r:totable())
  end)
end)
