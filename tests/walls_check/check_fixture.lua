--- tests/walls_check/check_fixture.lua LUA ROOT: runs tools/check_includes.lua of the tree ROOT
-- on this fixture (tests/walls_check) with the interpreter LUA, and checks that it exits 1 and
-- reports exactly the includes marked "wrong" in the fixture's files, by file and line.
local lua, root = arg[1], arg[2]
assert(lua and root, "usage: lua5.4 check_fixture.lua LUA ROOT")
local fixture = root .. "/tests/walls_check"

local function quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- "src/<path>:<line>" of every include marked wrong, as a set.
local function marked()
  local want = {}
  local list = assert(io.popen("cd " .. quote(fixture) .. " && find src -type f | sort"))
  for path in list:lines() do
    local n = 0
    for line in io.lines(fixture .. "/" .. path) do
      n = n + 1
      local include = line:match("^%s*#%s*include")
      if include and line:match("wrong") then want[path .. ":" .. n] = true end
    end
  end
  list:close()
  return want
end

local run = assert(io.popen(quote(lua) .. " " .. quote(root .. "/tools/check_includes.lua")
  .. " --root " .. quote(fixture)))
local output = run:read("a")
local _, _, status = run:close()
local want, problems = marked(), {}
if status ~= 1 then problems[#problems + 1] = "exit status " .. tostring(status) .. ", not 1" end
for place in output:gmatch("(src/[^:\n]+:%d+):") do
  if not want[place] then problems[#problems + 1] = "reported but not marked wrong: " .. place end
  want[place] = nil
end
for place in pairs(want) do problems[#problems + 1] = "marked wrong but not reported: " .. place end
io.write(output)
if #problems > 0 then
  table.sort(problems)
  print(table.concat(problems, "\n"))
  os.exit(1)
end
print("check_fixture: the walls check reports every include marked wrong, and nothing else")
