-- #gpu: dlx.max_pool2d, dlx.avg_pool2d and dlx.interpolate on CUDA devices (composed of views,
-- reductions, gathers and elementwise ops) against the CPU's kernels: the cases of
-- spec/image_device.lua.
local h = require "spec.helper"

describe("#gpu CUDA pooling and resizing", function()
  if not h.has_device("cuda:0", pending) then return end
  require "spec.image_device" ("cuda:0", it)
end)
