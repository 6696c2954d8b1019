--- #gpu: index_select, gather, scatter_, scatter_add_, index_add_, the masked ops and nonzero on
--- CUDA devices against the CPU's, bit for bit (spec/indexing_device.lua): the kernels of
--- src/cuda/indexing_kernels.cu, and cuda_host / cuda_managed memory, indexed on the CPU after
--- the GPU is idle.
local h = require "spec.helper"

describe("#gpu CUDA indexing", function()
  if not h.has_device("cuda:0", pending) then return end
  require "spec.indexing_device" ("cuda:0", it)
end)

describe("#gpu CUDA host and managed memory indexing", function()
  if not h.has_device("cuda_host", pending) then return end
  require "spec.indexing_device" ("cuda_host", it)
  require "spec.indexing_device" ("cuda_managed", it)
end)
