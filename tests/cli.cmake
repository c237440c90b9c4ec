# SPDX-License-Identifier: MIT
# End-to-end tests of the bloomline command, through the real binary.
if(TARGET bloomline_cli)
  add_test(NAME cli COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/run_cli_tests.sh
    $<TARGET_FILE:bloomline_cli>)
  set_tests_properties(cli PROPERTIES PASS_REGULAR_EXPRESSION "cli: [0-9]+ passed, 0 failed")
  # Cross builds (cmake/aarch64-linux-gnu.cmake): the script runs the binary under the emulator
  # (about 6x slower under qemu-aarch64: 85 s against 15 s natively).
  if(CMAKE_CROSSCOMPILING AND CMAKE_CROSSCOMPILING_EMULATOR)
    list(JOIN CMAKE_CROSSCOMPILING_EMULATOR " " _bl_cli_emulator)
    set_tests_properties(cli PROPERTIES ENVIRONMENT "BLOOMLINE_CLI_EMULATOR=${_bl_cli_emulator}")
  endif()
  # The reader's pread path and read errors, through an LD_PRELOAD shim (read_fault_shim.c),
  # where a shim can be preloaded (BLOOMLINE_TESTS_CAN_PRELOAD, tests/CMakeLists.txt).
  if(BLOOMLINE_TESTS_CAN_PRELOAD)
    add_library(read_fault_shim MODULE ${CMAKE_CURRENT_SOURCE_DIR}/cli/read_fault_shim.c)
    target_link_libraries(read_fault_shim PRIVATE ${CMAKE_DL_LIBS})
    set_tests_properties(cli PROPERTIES
      ENVIRONMENT "BLOOMLINE_CLI_READ_SHIM=$<TARGET_FILE:read_fault_shim>")
    # Fault injection through the whole process (fault_shim.c, run_cli_fault_tests.sh): each
    # command run once per call of a class (open, read, write, fsync, rename, truncate, mmap,
    # malloc), that call failing; four commands also with two workers. About 550 runs, 10-60 s.
    add_library(cli_fault_shim MODULE ${CMAKE_CURRENT_SOURCE_DIR}/cli/fault_shim.c)
    target_link_libraries(cli_fault_shim PRIVATE ${CMAKE_DL_LIBS})
    target_compile_options(cli_fault_shim PRIVATE -Wall -Wextra
      $<$<BOOL:${BLOOMLINE_WERROR}>:-Werror>)
    add_test(NAME cli_faults COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/run_cli_fault_tests.sh
      $<TARGET_FILE:bloomline_cli> $<TARGET_FILE:cli_fault_shim>)
    set_tests_properties(cli_faults PROPERTIES
      PASS_REGULAR_EXPRESSION "cli_faults: [0-9]+ passed, 0 failed")
  endif()
endif()

# Unit tests of CLI parts (tests/cli/test_*.c): the line splitter against a reference on random
# chunks (SSE2 on x86-64, memchr elsewhere), the line count against a byte-by-byte one, the
# option parsers (numbers in every notation they read, delimiters) against values written out.
if(TARGET bloomline_cli_parts)
  file(GLOB _bl_cli_tests CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/cli/test_*.c)
  foreach(src ${_bl_cli_tests})
    get_filename_component(name ${src} NAME_WE)
    add_executable(${name} ${src})
    target_link_libraries(${name} PRIVATE bloomline_cli_parts PkgConfig::CMOCKA)
    add_test(NAME ${name} COMMAND ${name})
    set_tests_properties(${name} PROPERTIES ENVIRONMENT "CMOCKA_MESSAGE_OUTPUT=stdout")
  endforeach()
endif()
