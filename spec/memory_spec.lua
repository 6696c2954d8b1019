--- Memory: dlx.memory_cached and dlx.empty_cache on every device, the CPU block cache and its
-- limit (DLX_CPU_CACHE_BYTES), and the collection and retry before a MemoryError.
local h = require "spec.helper"
local dlx = h.dlx

local MIB = 1 << 20
local FLOATS_PER_MIB = MIB // 4
-- More than the address space: an allocation that fails on every machine.
local TOO_LARGE = 1 << 46

-- Cached blocks and garbage tensors of other specs out of the way.
local function clean()
  collectgarbage()
  collectgarbage()
  dlx.empty_cache()
end

describe("the CPU block cache", function()
  before_each(clean)
  after_each(clean)

  it("keeps a freed block and hands it out again", function()
    local before = dlx.memory_allocated("cpu")
    local t = dlx.empty(FLOATS_PER_MIB)
    assert.equal(before + MIB, dlx.memory_allocated("cpu"))
    assert.equal(0, dlx.memory_cached("cpu"))
    t:close()
    assert.equal(before, dlx.memory_allocated("cpu"))
    assert.equal(MIB, dlx.memory_cached("cpu"))
    local u = dlx.zeros(FLOATS_PER_MIB - 100) -- a little smaller: the same size class
    assert.equal(0, dlx.memory_cached("cpu"))
    assert.equal(0, u:sum():item()) -- zeros on a used block are zeros
    u:close()
    assert.equal(MIB, dlx.memory_cached("cpu"))
  end)

  it("leaves blocks under 64 KiB to malloc", function()
    local t = dlx.empty(1000)
    t:close()
    assert.equal(0, dlx.memory_cached("cpu"))
  end)

  it("rounds a block up to its size class", function()
    local t = dlx.empty(FLOATS_PER_MIB + 1) -- 1 MiB + 4 bytes: the 1.25 MiB class
    t:close()
    assert.equal(MIB + MIB // 4, dlx.memory_cached("cpu"))
  end)

  it("gets blocks back from tensors the collector frees", function()
    dlx.ones(FLOATS_PER_MIB) -- garbage at once
    collectgarbage()
    assert.equal(MIB, dlx.memory_cached("cpu"))
  end)

  it("runs a loop of temporaries without growing", function()
    local x = dlx.ones(1 << 18)
    local before = dlx.memory_allocated("cpu")
    local r = {}
    for i = 1, 300 do
      r[i] = x:astype("float64"):sum()
      -- every temporary is 2 MiB: the collector keeps a few of them alive at most
      assert.is_true(dlx.memory_allocated("cpu") - before < 64 * MIB)
      assert.is_true(dlx.memory_cached("cpu") < 64 * MIB)
    end
    assert.equal(1 << 18, r[300]:item())
  end)

  it("paces small temporaries too: their bytes reach the collector in batches", function()
    local before = dlx.memory_allocated("cpu")
    local most = 0
    for _ = 1, 4000 do
      local _ = dlx.empty(8192) -- 32 KiB outside the Lua heap, under 1 KiB inside it
      most = math.max(most, dlx.memory_allocated("cpu") - before)
    end
    -- 125 MiB made in all; unreported, they would pile up until the Lua heap alone doubled
    assert.is_true(most < 32 * MIB, "peak " .. most)
  end)
end)

describe("dlx.memory_cached and dlx.empty_cache", function()
  before_each(clean)
  after_each(function()
    dlx.set_default_device("cpu")
    clean()
  end)

  it("empty the cache of one device's backend or of every backend", function()
    dlx.empty(2 * FLOATS_PER_MIB):close()
    assert.equal(2 * MIB, dlx.memory_cached("cpu"))
    dlx.empty_cache("cpu")
    assert.equal(0, dlx.memory_cached("cpu"))
    dlx.empty(2 * FLOATS_PER_MIB):close()
    dlx.empty_cache(dlx.device("cpu"))
    assert.equal(0, dlx.memory_cached("cpu"))
    dlx.empty(2 * FLOATS_PER_MIB):close()
    dlx.empty_cache()
    assert.equal(0, dlx.memory_cached("cpu"))
  end)

  it("count the default device's cache without an argument", function()
    dlx.empty(FLOATS_PER_MIB):close()
    assert.equal(MIB, dlx.memory_cached())
    assert.equal(MIB, dlx.memory_cached({ dlx.DLDeviceType.kDLCPU, 0 }))
  end)

  it("answer 0 for devices without a cache or not there, and empty them without error", function()
    for _, name in ipairs { "oneapi:0", "oneapi:7", "cuda:5", "vulkan:0", "metal:0" } do
      assert.equal(0, dlx.memory_cached(name), name)
      dlx.empty_cache(name)
    end
    if not dlx.cuda.is_available() then assert.equal(0, dlx.memory_cached("cuda:0")) end
    dlx.empty_cache("cuda:0")
    dlx.cuda.empty_cache()
  end)

  it("reject what is not a device", function()
    h.raises("TypeError", dlx.memory_cached, 42)
    h.raises("TypeError", dlx.empty_cache, true)
    h.raises("ValueError", dlx.memory_cached, "nowhere:0")
    h.raises("ValueError", dlx.empty_cache, "nowhere:0")
  end)
end)

describe("DLX_CPU_CACHE_BYTES", function()
  local churn = [[
    package.path = os.getenv("LUA_PATH")
    local dlx = require "dlx"
    for _ = 1, 4 do dlx.empty(1 << 18):close() end -- 1 MiB each, of one class
    local live = {}
    for i = 1, 4 do live[i] = dlx.empty(1 << 18) end
    for i = 1, 4 do live[i]:close() end
    io.write(dlx.memory_cached("cpu"))
  ]]

  it("limits the cache", function()
    local out, ok = h.run_lua(churn, { DLX_CPU_CACHE_BYTES = "3M" })
    assert.is_true(ok, out)
    assert.equal(tostring(3 * MIB), out)
    out, ok = h.run_lua(churn, { DLX_CPU_CACHE_BYTES = tostring(2 * MIB) })
    assert.is_true(ok, out)
    assert.equal(tostring(2 * MIB), out)
  end)

  it("turns the cache off with 0", function()
    local out, ok = h.run_lua(churn, { DLX_CPU_CACHE_BYTES = "0" })
    assert.is_true(ok, out)
    assert.equal("0", out)
  end)
end)

describe("before a MemoryError", function()
  before_each(clean)
  after_each(function()
    collectgarbage("restart")
    clean()
  end)

  it("runs a full collection and empties the caches", function()
    collectgarbage("stop")
    local finalized = false
    setmetatable({}, { __gc = function() finalized = true end })
    local before = dlx.memory_allocated("cpu")
    dlx.empty(FLOATS_PER_MIB) -- garbage at once
    dlx.empty(2 * FLOATS_PER_MIB):close()
    assert.equal(2 * MIB, dlx.memory_cached("cpu"))
    local msg = h.raises("MemoryError", dlx.empty, TOO_LARGE)
    assert.truthy(msg:find("cannot allocate", 1, true), msg)
    assert.is_true(finalized)
    assert.equal(before, dlx.memory_allocated("cpu"))
    assert.equal(0, dlx.memory_cached("cpu"))
  end)

  it("does so for copies, reductions and values too, and the tensor stays usable", function()
    local t = dlx.ones(4)
    local wide = t:expand { TOO_LARGE // 4, 4 }
    h.raises("MemoryError", wide.contiguous, wide)
    h.raises("MemoryError", wide.astype, wide, "float64")
    h.raises("MemoryError", wide.to, wide, { dtype = "int8", copy = true })
    h.raises("MemoryError", wide.__dlpack, wide, { copy = true, max_version = { 1, 3 } })
    h.raises("MemoryError", wide.sum, wide, 2)
    h.raises("MemoryError", wide.totable, wide)
    assert.equal(4, t:sum():item())
  end)
end)
