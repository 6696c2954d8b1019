--- bench/overhead.lua: the Lua side of the per-call overhead benchmark (bench/overhead.py drives
-- it and times NumPy in the same run). Reads lines "run CASE ITERATIONS" on stdin and answers
-- with the CPU time per call in nanoseconds (os.clock around a loop with the call inlined);
-- "cases" lists the case names; "quit" ends. Run from the repository root with the module built:
--   lua5.4 bench/overhead.lua build-bench
local build = arg[1] or "build-bench"
package.path = "lua/?.lua;lua/?/init.lua;" .. package.path
package.cpath = build .. "/?.so;" .. package.cpath
local dlx = require "dlx"

-- name, setup (locals the statement sees), statement; the same names as in overhead.py
local CASES = {
  { "from_dlpack_tensor", "local t = dlx.zeros({16})", "dlx.from_dlpack(t)" },
  { "from_dlpack_capsule", "local t = dlx.zeros({16})",
    "dlx.from_dlpack(t:__dlpack{max_version = {1, 3}})" },
  { "export", "local t = dlx.zeros({16})", "t:__dlpack{max_version = {1, 3}}" },
  { "empty", "", "dlx.empty{16}" },
  { "zeros", "", "dlx.zeros{16}" },
  { "ones", "", "dlx.ones{16}" },
  { "full", "", "dlx.full({16}, 2.5)" },
  { "arange", "", "dlx.arange(16)" },
  { "tensor", "", "dlx.tensor{1, 2, 3, 4}" },
  { "empty_dtype", "", "dlx.empty({16}, {dtype = 'float64'})" },
  { "view", "local t = dlx.zeros({16})", "t:view{4, 4}" },
  { "shape", "local t = dlx.zeros({16})", "t.shape" },
  { "sum", "local t = dlx.ones({16})", "t:sum()" },
}

local loops = {}
for _, case in ipairs(CASES) do
  local name, setup, statement = case[1], case[2], case[3]
  local source = setup .. "\nreturn function(n)\n  local clock = os.clock\n"
    .. "  local c0 = clock()\n  for _ = 1, n do local _ = " .. statement .. " end\n"
    .. "  return clock() - c0\nend"
  loops[name] = assert(load(source, "=" .. name, "t", { dlx = dlx, os = os }))()
end

io.stdout:setvbuf("line")
for line in io.lines() do
  local cmd, name, n = line:match("^(%S+)%s*(%S*)%s*(%d*)$")
  if cmd == "quit" then break end
  if cmd == "cases" then
    local names = {}
    for _, case in ipairs(CASES) do names[#names + 1] = case[1] end
    print(table.concat(names, " "))
  elseif cmd == "run" and loops[name] then
    n = tonumber(n)
    print(string.format("%.3f", loops[name](n) / n * 1e9))
  else
    print("error unknown command: " .. line)
  end
end
