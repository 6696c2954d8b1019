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

# The README check (tools/check_readme.lua): every code block of README.md runs as shown, with
# what each line prints as its --> comment says, against this build through scripts/env
# (docs.readme). The two fixture tests run it on tests/readme_check/README.md, whose blocks break
# in each way it checks: it must fail (docs.readme_fails) and name each problem, and nothing in
# the lines that work (docs.readme_fails_output). Only its lua5.4 processes get the sanitizer
# runtime (--preload): the shells that run the sh blocks are not instrumented.
set(dlx_readme_check ${DLX_LUA_INTERPRETER} ${PROJECT_SOURCE_DIR}/tools/check_readme.lua
    --build ${PROJECT_BINARY_DIR})
if(DLX_ASAN_RUNTIME)
  list(APPEND dlx_readme_check --preload ${DLX_ASAN_RUNTIME})
endif()
set(dlx_readme_fixture --readme ${PROJECT_SOURCE_DIR}/tests/readme_check/README.md)

add_test(NAME docs.readme COMMAND ${dlx_readme_check})
add_test(NAME docs.readme_fails COMMAND ${dlx_readme_check} ${dlx_readme_fixture})
add_test(NAME docs.readme_fails_output COMMAND ${dlx_readme_check} ${dlx_readme_fixture})
set_tests_properties(docs.readme docs.readme_fails docs.readme_fails_output
                     PROPERTIES ENVIRONMENT "${DLX_SANITIZER_ENV}")
set_tests_properties(docs.readme_fails PROPERTIES WILL_FAIL TRUE)
# In the order the checker prints them: the skipped sh block, then each section's problems (a
# local gone line by line, a wrong result, a print with no -->, a --> where nothing prints, a -->
# under no code, an error in both ways, a sh block that sets no paths for the Lua block below
# it), then the failing sh block. Not reported: the section that works, the local run as a
# script, the line after the error run as a script, the sh blocks that pass alone.
set_tests_properties(docs.readme_fails_output PROPERTIES
  PASS_REGULAR_EXPRESSION
  "README\\.md:53: sh block skipped: installs Debian packages\n.*README\\.md:21: \\(line by line\\) prints \"nil\", the --> comment shows \"1\"\n.*README\\.md:27: \\(script\\) prints \"2\", the --> comment shows \"3\"\n.*README\\.md:28: \\(script\\) prints \"not shown\" but shows no --> comment\n.*README\\.md:29: \\(script\\) prints nothing, the --> comment shows \"a result where nothing prints\"\n.*README\\.md:31: \\(script\\) a --> line with no code line above it\n.*README\\.md:38: \\(script\\) broken on purpose\n.*README\\.md:38: \\(line by line\\) broken on purpose\n.*README\\.md:63: \\(script\\) module 'dlx' not found.*README\\.md:49: the sh block fails"
  FAIL_REGULAR_EXPRESSION
  "README\\.md:([0-9]|1[0-9]): |README\\.md:(21|39): \\(script\\)|README\\.md:(45|59): the")
