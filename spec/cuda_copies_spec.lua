-- #gpu: copies on CUDA devices, each checked against the same copy on the CPU: host <-> device
-- (pageable through the pinned staging buffers, pinned and managed directly), device <-> device
-- (same and peer), strided and permuted copies (the tiled transpose kernel for every element
-- size, odd shapes, unaligned views, negative strides), casts between every computable pair, fill.
local h = require "spec.helper"
local dlx = h.dlx

describe("#gpu CUDA copies", function()
  if not h.has_device("cuda:0", pending) then return end
  dlx.set_default_device("cpu") -- tensors made without a device are the CPU references

  -- values every dtype can hold, then the awkward ones for casts
  local PLAIN = { 0, 1, 2, 3, 5, 7, 11, 13, 17, 19, 23, 29 }
  local AWKWARD = { -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 255.5, 300, -129, 65504, 70000, 1e10, -1e10,
    0 / 0, 1 / 0, -1 / 0, 2 ^ 31, 2 ^ 63, -2 ^ 63, 3.4e38 }

  it("moves every dtype host -> device -> host unchanged", function()
    for _, dtype in ipairs(h.NUMERIC) do
      local x = dlx.tensor(PLAIN, { dtype = dtype })
      local back = x:to("cuda"):to("cpu")
      h.same(x:totable(), back:totable())
    end
  end)

  it("moves large pageable tensors through the staging buffers, both ways", function()
    local n = 5 * 1000 * 1000 + 7 -- 40 MB of float64: several 8 MiB chunks and a tail
    local x = dlx.arange(n, { dtype = "float64" })
    local g = x:to("cuda")
    assert.are.equal((n - 1) * n / 2, g:sum():item())
    local back = g:to("cpu")
    for _, i in ipairs { 1, 2, 1048577, 2097153, n - 1, n } do
      assert.are.equal(i - 1, back:select(1, i):item())
    end
  end)

  it("moves pinned and managed memory directly", function()
    for _, spec in ipairs { "cuda_host", "cuda_managed" } do
      local x = dlx.arange(3000000, { device = spec, dtype = "int64" })
      local g = x:to("cuda")
      local back = g:to(spec)
      assert.are.equal(tostring(back.device), spec)
      assert.are.equal(x:sum():item(), back:sum():item())
      assert.are.equal(2999999, back:select(1, 3000000):item())
    end
  end)

  it("copies device to device on one GPU", function()
    local x = dlx.arange(100000, { device = "cuda", dtype = "float32" })
    assert.are.equal(x:sum():item(), x:clone():sum():item())
  end)

  if dlx.cuda.device_count() < 2 then
    pending("one GPU only: the peer copy between two GPUs did not run")
  else
    it("copies device to device between two GPUs", function()
      local x = dlx.arange(100000, { device = "cuda:0", dtype = "float32" })
      local y = x:to("cuda:1")
      assert.are.equal("cuda:1", tostring(y.device))
      assert.are.equal(x:sum():item(), y:sum():item())
      assert.are.equal(x:sum():item(), y:to("cuda:0"):sum():item())
    end)
  end

  -- t (a CPU tensor) and its GPU copy, put through the same view, then made contiguous
  local function check_view(t, make_view)
    local want = make_view(t):contiguous():totable()
    local got = make_view(t:to("cuda")):contiguous():to("cpu"):totable()
    h.same(want, got)
  end

  it("transposes with the tiled kernel for 1, 2, 4, 8 and 16-byte elements", function()
    for _, dtype in ipairs { "uint8", "int16", "float32", "float64", "complex128" } do
      for _, shape in ipairs { { 67, 45 }, { 128, 256 }, { 16, 16 }, { 3, 33, 70 } } do
        local n = 1
        for _, s in ipairs(shape) do n = n * s end
        local x = dlx.arange(n, { dtype = "int64" }):view(shape):astype(dtype)
        check_view(x, function(t) return t:transpose(-1, -2) end)
        if #shape == 3 then
          check_view(x, function(t) return t:permute { 3, 1, 2 } end)
          check_view(x, function(t) return t:permute { 2, 3, 1 } end)
        end
      end
    end
  end)

  it("copies unaligned, negative-stride and broadcast views", function()
    local x = dlx.arange(130 * 70, { dtype = "float32" }):view { 130, 70 }
    check_view(x, function(t) return t:narrow(2, 2, 61):transpose(1, 2) end) -- odd offset
    check_view(x, function(t) return t:slice(1, 1, 130, 3):transpose(1, 2) end)
    check_view(x, function(t) return t:flip(1):transpose(1, 2) end)
    check_view(x, function(t) return t:flip(2) end)
    check_view(x, function(t) return t:select(2, 5):unsqueeze(2):expand { 130, 40 } end)
  end)

  it("casts between every pair of computable dtypes as the CPU does", function()
    for _, from in ipairs(h.NUMERIC) do
      local src = dlx.tensor(AWKWARD, { dtype = "float64" }):astype(from)
      local gsrc = src:to("cuda")
      for _, to in ipairs(h.NUMERIC) do
        local want = src:astype(to):totable()
        local got = gsrc:astype(to):to("cpu"):totable()
        local ok, err = pcall(h.same, want, got)
        assert(ok, from .. " -> " .. to .. ": " .. tostring(err))
      end
    end
  end)

  it("casts strided views", function()
    local x = dlx.arange(40 * 30, { dtype = "int32" }):view { 40, 30 }
    check_view(x, function(t) return t:transpose(1, 2):astype("float16") end)
    check_view(x, function(t) return t:flip(2):astype("complex64") end)
  end)

  it("fills every dtype, contiguous and strided, with zero and other values", function()
    for _, dtype in ipairs(h.NUMERIC) do
      for _, value in ipairs { 0, 1, 3 } do
        local want = dlx.zeros({ 6, 5 }, { dtype = dtype })
        want:slice(1, 1, 6, 2):fill_(value)
        local got = dlx.zeros({ 6, 5 }, { dtype = dtype, device = "cuda" })
        got:slice(1, 1, 6, 2):fill_(value)
        h.same(want:totable(), got:to("cpu"):totable())
        got:fill_(value)
        want:fill_(value)
        h.same(want:totable(), got:to("cpu"):totable())
      end
    end
  end)

  it("copies packed fp4 views bit for bit (through the host)", function()
    local tp = h.testprod()
    local fp4 = { dlx.DLDataTypeCode.kDLFloat4_e2m1fn, 4, 1 }
    local cap = tp.make { shape = { 32 }, dtype = fp4, fill = "u8" } -- bytes 0, 1, ..., 15
    local x = dlx.from_dlpack(cap):to("cuda")
    -- elements 2..29 (1-based) start inside a byte: the copy shifts every nibble
    local y = x:slice(1, 2, 29):contiguous():to("cpu")
    local d = tp.export(y, { keep = true })
    for k = 0, 13 do
      local want = (k >> 4) | (((k + 1) << 4) & 0xff)
      assert.are.equal(want, tp.read_export(d.handle, k, "u8"))
    end
    tp.release(d.handle)
  end)
end)
