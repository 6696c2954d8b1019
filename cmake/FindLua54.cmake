# FindLua54: Lua 5.4, for dlx's build and for projects that use an installed dlx (dlxConfig.cmake
# loads this file from beside itself).
#
#   find_package(Lua54 [REQUIRED] [COMPONENTS headers library static])
#
# Components and the imported targets they give:
#   headers  Lua54::headers     lua.h and the other Lua headers (always looked for)
#   library  Lua54::lua         liblua5.4 (shared where there is one), with the headers
#   static   Lua54::lua_static  liblua5.4.a, with the headers
# Results: Lua54_FOUND, Lua54_<component>_FOUND, Lua54_VERSION (from lua.h).
# Hints: LUA_INCDIR (the headers' directory, as LuaRocks passes it) and the cache variables
# LUA54_INCLUDE_DIR, LUA54_LIBRARY, LUA54_STATIC_LIBRARY. Debian's headers live under
# include/lua5.4, its libraries are liblua5.4.so and liblua5.4.a.
# A project that brings its own Lua defines Lua54::headers and Lua54::lua before this runs.
include(FindPackageHandleStandardArgs)

if(TARGET Lua54::headers AND TARGET Lua54::lua)
  set(Lua54_FOUND TRUE)
  set(Lua54_headers_FOUND TRUE)
  set(Lua54_library_FOUND TRUE)
  return()
endif()

find_path(LUA54_INCLUDE_DIR lua.h PATH_SUFFIXES lua5.4 lua54 lua-5.4 HINTS ${LUA_INCDIR}
          DOC "Directory of the Lua 5.4 headers (lua.h)")
find_library(LUA54_LIBRARY NAMES lua5.4 lua54 lua-5.4 lua DOC "The Lua 5.4 library")
find_library(LUA54_STATIC_LIBRARY NAMES liblua5.4.a liblua54.a liblua-5.4.a
             DOC "The static Lua 5.4 library")
mark_as_advanced(LUA54_INCLUDE_DIR LUA54_LIBRARY LUA54_STATIC_LIBRARY)

# The version of the headers found: another Lua's lua.h is not a 5.4 one.
set(Lua54_VERSION "")
if(LUA54_INCLUDE_DIR AND EXISTS ${LUA54_INCLUDE_DIR}/lua.h)
  file(STRINGS ${LUA54_INCLUDE_DIR}/lua.h lua54_lines
       REGEX "^#define LUA_VERSION_(MAJOR|MINOR|RELEASE)[ \t]+\"[0-9]+\"")
  foreach(part MAJOR MINOR RELEASE)
    if(lua54_lines MATCHES "LUA_VERSION_${part}[ \t]+\"([0-9]+)\"")
      list(APPEND Lua54_VERSION ${CMAKE_MATCH_1})
    endif()
  endforeach()
  list(JOIN Lua54_VERSION "." Lua54_VERSION)
endif()

set(Lua54_headers_FOUND FALSE)
if(Lua54_VERSION MATCHES "^5\\.4(\\.|$)")
  set(Lua54_headers_FOUND TRUE)
endif()
set(Lua54_library_FOUND FALSE)
if(Lua54_headers_FOUND AND LUA54_LIBRARY)
  set(Lua54_library_FOUND TRUE)
endif()
set(Lua54_static_FOUND FALSE)
if(Lua54_headers_FOUND AND LUA54_STATIC_LIBRARY)
  set(Lua54_static_FOUND TRUE)
endif()

find_package_handle_standard_args(Lua54 REQUIRED_VARS LUA54_INCLUDE_DIR Lua54_headers_FOUND
                                  VERSION_VAR Lua54_VERSION HANDLE_COMPONENTS
                                  REASON_FAILURE_MESSAGE
                                  "install liblua5.4-dev, or pass -DLUA_INCDIR=<dir of lua.h>")

if(Lua54_headers_FOUND AND NOT TARGET Lua54::headers)
  add_library(Lua54::headers INTERFACE IMPORTED)
  set_target_properties(Lua54::headers PROPERTIES INTERFACE_INCLUDE_DIRECTORIES
                                                  "${LUA54_INCLUDE_DIR}")
endif()
if(Lua54_library_FOUND AND NOT TARGET Lua54::lua)
  add_library(Lua54::lua UNKNOWN IMPORTED)
  set_target_properties(Lua54::lua PROPERTIES IMPORTED_LOCATION "${LUA54_LIBRARY}"
                                              INTERFACE_LINK_LIBRARIES Lua54::headers)
endif()
if(Lua54_static_FOUND AND NOT TARGET Lua54::lua_static)
  # The static library brings its own dependencies: the C math library and dlopen's.
  add_library(Lua54::lua_static STATIC IMPORTED)
  set_target_properties(Lua54::lua_static PROPERTIES
                        IMPORTED_LOCATION "${LUA54_STATIC_LIBRARY}"
                        INTERFACE_LINK_LIBRARIES "Lua54::headers;m;${CMAKE_DL_LIBS}")
endif()
