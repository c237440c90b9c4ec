/* SPDX-License-Identifier: MIT */
/* libFuzzer target over bl_import: the first byte picks the format (fuzz_import_format), the
 * rest is the input. An accepted input must be a working filter that its own format carries
 * unchanged: exported back, the bytes are the input's (Parquet: the bitset, behind a canonical
 * header), and their import answers every probe as the first import does. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bloomline.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Seeds in tests/fuzz/corpus-import/ start with 0 (parquet), 1 (parquet-raw) or 2 (guava). */
static bl_foreign_format fuzz_import_format(uint8_t b)
{
    static const bl_foreign_format formats[] = {BL_FORMAT_PARQUET, BL_FORMAT_PARQUET_RAW,
                                                BL_FORMAT_GUAVA};
    return formats[b % 3];
}

/* Byte keys: those of the parquet-java seed (interop/parquet-java-bloom_filter.xxhash.bin),
 * which are in it, then prefixes of the input, which may be in a mutated filter. */
static const char *const fuzz_import_keys[] = {"hello", "parquet", "bloom", "filter"};

static void same_answers(const bl_filter *a, const bl_filter *b, const uint8_t *in, size_t len)
{
    for (uint64_t i = 0; i < FUZZ_U64_KEYS; i++)
        if (bl_contains_u64(a, fuzz_u64_key(i)) != bl_contains_u64(b, fuzz_u64_key(i)))
            __builtin_trap();
    for (size_t i = 0; i < sizeof fuzz_import_keys / sizeof fuzz_import_keys[0]; i++) {
        const char *key = fuzz_import_keys[i];
        if (bl_contains(a, key, strlen(key)) != bl_contains(b, key, strlen(key)))
            __builtin_trap();
    }
    for (size_t n = 0; n <= len && n <= 32; n += 4)
        if (bl_contains(a, in, n) != bl_contains(b, in, n))
            __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const bl_foreign_format fmt = fuzz_import_format(data[0]);
    const uint8_t *in = data + 1;
    const size_t len = size - 1;
    bl_filter *f = NULL;
    if (bl_import(&f, fmt, in, len) != BL_OK) {
        if (f != NULL)
            __builtin_trap(); /* failure must leave *out NULL */
        return 0;
    }
    /* The export of an import succeeds, and carries the payload byte for byte. */
    size_t cap = 0, written = 0;
    if (bl_export_size(f, fmt, &cap) != BL_OK)
        __builtin_trap();
    uint8_t *out = malloc(cap ? cap : 1);
    if (out == NULL)
        __builtin_trap();
    if (bl_export(f, fmt, out, cap, &written) != BL_OK || written != cap)
        __builtin_trap();
    bl_info info;
    if (bl_get_info(f, &info) != BL_OK || info.bytes > written || info.bytes > len)
        __builtin_trap();
    if (fmt == BL_FORMAT_PARQUET
            ? memcmp(out + written - info.bytes, in + len - info.bytes, info.bytes) != 0
            : written != len || memcmp(out, in, len) != 0)
        __builtin_trap();
    /* Imported again, it is the same filter. */
    bl_filter *g = NULL;
    if (bl_import(&g, fmt, out, written) != BL_OK)
        __builtin_trap();
    same_answers(f, g, in, len);
    bl_free(g);
    free(out);
    /* What the format does not record is unknown; the rest describes what was read. */
    fuzz_exercise(f, in, len < 32 ? len : 32, &info);
    const bl_layout want = fmt == BL_FORMAT_GUAVA ? BL_LAYOUT_CLASSIC : BL_LAYOUT_SBBF;
    if (info.layout != want || info.seed != 0 || info.keys_known || info.keys_added != 0 ||
        info.design_keys != 0 || info.stages != 1 || info.k == 0)
        __builtin_trap();
    if (!(info.fill_ratio >= 0 && info.fill_ratio <= 1) ||
        !(info.current_fpp >= 0 && info.current_fpp <= 1) || !(info.estimated_keys >= 0))
        __builtin_trap();
    bl_free(f);
    return 0;
}
