-- Lifetime: close, <close>, use after close, views keeping memory alive, the garbage collector
-- seeing memory outside the Lua heap, dlx.memory_allocated, and lua_close.
local h = require "spec.helper"
local dlx = h.dlx

local MiB = 1024 * 1024

describe("close", function()
  it("is idempotent", function()
    local t = dlx.zeros({ 3 })
    t:close()
    t:close()
    assert.is_string(tostring(t))
  end)

  it("makes any other use a ValueError", function()
    local t = dlx.zeros({ 2, 3 })
    local other = dlx.zeros({ 2, 3 })
    t:close()
    h.raises("ValueError", function() return t.shape end)
    h.raises("ValueError", function() return t.strides end)
    h.raises("ValueError", function() return t.numel end)
    h.raises("ValueError", function() return t.dtype end)
    h.raises("ValueError", function() return t.device end)
    h.raises("ValueError", function() return #t end)
    h.raises("ValueError", t.sum, t)
    h.raises("ValueError", t.clone, t)
    h.raises("ValueError", t.totable, t)
    h.raises("ValueError", t.fill_, t, 1)
    h.raises("ValueError", t.view, t, { 6 })
    h.raises("ValueError", t.transpose, t, 1, 2)
    h.raises("ValueError", t.__dlpack, t)
    h.raises("ValueError", t.__dlpack_device, t)
    h.raises("ValueError", other.copy_, other, t)
    h.raises("ValueError", dlx.from_dlpack, t)
  end)

  it("through the metatable's __gc, __close or __index, takes tensors only", function()
    local t = dlx.zeros({ 2 })
    local mt = getmetatable(t)
    for _, value in ipairs({ 1, "x", {}, io.stdout, t:__dlpack() }) do
      h.raises("TypeError", function() mt.__gc(value) end)
      h.raises("TypeError", function() mt.__close(value) end)
      h.raises("TypeError", function() return mt.__index(value, "shape") end)
    end
    h.exact({ 2 }, mt.__index(t, "shape"))
    mt.__close(t)
    assert.equal("closed tensor", dlx.type(t))
    h.raises("ValueError", function() return mt.__index(t, "shape") end)
  end)

  it("of a capsule through its metatable's __gc takes capsules only", function()
    local c = dlx.zeros({ 2 }):__dlpack({ max_version = { 1, 3 } })
    local gc = getmetatable(c).__gc
    for _, value in ipairs({ 1, "x", {}, io.stdout, dlx.zeros({ 1 }) }) do
      assert.has_error(function() gc(value) end)
    end
    assert.equal("dltensor_versioned", c.name)
    gc(c) -- deletes the export, as the collector would, and marks the capsule used
    assert.equal("used_dltensor_versioned", c.name)
  end)

  it("releases the memory now", function()
    h.without_collector(function()
      local m0 = dlx.memory_allocated("cpu")
      local t = dlx.empty({ 4 * MiB }, { dtype = "uint8" })
      assert.is_true(dlx.memory_allocated("cpu") >= m0 + 4 * MiB)
      t:close()
      assert.equal(m0, dlx.memory_allocated("cpu"))
    end)
  end)

  it("happens at the end of the scope with <close>", function()
    h.without_collector(function()
      local m0 = dlx.memory_allocated("cpu")
      local escaped
      do
        local t <close> = dlx.empty({ 4 * MiB }, { dtype = "uint8" })
        escaped = t
        assert.is_true(dlx.memory_allocated("cpu") >= m0 + 4 * MiB)
      end
      assert.equal(m0, dlx.memory_allocated("cpu"))
      h.raises("ValueError", function() return escaped.shape end)
    end)
  end)

  it("happens with <close> when the scope is left by an error", function()
    h.without_collector(function()
      local m0 = dlx.memory_allocated("cpu")
      local ok = pcall(function()
        local t <close> = dlx.empty({ 4 * MiB }, { dtype = "uint8" })
        error(tostring(t.numel))
      end)
      assert.is_false(ok)
      assert.equal(m0, dlx.memory_allocated("cpu"))
    end)
  end)
end)

describe("dlx.memory_allocated", function()
  it("counts the bytes dlx's allocator holds, per device", function()
    h.without_collector(function()
      local m0 = dlx.memory_allocated("cpu")
      assert.equal("integer", math.type(m0))
      local t = dlx.empty({ 1000 }, { dtype = "float64" })
      local m1 = dlx.memory_allocated("cpu")
      assert.is_true(m1 >= m0 + 8000)
      assert.equal(m1, dlx.memory_allocated(dlx.device("cpu")))
      assert.equal(m1, dlx.memory_allocated({ 1, 0 }))
      if dlx.default_device() == dlx.device("cpu") then
        assert.equal(m1, dlx.memory_allocated())
      end
      local v = t:transpose(1, 1):slice(1, 1, 10)
      assert.equal(m1, dlx.memory_allocated("cpu")) -- views allocate no data
      v:close()
      t:close()
    end)
  end)
end)

describe("views and memory", function()
  it("a view keeps the base's memory alive after the base is closed", function()
    h.without_collector(function()
      local m0 = dlx.memory_allocated("cpu")
      local base = dlx.arange(10)
      local v = base:slice(1, 3, 5)
      base:close()
      assert.is_true(dlx.memory_allocated("cpu") > m0)
      h.exact({ 2, 3, 4 }, v:totable())
      v:close()
      assert.equal(m0, dlx.memory_allocated("cpu"))
    end)
  end)

  it("a view keeps the memory alive after the base is collected", function()
    local v
    do
      local base = dlx.arange(10)
      v = base:flip(1):slice(1, 1, 3)
    end
    collectgarbage()
    collectgarbage()
    h.exact({ 9, 8, 7 }, v:totable())
  end)

  it("closing a view does not close the base", function()
    local base = dlx.arange(4)
    local v = base:view({ 2, 2 })
    v:close()
    h.exact({ 0, 1, 2, 3 }, base:totable())
  end)
end)

describe("the garbage collector", function()
  it("keeps loops of large temporaries bounded without collectgarbage", function()
    local peak = h.peak_growth(2000, function(i)
      local t = dlx.empty({ MiB }, { dtype = "float32" }) -- 4 MiB each, 8 GiB in all
      t:fill_(i)
    end)
    assert.is_true(peak < 1024 * MiB, ("peak %.0f MiB"):format(peak / MiB))
  end)

  it("keeps loops of temporary results bounded too", function()
    local src = dlx.ones({ 256 * 1024 }, { dtype = "float64" }) -- 2 MiB
    local peak = h.peak_growth(1000, function()
      local s = src:astype("float32"):clone():sum():item()
      assert(s == 256 * 1024)
    end)
    assert.is_true(peak < 1024 * MiB, ("peak %.0f MiB"):format(peak / MiB))
  end)

  it("frees what it collects", function()
    h.without_collector(function()
      local m0 = dlx.memory_allocated("cpu")
      for _ = 1, 10 do dlx.empty({ MiB }, { dtype = "uint8" }) end
      assert.is_true(dlx.memory_allocated("cpu") >= m0 + 10 * MiB)
      collectgarbage("restart")
      collectgarbage()
      collectgarbage()
      assert.equal(m0, dlx.memory_allocated("cpu"))
    end)
  end)
end)

describe("lua_close", function()
  it("runs every pending deleter exactly once", function()
    local code = [[
      local dlx = require "dlx"
      local tp = require "testprod"
      tp.trace(true)
      kept_tensor = dlx.from_dlpack((tp.make { shape = { 4 } }))          -- id 0: imported
      kept_capsule = tp.make { shape = { 4 } }                            -- id 1: unconsumed
      local t = dlx.from_dlpack((tp.make { shape = { 4 } }))              -- id 2: closed now
      t:close()
      kept_view = dlx.from_dlpack((tp.make { shape = { 2, 2 } })):transpose(1, 2) -- id 3
      kept_legacy = dlx.from_dlpack((tp.make { shape = { 2 }, legacy = true }))  -- id 4
      print("end of script")
    ]]
    local out, ok = h.run_lua(code)
    assert.is_true(ok, out)
    local counts, before_end = {}, {}
    local ended = false
    for line in out:gmatch("[^\n]+") do
      if line == "end of script" then ended = true end
      local id = line:match("^testprod deleted (%d+)$")
      if id then
        id = tonumber(id)
        counts[id] = (counts[id] or 0) + 1
        if not ended then before_end[id] = true end
      end
    end
    assert.is_true(ended, out)
    h.exact({ [0] = 1, 1, 1, 1, 1 }, counts)
    h.exact({ [2] = true }, before_end)
  end)
end)
