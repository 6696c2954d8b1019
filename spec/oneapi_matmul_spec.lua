--- oneapi (Level Zero) matrix products (spec/matmul_device.lua, the cases every device runs):
--- every dtype, integers and bool included, against a reference made on the CPU. On the test
--- driver the kernel is its reference (the CPU backend's matmul), so these check the host side:
--- the request's strides in bytes, the batch, conjugates, alpha and beta (and whether c is read),
--- the mode, the alignment flag and the work-group counts, which the driver checks launch by
--- launch; the OpenCL kernel itself is checked against the CPU on PoCL (ctest ze.kernels_pocl)
--- and Intel's CPU OpenCL runtime.
local h = require "spec.helper"
local dlx = h.dlx

describe("oneapi matrix products #oneapi", function()
  if not h.has_device("oneapi:0", pending) then return end
  require "spec.matmul_device" ("oneapi:0", it, { integers = true })

  it("multiplies on a second device, and refuses operands on two devices", function()
    if not pcall(dlx.device, "oneapi:1") then
      pending("one oneapi device")
      return
    end
    local a = dlx.randn({ 40, 33 }):to("oneapi:1")
    local c = dlx.matmul(a, a:transpose(1, 2))
    assert.are.equal("oneapi:1", tostring(c.device))
    assert.is_true(dlx.allclose(c:to("cpu"), dlx.matmul(a:to("cpu"), a:to("cpu"):transpose(1, 2)),
      { rtol = 1e-5, atol = 1e-5 }))
    h.raises("DeviceError", dlx.matmul, a, a:to("oneapi:0"))
  end)

  it("leaves the decompositions a DeviceError that says to move the tensor", function()
    local msg = h.raises("DeviceError", dlx.linalg.inv, dlx.eye(3):to("oneapi:0"))
    assert.truthy(msg:find("linalg.inv is not implemented on oneapi:0 yet", 1, true), msg)
  end)
end)
