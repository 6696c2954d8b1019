--- dlx.print: tostring for tensors, like NumPy's and PyTorch's repr:
--   tensor([[1, 2], [3, 4]], shape={2, 2}, dtype=int64, device=cpu)
-- and dlx.set_printoptions / dlx.get_printoptions. Floats print with the shortest digits that
-- read back to the same value at the tensor's dtype (NumPy's default), or with at most
-- `precision` digits after the point once it is set. Tensors of more than `threshold` elements
-- show `edgeitems` items at each end of each dim; lines longer than `linewidth` wrap.
local core = require "dlx.core"
local raise = require "dlx.raise"

local M = {}

local DEFAULTS = { precision = "shortest", threshold = 1000, edgeitems = 3, linewidth = 80 }
local options = {}
for k, v in pairs(DEFAULTS) do options[k] = v end

-- ---- numbers ---------------------------------------------------------------------------------

-- Float formats narrower than float64: significand bits (the implicit one included) and the
-- smallest normal exponent.
local NARROW_FLOATS = {
  float16 = { bits = 11, emin = -14 },
  bfloat16 = { bits = 8, emin = -126 },
  float32 = { bits = 24, emin = -126 },
}
NARROW_FLOATS.complex64 = NARROW_FLOATS.float32

-- floor(log2(a)) for a finite a > 0.
local function exponent(a)
  local e = math.floor(math.log(a, 2))
  if 2.0 ^ e > a then
    e = e - 1
  elseif 2.0 ^ (e + 1) <= a then
    e = e + 1
  end
  return e
end

-- Whether the double c, near the value v of format fmt, rounds to v at that format (to nearest,
-- ties to even). c - v is exact: the two are within a factor of two of each other.
local function rounds_to(c, v, fmt)
  local a = math.abs(v)
  local e = math.max(exponent(a), fmt.emin)
  local ulp = 2.0 ^ (e - fmt.bits + 1)
  local even = (a / ulp) % 2 == 0
  local above = ulp / 2
  local below = (a == 2.0 ^ e and e > fmt.emin) and ulp / 4 or ulp / 2 -- the gap halves below
  local d = math.abs(c) - a
  if d >= 0 then return d < above or (d == above and even) end
  return -d < below or (-d == below and even)
end

-- The shortest decimal that reads back as v in format fmt (nil: float64), as %e writes it with
-- the fewest significant digits (1 to 17), and that count.
local function shortest_decimal(v, fmt)
  for digits = 1, 17 do
    local s = string.format("%." .. (digits - 1) .. "e", v)
    local c = tonumber(s)
    if (fmt == nil and c == v) or (fmt ~= nil and rounds_to(c, v, fmt)) then return s, digits end
  end
  return string.format("%.16e", v), 17
end

-- "1.5", "3.", "1.e-05": trailing zeros after the point go, the point stays.
local function trim(s)
  local mantissa, exp = s:match("^([^e]*)(e?.*)$")
  if mantissa:find(".", 1, true) then mantissa = mantissa:gsub("0+$", "") end
  if not mantissa:find(".", 1, true) then mantissa = mantissa .. "." end
  return mantissa .. exp
end

-- The decimal "-d.ddde+XX" written positionally; digits past the shortest are zeros, as NumPy
-- writes them (float32 355591072 is 355591070.).
local function positional(decimal)
  local sign, first, rest, exp10 = decimal:match("^(-?)(%d)%.?(%d*)e([-+]%d+)$")
  local digits, e = first .. rest, tonumber(exp10)
  if e < 0 then return trim(sign .. "0." .. string.rep("0", -e - 1) .. digits) end
  if #digits <= e + 1 then return sign .. digits .. string.rep("0", e + 1 - #digits) .. "." end
  return trim(sign .. digits:sub(1, e + 1) .. "." .. digits:sub(e + 2))
end

-- A float at format fmt (nil: float64) with the current precision, positional unless it is
-- very large or very small (as NumPy: |v| >= 1e16 or 0 < |v| < 1e-4).
local function format_float(v, fmt)
  if v ~= v then return "nan" end
  if v == math.huge then return "inf" end
  if v == -math.huge then return "-inf" end
  if v == 0 then return (1 / v < 0) and "-0." or "0." end
  local decimal, digits = shortest_decimal(v, fmt)
  local precision = options.precision
  local a = math.abs(v)
  if a >= 1e16 or a < 1e-4 then
    if precision == "shortest" or digits - 1 <= precision then return trim(decimal) end
    return trim(string.format("%." .. precision .. "e", v))
  end
  local decimals = digits - 1 - tonumber(decimal:match("e([-+]%d+)$"))
  if precision == "shortest" or decimals <= precision then return positional(decimal) end
  return trim(string.format("%." .. precision .. "f", v))
end

local function format_number(v, fmt)
  if math.type(v) == "integer" then return string.format("%d", v) end
  return format_float(v, fmt)
end

local function is_float_dtype(dtype)
  return dtype:match("^float") ~= nil or dtype:match("^bfloat") ~= nil
      or dtype:match("^complex") ~= nil
end

--- The text of one element value v of a tensor of dtype (as tostring prints it).
function M.format_value(v, dtype)
  if type(v) == "boolean" then return tostring(v) end
  local fmt = NARROW_FLOATS[dtype]
  if type(v) == "table" then -- complex {re =, im =}
    local im = format_number(v.im, fmt)
    if im:sub(1, 1) ~= "-" then im = "+" .. im end
    return format_number(v.re, fmt) .. im .. "j"
  end
  if math.type(v) == "float" and not is_float_dtype(dtype) then -- uint64 above maxinteger
    return string.format("%.0f", v)
  end
  return format_number(v, fmt)
end

-- ---- layout ----------------------------------------------------------------------------------

-- The values as nested lists of strings (a dim is a list, "..." stands for left-out items).
local function leaf_lists(t, summarise, dtype)
  if t.ndim == 0 then return M.format_value(t:item(), dtype) end
  local n = t.shape[1]
  local edge = options.edgeitems
  local items = {}
  if not summarise or n <= 2 * edge then
    if not summarise and t.ndim == 1 then
      for i, v in ipairs(t:totable()) do items[i] = M.format_value(v, dtype) end
      return items
    end
    for i = 1, n do items[i] = leaf_lists(t:select(1, i), summarise, dtype) end
    return items
  end
  for i = 1, edge do items[#items + 1] = leaf_lists(t:select(1, i), summarise, dtype) end
  items[#items + 1] = "..."
  for i = n - edge + 1, n do items[#items + 1] = leaf_lists(t:select(1, i), summarise, dtype) end
  return items
end

local function flat(node)
  if type(node) == "string" then return node end
  local parts = {}
  for i, child in ipairs(node) do parts[i] = flat(child) end
  return "[" .. table.concat(parts, ", ") .. "]"
end

local function depth(node)
  local d = 0
  while type(node) == "table" do
    d = d + 1
    node = node[1]
  end
  return d
end

-- The text of node when its "[" is at column col and tail more characters follow its last
-- line: on one line when that fits in linewidth, else a 1-d list wraps its items and a deeper
-- one puts each sub-list on its own lines, and so do all its sub-lists of 2-d and up (a blank
-- line between blocks of 3-d and up, as NumPy).
local function layout(node, col, tail, broken)
  local d = depth(node)
  if d == 0 then return node end
  if not (broken and d >= 2) then
    local one_line = flat(node)
    if col + #one_line + tail <= options.linewidth then return one_line end
  end
  local indent = string.rep(" ", col + 1)
  if d == 1 then
    -- lines after the first carry their indent; width counts the current line's columns
    local lines, line, width = {}, "[", col + 1
    for i, item in ipairs(node) do
      local closing = i == #node and 1 + tail or 1 -- "]" and the tail, or ","
      if i > 1 and width + 1 + #item + closing > options.linewidth then
        lines[#lines + 1] = line
        line, width = indent .. item, #indent + #item
      else
        local piece = (i == 1 and "" or " ") .. item
        line, width = line .. piece, width + #piece
      end
      if i < #node then line, width = line .. ",", width + 1 end
    end
    lines[#lines + 1] = line .. "]"
    return table.concat(lines, "\n")
  end
  local parts = {}
  for i, child in ipairs(node) do
    parts[i] = layout(child, col + 1, i == #node and tail + 1 or 1, true)
  end
  local separator = ",\n" .. string.rep("\n", d - 2) .. indent
  return "[" .. table.concat(parts, separator) .. "]"
end

-- ---- tostring ---------------------------------------------------------------------------------

local STORAGE_ONLY = { float8 = true, float6 = true, float4 = true }

local function is_storage_only(dtype)
  return STORAGE_ONLY[dtype:match("^(float%d)_")] == true
end

local PREFIX = "tensor("

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
  elseif t.numel == 0 then
    values = "[]" -- as NumPy, whatever the shape (printed after): no empty rows are walked
  else
    values = layout(leaf_lists(t, t.numel > options.threshold, dtype), #PREFIX, 1, false)
  end
  local suffix = string.format(", shape=%s, dtype=%s, device=%s)", shape, dtype,
    tostring(t.device))
  local last_line = values:match("[^\n]*$")
  local start = values:find("\n", 1, true) and 0 or #PREFIX
  if start + #last_line + #suffix > options.linewidth then
    suffix = ",\n" .. string.rep(" ", #PREFIX) .. suffix:sub(3)
  end
  return PREFIX .. values .. suffix
end

-- ---- options ----------------------------------------------------------------------------------

local function check_count(name, v, least)
  if math.type(v) ~= "integer" and v ~= math.huge then
    raise("TypeError", "set_printoptions: %s must be an integer, got %s", name,
      math.type(v) or type(v))
  end
  if v < least then
    raise("ValueError", "set_printoptions: %s must be >= %d, got %s", name, least, tostring(v))
  end
end

local CHECKS = {
  precision = function(v)
    if v == "shortest" then return end
    if math.type(v) ~= "integer" then
      raise("TypeError", "set_printoptions: precision must be an integer or \"shortest\", got %s",
        math.type(v) or type(v))
    end
    if v < 0 or v > 17 then
      raise("ValueError", "set_printoptions: precision must be between 0 and 17, got %d", v)
    end
  end,
  threshold = function(v) check_count("threshold", v, 0) end,
  edgeitems = function(v) check_count("edgeitems", v, 1) end,
  linewidth = function(v) check_count("linewidth", v, 1) end,
}

--- dlx.set_printoptions(opts | "default"): sets the options opts names (the others stay);
-- "default" restores them all. Checked in full before anything changes.
function M.set_printoptions(opts)
  if opts == "default" then
    for k, v in pairs(DEFAULTS) do options[k] = v end
    return
  end
  if type(opts) ~= "table" then
    raise("TypeError", "set_printoptions expects a table or \"default\", got %s", type(opts))
  end
  for key, value in pairs(opts) do
    local check = CHECKS[key]
    if check == nil then
      raise("TypeError", "set_printoptions: unknown option %s", tostring(key))
    end
    check(value)
  end
  for key, value in pairs(opts) do options[key] = value end
end

--- dlx.get_printoptions(): a new table of the current options, which set_printoptions takes
-- back.
function M.get_printoptions()
  local copy = {}
  for k, v in pairs(options) do copy[k] = v end
  return copy
end

return M
