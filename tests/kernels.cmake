# SPDX-License-Identifier: MIT
# Kernel reruns: the test suite again under each BLOOMLINE_KERNEL this build and CPU support, a
# check that the forced kernel is the one running, and a bogus name that must fail.

# Which compiled-in kernels run on the test machine: ask its CPU through src/cpu.c at configure
# time (try_run goes through CMAKE_CROSSCOMPILING_EMULATOR in cross builds, e.g. qemu-aarch64).
set(_bl_features 0)
if(CMAKE_CROSSCOMPILING AND NOT CMAKE_CROSSCOMPILING_EMULATOR)
  message(STATUS "bloomline: cross build without an emulator: kernel reruns limited to scalar")
else()
  set(_bl_probe ${CMAKE_CURRENT_BINARY_DIR}/bl_cpu_probe.c)
  set(_bl_probe_defs -D_GNU_SOURCE)
  if(BLOOMLINE_AVX512_VIA_SIMDE) # the library reports AVX-512 wherever AVX2 runs
    list(APPEND _bl_probe_defs -DBL_AVX512_VIA_SIMDE)
  endif()
  file(WRITE ${_bl_probe} "#include <stdio.h>\n#include \"internal.h\"\n"
    "int main(void) { printf(\"features=%u\\n\", (unsigned)bl_cpu_features()); return 0; }\n")
  try_run(_bl_probe_run _bl_probe_compiled ${CMAKE_CURRENT_BINARY_DIR}/bl_cpu_probe
    SOURCES ${_bl_probe} ${PROJECT_SOURCE_DIR}/src/cpu.c
    CMAKE_FLAGS "-DINCLUDE_DIRECTORIES=${PROJECT_SOURCE_DIR}/include;${PROJECT_SOURCE_DIR}/src"
    COMPILE_DEFINITIONS ${_bl_probe_defs}
    COMPILE_OUTPUT_VARIABLE _bl_probe_log
    RUN_OUTPUT_VARIABLE _bl_probe_out)
  if(_bl_probe_compiled AND _bl_probe_run EQUAL 0 AND _bl_probe_out MATCHES "features=([0-9]+)")
    set(_bl_features ${CMAKE_MATCH_1})
  else()
    message(WARNING "bloomline: CPU probe failed; kernel reruns limited to scalar and forced-only kernels")
  endif()
endif()

# Bits as in src/internal.h: AVX2 = 1, AVX512 = 2, NEON = 4.
set(BLOOMLINE_TEST_KERNELS scalar)
math(EXPR _bl_avx2 "${_bl_features} & 1")
math(EXPR _bl_avx512 "${_bl_features} & 2")
math(EXPR _bl_neon "${_bl_features} & 4")
if("BLOOMLINE_HAVE_AVX2" IN_LIST BLOOMLINE_ISA_DEFINES AND _bl_avx2)
  list(APPEND BLOOMLINE_TEST_KERNELS avx2)
endif()
if("BLOOMLINE_HAVE_AVX512" IN_LIST BLOOMLINE_ISA_DEFINES AND _bl_avx512)
  list(APPEND BLOOMLINE_TEST_KERNELS avx512)
endif()
# NEON runs natively on aarch64 CPUs with ASIMD, and anywhere else through SIMDe (forced only).
if("BLOOMLINE_HAVE_NEON" IN_LIST BLOOMLINE_ISA_DEFINES AND (_bl_neon OR NOT BLOOMLINE_AARCH64))
  list(APPEND BLOOMLINE_TEST_KERNELS neon)
endif()
# The plain test run already uses the kernel the dispatcher picks (best first, as in dispatch.c;
# NEON through SIMDe is never picked off aarch64), so the reruns cover the others.
set(_bl_default scalar)
foreach(kern avx512 avx2 neon)
  if(kern IN_LIST BLOOMLINE_TEST_KERNELS AND (NOT kern STREQUAL "neon" OR BLOOMLINE_AARCH64))
    set(_bl_default ${kern})
    break()
  endif()
endforeach()
set(_bl_rerun_kernels ${BLOOMLINE_TEST_KERNELS})
list(REMOVE_ITEM _bl_rerun_kernels ${_bl_default})
message(STATUS "bloomline: kernels tested: ${BLOOMLINE_TEST_KERNELS} (default ${_bl_default}, "
  "CPU features ${_bl_features})")

# Every test_<module> reruns under each kernel, except those listed (-D to override). test_sizing
# measures false-positive rates, which depend only on the bits set, and test_kernels proves those
# identical for every kernel; it also takes over a minute under emulated NEON. test_counts calls
# every kernel's counts itself.
if(NOT DEFINED BLOOMLINE_KERNEL_RERUN_EXCLUDE)
  set(BLOOMLINE_KERNEL_RERUN_EXCLUDE test_sizing test_counts)
endif()
foreach(src ${_bl_tests})
  get_filename_component(name ${src} NAME_WE)
  if(name IN_LIST BLOOMLINE_KERNEL_RERUN_EXCLUDE)
    continue()
  endif()
  # A rerun keeps the environment and time limit other extras gave the test (e.g. the
  # emulator-size switch under qemu), plus its kernel.
  get_test_property(${name} ENVIRONMENT _bl_env)
  if(NOT _bl_env)
    set(_bl_env "CMOCKA_MESSAGE_OUTPUT=stdout")
  endif()
  get_test_property(${name} TIMEOUT _bl_timeout)
  foreach(kern ${_bl_rerun_kernels})
    add_test(NAME ${name}@${kern} COMMAND ${name} WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
    set_tests_properties(${name}@${kern} PROPERTIES
      ENVIRONMENT "${_bl_env};BLOOMLINE_KERNEL=${kern}" LABELS "kernel-rerun")
    if(_bl_timeout)
      set_tests_properties(${name}@${kern} PROPERTIES TIMEOUT ${_bl_timeout})
    endif()
  endforeach()
endforeach()

# test_kernels' test_env_kernel asserts that the running kernel is BLOOMLINE_KERNEL; here its
# output must also name it, so a rerun that silently ran another kernel cannot pass.
foreach(kern ${BLOOMLINE_TEST_KERNELS})
  add_test(NAME kernel_forced_${kern} COMMAND test_kernels WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
  set_tests_properties(kernel_forced_${kern} PROPERTIES
    ENVIRONMENT "CMOCKA_MESSAGE_OUTPUT=stdout;BLOOMLINE_KERNEL=${kern};CMOCKA_TEST_ABORT=0"
    PASS_REGULAR_EXPRESSION "running kernel: ${kern}\n.*PASSED"
    FAIL_REGULAR_EXPRESSION "FAILED")
endforeach()

# A name no build has: every filter creation must fail, so the suite fails.
add_test(NAME kernel_forced_bogus COMMAND test_kernels WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
set_tests_properties(kernel_forced_bogus PROPERTIES
  ENVIRONMENT "CMOCKA_MESSAGE_OUTPUT=stdout;BLOOMLINE_KERNEL=bogus" WILL_FAIL TRUE)
