--- #gpu: histc, histogram, bincount, searchsorted and bucketize on CUDA devices (the backend's
--- count_op: src/cuda/count_kernels.cu) against the CPU's results on the same data (the cases of
--- spec/count_device.lua).
local h = require "spec.helper"

describe("#gpu CUDA counting and searching", function()
  if not h.has_device("cuda:0", pending) then return end
  require "spec.count_device" ("cuda:0", it)
end)
