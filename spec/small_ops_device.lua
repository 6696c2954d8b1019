--- The small ops' cases on a device, against the CPU's results on the same data: the views
--- (unfold, as_strided, movedim, rot90, meshgrid, broadcast_tensors) and the ops built from other
--- ops (roll, diff, dist, renorm), on transposed, strided and zero-size inputs, plus
--- shares_memory and may_share_memory of device tensors. Used by oneapi_small_ops_spec.lua and
--- cuda_small_ops_spec.lua: require "spec.small_ops_device" (device, it) inside a describe.
local h = require "spec.helper"
local dlx = h.dlx
local assert = require "luassert"

local function grid(dtype, rows, cols)
  local values = {}
  for i = 1, rows * cols do values[i] = (i * 7) % 11 - 5 end
  if dtype == "bool" then
    for i = 1, #values do values[i] = values[i] > 0 end
  elseif dtype:match("^uint") then
    for i = 1, #values do values[i] = values[i] + 5 end
  end
  return dlx.tensor(values, { dtype = dtype, device = "cpu" }):view{ rows, cols }
end

return function(device, it)
  local DTYPES = { "bool", "int8", "int32", "uint8", "int64", "float16", "float32", "float64" }

  -- f(t) on the CPU and on device, for t, its transpose and a strided slice of it.
  local function each_layout(dtype, f)
    local t = grid(dtype, 4, 6)
    local d = t:to(device)
    h.same_as_cpu(device, f(t), f(d))
    h.same_as_cpu(device, f(t:transpose(1, 2)), f(d:transpose(1, 2)))
    h.same_as_cpu(device, f(t:slice(2, 1, 6, 2)), f(d:slice(2, 1, 6, 2)))
    h.same_as_cpu(device, f(t:slice(1, 1, 0)), f(d:slice(1, 1, 0))) -- zero-size
  end

  it("makes the views as on the CPU: unfold, as_strided, movedim, rot90", function()
    for _, dtype in ipairs(DTYPES) do
      each_layout(dtype, function(t) return t:unfold(2, 2, 1):contiguous() end)
      each_layout(dtype, function(t) return t:movedim(1, 2) + t:movedim(1, 2) end)
      each_layout(dtype, function(t) return t:rot90():contiguous() end)
      each_layout(dtype, function(t) return t:rot90(-1, { 2, 1 }):clone() end)
      local t = grid(dtype, 4, 6)
      local d = t:to(device)
      h.same_as_cpu(device, t:as_strided({ 3, 3 }, { 2, 1 }, 5):clone(),
        d:as_strided({ 3, 3 }, { 2, 1 }, 5):clone())
      assert.is_true(d:unfold(1, 2, 1).readonly)
    end
  end)

  it("expands meshgrid and broadcast_tensors as on the CPU", function()
    local a, b = dlx.arange(3, { device = "cpu" }), dlx.tensor({ 0.5, 1.5 }, { device = "cpu" })
    local da, db = a:to(device), b:to(device)
    for _, indexing in ipairs({ "ij", "xy" }) do
      local want = dlx.meshgrid({ a, b }, { indexing = indexing })
      local got = dlx.meshgrid({ da, db }, { indexing = indexing })
      h.same_as_cpu(device, want[1]:clone(), got[1]:clone())
      h.same_as_cpu(device, want[2]:clone(), got[2]:clone())
    end
    local want = dlx.broadcast_tensors({ a:view{ 3, 1 }, b })
    local got = dlx.broadcast_tensors({ da:view{ 3, 1 }, db })
    h.same_as_cpu(device, want[1] + want[2], got[1] + got[2])
  end)

  it("rolls and differences as on the CPU", function()
    for _, dtype in ipairs(DTYPES) do
      each_layout(dtype, function(t) return t:roll(3) end)
      each_layout(dtype, function(t) return t:roll({ -1, 5 }, { 1, 2 }) end)
      each_layout(dtype, function(t) return t:diff() end)
      each_layout(dtype, function(t) return t:diff(2, 1) end)
    end
  end)

  it("computes dist and renorm as on the CPU", function()
    for _, dtype in ipairs({ "float32", "float64", "int32" }) do
      local a, b = grid(dtype, 4, 6), grid(dtype, 6, 4):transpose(1, 2)
      local da, db = a:to(device), b:to(device)
      for _, p in ipairs({ 0, 1, 2, 3, 0.5, math.huge, -math.huge }) do
        h.same_as_cpu(device, dlx.dist(a, b, p), dlx.dist(da, db, p))
      end
    end
    for _, dtype in ipairs({ "float32", "float64" }) do
      each_layout(dtype, function(t) return t:renorm(2, 1, 3) end)
      each_layout(dtype, function(t) return t:renorm(1, 2, 4) end)
    end
  end)

  it("tells which device tensors share memory", function()
    local d = dlx.arange(12, { device = device })
    local cpu = dlx.arange(12, { device = "cpu" })
    assert.is_true(dlx.shares_memory(d, d:slice(1, 3, 5)))
    assert.is_false(dlx.shares_memory(d:slice(1, 1, -1, 2), d:slice(1, 2, -1, 2)))
    assert.is_true(dlx.may_share_memory(d:slice(1, 1, -1, 2), d:slice(1, 2, -1, 2)))
    assert.is_false(dlx.shares_memory(d, cpu))
    assert.is_false(dlx.may_share_memory(d, d:clone()))
    assert.is_true(d:is_set_to(d:view{ 12 }))
  end)
end
