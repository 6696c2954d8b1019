--- oneapi streams: Level Zero immediate command lists behind dlx.stream (the cases of
-- spec/streams_device.lua), what a oneapi device lacks (a cache, a busy-wait kernel), and the
-- DLPack `stream` values of a oneapi export.
local h = require "spec.helper"
local dlx = h.dlx

describe("oneapi streams #oneapi", function()
  if not h.has_device("oneapi:0", pending) then return end
  require "spec.streams_device" ("oneapi:0", it)

  it("has streams but no cache or busy-wait kernel to offer", function()
    assert.equal(0, dlx.cuda.memory_cached("oneapi:0"))
    local msg = h.raises("ValueError", dlx.cuda.busy_wait, 1000, "oneapi:0")
    assert.truthy(msg:find("oneapi:0 has no busy-wait kernel", 1, true), msg)
  end)

  it("takes nil, -1 or a stream handle as the DLPack stream of an export", function()
    local t = dlx.arange(4, { device = "oneapi:0" })
    local s <close> = dlx.stream("oneapi:0")
    for _, stream in ipairs{ -1, s.handle } do
      local back = dlx.from_dlpack(t:__dlpack{ max_version = { 1, 3 }, stream = stream })
      h.same({ 0, 1, 2, 3 }, back:totable())
    end
    h.raises("ValueError", function() t:__dlpack{ stream = 0 } end)
    h.raises("ValueError", function() t:__dlpack{ stream = -7 } end)
  end)

  it("takes the default stream, the current one or an open dlx stream, and nothing else",
    function()
      local t = dlx.arange(4, { device = "oneapi:0" })
      local export = function(stream)
        return t:__dlpack{ max_version = { 1, 3 }, stream = stream }
      end
      h.same({ 0, 1, 2, 3 },
        dlx.from_dlpack(export(dlx.current_stream("oneapi:0").handle)):totable())
      -- values that name no command list: CUDA's default streams, a made-up number, -2
      for _, bad in ipairs{ 1, 2, 12345, -2, math.mininteger } do
        local msg = h.raises("ValueError", export, bad)
        assert.truthy(msg:find("oneapi:0 export", 1, true), msg)
      end
      -- a closed stream's handle is no stream any more
      local s = dlx.stream("oneapi:0")
      local handle = s.handle
      export(handle)
      s:close()
      h.raises("ValueError", export, handle)
      -- the calling thread's current stream is taken, whatever made it
      local other <close> = dlx.stream("oneapi:0")
      other:use(function() export(dlx.current_stream("oneapi:0").handle) end)
    end)

  it("refuses a stream of another oneapi device, naming it", function()
    if not pcall(dlx.device, "oneapi:1") then return end -- the test driver has two
    local t = dlx.arange(4, { device = "oneapi:0" })
    local s <close> = dlx.stream("oneapi:1")
    local msg = h.raises("ValueError", t.__dlpack, t, { max_version = { 1, 3 }, stream = s.handle })
    assert.truthy(msg:find("is a stream of oneapi:1", 1, true), msg)
    local default1 = dlx.current_stream("oneapi:1").handle
    h.raises("ValueError", t.__dlpack, t, { max_version = { 1, 3 }, stream = default1 })
  end)
end)
