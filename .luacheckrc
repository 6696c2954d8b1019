-- luacheck (Debian's lua-check) for lua/, spec/, examples/ and tools/:
-- `luacheck lua spec examples tools`.
std = "lua54"
max_line_length = 100
codes = true -- show warning codes, so that an inline `-- luacheck: ignore 211` is easy to write
exclude_files = { "build*/", ".rocks/", "lua_modules/" }

-- busted's globals (describe, it, assert, spy, ...) in the specs.
files["spec/"] = { std = "+busted" }
