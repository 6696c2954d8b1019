--- oneapi (Level Zero) reductions, full and per dim, against the CPU's results on the same data.
local h = require "spec.helper"
local dlx = h.dlx

local function values(dtype, n, seed)
  return h.seeded_values(dtype, n, seed, { bool = 3, uint = { 0, 9 }, int = { -9, 9 } })
end

local ORDERED = { "min", "max", "argmin", "argmax" }
local ALL_OPS = { "sum", "prod", "mean", "min", "max", "argmin", "argmax", "all", "any" }

describe("oneapi reductions #oneapi", function()
  if not h.has_device("oneapi:0", pending) then return end

  local function check(cpu, op, dims, keepdim)
    local dev = cpu:to("oneapi:0")
    local want = cpu[op](cpu, dims, keepdim)
    local got = dev[op](dev, dims, keepdim)
    h.same_as_cpu("oneapi:0", want, got)
  end

  it("reduces every computable dtype fully and along each dim", function()
    for _, dtype in ipairs(h.NUMERIC) do
      local cpu = dlx.tensor(values(dtype, 3 * 5 * 7, 21), { dtype = dtype, device = "cpu" })
        :view{ 3, 5, 7 }:permute{ 2, 3, 1 }
      for _, op in ipairs(ALL_OPS) do
        local ordered = false
        for _, o in ipairs(ORDERED) do ordered = ordered or o == op end
        if not (ordered and dtype:match("^complex")) then
          check(cpu, op)
          for d = 1, 3 do check(cpu, op, d, d == 2) end
          if not op:match("^arg") then check(cpu, op, { 1, 3 }) end
        end
      end
    end
  end)

  it("reduces long extents through many work-groups and a second pass", function()
    local cpu = dlx.arange(7 * 20011, { dtype = "int64", device = "cpu" })
    for _, op in ipairs{ "sum", "max", "argmax", "argmin", "all", "mean" } do check(cpu, op) end
    local f = cpu:astype("float32"):view{ 7, -1 }
    for _, op in ipairs{ "sum", "min", "argmax", "mean" } do
      check(f, op)
      check(f, op, 2)
      check(f:transpose(1, 2), op, 1)
    end
  end)

  it("gives the first position of the extreme, and of the first NaN", function()
    local cpu = dlx.tensor({ 3, 1, 4, 1, 5, 9, 2, 6, 5, 9, 1 },
      { dtype = "float32", device = "cpu" })
    local dev = cpu:to("oneapi:0")
    assert.equal(2, dev:argmin():item())
    assert.equal(6, dev:argmax():item())
    local nan = dlx.tensor({ 1, 0 / 0, 3, 0 / 0 }, { dtype = "float64", device = "cpu" })
      :to("oneapi:0")
    assert.equal(2, nan:argmax():item())
    assert.equal(2, nan:argmin():item())
    assert.is_true(h.isnan(nan:max():item()))
  end)

  it("reduces empty extents to the identities", function()
    local dev = dlx.zeros({ 0, 3 }, { dtype = "float32", device = "oneapi:0" })
    h.same({ 0, 0, 0 }, dev:sum(1):totable())
    h.same({ 1, 1, 1 }, dev:prod(1):totable())
    assert.is_true(h.isnan(dev:mean(1):totable()[1]))
    h.same({ true, true, true }, dev:all(1):totable())
    h.same({ false, false, false }, dev:any(1):totable())
    h.raises("ValueError", function() dev:max(1) end)
  end)
end)
