--- oneapi (Level Zero) sort, argsort, topk and unique against the CPU's, bit for bit
--- (spec/sort_device.lua). On the test driver the kernel is its reference (each phase in C), so
--- these check the host side: the phases' launches, the bitonic steps, the scratch; the OpenCL
--- kernel itself is checked against the CPU on PoCL (ctest ze.kernels_pocl).
local h = require "spec.helper"

describe("oneapi sorting #oneapi", function()
  if not h.has_device("oneapi:0", pending) then return end
  require "spec.sort_device" ("oneapi:0", it)
end)
