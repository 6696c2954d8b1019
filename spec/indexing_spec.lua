-- Indexing: t[i], t[{...}], t[mask], assignment through them, #t and ipairs, and the methods
-- index_select, gather, scatter_, index_add_, masked_select, masked_fill_ and nonzero.
local h = require "spec.helper"
local dlx = h.dlx

local function cpu(data, dtype) return dlx.tensor(data, { dtype = dtype, device = "cpu" }) end
local function idx(data) return cpu(data, "int64") end
local function matrix() return cpu({ { 1, 2, 3 }, { 4, 5, 6 } }, "int32") end

describe("t[i]", function()
  it("gives an element's Lua value for a 1-D tensor, negative from the end", function()
    local v = cpu({ 10, 20, 30 }, "int64")
    assert.are.equal(10, v[1])
    assert.are.equal(30, v[3])
    assert.are.equal(30, v[-1])
    assert.are.equal(10, v[-3])
    assert.are.equal(2.5, cpu({ 2.5 }, "float64")[1])
    assert.are.equal(true, cpu({ true, false })[1])
    assert.are.equal(10, v[1.0])
  end)

  it("gives the view t:select(1, i) for more dims", function()
    local m = matrix()
    local row = m[2]
    h.exact({ 4, 5, 6 }, row:totable())
    row:fill_(0)
    h.exact({ { 1, 2, 3 }, { 0, 0, 0 } }, m:totable())
    h.exact({ 1, 2, 3 }, m[-2]:totable())
  end)

  it("raises a ValueError out of range, except t[#t + 1], which is nil", function()
    local v = cpu({ 1, 2, 3 })
    assert.is_nil(v[4])
    assert.is_nil(matrix()[3])
    assert.matches("index 5 out of range", h.raises("ValueError", function() return v[5] end))
    h.raises("ValueError", function() return v[0] end)
    h.raises("ValueError", function() return v[-4] end)
    h.raises("ValueError", function() return matrix()[0] end)
  end)

  it("refuses keys that are not indices", function()
    local v = cpu({ 1, 2, 3 })
    h.raises("TypeError", function() return v[1.5] end)
    h.raises("TypeError", function() return v[true] end)
    h.raises("TypeError", function() return dlx.tensor(5)[1] end)
    h.raises("TypeError", function() return v[cpu({ 1 }, "int64")] end)
  end)

  it("keeps methods and properties, and unknown string keys are nil", function()
    local v = cpu({ 1, 2, 3 })
    assert.is_nil(v.__dlpack_missing)
    assert.is_nil(v.foo)
    assert.are.equal(3, v.numel)
    assert.are.equal(6, v:sum():item())
  end)

  it("raises a ValueError on a closed tensor", function()
    local v = cpu({ 1, 2 })
    v:close()
    h.raises("ValueError", function() return v[1] end)
  end)
end)

describe("#t and ipairs(t)", function()
  it("agree: the values of a vector", function()
    local v, seen = cpu({ 7, 8, 9 }), {}
    for i, x in ipairs(v) do seen[i] = x end
    assert.are.equal(#v, #seen)
    h.exact({ 7, 8, 9 }, seen)
  end)

  it("agree: the rows of a matrix, as views", function()
    local m, n = matrix(), 0
    for i, row in ipairs(m) do
      n = n + 1
      h.exact(m:select(1, i):totable(), row:totable())
      row:fill_(i)
    end
    assert.are.equal(#m, n)
    h.exact({ { 1, 1, 1 }, { 2, 2, 2 } }, m:totable())
  end)

  it("runs zero times over an empty tensor", function()
    local n = 0
    for _ in ipairs(dlx.zeros({ 0 })) do n = n + 1 end
    assert.are.equal(0, n)
  end)
end)

describe("t[{...}]", function()
  it("selects with integers, slices with inclusive ranges and keeps dims with {}", function()
    local m = matrix()
    assert.are.same({ 2 }, m[{ 2, { 2, 3 } }].shape)
    h.exact({ 5, 6 }, m[{ 2, { 2, 3 } }]:totable())
    h.exact({ 2, 5 }, m[{ {}, 2 }]:totable())
    h.exact({ { 1, 3 }, { 4, 6 } }, m[{ {}, { 1, 3, 2 } }]:totable())
    h.exact({ { 3, 2, 1 } }, m[{ { 1 }, { -1, 1, -1 } }]:totable())
    h.exact({ { 2, 3 }, { 5, 6 } }, m[{ {}, { 2, -1 } }]:totable())
    h.exact({ { 2 }, { 5 } }, m[{ {}, { 2 } }]:totable())
    assert.are.equal(6, m[{ 2, 3 }]:item())
    assert.are.same({}, m[{ 2, 3 }].shape)
  end)

  it("keeps the missing trailing dims and matches t:slice", function()
    local m = matrix()
    h.exact(m:slice(1, 2, 2):totable(), m[{ { 2, 2 } }]:totable())
    h.exact(m:totable(), m[{}]:totable())
    h.exact(m:slice(2, 0, 99):totable(), m[{ {}, { 0, 99 } }]:totable())
  end)

  it("is a view", function()
    local m = matrix()
    m[{ {}, { 2, 3 } }]:fill_(0)
    h.exact({ { 1, 0, 0 }, { 4, 0, 0 } }, m:totable())
  end)

  it("raises for bad keys", function()
    local m = matrix()
    h.raises("ValueError", function() return m[{ 1, 1, 1 }] end)
    h.raises("ValueError", function() return m[{ 3 }] end)
    h.raises("ValueError", function() return m[{ {}, { 1, 2, 0 } }] end)
    h.raises("ValueError", function() return m[{ { 1, 2, 1, 1 } }] end)
    h.raises("TypeError", function() return m[{ "a" }] end)
    h.raises("TypeError", function() return m[{ { 1.5 } }] end)
  end)
end)

describe("t[mask]", function()
  it("gives a 1-D copy of the chosen elements in row-major order", function()
    local m = matrix()
    local got = m[m:gt(2)]
    h.exact({ 3, 4, 5, 6 }, got:totable())
    assert.are.equal("int32", got.dtype)
    got:fill_(0)
    h.exact({ { 1, 2, 3 }, { 4, 5, 6 } }, m:totable())
  end)

  it("wants a mask of the tensor's shape (t:masked_select broadcasts)", function()
    local m = matrix()
    h.raises("ValueError", function() return m[cpu({ true, false, true })] end)
    h.raises("ValueError", function() m[cpu({ true, false, true })] = 0 end)
    h.raises("ValueError", function() return m[cpu({ true, false })] end)
    h.exact({ 5 }, cpu({ 5 }, "int64")[cpu({ true })]:totable())
  end)
end)

describe("t[...] = v", function()
  it("fills with a Lua value through all forms", function()
    local m = matrix()
    m[{ 1, 2 }] = 9
    m[2] = 7
    h.exact({ { 1, 9, 3 }, { 7, 7, 7 } }, m:totable())
    m[m:gt(8)] = 0
    h.exact({ { 1, 0, 3 }, { 7, 7, 7 } }, m:totable())
    local v = cpu({ 1, 2, 3 }, "float64")
    v[-1] = 5.5
    h.exact({ 1.0, 2.0, 5.5 }, v:totable())
  end)

  it("copies a tensor in with broadcasting and casting", function()
    local m = matrix()
    m[{ {}, 1 }] = cpu({ 8.9, 9.1 }, "float64")
    h.exact({ { 8, 2, 3 }, { 9, 5, 6 } }, m:totable())
    m[{ {}, { 2, 3 } }] = cpu({ 0, 1 })
    h.exact({ { 8, 0, 1 }, { 9, 0, 1 } }, m:totable())
    m[m:eq(0)] = cpu({ 20, 30 })
    h.exact({ { 8, 20, 1 }, { 9, 30, 1 } }, m:totable())
    m[m:eq(1)] = cpu({ 4 })
    h.exact({ { 8, 20, 4 }, { 9, 30, 4 } }, m:totable())
  end)

  it("raises for out-of-range keys (t[#t + 1] too), bad values and read-only tensors", function()
    local m = matrix()
    h.raises("ValueError", function() m[3] = 1 end)
    h.raises("ValueError", function() m[{ {}, 1 }] = cpu({ 1, 2, 3 }) end)
    h.raises("ValueError", function() m[m:gt(0)] = cpu({ 1, 2 }) end)
    h.raises("TypeError", function() m[1] = "x" end)
    h.raises("TypeError", function() m.shape = 1 end)
    local ro = h.readonly_tensor({ 2, 3 })
    h.raises("ValueError", function() ro[1] = 0 end)
    h.raises("ValueError", function() ro[{ 1, 1 }] = cpu({ 1 }) end)
    h.raises("ValueError", function() ro[ro:ge(0)] = 0 end)
  end)
end)

describe("t:index_select", function()
  it("takes slices along a dim by int64 1-based indices, repeats and negatives allowed", function()
    local m = matrix()
    h.exact({ { 3, 1, 1 }, { 6, 4, 4 } }, m:index_select(2, idx({ 3, 1, -3 })):totable())
    h.exact({ { 4, 5, 6 } }, m:index_select(1, idx({ 2 })):totable())
    assert.are.same({ 0, 3 }, m:index_select(1, idx({})).shape)
    h.exact({ 30, 10 }, cpu({ 10, 20, 30 }):index_select(-1, idx({ 3, 1 })):totable())
  end)

  it("works on strided views", function()
    local t = matrix():transpose(1, 2)
    h.exact({ { 3, 6 }, { 1, 4 } }, t:index_select(1, idx({ 3, 1 })):totable())
  end)

  it("names the bad index and wants int64 1-D indices", function()
    local m = matrix()
    assert.matches("index 4 out of range for dim 2",
      h.raises("ValueError", m.index_select, m, 2, idx({ 1, 4 })))
    h.raises("ValueError", m.index_select, m, 2, idx({ 0 }))
    h.raises("ValueError", m.index_select, m, 2, idx({ { 1 } }))
    h.raises("TypeError", m.index_select, m, 2, cpu({ 1 }, "int32"))
    h.raises("TypeError", m.index_select, m, 2, { 1 })
    h.raises("ValueError", m.index_select, m, 3, idx({ 1 }))
  end)
end)

describe("t:gather", function()
  it("picks along dim by the index's positions (torch.gather)", function()
    local m = matrix()
    h.exact({ { 1, 1 }, { 6, 5 } }, m:gather(2, idx({ { 1, 1 }, { 3, 2 } })):totable())
    h.exact({ { 4, 2, 6 } }, m:gather(1, idx({ { 2, 1, 2 } })):totable())
  end)

  it("raises for bad indices and shapes", function()
    local m = matrix()
    assert.matches("index %-4", h.raises("ValueError", m.gather, m, 2, idx({ { 1 }, { -4 } })))
    h.raises("ValueError", m.gather, m, 2, idx({ 1, 2 }))
    h.raises("ValueError", m.gather, m, 2, idx({ { 1 }, { 1 }, { 1 } }))
  end)
end)

describe("t:scatter_", function()
  it("writes src at the index's positions and returns t", function()
    local t = dlx.zeros({ 2, 3 }, { device = "cpu" })
    local r = t:scatter_(2, idx({ { 3, 1 }, { 2, 2 } }), cpu({ { 1, 2 }, { 3, 4 } }))
    assert.are.equal(t, r)
    h.exact({ { 2.0, 0.0, 1.0 }, { 0.0, 4.0, 0.0 } }, t:totable())
    t:scatter_(1, idx({ { 2, 2, 2 } }), 9)
    h.exact({ { 2.0, 0.0, 1.0 }, { 9.0, 9.0, 9.0 } }, t:totable())
  end)

  it("checks every index before writing anything", function()
    local t = dlx.zeros({ 3 }, { device = "cpu" })
    local msg = h.raises("ValueError", t.scatter_, t, 1, idx({ 1, 7 }), cpu({ 5, 5 }))
    assert.matches("index 7", msg)
    h.exact({ 0.0, 0.0, 0.0 }, t:totable())
    local ro = h.readonly_tensor({ 2, 3 })
    h.raises("ValueError", ro.scatter_, ro, 1, idx({ { 1 } }), 0)
  end)
end)

describe("t:index_add_", function()
  it("adds slices of src at the indices, duplicates accumulating", function()
    local t = dlx.zeros({ 3, 2 }, { device = "cpu" })
    t:index_add_(1, idx({ 1, 3, 1 }), cpu({ { 1, 2 }, { 3, 4 }, { 5, 6 } }))
    h.exact({ { 6.0, 8.0 }, { 0.0, 0.0 }, { 3.0, 4.0 } }, t:totable())
    local i = cpu({ 1, 1 }, "int8")
    i:index_add_(1, idx({ 2, 2 }), cpu({ 100, 100 }, "int8"))
    h.exact({ 1, -55 }, i:totable())
    local f = cpu({ 1, 1 }, "float16")
    f:index_add_(1, idx({ 1 }), cpu({ 0.5 }))
    h.exact({ 1.5, 1.0 }, f:totable())
  end)

  it("checks indices and shapes before writing", function()
    local t = dlx.zeros({ 3 }, { device = "cpu" })
    h.raises("ValueError", t.index_add_, t, 1, idx({ 1, 4 }), cpu({ 1, 1 }))
    h.exact({ 0.0, 0.0, 0.0 }, t:totable())
    h.raises("ValueError", t.index_add_, t, 1, idx({ 1 }), cpu({ 1, 1 }))
    h.raises("TypeError", t.index_add_, t, 1, idx({ 1 }), 1)
  end)
end)

describe("t:masked_select and t:masked_fill_", function()
  it("select and fill by a bool mask, broadcast", function()
    local m = matrix()
    h.exact({ 2, 4, 6 }, m:masked_select(cpu({ { false, true, false }, { true, false, true } }))
      :totable())
    h.exact({ 1, 3, 4, 6 }, m:masked_select(cpu({ true, false, true })):totable())
    assert.are.equal(m, m:masked_fill_(cpu({ false, true, false }), -1))
    h.exact({ { 1, -1, 3 }, { 4, -1, 6 } }, m:totable())
  end)

  it("want a bool mask on the same device", function()
    local m = matrix()
    h.raises("TypeError", m.masked_select, m, cpu({ 1, 0, 1 }, "int32"))
    h.raises("TypeError", m.masked_fill_, m, 1, 0)
    h.raises("ValueError", m.masked_fill_, m, cpu({ true, false }), 0)
    h.raises("TypeError", m.masked_fill_, m, cpu({ true, false, true }), "x")
  end)
end)

describe("t:nonzero", function()
  it("gives int64 1-based positions, {n, ndim}", function()
    local got = cpu({ { 0, 1.5 }, { 2, 0 } }):nonzero()
    assert.are.equal("int64", got.dtype)
    h.exact({ { 1, 2 }, { 2, 1 } }, got:totable())
    h.exact({ { 2 }, { 3 } }, cpu({ false, true, true }):nonzero():totable())
    assert.are.same({ 0, 1 }, cpu({ 0, 0 }):nonzero().shape)
    assert.are.same({ 1, 0 }, dlx.tensor(3):nonzero().shape)
  end)
end)

-- Large enough for several chunks (the CPU's mask ops count and write chunks of 64Ki elements)
-- and for the pool's threads: every result must be the same on 1, 2 and 3 threads.
describe("indexing on the pool's threads", function()
  local saved
  before_each(function()
    saved = dlx.get_num_threads()
    dlx.manual_seed(7)
  end)
  after_each(function() dlx.set_num_threads(saved) end)

  -- f() on 1, 2 and 3 threads; the results (tensors) must be equal; returns the first.
  local function same_on_threads(f)
    local results = {}
    for threads = 1, 3 do
      dlx.set_num_threads(threads)
      results[threads] = f()
    end
    assert.is_true(dlx.equal(results[1], results[2]))
    assert.is_true(dlx.equal(results[1], results[3]))
    return results[1]
  end

  it("gather, index_select, masked_select and nonzero agree with each other", function()
    local n = 300000
    local x = dlx.arange(1, n + 1, { dtype = "int64", device = "cpu" })
    local i = dlx.randint(-n, n, { n }, { dtype = "int64", device = "cpu" })
    i = i:masked_fill_(i:eq(0), n) -- no 0 index
    local got = same_on_threads(function() return x:index_select(1, i) end)
    -- x holds 1..n, so x[i] is i made positive
    local positive = i:clone():masked_fill_(i:lt(0), 0) + (i:lt(0):to("int64") * (i + n + 1))
    assert.is_true(dlx.equal(positive, got))
    assert.is_true(dlx.equal(got, same_on_threads(function() return x:gather(1, i) end)))
    local mask = dlx.rand({ 600, 500 }, { device = "cpu" }):lt(0.3)
    local grid = x:reshape({ 600, 500 })
    local picked = same_on_threads(function() return grid:masked_select(mask) end)
    local where = same_on_threads(function() return mask:nonzero() end)
    assert.are.same({ picked.shape[1], 2 }, where.shape)
    local rows, cols = where:select(2, 1), where:select(2, 2)
    assert.is_true(dlx.equal(picked, (rows - 1) * 500 + cols))
    -- a broadcast (row) mask takes whole rows
    local row_mask = dlx.rand({ 600, 1 }, { device = "cpu" }):lt(0.5)
    local whole = same_on_threads(function() return grid:masked_select(row_mask) end)
    assert.are.equal(row_mask:sum():item() * 500, whole.numel)
    -- more chunks than the CPU keeps counts for without an allocation
    local big = dlx.rand({ 1100, 1000 }, { device = "cpu" })
    local big_mask = big:lt(0.5)
    local chosen = same_on_threads(function() return big:masked_select(big_mask) end)
    assert.are.equal(big_mask:sum():item(), chosen.numel)
    assert.is_true(chosen:lt(0.5):all():item())
    local at = same_on_threads(function() return big_mask:nonzero() end)
    local linear = (at:select(2, 1) - 1) * 1000 + at:select(2, 2)
    assert.is_true(dlx.equal(chosen, big:reshape({ -1 }):index_select(1, linear)))
  end)

  it("masked_fill_ and index_select of rows and of strided views", function()
    local m = dlx.rand({ 700, 400 }, { device = "cpu" })
    local mask = m:lt(0.5)
    local filled = same_on_threads(function() return m:clone():masked_fill_(mask, -1) end)
    assert.are.equal(mask:sum():item(), filled:eq(-1):sum():item())
    assert.is_true(dlx.equal(m:masked_select(mask:logical_not()),
      filled:masked_select(mask:logical_not())))
    local rows = dlx.randint(1, 701, { 500 }, { dtype = "int64", device = "cpu" })
    local got = same_on_threads(function() return m:index_select(1, rows) end)
    assert.are.equal(m[rows[17]][3], got[17][3])
    local t = m:transpose(1, 2) -- {400, 700}, strided
    local cols = same_on_threads(function() return t:index_select(2, rows) end)
    assert.is_true(dlx.equal(cols:transpose(1, 2), got))
  end)

  it("scatter_ lets the last write win and index_add_ sums in index order", function()
    local rows, width = 4000, 300
    local dst = dlx.zeros({ 3, width }, { device = "cpu" })
    -- every row of src goes to row 1, 2 or 3; values whose float32 sum depends on the order
    local index = dlx.randint(1, 4, { rows }, { dtype = "int64", device = "cpu" })
    local src = (dlx.rand({ rows, width }, { device = "cpu" }) - 0.5) * 1e7
    local sums = same_on_threads(function() return dst:clone():index_add_(1, index, src) end)
    -- the same sums, one index at a time, in order
    local expect = dst:clone()
    local list = index:totable()
    for k = 1, rows do
      local row = expect:select(1, list[k])
      row:copy_(row + src:select(1, k))
    end
    assert.is_true(dlx.equal(expect, sums))
    -- scatter_ along dim 1 with repeated targets: the last row that names a target wins
    local spread = index:reshape({ rows, 1 }):expand({ rows, width }):contiguous()
    local written = same_on_threads(function() return dst:clone():scatter_(1, spread, src) end)
    for target = 1, 3 do
      local last
      for k = 1, rows do
        if list[k] == target then last = k end
      end
      assert.is_true(dlx.equal(src:select(1, last), written:select(1, target)))
    end
  end)

  it("names the first bad index in row-major order", function()
    local i = dlx.ones({ 300000 }, { dtype = "int64", device = "cpu" })
    i[250000] = 7
    i[100000] = -9
    for threads = 1, 3 do
      dlx.set_num_threads(threads)
      h.raises("ValueError", dlx.zeros({ 5 }, { device = "cpu" }).index_select,
        dlx.zeros({ 5 }, { device = "cpu" }), 1, i)
      local ok, err = pcall(dlx.zeros({ 5 }, { device = "cpu" }).index_select,
        dlx.zeros({ 5 }, { device = "cpu" }), 1, i)
      assert.is_false(ok)
      assert.matches("index %-9 out of range", tostring(err))
    end
  end)
end)

describe("indices and masks that share memory with what an op writes", function()
  -- the op reads them as they were when it was called (the core copies them first): a write
  -- must not turn a checked index into a bad one, nor change a mask half-way
  it("scatter_ with its index a view of the destination", function()
    local d = dlx.tensor({ 2, 1, 1, 1 }, { device = "cpu" })
    d:scatter_(1, d:narrow(1, 1, 2), dlx.tensor({ 1000, 7 }, { device = "cpu" }))
    h.same({ 7, 1000, 1, 1 }, d:totable())
  end)

  it("index_add_ with its index a view of the destination", function()
    local d = dlx.tensor({ 2, 1, 3 }, { device = "cpu" })
    d:index_add_(1, d:narrow(1, 1, 2), dlx.tensor({ 10, 20 }, { device = "cpu" }))
    h.same({ 22, 11, 3 }, d:totable())
  end)

  it("masked assignment and masked_fill_ with the mask a view of the destination", function()
    local b = dlx.zeros({ 3 }, { dtype = "bool", device = "cpu" })
    b[1] = true
    b:narrow(1, 2, 2)[b:narrow(1, 1, 2)] = dlx.ones({ 1 }, { dtype = "bool", device = "cpu" })
    h.same({ true, true, false }, b:totable())
    local c = dlx.tensor({ true, false, true, true }, { device = "cpu" })
    c:narrow(1, 2, 3):masked_fill_(c:narrow(1, 1, 3), false)
    h.same({ true, false, true, false }, c:totable())
  end)

  it("a long scatter_ whose writes change indices it has yet to read, on 1 to 3 threads",
    function()
    local n = 1 << 17
    local base = dlx.arange(n, { device = "cpu" }):remainder(7):add(1) -- indices 1..7
    local src = dlx.full({ n }, n, { dtype = "int64", device = "cpu" })
    local saved = dlx.get_num_threads()
    for threads = 1, 3 do
      dlx.set_num_threads(threads)
      local d = base:clone()
      -- the first writes put n into d[1..7], which the last indices read: read live, they
      -- would write d[n] too
      d:scatter_(1, d:flip(1), src)
      local want = base:clone()
      want:narrow(1, 1, 7):fill_(n)
      assert.is_true(dlx.equal(want, d))
    end
    dlx.set_num_threads(saved)
  end)
end)
