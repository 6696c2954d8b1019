-- Options tables are checked: a key that no function knows is a TypeError naming it (with the
-- closest known name when there is one), as Python rejects an unknown keyword.
local h = require "spec.helper"
local dlx = h.dlx

-- Each call with a misspelt option, and the known name it should suggest.
local function cases()
  local t = dlx.zeros({ 4 })
  return {
    { "empty", function() return dlx.empty({ 2 }, { dtpye = "int32" }) end, "dtype" },
    { "zeros", function() return dlx.zeros({ 2 }, { dtpye = "int32" }) end, "dtype" },
    { "ones", function() return dlx.ones({ 2 }, { devcie = "cpu" }) end, "device" },
    { "full", function() return dlx.full({ 2 }, 1, { usn = "host" }) end, "usm" },
    { "arange", function() return dlx.arange(4, { dtype = "int32", dytpe = "int8" }) end,
      "dtype" },
    { "tensor", function() return dlx.tensor({ 1, 2 }, { dtyp = "int32" }) end, "dtype" },
    { "to", function() return t:to({ dtype = "int32", cpoy = true }) end, "copy" },
    { "__dlpack", function() return t:__dlpack({ maxversion = { 1, 3 } }) end, "max_version" },
    { "__dlpack", function() return t:__dlpack({ max_version = { 1, 3 }, dldevice = { 1, 0 } }) end,
      "dl_device" },
    { "from_dlpack", function() return dlx.from_dlpack(t, { cpy = false }) end, "copy" },
  }
end

describe("an unknown option", function()
  for _, case in ipairs(cases()) do
    local fname, call, closest = case[1], case[2], case[3]
    it("of " .. fname .. " is a TypeError naming it", function()
      local msg = h.raises("TypeError", call)
      assert.truthy(msg:find(fname .. ": unknown option '", 1, true), msg)
      assert.truthy(msg:find("did you mean '" .. closest .. "'", 1, true), msg)
    end)
  end

  it("far from every known name gets no suggestion, only the list", function()
    local msg = h.raises("TypeError", dlx.zeros, { 2 }, { colour = "blue" })
    assert.truthy(msg:find("unknown option 'colour'", 1, true), msg)
    assert.falsy(msg:find("did you mean", 1, true), msg)
    assert.truthy(msg:find("dtype, device, usm", 1, true), msg)
  end)

  it("that is not a name (a list entry) is a TypeError too", function()
    local msg = h.raises("TypeError", dlx.zeros, { 2 }, { "float64" })
    assert.truthy(msg:find("unknown option [1]", 1, true), msg)
    h.raises("TypeError", dlx.from_dlpack, dlx.zeros(2), { true })
  end)

  it("points at the caller's line", function()
    local ok, err = pcall(function() return dlx.zeros({ 2 }, { dtpye = "int32" }) end)
    assert.is_false(ok)
    local where = err:match("^(.-):%d+: TypeError:")
    assert.truthy(where and where:find("options_spec.lua", 1, true), err)
  end)

  it("is refused before anything is made or consumed", function()
    local c = dlx.arange(3):__dlpack({ max_version = { 1, 3 } })
    h.raises("TypeError", dlx.from_dlpack, c, { devise = "cpu" })
    assert.equal("dltensor_versioned", c.name) -- not consumed
    h.exact({ 0, 1, 2 }, dlx.from_dlpack(c):totable())
  end)
end)

describe("known options", function()
  it("are all accepted together", function()
    local t = dlx.empty({ 2 }, { dtype = "int32", device = "cpu", usm = nil })
    assert.equal("int32", t.dtype)
    assert.equal("int8", dlx.arange(3, { dtype = "int8", device = "cpu" }).dtype)
    assert.equal("int16", t:to({ dtype = "int16", device = "cpu", copy = true }).dtype)
    local c = t:__dlpack({ max_version = { 1, 3 }, dl_device = { 1, 0 }, copy = false })
    assert.equal("dltensor_versioned", c.name)
    h.exact({ 0, 1 }, dlx.from_dlpack(dlx.arange(2), { device = "cpu", copy = true }):totable())
  end)

  it("may be inherited through a metatable's __index; own keys are still checked", function()
    local defaults = { dtype = "int16" }
    assert.equal("int16", dlx.empty({ 2 }, setmetatable({}, { __index = defaults })).dtype)
    local t = dlx.zeros({ 2 })
    local c = t:__dlpack(setmetatable({}, { __index = { max_version = { 1, 3 } } }))
    assert.equal("dltensor_versioned", c.name)
    local msg = h.raises("TypeError", function()
      return dlx.empty({ 2 }, setmetatable({ dtpye = "int8" }, { __index = {} }))
    end)
    assert.truthy(msg:find("unknown option 'dtpye'", 1, true), msg)
  end)

  it("inherited do not hide an unknown own key (one of each)", function()
    local inherit = function(own, defaults) return setmetatable(own, { __index = defaults }) end
    local t = dlx.zeros({ 2 })
    local calls = {
      { "empty", function()
        return dlx.empty({ 2 }, inherit({ dtpye = "int8" }, { dtype = "int16" }))
      end },
      { "tensor", function()
        return dlx.tensor({ 1 }, inherit({ devcie = "cpu" }, { dtype = "int16" }))
      end },
      { "__dlpack", function()
        return t:__dlpack(inherit({ cpoy = true }, { max_version = { 1, 3 } }))
      end },
      { "from_dlpack", function()
        return dlx.from_dlpack(t, inherit({ cpy = true }, { copy = true }))
      end },
      { "to", function() return t:to(inherit({ cpoy = true }, { dtype = "int32" })) end },
    }
    for _, case in ipairs(calls) do
      local msg = h.raises("TypeError", case[2])
      assert.truthy(msg:find(case[1] .. ": unknown option '", 1, true), msg)
    end
  end)

  it("are checked before an unknown key is reported", function()
    local msg = h.raises("TypeError", function()
      return dlx.empty({ 2 }, { dtype = "nope", dtpye = "int8" })
    end)
    assert.truthy(msg:find("unknown dtype 'nope'", 1, true), msg)
    msg = h.raises("TypeError", function()
      return dlx.zeros({ 2 }):__dlpack({ copy = 1, cpoy = true })
    end)
    assert.truthy(msg:find("copy must be true, false or nil", 1, true), msg)
  end)

  it("may be set to nil explicitly", function()
    local opts = { dtype = nil, device = nil }
    assert.equal("float32", dlx.zeros({ 1 }, opts).dtype)
  end)
end)
