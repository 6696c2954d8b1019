-- dlx.set_num_threads and dlx.get_num_threads: the CPU kernels' threads at run time; results
-- are the same bits on any number of threads.
local h = require "spec.helper"
local dlx = h.dlx

describe("dlx.set_num_threads(n) and dlx.get_num_threads()", function()
  local saved
  before_each(function() saved = dlx.get_num_threads() end)
  after_each(function() dlx.set_num_threads(saved) end)

  it("reads back what was set", function()
    assert.is_true(math.type(dlx.get_num_threads()) == "integer" and dlx.get_num_threads() >= 1)
    dlx.set_num_threads(1)
    assert.equal(1, dlx.get_num_threads())
    dlx.set_num_threads(3)
    assert.equal(3, dlx.get_num_threads())
  end)

  it("caps the count at the pool's largest", function()
    dlx.set_num_threads(1 << 40)
    assert.equal(1024, dlx.get_num_threads())
  end)

  it("refuses counts below 1 and non-integers", function()
    h.raises("ValueError", dlx.set_num_threads, 0)
    h.raises("ValueError", dlx.set_num_threads, -2)
    h.raises("ValueError", dlx.set_num_threads, 1.5)
    h.raises("TypeError", dlx.set_num_threads, "2")
    h.raises("TypeError", dlx.set_num_threads)
    assert.equal(saved, dlx.get_num_threads())
  end)

  it("gives the same bits on 1, 2 and 3 threads", function()
    -- large enough that the kernels split the work over threads (about 1 MiB per thread)
    local x = dlx.arange(1 << 20, { dtype = "float32" }):mul(1.0001):sin()
    local results = {}
    for _, n in ipairs({ 1, 2, 3 }) do
      dlx.set_num_threads(n)
      results[n] = {
        sum = x:sum():item(),
        var = x:var():item(),
        cumsum = x:cumsum(),
        mapped = x:exp(),
      }
    end
    for _, n in ipairs({ 2, 3 }) do
      assert.equal(results[1].sum, results[n].sum)
      assert.equal(results[1].var, results[n].var)
      assert.is_true(dlx.equal(results[1].cumsum, results[n].cumsum))
      assert.is_true(dlx.equal(results[1].mapped, results[n].mapped))
    end
  end)
end)
