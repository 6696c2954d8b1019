--- #gpu: median, nanmedian, kthvalue, quantile, nanquantile and mode (the rows sorted by CUB,
--- picked with the elementwise, reduce, scan and gather kernels), cummax, cummin and logcumsumexp
--- (CUB's scan by key), nansum, nanmean and count_nonzero on CUDA devices against the CPU's
--- results on the same data (the cases of spec/order_stats_device.lua).
local h = require "spec.helper"

describe("#gpu CUDA order statistics", function()
  if not h.has_device("cuda:0", pending) then return end
  require "spec.order_stats_device" ("cuda:0", it)
end)
