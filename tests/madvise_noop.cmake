# SPDX-License-Identifier: MIT
# test_filter again with madvise(MADV_DONTNEED) a no-op that returns 0, as under qemu-user before
# 7.1: bl_clear must still empty the filter (it checks a marker byte, then writes zeros). The
# test says when the shim is in effect; a crash or a failed check prints no PASSED line. Not
# under the sanitizers (their runtime must be the first library loaded) or in cross builds. A
# sanitizer asked for in CMAKE_C_FLAGS rather than by the options counts too: such a build failed
# this test ("ASan runtime does not come first in initial library list").
string(TOUPPER "${CMAKE_BUILD_TYPE}" bl_build_type)
string(FIND "${CMAKE_C_FLAGS} ${CMAKE_C_FLAGS_${bl_build_type}}" "-fsanitize=" bl_flags_sanitize)
if(CMAKE_SYSTEM_NAME STREQUAL "Linux" AND NOT CMAKE_CROSSCOMPILING
   AND NOT BLOOMLINE_SANITIZE_ADDRESS AND NOT BLOOMLINE_SANITIZE_THREAD
   AND bl_flags_sanitize EQUAL -1)
  add_library(madvise_noop_shim MODULE madvise_noop_shim.c)
  target_link_libraries(madvise_noop_shim PRIVATE ${CMAKE_DL_LIBS})
  add_test(NAME test_filter_madvise_noop COMMAND test_filter
           WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
  set_tests_properties(test_filter_madvise_noop PROPERTIES
    ENVIRONMENT "CMOCKA_MESSAGE_OUTPUT=stdout;LD_PRELOAD=$<TARGET_FILE:madvise_noop_shim>"
    PASS_REGULAR_EXPRESSION "MADV_DONTNEED keeps pages here.*\\[  PASSED  \\] [0-9]+ test"
    FAIL_REGULAR_EXPRESSION "\\[  (FAILED|ERROR) +\\]")
endif()
