--- oneapi (Level Zero) tensors as bytes and .npy files: t:tobytes() and dlx.save_npy copy a
-- device tensor to the host first, as t:totable() does, and give the CPU's bytes. Without a Level
-- Zero device (a GPU, or the test driver of tests/ze_driver) the specs are reported pending.
local h = require "spec.helper"
local dlx = h.dlx

describe("oneapi tensors as bytes and .npy files", function()
  if not h.has_device("oneapi:0", pending) then return end

  local dtypes = { "bool", "int8", "int32", "uint64", "float16", "bfloat16", "float32",
    "float64", "complex64" }

  it("tobytes gives the bytes of the same tensor on the CPU, any layout", function()
    for _, dtype in ipairs(dtypes) do
      local cpu = dlx.arange(24, { device = "cpu" }):astype(dtype):view({ 2, 3, 4 })
      local dev = cpu:to("oneapi:0")
      assert.equal(cpu:tobytes(), dev:tobytes(), dtype)
      assert.equal(cpu:transpose(1, 3):tobytes(), dev:transpose(1, 3):tobytes(), dtype)
      assert.equal(cpu:flip(2):tobytes(), dev:flip(2):tobytes(), dtype)
    end
  end)

  it("save_npy writes what the CPU tensor would, and load_npy gives a CPU tensor", function()
    local path = os.tmpname()
    finally(function() os.remove(path) end)
    local cpu = dlx.arange(12, { device = "cpu", dtype = "float32" }):view({ 3, 4 })
    dlx.save_npy(path, cpu:to("oneapi:0"):transpose(1, 2))
    local back = dlx.load_npy(path)
    assert.equal("cpu", tostring(back.device))
    assert.same({ 4, 3 }, back.shape)
    assert.equal(cpu:transpose(1, 2):tobytes(), back:tobytes())
  end)
end)
