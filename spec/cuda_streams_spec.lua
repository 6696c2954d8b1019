-- #gpu: CUDA streams: the cases of spec/streams_device.lua (new streams, running code with a
-- stream current, wrapping a handle, closing the current stream, a current stream per device),
-- and CUDA's own: the legacy default stream, asynchronous work and the points that wait for it
-- (item, totable, synchronize).
local h = require "spec.helper"
local dlx = h.dlx

describe("#gpu CUDA streams", function()
  if not h.has_device("cuda:0", pending) then return end
  dlx.set_default_device("cpu") -- tensors made without a device are the CPU references
  local BUSY = 200000000 -- GPU clock cycles: about a tenth of a second
  require "spec.streams_device" ("cuda:0", it)

  it("starts on the legacy default stream: handle 0, DLPack value 1", function()
    local s = dlx.current_stream("cuda:0")
    assert.are.equal(0, s.handle)
    assert.are.equal(1, s.dlpack)
    assert.are.equal("cuda:0", tostring(s.device))
    assert.are.equal("dlx.Stream(cuda:0, handle=0x0)", tostring(s))
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
end)
