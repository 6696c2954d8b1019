--- dlx_spec_runner: runs busted-style spec files inside dlx-runner, where busted itself (which
-- needs the C modules lfs, luasystem and lua-term) is not available. The subset busted's specs
-- use here: describe/context/insulate/expose, it/spec/test, pending, setup/teardown (and their
-- lazy_/strict_ forms), before_each/after_each, finally, luassert's assert, spy, stub and mock,
-- and tags written as #name in descriptions (--tags=a,b runs only what carries one of them,
-- --exclude-tags=a,b leaves out what carries one of them, as busted's options do).
-- Output is busted's plain terminal form; the exit status is 1 when anything failed.
local assert_module = require "luassert"
_G.assert = assert_module
_G.spy = require "luassert.spy"
_G.stub = require "luassert.stub"
_G.mock = require "luassert.mock"

local root = { name = "", children = {}, setup = {}, teardown = {}, before = {}, after = {} }
local current = root
local results = { success = 0, failure = 0, error = 0, pending = 0 }
local pendings, failures = {}, {}
local wanted_tags = nil -- set of tag names, or nil for every test
local excluded_tags = {} -- set of tag names whose tests do not run
local cleanups -- the running test's finally() functions

local function add_child(kind, name, fn)
  local node = { kind = kind, name = name, fn = fn, parent = current }
  current.children[#current.children + 1] = node
  return node
end

function _G.describe(name, fn)
  local node = add_child("describe", name, fn)
  node.children, node.setup, node.teardown, node.before, node.after = {}, {}, {}, {}, {}
  local outer = current
  current = node
  local ok, err = xpcall(fn, debug.traceback)
  current = outer
  if not ok then node.load_error = err end
end
_G.context, _G.insulate, _G.expose = _G.describe, _G.describe, _G.describe

function _G.it(name, fn)
  add_child("it", name, fn)
end
_G.spec, _G.test = _G.it, _G.it

function _G.pending(name)
  add_child("pending", name)
end

local function hook(list)
  return function(fn) current[list][#current[list] + 1] = fn end
end
_G.setup, _G.lazy_setup, _G.strict_setup = hook("setup"), hook("setup"), hook("setup")
_G.teardown, _G.lazy_teardown, _G.strict_teardown =
  hook("teardown"), hook("teardown"), hook("teardown")
_G.before_each, _G.after_each = hook("before"), hook("after")

function _G.finally(fn)
  cleanups[#cleanups + 1] = fn
end

local function full_name(node)
  local parts = {}
  while node and node ~= root do
    table.insert(parts, 1, node.name)
    node = node.parent
  end
  return table.concat(parts, " ")
end

local function selected(node)
  local wanted = wanted_tags == nil
  for tag in full_name(node):gmatch("#([%w_%-]+)") do
    if excluded_tags[tag] then return false end
    if wanted_tags and wanted_tags[tag] then wanted = true end
  end
  return wanted
end

local function report(status, node, message)
  results[status] = results[status] + 1
  io.write(({ success = "+", failure = "-", error = "*", pending = "." })[status])
  io.flush()
  if status == "pending" then
    pendings[#pendings + 1] = full_name(node)
  elseif status ~= "success" then
    failures[#failures + 1] = { status, full_name(node), message }
  end
end

local function run_hooks(list)
  for _, fn in ipairs(list) do
    local ok, err = xpcall(fn, debug.traceback)
    if not ok then return false, err end
  end
  return true
end

-- before_each hooks from the outermost describe in, after_each from the innermost out
local function each_hooks(node, field, outer_first)
  local describes, chain = {}, {}
  local d = node.parent
  while d do
    table.insert(describes, 1, d)
    d = d.parent
  end
  local first, last, step = 1, #describes, 1
  if not outer_first then first, last, step = #describes, 1, -1 end
  for i = first, last, step do
    for _, fn in ipairs(describes[i][field]) do chain[#chain + 1] = fn end
  end
  return chain
end

local function run_test(node)
  cleanups = {}
  local ok, err = run_hooks(each_hooks(node, "before", true))
  if ok then ok, err = xpcall(node.fn, debug.traceback) end
  local status = ok and "success" or "failure"
  for i = #cleanups, 1, -1 do pcall(cleanups[i]) end
  local after_ok, after_err = run_hooks(each_hooks(node, "after", false))
  if ok and not after_ok then status, err = "error", after_err end
  report(status, node, err)
end

local function count_selected(node)
  if node.kind ~= "describe" and node ~= root then return selected(node) and 1 or 0 end
  local n = 0
  for _, child in ipairs(node.children) do n = n + count_selected(child) end
  return n
end

local function run_describe(node)
  if node.load_error then
    report("error", node, node.load_error)
    return
  end
  if count_selected(node) == 0 then return end
  local ok, err = run_hooks(node.setup)
  for _, child in ipairs(node.children) do
    if child.kind == "describe" then
      if ok then run_describe(child) end
    elseif selected(child) then
      if not ok then
        report("error", child, "setup failed: " .. tostring(err))
      elseif child.kind == "pending" then
        report("pending", child)
      else
        run_test(child)
      end
    end
  end
  run_hooks(node.teardown)
end

local function load_spec(file)
  local chunk, err = loadfile(file)
  if not chunk then
    report("error", { name = file, parent = root }, err)
    return
  end
  current = root
  local ok, run_err = xpcall(chunk, debug.traceback)
  if not ok then report("error", { name = file, parent = root }, run_err) end
end

local files = {}
for _, a in ipairs { ... } do
  local tags = a:match("^%-%-tags=(.*)$")
  local excluded = a:match("^%-%-exclude%-tags=(.*)$")
  if tags then
    wanted_tags = {}
    for tag in tags:gmatch("[^,]+") do wanted_tags[tag] = true end
  elseif excluded then
    for tag in excluded:gmatch("[^,]+") do excluded_tags[tag] = true end
  else
    files[#files + 1] = a
  end
end
if #files == 0 then
  io.stderr:write("usage: dlx-runner --spec [--tags=a,b] [--exclude-tags=a,b] spec_files...\n")
  os.exit(2)
end

local started = os.time()
for _, file in ipairs(files) do load_spec(file) end
run_describe(root)
io.write("\n")
print(("%d successes / %d failures / %d errors / %d pending : %d seconds"):format(
  results.success, results.failure, results.error, results.pending, os.time() - started))
for _, name in ipairs(pendings) do print("\nPending -> " .. name) end
for _, f in ipairs(failures) do
  print(("\n%s -> %s\n%s"):format(f[1] == "failure" and "Failure" or "Error", f[2], tostring(f[3])))
end
os.exit(results.failure + results.error == 0 and 0 or 1, true)
