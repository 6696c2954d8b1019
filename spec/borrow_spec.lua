-- Borrowed tensors seen from Lua: a C module (testprod, through dlx_capi) lends a float32 block
-- with push_borrowed and takes it back with unborrow, which poisons the block and frees it at
-- once, as a host reusing its memory would.
local h = require "spec.helper"
local dlx = h.dlx
local tp = h.testprod()

local V13 = { max_version = { 1, 3 } }

local function expired(fn, ...)
  local err = h.raises("ValueError", fn, ...)
  assert.truthy(err:find("borrowed tensor expired", 1, true), err)
end

local function iota(n)
  local t = {}
  for i = 1, n do t[i] = i - 1 end
  return t
end

describe("a borrowed tensor", function()
  it("reads the host's values, and sees the host's later writes", function()
    local t, loan = tp.lend({ 2, 3 })
    h.same({ 2, 3 }, t.shape)
    assert.equal("float32", t.dtype)
    h.same({ { 0, 1, 2 }, { 3, 4, 5 } }, t:totable())
    assert.equal(15, t:sum():item())
    tp.loan_write(loan, 4, 40)
    assert.equal(40, t:totable()[2][2])
    tp.unborrow(loan)
  end)

  it("writes into the host's memory, through views too", function()
    local t, loan = tp.lend({ 6 })
    t:fill_(7)
    for i = 0, 5 do assert.equal(7, tp.loan_read(loan, i)) end
    t:view({ 2, 3 }):select(1, 2):fill_(-1)
    h.same({ 7, 7, 7, -1, -1, -1 }, { tp.loan_read(loan, 0), tp.loan_read(loan, 1),
      tp.loan_read(loan, 2), tp.loan_read(loan, 3), tp.loan_read(loan, 4), tp.loan_read(loan, 5) })
    t:slice(1, 1, 2):copy_(dlx.tensor({ 10, 20 }, { dtype = "float32" }))
    assert.equal(10, tp.loan_read(loan, 0))
    assert.equal(20, tp.loan_read(loan, 1))
    tp.unborrow(loan)
  end)

  it("is read-only when lent read-only", function()
    local t, loan = tp.lend({ 4 }, { read_only = true })
    assert.is_true(t.readonly)
    h.raises("ValueError", t.fill_, t, 1)
    h.same({ 0, 1, 2, 3 }, t:totable())
    tp.unborrow(loan)
  end)

  it("raises 'borrowed tensor expired' after unborrow, and so do its views", function()
    local t, loan = tp.lend({ 4, 4 })
    local views = { t:view({ 16 }), t:transpose(1, 2), t:select(1, 2), t:slice(2, 1, -1, 2),
      t:flip(1), t:view({ 2, 8 }):view({ 8, 2 }) }
    tp.unborrow(loan)
    for _, v in ipairs({ t, table.unpack(views) }) do
      expired(v.sum, v)
      expired(v.totable, v)
      expired(v.clone, v)
      expired(v.astype, v, "float64")
      expired(v.fill_, v, 1)
      expired(v.copy_, v, dlx.zeros(v.shape, { dtype = "float32" }))
      expired(v.__dlpack, v, V13)
      local dst = dlx.zeros(v.shape, { dtype = "float32" })
      expired(dst.copy_, dst, v)
    end
    local strided = views[2]
    expired(strided.contiguous, strided)
    local element = t:select(1, 1):select(1, 1)
    expired(element.item, element)
  end)

  it("makes views after unborrow that raise when used", function()
    local t, loan = tp.lend({ 4 })
    tp.unborrow(loan)
    local ok, v = pcall(t.view, t, { 2, 2 })
    if ok then
      expired(v.sum, v)
    else
      expired(error, v, 0)
    end
  end)

  it("leaves the copies made before unborrow valid", function()
    local t, loan = tp.lend({ 2, 3 })
    local clone, cast = t:clone(), t:astype("float64")
    local transposed = t:transpose(1, 2):contiguous()
    local capsule = t:__dlpack(V13)
    tp.unborrow(loan)
    h.same({ { 0, 1, 2 }, { 3, 4, 5 } }, clone:totable())
    h.same({ { 0, 1, 2 }, { 3, 4, 5 } }, cast:totable())
    h.same({ { 0, 3 }, { 1, 4 }, { 2, 5 } }, transposed:totable())
    h.same({ { 0, 1, 2 }, { 3, 4, 5 } }, dlx.from_dlpack(capsule):totable())
    clone:fill_(1)
    assert.equal(6, clone:sum():item())
  end)

  it("is exported as a copy flagged IS_COPIED", function()
    local t, loan = tp.lend({ 2, 4 })
    local e = assert(tp.export(t:__dlpack(V13), { keep = true }))
    assert.equal(h.FLAG_IS_COPIED, e.flags & h.FLAG_IS_COPIED)
    assert.are_not.equal(tp.loan_address(loan), e.data)
    tp.unborrow(loan)
    for i = 0, 7 do assert.equal(i, tp.read_export_f32(e.handle, i)) end
    tp.release(e.handle)
  end)

  it("is exported as a copy through the C API too (dlx_to_dlpack)", function()
    local t, loan = tp.lend({ 3 })
    local e = assert(tp.export(t, { keep = true }))
    assert.equal(h.FLAG_IS_COPIED, e.flags & h.FLAG_IS_COPIED)
    assert.are_not.equal(tp.loan_address(loan), e.data)
    tp.loan_write(loan, 0, 99)
    assert.equal(0, tp.read_export_f32(e.handle, 0))
    tp.release(e.handle)
    tp.unborrow(loan)
  end)

  it("refuses an export with copy = false (BufferError)", function()
    local t, loan = tp.lend({ 4 })
    h.raises("BufferError", t.__dlpack, t, { max_version = { 1, 3 }, copy = false })
    local v = t:view({ 2, 2 })
    h.raises("BufferError", v.__dlpack, v, { max_version = { 1, 3 }, copy = false })
    tp.unborrow(loan)
  end)
end)

describe("unborrow's held", function()
  it("is true when a script kept a view", function()
    local t, loan = tp.lend({ 8 })
    local kept = t:view({ 2, 4 })
    t = nil -- luacheck: ignore 311
    collectgarbage()
    collectgarbage()
    assert.is_true(tp.unborrow(loan))
    expired(kept.sum, kept)
  end)

  it("is true when the tensor itself is still referenced", function()
    local t, loan = tp.lend({ 8 })
    assert.is_true(tp.unborrow(loan))
    expired(t.sum, t)
  end)

  it("is false when every tensor and view was collected", function()
    local t, loan = tp.lend({ 8 })
    assert.equal(28, t:view({ 2, 4 }):transpose(1, 2):sum():item())
    t = nil -- luacheck: ignore 311
    collectgarbage()
    collectgarbage()
    assert.is_false(tp.unborrow(loan))
  end)

  it("is false when the tensor and its views were closed", function()
    local t, loan = tp.lend({ 8 })
    local v = t:flip(1)
    h.same({ 7, 6, 5, 4, 3, 2, 1, 0 }, v:totable())
    v:close()
    t:close()
    assert.is_false(tp.unborrow(loan))
  end)

  it("is true when the tensor was closed but a view was kept", function()
    local t, loan = tp.lend({ 8 })
    local v = t:view({ 4, 2 })
    t:close()
    assert.is_true(tp.unborrow(loan))
    expired(v.sum, v)
  end)
end)

describe("loans", function()
  it("end in any order, each taking only its own memory back", function()
    local a, la = tp.lend({ 4 })
    local b, lb = tp.lend({ 4 })
    local c, lc = tp.lend({ 4 })
    tp.unborrow(lb)
    h.same(iota(4), a:totable())
    expired(b.sum, b)
    h.same(iota(4), c:totable())
    tp.unborrow(la)
    expired(a.sum, a)
    assert.equal(6, c:sum():item())
    tp.unborrow(lc)
    expired(c.sum, c)
  end)
end)
