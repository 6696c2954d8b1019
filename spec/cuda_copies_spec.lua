-- #gpu: copies on CUDA devices, each checked against the same copy on the CPU: the cases of
-- spec/copies_device.lua (host <-> device for every dtype, device <-> device on one GPU and
-- between two, strided and permuted copies: the tiled transpose kernel for every element size,
-- odd shapes, unaligned views, negative strides; casts between every computable pair, fills,
-- packed fp4 and fp6 through the host), and CUDA's own: pageable memory through the pinned
-- staging buffers, pinned and managed memory moved directly.
local h = require "spec.helper"
local dlx = h.dlx

describe("#gpu CUDA copies", function()
  if not h.has_device("cuda:0", pending) then return end
  dlx.set_default_device("cpu") -- tensors made without a device are the CPU references
  require "spec.copies_device" ("cuda:0", it, pending)

  it("moves large pageable tensors through the staging buffers, both ways", function()
    local n = 5 * 1000 * 1000 + 7 -- 40 MB of float64: several 8 MiB chunks and a tail
    local x = dlx.arange(n, { dtype = "float64" })
    local g = x:to("cuda")
    assert.are.equal((n - 1) * n / 2, g:sum():item())
    local back = g:to("cpu")
    for _, i in ipairs { 1, 2, 1048577, 2097153, n - 1, n } do
      assert.are.equal(i - 1, back:select(1, i):item())
    end
  end)

  it("moves pinned and managed memory directly", function()
    for _, spec in ipairs { "cuda_host", "cuda_managed" } do
      local x = dlx.arange(3000000, { device = spec, dtype = "int64" })
      local g = x:to("cuda")
      local back = g:to(spec)
      assert.are.equal(tostring(back.device), spec)
      assert.are.equal(x:sum():item(), back:sum():item())
      assert.are.equal(2999999, back:select(1, 3000000):item())
    end
  end)
end)
