--- #gpu: median, nanmedian, kthvalue, quantile, nanquantile (the rows sorted by CUB, picked with
--- the elementwise, reduce and gather kernels), nansum, nanmean and count_nonzero on CUDA devices
--- against the CPU's results on the same data, and the DeviceErrors of mode, cummax, cummin and
--- logcumsumexp (the cases of spec/order_stats_device.lua).
local h = require "spec.helper"

describe("#gpu CUDA order statistics", function()
  if not h.has_device("cuda:0", pending) then return end
  require "spec.order_stats_device" ("cuda:0", it)
end)
