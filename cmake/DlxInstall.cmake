# Installs libdlx for hosts: headers, libdlx.a and libdlx.so, the CMake package (find_package(dlx)
# gives dlx::dlx, the shared library, and dlx::dlx_static; FindLua54.cmake goes with it) and the
# pkg-config file dlx.pc. Included once every backend has said what a static link needs
# (DLX_STATIC_LIBS).
include(CMakePackageConfigHelpers)

install(FILES ${PROJECT_SOURCE_DIR}/include/dlx.h ${PROJECT_SOURCE_DIR}/include/dlx_errclass.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/dlpack/dlpack.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/dlpack)

install(TARGETS dlx_static dlx_shared EXPORT dlxTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(DLX_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/dlx)
install(EXPORT dlxTargets NAMESPACE dlx:: DESTINATION ${DLX_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/dlxConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/dlxConfig.cmake INSTALL_DESTINATION ${DLX_CMAKE_DIR})
# 0.x: a new minor version may change the API, so only the same minor is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/dlxConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/dlxConfig.cmake ${PROJECT_BINARY_DIR}/dlxConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/FindLua54.cmake
        DESTINATION ${DLX_CMAKE_DIR})

# dlx.pc: relocatable (prefix from the file's own place), with Lua through Requires when Lua has
# a pkg-config file (Debian: lua5.4.pc), else spelled out. Libs.private: what the objects of
# libdlx.a need (`pkg-config --static`): names become -l<name>, paths stay paths.
find_package(PkgConfig QUIET)
set(DLX_PC_REQUIRES "")
set(DLX_PC_EXTRA_CFLAGS "")
set(DLX_PC_EXTRA_LIBS "")
if(PKG_CONFIG_FOUND)
  pkg_search_module(DLX_LUA_PC QUIET lua5.4 lua-5.4 lua54)
  if(DLX_LUA_PC_FOUND)
    set(DLX_PC_REQUIRES "Requires: ${DLX_LUA_PC_MODULE_NAME}")
  endif()
endif()
if(DLX_PC_REQUIRES STREQUAL "")
  get_filename_component(lua_libdir ${LUA54_LIBRARY} DIRECTORY)
  set(DLX_PC_EXTRA_CFLAGS " -I${LUA54_INCLUDE_DIR}")
  set(DLX_PC_EXTRA_LIBS " -L${lua_libdir} -llua5.4")
endif()
set(DLX_PC_PRIVATE_LIBS "")
foreach(item ${DLX_STATIC_LIBS})
  if(IS_ABSOLUTE "${item}")
    string(APPEND DLX_PC_PRIVATE_LIBS " ${item}")
  else()
    string(APPEND DLX_PC_PRIVATE_LIBS " -l${item}")
  endif()
endforeach()
file(RELATIVE_PATH DLX_PC_PREFIX_FROM_PCFILEDIR
     /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
string(REGEX REPLACE "/$" "" DLX_PC_PREFIX_FROM_PCFILEDIR "${DLX_PC_PREFIX_FROM_PCFILEDIR}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/dlx.pc.in ${PROJECT_BINARY_DIR}/dlx.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/dlx.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
