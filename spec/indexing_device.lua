--- Indexing on a device against the CPU, bit for bit: t[i], t[{...}], t[mask] and assignment
--- through them, index_select, gather, scatter_, index_add_, masked_select, masked_fill_ and
--- nonzero, over every whole-byte dtype, strided and broadcast (stride-0) operands, repeated
--- indices, empty and 0-d masks; and the errors: an index out of range is the CPU's ValueError,
--- naming the first bad index in row-major order, and nothing is written. Scatters and
--- index_add_ are deterministic on every device (a line along dim is walked in order), so even
--- float sums over repeated indices equal the CPU's. Uses only the public Lua API; the device
--- specs call it as `require "spec.indexing_device" (device, it)`.
local h = require "spec.helper"
local dlx = h.dlx
local assert = require "luassert" -- specs get it as their assert; this module does not

local DTYPES = {"bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
  "float16", "bfloat16", "float32", "float64", "complex64", "complex128"}

--- Values of dtype on the CPU: floats with fractions (sums depend on their order), integers
--- spanning their range (sums wrap), bools at random.
local function input(dtype, shape, seed)
  local g = dlx.Generator(seed or 1)
  if dtype == "bool" then return dlx.randint(0, 2, shape, {generator = g}):astype("bool") end
  if dtype:match("int") then
    return dlx.randint(-128, 128, shape, {generator = g, dtype = "int64"}):astype(dtype)
  end
  local t = dlx.sub(dlx.mul(dlx.rand(shape, {generator = g, dtype = "float64"}), 200), 100)
  return t:astype(dtype)
end

local function indices(low, high, shape, seed)
  return dlx.randint(low, high, shape, {generator = dlx.Generator(seed), dtype = "int64"})
end

local same_bits = h.same_bits

--- fn(tensors...) run on the CPU and on device with copies of the same CPU tensors; its result
-- (a tensor, or the first argument when it returns nothing) compared bit for bit.
local function both(device, fn, ...)
  local args, dev_args = {...}, {}
  for i, a in ipairs(args) do
    dev_args[i] = dlx.is_tensor(a) and a:to(device) or a
  end
  local want = fn(table.unpack(args)) or args[1]
  local got = fn(table.unpack(dev_args)) or dev_args[1]
  if dlx.is_tensor(want) then
    assert.equal(tostring(dlx.device(device)), tostring(got.device))
    same_bits(want, got)
  else
    assert.same(want, got)
  end
end

--- fn must fail on the CPU and on device with the same message, and leave t (the first
-- argument) as it was on each.
local function same_error(device, class, fn, t, ...)
  local args, dev_args = {t, ...}, {}
  for i, a in ipairs(args) do dev_args[i] = dlx.is_tensor(a) and a:to(device) or a end
  local before = t:tobytes()
  local want = h.raises(class, fn, table.unpack(args))
  local got = h.raises(class, fn, table.unpack(dev_args))
  assert.equal(want, got)
  assert.equal(before, t:tobytes())
  assert.equal(before, dev_args[1]:to("cpu"):tobytes())
end

return function(device, it)
  for _, dtype in ipairs(DTYPES) do
    it("index_select, gather, scatter_ and index_add_ " .. dtype .. " as the CPU", function()
      local t = input(dtype, {5, 6, 7})
      for dim = 1, 3 do
        local size = t.shape[dim]
        local index = indices(-size, size, {9}, dim) -- repeats and negatives, zeros made 1
        index = dlx.where(index:eq(0), dlx.tensor(1, {dtype = "int64"}), index)
        both(device, function(x, i) return x:index_select(dim, i) end, t, index)
        local shape = {5, 6, 7}
        shape[dim] = 4
        local gidx = indices(-size, size, shape, 10 + dim)
        gidx = dlx.where(gidx:eq(0), dlx.tensor(-1, {dtype = "int64"}), gidx)
        both(device, function(x, i) return x:gather(dim, i) end, t, gidx)
        -- scatter_: repeated positions, the last write wins
        local src = input(dtype, shape, 20 + dim)
        local sidx = indices(1, 3, shape, 30 + dim)
        both(device, function(x, i, s) return x:clone():scatter_(dim, i, s) end, t, sidx, src)
        -- index_add_: repeated indices accumulate in order
        local rows = {5, 6, 7}
        rows[dim] = 40
        local asrc = input(dtype, rows, 40 + dim)
        local aidx = indices(1, 3, {40}, 50 + dim)
        both(device, function(x, i, s) return x:clone():index_add_(dim, i, s) end, t, aidx, asrc)
      end
    end)

    it("masked_select, masked_fill_, t[mask] = v and nonzero of " .. dtype .. " as the CPU",
      function()
        local t = input(dtype, {7, 5, 6}, 3)
        local mask = input("bool", {7, 5, 6}, 4)
        both(device, function(x, m) return x:masked_select(m) end, t, mask)
        both(device, function(x, m) return x[m] end, t, mask)
        both(device, function(x) return x:nonzero() end, t)
        local value = input(dtype, {1}, 5):item()
        if type(value) == "table" then value = value.re end -- complex: a real fill
        both(device, function(x, m) return x:clone():masked_fill_(m, value) end, t, mask)
        local n = mask:sum():item()
        local vals = input(dtype, {n}, 6)
        both(device, function(x, m, v)
          local c = x:clone()
          c[m] = v
          return c
        end, t, mask, vals)
      end)
  end

  it("takes transposed, sliced, negative-step and broadcast (stride-0) operands", function()
    local base = input("float32", {8, 9, 10}, 7)
    local t = base:transpose(1, 3):slice(2, 1, 9, 2):flip(1) -- {10, 5, 8}
    local index = indices(1, 6, {12}, 8):slice(1, 1, 12, 2) -- strided 1-D index
    both(device, function(x, i) return x:index_select(2, i) end, t, index)
    local wide = input("int16", {1, 6}, 9):expand({7, 6}) -- stride-0 source rows
    both(device, function(x, i) return x:index_select(1, i) end, wide, indices(1, 8, {3}, 10))
    local gidx = indices(1, 8, {1, 6}, 11):expand({5, 6}) -- a stride-0 index
    both(device, function(x, i) return x:gather(1, i) end, wide, gidx)
    both(device, function(x, i, s) return x:clone():scatter_(2, i, s) end,
      input("float64", {4, 9}, 12), indices(1, 10, {4, 3}, 13):transpose(1, 2):transpose(1, 2),
      input("float64", {6, 5}, 14):transpose(1, 2))
    both(device, function(x, i) return x:clone():scatter_(1, i, 2.5) end,
      input("float64", {3, 4}, 15), indices(1, 4, {5, 4}, 16)) -- a Lua value: stride-0 source
    -- masks that broadcast, a transposed mask and a mask over a strided tensor
    local row = input("bool", {1, 8}, 17)
    both(device, function(x, m) return x:masked_select(m) end, input("uint8", {5, 8}, 18), row)
    both(device, function(x, m) return x:masked_select(m) end, t,
      input("bool", {8, 5, 10}, 19):transpose(1, 3))
    both(device, function(x, m) return x:clone():masked_fill_(m, -1) end,
      input("int32", {5, 8}, 20), row)
    both(device, function(x, m) return x:clone():masked_fill_(m, 7) end, base:transpose(1, 2),
      input("bool", {9, 8, 10}, 21))
    both(device, function(x) return x:nonzero() end, input("bool", {6, 7}, 22):transpose(1, 2))
  end)

  it("gives empty and 0-d masks, 0-d and zero-size tensors the CPU's results", function()
    local t = input("float32", {4, 5}, 23)
    local none = dlx.zeros({4, 5}, {dtype = "bool"})
    both(device, function(x, m) return x:masked_select(m) end, t, none)
    both(device, function(x, m) return x:clone():masked_fill_(m, 1) end, t, none)
    both(device, function(x) return x:nonzero() end, none)
    for _, flag in ipairs {true, false} do
      local m0 = dlx.tensor(flag) -- a 0-d mask broadcasts to everything
      both(device, function(x, m) return x:masked_select(m) end, t, m0)
      both(device, function(x, m) return x:clone():masked_fill_(m, 3) end, t, m0)
      both(device, function(x, m) return x:masked_select(m) end, dlx.tensor(2.5), m0)
      both(device, function(x) return x:nonzero() end, m0)
    end
    both(device, function(x) return x:nonzero() end, dlx.tensor(0))
    both(device, function(x) return x:nonzero() end, dlx.tensor(4))
    both(device, function(x, i) return x:index_select(1, i) end, t,
      dlx.tensor({}, {dtype = "int64"}))
    both(device, function(x, i) return x:index_select(2, i) end, dlx.zeros({0, 3}),
      dlx.tensor({3, 1}, {dtype = "int64"}))
    both(device, function(x, m) return x:masked_select(m) end, dlx.zeros({0, 3}),
      dlx.zeros({0, 3}, {dtype = "bool"}))
  end)

  it("reads and writes through t[i], t[{...}] and t[mask] as the CPU", function()
    local cpu = input("int64", {4, 6}, 24)
    local dev = cpu:to(device)
    assert.equal(cpu[2][3], dev[2][3])
    assert.equal(cpu[-1][-1], dev[-1][-1])
    same_bits(cpu[{2, {2, 5, 2}}], dev[{2, {2, 5, 2}}])
    same_bits(cpu[cpu:gt(0)], dev[dev:gt(0)])
    for _, t in ipairs {cpu, dev} do
      t[1] = 5
      t[{{}, 2}] = -3
      t[t:lt(-50)] = 0
      t[{3, {4, 6}}] = dlx.tensor({7, 8, 9}):to(t.device)
    end
    same_bits(cpu, dev)
  end)

  it("masks and sums across many chunks as the CPU", function()
    local t = input("float32", {300001}, 25)
    local mask = input("bool", {300001}, 26)
    both(device, function(x, m) return x:masked_select(m) end, t, mask)
    both(device, function(x) return x:nonzero() end, mask)
    -- index_add_ of 5000 rows into 3: long runs of repeated indices, float sums in order
    both(device, function(x, i, s) return x:clone():index_add_(1, i, s) end,
      input("float32", {3, 4}, 27), indices(1, 4, {5000}, 28), input("float32", {5000, 4}, 29))
    both(device, function(x, i, s) return x:clone():index_add_(1, i, s) end,
      input("float16", {3}, 30), indices(1, 4, {5000}, 31), input("float16", {5000}, 32))
  end)

  it("raises the CPU's ValueError for the first bad index and writes nothing", function()
    local t = input("float32", {6, 5}, 33)
    local long = indices(1, 7, {2000}, 34)
    long[1500] = 9 -- a late chunk
    long[700] = -7 -- the first bad one in row-major order
    long[1900] = 0
    same_error(device, "ValueError", function(x, i) return x:index_select(1, i) end, t, long)
    local g = indices(1, 6, {6, 5}, 35)
    g[{5, 2}] = 0
    g[{6, 1}] = 99
    same_error(device, "ValueError", function(x, i) return x:gather(2, i) end, t, g)
    same_error(device, "ValueError", function(x, i, s) return x:scatter_(2, i, s) end, t, g,
      input("float32", {6, 5}, 36))
    same_error(device, "ValueError", function(x, i, s) return x:index_add_(1, i, s) end, t,
      long:slice(1, 690, 710), input("float32", {21, 5}, 37))
    -- a transposed index: row-major order is not the order in memory
    local nd = indices(1, 4, {40, 3}, 38):transpose(1, 2)
    nd[{2, 30}] = -9
    nd[{3, 1}] = 5
    same_error(device, "ValueError", function(x, i) return x:gather(2, i) end,
      input("int8", {3, 3}, 39), nd)
  end)

  it("reads an index or mask that is a view of the destination as it was, as the CPU", function()
    local n = 5000
    local base = dlx.arange(n, {device = "cpu"}):remainder(7):add(1)
    local src = dlx.full({n}, n, {dtype = "int64", device = "cpu"})
    both(device, function(d, s) return d:scatter_(1, d:flip(1), s) end, base:clone(), src)
    both(device, function(d, s) return d:index_add_(1, d:narrow(1, 1, 9), s:narrow(1, 1, 9)) end,
      base:clone(), src)
    local mask = dlx.arange(n, {device = "cpu"}):remainder(3):eq(0)
    both(device, function(m) return m:narrow(1, 2, n - 1):masked_fill_(m:narrow(1, 1, n - 1),
      false) end, mask:clone())
  end)
end
