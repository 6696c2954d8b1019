--- The command line of the checks in tools/ (check_docs.lua, check_readme.lua,
-- check_includes.lua): `--name value` options read over defaults. A check loads it with
--   local options = dofile((arg[0]:match("^(.*/)") or "") .. "options.lua")
local M = {}

--- The root of this checkout: the folder above tools/ of the running script (arg[0]).
function M.root() return arg[0]:match("^(.*)/tools/[^/]*$") or "." end

--- Reads argv's `--name value` pairs into opts (the defaults) and returns it. Each name must be
-- one of `names`, and each needs a value: fail(msg) is called otherwise (it exits).
function M.parse(argv, opts, names, fail)
  local known = {}
  for _, name in ipairs(names) do known[name] = true end
  local i = 1
  while i <= #argv do
    local key = argv[i]:match("^%-%-(%w+)$")
    if not known[key] then fail("unknown argument " .. argv[i]) end
    if argv[i + 1] == nil then fail(argv[i] .. " needs a value") end
    opts[key] = argv[i + 1]
    i = i + 2
  end
  return opts
end

return M
