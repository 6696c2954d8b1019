--- oneapi (Level Zero) median, nanmedian, kthvalue, quantile, nanquantile and mode (sorted on the
--- device, picked with its elementwise ops, sums, scans and gathers), cummax, cummin and
--- logcumsumexp (its row_op), nansum, nanmean and count_nonzero against the CPU's results on the
--- same data (the cases of spec/order_stats_device.lua).
local h = require "spec.helper"

describe("oneapi order statistics #oneapi", function()
  if not h.has_device("oneapi:0", pending) then return end
  require "spec.order_stats_device" ("oneapi:0", it)
end)
