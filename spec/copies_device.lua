--- Copies on a device, each checked against the same copy on the CPU: moves host -> device ->
--- host of every dtype, bit for bit; creation and fills; copies on one device and between two;
--- transposed, permuted, sliced, flipped, broadcast and unaligned views; 2-D and 3-D blocks
--- between views; casts between every pair of computable dtypes; packed fp4 and fp6 views; the
--- refusal of broadcast destinations. Used by cuda_copies_spec.lua and oneapi_copies_spec.lua:
--- require "spec.copies_device" (device, it, pending) inside a describe defines the tests (busted
--- gives `it` and `pending` to spec files, not to the modules they require). CPU tensors are
--- made with device = "cpu": where a oneapi device is present it is the default device.
local h = require "spec.helper"
local dlx = h.dlx
local assert = require "luassert" -- specs get it as their assert; this module does not

-- values every dtype can hold, then the awkward ones for casts
local PLAIN = { 0, 1, 2, 3, 5, 7, 11, 13, 17, 19, 23, 29 }
local AWKWARD = { -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 255.5, 300, -129, 65504, 70000, 1e10, -1e10,
  0 / 0, 1 / 0, -1 / 0, 2 ^ 31, 2 ^ 63, -2 ^ 63, 3.4e38 }

--- Deterministic values that every computable dtype can hold, NaN and inf among the floats.
local function values(dtype, n, seed)
  math.randomseed(seed or 1)
  local out = {}
  for i = 1, n do
    local v
    if dtype == "bool" then
      v = math.random(0, 1) == 1
    elseif dtype:match("^uint") then
      v = math.random(0, 250)
    elseif dtype:match("^int") then
      v = math.random(-120, 120)
    else
      v = (math.random() - 0.5) * 300
      if i % 17 == 0 then v = 0 / 0 elseif i % 23 == 0 then v = -math.huge end
      if dtype:match("^complex") then v = { re = v, im = (math.random() - 0.5) * 10 } end
    end
    out[i] = v
  end
  return out
end

--- A CPU tensor of shape and dtype holding values(dtype, n, seed).
local function random_tensor(shape, dtype, seed)
  local n = 1
  for _, s in ipairs(shape) do n = n * s end
  return dlx.tensor(values(dtype, n, seed), { dtype = dtype, device = "cpu" }):view(shape)
end

--- Asserts that two CPU tensors hold the same bytes (storage-only dtypes included).
local function same_bytes(a, b)
  local tp = h.testprod()
  assert.equal(a.nbytes, b.nbytes)
  local ea = assert(tp.export(a, { keep = true }))
  local eb = assert(tp.export(b, { keep = true }))
  for i = 0, math.ceil(a.nbytes) - 1 do
    local x, y = tp.read_export(ea.handle, i, "u8"), tp.read_export(eb.handle, i, "u8")
    if x ~= y then error(("byte %d differs: %d vs %d"):format(i, x, y), 2) end
  end
  tp.release(ea.handle)
  tp.release(eb.handle)
end

--- Registers the copies of `device` ("cuda:0", "oneapi:0") against the CPU with `it` (a call of
--- the module); random_tensor is there for the device specs' own cases.
local function register(device, it, pending)
  local name = tostring(dlx.device(device))
  local second = name:gsub("%d+$", "1") -- the next device of the same kind, when there is one

  -- t (a CPU tensor) and its copy on the device, put through the same view, made contiguous
  local function check_view(t, make_view)
    local want = make_view(t):contiguous():totable()
    local got = make_view(t:to(device)):contiguous():to("cpu"):totable()
    h.same(want, got)
  end

  it("round-trips every dtype through the device bit for bit", function()
    for _, dtype in ipairs(h.NUMERIC) do
      local x = dlx.tensor(PLAIN, { dtype = dtype, device = "cpu" })
      h.same(x:totable(), x:to(device):to("cpu"):totable())
    end
    for _, dtype in ipairs(h.dtype_names()) do
      local d = h.DTYPES[dtype]
      local cpu = d[5] and random_tensor({ 5, 7 }, dtype, 3)
        or dlx.from_dlpack((h.testprod().make{ shape = { 5, 8 }, dtype = { d[1], d[2], d[3] } }))
      local there = cpu:to(device)
      assert.equal(name, tostring(there.device))
      same_bytes(cpu, there:to("cpu"))
    end
  end)

  it("creates, fills and reads tensors of every computable dtype", function()
    for _, dtype in ipairs(h.NUMERIC) do
      local value = dtype == "bool" and true or dtype:match("^complex") and { re = 1.5, im = -2 }
        or 3
      local t = dlx.full({ 3, 5 }, value, { dtype = dtype, device = device })
      local want = dlx.full({ 3, 5 }, value, { dtype = dtype, device = "cpu" })
      h.same(want:totable(), t:totable())
      h.same(dlx.zeros(4, { dtype = dtype, device = "cpu" }):totable(),
        dlx.zeros(4, { dtype = dtype, device = device }):totable())
    end
    h.same({ 0, 1, 2, 3, 4 }, dlx.arange(5, { device = device }):totable())
  end)

  it("fills every dtype, contiguous and strided, with zero and other values", function()
    for _, dtype in ipairs(h.NUMERIC) do
      for _, value in ipairs { 0, 1, 3 } do
        local want = dlx.zeros({ 6, 5 }, { dtype = dtype, device = "cpu" })
        want:slice(1, 1, 6, 2):fill_(value)
        local got = dlx.zeros({ 6, 5 }, { dtype = dtype, device = device })
        got:slice(1, 1, 6, 2):fill_(value)
        h.same(want:totable(), got:to("cpu"):totable())
        got:fill_(value)
        want:fill_(value)
        h.same(want:totable(), got:to("cpu"):totable())
      end
    end
  end)

  it("fills strided, flipped and 0-d views in place", function()
    local cpu = random_tensor({ 4, 6 }, "float32", 5)
    local dev = cpu:to(device)
    cpu:slice(2, 1, -1, 2):fill_(7)
    dev:slice(2, 1, -1, 2):fill_(7)
    cpu:select(1, 3):flip(1):fill_(-1)
    dev:select(1, 3):flip(1):fill_(-1)
    cpu:select(1, 1):select(1, 2):fill_(42)
    dev:select(1, 1):select(1, 2):fill_(42)
    h.same(cpu:totable(), dev:totable())
  end)

  it("copies device to device on one device", function()
    local x = dlx.arange(100000, { device = device, dtype = "float32" })
    assert.are.equal(x:sum():item(), x:clone():sum():item())
  end)

  if not pcall(dlx.device, second) then
    pending(("one %s device only: the copies between two devices did not run"):format(
      dlx.device(device).type))
  else
    it("copies device to device between two devices", function()
      local x = dlx.arange(100000, { device = name, dtype = "float32" })
      local y = x:to(second)
      assert.are.equal(second, tostring(y.device))
      assert.are.equal(x:sum():item(), y:sum():item())
      assert.are.equal(x:sum():item(), y:to(name):sum():item())
      -- a transposed view across, then into a tensor of another dtype on the first device
      local cpu = random_tensor({ 5, 6 }, "int16", 17)
      local b = cpu:to(name):transpose(1, 2):to(second)
      assert.equal(second, tostring(b.device))
      h.same(cpu:transpose(1, 2):totable(), b:totable())
      local c = dlx.zeros({ 6, 5 }, { dtype = "float32", device = name })
      c:copy_(b)
      h.same(cpu:transpose(1, 2):astype("float32"):totable(), c:totable())
    end)
  end

  it("transposes 1, 2, 4, 8 and 16-byte elements (CUDA: the tiled kernel)", function()
    for _, dtype in ipairs { "uint8", "int16", "float32", "float64", "complex128" } do
      for _, shape in ipairs { { 67, 45 }, { 128, 256 }, { 16, 16 }, { 3, 33, 70 } } do
        local n = 1
        for _, s in ipairs(shape) do n = n * s end
        local x = dlx.arange(n, { dtype = "int64", device = "cpu" }):view(shape):astype(dtype)
        check_view(x, function(t) return t:transpose(-1, -2) end)
        if #shape == 3 then
          check_view(x, function(t) return t:permute { 3, 1, 2 } end)
          check_view(x, function(t) return t:permute { 2, 3, 1 } end)
        end
      end
    end
  end)

  it("copies unaligned, negative-stride and broadcast views", function()
    local x = dlx.arange(130 * 70, { dtype = "float32", device = "cpu" }):view { 130, 70 }
    check_view(x, function(t) return t:narrow(2, 2, 61):transpose(1, 2) end) -- odd offset
    check_view(x, function(t) return t:slice(1, 1, 130, 3):transpose(1, 2) end)
    check_view(x, function(t) return t:flip(1):transpose(1, 2) end)
    check_view(x, function(t) return t:flip(2) end)
    check_view(x, function(t) return t:select(2, 5):unsqueeze(2):expand { 130, 40 } end)
  end)

  it("copies permuted, sliced, flipped and broadcast layouts like the CPU", function()
    local cpu = random_tensor({ 3, 4, 5 }, "int32", 7)
    local dev = cpu:to(device)
    local views = {
      function(t) return t:permute{ 3, 1, 2 } end,
      function(t) return t:transpose(1, 3) end,
      function(t) return t:slice(3, 2, 5, 2) end,
      function(t) return t:flip(2) end,
      function(t) return t:flip() end,
      function(t) return t:select(2, 2):unsqueeze(1):expand{ 4, 3, 5 } end,
      function(t) return t:narrow(1, 2, 2):slice(2, 4, 1, -1) end,
    }
    for i, view in ipairs(views) do
      local want = view(cpu):contiguous():totable()
      local got = view(dev):contiguous()
      assert.equal(name, tostring(got.device), "view " .. i)
      h.same(want, got:totable())
    end
  end)

  it("copies 2-D and 3-D blocks between views (oneapi: region copies)", function()
    local cpu = random_tensor({ 6, 8, 10 }, "float64", 9)
    local dev = cpu:to(device)
    -- another shape, so that the two sides' pitches differ
    local cpu_dst = dlx.zeros({ 7, 9, 12 }, { dtype = "float64", device = "cpu" })
    local dev_dst = dlx.zeros({ 7, 9, 12 }, { dtype = "float64", device = device })
    -- 2-D: rows of a slice into rows of another slice
    cpu_dst:select(1, 2):narrow(1, 2, 5):narrow(2, 3, 6):copy_(
      cpu:select(1, 4):narrow(1, 1, 5):narrow(2, 1, 6))
    dev_dst:select(1, 2):narrow(1, 2, 5):narrow(2, 3, 6):copy_(
      dev:select(1, 4):narrow(1, 1, 5):narrow(2, 1, 6))
    -- 3-D: a sub-block
    cpu_dst:narrow(1, 4, 3):narrow(2, 2, 4):narrow(3, 5, 4):copy_(
      cpu:narrow(1, 1, 3):narrow(2, 5, 4):narrow(3, 1, 4))
    dev_dst:narrow(1, 4, 3):narrow(2, 2, 4):narrow(3, 5, 4):copy_(
      dev:narrow(1, 1, 3):narrow(2, 5, 4):narrow(3, 1, 4))
    h.same(cpu_dst:totable(), dev_dst:totable())
  end)

  it("casts between every pair of computable dtypes like the CPU", function()
    for _, from in ipairs(h.NUMERIC) do
      -- the awkward values (halves, out of range, NaN, inf), and random ones in a transposed view
      local sources = { dlx.tensor(AWKWARD, { dtype = "float64", device = "cpu" }):astype(from),
        random_tensor({ 3, 7 }, from, 11):transpose(1, 2) }
      for _, cpu in ipairs(sources) do
        local dev = cpu:to(device)
        for _, to in ipairs(h.NUMERIC) do
          local got = dev:astype(to)
          assert.equal(to, got.dtype)
          local ok, err = pcall(h.same, cpu:astype(to):totable(), got:to("cpu"):totable())
          assert(ok, from .. " -> " .. to .. ": " .. tostring(err))
        end
      end
    end
  end)

  it("casts strided views", function()
    local x = dlx.arange(40 * 30, { dtype = "int32", device = "cpu" }):view { 40, 30 }
    check_view(x, function(t) return t:transpose(1, 2):astype("float16") end)
    check_view(x, function(t) return t:flip(2):astype("complex64") end)
  end)

  it("copies packed fp4 views that start inside a byte, bit for bit", function()
    local tp = h.testprod()
    local fp4 = { dlx.DLDataTypeCode.kDLFloat4_e2m1fn, 4, 1 }
    local cap = tp.make { shape = { 32 }, dtype = fp4, fill = "u8" } -- bytes 0, 1, ..., 15
    local x = dlx.from_dlpack(cap):to(device)
    -- elements 2..29 (1-based) start inside a byte: the copy shifts every nibble
    local y = x:slice(1, 2, 29):contiguous():to("cpu")
    local d = tp.export(y, { keep = true })
    for k = 0, 13 do
      local want = (k >> 4) | (((k + 1) << 4) & 0xff)
      assert.are.equal(want, tp.read_export(d.handle, k, "u8"))
    end
    tp.release(d.handle)
  end)

  it("copies packed fp4 and fp6 views element by element", function()
    for _, dl in ipairs{ { 17, 4, 1 }, { 16, 6, 1 } } do
      local cpu = dlx.from_dlpack((h.testprod().make{ shape = { 4, 20 }, dtype = dl }))
      local want = cpu:transpose(1, 2):contiguous()
      local got = cpu:to(device):transpose(1, 2):contiguous()
      assert.equal(name, tostring(got.device))
      same_bytes(want, got:to("cpu"))
    end
  end)

  it("refuses writes into broadcast destinations", function()
    local dev = dlx.zeros({ 3 }, { device = device })
    h.raises("ValueError", function() dev:view{ 1, 3 }:expand{ 2, 3 }:fill_(1) end)
  end)
end

return setmetatable({ random_tensor = random_tensor },
  { __call = function(_, device, it, pending) register(device, it, pending) end })
