# SPDX-License-Identifier: MIT
# Format helpers: the golden-file writer (a tool, not a test): format_golden_gen <dir> writes
# golden-<layout>.blf files from the fixed specs in tests/format_test.h.
add_executable(format_golden_gen format_golden_gen.c)
target_link_libraries(format_golden_gen PRIVATE bloomline_internal m Threads::Threads)

# The search behind the blocked layout's word sets (a tool, not a test: a few seconds).
add_executable(word_sets_search word_sets_search.c)
target_link_libraries(word_sets_search PRIVATE bloomline_internal m Threads::Threads)
