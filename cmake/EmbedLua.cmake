# dlx_embed_lua(<out_var> <lua_root>)
#
# Generates <build>/generated/dlx_embedded_lua.c, which holds every <lua_root>/dlx/**/*.lua as a
# byte array with its module name ("dlx" for dlx/init.lua, "dlx.<name>" for dlx/<name>.lua, dots
# for subdirectories), in the table declared by src/lua/embedded.h; dlx_openlibs preloads them.
# The file is regenerated when a .lua file changes, and the glob is re-checked at build time,
# so adding or removing a file needs no manual re-configure.
set(DLX_EMBED_LUA_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/embed_lua.cmake)

function(dlx_embed_lua out_var lua_root)
  file(GLOB_RECURSE files CONFIGURE_DEPENDS RELATIVE ${lua_root} ${lua_root}/dlx/*.lua)
  list(SORT files)
  set(output ${PROJECT_BINARY_DIR}/generated/dlx_embedded_lua.c)
  # The list of files, rewritten only when it changes: a dependency that makes a removed file
  # regenerate the table, which the .lua dependencies alone would not.
  set(list_file ${PROJECT_BINARY_DIR}/generated/dlx_embedded_lua.txt)
  string(JOIN "\n" content ${files})
  file(CONFIGURE OUTPUT ${list_file} CONTENT "${content}\n")
  list(TRANSFORM files PREPEND ${lua_root}/ OUTPUT_VARIABLE sources)
  add_custom_command(
    OUTPUT ${output}
    COMMAND ${CMAKE_COMMAND} -DLUA_ROOT=${lua_root} -DLIST=${list_file} -DOUTPUT=${output}
            -P ${DLX_EMBED_LUA_SCRIPT}
    DEPENDS ${sources} ${list_file} ${DLX_EMBED_LUA_SCRIPT}
    COMMENT "Embedding lua/dlx/*.lua into ${output}"
    VERBATIM)
  set(${out_var} ${output} PARENT_SCOPE)
endfunction()
