--- oneapi (Level Zero) unique_consecutive and argwhere: the cases of spec/runs_device.lua on
--- oneapi:0 against the CPU. Without a Level Zero device (a GPU, or the test driver of
--- tests/ze_driver) the specs are reported pending.
local h = require "spec.helper"

describe("oneapi unique_consecutive and argwhere #oneapi", function()
  if not h.has_device("oneapi:0", pending) then return end
  require "spec.runs_device" ("oneapi:0", it)
end)
