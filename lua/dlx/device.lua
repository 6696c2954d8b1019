--- dlx.device: the default device of a Lua state.
-- Chosen on first use: DLX_DEVICE (a comma-separated list of specs, the first available wins),
-- otherwise the best available device (cuda:0, then oneapi:0, then cpu). The choice lives in C
-- (src/lua/device.c), where creation reads it on every call.
local core = require "dlx.core"

return {
  default_device = core.default_device,
  set_default_device = core.set_default_device,
}
