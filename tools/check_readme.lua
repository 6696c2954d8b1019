--- tools/check_readme.lua [--build DIR] [--readme FILE] [--preload LIB]: runs the code blocks of
-- README.md as a reader would, so that they stay true. Exits 1 with one line per problem.
--
-- ```lua blocks: the blocks of one "## " section run together, in order, in one Lua state, in
-- two ways: as one script, and line by line as the interactive lua5.4 runs lines pasted into it
-- (each line its own chunk, `return <line>` tried first, a line that is not complete joined
-- with the next; a `local` is gone on the next line). Each way runs in its own lua5.4 (this
-- script again, with --section N --mode script|lines), in a new temporary directory, started
-- from a shell that has run the section's ```sh blocks (in README.md, `eval "$(./scripts/env)"`)
-- or, for a section without any, `eval "$(./scripts/env)"`, with DLX_BUILD_DIR=DIR (default
-- build/): so the README's way to reach the build is checked too. --preload: LD_PRELOAD for
-- those lua5.4 processes only (a sanitizer runtime; see cmake/DlxDocs.cmake).
--
-- What a line prints is shown with "-->": `print(x)  --> 2` must print exactly "2". Comment-only
-- lines "--> ..." right below a line show the next lines it prints (one "-->" line per printed
-- line; after "-->" one space is dropped, the rest is exact). A line that prints without "-->"
-- is a problem too, so that every result a reader sees in a block is checked. Plain "--"
-- comments are prose, not checked.
--
-- ```sh blocks run with `bash -e` in the root of this checkout, stdin empty and DLX_BUILD_DIR
-- set, alone and before the Lua blocks of their section (above), unless a command matches SKIP
-- below (installs, downloads, builds of all of dlx): those are listed with the reason.
local USAGE = "usage: lua5.4 tools/check_readme.lua [--build DIR] [--readme FILE] [--preload LIB]"

local options = dofile((arg[0]:match("^(.*/)") or "") .. "options.lua")
-- Commands a test must not run, each with the reason printed when a block is skipped.
local SKIP = {
  { "apt%-get", "installs Debian packages" },
  { "sudo", "runs as root" },
  { "scripts/tour", "installs what is missing with apt-get (ctest example.tour runs the tour)" },
  { "scripts/test", "installs what is missing with apt-get, then runs all of ctest (this test)" },
  { "^%s*busted", "runs the specs (ctest busted)" },
  { "luarocks.* install", "downloads dlx from luarocks.org" },
  { "luarocks.* make", "builds all of dlx again (CI's luarocks step, .ci/run)" },
  { "cmake %-%-install", "installs dlx (the install.* tests install into the build directory)" },
}

local function fail_usage(msg)
  io.stderr:write("check_readme: ", msg, "\n", USAGE, "\n")
  os.exit(2)
end

-- Single quotes for /bin/sh.
local function quote(s)
  return "'" .. s:gsub("'", "'\\''") .. "'"
end

local function parse_args(argv)
  local root = options.root()
  local defaults = { root = root, build = root .. "/build", readme = root .. "/README.md" }
  return options.parse(argv, defaults, { "build", "readme", "preload", "section", "mode" },
    fail_usage)
end

-- The fenced code blocks of a Markdown file: {lang, first (the line of its first code line),
-- lines, section (the text of the "## " heading above it)}. Only unindented fences.
local function read_blocks(path)
  local f = io.open(path, "r")
  if not f then fail_usage("cannot read " .. path) end
  local blocks, block, section, n = {}, nil, "", 0
  for line in f:lines() do
    n = n + 1
    if block then
      if line:match("^```%s*$") then
        blocks[#blocks + 1] = block
        block = nil
      else
        block.lines[#block.lines + 1] = line
      end
    else
      local lang = line:match("^```%s*(%w*)")
      if lang then
        if lang == "bash" or lang == "shell" then lang = "sh" end
        block = { lang = lang, first = n + 1, lines = {}, section = section }
      elseif line:match("^##%s") then
        section = line:match("^##%s+(.-)%s*$")
      end
    end
  end
  f:close()
  return blocks
end

-- The Lua sections: {name, blocks} in README order, each with its ```lua blocks.
local function lua_sections(blocks)
  local sections, by_name = {}, {}
  for _, b in ipairs(blocks) do
    if b.lang == "lua" then
      local s = by_name[b.section]
      if not s then
        s = { name = b.section, blocks = {} }
        by_name[b.section] = s
        sections[#sections + 1] = s
      end
      s.blocks[#s.blocks + 1] = b
    end
  end
  return sections
end

-- ---- one section in this process (--section N --mode script|lines) ---------------------------

-- What the lines of a section show with "-->": README line -> the expected text (lines joined
-- with "\n"). add(n, problem) for a "-->" line with no code line above it.
local function shown_results(section, add)
  local shown = {}
  for _, b in ipairs(section.blocks) do
    local owner -- the code line that "-->"-only lines below belong to
    for i, line in ipairs(b.lines) do
      local n = b.first + i - 1
      -- "-->" starts the line's comment only when no "--" comes before it
      local code, text = line:match("^(.-)%-%->%s?(.-)%s*$")
      if code and code:find("--", 1, true) then code = nil end
      if code and code:match("^%s*$") then
        if owner then
          shown[owner] = (shown[owner] and shown[owner] .. "\n" or "") .. text
        else
          add(n, "a --> line with no code line above it")
        end
      elseif code then
        shown[n] = text
        owner = n
      elseif line:match("^%s*%-%-") or line:match("^%s*$") then
        owner = nil
      else
        owner = n
      end
    end
  end
  return shown
end

local function run_section(opts)
  local blocks = read_blocks(opts.readme)
  local section = lua_sections(blocks)[tonumber(opts.section)]
  if not section then fail_usage("no Lua section " .. opts.section) end
  local mode = opts.mode
  -- The file's own name, short enough that Lua never cuts it in messages ("...me.md:12:").
  local name = opts.readme:match("[^/]*$")
  local chunkname = "@" .. name
  local function line_of(err)
    return tonumber(tostring(err):match(name:gsub("%p", "%%%0") .. ":(%d+):")) or 1
  end
  local function where(n)
    return ("%s:%d: (%s) "):format(opts.readme, n, mode == "lines" and "line by line" or "script")
  end

  -- print records what each README line printed: the line print was called from, else (a tail
  -- call, as in `return print(x)`, leaves no caller) the line that runs now, line by line.
  local printed = {}
  local running -- the README line of the chunk that runs now, line by line
  local real_print = print
  print = function(...) -- luacheck: ignore 121
    local parts = {}
    for i = 1, select("#", ...) do parts[i] = tostring((select(i, ...))) end
    local text = table.concat(parts, "\t")
    local info = debug.getinfo(2, "Sl")
    local n = info and info.source == chunkname and info.currentline or running
    if n then printed[n] = (printed[n] and printed[n] .. "\n" or "") .. text end
    real_print(text)
  end

  -- Problems, {line, order found, text}, printed by line.
  local problems = {}
  local function add(n, text)
    problems[#problems + 1] = { n, #problems, where(n) .. text }
  end
  local shown = shown_results(section, add)
  local stopped_at = math.huge -- a script stops at its first error
  -- The error without its line number (where(n) gives it) and without the frames of this file.
  local function report(n, err)
    err = tostring(err):gsub("^" .. name:gsub("%p", "%%%0") .. ":%d+: ", "")
    err = err:gsub("\n%s*%[C%]: in function 'xpcall'.*", "")
    add(n, (err:gsub("\n", "\n    ")))
  end

  if mode == "script" then
    -- One chunk in which README line n is line n: the other lines are left empty.
    local lines, last = {}, 0
    for _, b in ipairs(section.blocks) do
      for i, line in ipairs(b.lines) do
        lines[b.first + i - 1] = line
        last = b.first + i - 1
      end
    end
    for n = 1, last do lines[n] = lines[n] or "" end
    local f, err = load(table.concat(lines, "\n"), chunkname, "t")
    if not f then
      local n = line_of(err)
      report(n, err)
      stopped_at = n
    else
      local ok, msg = xpcall(f, debug.traceback)
      if not ok then
        local n = line_of(msg)
        report(n, msg)
        stopped_at = n
      end
    end
  elseif mode == "lines" then
    -- As lua.c's REPL: "return <line>;" first, else the line; while the error is at <eof>, the
    -- line is incomplete and the next one is added. Newlines in front keep the README's line
    -- numbers. The values of an expression line are printed, as lua.c does, but not recorded.
    for _, b in ipairs(section.blocks) do
      local i = 1
      while i <= #b.lines do
        local n = b.first + i - 1
        local pad = ("\n"):rep(n - 1)
        local buffer = b.lines[i]
        local f = load("return " .. pad .. buffer .. ";", chunkname, "t")
        local err
        while not f do
          f, err = load(pad .. buffer, chunkname, "t")
          if f or not err:match("<eof>$") or i == #b.lines then break end
          i = i + 1
          buffer = buffer .. "\n" .. b.lines[i]
        end
        if not f then
          report(n, err)
        else
          running = n
          local results = table.pack(xpcall(f, debug.traceback))
          running = nil
          if not results[1] then
            report(n, results[2])
          elseif results.n > 1 then
            real_print(table.unpack(results, 2, results.n))
          end
        end
        i = i + 1
      end
    end
  else
    fail_usage("--mode is script or lines")
  end
  print = real_print -- luacheck: ignore 121

  local function show(text)
    return '"' .. text:gsub("\n", "\\n") .. '"'
  end
  local lines = {}
  for n in pairs(shown) do lines[#lines + 1] = n end
  for n in pairs(printed) do
    if not shown[n] then lines[#lines + 1] = n end
  end
  table.sort(lines)
  for _, n in ipairs(lines) do
    if n < stopped_at then
      local want, got = shown[n], printed[n]
      if want == nil then
        add(n, "prints " .. show(got) .. " but shows no --> comment")
      elseif want ~= got then
        add(n, (got and "prints " .. show(got) or "prints nothing") .. ", the --> comment shows "
          .. show(want))
      end
    end
  end
  table.sort(problems, function(a, b) return a[1] < b[1] or a[1] == b[1] and a[2] < b[2] end)
  for _, p in ipairs(problems) do real_print(p[3]) end
  return #problems == 0 and 0 or 1
end

-- ---- the whole README --------------------------------------------------------------------------

-- The reasons (from SKIP) not to run a sh block, or nil to run it.
local function skip_reasons(block)
  local reasons, seen = {}, {}
  for _, line in ipairs(block.lines) do
    local command = line:gsub("%s#.*$", "") -- the command, not its comment
    for _, rule in ipairs(SKIP) do
      if command:match(rule[1]) and not seen[rule] then
        seen[rule] = true
        reasons[#reasons + 1] = rule[2]
      end
    end
  end
  return #reasons > 0 and reasons or nil
end

-- path made absolute, from the current directory.
local function absolute(path)
  if path:match("^/") then return path end
  local pipe = assert(io.popen("pwd"))
  local dir = pipe:read("l")
  pipe:close()
  return dir .. "/" .. path
end

local function execute(command)
  local ok, how, code = os.execute(command)
  return ok == true, how == "exit" and code or -1
end

local function check_all(opts)
  local blocks = read_blocks(opts.readme)
  local problems = {}
  local root = absolute(opts.root)
  local build = absolute(opts.build)

  -- sh blocks, in the root of the checkout; those a test may run are kept by section.
  local shell_of = {} -- section -> the text of its sh blocks that run
  for _, b in ipairs(blocks) do
    if b.lang == "sh" then
      local reasons = skip_reasons(b)
      if reasons then
        print(("%s:%d: sh block skipped: %s"):format(opts.readme, b.first,
          table.concat(reasons, "; ")))
      else
        print(("%s:%d: sh block:"):format(opts.readme, b.first))
        local text = table.concat(b.lines, "\n")
        shell_of[b.section] = (shell_of[b.section] or "") .. text .. "\n"
        local ok, code = execute(("cd %s && DLX_BUILD_DIR=%s bash -e -c %s </dev/null"):format(
          quote(root), quote(build), quote(text)))
        if not ok then
          problems[#problems + 1] = ("%s:%d: the sh block fails (exit status %d)"):format(
            opts.readme, b.first, code)
        end
      end
    end
  end

  -- Lua sections, each in two fresh lua5.4 processes started from a shell that has run the
  -- section's sh blocks first, as a reader does (`eval "$(./scripts/env)"`, then lua5.4), or
  -- `eval "$(./scripts/env)"` when it has none; in a new temporary directory. (Run alone, above,
  -- a block such as `eval "$(./scripts/env)"` passes even when scripts/env fails.)
  local sections = lua_sections(blocks)
  if #sections == 0 then problems[#problems + 1] = opts.readme .. ": no ```lua blocks" end
  local tmp_pipe = assert(io.popen("mktemp -d"))
  local tmp = tmp_pipe:read("l")
  tmp_pipe:close()
  local lua = arg[-1]
  local script = absolute(arg[0])
  local readme = absolute(opts.readme)
  for i, s in ipairs(sections) do
    local shell = shell_of[s.name] or 'eval "$(./scripts/env)"\n'
    for _, mode in ipairs({ "script", "lines" }) do
      print(("%s: the Lua blocks of \"%s\" (%s):"):format(opts.readme, s.name,
        mode == "lines" and "line by line" or "as one script"))
      local dir = ("%s/%d-%s"):format(tmp, i, mode)
      local preload = opts.preload and ("LD_PRELOAD=" .. quote(opts.preload) .. " ") or ""
      local command = ("set -e\ncd %s\nexport DLX_BUILD_DIR=%s\n{\n%s} </dev/null\nmkdir %s\n"
        .. "cd %s\n%sexec %s %s --readme %s --section %d --mode %s"):format(quote(root),
        quote(build), shell, quote(dir), quote(dir), preload, quote(lua), quote(script),
        quote(readme), i, mode)
      local ok = execute("bash -c " .. quote(command))
      if not ok then
        problems[#problems + 1] = ("%s: the Lua blocks of \"%s\" fail (%s), see above"):format(
          opts.readme, s.name, mode == "lines" and "line by line" or "as one script")
      end
    end
  end
  execute("rm -rf " .. quote(tmp))

  if #problems > 0 then
    for _, p in ipairs(problems) do print(p) end
    print(("check_readme: %d problem(s) in %s"):format(#problems, opts.readme))
    return 1
  end
  print(("check_readme: every block of %s runs as shown"):format(opts.readme))
  return 0
end

local opts = parse_args(arg)
if opts.section then
  os.exit(run_section(opts), true)
end
os.exit(check_all(opts), true)
