--- tools/check_includes.lua [--root DIR]: the walls between dlx's layers (docs/architecture.md,
-- "The walls"). Every `#include` of a C, CUDA or OpenCL file under DIR/src (default: this tree)
-- may name only the folders its layer may reach; an include that crosses a wall the wrong way
-- is printed, one line each ("file:line: ..."), and the exit status is 1.
--
-- A file's layer is its folder under src/ (src/ze/kernels, the OpenCL C kernels, and the CUDA
-- kernels, src/cuda/*.cu, are layers of their own: kernel code sees no core). An include names
-- a layer by its first folder ("core/tensor.h"); one without a folder is a public header of
-- include/ ("dlx.h", "dlx_errclass.h", "dlpack/dlpack.h" has the folder dlpack/, not a layer).
-- Lua's headers and dlx.h (which includes lua.h) are Lua: only the binding and src/hosts may
-- include them.
--
-- Inside the layers marked `acyclic` (the binding, src/lua), the includes must also form no
-- circle. A file and the header of the same name are one node there (lua/tensor.c and
-- lua/tensor.h are lua/tensor), so that a circle through the files that use each other is seen
-- even when no header includes another: tensor.c including indexing.h while indexing.c includes
-- tensor.h is a circle. Every include on a circle is printed, with the circle it closes.
local USAGE = "usage: lua5.4 tools/check_includes.lua [--root DIR]"
local options = dofile((arg[0]:match("^(.*/)") or "") .. "options.lua")

-- What each layer may include (folders under src/; ze/kernels counts as its own folder), and
-- why the others are shut. lua: whether it may include Lua's headers and dlx.h.
local BACKEND_WHY = "a backend reaches the core and src/common only, never another backend, "
  .. "the list of backends or the binding"
local WALLS = {
  core = { may = { "core", "common" },
    why = "the core reaches backends only through core/backend.h's table and knows no Lua" },
  common = { may = { "common" },
    why = "src/common holds element rules for every kernel language and includes nothing else" },
  cpu = { may = { "cpu", "core", "common" }, why = BACKEND_WHY },
  cuda = { may = { "cuda", "core", "common" }, why = BACKEND_WHY },
  ze = { may = { "ze", "ze/kernels", "core", "common" }, why = BACKEND_WHY },
  ["ze/kernels"] = { may = { "ze/kernels", "common" },
    why = "the OpenCL kernels include src/common and their own headers and shims, not the core" },
  ["cuda kernels"] = { may = { "cuda", "common" },
    why = "the CUDA kernels include src/common and their backend's headers, not the core" },
  backends = { may = { "backends", "core" },
    why = "the list of backends names their tables (builtin.h), not their headers" },
  lua = { may = { "lua", "core" }, lua = true, acyclic = true,
    why = "the binding reaches backends only through the core's table and registry" },
  hosts = { may = { "hosts", "core" }, lua = true,
    why = "the glue for hosts reaches backends only through the core's table and registry" },
}

-- Lua's headers, and the public header that includes them.
local LUA_HEADERS = { ["lua.h"] = true, ["lauxlib.h"] = true, ["lualib.h"] = true,
  ["luaconf.h"] = true, ["dlx.h"] = true }

local function fail_usage(msg)
  io.stderr:write("check_includes: ", msg, "\n", USAGE, "\n")
  os.exit(2)
end

local function parse_args(argv)
  return options.parse(argv, { root = options.root() }, { "root" }, fail_usage)
end

-- The layer of a file given by its path under src/ ("core/ops.c"), or nil outside the layers.
local function layer_of(path)
  if path:match("^ze/kernels/") then return "ze/kernels" end
  if path:match("^cuda/.*%.cu$") then return "cuda kernels" end
  local folder = path:match("^([^/]+)/")
  return folder ~= nil and WALLS[folder] ~= nil and folder or nil
end

-- The layer an include names ("cpu", "ze/kernels"), or nil for a public or system header.
local function named_layer(name)
  if name:match("^ze/kernels/") then return "ze/kernels" end
  local folder = name:match("^([^/]+)/")
  return folder ~= nil and WALLS[folder] ~= nil and folder or nil
end

-- A file's node in the graph of includes: its path under src/ without the extension, so that a
-- file and the header of the same name are one ("lua/tensor").
local function node_of(path)
  return (path:gsub("%.[^./]*$", ""))
end

local function may_include(layer, target)
  for _, allowed in ipairs(WALLS[layer].may) do
    if target == allowed then return true end
  end
  return false
end

-- The problem with one include of a file of `layer`, or nil.
local function check_include(layer, delimiter, name)
  local wall = WALLS[layer]
  if LUA_HEADERS[name] and not wall.lua then
    return ("%s includes %s, which is Lua: only the binding (src/lua) and src/hosts see Lua's "
      .. "headers"):format(layer, delimiter == "<" and "<" .. name .. ">" or '"' .. name .. '"')
  end
  local target = delimiter == '"' and named_layer(name) or nil
  if target == nil or may_include(layer, target) then return nil end
  return ('%s includes "%s": %s'):format(layer, name, wall.why)
end

-- Every file of src/ with C, CUDA or OpenCL code, as paths under src/, sorted.
local function source_files(src)
  local list = assert(io.popen("cd '" .. src:gsub("'", "'\\''") .. "' && find . -type f " ..
    "\\( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cl' -o -name '*.cpp' \\) | sort"))
  local files = {}
  for path in list:lines() do files[#files + 1] = path:gsub("^%./", "") end
  list:close()
  return files
end

-- Checks the includes of one file against its layer's walls; records the includes of a file of
-- an acyclic layer that name the same layer, as edges of its graph: { from =, to =, place = }.
local function check_file(src, path, problems, edges)
  local layer = layer_of(path)
  if layer == nil then return end
  local n = 0
  for line in io.lines(src .. "/" .. path) do
    n = n + 1
    local delimiter, name = line:match('^%s*#%s*include%s*([<"])([^>"]+)[>"]')
    if delimiter then
      local place = ("src/%s:%d"):format(path, n)
      local problem = check_include(layer, delimiter, name)
      if problem then problems[#problems + 1] = place .. ": " .. problem end
      if WALLS[layer].acyclic and delimiter == '"' and named_layer(name) == layer then
        edges[#edges + 1] = { from = node_of(path), to = node_of(name), place = place }
      end
    end
  end
end

-- The strongly connected components of the graph of edges (Tarjan's algorithm), as a table
-- node -> component number; nodes are visited in sorted order, so the numbers are stable.
local function components(edges)
  local next_of, nodes, seen = {}, {}, {}
  for _, e in ipairs(edges) do
    if e.from ~= e.to then
      next_of[e.from] = next_of[e.from] or {}
      table.insert(next_of[e.from], e.to)
    end
    for _, v in ipairs({ e.from, e.to }) do
      if not seen[v] then seen[v], nodes[#nodes + 1] = true, v end
    end
  end
  table.sort(nodes)
  local index, low, on_stack, stack, component = {}, {}, {}, {}, {}
  local counter, count = 0, 0
  local function visit(v)
    counter = counter + 1
    index[v], low[v] = counter, counter
    stack[#stack + 1], on_stack[v] = v, true
    for _, w in ipairs(next_of[v] or {}) do
      if index[w] == nil then
        visit(w)
        low[v] = math.min(low[v], low[w])
      elseif on_stack[w] then
        low[v] = math.min(low[v], index[w])
      end
    end
    if low[v] == index[v] then
      count = count + 1
      repeat
        local w = table.remove(stack)
        on_stack[w], component[w] = nil, count
      until w == v
    end
  end
  for _, v in ipairs(nodes) do
    if index[v] == nil then visit(v) end
  end
  return component, next_of
end

-- The circle that the edge from -> to closes, as "from -> to -> ... -> from": the shortest way
-- from `to` back to `from` inside their component.
local function circle_text(next_of, component, from, to)
  local previous, queue, head = { [to] = to }, { to }, 1
  while previous[from] == nil and head <= #queue do
    local v = queue[head]
    head = head + 1
    for _, w in ipairs(next_of[v] or {}) do
      if previous[w] == nil and component[w] == component[from] then
        previous[w] = v
        queue[#queue + 1] = w
      end
    end
  end
  local path, v = { from }, from
  while v ~= to do
    v = previous[v]
    table.insert(path, 1, v)
  end
  table.insert(path, 1, from)
  return table.concat(path, " -> ")
end

-- Every include on a circle of an acyclic layer, as a problem.
local function check_circles(edges, problems)
  local component, next_of = components(edges)
  for _, e in ipairs(edges) do
    if e.from ~= e.to and component[e.from] == component[e.to] then
      problems[#problems + 1] = ("%s: %s includes %s, which closes a circle of includes: %s "
        .. "(a file may use only the files below it)"):format(e.place, e.from, e.to,
        circle_text(next_of, component, e.from, e.to))
    end
  end
end

local function main(argv)
  local opts = parse_args(argv)
  local src = opts.root .. "/src"
  local files = source_files(src)
  if #files == 0 then fail_usage("no C, CUDA or OpenCL files under " .. src) end
  local problems, edges = {}, {}
  for _, path in ipairs(files) do check_file(src, path, problems, edges) end
  check_circles(edges, problems)
  for _, line in ipairs(problems) do print(line) end
  if #problems > 0 then
    print(("check_includes: %d include(s) cross a wall the wrong way or close a circle, in %s")
      :format(#problems, src))
    return 1
  end
  local acyclic = {}
  for layer, wall in pairs(WALLS) do
    if wall.acyclic then acyclic[#acyclic + 1] = "src/" .. layer end
  end
  table.sort(acyclic)
  print(("check_includes: %d files of %s, each including only what its layer may, and no "
    .. "circle of includes in %s"):format(#files, src, table.concat(acyclic, ", ")))
  return 0
end

os.exit(main(arg), true)
