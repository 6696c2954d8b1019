-- Property tests of dlx.max_pool2d, dlx.avg_pool2d and dlx.interpolate against PyTorch
-- (tests/property/torch_image.py, run by a Python that imports torch: DLX_PYTHON, python3 or
-- /usr/bin/python3, Debian's python3-torch of the interop group; pending without one): random
-- float32 and float64 images of 3 or 4 dims (interpolate: 4), random kernel sizes, strides,
-- paddings, dilations, ceil_mode, count_include_pad, divisor_override, sizes and scale factors,
-- align_corners, with ties, NaN and -inf in the max pools, some inputs seen through flipped
-- views. max_pool2d's values and indices agree exactly (dlx's indices are PyTorch's + 1); the
-- averages and the resizes agree to a few units in the last place, and the resizes to what a unit
-- in the last place of a source position makes (PyTorch's positions round differently: its build
-- may fuse their multiply and add; `close` below). DLX_PROPERTY_SEED fixes the seed (printed on
-- every run); DLX_PROPERTY_CASES the count.
local h = require "spec.helper"
local N = require "spec.property_numpy"
local dlx = h.dlx

local SEED, CASES = N.seed(), N.cases(300)
local SCRIPT = "tests/property/torch_image.py"
local pick, numel = N.pick, N.numel

-- A Python that imports torch, or nil.
local function python_with_torch()
  for _, python in ipairs { os.getenv("DLX_PYTHON") or "python3", "/usr/bin/python3" } do
    python = "env -u LD_PRELOAD " .. python
    if os.execute(python .. " -c 'import torch' >/dev/null 2>&1") == true then return python end
  end
end

-- A Lua value as a Python literal (numbers, booleans, strings, lists, string-keyed dicts).
local function py(v)
  if type(v) == "boolean" then return v and "True" or "False" end
  if math.type(v) == "float" then return ("%.17g"):format(v) end
  if type(v) == "string" then return ("'%s'"):format(v) end
  if type(v) ~= "table" then return tostring(v) end
  if #v > 0 then
    local items = {}
    for i, x in ipairs(v) do items[i] = py(x) end
    return "[" .. table.concat(items, ", ") .. "]"
  end
  local keys, items = {}, {}
  for k in pairs(v) do keys[#keys + 1] = k end
  table.sort(keys)
  for i, k in ipairs(keys) do items[i] = ("'%s': %s"):format(k, py(v[k])) end
  return "{" .. table.concat(items, ", ") .. "}"
end

local function pool_out(n, k, s, p, d, ceil)
  local out = (n + 2 * p - d * (k - 1) - 1 + (ceil and s - 1 or 0)) // s + 1
  if ceil and (out - 1) * s >= n + p then out = out - 1 end
  return out
end

local function pair(a, b) return (a == b and math.random() < 0.5) and a or { a, b } end

-- A pool's kernel size and options that give an output of at least 1 x 1 on h x w.
local function pool_args(op, hh, ww)
  while true do
    local k = { math.random(1, 4), math.random(1, 4) }
    local given = math.random() < 0.7 -- else PyTorch's stride is the kernel size
    local s = given and { math.random(1, 3), math.random(1, 3) } or k
    local p = { math.random(0, k[1] // 2), math.random(0, k[2] // 2) }
    local d = op == "max_pool2d" and { math.random(1, 2), math.random(1, 2) } or { 1, 1 }
    local ceil = math.random() < 0.4
    if pool_out(hh, k[1], s[1], p[1], d[1], ceil) >= 1 and
        pool_out(ww, k[2], s[2], p[2], d[2], ceil) >= 1 then
      local opts = { ceil_mode = ceil, padding = pair(p[1], p[2]) }
      if given then opts.stride = pair(s[1], s[2]) end
      if op == "max_pool2d" then
        opts.dilation, opts.return_indices = pair(d[1], d[2]), math.random() < 0.7
      else
        opts.count_include_pad = math.random() < 0.5
        if math.random() < 0.25 then opts.divisor_override = math.random(1, 5) end
      end
      return pair(k[1], k[2]), opts
    end
  end
end

local SCALES = { 0.5, 2, 1.5, 0.75, 3, 1 / 3, 1.7, 0.3 }

-- interpolate's options for an h x w input, with an output of at least 1 x 1.
local function interpolate_args(hh, ww)
  local opts = { mode = pick { "nearest", "bilinear", "bicubic" } }
  if math.random() < 0.5 then
    opts.size = pair(math.random(1, 12), math.random(1, 12))
  else
    local a, b
    repeat
      a = math.random() < 0.7 and pick(SCALES) or 0.2 + 3 * math.random()
      b = math.random() < 0.5 and a or pick(SCALES)
    until math.floor(hh * a) >= 1 and math.floor(ww * b) >= 1
    opts.scale_factor = a == b and a or { a, b }
  end
  if opts.mode ~= "nearest" and math.random() < 0.6 then
    opts.align_corners = math.random() < 0.5
  end
  return opts
end

local function random_case(id)
  local op = pick { "max_pool2d", "avg_pool2d", "interpolate" }
  local dtype = pick { "float32", "float64" }
  local hh, ww = math.random(1, 9), math.random(1, 9)
  if math.random() < 0.1 then ww = math.random(60, 140) end -- the CPU's blocks of 64 outputs
  local shape = { math.random(1, 3), hh, ww }
  if op == "interpolate" or math.random() < 0.6 then table.insert(shape, 1, math.random(1, 2)) end
  local args, opts, kernel
  if op == "interpolate" then
    opts = interpolate_args(hh, ww)
    args = opts
  else
    kernel, opts = pool_args(op, hh, ww)
    args = { kernel, opts }
  end
  local values, text = {}, {}
  local special = op == "max_pool2d" and math.random() < 0.5
  for i = 1, numel(shape) do
    local x
    if op == "max_pool2d" then
      x = math.random(-4, 4) / 2
    else
      x = math.random(-2000000, 2000000) / 1000000
    end
    if special and math.random() < 0.15 then x = pick { 0 / 0, -math.huge, math.huge } end
    values[i] = x
    text[i] = x ~= x and "nan" or x == math.huge and "inf" or x == -math.huge and "-inf" or
        ("%.17g"):format(x)
  end
  local t = dlx.tensor(values, { dtype = dtype }):view(shape)
  if math.random() < 0.3 then t = t:flip(#shape):contiguous():flip(#shape) end
  local line = table.concat({ id, op, dtype, py(args), table.concat(shape, ","),
    table.concat(text, " ") }, "\t")
  local name = ("case %d (seed %d): %s %s %s of shape {%s}"):format(id, SEED, op, dtype, py(args),
    table.concat(shape, ","))
  local positions -- the largest source position of a resize, in elements
  if op == "interpolate" then positions = math.max(4 * math.max(hh, ww), 12) end
  return { op = op, dtype = dtype, kernel = kernel, opts = opts, t = t, line = line, name = name,
    positions = positions }
end

local SPECIAL = { nan = 0 / 0, inf = math.huge, ["-inf"] = -math.huge }

-- Within rounding: a relative 4e-6 (float32) or 8e-15 (float64), plus, for the resizes, what
-- one unit in the last place of a source position moves a result by (at most 8 n eps for
-- values in [-2, 2], n bounding the sizes).
local function close(v, want, dtype, n)
  if want ~= want then return v ~= v end
  if v == want then return true end
  local tol = dtype == "float32" and 4e-6 or 8e-15
  local eps = dtype == "float32" and 2 ^ -23 or 2 ^ -52
  return math.abs(v - want) <= tol * math.max(1, math.abs(want)) + 8 * (n or 0) * eps
end

local skipped = 0 -- cases the Python script skips (its docstring says which)

local function check(case, result)
  local function fail(why) error(case.name .. ": " .. why, 0) end
  if result:match("^[^\t]*\tskip\t") then
    skipped = skipped + 1
    return
  end
  local shape, values, indices = result:match("^[^\t]*\t([^\t]*)\t([^\t]*)\t?(.*)$")
  local got, got_indices
  if case.op == "interpolate" then
    got = dlx.interpolate(case.t, case.opts)
  else
    got, got_indices = dlx[case.op](case.t, case.kernel, case.opts)
  end
  if table.concat(got.shape, ",") ~= shape then
    fail(("shape {%s} vs PyTorch's (%s)"):format(table.concat(got.shape, ","), shape))
  end
  local flat, k = N.flat(got), 0
  for text in values:gmatch("%S+") do
    k = k + 1
    local want, v = SPECIAL[text] or tonumber(text), flat[k]
    local exact = case.op == "max_pool2d"
    if exact and not (v == want or (v ~= v and want ~= want)) or
        not exact and not close(v, want, case.dtype, case.positions) then
      fail(("element %d: PyTorch %s, dlx %s"):format(k, text, tostring(v)))
    end
  end
  if k ~= #flat then fail(("%d values vs PyTorch's %d"):format(#flat, k)) end
  if got_indices then N.check_values(indices, N.flat(got_indices), fail) end
end

describe("max_pool2d, avg_pool2d and interpolate against PyTorch", function()
  local python = python_with_torch()
  N.it_holds(it, pending, "pooling and resizing", {
    seed = SEED, count = CASES, script = SCRIPT, case = random_case, check = check,
    python = python,
    missing = python == nil and "no Python with torch (apt-get install python3-torch, the " ..
        "interop group of scripts/debian-packages.txt): skipped" or nil,
  })
  if python then
    it("skips at most a tenth of the cases", function()
      print(("\n%d of %d cases skipped: %s"):format(skipped, CASES, SCRIPT))
      assert.is_true(skipped <= CASES // 10)
    end)
  end
end)
