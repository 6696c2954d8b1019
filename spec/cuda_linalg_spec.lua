--- dlx.cuda.allow_tf32: the TF32 switch of matrix products (off at first), which the products
--- pass to the backends in each request; the CPU has no TF32 and ignores it.
local h = require "spec.helper"
local dlx = h.dlx

describe("dlx.cuda.allow_tf32", function()
  it("is off at first, returns the value it had when set, and takes only booleans", function()
    assert.is_false(dlx.cuda.allow_tf32())
    assert.is_false(dlx.cuda.allow_tf32(true))
    assert.is_true(dlx.cuda.allow_tf32())
    assert.is_true(dlx.cuda.allow_tf32(false))
    assert.is_false(dlx.cuda.allow_tf32())
    h.raises("TypeError", dlx.cuda.allow_tf32, 1)
    h.raises("TypeError", dlx.cuda.allow_tf32, "yes")
    assert.is_false(dlx.cuda.allow_tf32())
  end)

  it("changes nothing on the CPU, which has no TF32", function()
    local a, b = dlx.randn({ 70, 80 }), dlx.randn({ 80, 60 })
    local c64 = dlx.randn({ 30, 40 }):astype("complex64")
    local before, cbefore = dlx.matmul(a, b), dlx.matmul(c64, c64:transpose(1, 2))
    dlx.cuda.allow_tf32(true)
    local ok, after = pcall(dlx.matmul, a, b)
    local cafter = ok and dlx.matmul(c64, c64:transpose(1, 2))
    dlx.cuda.allow_tf32(false)
    assert.is_true(ok, after)
    assert.is_true(dlx.equal(before, after))
    assert.is_true(dlx.equal(cbefore, cafter))
  end)
end)
