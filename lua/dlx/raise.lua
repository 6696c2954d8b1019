--- dlx.raise(class, fmt, ...): raises "<class>: <message>" at the first caller outside dlx's Lua
-- layer, as the C binding does, so that an error points at the script's line.
local function outside_dlx(level)
  while true do
    local info = debug.getinfo(level + 1, "S")
    if info == nil or not info.source:match("^@.*dlx/[%w_]+%.lua$") then return level end
    level = level + 1
  end
end

return function(class, fmt, ...)
  error(class .. ": " .. string.format(fmt, ...), outside_dlx(2))
end
