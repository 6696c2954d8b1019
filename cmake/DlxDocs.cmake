# The docs check (tools/check_docs.lua): every function a script reaches from require "dlx" and
# every function of include/dlx.h has its heading in docs/, and every heading names one; every
# entry of the backend table (src/core/backend.h) has its row in docs/architecture.md's contract
# table, and every row names one. The two fixture tests run the checker on tests/docs_check,
# which lacks headings and has headings that name nothing: it must fail (docs.check_fails) and
# name each problem (docs.check_fails_output). The two contract tests do the same with a backend
# table and a contract table of tests/docs_check, one entry without a row and a row that names
# nothing (docs.contract_fails, docs.contract_fails_output).
set(dlx_docs_check ${DLX_LUA_INTERPRETER} ${PROJECT_SOURCE_DIR}/tools/check_docs.lua
    --build ${PROJECT_BINARY_DIR})
set(dlx_docs_fixture --docs ${PROJECT_SOURCE_DIR}/tests/docs_check
    --header ${PROJECT_SOURCE_DIR}/tests/docs_check/fixture.h)

set(dlx_contract_fixture --backend ${PROJECT_SOURCE_DIR}/tests/docs_check/fixture_backend.h
    --contract ${PROJECT_SOURCE_DIR}/tests/docs_check/fixture_contract.md)

add_test(NAME docs.check COMMAND ${dlx_docs_check})
add_test(NAME docs.check_fails COMMAND ${dlx_docs_check} ${dlx_docs_fixture})
add_test(NAME docs.check_fails_output COMMAND ${dlx_docs_check} ${dlx_docs_fixture})
add_test(NAME docs.contract_fails COMMAND ${dlx_docs_check} ${dlx_contract_fixture})
add_test(NAME docs.contract_fails_output COMMAND ${dlx_docs_check} ${dlx_contract_fixture})
set_tests_properties(docs.check docs.check_fails docs.check_fails_output docs.contract_fails
                     docs.contract_fails_output PROPERTIES ENVIRONMENT "${DLX_LUA_TEST_ENV}")
set_tests_properties(docs.check_fails docs.contract_fails PROPERTIES WILL_FAIL TRUE)
# Only the contract's two problems: an entry whose row is in another table, shares a row or is
# marked optional, a name outside the first column and a member named in a comment are not ones.
set_tests_properties(docs.contract_fails_output PROPERTIES
  PASS_REGULAR_EXPRESSION
  "^backend entry without a row in the contract: undocumented\ncontract row names no backend entry: gone [^\n]*\ncheck_docs: 2 problem"
  FAIL_REGULAR_EXPRESSION
  "missing heading|names nothing|: (name|host_accessible|documented|stream|not_in_the_first_column|in_a_comment|not_an_entry)[ \n]")
# The checker sorts its lines: missing headings, then headings that name nothing. A heading that
# exists (dlx.zeros, t:view, dlx_fixture_documented) or one inside a code block must not be
# reported.
set_tests_properties(docs.check_fails_output PROPERTIES
  PASS_REGULAR_EXPRESSION
  "missing heading: dlx\\.ones\n.*missing heading: dlx_fixture_undocumented\n.*heading names nothing: dlx\\.no_such_function .*heading names nothing: dlx_fixture_gone "
  FAIL_REGULAR_EXPRESSION
  "missing heading: (dlx\\.zeros|t:view|dlx_fixture_documented)\n|inside_a_code_block|not_a_function")
