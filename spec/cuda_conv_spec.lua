-- #gpu: the convolutions on CUDA devices (the cases of spec/conv_device.lua: conv1d, conv2d,
-- conv3d, convolve, correlate against sums written out in Lua; no integers: cuBLAS multiplies
-- float types only, and an integer convolution there is matmul's TypeError).
local h = require "spec.helper"

describe("#gpu CUDA convolutions", function()
  if not h.has_device("cuda:0", pending) then return end
  require "spec.conv_device" ("cuda:0", it)
end)
