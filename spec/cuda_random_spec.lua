--- #gpu: random numbers on CUDA devices against the CPU's, bit for bit (spec/random_device.lua):
--- the kernel of src/cuda/random_kernels.cu, and cuda_host / cuda_managed memory, filled on the
--- CPU after the GPU is idle.
local h = require "spec.helper"

describe("#gpu CUDA random numbers", function()
  if not h.has_device("cuda:0", pending) then return end
  require "spec.random_device" ("cuda:0", it)
end)

describe("#gpu CUDA host and managed memory random numbers", function()
  if not h.has_device("cuda_host", pending) then return end
  require "spec.random_device" ("cuda_host", it)
  require "spec.random_device" ("cuda_managed", it)
end)
