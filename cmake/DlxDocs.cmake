# The docs check (tools/check_docs.lua): every function a script reaches from require "dlx" and
# every function of include/dlx.h has its heading in docs/, and every heading names one. The two
# fixture tests run the checker on tests/docs_check, which lacks headings and has headings that
# name nothing: it must fail (docs.check_fails) and name each problem (docs.check_fails_output).
set(dlx_docs_check ${DLX_LUA_INTERPRETER} ${PROJECT_SOURCE_DIR}/tools/check_docs.lua
    --build ${PROJECT_BINARY_DIR})
set(dlx_docs_fixture --docs ${PROJECT_SOURCE_DIR}/tests/docs_check
    --header ${PROJECT_SOURCE_DIR}/tests/docs_check/fixture.h)

add_test(NAME docs.check COMMAND ${dlx_docs_check})
add_test(NAME docs.check_fails COMMAND ${dlx_docs_check} ${dlx_docs_fixture})
add_test(NAME docs.check_fails_output COMMAND ${dlx_docs_check} ${dlx_docs_fixture})
set_tests_properties(docs.check docs.check_fails docs.check_fails_output
                     PROPERTIES ENVIRONMENT "${DLX_LUA_TEST_ENV}")
set_tests_properties(docs.check_fails PROPERTIES WILL_FAIL TRUE)
# The checker sorts its lines: missing headings, then headings that name nothing. A heading that
# exists (dlx.zeros, t:view, dlx_fixture_documented) or one inside a code block must not be
# reported.
set_tests_properties(docs.check_fails_output PROPERTIES
  PASS_REGULAR_EXPRESSION
  "missing heading: dlx\\.ones\n.*missing heading: dlx_fixture_undocumented\n.*heading names nothing: dlx\\.no_such_function .*heading names nothing: dlx_fixture_gone "
  FAIL_REGULAR_EXPRESSION
  "missing heading: (dlx\\.zeros|t:view|dlx_fixture_documented)\n|inside_a_code_block|not_a_function")
