# SPDX-License-Identifier: MIT
# End-to-end tests of the bloomline command, through the real binary.
if(TARGET bloomline_cli)
  add_test(NAME cli COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/run_cli_tests.sh
    $<TARGET_FILE:bloomline_cli>)
  set_tests_properties(cli PROPERTIES TIMEOUT 600 PASS_REGULAR_EXPRESSION "cli: [0-9]+ passed, 0 failed")
endif()
