--- The temporaries loop, dlx's side (bench/temporaries.py runs it as a child process):
--   lua5.4 bench/temporaries.lua N SIZE
-- makes x = SIZE float32 ones, runs `r[i] = x:astype("float64"):sum()` N times, and prints the
-- loop's CPU time in seconds and the peak RSS in KiB before the loop (VmHWM; -1 where
-- /proc/self/status is missing).
local dlx = require "dlx"

local n, size = tonumber(arg[1]), tonumber(arg[2])
assert(n and size, "usage: lua5.4 bench/temporaries.lua N SIZE")

local function peak_kib()
  local f = io.open("/proc/self/status")
  if not f then return -1 end
  local text = f:read("a")
  f:close()
  return tonumber(text:match("VmHWM:%s*(%d+)")) or -1
end

local x = dlx.ones(size)
local before = peak_kib()
local r = {}
local t0 = os.clock()
for i = 1, n do r[i] = x:astype("float64"):sum() end
local cpu = os.clock() - t0
assert(n == 0 or r[n]:item() == size, "wrong sum")
io.write(("%.6f %d\n"):format(cpu, before))
