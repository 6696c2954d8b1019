--- dlx.check: the argument checks that dlx's Lua modules share. Each raises dlx's error class
-- ("TypeError: name: ...", "ValueError: ...") at the script's line (dlx.raise).
local core = require "dlx.core"
local raise = require "dlx.raise"

local M = {}

-- v must be a tensor (what: how the message names it).
function M.tensor(name, v, what)
  if not core.is_tensor(v) then
    raise("TypeError", "%s: %s must be a tensor, not a %s", name, what, type(v))
  end
end

-- An integer (2.0 too, as the C functions take it): TypeError for other types, ValueError for
-- other numbers.
function M.integer(name, v, what)
  if type(v) ~= "number" then
    raise("TypeError", "%s: %s must be an integer, not a %s", name, what, type(v))
  end
  local i = math.tointeger(v)
  if i == nil then raise("ValueError", "%s: %s must be an integer, got %s", name, what, v) end
  return i
end

-- A 1-based or negative dim of an ndim-d tensor, as a 1-based dim.
function M.dim(name, d, ndim)
  d = M.integer(name, d, "dim")
  if ndim == 0 then raise("ValueError", "%s: a 0-d tensor has no dim %d", name, d) end
  if d >= 1 and d <= ndim then return d end
  if d < 0 and d >= -ndim then return ndim + d + 1 end
  raise("ValueError", "%s: dim %d out of range for a %d-d tensor (expected -%d..%d, not 0)", name,
    d, ndim, ndim, ndim)
end

return M
