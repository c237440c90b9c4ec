# SPDX-License-Identifier: MIT
# Smoke run of every benchmark program and of the driver at tiny sizes, so the benchmarks cannot
# rot. It checks that they run and answer correctly; it never asserts a timing.
if(BLOOMLINE_BUILD_BENCH AND EXISTS ${PROJECT_SOURCE_DIR}/bench/CMakeLists.txt)
  add_test(NAME bench_smoke
    COMMAND ${PROJECT_SOURCE_DIR}/bench/run --quick --no-build --build-dir ${PROJECT_BINARY_DIR}
            --out ${PROJECT_BINARY_DIR}/bench-smoke)
  set_tests_properties(bench_smoke PROPERTIES TIMEOUT 120)
  add_test(NAME bench_scale_smoke
    COMMAND ${PROJECT_BINARY_DIR}/bench/bench_scale --keys 200000 --threads 2)
  set_tests_properties(bench_scale_smoke PROPERTIES TIMEOUT 60)
  add_test(NAME bench_args
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/bench/run_bench_arg_tests.sh ${PROJECT_BINARY_DIR})
  set_tests_properties(bench_args PROPERTIES TIMEOUT 300
    PASS_REGULAR_EXPRESSION "bench args: [0-9]+ passed, 0 failed")
  # The verdicts of bench/targets.awk on hand-made CSVs (no build needed: awk and bash).
  add_test(NAME bench_targets
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/bench/targets_test.sh)
  set_tests_properties(bench_targets PROPERTIES TIMEOUT 60
    PASS_REGULAR_EXPRESSION "targets: [0-9]+ passed, 0 failed")
endif()
