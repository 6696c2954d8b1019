-- #gpu: CUDA devices, pinned and managed memory, the caching allocator, the device guard.
-- Without a CUDA device the file reports one pending "no CUDA device" line.
local h = require "spec.helper"
local dlx = h.dlx

describe("#gpu CUDA devices", function()
  if not h.has_device("cuda:0", pending) then return end
  dlx.set_default_device("cpu") -- tensors made without a device are the CPU references
  local MiB = 1024 * 1024

  it("lists every GPU as cuda:N, then cuda_host and cuda_managed", function()
    local names = {}
    for _, dev in ipairs(dlx.devices()) do names[#names + 1] = tostring(dev) end
    local list = table.concat(names, " ")
    for id = 0, dlx.cuda.device_count() - 1 do
      assert.truthy(list:find("cuda:" .. id, 1, true), list)
    end
    assert.truthy(list:find("cuda_host", 1, true), list)
    assert.truthy(list:find("cuda_managed", 1, true), list)
    assert.are.equal("cuda:0", tostring(dlx.device("cuda")))
  end)

  it("makes tensors on each kind of CUDA memory", function()
    for _, spec in ipairs { "cuda:0", "cuda_host", "cuda_managed" } do
      local t = dlx.arange(6, { device = spec, dtype = "int32" }):view { 2, 3 }
      assert.are.equal(spec, tostring(t.device))
      assert.are.same({ { 0, 1, 2 }, { 3, 4, 5 } }, t:totable())
      assert.are.equal(15, t:sum():item())
    end
  end)

  it("pools freed blocks and reuses them; empty_cache gives them back", function()
    dlx.cuda.empty_cache()
    h.without_collector(function()
      local before = dlx.cuda.memory_allocated()
      local t = dlx.empty({ MiB }, { device = "cuda", dtype = "float32" })
      assert.is_true(dlx.cuda.memory_allocated() >= before + 4 * MiB)
      t:close()
      assert.are.equal(before, dlx.cuda.memory_allocated())
    end)
    assert.is_true(dlx.cuda.memory_cached() >= 4 * MiB)
    local cached = dlx.cuda.memory_cached()
    local again = dlx.empty({ MiB }, { device = "cuda", dtype = "float32" })
    assert.is_true(dlx.cuda.memory_cached() < cached) -- taken from the pool
    again:close()
    dlx.cuda.empty_cache()
    assert.are.equal(0, dlx.cuda.memory_cached())
  end)

  it("keeps a block freed on one stream for that stream", function()
    dlx.cuda.empty_cache()
    local s <close> = dlx.stream("cuda")
    dlx.with_stream(s, function()
      dlx.empty({ MiB }, { device = "cuda" }):close()
    end)
    local cached = dlx.cuda.memory_cached()
    local t = dlx.empty({ MiB }, { device = "cuda" }) -- on the default stream
    assert.are.equal(cached, dlx.cuda.memory_cached())
    t:close()
    dlx.cuda.empty_cache()
  end)

  it("raises a MemoryError when the GPU has no room", function()
    h.raises("MemoryError", dlx.empty, { 1 << 50 }, { device = "cuda", dtype = "uint8" })
  end)

  it("works on the last GPU and leaves the current device as it was", function()
    local last = dlx.cuda.device_count() - 1
    local before = dlx.cuda.current_device()
    local t = dlx.arange(10, { device = "cuda:" .. last })
    assert.are.equal(45, t:sum():item())
    assert.are.equal(45, t:to("cpu"):sum():item())
    assert.are.equal(before, dlx.cuda.current_device())
  end)
end)
