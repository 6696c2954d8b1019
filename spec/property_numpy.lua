--- What the property specs against NumPy share: an input given to both (its text for the
--- reference script and the dlx tensor), finding a Python with NumPy, the run of a reference
--- script over a file of cases, and the comparison of values in row-major order.
local h = require "spec.helper"
local dlx = h.dlx

local N = {}

--- The seed of a property spec's run: DLX_PROPERTY_SEED, else the time (each spec prints it, so
--- that DLX_PROPERTY_SEED reproduces a failure).
function N.seed() return tonumber(os.getenv("DLX_PROPERTY_SEED") or "") or os.time() end

--- The count of its cases: DLX_PROPERTY_CASES, else `default`.
function N.cases(default) return tonumber(os.getenv("DLX_PROPERTY_CASES") or "") or default end

function N.pick(list) return list[math.random(#list)] end

-- (spec/helper.lua's, under the names these specs use)
N.numel, N.flat = h.numel, h.flat

--- An input of the given values (a row-major list; booleans as 0 and 1): its field for the
--- reference script ("dtype|shape|values", NaN written "nan") and the dlx tensor, sometimes a
--- transposed or flipped view of a copy (the same values in another layout).
function N.input(dtype, shape, values)
  local data = {}
  for i, v in ipairs(values) do data[i] = dtype == "bool" and v == 1 or v end
  local t = dlx.tensor(data, { dtype = dtype }):view(shape)
  local r = math.random()
  if #shape >= 2 and r < 0.3 then
    t = t:transpose(1, 2):contiguous():transpose(1, 2)
  elseif #shape >= 1 and r < 0.5 then
    t = t:flip(1):contiguous():flip(1)
  end
  local text = {}
  for i, v in ipairs(values) do text[i] = v ~= v and "nan" or ("%.17g"):format(v) end
  return table.concat({ dtype, table.concat(shape, ","), table.concat(text, " ") }, "|"), t
end

--- A shell command for a Python that imports numpy (DLX_PYTHON, python3, /usr/bin/python3), or
--- nil.
function N.python_with_numpy()
  for _, python in ipairs { os.getenv("DLX_PYTHON") or "python3", "/usr/bin/python3" } do
    python = "env -u LD_PRELOAD " .. python -- (without an ASan run's preloaded runtime)
    if os.execute(python .. " -c 'import numpy' >/dev/null 2>&1") == true then return python end
  end
end

--- Runs `script` (CASES RESULTS) over the cases' lines (case.line, the case's id first) and calls
--- on_line(line) for each line of its results; fails when the script does.
function N.run(python, script, cases, on_line)
  local input, output = os.tmpname(), os.tmpname()
  local f = assert(io.open(input, "w"))
  for _, case in ipairs(cases) do f:write(case.line, "\n") end
  f:close()
  local ok = os.execute(("%s %s %s %s"):format(python, script, input, output))
  for line in io.lines(output) do on_line(line) end
  os.remove(input)
  os.remove(output)
  assert(ok, script .. " failed")
end

--- N.run's result lines by id.
function N.results(python, script, cases)
  local results = {}
  N.run(python, script, cases, function(line) results[tonumber(line:match("^(%d+)"))] = line end)
  return results
end

--- Calls fail(why) unless tensor t has NumPy's dtype.
function N.check_dtype(t, dtype, fail)
  if t.dtype ~= dtype then fail(("dtype %s vs NumPy's %s"):format(t.dtype, dtype)) end
end

--- Calls fail(why) unless t's shape, its sizes joined by ",", is NumPy's `shape`.
function N.check_shape(t, shape, fail)
  local got = table.concat(t.shape, ",")
  if got ~= shape then fail(("shape {%s} vs NumPy's (%s)"):format(got, shape)) end
end

--- Compares NumPy's space-separated `values` with dlx's flat list `got` (booleans as 0 and 1);
--- calls fail(why) at the first difference.
function N.check_values(values, got, fail)
  local k = 0
  for text in values:gmatch("%S+") do
    k = k + 1
    local v = got[k]
    if type(v) == "boolean" then v = v and 1 or 0 end
    if v ~= tonumber(text) then
      fail(("element %d: NumPy %s, dlx %s"):format(k, text, tostring(v)))
    end
  end
  if k ~= #got then fail(("%d values vs NumPy's %d"):format(#got, k)) end
end

--- Registers, with busted's `it` and `pending` (not globals in a module), the test of p.count
--- cases of p.case(id) at p.seed (printed), run by the script p.script, each checked by
--- p.check(case, its result line); `what` names the property in the printed line. p.python,
--- when given, is the Python to run (nil: pending, with p.missing saying why).
function N.it_holds(it, pending, what, p)
  local python = p.python or (p.missing == nil and N.python_with_numpy() or nil)
  if python == nil then
    pending(p.missing or "python3 has no numpy (apt-get install python3-numpy): skipped")
    return
  end
  it(("holds for %d random cases (seed %d)"):format(p.count, p.seed), function()
    print(("\n%s property seed %d, %d cases (DLX_PROPERTY_SEED=%d reproduces them)"):format(
      what, p.seed, p.count, p.seed))
    math.randomseed(p.seed)
    local cases = {}
    for i = 1, p.count do cases[i] = p.case(i) end
    local results = N.results(python, p.script, cases)
    for i, case in ipairs(cases) do
      assert(results[i], case.name .. ": NumPy gave no result")
      p.check(case, results[i])
    end
  end)
end

return N
