--- #gpu: unique_consecutive and argwhere on CUDA devices against the CPU (the cases of
--- spec/runs_device.lua).
local h = require "spec.helper"

describe("#gpu CUDA unique_consecutive and argwhere", function()
  if not h.has_device("cuda:0", pending) then return end
  require "spec.runs_device" ("cuda:0", it)
end)
