-- Strides, views, byte_offset and alignment through DLPack: real strides out (never
-- normalised, never NULL), any stride of a size-1 dim in, offset views both ways, offsets and
-- addresses with no alignment beyond the item's (a CUDA one must be aligned). Each `it` names
-- the bug of docs/peer-bugs.md (a bug another DLPack library shipped) that it pins down.
local h = require "spec.helper"
local dlx = h.dlx
local tp = h.testprod()

local V13 = { max_version = { 1, 3 } }

local rejects, accepts = h.import_rejects, h.import_accepts

local function lua_sum(list)
  local s = 0
  for _, v in ipairs(list) do s = s + v end
  return s
end

describe("DLPack strides, offsets and alignment (docs/peer-bugs.md)", function()
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
        -- a broadcast view goes versioned only: a legacy struct cannot mark it READ_ONLY
        local broadcast = v.strides[2] == 0
        local caps = { v:__dlpack(V13), not broadcast and v:__dlpack() or nil }
        assert.equal(m0, dlx.memory_allocated("cpu"))
        for i, cap in ipairs(caps) do
          local e = assert(tp.export(cap, { legacy = i == 2 }))
          assert.equal(b.data, e.data)
          h.exact(v.strides, e.strides)
        end
      end
    end)

  it("bug 22: F-contiguous data exports its real strides, legacy too (dpctl#1241)", function()
    -- a legacy struct with NULL strides would be read as C-order: the data silently transposed
    local f = dlx.arange(6, { dtype = "float32" }):view({ 2, 3 }):transpose(1, 2) -- {3, 2}
    local f3 = dlx.arange(24, { dtype = "float32" }):view({ 2, 3, 4 }):permute({ 3, 2, 1 })
    for _, legacy in ipairs({ false, true }) do
      local e = assert(tp.export(f, { legacy = legacy }))
      h.exact({ 3, 2 }, e.shape)
      h.exact({ 1, 3 }, e.strides)
      local e3 = assert(tp.export(f3, { legacy = legacy }))
      h.exact({ 4, 3, 2 }, e3.shape)
      h.exact({ 1, 4, 12 }, e3.strides)
    end
    local want = { { 0.0, 3.0 }, { 1.0, 4.0 }, { 2.0, 5.0 } }
    h.exact(want, dlx.from_dlpack(f:__dlpack()):totable())
    h.exact(want, dlx.from_dlpack(f:__dlpack(V13)):totable())
  end)

  it("bug 23: size-1 dims with stride 0 or any stride do not break contiguity (tf#61184)",
    function()
      local t, id = accepts { shape = { 2, 1, 3 }, strides = { 3, 0, 1 } }
      assert.is_true(rawequal(t, t:contiguous()))
      local flat = t:view({ 6 }) -- a view, not a copy: the layout is C-contiguous
      flat:select(1, 5):fill_(40)
      assert.equal(40, tp.read_f32(id, 4))
      h.exact({ 3, 0, 1 }, assert(tp.export(t)).strides) -- exported as given
      local u = accepts { shape = { 1, 4 }, strides = { -99, 1 } }
      assert.is_true(rawequal(u, u:contiguous()))
      h.exact({ { 0.0, 1.0, 2.0, 3.0 } }, u:totable())
      local one = accepts { shape = { 1, 1 }, strides = { 0, 0 } }
      assert.is_true(rawequal(one, one:contiguous()))
      one:fill_(9) -- stride 0 on a size-1 dim is not a broadcast
      assert.equal(9.0, one:item())
    end)

  it("bug 26: offset views survive an export and an import by dlx (iree#21153)", function()
    -- the exporter puts the view's offset in byte_offset; the importer must add it back
    local base = dlx.arange(12, { dtype = "float64" }):view({ 3, 4 })
    local views = {
      { base:select(1, 3), { 8.0, 9.0, 10.0, 11.0 } },
      { base:select(2, 2), { 1.0, 5.0, 9.0 } },
      { base:select(1, 2):slice(1, 2, 4, 2), { 5.0, 7.0 } },
      { base:select(1, 3):flip(1), { 11.0, 10.0, 9.0, 8.0 } },
    }
    for _, case in ipairs(views) do
      local v, want = case[1], case[2]
      assert.is_true(assert(tp.export(v)).byte_offset > 0)
      for _, kw in ipairs({ V13, {} }) do
        h.exact(want, dlx.from_dlpack(v:__dlpack(kw)):totable())
      end
    end
    local back = dlx.from_dlpack(base:select(1, 2):__dlpack())
    back:fill_(-1) -- and writes land on the view's elements, not at the buffer's start
    h.exact({ { 0.0, 1.0, 2.0, 3.0 }, { -1.0, -1.0, -1.0, -1.0 }, { 8.0, 9.0, 10.0, 11.0 } },
      base:totable())
  end)

  it("bug 28: byte_offset not a multiple of 256 is honoured, one inside an item refused "
    .. "with a clear error (cutlass#3450)", function()
      h.exact({ 1.0, 2.0 }, accepts({ shape = { 2 }, byte_offset = 8, dtype = { 2, 64, 1 } })
        :totable())
      h.exact({ 1, 2 }, accepts({ shape = { 2 }, byte_offset = 257, dtype = { 0, 8, 1 } })
        :totable())
      h.exact({ 3.0, 4.0 }, accepts({ shape = { 2 }, byte_offset = 12, legacy = true })
        :totable())
      -- packed fp4: any whole byte is a whole number of items
      local fp4 = accepts { shape = { 4 }, byte_offset = 3, dtype = { 17, 4, 1 } }
      assert.equal(2, fp4.nbytes)
      local msg = rejects { shape = { 2 }, byte_offset = 6 }
      assert.truthy(msg:find("byte_offset 6", 1, true), msg)
      assert.truthy(msg:find("float32", 1, true), msg)
      msg = rejects { shape = { 2 }, byte_offset = 8, dtype = { 5, 128, 1 } }
      assert.truthy(msg:find("complex128", 1, true), msg)
      rejects { shape = { 2 }, byte_offset = 1, dtype = { 0, 16, 1 } }
    end)

  it("bug 29: data + byte_offset need no alignment beyond the item's (array-api#293)",
    function()
      local N = 4099 -- long enough for the vector loops, odd for their tails
      -- float32 at 4 mod 16, float64 at 8 mod 16, uint8 at 1 and 3: element i is i + 1 or
      -- (i + off) & 255 (testprod's fill)
      local function iota1(i) return i + 1.0 end
      local cases = {
        { dtype = { 2, 32, 1 }, off = 4, kind = "f32", size = 4, value = iota1 },
        { dtype = { 2, 64, 1 }, off = 8, kind = "f64", size = 8, value = iota1 },
        { dtype = { 1, 8, 1 }, off = 1, kind = "u8", size = 1,
          value = function(i) return (i + 1) & 255 end },
        { dtype = { 1, 8, 1 }, off = 3, kind = "u8", size = 1,
          value = function(i) return (i + 3) & 255 end },
      }
      for _, c in ipairs(cases) do
        local t, id = accepts { shape = { N }, dtype = c.dtype, byte_offset = c.off }
        assert.is_true((tp.address(id) + c.off) % 16 ~= 0, "the data must be misaligned")
        local want = {}
        for i = 0, N - 1 do want[i + 1] = c.value(i) end
        h.same(want, t:totable())
        h.same(want, t:clone():totable())
        h.same(want, t:astype("float64"):totable())
        assert.equal(lua_sum(want), t:sum():item())
        assert.equal(math.max(table.unpack(want)), t:max():item())
        local rows = t:narrow(1, 1, 4096):view({ 64, 64 })
        h.same(rows:contiguous():sum(1):totable(), rows:sum(1):totable())
        -- writes: a strided copy into the misaligned memory, read back by the producer
        t:copy_(dlx.arange(N, { dtype = "int32" }):flip(1))
        local first = c.off // c.size -- in the producer's units, from the block's start
        assert.equal(c.kind == "u8" and (N - 1) & 255 or N - 1, tp.read(id, first, c.kind))
        assert.equal(0, tp.read(id, first + N - 1, c.kind))
      end
    end)

  it("bug 29: CUDA data not aligned to its items is a BufferError before a GPU can fault on it",
    function()
      -- a CUDA load of a misaligned element faults and the CUDA context is lost for the process;
      -- dlx refuses such a capsule whether or not it has a GPU (the check comes first)
      for _, dev in ipairs({ { 2, 0 }, { 3, 0 }, { 13, 0 } }) do
        local msg = rejects { shape = { 4 }, device = dev, data_shift = 2 } -- float32 at 2 mod 4
        assert.truthy(msg:find("not aligned to its 4-byte float32 items", 1, true), msg)
        msg = rejects { shape = { 2 }, device = dev, dtype = { 5, 128, 1 }, data_shift = 8 }
        assert.truthy(msg:find("16-byte complex128", 1, true), msg)
        msg = rejects { shape = { 4 }, device = dev, byte_offset = 4, data_shift = 2 }
        assert.truthy(msg:find("byte_offset 4", 1, true), msg)
      end
      -- CPU code reads elements at any address: the same data imports, reads and writes
      local t = accepts { shape = { 4 }, data_shift = 2 }
      t:fill_(5)
      h.exact({ 5.0, 5.0, 5.0, 5.0 }, t:totable())
      assert.equal(20.0, t:sum():item())
    end)

  it("bug 30: misaligned imports are neither copied nor refused (tvm#18324, xla#18611)",
    function()
      local t, id = accepts { shape = { 1000 }, byte_offset = 4 }
      local e = assert(tp.export(t:__dlpack(V13)))
      assert.equal(tp.address(id) + 4, e.data + e.byte_offset) -- the producer's own memory
      assert.equal(0, e.flags & h.FLAG_IS_COPIED)
      t:fill_(2)
      assert.equal(0, tp.read_f32(id, 0))
      assert.equal(2, tp.read_f32(id, 1))
      assert.equal(2, tp.read_f32(id, 1000))
      assert.equal(2000.0, t:sum():item())
      local d = accepts { shape = { 3 }, byte_offset = 8, dtype = { 2, 64, 1 } }
      h.exact({ 1.0, 2.0, 3.0 }, d:totable())
    end)
end)
