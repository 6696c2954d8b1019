--- dlx.print: tostring for tensors, like NumPy's and PyTorch's repr:
--   tensor([[1, 2], [3, 4]], shape={2, 2}, dtype=int64, device=cpu)
-- Tensors of more than SUMMARY_THRESHOLD elements show EDGE_ITEMS items at each end of each dim.
local core = require "dlx.core"

local M = {}

local SUMMARY_THRESHOLD = 1000
local EDGE_ITEMS = 3

local function format_number(v)
  if math.type(v) == "integer" then return string.format("%d", v) end
  if v ~= v then return "nan" end
  if v == math.huge then return "inf" end
  if v == -math.huge then return "-inf" end
  local s = string.format("%.6g", v)
  if not s:find("[.eni]") then s = s .. "." end
  return s
end

local function format_value(v)
  if type(v) == "boolean" then return tostring(v) end
  if type(v) == "table" then -- complex {re =, im =}
    local im = format_number(v.im)
    if im:sub(1, 1) ~= "-" then im = "+" .. im end
    return format_number(v.re) .. im .. "j"
  end
  return format_number(v)
end

local function format_table(values)
  if type(values) ~= "table" or values.re ~= nil then return format_value(values) end
  local parts = {}
  for i, v in ipairs(values) do parts[i] = format_table(v) end
  return "[" .. table.concat(parts, ", ") .. "]"
end

-- The values of t, with only the edges of long dims when summarising.
local function format_values(t, summarise)
  if t.ndim == 0 then return format_value(t:item()) end
  local n = t.shape[1]
  if not summarise or n <= 2 * EDGE_ITEMS then
    if not summarise then return format_table(t:totable()) end
    local parts = {}
    for i = 1, n do parts[i] = format_values(t:select(1, i), summarise) end
    return "[" .. table.concat(parts, ", ") .. "]"
  end
  local parts = {}
  for i = 1, EDGE_ITEMS do parts[#parts + 1] = format_values(t:select(1, i), summarise) end
  parts[#parts + 1] = "..."
  for i = n - EDGE_ITEMS + 1, n do parts[#parts + 1] = format_values(t:select(1, i), summarise) end
  return "[" .. table.concat(parts, ", ") .. "]"
end

local STORAGE_ONLY = { float8 = true, float6 = true, float4 = true }

local function is_storage_only(dtype)
  return STORAGE_ONLY[dtype:match("^(float%d)_")] == true
end

--- The text of a tensor; never raises. A closed tensor prints as "tensor(<closed>)", and one over a
-- host's loan that ended as "tensor(<expired>, shape=..., dtype=..., device=...)": its memory is
-- the host's again.
function M.format(t)
  local ok, dtype = pcall(function() return t.dtype end)
  if not ok then return "tensor(<closed>)" end
  local shape = "{" .. table.concat(t.shape, ", ") .. "}"
  local values
  if core.expired(t) then
    values = "<expired>"
  elseif is_storage_only(dtype) then
    values = "<" .. dtype .. " data>"
  else
    values = format_values(t, t.numel > SUMMARY_THRESHOLD)
  end
  return string.format("tensor(%s, shape=%s, dtype=%s, device=%s)", values, shape, dtype,
    tostring(t.device))
end

return M
