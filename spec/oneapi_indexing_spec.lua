--- oneapi (Level Zero) indexing against the CPU's, bit for bit (spec/indexing_device.lua). On the
--- test driver the kernel is its reference (the chunk phases in C, the moves on the CPU
--- backend), so these check the host side: the phases and their order, the walks and strides
--- in the argument block, the scratch, the first bad index read back; the OpenCL kernel itself
--- is checked against the CPU on PoCL (ctest ze.kernels_pocl).
local h = require "spec.helper"

describe("oneapi indexing #oneapi", function()
  if not h.has_device("oneapi:0", pending) then return end
  require "spec.indexing_device" ("oneapi:0", it)
end)
