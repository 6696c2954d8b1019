--- oneapi (Level Zero) var, std, logsumexp, norm, cumsum, cumprod, softmax and log_softmax against
--- the CPU's results on the same data (the cases of spec/stats_device.lua). On the test driver
--- the kernels are its references (the CPU backend), so these check the host side: the launches,
--- the argument blocks, the layouts; the OpenCL kernels themselves are checked on PoCL and
--- Intel's runtime (ctest ze.kernels_pocl).
local h = require "spec.helper"

describe("oneapi statistics and ops along a dim #oneapi", function()
  if not h.has_device("oneapi:0", pending) then return end
  require "spec.stats_device" ("oneapi:0", it)
end)
