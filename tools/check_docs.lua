--- tools/check_docs.lua [--build DIR] [--docs DIR] [--header FILE] [--backend FILE]
-- [--contract FILE]: every function a Lua user can reach from require "dlx", and every function
-- declared in include/dlx.h, has a heading in the Markdown files of docs/, and every such heading
-- names a function that exists; and every entry of the backend table (struct dlx_backend of
-- src/core/backend.h) has a row in the table of docs/architecture.md's section "The backend
-- contract", and every name in backticks in that table's first column is an entry. Exits 1 with
-- one line per problem otherwise.
--
-- A heading names a function when its text (backticks aside) starts with a name directly
-- followed by "(": `### dlx.zeros(shape[, opts])`, `### t:view(shape)`, `### s:use(fn, ...)`,
-- `### dlx_push_capsule(L, mt)`. Other headings are prose and are not checked.
--
-- The Lua side is found at run time, so that a new function cannot slip by: the dlx table and
-- its sub-tables (dlx.cuda, ...), and the methods of every dlx object type, read from the
-- metatables that dlx registers (dlx.Tensor, dlx.Stream, ...) and checked against the
-- metatables of real objects: it loads lua/ of this tree and dlx/core.so of the build directory
-- (default build/; ctest passes its own, see cmake/DlxDocs.cmake).
local USAGE = "usage: lua5.4 tools/check_docs.lua [--build DIR] [--docs DIR] [--header FILE] "
  .. "[--backend FILE] [--contract FILE]"
local options = dofile((arg[0]:match("^(.*/)") or "") .. "options.lua")
local CONTRACT_HEADING = "## The backend contract"

-- How the docs write the receiver of each object type's methods: t:view(...), s:use(...).
local RECEIVERS = {
  ["dlx.Tensor"] = "t",
  ["dlx.Stream"] = "s",
  ["dlx.Device"] = "dev",
  ["dlx.Capsule"] = "c",
}

local function fail_usage(msg)
  io.stderr:write("check_docs: ", msg, "\n", USAGE, "\n")
  os.exit(2)
end

local function parse_args(argv)
  local root = options.root()
  return options.parse(argv, { root = root, build = root .. "/build", docs = root .. "/docs",
    header = root .. "/include/dlx.h", backend = root .. "/src/core/backend.h",
    contract = root .. "/docs/architecture.md" },
    { "build", "docs", "header", "backend", "contract" }, fail_usage)
end

local function read_file(path)
  local f, err = io.open(path, "r")
  if not f then fail_usage("cannot read " .. err) end
  local text = f:read("a")
  f:close()
  return text
end

-- ---- the Lua side ---------------------------------------------------------------------------

-- The method table of a dlx metatable: its __index when that is a table, the table a C __index
-- closure reads first (upvalue 1, as dlx.Tensor's does), or its `methods` field (dlx.Stream).
local function methods_of(mt)
  if type(mt.__index) == "table" then return mt.__index end
  if type(mt.__index) == "function" then
    local _, up = debug.getupvalue(mt.__index, 1)
    if type(up) == "table" then return up end
  end
  if type(mt.methods) == "table" then return mt.methods end
  return nil
end

-- The metatables dlx registered (registry entries named "dlx.*"), name -> metatable.
local function dlx_metatables()
  local found = {}
  for key, value in pairs(debug.getregistry()) do
    if type(key) == "string" and key:match("^dlx%.%u") and type(value) == "table"
        and value.__name == key then
      found[key] = value
    end
  end
  return found
end

-- Real objects of each type that can be made on any machine: their metatables must be among
-- the registered ones, so that the walk below sees what a user sees.
local function check_real_objects(dlx, metatables, problems)
  local t = dlx.zeros({ 2 })
  local real = {
    tensor = t,
    device = dlx.device("cpu"),
    capsule = t:__dlpack(),
  }
  for what, object in pairs(real) do
    local mt = getmetatable(object)
    if mt == nil or metatables[mt.__name] ~= mt then
      problems[#problems + 1] = ("a %s's metatable is not a registered dlx metatable"):format(what)
    end
  end
end

-- Every function reachable from require "dlx", as the docs name them, into the set `names`.
local function lua_functions(opts, problems)
  package.path = ("%s/lua/?.lua;%s/lua/?/init.lua;"):format(opts.root, opts.root) .. package.path
  package.cpath = opts.build .. "/?.so;" .. package.cpath
  local dlx = require "dlx"
  local names = {}
  local metatables = dlx_metatables()
  check_real_objects(dlx, metatables, problems)

  local method_tables = {} -- method table -> receiver
  for name, mt in pairs(metatables) do
    local methods = methods_of(mt)
    if methods ~= nil then
      local receiver = RECEIVERS[name]
      if receiver == nil then
        problems[#problems + 1] = ("dlx registers a new object type %s: give it a receiver "
          .. "name in RECEIVERS of tools/check_docs.lua"):format(name)
      else
        method_tables[methods] = receiver
        for key, value in pairs(methods) do
          if type(value) == "function" then names[receiver .. ":" .. key] = true end
        end
      end
    end
  end

  local seen = {}
  local function walk(tbl, prefix)
    seen[tbl] = true
    for key, value in pairs(tbl) do
      local name = prefix .. tostring(key)
      if type(value) == "function" then
        names[name] = true
      elseif type(value) == "table" and not seen[value] and not method_tables[value] then
        walk(value, name .. ".")
      end
    end
  end
  walk(dlx, "dlx.")
  return names
end

-- ---- the C side -----------------------------------------------------------------------------

-- The functions declared or defined at file scope in a C header, into a set.
local function c_functions(header)
  local text = read_file(header)
  text = text:gsub("/%*.-%*/", " "):gsub("//[^\n]*", "")
  text = text:gsub("\n%s*#[^\n]*", "\n"):gsub('extern%s+"C"%s*{', "")
  local names, depth, statement = {}, 0, {}
  local function finish()
    local s = table.concat(statement)
    statement = {}
    if depth ~= 0 or s:match("^%s*typedef") then return end
    -- a type (words and stars) then the name, directly before "("
    local name = s:match("^%s*[%w_%s%*]-[%s%*]([%a_][%w_]*)%s*%(")
    if name then names[name] = true end
  end
  for c in text:gmatch(".") do
    if c == ";" then
      finish()
    elseif c == "{" then
      finish()
      depth = depth + 1
    elseif c == "}" then
      statement = {}
      depth = math.max(depth - 1, 0)
    else
      statement[#statement + 1] = c
    end
  end
  return names
end

-- ---- the backend contract ---------------------------------------------------------------------

-- The entries of struct dlx_backend in a C header, name -> true: function pointers by their
-- (*name), other members by their last word.
local function backend_entries(header)
  local text = read_file(header):gsub("/%*.-%*/", " "):gsub("//[^\n]*", "")
  local body = text:match("typedef%s+struct%s+dlx_backend%s*(%b{})%s*dlx_backend%s*;")
  local entries = {}
  if body == nil then return nil end
  for member in body:sub(2, -2):gmatch("[^;]+") do
    local name = member:match("%(%s*%*%s*([%a_][%w_]*)%s*%)") or member:match("([%a_][%w_]*)%s*$")
    if name then entries[name] = true end
  end
  return entries
end

-- The names in backticks in the first column of the first table after the contract's heading,
-- name -> "file:line"; nil when there is no such table.
local function contract_rows(path)
  local rows, n, in_section, in_table = {}, 0, false, false
  for line in io.lines(path) do
    n = n + 1
    if line:match("^#") then
      if in_table then break end
      in_section = line == CONTRACT_HEADING
    elseif in_section and line:match("^|") then
      in_table = true
      local first = line:match("^|([^|]*)|")
      for name in first:gmatch("`([%a_][%w_]*)`") do
        rows[name] = rows[name] or (path .. ":" .. n)
      end
    elseif in_table then
      break
    end
  end
  return in_table and rows or nil
end

-- Entries without a row, and rows that name no entry, as lines.
local function check_contract(opts)
  local entries = backend_entries(opts.backend)
  local rows = contract_rows(opts.contract)
  local lines = {}
  if entries == nil then return { "no struct dlx_backend in " .. opts.backend }, 0 end
  if rows == nil then
    return { ("no table under '%s' in %s"):format(CONTRACT_HEADING, opts.contract) }, 0
  end
  local count = 0
  for name in pairs(entries) do
    count = count + 1
    if not rows[name] then
      lines[#lines + 1] = ("backend entry without a row in the contract: %s"):format(name)
    end
  end
  for name, where in pairs(rows) do
    if not entries[name] then
      lines[#lines + 1] = ("contract row names no backend entry: %s (%s)"):format(name, where)
    end
  end
  table.sort(lines)
  return lines, count
end

-- ---- the docs -------------------------------------------------------------------------------

-- name -> "file:line" of every heading that names a function, in every .md file of dir.
local function doc_headings(dir)
  local headings = {}
  local list = assert(io.popen("find '" .. dir:gsub("'", "'\\''") .. "' -name '*.md' | sort"))
  for path in list:lines() do
    local n = 0
    local in_code = false
    for line in io.lines(path) do
      n = n + 1
      if line:match("^%s*```") then in_code = not in_code end
      local text = not in_code and line:match("^#+%s+(.-)%s*$")
      if text then
        local name = text:gsub("`", ""):match("^([%a_][%w_%.:]*)%(")
        if name then headings[name] = headings[name] or (path .. ":" .. n) end
      end
    end
  end
  list:close()
  return headings
end

-- ---- main -----------------------------------------------------------------------------------

local function main(argv)
  local opts = parse_args(argv)
  local problems = {}
  local wanted = lua_functions(opts, problems)
  local lua_count, c_count = 0, 0
  for _ in pairs(wanted) do lua_count = lua_count + 1 end
  for name in pairs(c_functions(opts.header)) do
    wanted[name] = true
    c_count = c_count + 1
  end
  local headings = doc_headings(opts.docs)

  local lines = {}
  for name in pairs(wanted) do
    if not headings[name] then lines[#lines + 1] = "missing heading: " .. name end
  end
  table.sort(lines)
  local dangling = {}
  for name, where in pairs(headings) do
    if not wanted[name] then
      dangling[#dangling + 1] = ("heading names nothing: %s (%s)"):format(name, where)
    end
  end
  table.sort(dangling)
  table.sort(problems)
  local contract, entry_count = check_contract(opts)
  for _, list in ipairs({ problems, dangling, contract }) do
    for _, line in ipairs(list) do lines[#lines + 1] = line end
  end

  if #lines > 0 then
    for _, line in ipairs(lines) do print(line) end
    print(("check_docs: %d problem(s) between %s, %s, %s, %s and the dlx module"):format(#lines,
      opts.docs, opts.header, opts.backend, opts.contract))
    return 1
  end
  print(("check_docs: %d Lua and %d C functions, each with its heading in %s; %d backend "
    .. "entries, each with its row in %s"):format(lua_count, c_count, opts.docs, entry_count,
    opts.contract))
  return 0
end

os.exit(main(arg), true)
