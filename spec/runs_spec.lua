-- unique_consecutive and argwhere on the CPU: hand-worked cases of PyTorch's and NumPy's
-- results (runs of equal elements and slices, NaN and -0.0, 0-d and zero-size tensors), random
-- rows against a reference computed in Lua, and the errors.
local h = require "spec.helper"
local dlx = h.dlx

local NAN = 0 / 0

-- The runs of xs as PyTorch finds them (x ~= previous starts a run, so every NaN does).
local function ref_runs(xs)
  local values, inverse, counts = {}, {}, {}
  for i, x in ipairs(xs) do
    if i == 1 or x ~= xs[i - 1] then
      values[#values + 1], counts[#counts + 1] = x, 0
    end
    inverse[i], counts[#counts] = #values, counts[#counts] + 1
  end
  return values, inverse, counts
end

describe("unique_consecutive", function()
  it("keeps the first element of each run, with the inverse and counts", function()
    local t = dlx.tensor({ 1, 1, 2, 2, 3, 1, 1, 2 }, { dtype = "int32" })
    local v, inv, cnt = t:unique_consecutive { return_inverse = true, return_counts = true }
    assert.same({ 1, 2, 3, 1, 2 }, v:totable())
    assert.equal("int32", v.dtype)
    assert.same({ 1, 1, 2, 2, 3, 4, 4, 5 }, inv:totable())
    assert.equal("int64", inv.dtype)
    assert.same({ 2, 2, 1, 2, 1 }, cnt:totable())
    assert.equal("int64", cnt.dtype)
    local only_counts = { t:unique_consecutive { return_counts = true } }
    assert.equal(2, #only_counts)
    assert.same({ 2, 2, 1, 2, 1 }, only_counts[2]:totable())
  end)

  it("flattens t without dim, the inverse in t's shape", function()
    local t = dlx.tensor({ { 5, 5, 7 }, { 7, 7, 5 } })
    local v, inv = dlx.unique_consecutive(t, { return_inverse = true })
    assert.same({ 5, 7, 5 }, v:totable())
    assert.same({ { 1, 1, 2 }, { 2, 2, 3 } }, inv:totable())
    local s, sinv, scnt = dlx.tensor(4.5):unique_consecutive { return_inverse = true,
      return_counts = true }
    assert.same({ 1 }, s.shape)
    assert.same({}, sinv.shape)
    assert.equal(1, sinv:item())
    assert.same({ 1 }, scnt:totable())
  end)

  it("keeps -0.0 with 0.0 (the first's bits) and gives each NaN its own run", function()
    local v, _, cnt = dlx.tensor({ -0.0, 0.0, NAN, NAN, 1 }):unique_consecutive {
      return_counts = true, return_inverse = true }
    local got = v:totable()
    assert.equal(4, #got)
    assert.equal(-math.huge, 1 / got[1])
    assert.is_true(got[2] ~= got[2] and got[3] ~= got[3])
    assert.same({ 2, 1, 1, 1 }, cnt:totable())
  end)

  it("compares whole slices along dim", function()
    local t = dlx.tensor({ { 1, 1, 2, 2, 2 }, { 3, 3, 3, 4, 4 } }, { dtype = "int64" })
    local v, inv, cnt = t:unique_consecutive { dim = 2, return_inverse = true,
      return_counts = true }
    assert.same({ { 1, 2, 2 }, { 3, 3, 4 } }, v:totable())
    assert.same({ 1, 1, 2, 3, 3 }, inv:totable())
    assert.same({ 2, 1, 2 }, cnt:totable())
    local rows = dlx.tensor({ { 1, 2 }, { 1, 2 }, { 1, 3 } })
    assert.same({ { 1, 2 }, { 1, 3 } }, rows:unique_consecutive({ dim = -2 }):totable())
    local nan_rows = dlx.tensor({ { NAN, 1 }, { NAN, 1 } })
    assert.same({ 2, 2 }, nan_rows:unique_consecutive({ dim = 1 }).shape)
  end)

  it("matches a Lua reference on random runs of every dtype", function()
    for seed = 1, 20 do
      math.randomseed(seed)
      local xs = {}
      for i = 1, math.random(0, 30) do
        xs[i] = (i > 1 and math.random(3) > 1) and xs[i - 1] or math.random(-3, 3) / 2
      end
      if math.random(3) == 1 and #xs > 0 then xs[math.random(#xs)] = NAN end
      local v, inv, cnt = ref_runs(xs)
      local t = dlx.tensor(xs, { dtype = "float64" })
      local gv, ginv, gcnt = t:unique_consecutive { return_inverse = true, return_counts = true }
      assert.equal(#v, gv.numel, "seed " .. seed)
      local got = gv:totable()
      for i = 1, #v do
        assert.is_true(got[i] == v[i] or (got[i] ~= got[i] and v[i] ~= v[i]), "seed " .. seed)
      end
      assert.same(inv, ginv:totable(), "seed " .. seed)
      assert.same(cnt, gcnt:totable(), "seed " .. seed)
    end
  end)

  it("gives empty results for zero-size tensors", function()
    local v, inv, cnt = dlx.zeros({ 0 }):unique_consecutive { return_inverse = true,
      return_counts = true }
    assert.same({ 0 }, v.shape)
    assert.same({ 0 }, inv.shape)
    assert.same({ 0 }, cnt.shape)
    local rows = dlx.zeros({ 0, 3 }):unique_consecutive { dim = 1, return_counts = true }
    assert.same({ 0, 3 }, rows.shape)
  end)

  it("raises on bad arguments", function()
    local t = dlx.tensor({ 1, 2 })
    h.raises("TypeError", function() t:unique_consecutive(3) end)
    h.raises("TypeError", function() t:unique_consecutive { return_counts = 1 } end)
    h.raises("ValueError", function() t:unique_consecutive { dim = 2 } end)
    h.raises("ValueError", function() t:unique_consecutive { dim = 0 } end)
    h.raises("TypeError", function() t:unique_consecutive { dim = "1" } end)
    h.raises("ValueError", function() dlx.tensor(1):unique_consecutive { dim = 1 } end)
    h.raises("ValueError", function() dlx.zeros({ 3, 0 }):unique_consecutive { dim = 1 } end)
    h.raises("TypeError", function() dlx.unique_consecutive({ 1, 2 }) end)
  end)
end)

describe("argwhere", function()
  it("gives the 1-based positions of the nonzero elements, as nonzero", function()
    local t = dlx.tensor({ { 0, 2, 0 }, { 3, 0, 4 } })
    local got = t:argwhere()
    assert.same({ { 1, 2 }, { 2, 1 }, { 2, 3 } }, got:totable())
    assert.equal("int64", got.dtype)
    assert.same(t:nonzero():totable(), dlx.argwhere(t):totable())
    assert.same({ { 2 }, { 4 } }, dlx.tensor({ false, true, false, true }):argwhere():totable())
    assert.same({ 1, 4 }, dlx.tensor({ NAN, 0, -0.0, 1 }):argwhere():view{ -1 }:totable())
  end)

  it("gives {1, 0} or {0, 0} for a 0-d tensor and {0, ndim} for no match", function()
    assert.same({ 1, 0 }, dlx.tensor(5):argwhere().shape)
    assert.same({ 0, 0 }, dlx.tensor(0):argwhere().shape)
    assert.same({ 0, 2 }, dlx.zeros({ 2, 3 }):argwhere().shape)
    assert.same({ 0, 3 }, dlx.zeros({ 2, 0, 3 }):argwhere().shape)
    h.raises("TypeError", function() dlx.argwhere(7) end)
  end)
end)
