-- #gpu: streams and events: the current stream of each device, running code with a stream
-- current, asynchronous work and the points that wait for it (item, totable, synchronize).
local h = require "spec.helper"
local dlx = h.dlx

describe("#gpu CUDA streams", function()
  if not h.has_device("cuda:0", pending) then return end
  dlx.set_default_device("cpu") -- tensors made without a device are the CPU references
  local BUSY = 200000000 -- GPU clock cycles: about a tenth of a second

  it("starts on the legacy default stream: handle 0, DLPack value 1", function()
    local s = dlx.current_stream("cuda:0")
    assert.are.equal(0, s.handle)
    assert.are.equal(1, s.dlpack)
    assert.are.equal("cuda:0", tostring(s.device))
    assert.are.equal("dlx.Stream(cuda:0, handle=0x0)", tostring(s))
  end)

  it("makes new streams whose handle is their DLPack value", function()
    local s <close> = dlx.stream("cuda")
    assert.is_true(math.type(s.handle) == "integer" and s.handle > 2)
    assert.are.equal(s.handle, s.dlpack)
    assert.truthy(tostring(s):find("dlx.Stream(cuda:0", 1, true))
  end)

  it("runs code with a stream current and restores the previous one", function()
    local s <close> = dlx.stream("cuda")
    local a, b = dlx.with_stream(s, function(x)
      assert.are.equal(s, dlx.current_stream("cuda"))
      return x, "done"
    end, 42)
    assert.are.same({ 42, "done" }, { a, b })
    assert.are.equal(0, dlx.current_stream("cuda").handle)
    assert.has_error(function()
      s:use(function() error("boom") end)
    end)
    assert.are.equal(0, dlx.current_stream("cuda").handle)
  end)

  it("queues work asynchronously; item and totable wait for it", function()
    local s <close> = dlx.stream("cuda")
    dlx.with_stream(s, function()
      local t = dlx.zeros({ 1000 }, { device = "cuda" })
      dlx.cuda.busy_wait(BUSY)
      t:fill_(3)
      assert.are.equal(3000, t:sum():item())
      assert.are.equal(3, t:totable()[1000])
    end)
  end)

  it("synchronizes a stream from the host", function()
    local s <close> = dlx.stream("cuda")
    local t = dlx.zeros({ 1000 }, { device = "cuda" })
    dlx.cuda.synchronize() -- s does not wait for the default stream by itself
    dlx.with_stream(s, function()
      dlx.cuda.busy_wait(BUSY)
      t:fill_(2)
    end)
    s:synchronize()
    assert.are.equal(2000, t:sum():item())
  end)

  it("wraps a stream handle made elsewhere without owning it", function()
    local made <close> = dlx.stream("cuda")
    local wrapped = dlx.stream("cuda", made.handle)
    assert.are.equal(made, wrapped)
    wrapped:close() -- does not destroy it
    made:synchronize()
  end)

  it("falls back to the default stream when the current one is closed", function()
    local s = dlx.stream("cuda")
    s:use(function() s:close() end)
    assert.are.equal(0, dlx.current_stream("cuda").handle)
    assert.are.equal(6, dlx.arange(4, { device = "cuda" }):sum():item())
  end)

  it("has a current stream per device", function()
    for id = 0, dlx.cuda.device_count() - 1 do
      local dev = "cuda:" .. id
      local s <close> = dlx.stream(dev)
      s:use(function()
        assert.are.equal(s, dlx.current_stream(dev))
        assert.are.equal(10, dlx.arange(5, { device = dev }):sum():item())
      end)
    end
  end)

  it("are streams to dlx.type, open and closed", function()
    local s = dlx.stream("cuda")
    assert.equal("stream", dlx.type(s))
    assert.equal("stream", dlx.type(dlx.current_stream("cuda")))
    s:close()
    assert.equal("stream", dlx.type(s))
  end)
end)
