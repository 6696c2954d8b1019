-- Property tests of conv1d, conv2d and conv3d against PyTorch (tests/property/torch_conv.py):
-- random float64 inputs of 1 to 3 spatial dims, batched or not, with random strides, paddings
-- (sizes, "same", "valid"), dilations, groups and biases. The sums agree to 1e-12 relative to
-- the sum of the products' magnitudes (each library adds in its own order).
-- Needs a Python with PyTorch (DLX_PYTHON or python3; CI's scripts/test --all installs
-- python3-torch); without one the test is reported pending with the reason.
-- DLX_PROPERTY_SEED fixes the seed (printed on every run); DLX_PROPERTY_CASES the count.
local h = require "spec.helper"
local N = require "spec.property_numpy"
local dlx = h.dlx

local SEED, CASES = N.seed(), N.cases(150)
local SCRIPT = "tests/property/torch_conv.py"
local FUNCTIONS = { dlx.conv1d, dlx.conv2d, dlx.conv3d }

local function python_with_torch()
  for _, python in ipairs { os.getenv("DLX_PYTHON") or "python3", "/usr/bin/python3" } do
    python = "env -u LD_PRELOAD " .. python -- (without an ASan run's preloaded runtime)
    if os.execute(python .. " -c 'import torch' >/dev/null 2>&1") == true then return python end
  end
end

local function random_values(count)
  local values, text = {}, {}
  for i = 1, count do
    values[i] = math.random() * 4 - 2
    text[i] = ("%.17g"):format(values[i])
  end
  return values, table.concat(text, " ")
end

local function random_case(id)
  local n = math.random(1, 3)
  local groups = math.random(1, 3)
  local c, c_out, batch = groups * math.random(1, 3), groups * math.random(1, 3), math.random(1, 3)
  local xs, ws = { batch, c }, { c_out, c // groups }
  local stride, dilation, padding = {}, {}, {}
  local same = math.random() < 0.25
  for s = 1, n do
    ws[2 + s] = math.random(1, 4)
    dilation[s] = math.random(1, 2)
    stride[s] = same and 1 or math.random(1, 3)
    padding[s] = math.random(0, 2)
    xs[2 + s] = dilation[s] * (ws[2 + s] - 1) + 1 + math.random(0, n == 3 and 3 or 7)
  end
  local pad = same and "same" or math.random() < 0.15 and "valid" or padding
  local unbatched = math.random() < 0.2
  if unbatched then table.remove(xs, 1) end
  local x, xt = random_values(N.numel(xs))
  local w, wt = random_values(N.numel(ws))
  local b, bt
  if math.random() < 0.5 then b, bt = random_values(c_out) end
  local function list(t) return table.concat(t, ",") end
  local pad_text = type(pad) == "table" and list(pad) or pad
  local line = table.concat({ id, n, list(xs), list(ws), list(stride), pad_text, list(dilation),
    groups, xt, wt, bt or "" }, "\t")
  local name = ("case %d (seed %d): conv%dd input {%s} weight {%s} stride {%s} padding %s "
    .. "dilation {%s} groups %d%s"):format(id, SEED, n, list(xs), list(ws), list(stride),
    pad_text, list(dilation), groups, b and " bias" or "")
  local opts = { stride = stride, padding = pad, dilation = dilation, groups = groups }
  local input = dlx.tensor(x, { dtype = "float64" }):view(xs)
  local weight = dlx.tensor(w, { dtype = "float64" }):view(ws)
  if b then opts.bias = dlx.tensor(b, { dtype = "float64" }) end
  return { f = FUNCTIONS[n], input = input, weight = weight, opts = opts, line = line,
    name = name, kernel = N.numel(ws) // c_out }
end

local function check(case, result)
  local function fail(why) error(case.name .. ": " .. why, 0) end
  local shape, values = result:match("^[^\t]*\t([^\t]*)\t(.*)$")
  local got = case.f(case.input, case.weight, case.opts)
  if table.concat(got.shape, ",") ~= shape then
    fail(("shape {%s} vs PyTorch's (%s)"):format(table.concat(got.shape, ","), shape))
  end
  local flat, k = N.flat(got), 0
  -- each output sums kernel products of values below 2 in magnitude (and a bias below 2)
  local bound = 1e-12 * (4 * case.kernel + 2)
  for text in values:gmatch("%S+") do
    k = k + 1
    local want, v = tonumber(text), flat[k]
    if v ~= v or math.abs(v - want) > bound then
      fail(("element %d: PyTorch %s, dlx %.17g"):format(k, text, v))
    end
  end
  if k ~= #flat then fail(("%d values vs PyTorch's %d"):format(#flat, k)) end
end

describe("conv1d, conv2d and conv3d against PyTorch", function()
  local python = python_with_torch()
  N.it_holds(it, pending, "conv",
    { seed = SEED, count = CASES, script = SCRIPT, case = random_case, check = check,
      python = python, missing = python == nil and "no python3 with PyTorch (DLX_PYTHON, or "
      .. "python3-torch, which scripts/test --all installs): skipped" or nil })
end)
