--- oneapi (Level Zero) small ops: the cases of spec/small_ops_device.lua (unfold, as_strided,
-- movedim, rot90, meshgrid, broadcast_tensors, roll, diff, dist, renorm, shares_memory) on
-- oneapi:0, each checked against the CPU. Without a Level Zero device (a GPU, or the test driver
-- of tests/ze_driver) the specs are reported pending.
local h = require "spec.helper"

describe("oneapi small ops #oneapi", function()
  if not h.has_device("oneapi:0", pending) then return end
  require "spec.small_ops_device" ("oneapi:0", it)
end)
