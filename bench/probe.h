/* SPDX-License-Identifier: MIT */
/* Memory probes: one random 64-byte line per key, read or read-modify-write: the physical limit. */
#ifndef BB_PROBE_H
#define BB_PROBE_H

#include <stddef.h>
#include <stdint.h>

/* A buffer allocated like a filter payload of the same size (mmap + MADV_HUGEPAGE from 2 MiB,
 * as src/memory.c does), every page touched. */
typedef struct bb_buffer {
    uint8_t *data;
    size_t bytes;
    uint64_t nlines;
    int mapped;
} bb_buffer;

int bb_buffer_alloc(bb_buffer *b, size_t bytes);
void bb_buffer_free(bb_buffer *b);

typedef enum bb_probe_mode {
    BB_PROBE_PLAIN = 0,   /* touch line(key i), no prefetch: out-of-order execution only */
    BB_PROBE_BATCH = 1,   /* chunks of D keys: prefetch all D lines, then touch them */
    BB_PROBE_ROLLING = 2  /* prefetch line(key i + D) while touching line(key i) */
} bb_probe_mode;

extern const char *const bb_probe_mode_name[3];

/* Read one word of line(key) for every key; returns a checksum so nothing is optimised away. */
uint64_t bb_probe_read(const bb_buffer *b, const uint64_t *keys, size_t n, bb_probe_mode mode,
                       unsigned d);
/* Set one bit in line(key) for every key (a load and a store to the same line). */
void bb_probe_rmw(bb_buffer *b, const uint64_t *keys, size_t n, bb_probe_mode mode, unsigned d);

#endif
