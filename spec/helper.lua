--- Shared helpers for the dlx specs: error-class assertions, approximate equality, deep
-- comparison of nested tables, the testprod loader and a subprocess runner, memory growth over a
-- loop, element counts, flat values and seeded values, and what dlx.linalg's specs share.
-- Specs do `local h = require "spec.helper"` (the default package.path has "./?.lua", and the
-- specs run from the repository root).
local h = {}

local dlx = require "dlx"
h.dlx = dlx

--- The class at the start of an error message, after Lua's optional "file:line: " prefix.
function h.error_class(msg)
  if type(msg) ~= "string" then return nil end
  local class = msg:match("^(%a+Error):")
  if class then return class, msg end
  local body = msg:gsub("^[^\n]-:%d+: ", "", 1)
  return body:match("^(%a+Error):"), body
end

--- Calls fn(...) and checks that it raises an error whose message starts (after an optional
-- "file:line: " prefix) with "<class>:" followed by an explanation. Returns the message.
function h.raises(class, fn, ...)
  local ok, err = pcall(fn, ...)
  if ok then
    error(("expected a %s, but the call succeeded"):format(class), 2)
  end
  if type(err) ~= "string" then
    error(("expected a %s, got a non-string error (%s)"):format(class, tostring(err)), 2)
  end
  local got, body = h.error_class(err)
  if got ~= class then
    error(("expected a %s, got: %s"):format(class, err), 2)
  end
  if #body < #class + 8 then
    error(("the %s says too little about what was wrong: %q"):format(class, err), 2)
  end
  return err
end

--- Checks a (nil, message) return whose message starts with one of the classes.
function h.failed_with(classes, value, msg)
  if value ~= nil then error("expected a failure (nil, message), got a value", 2) end
  local got = h.error_class(msg)
  for _, c in ipairs(classes) do
    if got == c then return msg end
  end
  error(("expected a message starting with %s, got: %s"):format(table.concat(classes, " or "),
    tostring(msg)), 2)
end

function h.isnan(x) return x ~= x end

--- |a - b| <= max(abs, rel * max(|a|, |b|))
function h.close(a, b, rel, abs)
  rel, abs = rel or 1e-6, abs or 0
  if a == b then return true end
  if a ~= a or b ~= b then return false end
  return math.abs(a - b) <= math.max(abs, rel * math.max(math.abs(a), math.abs(b)))
end

function h.assert_close(a, b, rel, abs)
  if not h.close(a, b, rel, abs) then
    error(("expected %.17g to be close to %.17g (rel %g, abs %g)"):format(a, b, rel or 1e-6,
      abs or 0), 2)
  end
end

--- Deep equality that also tells integer from float (1 vs 1.0), keeps NaN == NaN and -0.0 ~= 0.0
-- when strict_zero is set.
local function deq(a, b, path, opts)
  if type(a) ~= type(b) then
    return false, ("%s: %s vs %s"):format(path, tostring(a), tostring(b))
  end
  if type(a) == "table" then
    for k, v in pairs(a) do
      local ok, why = deq(v, b[k], path .. "[" .. tostring(k) .. "]", opts)
      if not ok then return false, why end
    end
    for k in pairs(b) do
      if a[k] == nil then return false, path .. "[" .. tostring(k) .. "] is extra" end
    end
    return true
  elseif type(a) == "number" then
    if opts.exact_types and math.type(a) ~= math.type(b) then
      return false, ("%s: %s is %s, %s is %s"):format(path, tostring(a), math.type(a),
        tostring(b), math.type(b))
    end
    if a ~= a and b ~= b then return true end
    if a ~= b then return false, ("%s: %.17g vs %.17g"):format(path, a, b) end
    if opts.strict_zero and a == 0 and 1 / a ~= 1 / b then
      return false, path .. ": signs of zero differ"
    end
    return true
  end
  if a ~= b then return false, ("%s: %s vs %s"):format(path, tostring(a), tostring(b)) end
  return true
end

--- Asserts that got equals want, recursively. opts: exact_types (integer vs float),
-- strict_zero (-0.0 vs 0.0).
function h.same(want, got, opts)
  local ok, why = deq(want, got, "value", opts or {})
  if not ok then error("values differ: " .. why, 2) end
end

--- Like h.same with exact_types: integers must come back as integers, floats as floats.
function h.exact(want, got)
  local ok, why = deq(want, got, "value", { exact_types = true })
  if not ok then error("values differ: " .. why, 2) end
end

--- Compares numbers in nested tables with a tolerance.
function h.same_approx(want, got, rel, abs, path)
  path = path or "value"
  if type(want) == "table" then
    if type(got) ~= "table" then error(path .. ": expected a table, got " .. tostring(got), 2) end
    if #want ~= #got then error(("%s: %d entries vs %d"):format(path, #want, #got), 2) end
    for i = 1, #want do h.same_approx(want[i], got[i], rel, abs, path .. "[" .. i .. "]") end
  elseif not h.close(want, got, rel, abs) then
    error(("%s: expected %.17g, got %s"):format(path, want, tostring(got)), 2)
  end
end

--- The testprod module (tests/testprod), built next to dlx/core.so. Loaded after dlx, so that
-- dlx_capi_get finds dlx. A missing module is a failure, not a skip.
function h.testprod()
  if not h._testprod then
    local ok, m = pcall(require, "testprod")
    if not ok then error("testprod.so not found on package.cpath: " .. tostring(m), 2) end
    h._testprod = m
  end
  return h._testprod
end

--- Shell-quotes s with single quotes.
function h.shquote(s)
  return "'" .. s:gsub("'", "'\\''") .. "'"
end

--- Runs a Lua chunk in a fresh lua5.4 with this state's package paths and the given environment
-- variables (a table name -> value, or false to unset). Returns its stdout+stderr and whether
-- it exited with status 0.
function h.run_lua(code, env)
  local parts = { "env" }
  for k, v in pairs(env or {}) do
    if v == false then
      parts[#parts + 1] = "-u " .. k
    else
      parts[#parts + 1] = k .. "=" .. h.shquote(v)
    end
  end
  parts[#parts + 1] = "LUA_PATH=" .. h.shquote(package.path)
  parts[#parts + 1] = "LUA_CPATH=" .. h.shquote(package.cpath)
  parts[#parts + 1] = "lua5.4 -e " .. h.shquote(code) .. " 2>&1"
  local p = assert(io.popen(table.concat(parts, " ")))
  local out = p:read("a")
  local ok = p:close()
  return out, ok == true
end

--- Every dtype dlx knows: name -> {code, bits, lanes, itemsize, compute}
h.DTYPES = {
  bool = { 6, 8, 1, 1, true },
  int8 = { 0, 8, 1, 1, true },
  int16 = { 0, 16, 1, 2, true },
  int32 = { 0, 32, 1, 4, true },
  int64 = { 0, 64, 1, 8, true },
  uint8 = { 1, 8, 1, 1, true },
  uint16 = { 1, 16, 1, 2, true },
  uint32 = { 1, 32, 1, 4, true },
  uint64 = { 1, 64, 1, 8, true },
  float16 = { 2, 16, 1, 2, true },
  bfloat16 = { 4, 16, 1, 2, true },
  float32 = { 2, 32, 1, 4, true },
  float64 = { 2, 64, 1, 8, true },
  complex64 = { 5, 64, 1, 8, true },
  complex128 = { 5, 128, 1, 16, true },
  float8_e3m4 = { 7, 8, 1, 1, false },
  float8_e4m3 = { 8, 8, 1, 1, false },
  float8_e4m3b11fnuz = { 9, 8, 1, 1, false },
  float8_e4m3fn = { 10, 8, 1, 1, false },
  float8_e4m3fnuz = { 11, 8, 1, 1, false },
  float8_e5m2 = { 12, 8, 1, 1, false },
  float8_e5m2fnuz = { 13, 8, 1, 1, false },
  float8_e8m0fnu = { 14, 8, 1, 1, false },
  float6_e2m3fn = { 15, 6, 1, 0.75, false },
  float6_e3m2fn = { 16, 6, 1, 0.75, false },
  float4_e2m1fn = { 17, 4, 1, 0.5, false },
  float4_e2m1fn_x2 = { 17, 4, 2, 1, false },
}

--- Sorted dtype names, all or only those that compute (compute = true) or are storage-only
-- (compute = false).
function h.dtype_names(compute)
  local names = {}
  for name, d in pairs(h.DTYPES) do
    if compute == nil or d[5] == compute then names[#names + 1] = name end
  end
  table.sort(names)
  return names
end

h.NUMERIC = { "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
  "float16", "bfloat16", "float32", "float64", "complex64", "complex128" }

h.FLAG_READ_ONLY = 1
h.FLAG_IS_COPIED = 2
h.FLAG_SUBBYTE_PADDED = 4

--- Imports a testprod capsule made from spec, which must fail with a BufferError: the capsule is
-- then used, its deleter has run exactly once, and neither a collection nor a second import runs
-- it again. Returns the message; what names the case in failures.
function h.import_rejects(spec, what)
  local assert = require "luassert" -- specs get it as their assert; this module does not
  local tp = h.testprod()
  local cap, id = tp.make(spec)
  local msg = h.raises("BufferError", dlx.from_dlpack, cap)
  what = what or "import"
  assert.equal(1, tp.deleted(id), what .. ": the deleter must run exactly once")
  assert.equal(spec.legacy and "used_dltensor" or "used_dltensor_versioned", cap.name)
  collectgarbage()
  collectgarbage()
  assert.equal(1, tp.deleted(id), what .. ": the deleter ran again after collection")
  h.raises("ValueError", dlx.from_dlpack, cap)
  assert.equal(1, tp.deleted(id))
  return msg
end

--- Imports a testprod capsule made from spec, which must succeed without running the deleter;
-- returns the tensor and the producer's id.
function h.import_accepts(spec)
  local assert = require "luassert"
  local tp = h.testprod()
  local cap, id = tp.make(spec)
  local t = dlx.from_dlpack(cap)
  assert.equal(0, tp.deleted(id))
  return t, id
end

--- A read-only float32 tensor imported from testprod (values 0, 1, 2, ... in the shape).
function h.readonly_tensor(shape)
  local tp = h.testprod()
  local cap, id = tp.make { shape = shape or { 2, 3 }, flags = h.FLAG_READ_ONLY }
  return dlx.from_dlpack(cap), id
end

--- The guard at the top of a describe block whose specs need a device ("cuda:0", "oneapi:0"):
-- true when the device is available; otherwise the block is reported as one pending line naming
-- the spec file, and the caller returns. busted's `pending` is passed in, since this module does
-- not see the spec's environment. DLX_REQUIRE_ONEAPI (set by ctest where it loads the Level Zero
-- test driver) makes a missing oneapi device a failure instead, so that a broken driver setup
-- cannot pass as a skip.
function h.has_device(device, pending)
  if pcall(dlx.device, device) then return true end
  local file = debug.getinfo(2, "S").short_src:match("[^/]*$")
  if device:match("^oneapi") then
    assert(not os.getenv("DLX_REQUIRE_ONEAPI"), "DLX_REQUIRE_ONEAPI is set, but no oneapi device")
    pending(("skipped: no oneapi device, %s did not run (build with Level Zero; without an Intel "
      .. "GPU set ZE_ENABLE_ALT_DRIVERS to the test driver, see docs/level-zero.md)"):format(file))
  else
    local name = device:match("^cuda") and "CUDA" or device
    pending(("no %s device: %s did not run"):format(name, file))
  end
  return false
end

--- Nested-table reference helpers for checking results element by element.
--- Runs fn() after a full collection and with the collector stopped, so that counts of live
-- memory taken before and after an allocation (dlx.memory_allocated) see only that allocation,
-- not garbage of earlier specs that a collector step frees in between. Restarts the collector
-- whatever fn does.
function h.without_collector(fn)
  collectgarbage()
  collectgarbage() -- a second cycle frees what the first one's finalizers let go
  collectgarbage("stop")
  local ok, err = pcall(fn)
  collectgarbage("restart")
  if not ok then error(err, 0) end
end

--- The most that dlx.memory_allocated("cpu") grew over n calls of step(i), two full collections
-- before the first and none asked for after: what the collector frees by itself keeps it low.
function h.peak_growth(n, step)
  collectgarbage()
  collectgarbage()
  local m0 = dlx.memory_allocated("cpu")
  local peak = 0
  for i = 1, n do
    step(i)
    local m = dlx.memory_allocated("cpu") - m0
    if m > peak then peak = m end
  end
  return peak
end

--- The element count of a shape (a list of sizes; 1 for {}).
function h.numel(shape)
  local n = 1
  for _, s in ipairs(shape) do n = n * s end
  return n
end

--- The values of tensor t in row-major order (its totable() flattened; a complex value stays
-- one {re =, im =} table).
function h.flat(t)
  local out = {}
  local function walk(v)
    if type(v) ~= "table" or v.re ~= nil then
      out[#out + 1] = v
      return
    end
    for _, x in ipairs(v) do walk(x) end
  end
  walk(t:totable())
  return out
end

--- n values of dtype drawn after math.randomseed(seed), each exact in dtype: booleans true
-- unless math.random(0, r.bool) draws 0, integers in r.int (r.uint for the unsigned dtypes), each
-- a {lo, hi} pair, floats multiples of 1/64 in [-6.25, 6.25] (complex ones with an imaginary part
-- in halves). The same seed gives the same values on every device.
function h.seeded_values(dtype, n, seed, r)
  math.randomseed(seed)
  local out = {}
  for i = 1, n do
    local v
    if dtype == "bool" then
      v = math.random(0, r.bool) > 0
    elseif dtype:match("^uint") then
      v = math.random(r.uint[1], r.uint[2])
    elseif dtype:match("^int") then
      v = math.random(r.int[1], r.int[2])
    else
      v = math.random(-400, 400) / 64 -- exact in every float dtype
      if dtype:match("^complex") then v = { re = v, im = math.random(-4, 4) / 2 } end
    end
    out[i] = v
  end
  return out
end

function h.shape_of(t)
  local shape = {}
  while type(t) == "table" and t.re == nil do
    shape[#shape + 1] = #t
    t = t[1]
  end
  return shape
end

--- Values a device computed against the CPU's, as totable gives them: integers and booleans
-- exactly, NaN for NaN, other floats within a relative 1e-2 (float16, bfloat16), 1e-5 (float32)
-- or rel64 (float64; 1e-5 when nil): a GPU may sum in another order or use its own libm.
function h.values_close(want, got, dtype, rel64)
  if type(want) == "table" then
    if want.re ~= nil then
      return h.values_close(want.re, got.re, dtype, rel64)
        and h.values_close(want.im, got.im, dtype, rel64)
    end
    if #want ~= #got then return false end
    for i = 1, #want do
      if not h.values_close(want[i], got[i], dtype, rel64) then return false end
    end
    return true
  end
  if math.type(want) == "integer" or type(want) == "boolean" then return want == got end
  if want ~= want then return got ~= got end
  if want == got then return true end
  local rel = (dtype == "float16" or dtype == "bfloat16") and 1e-2
    or dtype == "float64" and rel64 or 1e-5
  return h.close(want, got, rel, 1e-6)
end

--- got, made on device, against want, the same made on the CPU: its device, dtype and shape, then
-- its values (h.values_close); a difference is reported as h.same reports it.
function h.same_as_cpu(device, want, got, rel64)
  h.same(device, tostring(got.device))
  h.same(want.dtype, got.dtype)
  h.same(want.shape, got.shape)
  local a, b = want:totable(), got:totable()
  if not h.values_close(a, b, want.dtype, rel64) then
    h.same(a, b) -- reports the first difference
  end
end

--- got (on any device) against want (the same made on the CPU), bit for bit: dtype, shape and
-- the bytes of every element.
function h.same_bits(want, got)
  local assert = require "luassert"
  assert.equal(want.dtype, got.dtype)
  assert.same(want.shape, got.shape)
  assert.equal(want:tobytes(), got:to("cpu"):tobytes())
end

-- ---- dlx.linalg's specs

--- The dtypes dlx.linalg's decompositions take, the real dtype of each (of its values' parts, its
-- norms and singular values) and the epsilon of those real ones, which the tolerances scale.
h.LINALG_DTYPES = { "float32", "float64", "complex64", "complex128" }
h.REAL_OF = { float32 = "float32", float64 = "float64", complex64 = "float32",
  complex128 = "float64" }
h.EPS = { float32 = 1.1920928955078125e-07, float64 = 2.220446049250313e-16 }

function h.is_complex(dtype) return dtype:sub(1, 7) == "complex" end

--- Normal random values of dtype from dlx's global generator (a complex dtype's imaginary parts
-- too).
function h.randn(shape, dtype)
  local t = dlx.randn(shape, { dtype = h.REAL_OF[dtype] })
  if h.is_complex(dtype) then
    t = dlx.add(t, dlx.mul(dlx.randn(shape, { dtype = h.REAL_OF[dtype] }), { re = 0, im = 1 }))
  end
  return t
end

--- The matrix product of a and b as a broadcast product summed over the shared dim: a reference
-- independent of dlx.matmul.
function h.mm(a, b) return dlx.mul(a:unsqueeze(-1), b:unsqueeze(-3)):sum(-2) end

--- The conjugate transpose of t's last two dims.
function h.adj(t)
  local tt = t:transpose(-2, -1)
  return h.is_complex(t.dtype) and tt:conj() or tt
end

--- The largest magnitude in t (0 when t is empty).
function h.maxabs(t)
  if t.numel == 0 then return 0 end
  return t:abs():max():item()
end

return h
