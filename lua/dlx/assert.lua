--- dlx.assert: tensor assertions for busted specs (luassert). require "dlx.assert" registers
--   assert.tensor_equal(expected, actual[, opts][, message])
--   assert.tensor_close(expected, actual[, opts][, message])
-- whose failure message shows the shapes, dtypes, the first mismatching index (1-based) with
-- both values there, and the largest absolute and relative differences; a formatter that prints
-- tensors in failure messages with tostring; and tensors in assert.are.same, compared by shape,
-- dtype, device and values instead of identity (tensors have no __eq: == stays identity).
local found, luassert = pcall(require, "luassert")
if not found then
  error("dlx.assert needs luassert, the assertion library of busted (apt-get install "
    .. "lua-luassert, or luarocks install luassert):\n" .. tostring(luassert), 2)
end
local say = require "say"
local util = require "luassert.util"
local namespaces = require "luassert.namespaces"
local dlx = require "dlx"
local print_module = require "dlx.print"
local raise = require "dlx.raise"

local M = {}

local function is_tensor_value(v)
  local kind = dlx.type(v)
  return kind == "tensor" or kind == "closed tensor"
end

-- ---- the comparison behind the report -----------------------------------------------------

local function shape_text(t)
  return "{" .. table.concat(t.shape, ", ") .. "}"
end

local function same_shape(a, b)
  return shape_text(a) == shape_text(b)
end

-- The 1-based index, one entry per dim, of element `flat` (1-based) in C order.
local function unflatten(flat, shape)
  local index, rest = {}, flat - 1
  for d = #shape, 1, -1 do
    index[d] = rest % shape[d] + 1
    rest = rest // shape[d]
  end
  return index
end

local function element(t, index)
  for _, i in ipairs(index) do t = t:select(1, i) end
  return print_module.format_value(t:item(), t.dtype)
end

local function is_complex(t)
  return t.dtype:match("^complex") ~= nil
end

-- The tensor in float64 (complex128 for complex), for differences that neither wrap nor round.
local function wide(t)
  return t:astype(is_complex(t) and "complex128" or "float64")
end

-- The largest value of diff where mismatch holds, and its 1-based flat index.
local function largest(diff, mismatch)
  local masked = dlx.where(mismatch, diff, 0):reshape(diff.numel)
  return masked:max():item(), masked:argmax():item()
end

local function index_text(index)
  return "{" .. table.concat(index, ", ") .. "}"
end

-- The lines that describe where expected and actual (same shape and device) differ: mismatch is
-- the bool tensor of the elements that do.
local function mismatch_lines(expected, actual, mismatch, opts)
  local lines = {}
  local count = mismatch:sum():item()
  local total = actual.numel
  lines[#lines + 1] = string.format("mismatched elements: %d / %d (%.1f%%)", count, total,
    100 * count / total)
  local shape = actual.shape
  local first = unflatten(mismatch:reshape(total):argmax():item(), shape)
  lines[#lines + 1] = string.format("first mismatch at index %s: expected %s, actual %s",
    index_text(first), element(expected, first), element(actual, first))
  local ok, report = pcall(function()
    local e, a = wide(expected), wide(actual)
    local abs_diff = dlx.abs(a - e)
    local rel_diff = abs_diff / dlx.abs(e)
    local max_abs, abs_at = largest(abs_diff, mismatch)
    local max_rel, rel_at = largest(rel_diff, mismatch)
    return {
      string.format("greatest absolute difference: %s at index %s%s",
        print_module.format_value(max_abs, "float64"), index_text(unflatten(abs_at, shape)),
        opts.atol and string.format(" (atol %g)", opts.atol) or ""),
      string.format("greatest relative difference: %s at index %s%s",
        print_module.format_value(max_rel, "float64"), index_text(unflatten(rel_at, shape)),
        opts.rtol and string.format(" (rtol %g)", opts.rtol) or ""),
    }
  end)
  if ok then
    for _, line in ipairs(report) do lines[#lines + 1] = line end
  end
  return lines
end

-- Compares; returns whether they match and the report's lines.
local function compare(expected, actual, opts, close)
  local lines = {
    string.format("shapes: expected %s, actual %s", shape_text(expected), shape_text(actual)),
    string.format("dtypes: expected %s, actual %s", expected.dtype, actual.dtype),
  }
  local function fail(reason)
    table.insert(lines, 1, reason)
    lines[#lines + 1] = "expected: " .. tostring(expected)
    lines[#lines + 1] = "actual:   " .. tostring(actual)
    return false, lines
  end
  if tostring(expected.device) ~= tostring(actual.device) then
    table.insert(lines, 3, string.format("devices: expected %s, actual %s", expected.device,
      actual.device))
    return fail("the devices differ")
  end
  if not same_shape(expected, actual) then return fail("the shapes differ") end
  local match
  if close then
    match = actual:isclose(expected, { rtol = opts.rtol, atol = opts.atol,
      equal_nan = opts.equal_nan })
  else
    match = dlx.eq(actual, expected)
    if opts.equal_nan then
      match = match:logical_or(dlx.logical_and(actual:isnan(), expected:isnan()))
    end
  end
  local mismatch = match:logical_not()
  local values_match = not mismatch:any():item()
  if not values_match then
    for _, line in ipairs(mismatch_lines(expected, actual, mismatch, opts)) do
      lines[#lines + 1] = line
    end
  end
  if opts.check_dtype and expected.dtype ~= actual.dtype then
    table.insert(lines, 1, "the dtypes differ")
    return false, lines
  end
  if not values_match then
    table.insert(lines, 1, close and "the values are not close" or "the values differ")
    return false, lines
  end
  table.insert(lines, 1, close and "the values are close" or "the values are equal")
  return true, lines
end

-- ---- arguments --------------------------------------------------------------------------------

local KNOWN = {
  tensor_equal = { check_dtype = "boolean", equal_nan = "boolean" },
  tensor_close = { check_dtype = "boolean", equal_nan = "boolean", rtol = "number",
    atol = "number" },
}

local function read_options(name, opts)
  local known = KNOWN[name]
  local read = { check_dtype = true, equal_nan = true }
  if name == "tensor_close" then read.rtol, read.atol = 1e-5, 1e-8 end
  for key, value in pairs(opts or {}) do
    if known[key] == nil then raise("TypeError", "%s: unknown option %s", name, tostring(key)) end
    if type(value) ~= known[key] then
      raise("TypeError", "%s: %s must be a %s, got %s", name, key, known[key], type(value))
    end
    read[key] = value
  end
  return read
end

local function is_lua_value(v)
  return type(v) == "number" or type(v) == "boolean"
      or (type(v) == "table" and type(v.re) == "number" and type(v.im) == "number")
end

-- expected as a tensor like actual: a Lua value fills actual's shape, a table of values becomes
-- a tensor of actual's dtype on its device.
local function as_expected(expected, actual)
  if is_tensor_value(expected) then return expected end
  local opts = { dtype = actual.dtype, device = actual.device }
  if is_lua_value(expected) then return dlx.full(actual.shape, expected, opts) end
  if type(expected) == "table" then return dlx.tensor(expected, opts) end
  raise("TypeError", "expected must be a tensor, a table of values or a value, got %s",
    type(expected))
end

-- The assertion behind tensor_equal and tensor_close: the arguments become the report, which
-- the message strings below print as they are.
local function tensor_assertion(name, close)
  return function(state, arguments)
    local expected, actual, opts, message = arguments[1], arguments[2], arguments[3], arguments[4]
    if type(opts) == "string" then opts, message = nil, opts end
    if message ~= nil then state.failure_message = message end
    local ok, lines
    if not is_tensor_value(actual) then
      ok, lines = false, { string.format("actual is a %s, not a tensor: %s", type(actual),
        tostring(actual)) }
    else
      ok, lines = compare(as_expected(expected, actual), actual, read_options(name, opts), close)
    end
    for i = 1, arguments.n do arguments[i] = nil end
    arguments[1], arguments.n, arguments.nofmt = "  " .. table.concat(lines, "\n  "), 1, { true }
    return ok
  end
end

--- Whether two tensors are the same as tensor_equal sees it (shape, dtype, device, values; NaN
-- equals NaN): assert.are.same's rule for tensors.
function M.same(a, b)
  if dlx.type(a) ~= "tensor" or dlx.type(b) ~= "tensor" then return rawequal(a, b) end
  return (compare(a, b, { check_dtype = true, equal_nan = true }, false))
end

-- ---- registration -----------------------------------------------------------------------------

say:set("assertion.tensor_equal.positive", "Expected tensors to be equal:\n%s")
say:set("assertion.tensor_equal.negative", "Expected tensors to differ:\n%s")
say:set("assertion.tensor_close.positive", "Expected tensors to be close:\n%s")
say:set("assertion.tensor_close.negative", "Expected tensors not to be close:\n%s")
luassert:register("assertion", "tensor_equal", tensor_assertion("tensor_equal", false),
  "assertion.tensor_equal.positive", "assertion.tensor_equal.negative")
luassert:register("assertion", "tensor_close", tensor_assertion("tensor_close", true),
  "assertion.tensor_close.positive", "assertion.tensor_close.negative")

-- What an earlier require of this module installed (busted reloads modules for each spec file):
-- luassert's own same and deepcompare, and the formatter to replace.
local REGISTRY_KEY = "dlx.assert"
local installed = debug.getregistry()[REGISTRY_KEY]
if installed == nil then
  installed = { same = namespaces.assertion.same, deepcompare = util.deepcompare }
  debug.getregistry()[REGISTRY_KEY] = installed
end

--- The luassert formatter: tostring for tensors, nil for anything else.
function M.formatter(v)
  if is_tensor_value(v) then return tostring(v) end
  return nil
end
if installed.formatter then luassert:remove_formatter(installed.formatter) end
luassert:add_formatter(M.formatter)
installed.formatter = M.formatter

-- assert.are.same(a, b) with two tensors; luassert compares values that are not both tables
-- with ==, which is identity for tensors.
local luassert_same = installed.same
luassert:register("assertion", "same", function(state, arguments, level)
  if is_tensor_value(arguments[1]) and is_tensor_value(arguments[2]) then
    local result = M.same(arguments[1], arguments[2])
    util.tinsert(arguments, 1, util.tremove(arguments, 2)) -- the order luassert's message wants
    if arguments[3] ~= nil then state.failure_message = arguments[3] end
    return result
  end
  return luassert_same.callback(state, arguments, (level or 1) + 1)
end, luassert_same.positive_message, luassert_same.negative_message)

-- ... and tensors inside tables (assert.are.same({x = t}, {x = u})), which luassert's deep
-- comparison reaches through util.deepcompare.
local luassert_deepcompare = installed.deepcompare
util.deepcompare = function(t1, t2, ...)
  if is_tensor_value(t1) and is_tensor_value(t2) then return M.same(t1, t2) end
  return luassert_deepcompare(t1, t2, ...)
end

return M
