-- dlx.from_dlpack on values with __dlpack and __dlpack_device methods (the consumer side of the
-- protocol): call order, max_version, the TypeError retry, legacy replies, errors, options.
local h = require "spec.helper"
local dlx = h.dlx
local tp = h.testprod()

-- A producer object wrapping a dlx tensor (or any function making capsules), recording calls.
local function producer(inner, opts)
  opts = opts or {}
  local calls = {}
  local obj = {
    calls = calls,
    __dlpack_device = function(self, ...)
      calls[#calls + 1] = { "__dlpack_device", self = self, n = select("#", ...) }
      if opts.device then return opts.device[1], opts.device[2] end
      return inner:__dlpack_device()
    end,
    __dlpack = function(self, kw)
      calls[#calls + 1] = { "__dlpack", self = self, kw = kw }
      if opts.dlpack then return opts.dlpack(kw, #calls) end
      return inner:__dlpack(kw)
    end,
  }
  return obj
end

describe("from_dlpack of a __dlpack object", function()
  it("calls __dlpack_device, then __dlpack with max_version {1, 3}", function()
    local inner = dlx.arange(4, { dtype = "float32" })
    local p = producer(inner)
    local t = dlx.from_dlpack(p)
    h.exact({ 0.0, 1.0, 2.0, 3.0 }, t:totable())
    assert.equal(2, #p.calls)
    assert.equal("__dlpack_device", p.calls[1][1])
    assert.equal("__dlpack", p.calls[2][1])
    assert.is_true(rawequal(p, p.calls[1].self))
    assert.is_true(rawequal(p, p.calls[2].self))
    local kw = p.calls[2].kw
    assert.is_table(kw)
    h.exact({ 1, 3 }, kw.max_version)
    assert.is_nil(kw.stream) -- a CPU consumer passes no stream
  end)

  it("is zero-copy", function()
    local inner = dlx.zeros({ 3 }, { dtype = "int32" })
    local t = dlx.from_dlpack(producer(inner))
    inner:fill_(4)
    h.exact({ 4, 4, 4 }, t:totable())
    t:fill_(5)
    h.exact({ 5, 5, 5 }, inner:totable())
  end)

  it("works with methods found through a metatable", function()
    local inner = dlx.arange(3)
    local Class = {}
    Class.__index = Class
    function Class:__dlpack_device() return self.t:__dlpack_device() end
    function Class:__dlpack(kw) return self.t:__dlpack(kw) end
    local obj = setmetatable({ t = inner }, Class)
    h.exact({ 0, 1, 2 }, dlx.from_dlpack(obj):totable())
  end)

  it("takes a dlx tensor, sharing its memory", function()
    local inner = dlx.zeros({ 2 }, { dtype = "float64" })
    local t = dlx.from_dlpack(inner)
    assert.is_false(rawequal(inner, t))
    inner:fill_(2)
    h.exact({ 2.0, 2.0 }, t:totable())
  end)

  it("accepts a legacy reply to a versioned request", function()
    local inner = dlx.arange(3)
    local p = producer(inner, { dlpack = function() return inner:__dlpack() end })
    h.exact({ 0, 1, 2 }, dlx.from_dlpack(p):totable())
  end)

  it("accepts a capsule from a C producer", function()
    local p = producer(nil, {
      device = { 1, 0 },
      dlpack = function() return (tp.make { shape = { 2 } }) end,
    })
    h.exact({ 0.0, 1.0 }, dlx.from_dlpack(p):totable())
  end)

  it("retries without keywords when __dlpack raises a TypeError", function()
    local inner = dlx.arange(3)
    for _, level in ipairs({ 0, 1 }) do
      local p = producer(inner, {
        dlpack = function(kw)
          if kw ~= nil and kw.max_version ~= nil then
            error("TypeError: __dlpack() got an unexpected keyword argument 'max_version'",
              level)
          end
          return inner:__dlpack()
        end,
      })
      h.exact({ 0, 1, 2 }, dlx.from_dlpack(p):totable())
      assert.equal(3, #p.calls)
      assert.equal("__dlpack", p.calls[3][1])
      local kw = p.calls[3].kw
      assert.is_true(kw == nil or (kw.max_version == nil and kw.copy == nil
        and kw.dl_device == nil))
    end
  end)

  it("propagates errors other than TypeError without retrying", function()
    for _, class in ipairs({ "BufferError", "ValueError", "DeviceError" }) do
      local p = producer(dlx.arange(3), {
        dlpack = function() error(class .. ": the producer says no", 0) end,
      })
      local msg = h.raises(class, dlx.from_dlpack, p)
      assert.truthy(msg:find("the producer says no", 1, true))
      assert.equal(2, #p.calls)
    end
  end)

  it("retries only when the TypeError starts the message, after its position", function()
    for _, raise in ipairs({
      function() error("while exporting: TypeError: not the producer's own", 0) end,
      function() error("while exporting: TypeError: not the producer's own") end,
      function() error({ "TypeError: a table" }) end,
    }) do
      local p = producer(dlx.arange(3), { dlpack = raise })
      local ok, err = pcall(dlx.from_dlpack, p)
      assert.is_false(ok)
      assert.is_nil(dlx.error_class(err))
      assert.equal(2, #p.calls) -- __dlpack_device, then __dlpack once
    end
  end)

  it("propagates an error from __dlpack_device without calling __dlpack", function()
    local p = producer(dlx.arange(3))
    p.__dlpack_device = function() error("BufferError: no device here", 0) end
    local msg = h.raises("BufferError", dlx.from_dlpack, p)
    assert.truthy(msg:find("no device here", 1, true))
    assert.equal(0, #p.calls)
  end)

  it("rejects a producer on a device dlx does not serve with a BufferError", function()
    local p = producer(nil, {
      device = { 4, 0 },
      dlpack = function() return (tp.make { shape = { 2 }, device = { 4, 0 } }) end,
    })
    h.raises("BufferError", dlx.from_dlpack, p)
  end)

  it("rejects a __dlpack that returns something other than a capsule", function()
    local p = producer(nil, { device = { 1, 0 }, dlpack = function() return 42 end })
    h.raises("TypeError", dlx.from_dlpack, p)
  end)

  it("rejects values without __dlpack with a TypeError", function()
    h.raises("TypeError", dlx.from_dlpack, 42)
    h.raises("TypeError", dlx.from_dlpack, "tensor")
    h.raises("TypeError", dlx.from_dlpack, {})
    h.raises("TypeError", dlx.from_dlpack, nil)
    h.raises("TypeError", dlx.from_dlpack, io.stdout)
  end)

  it("rejects options that are not a table with a TypeError", function()
    h.raises("TypeError", dlx.from_dlpack, dlx.arange(2), "cpu")
  end)
end)

describe("from_dlpack options with a __dlpack object", function()
  it("copy = true gives a copy independent of the producer", function()
    local inner = dlx.zeros({ 3 }, { dtype = "float32" })
    local p = producer(inner)
    local t = dlx.from_dlpack(p, { copy = true })
    inner:fill_(1)
    h.exact({ 0.0, 0.0, 0.0 }, t:totable())
    t:fill_(2)
    h.exact({ 1.0, 1.0, 1.0 }, inner:totable())
  end)

  it("copy = true copies even when the producer ignores copy", function()
    local inner = dlx.zeros({ 3 }, { dtype = "float32" })
    local p = producer(inner, {
      dlpack = function() return inner:__dlpack({ max_version = { 1, 3 } }) end,
    })
    local t = dlx.from_dlpack(p, { copy = true })
    inner:fill_(1)
    h.exact({ 0.0, 0.0, 0.0 }, t:totable())
  end)

  it("copy = false shares memory", function()
    local inner = dlx.zeros({ 3 }, { dtype = "float32" })
    local t = dlx.from_dlpack(producer(inner), { copy = false })
    inner:fill_(1)
    h.exact({ 1.0, 1.0, 1.0 }, t:totable())
  end)

  it("device = \"cpu\" gives a CPU tensor", function()
    local t = dlx.from_dlpack(producer(dlx.arange(2)), { device = "cpu" })
    assert.is_true(t.device == dlx.device("cpu"))
    h.exact({ 0, 1 }, t:totable())
  end)

  it("a device that is not available is a DeviceError", function()
    h.raises("DeviceError", dlx.from_dlpack, producer(dlx.arange(2)),
      { device = "oneapi:4096" })
  end)

  it("keeps a READ_ONLY producer's tensor read-only", function()
    local ro = h.readonly_tensor({ 3 })
    local t = dlx.from_dlpack(producer(ro))
    assert.equal(true, t.readonly)
    h.raises("ValueError", t.fill_, t, 0)
  end)
end)

describe("from_dlpack protocol corners", function()
  it("copy = false refuses a capsule flagged IS_COPIED, before consuming it", function()
    local c = dlx.arange(3):__dlpack({ max_version = { 1, 3 }, copy = true })
    assert.equal(h.FLAG_IS_COPIED, c.flags & h.FLAG_IS_COPIED)
    local msg = h.raises("BufferError", dlx.from_dlpack, c, { copy = false })
    assert.truthy(msg:find("IS_COPIED", 1, true), msg)
    assert.equal("dltensor_versioned", c.name)
    h.exact({ 0, 1, 2 }, dlx.from_dlpack(c):totable()) -- still usable without copy = false
  end)

  it("copy = false refuses a producer that copied anyway", function()
    local inner = dlx.arange(3)
    local p = producer(inner, {
      dlpack = function() return inner:__dlpack({ max_version = { 1, 3 }, copy = true }) end,
    })
    h.raises("BufferError", dlx.from_dlpack, p, { copy = false })
    h.exact({ 0, 1, 2 }, dlx.from_dlpack(p):totable()) -- accepted without copy = false
  end)

  it("a value with __dlpack but no __dlpack_device is a TypeError at the caller's line", function()
    local inner = dlx.arange(3)
    local x = { __dlpack = function(_, kw) return inner:__dlpack(kw) end }
    local msg = h.raises("TypeError", dlx.from_dlpack, x)
    assert.truthy(msg:find("__dlpack_device", 1, true), msg)
    local ok, err = pcall(function() return dlx.from_dlpack(x) end)
    assert.is_false(ok)
    local where = err:match("^(.-):%d+: TypeError:")
    assert.truthy(where and where:find("from_dlpack_spec.lua", 1, true), err)
    x.__dlpack_device = 1 -- not a method either
    h.raises("TypeError", dlx.from_dlpack, x)
  end)
end)

describe("from_dlpack of a dlx tensor", function()
  it("gives what the export and import would: a new tensor over the same memory", function()
    local t = dlx.arange(6, { dtype = "int32" }):view({ 2, 3 }):transpose(1, 2)
    local u = dlx.from_dlpack(t)
    assert.is_false(rawequal(t, u))
    h.exact(t.shape, u.shape)
    h.exact(t.strides, u.strides)
    assert.equal(t.dtype, u.dtype)
    t:fill_(7)
    h.exact({ { 7, 7 }, { 7, 7 }, { 7, 7 } }, u:totable())
    t:close()
    h.exact({ { 7, 7 }, { 7, 7 }, { 7, 7 } }, u:totable()) -- the memory lives on
  end)

  it("keeps a read-only tensor read-only", function()
    local u = dlx.from_dlpack((h.readonly_tensor({ 3 })))
    assert.is_true(u.readonly)
  end)

  it("copy = true gives an independent copy", function()
    local t = dlx.zeros({ 3 })
    local u = dlx.from_dlpack(t, { copy = true })
    t:fill_(1)
    h.exact({ 0.0, 0.0, 0.0 }, u:totable())
  end)

  it("copies a view that starts inside a byte, which byte_offset cannot express", function()
    local t = dlx.zeros({ 4 }, { dtype = "uint8" }):view({ 4 })
    local fp4 = dlx.empty({ 8 }, { dtype = "float4_e2m1fn" }):slice(1, 2)
    local u = dlx.from_dlpack(fp4)
    assert.equal(7, u.numel)
    h.raises("BufferError", dlx.from_dlpack, fp4, { copy = false })
    assert.equal(4, dlx.from_dlpack(t, { copy = false }).numel)
  end)

  it("is a ValueError for a closed tensor", function()
    local t = dlx.zeros({ 2 })
    t:close()
    h.raises("ValueError", dlx.from_dlpack, t)
  end)
end)
