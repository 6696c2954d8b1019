--- oneapi (Level Zero) pooling and resizing: the cases of spec/image_device.lua (max_pool2d,
-- avg_pool2d and interpolate, composed of views, reductions, gathers and elementwise ops) on
-- oneapi:0, each checked against the CPU's kernels. Without a Level Zero device (a GPU, or the
-- test driver of tests/ze_driver) the specs are reported pending.
local h = require "spec.helper"

describe("oneapi pooling and resizing #oneapi", function()
  if not h.has_device("oneapi:0", pending) then return end
  require "spec.image_device" ("oneapi:0", it)
end)
