/* SPDX-License-Identifier: MIT */
/* Memory probes: one random 64-byte line per key, read or read-modify-write: the physical limit. */
#include "probe.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "bench_common.h"

const char *const bb_probe_mode_name[3] = {"plain", "batch", "rolling"};

/* Same threshold and advice as the library's payloads (src/memory.c). */
#define BB_MMAP_THRESHOLD (2u << 20)

int bb_buffer_alloc(bb_buffer *b, size_t bytes)
{
    bytes = (bytes + 63) & ~(size_t)63;
    if (bytes == 0)
        bytes = 64;
    memset(b, 0, sizeof *b);
    if (bytes >= BB_MMAP_THRESHOLD) {
        void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return -1;
        bb_advise_huge(p, bytes);
        b->data = p;
        b->mapped = 1;
    } else {
        b->data = aligned_alloc(64, bytes);
        if (b->data == NULL)
            return -1;
    }
    memset(b->data, 0x5a, bytes); /* writes fault every page in now, not in the timed loop */
    b->bytes = bytes;
    b->nlines = bytes / 64;
    return 0;
}

void bb_buffer_free(bb_buffer *b)
{
    if (b->mapped)
        munmap(b->data, b->bytes);
    else
        free(b->data);
    memset(b, 0, sizeof *b);
}

/* The line of a key: a multiply-shift range reduction of the (already random) key, as the
 * blocked filter does with its hash. No hashing: this is the memory limit alone. */
static inline uint64_t *line_of(const bb_buffer *b, uint64_t key)
{
    __extension__ typedef unsigned __int128 u128;
    return (uint64_t *)(void *)(b->data + (uint64_t)(((u128)key * b->nlines) >> 64) * 64);
}

uint64_t bb_probe_read(const bb_buffer *b, const uint64_t *keys, size_t n, bb_probe_mode mode,
                       unsigned d)
{
    uint64_t acc = 0;
    if (d == 0)
        d = 1;
    switch (mode) {
    case BB_PROBE_PLAIN:
        for (size_t i = 0; i < n; i++)
            acc ^= line_of(b, keys[i])[keys[i] & 7];
        break;
    case BB_PROBE_BATCH:
        for (size_t i = 0; i < n; i += d) {
            size_t end = i + d < n ? i + d : n;
            for (size_t j = i; j < end; j++)
                __builtin_prefetch(line_of(b, keys[j]), 0, 3);
            for (size_t j = i; j < end; j++)
                acc ^= line_of(b, keys[j])[keys[j] & 7];
        }
        break;
    case BB_PROBE_ROLLING:
        for (size_t i = 0; i < n; i++) {
            if (i + d < n)
                __builtin_prefetch(line_of(b, keys[i + d]), 0, 3);
            acc ^= line_of(b, keys[i])[keys[i] & 7];
        }
        break;
    }
    return acc;
}

void bb_probe_rmw(bb_buffer *b, const uint64_t *keys, size_t n, bb_probe_mode mode, unsigned d)
{
    if (d == 0)
        d = 1;
    switch (mode) {
    case BB_PROBE_PLAIN:
        for (size_t i = 0; i < n; i++)
            line_of(b, keys[i])[keys[i] & 7] |= UINT64_C(1) << (keys[i] >> 58);
        break;
    case BB_PROBE_BATCH:
        for (size_t i = 0; i < n; i += d) {
            size_t end = i + d < n ? i + d : n;
            for (size_t j = i; j < end; j++)
                __builtin_prefetch(line_of(b, keys[j]), 1, 3);
            for (size_t j = i; j < end; j++)
                line_of(b, keys[j])[keys[j] & 7] |= UINT64_C(1) << (keys[j] >> 58);
        }
        break;
    case BB_PROBE_ROLLING:
        for (size_t i = 0; i < n; i++) {
            if (i + d < n)
                __builtin_prefetch(line_of(b, keys[i + d]), 1, 3);
            line_of(b, keys[i])[keys[i] & 7] |= UINT64_C(1) << (keys[i] >> 58);
        }
        break;
    }
}
