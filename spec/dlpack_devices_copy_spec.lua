-- Devices, the copy keyword and streams through DLPack: device types dlx cannot serve, a
-- producer that does not know a keyword, and (#gpu) CUDA stream values and pinned memory.
-- Each `it` names the bug of docs/peer-bugs.md (a bug another DLPack library shipped) that it
-- pins down.
local h = require "spec.helper"
local dlx = h.dlx

local V13 = { max_version = { 1, 3 } }

local rejects = h.import_rejects

describe("DLPack devices and the copy keyword (docs/peer-bugs.md)", function()
  -- with CUDA, the #gpu part below checks these device types
  local cpu_only = not dlx.cuda.is_available()
  local it_cpu_only = cpu_only and it or pending
  it_cpu_only("bug 37: pinned and managed capsules are not read as plain CPU memory without "
    .. "CUDA (jax#22346)", function()
      rejects { shape = { 2 }, device = { 3, 0 } }
      rejects { shape = { 2 }, device = { 13, 0 } }
      rejects { shape = { 2 }, device = { 3, 0 }, legacy = true }
    end)

  it("bug 38: a producer that does not know copy or dl_device is asked again, and dlx "
    .. "copies itself (cupy#9842, cupynumeric#1239)", function()
      for _, key in ipairs({ "copy", "dl_device" }) do
        local inner = dlx.zeros({ 3 }, { dtype = "float32" })
        local calls, n = {}, 0
        local p = {
          __dlpack_device = function() return 1, 0 end,
          __dlpack = function(_, kw)
            n = n + 1
            calls[n] = kw or false
            if kw ~= nil and kw[key] ~= nil then
              error("TypeError: __dlpack() got an unexpected keyword argument '" .. key .. "'")
            end
            return inner:__dlpack() -- legacy, never IS_COPIED
          end,
        }
        local opts = key == "copy" and { copy = true } or { device = "cpu", copy = true }
        local t = dlx.from_dlpack(p, opts)
        assert.equal(2, n)
        assert.is_true(calls[2] == false or calls[2][key] == nil)
        inner:fill_(1) -- copy = true: the result does not share the producer's memory
        h.exact({ 0.0, 0.0, 0.0 }, t:totable())
        assert.equal(false, t.readonly)
      end
    end)
end)

-- Streams and devices of bugs 31, 35 and 37 on a GPU. Without a CUDA device the describe
-- reports one pending line.
describe("#gpu DLPack stream values and pinned memory on CUDA (docs/peer-bugs.md)", function()
  if not h.has_device("cuda:0", pending) then return end
  dlx.set_default_device("cpu")
  local BUSY = 200000000

  it("bug 31: host-like CUDA memory takes only stream = nil (pytorch#67618)", function()
    for _, spec in ipairs({ "cuda_host", "cuda_managed" }) do
      local t = dlx.arange(4, { device = spec, dtype = "float32" })
      h.exact({ 0.0, 1.0, 2.0, 3.0 }, dlx.from_dlpack(t:__dlpack(V13)):totable())
      for _, s in ipairs({ -1, 0, 1, 2, 12345 }) do
        h.raises("ValueError", t.__dlpack, t, { max_version = { 1, 3 }, stream = s })
      end
      h.exact({ 0.0, 1.0, 2.0, 3.0 }, dlx.from_dlpack(t):totable()) -- dlx passes no stream
    end
  end)

  it("bug 37: a pinned capsule keeps its device and is read after the GPU's work "
    .. "(jax#22346)", function()
      local pinned = dlx.zeros({ 1 << 20 }, { device = "cuda_host", dtype = "float32" })
      local g = dlx.zeros({ 1 << 20 }, { device = "cuda", dtype = "float32" })
      dlx.cuda.busy_wait(BUSY) -- the copy below is still queued when the export is made
      g:fill_(3)
      pinned:copy_(g)
      local cap = pinned:__dlpack(V13)
      assert.same({ 3, 0 }, { pinned:__dlpack_device() })
      local back = dlx.from_dlpack(cap)
      assert.equal("cuda_host", tostring(back.device))
      assert.equal(3 * (1 << 20), back:sum():item())
    end)
end)
