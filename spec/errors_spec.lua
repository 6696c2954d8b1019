-- Errors: a table of bad inputs and the exact class each gives. Every message starts (after
-- Lua's optional "file:line: ") with the class, then says what was wrong.
local h = require "spec.helper"
local dlx = h.dlx

local function m23() return dlx.arange(6):view({ 2, 3 }) end

local function closed()
  local t = dlx.zeros({ 2 })
  t:close()
  return t
end

local cases = {
  -- TypeError: a value of the wrong type, an unknown dtype, computing on storage-only data
  { "TypeError", "an unknown dtype name", function() dlx.zeros(2, { dtype = "float" }) end },
  { "TypeError", "a dtype that is a number", function() dlx.zeros(2, { dtype = 32 }) end },
  { "TypeError", "a shape that is a string", function() dlx.zeros("two") end },
  { "TypeError", "a shape holding a table", function() dlx.zeros({ {} }) end },
  { "TypeError", "opts that are a string", function() dlx.ones(2, "int32") end },
  { "TypeError", "a string in dlx.tensor", function() dlx.tensor({ "x" }) end },
  { "TypeError", "a function as data", function() dlx.tensor(print) end },
  { "TypeError", "a string fill value", function() dlx.zeros(2):fill_("1") end },
  { "TypeError", "copy_ from a table", function() dlx.zeros(2):copy_({ 1, 2 }) end },
  { "TypeError", "astype to an unknown dtype", function() dlx.zeros(2):astype("half") end },
  { "TypeError", "a cast to a storage-only dtype",
    function() dlx.zeros(2):astype("float8_e4m3fn") end },
  { "TypeError", "a sum of a storage-only dtype",
    function() dlx.empty(2, { dtype = "float8_e5m2" }):sum() end },
  { "TypeError", "min of complex", function() dlx.tensor({ { re = 1, im = 0 } }):min() end },
  { "TypeError", "argmax of complex",
    function() dlx.tensor({ { re = 1, im = 0 } }):argmax() end },
  { "TypeError", "# of a 0-d tensor", function() return #dlx.tensor(1) end },
  { "TypeError", "a device spec that is a boolean", function() dlx.device(false) end },
  { "TypeError", "from_dlpack of a number", function() dlx.from_dlpack(1) end },
  { "TypeError", "from_dlpack of a plain table", function() dlx.from_dlpack({}) end },
  { "TypeError", "a malformed max_version",
    function() dlx.zeros(2):__dlpack({ max_version = "1.3" }) end },
  { "TypeError", "permute with strings", function() m23():permute({ "a", "b" }) end },
  { "TypeError", "view with a boolean", function() m23():view(true) end },
  { "TypeError", "a dim that is a string", function() m23():transpose("a", 1) end },

  -- ValueError: bad shapes, dims, indices, steps, streams; closed tensors; bad destinations
  { "ValueError", "a negative size", function() dlx.zeros({ 2, -1 }) end },
  { "ValueError", "an overflowing shape", function() dlx.empty({ 1 << 40, 1 << 40 }) end },
  { "ValueError", "a ragged table", function() dlx.tensor({ { 1 }, { 1, 2 } }) end },
  { "ValueError", "a zero arange step", function() dlx.arange(0, 4, 0) end },
  { "ValueError", "a view with another count", function() m23():view({ 4 }) end },
  { "ValueError", "a view the strides cannot express",
    function() m23():transpose(1, 2):view({ 6 }) end },
  { "ValueError", "dim 0", function() m23():sum(0) end },
  { "ValueError", "a dim past the end", function() m23():transpose(1, 3) end },
  { "ValueError", "a negative dim past the start", function() m23():select(-3, 1) end },
  { "ValueError", "index 0", function() m23():select(1, 0) end },
  { "ValueError", "an index past the end", function() m23():select(2, 4) end },
  { "ValueError", "a slice step of 0", function() m23():slice(1, 1, 2, 0) end },
  { "ValueError", "a narrow past the end", function() m23():narrow(2, 2, 3) end },
  { "ValueError", "an expand of a dim > 1", function() m23():expand({ 4, 3 }) end },
  { "ValueError", "a permutation with a repeat", function() m23():permute({ 1, 1 }) end },
  { "ValueError", "a stream on the CPU",
    function() dlx.zeros(2):__dlpack({ max_version = { 1, 3 }, stream = 1 }) end },
  { "ValueError", "use after close", function() return closed().shape end },
  { "ValueError", "a method after close", function() closed():sum() end },
  { "ValueError", "a fill of a read-only tensor", function() h.readonly_tensor():fill_(0) end },
  { "ValueError", "a copy into a broadcast view",
    function() dlx.zeros({ 1 }):expand({ 3 }):copy_(dlx.ones({ 3 })) end },
  { "ValueError", "copy_ from a shape that does not broadcast",
    function() dlx.zeros({ 2, 3 }):copy_(dlx.zeros({ 2 })) end },
  { "ValueError", "item of two elements", function() dlx.zeros(2):item() end },
  { "ValueError", "max of nothing", function() dlx.zeros(0):max() end },
  { "ValueError", "argmin of nothing", function() dlx.zeros(0):argmin() end },
  { "ValueError", "a capsule used twice", function()
    local c = dlx.zeros(2):__dlpack()
    dlx.from_dlpack(c)
    dlx.from_dlpack(c)
  end },

  -- BufferError: what DLPack cannot describe or exchange
  { "BufferError", "a legacy export of read-only data",
    function() h.readonly_tensor():__dlpack() end },
  { "BufferError", "an export to a device dlx cannot reach",
    function() dlx.zeros(2):__dlpack({ max_version = { 1, 3 }, dl_device = { 4, 0 } }) end },
  { "BufferError", "an import with major version 2",
    function() dlx.from_dlpack((h.testprod().make { shape = { 2 }, version = { 2, 0 } })) end },
  { "BufferError", "an import of an unknown dtype",
    function() dlx.from_dlpack((h.testprod().make { shape = { 2 }, dtype = { 2, 24, 1 } })) end },
  { "BufferError", "an import with NULL strides from 1.3",
    function() dlx.from_dlpack((h.testprod().make { shape = { 2 }, null_strides = true })) end },

  -- DeviceError: a device that is not available
  { "DeviceError", "a device index that does not exist",
    function() dlx.device("cuda:4096") end },
  { "DeviceError", "a creation on an absent device",
    function() dlx.zeros(2, { device = "oneapi:4096" }) end },
  { "DeviceError", "a move to an absent device", function() dlx.zeros(2):to("cuda:4096") end },
  { "DeviceError", "a default device that is not available",
    function() dlx.set_default_device("oneapi:4096") end },

  -- MemoryError: an allocation that failed
  { "MemoryError", "4 PiB", function() dlx.empty({ 1 << 52 }, { dtype = "uint8" }) end },

  -- OSError: a file operation the OS refused
  { "OSError", "a file that is not there",
    function() dlx.load_npy("/nonexistent-dir-of-dlx/a.npy") end },
  -- LinAlgError: a matrix without the decomposition asked for
  { "LinAlgError", "the inverse of a singular matrix",
    function() dlx.linalg.inv(dlx.zeros({ 2, 2 })) end },
  { "LinAlgError", "the Cholesky factor of a matrix that is not positive definite",
    function() dlx.linalg.cholesky(dlx.tensor({ { 1, 2 }, { 2, 1 } })) end },
}

describe("error classes", function()
  for _, case in ipairs(cases) do
    local class, what, fn = case[1], case[2], case[3]
    it(what .. " is a " .. class, function()
      local err = h.raises(class, fn)
      assert.equal(class, dlx.error_class(err))
    end)
  end
end)

describe("error messages", function()
  it("carry Lua's position prefix or none, then the class", function()
    local ok, err = pcall(dlx.zeros, { -1 })
    assert.is_false(ok)
    assert.truthy(err:match("^ValueError: ") or err:match("^[^\n]-:%d+: ValueError: "), err)
  end)

  it("point at the caller's line, not at dlx's own files", function()
    local function capsule_twice()
      local c = dlx.zeros(2):__dlpack()
      dlx.from_dlpack(c)
      dlx.from_dlpack(c)
    end
    for _, fn in ipairs({
      function() return m23():select(1, 0) end,
      function() return dlx.zeros({ -1 }) end,
      function() return dlx.tensor({ { 1 }, { 1, 2 } }) end,
      function() return dlx.arange(1, 2, 0) end,
      capsule_twice,
    }) do
      local ok, err = pcall(fn)
      assert.is_false(ok)
      -- a position, when there is one (a tail call leaves none), is this spec's line, whatever
      -- folder the checkout is in, never one of dlx's own files (lua/dlx/*.lua)
      local where = err:match("^(.-):%d+: %a+Error:")
      if where then
        assert.truthy(where:find("errors_spec.lua", 1, true), err)
      end
    end
  end)

  it("say what was expected", function()
    local _, err = pcall(dlx.zeros, 2, { dtype = "float" })
    assert.truthy(err:find("float", 1, true), err)
  end)

  it("leave nothing half-applied", function()
    local t = dlx.zeros({ 2, 3 }, { dtype = "int32" })
    pcall(t.copy_, t, dlx.ones({ 3, 2 }))
    h.exact({ { 0, 0, 0 }, { 0, 0, 0 } }, t:totable())
    local d = dlx.default_device()
    pcall(dlx.set_default_device, "cuda:4096")
    assert.is_true(dlx.default_device() == d)
  end)
end)

describe("dlx.error_class", function()
  local function raised(fn, ...)
    local ok, err = pcall(fn, ...)
    assert.is_false(ok)
    return err
  end

  it("names the class of dlx's errors, from C and from dlx's Lua files", function()
    assert.equal("ValueError", dlx.error_class(raised(dlx.zeros, { -1 })))
    assert.equal("TypeError", dlx.error_class(raised(dlx.arange, "a")))
    assert.equal("DeviceError", dlx.error_class(raised(dlx.device, "cuda:4096")))
    assert.equal("BufferError", dlx.error_class(raised(function()
      h.readonly_tensor():__dlpack()
    end)))
    assert.equal("MemoryError", dlx.error_class(raised(dlx.empty, { 1 << 52 },
      { dtype = "uint8" })))
  end)

  it("keeps the class of an error raised again, with more position prefixes", function()
    local err = raised(dlx.zeros, { -1 })
    local again = raised(function() error(err) end)
    local twice = raised(function() error(again) end)
    assert.equal("ValueError", dlx.error_class(twice))
  end)

  it("takes the class dlx raised, not a class-like chunk name before it", function()
    local fn = load("local t = require('dlx').zeros{-1}; return t", "=BufferError: a chunk")
    local err = raised(fn)
    assert.truthy(err:find("^BufferError: a chunk:1: ValueError: "), err)
    assert.equal("ValueError", dlx.error_class(err))
  end)

  it("names the class a script puts at the start of its own error", function()
    assert.equal("TypeError", dlx.error_class(raised(error, "TypeError: mine", 0)))
    assert.equal("DeviceError", dlx.error_class(raised(function()
      error("DeviceError: mine")
    end)))
    local chunk = load("error('BufferError: mine')", "=a:1: b")
    assert.equal("BufferError", dlx.error_class(raised(chunk)))
  end)

  it("is nil for a class word further on in the message", function()
    assert.is_nil(dlx.error_class(raised(function() error("while loading: TypeError: x") end)))
    assert.is_nil(dlx.error_class("the TypeError: x"))
    assert.is_nil(dlx.error_class("script.lua:3: oops\nValueError: on line two"))
  end)

  it("is nil for plain errors, other words and non-strings", function()
    assert.is_nil(dlx.error_class(raised(function() error("oops") end)))
    assert.is_nil(dlx.error_class("TypeErrors: x"))
    assert.is_nil(dlx.error_class("ValueError:no space"))
    assert.is_nil(dlx.error_class("LuaError: not a dlx class"))
    assert.is_nil(dlx.error_class("SyntaxError: not a dlx class"))
    assert.is_nil(dlx.error_class(""))
    for _, v in ipairs({ 42, true, { "TypeError: in a table" }, print, dlx.zeros(1) }) do
      assert.is_nil(dlx.error_class(v))
    end
    assert.is_nil(dlx.error_class(nil))
    assert.is_nil(dlx.error_class())
    assert.equal(1, select("#", dlx.error_class()))
  end)
end)

describe("dlx.type", function()
  it("names tensors, open and closed", function()
    local t = dlx.zeros(2)
    assert.equal("tensor", dlx.type(t))
    assert.equal("tensor", dlx.type(t:view({ 1, 2 })))
    t:close()
    assert.equal("closed tensor", dlx.type(t))
  end)

  it("names capsules, unconsumed and consumed", function()
    local c = dlx.zeros(2):__dlpack()
    assert.equal("capsule", dlx.type(c))
    dlx.from_dlpack(c)
    assert.equal("capsule", dlx.type(c))
    assert.equal("capsule", dlx.type(dlx.zeros(2):__dlpack({ max_version = { 1, 3 } })))
  end)

  it("names devices", function()
    assert.equal("device", dlx.type(dlx.device("cpu")))
    assert.equal("device", dlx.type(dlx.zeros(1).device))
  end)

  it("is nil for every other value, including dlx's tables", function()
    local values = { 1, 2.5, "tensor", true, false, {}, print, coroutine.create(print),
      io.stdout, dlx, dlx.Tensor, getmetatable(dlx.zeros(1)), setmetatable({}, {
        __name = "dlx.Tensor" }) }
    for _, v in ipairs(values) do
      assert.is_nil(dlx.type(v), tostring(v))
    end
    assert.is_nil(dlx.type(nil))
    assert.is_nil(dlx.type())
  end)
end)
