-- Bugs 1-19 of spec/PEER_BUGS.md (bugs other DLPack implementations shipped) that the other
-- specs did not pin down, or only in part; PEER_BUGS.md maps every bug to its tests. Each `it`
-- here names its bug and tracker issue.
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

describe("bugs other DLPack libraries shipped, 1-19 (PEER_BUGS.md)", function()
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

  it("bug 17: size-1 dims keep their strides through a round trip and stay contiguous "
    .. "(pytorch#99803)", function()
    -- row vector {1, 3} with strides {1, 1} and column vector {3, 1} with strides {1, 3}: both
    -- C-contiguous once size-1 dims are ignored, and their strides tell their origin
    local base = dlx.arange(3, { dtype = "float32" })
    local row, col = base:view({ 3, 1 }):transpose(1, 2), base:view({ 1, 3 }):transpose(1, 2)
    h.exact({ 1, 1 }, row.strides)
    h.exact({ 1, 3 }, col.strides)
    for _, t in ipairs({ row, col }) do
      local strides = t.strides
      assert.is_true(rawequal(t, t:contiguous()))
      for _, kw in ipairs({ V13, {} }) do
        local back = dlx.from_dlpack(t:__dlpack(kw))
        h.exact(strides, back.strides)
        assert.is_true(rawequal(back, back:contiguous()))
        h.exact(t:totable(), back:totable())
      end
    end
  end)

  it("bug 18: exporting a view copies nothing and normalises nothing (pytorch#162113)",
    function()
      -- the speed regression came from as_strided normalisation on every export; a copy of the
      -- data would show in memory_allocated (the struct itself is not tensor memory)
      local base = dlx.arange(4096, { dtype = "float32" }):view({ 64, 64 })
      local views = { base:transpose(1, 2), base:slice(2, 3, 60, 3), base:flip(1),
        base:select(2, 5):unsqueeze(2):expand({ 64, 7 }) }
      local b = assert(tp.export(base))
      collectgarbage()
      collectgarbage()
      local m0 = dlx.memory_allocated("cpu")
      for _, v in ipairs(views) do
        local caps = { v:__dlpack(V13), v:__dlpack() }
        assert.equal(m0, dlx.memory_allocated("cpu"))
        for i, cap in ipairs(caps) do
          local e = assert(tp.export(cap, { legacy = i == 2 }))
          assert.equal(b.data, e.data)
          h.exact(v.strides, e.strides)
        end
      end
    end)
end)
