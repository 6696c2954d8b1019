-- Lifetime stress: imports, views, exports and <close> variables interleaved with collector
-- steps in both modes, errors thrown in the middle of operations, coroutines abandoned while
-- holding tensors, and lua_close with tensors still exported to the host. Every producer
-- deleter (counted by testprod) runs exactly once, and dlx's memory comes back.
local h = require "spec.helper"
local dlx = h.dlx

local ROUNDS = 200

-- A fresh producer tensor (2x3 float32 0..5, versioned or legacy) and its testprod id.
local function produce(tp, i)
  return tp.make { shape = { 2, 3 }, legacy = i % 3 == 0 }
end

-- One round of work on an imported tensor: views, copies, a reduction, an export that a
-- second import consumes, and an error thrown while a <close> view is held.
local function churn(cap, i)
  local t = dlx.from_dlpack(cap)
  local v = t:transpose(1, 2):flip(1)
  local c = v:contiguous()
  assert(c:sum():item() == 15)
  local back = dlx.from_dlpack(v:__dlpack { max_version = { 1, 3 } })
  local ok = pcall(function()
    local held <close> = back:slice(1, 1, -1, 2)
    if i % 2 == 0 then error("thrown while holding a view") end
    return held:view { 7 } -- a ValueError mid-operation
  end)
  assert(not ok)
  if i % 5 == 0 then t:close() end
  return i % 4 == 0 and back or nil
end

local function all_deleted_once(tp, ids)
  for _, id in ipairs(ids) do
    local n = tp.deleted(id)
    if n ~= 1 then return false, ("id %d deleted %d times"):format(id, n) end
  end
  return true
end

local function stress(mode)
  local tp = h.testprod()
  local ids, kept = {}, {}
  local previous = collectgarbage(mode)
  local ok, err = pcall(function()
    for i = 1, ROUNDS do
      local cap, id = produce(tp, i)
      ids[#ids + 1] = id
      kept[#kept + 1] = churn(cap, i)
      collectgarbage("step", i % 9)
      if i % 50 == 0 then kept = {} end
    end
  end)
  collectgarbage(previous)
  kept = nil -- luacheck: ignore 311
  collectgarbage()
  collectgarbage()
  assert(ok, err)
  assert(all_deleted_once(tp, ids))
end

describe("stress: the collector", function()
  it("releases every import exactly once in incremental mode", function()
    stress("incremental")
  end)

  it("releases every import exactly once in generational mode", function()
    stress("generational")
  end)

  it("gives back dlx's memory after a churn of large temporaries", function()
    collectgarbage()
    local before = dlx.memory_allocated()
    for i = 1, 100 do
      local t = dlx.zeros { 256, 256 }
      local v = t:transpose(1, 2):slice(1, 1, -1, i % 3 + 1)
      local c <close> = v:contiguous() -- luacheck: ignore 211
      if i % 10 == 0 then collectgarbage("step") end
    end
    collectgarbage()
    collectgarbage()
    assert.are.equal(before, dlx.memory_allocated())
  end)
end)

describe("stress: coroutines", function()
  it("abandoned while holding tensors release them when collected", function()
    local tp = h.testprod()
    local ids = {}
    for i = 1, 50 do
      local cap, id = produce(tp, i)
      ids[#ids + 1] = id
      local co = coroutine.wrap(function(c)
        local t = dlx.from_dlpack(c)
        local v <close> = t:transpose(1, 2)
        coroutine.yield(v:sum():item())
        error("never resumed")
      end)
      assert.are.equal(15, co(cap))
    end
    collectgarbage()
    collectgarbage()
    assert(all_deleted_once(tp, ids))
  end)

  it("closed while suspended run their <close> variables at once", function()
    local tp = h.testprod()
    local cap, id = produce(tp, 1)
    local co = coroutine.create(function(c)
      local t <close> = dlx.from_dlpack(c) -- luacheck: ignore 211
      coroutine.yield()
    end)
    assert(coroutine.resume(co, cap))
    assert.are.equal(0, tp.deleted(id))
    assert(coroutine.close(co))
    assert.are.equal(1, tp.deleted(id))
  end)

  it("dead from an error mid-operation leak nothing", function()
    local tp = h.testprod()
    local cap, id = produce(tp, 2)
    local co = coroutine.create(function(c)
      local t = dlx.from_dlpack(c):flip(2)
      return t:permute { 1, 1 } -- a ValueError inside dlx
    end)
    local ok, err = coroutine.resume(co, cap)
    assert.is_false(ok)
    assert.are.equal("ValueError", h.error_class(err))
    co = nil -- luacheck: ignore 311
    collectgarbage()
    collectgarbage()
    assert.are.equal(1, tp.deleted(id))
  end)
end)

describe("stress: lua_close", function()
  -- (tests/c/test_lifetime.c keeps exports in the host past lua_close.)
  it("releases kept imports, suspended coroutines' views and unconsumed capsules once", function()
    -- A child lua5.4 ends with lua_close (os.exit(0, true)); testprod prints each deleter call.
    local out, ok = h.run_lua([[
      local dlx = require "dlx"
      local tp = require "testprod"
      tp.trace(true)
      local a = dlx.from_dlpack((tp.make { shape = { 4 } }))                     -- id 0
      local b = dlx.from_dlpack((tp.make { shape = { 2, 2 }, legacy = true }))  -- id 1
      local unconsumed = tp.make { shape = { 3 } }                               -- id 2
      local v = a:flip(1)
      local co = coroutine.create(function(t) local w <close> = t:view { 4 }; coroutine.yield() end)
      assert(coroutine.resume(co, b))
      io.stdout:write("closing\n")
      os.exit(0, true)
    ]])
    assert(ok, out)
    local closing = out:find("closing", 1, true)
    assert(closing, out)
    for id = 0, 2 do
      local line = "testprod deleted " .. id .. "\n"
      assert.are.equal(0, select(2, out:sub(1, closing):gsub(line, "")))
      assert.are.equal(1, select(2, out:sub(closing):gsub(line, "")))
    end
  end)
end)

-- Inputs the import fuzzer (tests/fuzz) found: empty tensors whose other sizes and strides no
-- memory bounds. Under UBSan (the ASan CI build) any overflow in their views aborts.
describe("stress: empty imports with unbounded sizes", function()
  local HUGE = 1 << 61

  local function import(shape, strides)
    local cap = h.testprod().make { shape = shape, strides = strides, nbytes = 16 }
    return dlx.from_dlpack(cap)
  end

  it("take views without overflowing their offsets or strides", function()
    local t = import({ HUGE, 0 }, { -(1 << 40), 1 })
    assert.are.equal(0, t.numel)
    local f = t:flip(1)
    assert.are.same({ HUGE, 0 }, f.shape)
    assert.are.equal(0, t:select(1, HUGE).numel)
    assert.are.equal(0, t:slice(1, 2, -1, 1 << 40).numel)
    local e = import({ 0, HUGE, 4 }, { 1 << 62, 1 << 62, 3 }):transpose(1, 3)
    assert.are.equal(0, e.numel)
    assert.are.equal(0, e:clone().numel)
    local cap = f:__dlpack { max_version = { 1, 3 } }
    assert.are.equal(0, dlx.from_dlpack(cap).numel)
  end)

  it("refuse totable (and so tostring) with a MemoryError instead of never finishing", function()
    local t = import({ HUGE, 0, 0 })
    h.raises("MemoryError", t.totable, t)
    assert.are.same({ {}, {} }, import({ 2, 0 }):totable())
  end)
end)
