--- oneapi and the memory functions: Level Zero has no caching allocator, so dlx.memory_cached
-- answers 0 for its devices and dlx.empty_cache leaves them alone; the CPU's cache is its own.
local h = require "spec.helper"
local dlx = h.dlx

local MIB = 1 << 20

describe("oneapi memory #oneapi", function()
  if not h.has_device("oneapi:0", pending) then return end

  after_each(function()
    dlx.set_default_device("cpu")
    collectgarbage()
    dlx.empty_cache()
  end)

  it("keeps no cache: a freed tensor's memory goes back at once", function()
    collectgarbage()
    collectgarbage()
    local before = dlx.memory_allocated("oneapi:0")
    local t = dlx.empty(MIB // 4, { device = "oneapi:0" })
    assert.equal(before + MIB, dlx.memory_allocated("oneapi:0"))
    t:close()
    assert.equal(before, dlx.memory_allocated("oneapi:0"))
    assert.equal(0, dlx.memory_cached("oneapi:0"))
    for _, usm in ipairs { "host", "shared" } do
      dlx.empty(MIB // 4, { device = "oneapi:0", usm = usm }):close()
      assert.equal(0, dlx.memory_cached("oneapi:0"))
    end
    dlx.empty_cache("oneapi:0")
    dlx.empty_cache(dlx.device("oneapi:0"))
  end)

  it("answers for the default device without an argument, and the CPU's cache apart", function()
    dlx.empty_cache()
    dlx.empty(MIB // 4, { device = "cpu" }):close()
    assert.equal(MIB, dlx.memory_cached("cpu"))
    dlx.set_default_device("oneapi:0")
    assert.equal(0, dlx.memory_cached())
    dlx.empty_cache("oneapi:0") -- another backend's: the CPU's blocks stay
    assert.equal(MIB, dlx.memory_cached("cpu"))
    dlx.empty_cache()
    assert.equal(0, dlx.memory_cached("cpu"))
  end)

  it("copies to and from the CPU through cached CPU blocks", function()
    local host = dlx.arange(MIB // 4, { dtype = "float32" })
    for _ = 1, 3 do
      local back = host:to("oneapi:0"):to("cpu")
      assert.equal(host:sum():item(), back:sum():item())
      back:close()
    end
    assert.is_true(dlx.memory_cached("cpu") >= MIB)
    assert.equal(0, dlx.memory_cached("oneapi:0"))
  end)
end)
