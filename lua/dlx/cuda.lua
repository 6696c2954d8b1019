--- dlx.cuda: the CUDA backend's extras (dlx.cuda.*). Loads in every build: where dlx was built
-- without CUDA, or finds no GPU, is_available() is false and the functions that need a device
-- raise a DeviceError naming what is missing.
local core = require "dlx.core"

local M = {}

--- True when the CUDA backend is compiled into this dlx (it may still find no GPU).
function M.is_built()
  return core.backend_built("cuda")
end

--- The number of CUDA devices found (0 without a driver or a GPU).
function M.device_count()
  local n = 0
  for _, dev in ipairs(core.devices()) do
    if dev.type == "cuda" then n = n + 1 end
  end
  return n
end

function M.is_available()
  return M.device_count() > 0
end

--- The CUDA device current on this thread (an id, such as 0), or nil without devices. dlx
-- makes each tensor's device current around its work and restores this one afterwards.
function M.current_device()
  return core.current_device("cuda")
end

--- Gives the blocks held by the caching allocator back to CUDA (all devices); the same as
-- dlx.empty_cache("cuda").
function M.empty_cache()
  core.empty_cache("cuda")
end

--- Bytes of device memory held by tensors on device (default cuda:0).
function M.memory_allocated(device)
  return core.memory_allocated(core.device(device or "cuda:0"))
end

--- Bytes held in the caching allocator's pool on device (default cuda:0), ready for reuse.
function M.memory_cached(device)
  return core.memory_cached(core.device(device or "cuda:0"))
end

--- Waits until the work queued on the current stream of device (default cuda:0) is done.
function M.synchronize(device)
  core.current_stream(device or "cuda:0"):synchronize()
end

--- Whether float32 and complex64 matrix products may use TF32 on GPUs that have it (Ampere and
-- later: 10 significand bits in the products, float32 sums), as PyTorch's
-- torch.backends.cuda.matmul.allow_tf32. Off at first: products are true float32. With a
-- boolean, sets the switch for this Lua state and returns the value it had; without one,
-- returns the switch.
function M.allow_tf32(on)
  return core.allow_tf32(on)
end

--- Queues a kernel spinning for about `cycles` GPU clock cycles on the current stream of
-- device (default cuda:0): work queued after it is visibly still pending, for ordering tests.
function M.busy_wait(cycles, device)
  core.busy_wait(cycles, device or "cuda:0")
end

return M
