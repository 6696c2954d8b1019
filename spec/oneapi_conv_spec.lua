--- oneapi (Level Zero) convolutions: the cases of spec/conv_device.lua (conv1d, conv2d, conv3d,
-- convolve, correlate against sums written out in Lua, integers included: dlx's own matmul
-- kernel multiplies them) on oneapi:0. Without a Level Zero device (a GPU, or the test driver
-- of tests/ze_driver) the specs are reported pending.
local h = require "spec.helper"

describe("oneapi convolutions #oneapi", function()
  if not h.has_device("oneapi:0", pending) then return end
  require "spec.conv_device" ("oneapi:0", it, { integers = true })
end)
