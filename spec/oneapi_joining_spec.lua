--- oneapi (Level Zero) joining and creation: cat, stack, split, tile, repeat_interleave, eye,
-- linspace, logspace, the *_like functions, tril and triu on oneapi:0, each checked against the
-- same call on the CPU. Without a Level Zero device (a GPU, or the test driver of
-- tests/ze_driver) the specs are reported pending.
local h = require "spec.helper"
local dlx = h.dlx

local ONEAPI = "oneapi:0"

local function on(device, data, dtype) return dlx.tensor(data, { dtype = dtype,
  device = device }) end

describe("oneapi joining #oneapi", function()
  if not h.has_device(ONEAPI, pending) then return end

  local function both(data, dtype) return on("cpu", data, dtype), on(ONEAPI, data, dtype) end

  it("cat joins on the device, promoting dtypes, and into opts.out", function()
    local a, da = both({ { 1, 2 }, { 3, 4 } }, "int32")
    local b, db = both({ { 0.5, 6 } }, "float32")
    h.same_as_cpu(ONEAPI, dlx.cat({ a, b }), dlx.cat({ da, db }))
    h.same_as_cpu(ONEAPI, dlx.cat({ a, a:transpose(1, 2) }, 2), dlx.cat({ da, da:transpose(1,
      2) }, 2))
    local out = dlx.zeros({ 3, 2 }, { dtype = "float64", device = ONEAPI })
    assert.equal(out, dlx.cat({ da, db }, 1, { out = out }))
    h.same_as_cpu(ONEAPI, dlx.cat({ a, b }):astype("float64"), out)
    h.same_as_cpu(ONEAPI, dlx.cat({ a:slice(1, 1, 0), a }), dlx.cat({ da:slice(1, 1, 0), da }))
  end)

  it("cat keeps the first input's kind of memory", function()
    local s = dlx.ones({ 2 }, { device = ONEAPI, usm = "shared" })
    assert.equal("shared", dlx.cat({ s, s }).usm)
  end)

  it("cat and stack refuse inputs on two devices", function()
    local a, da = both({ 1, 2 })
    local msg = h.raises("DeviceError", dlx.cat, { da, a })
    assert.truthy(msg:find("cpu", 1, true) and msg:find(ONEAPI, 1, true), msg)
    h.raises("DeviceError", dlx.stack, { a, da })
    h.raises("DeviceError", dlx.cat, { da }, 1, { out = dlx.empty(2, { dtype = "int64",
      device = "cpu" }) })
  end)

  it("stack, split and chunk", function()
    local a, da = both({ 1, 2, 3, 4, 5 }, "float32")
    h.same_as_cpu(ONEAPI, dlx.stack({ a, a * 2 }, 2), dlx.stack({ da, da * 2 }, 2))
    local parts, dparts = a:split(2), da:split(2)
    assert.equal(#parts, #dparts)
    for i = 1, #parts do h.same_as_cpu(ONEAPI, parts[i], dparts[i]) end
    dparts = da:chunk(2)
    assert.equal(2, #dparts)
    h.same_as_cpu(ONEAPI, a:slice(1, 4, 5), dparts[2])
  end)

  it("tile and repeat_interleave", function()
    local a, da = both({ { 1, 2 }, { 3, 4 } }, "int16")
    h.same_as_cpu(ONEAPI, a:tile({ 2, 3 }), da:tile({ 2, 3 }))
    h.same_as_cpu(ONEAPI, a:transpose(1, 2):tile(2), da:transpose(1, 2):tile(2))
    h.same_as_cpu(ONEAPI, a:repeat_interleave(3, 2), da:repeat_interleave(3, 2))
    h.same_as_cpu(ONEAPI, a:repeat_interleave(on("cpu", { 2, 0 }), 1),
      da:repeat_interleave(on(ONEAPI, { 2, 0 }), 1))
  end)
end)

describe("oneapi creation #oneapi", function()
  if not h.has_device(ONEAPI, pending) then return end

  it("eye, linspace and logspace give the CPU's values", function()
    for _, dtype in ipairs { "float32", "float64", "int32", "bool" } do
      h.same_as_cpu(ONEAPI, dlx.eye(3, 5, { dtype = dtype, device = "cpu" }),
        dlx.eye(3, 5, { dtype = dtype, device = ONEAPI }))
    end
    for _, dtype in ipairs { "float32", "float64", "int64" } do
      h.same_as_cpu(ONEAPI, dlx.linspace(-1, 2.5, 11, { dtype = dtype, device = "cpu" }),
        dlx.linspace(-1, 2.5, 11, { dtype = dtype, device = ONEAPI }))
    end
    h.same_as_cpu(ONEAPI, dlx.logspace(0, 2, 5, { base = 2, device = "cpu" }),
      dlx.logspace(0, 2, 5, { base = 2, device = ONEAPI }))
    assert.equal("shared", dlx.eye(2, { device = ONEAPI, usm = "shared" }).usm)
  end)

  it("the *_like functions take the device and memory of t", function()
    local s = dlx.ones({ 2, 3 }, { device = ONEAPI, usm = "shared" })
    local z = dlx.zeros_like(s)
    assert.equal(ONEAPI, tostring(z.device))
    assert.equal("shared", z.usm)
    h.same_as_cpu(ONEAPI, dlx.full_like(s:to("cpu"), 4), dlx.full_like(s, 4))
    assert.equal("cpu", tostring(dlx.ones_like(s, { device = "cpu" }).device))
    assert.equal("device", dlx.empty_like(s, { usm = "device" }).usm)
  end)

  it("tril and triu", function()
    local m = dlx.arange(1, 21, { dtype = "float32", device = "cpu" }):view({ 4, 5 })
    local dm = m:to(ONEAPI)
    for _, k in ipairs { -2, 0, 1, 9 } do
      h.same_as_cpu(ONEAPI, m:tril(k), dm:tril(k))
      h.same_as_cpu(ONEAPI, m:triu(k), dm:triu(k))
    end
  end)
end)
