--- oneapi (Level Zero) histc, histogram, bincount, searchsorted and bucketize (the backend's
--- count_op: the kernel dlx_count of src/ze/kernels/count.cl, which the test driver runs on the
--- CPU's count_op) against the CPU's results on the same data (the cases of spec/count_device.lua).
local h = require "spec.helper"

describe("oneapi counting and searching #oneapi", function()
  if not h.has_device("oneapi:0", pending) then return end
  require "spec.count_device" ("oneapi:0", it)
end)
