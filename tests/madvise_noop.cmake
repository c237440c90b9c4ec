# SPDX-License-Identifier: MIT
# test_filter again with madvise(MADV_DONTNEED) a no-op that returns 0, as under qemu-user before
# 7.1: bl_clear must still empty the filter (it checks a marker byte, then writes zeros). The
# test says when the shim is in effect; a crash or a failed check prints no PASSED line. Only
# where a shim can be preloaded (BLOOMLINE_TESTS_CAN_PRELOAD, tests/CMakeLists.txt).
if(BLOOMLINE_TESTS_CAN_PRELOAD)
  add_library(madvise_noop_shim MODULE madvise_noop_shim.c)
  target_link_libraries(madvise_noop_shim PRIVATE ${CMAKE_DL_LIBS})
  add_test(NAME test_filter_madvise_noop COMMAND test_filter
           WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
  set_tests_properties(test_filter_madvise_noop PROPERTIES
    ENVIRONMENT "CMOCKA_MESSAGE_OUTPUT=stdout;LD_PRELOAD=$<TARGET_FILE:madvise_noop_shim>"
    PASS_REGULAR_EXPRESSION "MADV_DONTNEED keeps pages here.*\\[  PASSED  \\] [0-9]+ test"
    FAIL_REGULAR_EXPRESSION "\\[  (FAILED|ERROR) +\\]")
endif()
