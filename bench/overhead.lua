--- bench/overhead.lua: the Lua side of the per-call overhead benchmark (bench/overhead.py drives
-- it and times NumPy in the same run). Reads lines "run CASE ITERATIONS" (the dlx call) or
-- "floor CASE ITERATIONS" (the same shape of call in bench_floor, bench/floor.c) on stdin and
-- answers with the CPU time per call in nanoseconds (os.clock around a loop with the call
-- inlined); "cases" lists the case names; "quit" ends. Run from the repository root with the
-- modules built:
--   lua5.4 bench/overhead.lua build-bench
local build = arg[1] or "build-bench"
package.path = "lua/?.lua;lua/?/init.lua;" .. package.path
package.cpath = build .. "/?.so;" .. package.cpath
local dlx = require "dlx"
local floor = require "bench_floor"

-- name, setup (locals the statement sees), statement, then the floor's setup and statement;
-- the same names as in overhead.py
local T16, U16 = "local t = dlx.zeros({16})", "local u = floor.new({16}, 0)"
local CASES = {
  { "from_dlpack_tensor", T16, "dlx.from_dlpack(t)", U16, "floor.alias(u)" },
  { "from_dlpack_capsule", T16, "dlx.from_dlpack(t:__dlpack{max_version = {1, 3}})",
    U16, "floor.import(floor.capsule(u, {max_version = {1, 3}}))" },
  { "export", T16, "t:__dlpack{max_version = {1, 3}}",
    U16, "floor.capsule(u, {max_version = {1, 3}})" },
  -- the options made once, as Python's max_version=(1, 3) is a constant
  { "export_hoisted", T16 .. "\nlocal o = {max_version = {1, 3}}", "t:__dlpack(o)",
    U16 .. "\nlocal o = {max_version = {1, 3}}", "floor.capsule(u, o)" },
  { "empty", "", "dlx.empty{16}", "", "floor.new{16}" },
  { "zeros", "", "dlx.zeros{16}", "", "floor.new({16}, 0)" },
  { "ones", "", "dlx.ones{16}", "", "floor.new({16}, 1)" },
  { "full", "", "dlx.full({16}, 2.5)", "", "floor.new({16}, 2.5)" },
  { "arange", "", "dlx.arange(16)", "", "floor.arange(16)" },
  { "tensor", "", "dlx.tensor{1, 2, 3, 4}", "", "floor.from_values{1, 2, 3, 4}" },
  { "empty_dtype", "", "dlx.empty({16}, {dtype = 'float64'})",
    "", "floor.new_opts({16}, {dtype = 'float64'})" },
  { "view", T16, "t:view{4, 4}", U16, "u:view{4, 4}" },
  { "shape", T16, "t.shape", U16, "u.shape" },
  { "sum", "local t = dlx.ones({16})", "t:sum()", "local u = floor.new({16}, 1)", "u:sum()" },
  { "add", "local a, b = dlx.ones({16}), dlx.ones({16})", "a + b",
    "local a, b = floor.new({16}, 1), floor.new({16}, 1)", "a + b" },
  { "is_tensor", T16, "dlx.is_tensor(t)", U16, "floor.is_tensor(u)" },
}

-- A function timing n runs of statement (inlined in the loop) after setup, in CPU seconds.
local function make_loop(name, setup, statement)
  local source = setup .. "\nreturn function(n)\n  local clock = os.clock\n"
    .. "  local c0 = clock()\n  for _ = 1, n do local _ = " .. statement .. " end\n"
    .. "  return clock() - c0\nend"
  return assert(load(source, "=" .. name, "t", { dlx = dlx, floor = floor, os = os }))()
end

local loops = { run = {}, floor = {} }
for _, case in ipairs(CASES) do
  local name = case[1]
  loops.run[name] = make_loop(name, case[2], case[3])
  loops.floor[name] = make_loop(name .. " (floor)", case[4], case[5])
end

io.stdout:setvbuf("line")
for line in io.lines() do
  local cmd, name, n = line:match("^(%S+)%s*(%S*)%s*(%d*)$")
  if cmd == "quit" then break end
  if cmd == "cases" then
    local names = {}
    for _, case in ipairs(CASES) do names[#names + 1] = case[1] end
    print(table.concat(names, " "))
  elseif loops[cmd] and loops[cmd][name] then
    n = tonumber(n)
    print(string.format("%.3f", loops[cmd][name](n) / n * 1e9))
  else
    print("error unknown command: " .. line)
  end
end
