--- histc, histogram, bincount, searchsorted and bucketize on a device against the CPU's results
--- on the same data, bit for bit (counts are exact; the weights here are sums exact in any order):
--- ranges given and found, edges given and computed, values outside the range, NaN, -0.0, ties,
--- left and right, batched rows, empty inputs, and errors, through each device's count_op. Used
--- by cuda_count_spec.lua, oneapi_count_spec.lua and count_spec.lua (the CPU against itself
--- through the same calls):
--- require "spec.count_device" (device, it) inside a describe.
local h = require "spec.helper"
local dlx = h.dlx
local assert = require "luassert" -- specs get it as their assert; this module does not

local NAN = 0 / 0

local function values(n, seed, specials)
  math.randomseed(seed)
  local out, extra = {}, { -0.0, 0.0, NAN, 5.5, -3 }
  for i = 1, n do
    if specials and math.random(8) == 1 then out[i] = extra[math.random(#extra)]
    else out[i] = math.random(-12, 12) / 4 end
  end
  return out
end

return function(device, it)
  local function on(t) return t:to(device) end
  local function cpu(t) return t:to("cpu") end

  it("histc counts what the CPU counts, ranges given and found", function()
    for _, dtype in ipairs { "float32", "float64", "float16", "bfloat16" } do
      local t = dlx.tensor(values(200, 3, true), { dtype = dtype })
      local clean = dlx.tensor(values(200, 4, false), { dtype = dtype })
      for _, bins in ipairs { 1, 3, 7, 100 } do
        h.same_bits(t:histc(bins, -2, 2), cpu(on(t):histc(bins, -2, 2)))
        h.same_bits(clean:histc(bins), cpu(on(clean):histc(bins)))
        local grid = clean:view { 10, 20 }
        h.same_bits(grid:histc(bins, 0.5, 0.5), cpu(on(grid):histc(bins, 0.5, 0.5)))
      end
      assert.equal(device, tostring(on(t):histc(4, 0, 1).device))
    end
    h.same_bits(dlx.zeros({ 0 }):histc(3), cpu(on(dlx.zeros({ 0 })):histc(3)))
    h.raises("ValueError", function() on(dlx.tensor { 1, NAN }):histc(3) end)
    h.raises("TypeError", function() on(dlx.tensor({ 1, 2 }, { dtype = "int32" })):histc(3) end)
  end)

  it("histogram with equal bins or edges, weights and density, as on the CPU", function()
    for _, dtype in ipairs { "float32", "float64", "int32" } do
      local t = dlx.tensor(values(150, 7, dtype ~= "int32"), { dtype = "float64" })
      if dtype == "int32" then t = t:mul(4):to("int32") else t = t:to(dtype) end
      local w = dlx.tensor(values(150, 8, false))
      local edges = dlx.tensor({ -3, -1, -0.5, 0, 0, 1.25, 2, 4 },
        { dtype = dtype == "int32" and "float64" or dtype })
      local cases = {
        { 5, { range = { -2, 2 } } }, { 1, { range = { -2, 2 } } }, { 4, { range = { 1, 1 } } },
        { edges, nil }, { edges, { weights = w } }, { 6, { range = { -2, 3 }, weights = w } },
        { edges, { density = true } }, { 3, { range = { -1, 2 }, density = true } },
      }
      if dtype == "int32" then cases[#cases + 1] = { 7, nil } end
      for _, c in ipairs(cases) do
        local opts = c[2] and {
          range = c[2].range, density = c[2].density, weights = c[2].weights and on(c[2].weights),
        }
        local wh, we = dlx.histogram(t, c[1], c[2])
        local dh, de = dlx.histogram(on(t), type(c[1]) == "number" and c[1] or on(c[1]), opts)
        h.same_bits(wh, cpu(dh))
        h.same_bits(we, cpu(de))
      end
    end
    h.raises("ValueError", function() dlx.histogram(on(dlx.tensor { 1, NAN }), 3) end)
  end)

  it("bincount counts and sums the weights as the CPU", function()
    for _, dtype in ipairs { "int64", "int32", "uint8", "bool" } do
      math.randomseed(11)
      local xs = {}
      for i = 1, 300 do xs[i] = dtype == "bool" and math.random(0, 1) == 1 or math.random(0, 40) end
      local t = dlx.tensor(xs, { dtype = dtype })
      h.same_bits(t:bincount(), cpu(on(t):bincount()))
      h.same_bits(t:bincount { minlength = 60 }, cpu(on(t):bincount { minlength = 60 }))
      local w = dlx.tensor(values(300, 12, false), { dtype = "float32" })
      h.same_bits(t:bincount { weights = w }, cpu(on(t):bincount { weights = on(w) }))
    end
    h.same_bits(dlx.tensor({}, { dtype = "int64" }):bincount { minlength = 3 },
      cpu(on(dlx.tensor({}, { dtype = "int64" })):bincount { minlength = 3 }))
    h.raises("ValueError", function() on(dlx.tensor({ 1, -1 }, { dtype = "int32" })):bincount() end)
  end)

  it("searchsorted and bucketize find the CPU's positions", function()
    local sorted = { -3, -1, -0.0, 0.0, 0.0, 1, 1, 1, 2.5, NAN, NAN }
    local vals = { -4, -3, -1, 0.0, -0.0, 0.5, 1, 2.5, 3, NAN, -1.5 }
    for _, dtype in ipairs { "float32", "float64", "float16", "int32", "int64", "uint8" } do
      local s, v
      if dtype:match("int") then
        s = dlx.tensor({ 0, 1, 1, 3, 3, 3, 7, 9 }, { dtype = dtype })
        v = dlx.tensor({ 0, 1, 2, 3, 8, 9, 10, 4 }, { dtype = dtype })
      else
        s = dlx.tensor(sorted, { dtype = dtype })
        v = dlx.tensor(vals, { dtype = dtype })
      end
      for _, right in ipairs { false, true } do
        local opts = { right = right }
        h.same_bits(dlx.searchsorted(s, v, opts), cpu(dlx.searchsorted(on(s), on(v), opts)))
        local grid = v:narrow(1, 1, v.numel // 2 * 2):view { 2, -1 }:transpose(1, 2)
        h.same_bits(dlx.searchsorted(s, grid, opts), cpu(dlx.searchsorted(on(s), on(grid), opts)))
        h.same_bits(dlx.bucketize(v, s, opts), cpu(dlx.bucketize(on(v), on(s), opts)))
        h.same_bits(dlx.searchsorted(s, 1, opts), cpu(dlx.searchsorted(on(s), 1, opts)))
      end
    end
    -- batched rows: each row of values searched in its own sorted row
    local s = dlx.tensor { { 1, 2, 3, 4 }, { -1, 0, 0, 8 }, { 5, 5, 5, 5 } }
    local v = dlx.tensor { { 0, 2.5 }, { 0, 9 }, { 5, 4 } }
    for _, side in ipairs { "left", "right" } do
      h.same_bits(dlx.searchsorted(s, v, { side = side }),
        cpu(dlx.searchsorted(on(s), on(v), { side = side })))
    end
    h.same_bits(dlx.searchsorted(dlx.zeros({ 0 }), dlx.tensor { 1, 2 }),
      cpu(dlx.searchsorted(on(dlx.zeros({ 0 })), on(dlx.tensor { 1, 2 }))))
    local e = dlx.searchsorted(on(s), on(dlx.zeros({ 3, 0 })))
    assert.same({ 3, 0 }, e.shape)
    h.raises("ValueError", function() dlx.searchsorted(on(s), on(dlx.zeros({ 2, 2 }))) end)
  end)
end
