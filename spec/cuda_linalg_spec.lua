--- #gpu: matrix products on CUDA devices through cuBLAS (src/cuda/blas.c; the request mapped by
--- src/cuda/blas_plan.h) against a CPU reference, the cases of spec/linalg_device.lua; the TF32
--- switch; products on the calling thread's current stream; dlx.linalg's decompositions through
--- cuSOLVER (src/cuda/solver.c, linalg_plan.h), the cases of spec/linalg_decomp_device.lua. The
--- parts without #gpu (the switch itself) run everywhere.
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

describe("#gpu CUDA matrix products", function()
  if not h.has_device("cuda:0", pending) then return end
  require "spec.linalg_device" ("cuda:0", it)

  it("computes float32 in float32 by default; allow_tf32 lets cuBLAS round to TF32", function()
    local x = 1 + 2 ^ -12 -- a float32 that TF32 (10 significand bits) rounds to 1
    local a = dlx.full({ 256, 256 }, x, { dtype = "float32" }):to("cuda:0")
    local b = dlx.ones({ 256, 256 }, { dtype = "float32" }):to("cuda:0")
    local exact = dlx.matmul(a, b)
    assert.are.equal(256 * x, exact:max():item())
    assert.are.equal(256 * x, exact:min():item())
    dlx.cuda.allow_tf32(true)
    local ok, fast = pcall(dlx.matmul, a, b)
    dlx.cuda.allow_tf32(false)
    assert.is_true(ok, fast)
    -- sm_80 and later have TF32: cuBLAS's TF32 kernels see x as 1
    assert.are.equal(256, fast:max():item(), "the switch on: no TF32 kernel was used")
    assert.are.equal(256 * x, dlx.matmul(a, b):max():item(), "the switch off again")
  end)

  it("queues the product on the current stream", function()
    local s = dlx.stream("cuda:0")
    local a = dlx.zeros({ 512, 512 }, { dtype = "float32" }):to("cuda:0")
    local b = dlx.full({ 512, 512 }, 3, { dtype = "float32" }):to("cuda:0")
    dlx.cuda.synchronize()
    local c = dlx.with_stream(s, function()
      dlx.cuda.busy_wait(200000000) -- s is busy: the fill and the product wait behind it
      a:fill_(2)
      return dlx.matmul(a, b)
    end)
    s:synchronize()
    assert.are.equal(3072, c:min():item()) -- a product on another stream would see zeros
    assert.are.equal(3072, c:max():item())
    s:close()
  end)

  it("gives the same bits on every call (one workspace per stream)", function()
    local a, b = dlx.randn({ 300, 500 }):to("cuda:0"), dlx.randn({ 500, 200 }):to("cuda:0")
    local first = dlx.matmul(a, b)
    for _ = 1, 3 do assert.is_true(dlx.equal(first, dlx.matmul(a, b))) end
  end)
end)

describe("#gpu CUDA decompositions", function()
  if not h.has_device("cuda:0", pending) then return end
  require "spec.linalg_decomp_device" ("cuda:0", it, { lstsq_qr = true })

  it("decomposes on the current stream", function()
    local s = dlx.stream("cuda:0")
    local a = dlx.zeros({ 64, 64 }, { dtype = "float64" }):to("cuda:0")
    local inv = dlx.with_stream(s, function()
      dlx.cuda.busy_wait(200000000) -- s is busy: the fill and the factorisation wait behind it
      a:fill_(0)
      a:diagonal():fill_(4)
      return dlx.linalg.inv(a)
    end)
    s:synchronize()
    assert.are.equal(0.25, inv:diagonal():min():item())
    assert.are.equal(0.25, inv:max():item())
    s:close()
  end)
end)

describe("#gpu CUDA host and managed memory products", function()
  if not h.has_device("cuda_host", pending) then return end
  -- pinned and managed memory compute on the CPU once the host-memory routing of the backend
  -- contract reaches matmul; until then their products are a DeviceError
  local ok, err = pcall(dlx.matmul, dlx.ones({ 2, 2 }):to("cuda_host"),
    dlx.ones({ 2, 2 }):to("cuda_host"))
  if not ok then
    pending("matmul on cuda_host is not routed to the CPU yet: " .. tostring(err))
    return
  end
  require "spec.linalg_device" ("cuda_host", it, { integers = true })
  require "spec.linalg_device" ("cuda_managed", it, { integers = true })
end)
