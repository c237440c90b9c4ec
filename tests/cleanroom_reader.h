/* SPDX-License-Identifier: MIT */
/* A clean-room reader of the bloomline file format, written from docs/FORMAT.md alone (libc and
 * xxHash only): it validates an object as "Validation order" says and answers queries. */
#ifndef CLEANROOM_READER_H
#define CLEANROOM_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The statuses FORMAT.md names (BL_E_<name>); the numbers are this reader's own. */
typedef enum cr_status {
    CR_OK = 0,
    CR_E_TRUNCATED,
    CR_E_BAD_MAGIC,
    CR_E_BAD_VERSION,
    CR_E_BAD_LAYOUT,
    CR_E_BAD_GEOMETRY,
    CR_E_BAD_K,
    CR_E_HEADER_CHECKSUM,
    CR_E_PAYLOAD_CHECKSUM,
    CR_E_NOMEM,
    CR_E_IO
} cr_status;

enum { CR_BLOCKED = 0, CR_SBBF = 1, CR_CLASSIC = 2, CR_COUNTING = 3, CR_SCALABLE = 4 };

typedef struct cr_stage {
    uint64_t blocks, bits, seed, keys, design_n, offset, bytes, checksum;
    double design_p;
    unsigned k;
    const uint8_t *payload; /* into the caller's buffer */
} cr_stage;

typedef struct cr_filter {
    unsigned layout, hash, k, flags;
    uint64_t seed, keys, design_n, total_bits, size;
    double design_p, growth, tightening;
    uint32_t nstages;
    cr_stage *stages; /* nstages records (NULL for a chain of none) */
} cr_filter;

/* "BL_E_TRUNCATED", ...: the name FORMAT.md uses. */
const char *cr_status_name(cr_status st);

/* Validate buf[0, len) (steps 1-7) and describe it in *f, whose stages point into buf: buf must
 * outlive f. On failure *f holds nothing to free. */
cr_status cr_open(cr_filter *f, const void *buf, size_t len);
void cr_close(cr_filter *f);

/* Whole file into a malloc'd buffer (CR_E_IO, CR_E_NOMEM). */
cr_status cr_read_file(const char *path, uint8_t **buf, size_t *len);

bool cr_contains(const cr_filter *f, const void *key, size_t len);
bool cr_contains_u64(const cr_filter *f, uint64_t key);

/* The blocked model's false-positive rate of `lines` lines with k probes holding n keys
 * (docs/DESIGN.md, "Sizing models"), which the chain rule of FORMAT.md is stated in. */
double cr_blocked_model(uint64_t lines, unsigned k, double n);

/* Murmur3 x64 128 (the reference MurmurHash3_x64_128): out[0] = h1, out[1] = h2. */
void cr_murmur3_x64_128(const void *key, size_t len, uint32_t seed, uint64_t out[2]);

#endif
