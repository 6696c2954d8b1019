-- Properties: shape, strides, ndim, numel, dtype, itemsize, nbytes, device, readonly, #t.
local h = require "spec.helper"
local dlx = h.dlx

describe("tensor properties", function()
  it("describe a contiguous tensor", function()
    local t = dlx.zeros({ 2, 3, 4 }, { dtype = "int16" })
    h.exact({ 2, 3, 4 }, t.shape)
    h.exact({ 12, 4, 1 }, t.strides)
    assert.equal(3, t.ndim)
    assert.equal(24, t.numel)
    assert.equal("int16", t.dtype)
    assert.equal(2, t.itemsize)
    assert.equal(48, t.nbytes)
    assert.is_true(t.device == dlx.device("cpu"))
    assert.equal(false, t.readonly)
  end)

  it("are integers", function()
    local t = dlx.zeros({ 2, 3 })
    assert.equal("integer", math.type(t.ndim))
    assert.equal("integer", math.type(t.numel))
    assert.equal("integer", math.type(t.nbytes))
    assert.equal("integer", math.type(t.shape[1]))
    assert.equal("integer", math.type(t.strides[1]))
  end)

  it("give new tables for shape and strides", function()
    local t = dlx.zeros({ 2, 3 })
    local s = t.shape
    s[1] = 99
    local st = t.strides
    st[2] = 99
    h.exact({ 2, 3 }, t.shape)
    h.exact({ 3, 1 }, t.strides)
    assert.is_false(rawequal(t.shape, t.shape))
  end)

  it("describe a 0-d tensor", function()
    local t = dlx.tensor(5)
    h.exact({}, t.shape)
    h.exact({}, t.strides)
    assert.equal(0, t.ndim)
    assert.equal(1, t.numel)
    assert.equal(8, t.nbytes)
  end)

  it("describe views: nbytes counts the view's elements, not the buffer", function()
    local t = dlx.zeros({ 4, 6 }, { dtype = "float64" })
    local v = t:slice(2, 1, 6, 2)
    h.exact({ 4, 3 }, v.shape)
    h.exact({ 6, 2 }, v.strides)
    assert.equal(12, v.numel)
    assert.equal(96, v.nbytes)
    local tr = t:transpose(1, 2)
    h.exact({ 6, 4 }, tr.shape)
    h.exact({ 1, 6 }, tr.strides)
  end)

  it("show negative and zero strides", function()
    local t = dlx.zeros({ 3, 4 })
    h.exact({ 4, -1 }, t:flip(2).strides)
    h.exact({ -4, 1 }, t:flip(1).strides)
    h.exact({ 0, 4, 1 }, t:expand({ 5, 3, 4 }).strides)
  end)

  it("count zero-size tensors", function()
    local t = dlx.zeros({ 3, 0 })
    assert.equal(0, t.numel)
    assert.equal(0, t.nbytes)
    h.exact({ 3, 0 }, t.shape)
  end)

  it("# is the size of the first dim", function()
    assert.equal(2, #dlx.zeros({ 2, 5 }))
    assert.equal(7, #dlx.zeros(7))
    assert.equal(0, #dlx.zeros({ 0, 3 }))
    assert.equal(5, #dlx.zeros({ 2, 5 }):transpose(1, 2))
  end)

  it("# of a 0-d tensor is a TypeError", function()
    local t = dlx.tensor(1)
    h.raises("TypeError", function() return #t end)
  end)

  it("readonly is false for dlx's own tensors and their views", function()
    local t = dlx.ones({ 3 })
    assert.equal(false, t.readonly)
    assert.equal(false, t:flip(1).readonly)
    assert.equal(false, t:clone().readonly)
  end)

  it("readonly is true for a READ_ONLY import and its views", function()
    local t = h.readonly_tensor({ 2, 3 })
    assert.equal(true, t.readonly)
    assert.equal(true, t:transpose(1, 2).readonly)
    assert.equal(true, t:select(1, 1).readonly)
    assert.equal(true, t:view({ 6 }).readonly)
  end)

  it("tell tensors from other values with dlx.is_tensor", function()
    local t = dlx.zeros({ 2 })
    assert.is_true(dlx.is_tensor(t))
    assert.is_true(dlx.is_tensor(t:view({ 1, 2 })))
    local cap = t:__dlpack()
    assert.is_false(dlx.is_tensor(cap))
    assert.is_true(dlx.is_tensor(dlx.from_dlpack(cap)))
    for _, v in ipairs({ 1, "t", {}, true, io.stdout, dlx.device("cpu") }) do
      assert.is_false(dlx.is_tensor(v))
    end
    t:close()
    assert.is_true(dlx.is_tensor(t)) -- closed, but still a tensor
  end)
end)
