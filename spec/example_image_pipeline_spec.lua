-- examples/image_pipeline.lua runs (a fresh lua5.4 with this tree's package paths) and prints
-- what it says: the resized input's shape, probabilities that sum to 1, and 5 class ids in
-- 1..10.
local h = require "spec.helper"

describe("examples/image_pipeline.lua", function()
  it("resizes, normalises and samples class ids", function()
    local out, ok = h.run_lua('dofile("examples/image_pipeline.lua")')
    assert.is_true(ok, out)
    assert.truthy(out:find("input shape\t1 x 3 x 224 x 224", 1, true), out)
    local probs = out:match("class probabilities\ttensor%(%[%[(.-)%]%]")
    local sum, n = 0, 0
    for v in probs:gmatch("[%d.e-]+") do sum, n = sum + tonumber(v), n + 1 end
    assert.equal(10, n)
    h.assert_close(1, sum, 1e-5, 0)
    local ids = out:match("sampled class ids\ttensor%(%[%[(.-)%]%]")
    local count = 0
    for v in ids:gmatch("%d+") do
      count = count + 1
      assert.is_true(tonumber(v) >= 1 and tonumber(v) <= 10, out)
    end
    assert.equal(5, count)
  end)
end)
