-- histc, histogram, bincount, searchsorted and bucketize on the CPU: PyTorch's and NumPy's
-- documented examples, references computed in Lua (PyTorch's histc formula, NumPy's edges and
-- last closed bin, counts and binary searches in the order of sorting: NaN last, -0.0 equal to
-- 0.0), large tensors on one and two threads (private histograms, values split over threads),
-- dtypes, layouts, zero-size tensors and errors. The cases every device shares are in
-- spec/count_device.lua (run here on the CPU against itself).
local h = require "spec.helper"
local dlx = h.dlx

local NAN, INF = 0 / 0, math.huge

local function list(t) return t:totable() end

--- The CPU and one or two threads.
local function on_threads(threads, fn)
  local saved = dlx.get_num_threads()
  dlx.set_num_threads(threads)
  local ok, a, b = pcall(fn)
  dlx.set_num_threads(saved)
  if not ok then error(a, 0) end
  return a, b
end

describe("histc", function()
  it("counts PyTorch's examples and rules", function()
    local f = { dtype = "float32" }
    assert.same({ 0, 2, 1, 0 }, list(dlx.histc(dlx.tensor({ 1, 2, 1 }, f), 4, 0, 3)))
    assert.same({ 0, 2, 1, 0 }, list(dlx.tensor({ 1, 2, 1 }, f):histc(4, 0, 3)))
    -- min = max: the data's range; max goes in the last bin; outside and NaN are not counted
    assert.same({ 2, 1, 1 }, list(dlx.tensor({ 1, 2, 1, 3 }, f):histc(3, 0, 0)))
    assert.same({ 2, 1, 1 }, list(dlx.tensor({ 1, 2, 1, 3 }, f):histc(3, 7, 7)))
    assert.same({ 1, 1, 1, 1 }, list(dlx.tensor({ -1, 0, 1.9, 2, 4, NAN, INF }):histc(4, 0, 4)))
    assert.same({ 3 }, list(dlx.tensor({ 5, 5, 5 }, f):histc(1))) -- an empty range grows by 1
    assert.same({ 0, 3, 0 }, list(dlx.tensor({ 5, 5, 5 }, f):histc(3)))
    assert.same({ 0, 0 }, list(dlx.zeros({ 0 }):histc(2)))
    assert.same({ 100 }, dlx.tensor({ 1.5 }):histc().shape)
  end)

  it("keeps the float dtype and computes in it as PyTorch does", function()
    for _, dtype in ipairs { "float16", "bfloat16", "float32", "float64" } do
      local r = dlx.tensor({ 0.1, 0.2, 0.3, 0.7 }, { dtype = dtype }):histc(2, 0, 1)
      assert.equal(dtype, r.dtype)
      assert.same({ 3, 1 }, list(r))
    end
    -- float32: (x - lo) * bins / (hi - lo) rounded in float32 puts 0.3 in bin 3 of 10 over [0, 1]
    local x = dlx.tensor({ 0.3 }, { dtype = "float32" })
    local f = (0.30000001192092896 - 0) * 10 / 1 -- the float32 0.3, times 10, in float32
    local want = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }
    want[math.floor(f) + 1] = 1
    assert.same(want, list(x:histc(10, 0, 1)))
  end)

  it("counts large tensors the same on one and two threads, against a reference", function()
    math.randomseed(7)
    local xs = {}
    for i = 1, 300000 do xs[i] = math.random() * 4 - 1 end
    local t = dlx.tensor(xs)
    local one = on_threads(1, function() return t:histc(37, -0.5, 2.5) end)
    local two = on_threads(2, function() return t:histc(37, -0.5, 2.5) end)
    h.same_bits(one, two)
    local want = {}
    for b = 1, 37 do want[b] = 0 end
    for _, x in ipairs(xs) do
      if x >= -0.5 and x <= 2.5 then
        local b = math.floor((x + 0.5) * 37 / 3)
        if b >= 37 then b = 36 end
        want[b + 1] = want[b + 1] + 1
      end
    end
    assert.same(want, list(one))
  end)

  it("reads any layout", function()
    local base = dlx.tensor({ 1, 2, 3, 4, 5, 6 }, { dtype = "float64" }):view { 2, 3 }
    h.same_bits(base:contiguous():histc(3, 1, 6), base:transpose(1, 2):histc(3, 1, 6))
    assert.same({ 1, 1, 0 }, list(base:narrow(2, 1, 1):histc(3, 1, 6))) -- 1 and 4
  end)

  it("refuses what PyTorch refuses", function()
    h.raises("TypeError", function() dlx.tensor({ 1, 2 }, { dtype = "int64" }):histc(3) end)
    h.raises("TypeError", function() dlx.tensor({ 1, 2 }, { dtype = "complex64" }):histc(3) end)
    local x = dlx.tensor { 1.0, 2.0 }
    h.raises("ValueError", function() x:histc(0) end)
    h.raises("ValueError", function() x:histc(3, 2, 1) end)
    h.raises("ValueError", function() x:histc(3, 0, INF) end)
    h.raises("ValueError", function() x:histc(3, 1, 1 + 1e-12) end) -- empty in float32
    h.raises("ValueError", function() dlx.tensor({ 1, NAN }):histc(3) end)
    h.raises("TypeError", function() x:histc(3, "a") end)
    h.raises("TypeError", function() dlx.histc({ 1, 2 }) end)
  end)
end)

describe("histogram", function()
  it("gives NumPy's documented results", function()
    local hist, edges = dlx.histogram(dlx.tensor { 1, 2, 1 }, dlx.tensor { 0, 1, 2, 3 })
    assert.same({ 0, 2, 1 }, list(hist))
    assert.equal("int64", hist.dtype)
    assert.same({ 0, 1, 2, 3 }, list(edges))
    hist = dlx.histogram(dlx.tensor { 0, 1, 2, 3 }, dlx.tensor { 0, 1, 2, 3, 4 },
      { density = true })
    assert.same({ 0.25, 0.25, 0.25, 0.25 }, list(hist))
    hist = dlx.histogram(dlx.tensor { { 1, 2, 1 }, { 1, 0, 1 } }, dlx.tensor { 0, 1, 2, 3 })
    assert.same({ 1, 4, 1 }, list(hist))
    hist, edges = dlx.histogram(dlx.tensor { 1, 2, 3, 4, 5 })
    assert.same({ 1, 0, 1, 0, 0, 1, 0, 1, 0, 1 }, list(hist))
    -- NumPy's linspace: i * step + first
    assert.same({ 1, 1.4, 1.8, 2.2, 2.6, 3, 6 * 0.4 + 1, 7 * 0.4 + 1, 4.2, 4.6, 5 }, list(edges))
  end)

  it("takes a range, closes the last bin and leaves out the rest", function()
    local hist, edges = dlx.histogram(dlx.tensor { -1, 0, 0.5, 1, 2, NAN }, 2, { range = { 0, 1 } })
    assert.same({ 1, 2 }, list(hist))
    assert.same({ 0, 0.5, 1 }, list(edges))
    hist, edges = dlx.histogram(dlx.tensor { 3, 3 }, 2) -- an empty range grows by 0.5
    assert.same({ 0, 2 }, list(hist))
    assert.same({ 2.5, 3, 3.5 }, list(edges))
    hist, edges = dlx.histogram(dlx.zeros { 0 }, 2)
    assert.same({ 0, 0 }, list(hist))
    assert.same({ 0, 0.5, 1 }, list(edges))
  end)

  it("sums weights in their dtype and gives densities in float64", function()
    local x = dlx.tensor { 1, 2, 2, 5 }
    local hist = dlx.histogram(x, 2, { weights = dlx.tensor { 0.5, 1, 2, 4 } })
    assert.same({ 3.5, 4 }, list(hist))
    hist = dlx.histogram(x, 2, { weights = dlx.tensor({ 1, 2, 3, 4 }, { dtype = "int32" }) })
    assert.equal("int32", hist.dtype)
    assert.same({ 6, 4 }, list(hist))
    hist = dlx.histogram(x, 2, { weights = dlx.tensor { 1, 1, 1, 1 }, density = true })
    assert.equal("float64", hist.dtype)
    assert.same({ 0.75 / 2, 0.25 / 2 }, list(hist))
  end)

  it("makes float32 edges for float32 data, float64 for integers", function()
    local _, edges = dlx.histogram(dlx.tensor({ 0, 1 }, { dtype = "float32" }), 3)
    assert.equal("float32", edges.dtype)
    _, edges = dlx.histogram(dlx.tensor({ 0, 3 }, { dtype = "int16" }), 3)
    assert.equal("float64", edges.dtype)
    assert.same({ 0, 1, 2, 3 }, list(edges))
  end)

  it("counts large tensors the same on one and two threads", function()
    math.randomseed(9)
    local xs = {}
    for i = 1, 200000 do xs[i] = math.random() end
    local t = dlx.tensor(xs, { dtype = "float32" })
    local e = dlx.tensor { 0, 0.1, 0.15, 0.5, 0.9, 1 }
    for _, bins in ipairs { 17, e } do
      local one = on_threads(1, function() return dlx.histogram(t, bins) end)
      local two = on_threads(2, function() return dlx.histogram(t, bins) end)
      h.same_bits(one, two)
      assert.equal(200000, one:sum():item())
    end
  end)

  it("refuses what NumPy refuses", function()
    local x = dlx.tensor { 1, 2 }
    h.raises("ValueError", function() dlx.histogram(x, dlx.tensor { 0, 2, 1 }) end)
    h.raises("ValueError", function() dlx.histogram(x, dlx.tensor { 0 }) end)
    h.raises("ValueError", function() dlx.histogram(x, 0) end)
    h.raises("ValueError", function() dlx.histogram(x, 2, { range = { 1, 0 } }) end)
    h.raises("ValueError", function() dlx.histogram(x, 2, { range = { 0, INF } }) end)
    h.raises("ValueError", function() dlx.histogram(dlx.tensor { 1, INF }, 2) end)
    h.raises("ValueError", function() dlx.histogram(x, 2, { weights = dlx.tensor { 1 } }) end)
    h.raises("TypeError", function() dlx.histogram(dlx.tensor { true, false }, 2) end)
    h.raises("TypeError", function() dlx.histogram(x, 2, { range = 1 }) end)
    h.raises("TypeError", function() dlx.histogram(x, 2, { bins = 1 }) end)
  end)
end)

describe("bincount", function()
  it("gives NumPy's documented results", function()
    local r = dlx.bincount(dlx.tensor({ 0, 1, 2, 3, 4 }, { dtype = "int64" }))
    assert.same({ 1, 1, 1, 1, 1 }, list(r))
    assert.equal("int64", r.dtype)
    r = dlx.tensor({ 0, 1, 1, 3, 2, 1, 7 }, { dtype = "int32" }):bincount()
    assert.same({ 1, 3, 1, 1, 0, 0, 0, 1 }, list(r))
    r = dlx.tensor({ 0, 1, 1, 2, 2, 2 }, { dtype = "int64" })
      :bincount { weights = dlx.tensor { 0.25, 0.5, 0.25, 0.75, 1, -0.5 } }
    assert.same({ 0.25, 0.75, 1.25 }, list(r))
    assert.equal("float64", r.dtype)
    r = dlx.tensor({ true, false, true }):bincount { minlength = 4 }
    assert.same({ 1, 2, 0, 0 }, list(r))
    assert.same({ 0, 0, 0 }, list(dlx.tensor({}, { dtype = "int64" }):bincount { minlength = 3 }))
    assert.same({ 0 }, dlx.tensor({}, { dtype = "uint8" }):bincount().shape)
  end)

  it("counts large tensors the same on one and two threads, against a reference", function()
    math.randomseed(5)
    local xs, want = {}, {}
    for i = 1, 300000 do
      xs[i] = math.random(0, 99)
      want[xs[i] + 1] = (want[xs[i] + 1] or 0) + 1
    end
    local t = dlx.tensor(xs, { dtype = "int64" })
    local one = on_threads(1, function() return t:bincount() end)
    local two = on_threads(2, function() return t:bincount() end)
    h.same_bits(one, two)
    assert.same(want, list(one))
    local stepped = on_threads(2, function() return t:narrow(1, 1, 299998):view { 149999, 2 }
      :select(2, 1):bincount { minlength = 200 } end)
    assert.same(200, stepped.shape[1])
  end)

  it("refuses what NumPy refuses", function()
    h.raises("ValueError", function() dlx.tensor({ 1, -1 }, { dtype = "int64" }):bincount() end)
    h.raises("TypeError", function() dlx.tensor({ 1.5, 2 }):bincount() end)
    h.raises("ValueError", function() dlx.zeros({ 2, 2 }, { dtype = "int64" }):bincount() end)
    h.raises("ValueError", function()
      dlx.tensor({ 1 }, { dtype = "int64" }):bincount { minlength = -1 }
    end)
    h.raises("ValueError", function()
      dlx.tensor({ 1 }, { dtype = "int64" }):bincount { weights = dlx.tensor { 1, 2 } }
    end)
    h.raises("TypeError", function()
      dlx.tensor({ 1 }, { dtype = "int64" }):bincount { weight = dlx.tensor { 1 } }
    end)
  end)
end)

describe("searchsorted and bucketize", function()
  it("give NumPy's and PyTorch's documented positions, 1-based", function()
    local s = dlx.tensor { 1, 2, 3, 4, 5 }
    assert.equal(3, dlx.searchsorted(s, 3):item())
    assert.equal(4, dlx.searchsorted(s, 3, { side = "right" }):item())
    assert.same({ 1, 6, 2, 3 }, list(dlx.searchsorted(s, dlx.tensor { -10, 10, 2, 3 })))
    local rows = dlx.tensor { { 1, 3, 5, 7, 9 }, { 2, 4, 6, 8, 10 } }
    local v = dlx.tensor { { 3, 6, 9 }, { 3, 6, 9 } }
    assert.same({ { 2, 4, 5 }, { 2, 3, 5 } }, list(dlx.searchsorted(rows, v)))
    assert.same({ { 3, 4, 6 }, { 2, 4, 5 } }, list(dlx.searchsorted(rows, v, { right = true })))
    local b = dlx.tensor { 1, 3, 5, 7, 9 }
    assert.same({ { 2, 4, 5 }, { 2, 4, 5 } }, list(dlx.bucketize(v, b)))
    assert.same({ { 3, 4, 6 }, { 3, 4, 6 } }, list(dlx.bucketize(v, b, { right = true })))
    assert.equal("int64", dlx.bucketize(v, b).dtype)
  end)

  it("sorts NaN last and -0.0 as 0.0, as NumPy", function()
    local s = dlx.tensor { -1, -0.0, 0.0, 1, NAN, NAN }
    local v = dlx.tensor { 0.0, -0.0, NAN, INF, -INF }
    assert.same({ 2, 2, 5, 5, 1 }, list(dlx.searchsorted(s, v)))
    assert.same({ 4, 4, 7, 5, 1 }, list(dlx.searchsorted(s, v, { side = "right" })))
  end)

  it("promotes the two dtypes and searches every dtype", function()
    local s = dlx.tensor({ 1, 2, 3 }, { dtype = "int32" })
    assert.same({ 2, 3 }, list(dlx.searchsorted(s, dlx.tensor { 1.5, 2.5 })))
    assert.equal(2, dlx.searchsorted(s, 1.5):item())
    assert.equal(3, dlx.searchsorted(s, 2, { right = true }):item())
    for _, dtype in ipairs { "bool", "int8", "uint8", "int16", "uint16", "int32", "uint32",
      "int64", "uint64", "float16", "bfloat16", "float32", "float64" } do
      local sorted = dtype == "bool" and dlx.tensor({ false, true, true }) or
        dlx.tensor({ 0, 1, 1, 5 }, { dtype = dtype })
      local vals = dtype == "bool" and dlx.tensor({ true, false }) or
        dlx.tensor({ 1, 0, 6, 3 }, { dtype = dtype })
      local want = dtype == "bool" and { 2, 1 } or { 2, 1, 5, 4 }
      assert.same(want, list(dlx.searchsorted(sorted, vals)), dtype)
    end
  end)

  it("searches large tensors the same on one and two threads, against a reference", function()
    math.randomseed(3)
    local sorted, vals = {}, {}
    for i = 1, 3000 do sorted[i] = math.random(0, 500) end
    table.sort(sorted)
    for i = 1, 100000 do vals[i] = math.random(-10, 510) + 0.5 * math.random(0, 1) end
    local s, v = dlx.tensor(sorted), dlx.tensor(vals)
    local one = on_threads(1, function() return dlx.searchsorted(s, v, { right = true }) end)
    local two = on_threads(2, function() return dlx.searchsorted(s, v, { right = true }) end)
    h.same_bits(one, two)
    local got = list(one)
    for i = 1, #vals, 97 do
      local below = 0
      for _, x in ipairs(sorted) do if x <= vals[i] then below = below + 1 end end
      assert.equal(below + 1, got[i])
    end
  end)

  it("searches long sorted rows through their sample of blocks, every dtype", function()
    -- rows of thousands of elements (blocks of a cache line, sampled) with runs of ties, values
    -- below, between, on and above them, and two rows of their own
    math.randomseed(13)
    for _, dtype in ipairs { "int8", "uint8", "int16", "float16", "bfloat16", "int32", "float32",
      "uint64", "int64", "float64" } do
      local sorted, vals = {}, {}
      local lo = dtype:match("^u") and 0 or -100
      for i = 1, 5000 do sorted[i] = math.random(lo, 100) end
      table.sort(sorted)
      for i = 1, 4000 do vals[i] = math.random(lo == 0 and 0 or lo - 3, 103) end
      local s, v = dlx.tensor(sorted, { dtype = dtype }), dlx.tensor(vals, { dtype = dtype })
      for _, right in ipairs { false, true } do
        local got = list(dlx.searchsorted(s, v, { right = right }))
        local two = list(dlx.searchsorted(dlx.stack { s, s }, dlx.stack { v, v },
          { right = right }))
        for i = 1, #vals, 37 do
          local below = 0
          for _, x in ipairs(sorted) do
            if x < vals[i] or (right and x == vals[i]) then below = below + 1 end
          end
          assert.equal(below + 1, got[i], dtype)
          assert.equal(below + 1, two[2][i], dtype)
        end
      end
    end
  end)

  it("keeps the values' shape, layouts and zero sizes", function()
    local s = dlx.tensor { 1, 2, 3 }
    local v = dlx.tensor({ 0, 1, 2, 3, 4, 5 }):view { 2, 3 }:transpose(1, 2)
    assert.same({ { 1, 3 }, { 1, 4 }, { 2, 4 } }, list(dlx.searchsorted(s, v)))
    assert.same({ 0 }, dlx.searchsorted(s, dlx.zeros { 0 }).shape)
    assert.same({ 1, 1 }, list(dlx.searchsorted(dlx.zeros { 0 }, dlx.tensor { 1, 2 })))
    assert.same({}, dlx.searchsorted(s, dlx.tensor(2.0)).shape)
  end)

  it("refuses what PyTorch refuses", function()
    local s = dlx.tensor { 1, 2, 3 }
    h.raises("ValueError", function() dlx.searchsorted(s, 1, { right = false, side = "right" }) end)
    h.raises("ValueError", function() dlx.searchsorted(s, 1, { side = "middle" }) end)
    h.raises("TypeError", function() dlx.searchsorted(s, 1, { sides = "left" }) end)
    h.raises("TypeError", function() dlx.bucketize(1, s, { side = "left" }) end)
    h.raises("ValueError", function() dlx.bucketize(dlx.tensor { 1 }, dlx.zeros { 2, 2 }) end)
    h.raises("ValueError", function() dlx.searchsorted(dlx.zeros { 2, 3 }, dlx.zeros { 3, 1 }) end)
    h.raises("ValueError", function() dlx.searchsorted(dlx.tensor(1), 1) end)
    h.raises("TypeError", function() dlx.searchsorted(5, s) end)
    h.raises("TypeError", function()
      dlx.searchsorted(dlx.tensor({ 1 }, { dtype = "complex64" }), 1)
    end)
  end)
end)

describe("counting and searching on the CPU through the device cases", function()
  require "spec.count_device" ("cpu", it)
end)
