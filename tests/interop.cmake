# SPDX-License-Identifier: MIT
# Guava interop (tests/interop/): a C helper plus the real Guava jar through java. The test is
# skipped (exit 77) on machines without java, javac or /usr/share/java/guava.jar.
add_executable(guava_interop_tool ${CMAKE_CURRENT_SOURCE_DIR}/interop/guava_interop_tool.c)
target_link_libraries(guava_interop_tool PRIVATE bloomline_internal PkgConfig::CMOCKA)
target_include_directories(guava_interop_tool PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
add_test(NAME interop_guava
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/interop/run_guava_interop.sh
    $<TARGET_FILE:guava_interop_tool> ${CMAKE_CURRENT_SOURCE_DIR}/interop
    ${CMAKE_CURRENT_BINARY_DIR}/interop_guava)
set_tests_properties(interop_guava PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
# Cross builds (cmake/aarch64-linux-gnu.cmake): the script runs the C helper through the emulator.
if(CMAKE_CROSSCOMPILING AND CMAKE_CROSSCOMPILING_EMULATOR)
  list(JOIN CMAKE_CROSSCOMPILING_EMULATOR " " _bl_interop_emulator)
  set_tests_properties(interop_guava PROPERTIES
    ENVIRONMENT "BLOOMLINE_TOOL_EMULATOR=${_bl_interop_emulator}")
endif()
