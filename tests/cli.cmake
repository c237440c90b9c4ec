# SPDX-License-Identifier: MIT
# End-to-end tests of the bloomline command, through the real binary.
if(TARGET bloomline_cli)
  add_test(NAME cli COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/run_cli_tests.sh
    $<TARGET_FILE:bloomline_cli>)
  set_tests_properties(cli PROPERTIES TIMEOUT 600 PASS_REGULAR_EXPRESSION "cli: [0-9]+ passed, 0 failed")
  # Cross builds (cmake/aarch64-linux-gnu.cmake): the script runs the binary under the emulator
  # (about 6x slower under qemu-aarch64: 85 s against 15 s natively).
  if(CMAKE_CROSSCOMPILING AND CMAKE_CROSSCOMPILING_EMULATOR)
    list(JOIN CMAKE_CROSSCOMPILING_EMULATOR " " _bl_cli_emulator)
    set_tests_properties(cli PROPERTIES ENVIRONMENT "BLOOMLINE_CLI_EMULATOR=${_bl_cli_emulator}")
  endif()
endif()

# The line splitter against a reference on random chunks (SSE2 on x86-64, memchr elsewhere).
if(TARGET bloomline_cli_parts)
  add_executable(test_cli_split cli/test_cli_split.c)
  target_link_libraries(test_cli_split PRIVATE bloomline_cli_parts PkgConfig::CMOCKA)
  add_test(NAME test_cli_split COMMAND test_cli_split)
  set_tests_properties(test_cli_split PROPERTIES ENVIRONMENT "CMOCKA_MESSAGE_OUTPUT=stdout")
endif()
