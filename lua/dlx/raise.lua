--- dlx.raise(class, fmt, ...): raises "<class>: <message>" at the first caller outside dlx's Lua
-- layer, as the C binding does, so that an error points at the script's line.

-- A chunk of dlx's own Lua layer: a file ".../dlx/<name>.lua", installed or embedded.
local function is_dlx_source(source)
  return source:match("^@dlx/[%w_]+%.lua$") ~= nil or source:match("^@.*/dlx/[%w_]+%.lua$") ~= nil
end

local function outside_dlx(level)
  while true do
    local info = debug.getinfo(level + 1, "S")
    if info == nil or not is_dlx_source(info.source) then return level end
    level = level + 1
  end
end

return function(class, fmt, ...)
  error(class .. ": " .. string.format(fmt, ...), outside_dlx(2))
end
