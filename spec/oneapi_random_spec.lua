--- oneapi (Level Zero) random numbers against the CPU's, bit for bit (spec/random_device.lua).
--- On the test driver the kernels are its references (the CPU backend), so these check the host
--- side: the launches, the argument blocks, the generator's counter; the OpenCL kernel itself is
--- checked against the CPU on PoCL (ctest ze.kernels_pocl).
local h = require "spec.helper"

describe("oneapi random numbers #oneapi", function()
  if not h.has_device("oneapi:0", pending) then return end
  require "spec.random_device" ("oneapi:0", it)
end)
