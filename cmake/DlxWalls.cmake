# The walls between dlx's layers (docs/architecture.md, "The walls"): tools/check_includes.lua
# fails on an include of src/ that crosses one the wrong way (the core naming a backend or Lua,
# src/common naming the core, a backend naming another one or the binding, the binding naming a
# backend, kernel code naming the core), and on a circle of includes inside src/lua.
# walls.includes checks this tree. The fixture tests/walls_check crosses every wall and has a
# circle in its src/lua: the checker must fail on it (walls.includes_fails) and report exactly
# the includes marked "wrong" there (walls.includes_fixture).
set(dlx_walls_check ${DLX_LUA_INTERPRETER} ${PROJECT_SOURCE_DIR}/tools/check_includes.lua)
add_test(NAME walls.includes COMMAND ${dlx_walls_check} --root ${PROJECT_SOURCE_DIR})
add_test(NAME walls.includes_fails
         COMMAND ${dlx_walls_check} --root ${PROJECT_SOURCE_DIR}/tests/walls_check)
set_tests_properties(walls.includes_fails PROPERTIES WILL_FAIL TRUE)
add_test(NAME walls.includes_fixture
         COMMAND ${DLX_LUA_INTERPRETER} ${PROJECT_SOURCE_DIR}/tests/walls_check/check_fixture.lua
                 ${DLX_LUA_INTERPRETER} ${PROJECT_SOURCE_DIR})
