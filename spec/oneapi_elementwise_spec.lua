--- oneapi (Level Zero) elementwise ops against the CPU's results on the same data (the cases of
--- spec/elementwise_device.lua). On the test driver the kernel is its reference (the CPU
--- backend), so these check the host side: the launch, the argument block, the layouts; the
--- OpenCL kernel itself is checked on PoCL and Intel's runtime (ctest ze.kernels_pocl).
local h = require "spec.helper"

describe("oneapi elementwise ops #oneapi", function()
  if not h.has_device("oneapi:0", pending) then return end
  require "spec.elementwise_device" ("oneapi:0", it)
end)
