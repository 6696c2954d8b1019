/* A header for the docs check's own test (cmake/DlxDocs.cmake): one documented function, one
 * without a heading in fixture.md. */
#include <lua.h>

typedef struct fixture_api {
  int (*not_a_function_of_the_header)(lua_State *L);
} fixture_api;

int dlx_fixture_documented(lua_State *L);
int dlx_fixture_undocumented(lua_State *L, int idx);
