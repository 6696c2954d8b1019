-- #gpu: the small ops on CUDA devices against the CPU (the cases of spec/small_ops_device.lua):
-- unfold, as_strided, movedim, rot90, meshgrid, broadcast_tensors, roll, diff, dist, renorm and
-- shares_memory.
local h = require "spec.helper"

describe("#gpu CUDA small ops", function()
  if not h.has_device("cuda:0", pending) then return end
  require "spec.small_ops_device" ("cuda:0", it)
end)
