--- oneapi (Level Zero) median, nanmedian, kthvalue, quantile, nanquantile (sorted on the device,
--- picked with its elementwise ops, sums and gathers), nansum, nanmean and count_nonzero against
--- the CPU's results on the same data, and the DeviceErrors of mode, cummax, cummin and
--- logcumsumexp (the cases of spec/order_stats_device.lua).
local h = require "spec.helper"

describe("oneapi order statistics #oneapi", function()
  if not h.has_device("oneapi:0", pending) then return end
  require "spec.order_stats_device" ("oneapi:0", it)
end)
