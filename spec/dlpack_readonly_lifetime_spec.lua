-- What an import keeps of its producer, across versioned and legacy peers: it outlives the
-- capsule, a writable tensor stays writable, and READ_ONLY is never lost on the way. Each `it`
-- names the bug of docs/peer-bugs.md (a bug another DLPack library shipped) that it pins down.
local h = require "spec.helper"
local dlx = h.dlx
local tp = h.testprod()

local V13 = { max_version = { 1, 3 } }

-- Makes a testprod capsule and imports it; the capsule is a local of this function only, so it
-- is garbage as soon as the function returns.
local function import_temporary(spec)
  local cap, id = tp.make(spec)
  return dlx.from_dlpack(cap), id
end

-- A producer object that only speaks legacy DLPack: like an old __dlpack, it refuses the
-- max_version keyword with a TypeError and answers a call without keywords with a legacy capsule.
local function legacy_only(inner)
  return {
    __dlpack_device = function() return inner:__dlpack_device() end,
    __dlpack = function(_, kw)
      if kw ~= nil and kw.max_version ~= nil then
        error("TypeError: __dlpack() got an unexpected keyword argument 'max_version'", 0)
      end
      return inner:__dlpack()
    end,
  }
end

describe("DLPack imports keep their producer's memory and READ_ONLY (docs/peer-bugs.md)", function()
  it("bug 7: an import outlives the temporary capsule it came from (NuMojo dlpack.mojo)",
    function()
      -- NuMojo tied the array to the capsule: once the capsule was collected the data was freed
      local t, id = import_temporary { shape = { 4 }, legacy = false }
      local l, lid = import_temporary { shape = { 3 }, legacy = true }
      collectgarbage()
      collectgarbage()
      assert.equal(0, tp.deleted(id))
      assert.equal(0, tp.deleted(lid))
      h.exact({ 0.0, 1.0, 2.0, 3.0 }, t:totable())
      h.exact({ 0.0, 1.0, 2.0 }, l:totable())
      t:fill_(6) -- still the producer's memory, not a copy nor freed memory
      assert.equal(6, tp.read_f32(id, 3))
      t:close()
      l:close()
      assert.equal(1, tp.deleted(id))
      assert.equal(1, tp.deleted(lid))
      -- a dlx producer that is itself a temporary: its memory stays held by the import
      collectgarbage()
      collectgarbage()
      local m0 = dlx.memory_allocated("cpu")
      local u = dlx.from_dlpack(dlx.arange(1000, { dtype = "float64" }):__dlpack(V13))
      collectgarbage()
      collectgarbage()
      assert.equal(m0 + 8000, dlx.memory_allocated("cpu"))
      assert.equal(999.0, u:totable()[1000])
      -- NuMojo's exporter also sent bool as kDLFloat: dlx sends kDLBool
      h.exact({ 6, 8, 1 }, assert(tp.export(dlx.tensor({ true, false }))).dtype)
    end)

  it("bug 11: an import of a writable producer's tensor is writable (numpy#28599)", function()
    -- both capsule kinds, from a C producer and back out to a C consumer
    for _, legacy in ipairs({ false, true }) do
      local cap, id = tp.make { shape = { 3 }, legacy = legacy }
      local t = dlx.from_dlpack(cap)
      assert.equal(false, t.readonly)
      t:fill_(7)
      assert.equal(7, tp.read_f32(id, 2))
      local e = assert(tp.export(t:__dlpack(V13), { keep = true }))
      assert.equal(0, e.flags & h.FLAG_READ_ONLY)
      tp.write_export_f32(e.handle, 1, 9)
      assert.equal(9, tp.read_f32(id, 1))
      tp.release(e.handle)
    end
    -- dlx to dlx, both capsule kinds, and a view
    for _, kw in ipairs({ V13, {} }) do
      local src = dlx.zeros({ 2, 2 }, { dtype = "float32" })
      local back = dlx.from_dlpack(src:transpose(1, 2):__dlpack(kw))
      assert.equal(false, back.readonly)
      back:select(1, 1):fill_(1) -- column 1 of src
      h.exact({ { 1.0, 0.0 }, { 1.0, 0.0 } }, src:totable())
    end
  end)

  it("bug 13: every consumer asks for versioned first, so read-only data gets in (jax#40789)",
    function()
      -- a legacy request for a read-only tensor is a BufferError: a consumer that asked for
      -- legacy first (or only) could not import it at all
      local ro = h.readonly_tensor({ 3 })
      local asked = {}
      local obj = {
        __dlpack_device = function() return ro:__dlpack_device() end,
        __dlpack = function(_, kw)
          asked[#asked + 1] = kw and kw.max_version or false
          return ro:__dlpack(kw)
        end,
      }
      local t = dlx.from_dlpack(obj)
      assert.equal(true, t.readonly)
      h.exact({ 0.0, 1.0, 2.0 }, t:totable())
      -- the C consumer (dlx_to_dlpack of a __dlpack object) asks the same way
      local e = assert(tp.export(obj))
      assert.equal(h.FLAG_READ_ONLY, e.flags & h.FLAG_READ_ONLY)
      h.exact({ { 1, 3 }, { 1, 3 } }, asked)
    end)

  it("bug 14: a legacy-only peer never silently loses READ_ONLY (dpctl#1755, nanobind#1122)",
    function()
      local ro = h.readonly_tensor({ 3 })
      -- a legacy-only producer holding read-only data: refused, not imported writable
      h.raises("BufferError", dlx.from_dlpack, legacy_only(ro))
      h.raises("BufferError", dlx.from_dlpack, legacy_only(ro:flip(1)))
      -- a legacy-only C consumer is refused too
      local v, msg = tp.export(ro:select(1, 2), { legacy = true })
      h.failed_with({ "BufferError" }, v, msg)
      -- a writable tensor still goes through the legacy path, shared and writable
      local w = dlx.zeros({ 3 }, { dtype = "float32" })
      local t = dlx.from_dlpack(legacy_only(w))
      assert.equal(false, t.readonly)
      t:fill_(2)
      h.exact({ 2.0, 2.0, 2.0 }, w:totable())
      -- and dlx keeps the flag wherever it can carry it (dpctl#1755 dropped it)
      assert.equal(true, dlx.from_dlpack(ro).readonly)
      assert.equal(true, dlx.from_dlpack(ro:__dlpack(V13)).readonly)
      assert.equal(true, dlx.from_dlpack(ro:flip(1):__dlpack(V13)).readonly)
    end)
end)
