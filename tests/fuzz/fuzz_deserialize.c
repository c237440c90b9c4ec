/* SPDX-License-Identifier: MIT */
/* libFuzzer target over bl_deserialize: each input as is, then again with its checksums repaired. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bloomline.h"
#include "format.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t rd64(const uint8_t *p)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}
static void wr64(uint8_t *p, uint64_t v)
{
    for (unsigned i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Random bytes almost never carry valid XXH3 checksums; recomputing them lets the fuzzer reach
 * the field validation behind the checksums. Everything is bounds-checked against size. */
static void repair(uint8_t *b, size_t size)
{
    if (size < BL_FORMAT_HEADER_BYTES)
        return;
    const uint32_t nstages = (uint32_t)rd64(b + BL_FH_NSTAGES);
    uint64_t prefix = bl_format_prefix_bytes(nstages);
    if (prefix > size)
        prefix = size;
    for (uint32_t i = 0; i < nstages; i++) {
        const uint64_t rec = bl_format_table_end(i);
        if (rec + BL_FORMAT_STAGE_BYTES > prefix)
            break;
        const uint64_t off = rd64(b + rec + BL_FS_OFFSET), len = rd64(b + rec + BL_FS_SIZE);
        if (off <= size && len <= size - off)
            wr64(b + rec + BL_FS_CHECKSUM, bl_format_checksum(b + off, (size_t)len));
    }
    wr64(b + BL_FH_TABLE_CHECKSUM, bl_format_checksum(b + BL_FORMAT_HEADER_BYTES,
                                                      (size_t)(prefix - BL_FORMAT_HEADER_BYTES)));
    wr64(b + BL_FH_HEADER_CHECKSUM, bl_format_checksum(b, BL_FH_HEADER_CHECKSUM));
}

static void one(const uint8_t *buf, size_t size)
{
    bl_filter *f = NULL;
    if (bl_deserialize(&f, buf, size) != BL_OK) {
        if (f != NULL)
            __builtin_trap(); /* failure must leave *out NULL */
        return;
    }
    /* Whatever is accepted is canonical: it serializes back to the very same bytes. */
    size_t len = 0;
    if (bl_serialized_size(f, &len) != BL_OK || len != size)
        __builtin_trap();
    uint8_t *again = malloc(len ? len : 1);
    if (again == NULL || bl_serialize(f, again, len, NULL) != BL_OK || memcmp(again, buf, len) != 0)
        __builtin_trap();
    free(again);
    /* And it is a working filter. */
    bl_info info;
    fuzz_exercise(f, buf, size < 32 ? size : 32, &info);
    bl_free(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    one(data, size);
    uint8_t *copy = malloc(size ? size : 1);
    if (copy == NULL)
        return 0;
    memcpy(copy, data, size);
    repair(copy, size);
    one(copy, size);
    free(copy);
    return 0;
}
