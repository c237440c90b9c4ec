/* SPDX-License-Identifier: MIT */
/* Guava BloomFilter.writeTo / readFrom streams for the classic (MURMUR128_MITZ_64) layout. */
#include "compat.h"

/* Stream: strategy ordinal (1 byte), numHashFunctions (unsigned byte), number of longs (big-endian
 * int32), then the longs (big-endian int64). Guava's enum BloomFilterStrategies lists
 * MURMUR128_MITZ_32 (ordinal 0) then MURMUR128_MITZ_64 (ordinal 1), the one BloomFilter.create
 * uses since Guava 17; the classic layout implements that one. */
#define BL_GUAVA_HEADER_BYTES 6u
#define BL_GUAVA_MITZ_32 0u
#define BL_GUAVA_MITZ_64 1u
/* The longs count is a Java int. */
#define BL_GUAVA_MAX_WORDS UINT64_C(0x7fffffff)

static void store_be32(uint8_t *p, uint32_t v)
{
    v = __builtin_bswap32(v); /* little-endian target (internal.h) */
    memcpy(p, &v, 4);
}

static uint32_t load_be32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return __builtin_bswap32(v);
}

/* Word i holds bits 64i..64i+63 with bit j at 1 << j, in the payload (little-endian) as in
 * Guava's long[] (written big-endian): only the byte order of each word changes. */
static void swap_words(uint8_t *dst, const uint8_t *src, uint64_t nwords)
{
    for (uint64_t i = 0; i < nwords; i++) {
        uint64_t w;
        memcpy(&w, src + 8 * i, 8);
        w = __builtin_bswap64(w);
        memcpy(dst + 8 * i, &w, 8);
    }
}

/* Exportable: Guava hashes with Murmur3 seed 0, and counts longs in an int. */
static bl_status guava_exportable(const bl_filter *f)
{
    if (f->layout != BL_LAYOUT_CLASSIC || f->hash != BL_HASH_MURMUR3_128 || f->seed != 0)
        return BL_E_UNSUPPORTED;
    if (f->nblocks > BL_GUAVA_MAX_WORDS || f->k < 1 || f->k > BL_K_MAX_CLASSIC)
        return BL_E_UNSUPPORTED;
    return BL_OK;
}

/* Bytes [off, off + len) of the payload as Guava's longs: byte b of a word goes to byte 7 - b,
 * so payload byte p lands at p ^ 7 (words are 8-aligned); partial words at either end of the
 * range byte by byte, whole words in between as whole words. */
static void swap_range(uint8_t *dst, const uint8_t *payload, size_t off, size_t len)
{
    size_t i = 0;
    for (; i < len && ((off + i) & 7) != 0; i++)
        dst[i] = payload[(off + i) ^ 7];
    const size_t words = (len - i) / 8;
    swap_words(dst + i, payload + off + i, words);
    for (i += words * 8; i < len; i++)
        dst[i] = payload[(off + i) ^ 7];
}

bl_status bl_guava_export_plan(const bl_filter *f, bl_export_plan *plan)
{
    bl_status st = guava_exportable(f);
    if (st != BL_OK)
        return st;
    _Static_assert(sizeof plan->header >= BL_GUAVA_HEADER_BYTES, "Guava's header fits");
    plan->header[0] = BL_GUAVA_MITZ_64;
    plan->header[1] = (uint8_t)f->k;
    store_be32(plan->header + 2, (uint32_t)f->nblocks);
    plan->header_len = BL_GUAVA_HEADER_BYTES;
    plan->payload = f->data;
    plan->payload_len = f->nbytes;
    plan->convert = swap_range;
    return BL_OK;
}

bl_status bl_guava_import(bl_filter **out, const uint8_t *buf, size_t len)
{
    /* Everything is validated before anything is allocated. */
    if (len < BL_GUAVA_HEADER_BYTES)
        return BL_E_TRUNCATED;
    if (buf[0] == BL_GUAVA_MITZ_32)
        return BL_E_UNSUPPORTED; /* a real Guava strategy, but not the classic layout's hash */
    if (buf[0] != BL_GUAVA_MITZ_64)
        return BL_E_FORMAT; /* no such strategy */
    const unsigned k = buf[1];
    if (k == 0)
        return BL_E_BAD_K; /* Guava itself refuses numHashFunctions = 0 */
    const uint32_t raw_words = load_be32(buf + 2);
    if (raw_words > BL_GUAVA_MAX_WORDS)
        return BL_E_FORMAT; /* a negative Java int: the count overflowed */
    const uint64_t words = raw_words;
    if (words == 0)
        return BL_E_BAD_GEOMETRY; /* Guava refuses an empty bit array too */
    if (words > (SIZE_MAX - BL_GUAVA_HEADER_BYTES) / 8)
        return BL_E_TOO_LARGE; /* only on 32-bit targets */
    const size_t payload = (size_t)words * 8;
    if (len - BL_GUAVA_HEADER_BYTES < payload)
        return BL_E_TRUNCATED;
    if (len - BL_GUAVA_HEADER_BYTES > payload)
        return BL_E_BAD_GEOMETRY; /* trailing bytes: the count disagrees with the data */
    bl_filter *f;
    bl_status st = bl_create_geometry(&f, BL_LAYOUT_CLASSIC, words * 64, k, 0, 0, NULL);
    if (st != BL_OK)
        return st;
    swap_words(f->data, buf + BL_GUAVA_HEADER_BYTES, words);
    bl_compat_mark_imported(f);
    *out = f;
    return BL_OK;
}
