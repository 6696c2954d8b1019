--- #gpu: sort, argsort, topk and unique on CUDA devices against the CPU's, bit for bit
--- (spec/sort_device.lua): CUB's radix sorts of src/cuda/sort_kernels.cu, and cuda_host /
--- cuda_managed memory, sorted on the CPU after the GPU is idle.
local h = require "spec.helper"

describe("#gpu CUDA sorting", function()
  if not h.has_device("cuda:0", pending) then return end
  require "spec.sort_device" ("cuda:0", it)
end)

describe("#gpu CUDA host and managed memory sorting", function()
  if not h.has_device("cuda_host", pending) then return end
  require "spec.sort_device" ("cuda_host", it)
  require "spec.sort_device" ("cuda_managed", it)
end)
