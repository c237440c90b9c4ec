# SPDX-License-Identifier: MIT
# test_cleanroom checks the library's files with a reader written from docs/FORMAT.md alone:
# cleanroom_reader.c, which uses libc and xxHash's header and nothing of src/.
target_sources(test_cleanroom PRIVATE cleanroom_reader.c)

