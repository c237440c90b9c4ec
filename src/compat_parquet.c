/* SPDX-License-Identifier: MIT */
/* Parquet split-block Bloom filters: thrift BloomFilterHeader + bitset, or the bitset alone. */
#include "compat.h"
#include "thrift_compact.h"

/* parquet-java (BlockSplitBloomFilter.LOWER_BOUND_BYTES / UPPER_BOUND_BYTES) and Arrow accept
 * bitsets that are a power of two from 32 bytes to 128 MiB; anything else is rejected or
 * silently resized by readers, so it is never written and never accepted. */
#define BL_PARQUET_MIN_BYTES 32u
#define BL_PARQUET_MAX_BYTES (UINT64_C(128) << 20)

static bool parquet_size_ok(uint64_t nbytes)
{
    return nbytes >= BL_PARQUET_MIN_BYTES && nbytes <= BL_PARQUET_MAX_BYTES &&
           (nbytes & (nbytes - 1)) == 0;
}

/* Exportable: an sbbf filter hashed exactly as Parquet readers hash (XXH64 seed 0), of a size
 * they accept. Anything else is BL_E_UNSUPPORTED: the filter is fine, the format cannot carry it
 * (readers would compute other hashes and answer "absent" for keys that are in it). */
static bl_status parquet_exportable(const bl_filter *f)
{
    if (f->layout != BL_LAYOUT_SBBF || f->hash != BL_HASH_XXH64 || f->seed != 0)
        return BL_E_UNSUPPORTED;
    if (!parquet_size_ok(f->nbytes))
        return BL_E_UNSUPPORTED;
    return BL_OK;
}

bl_status bl_parquet_export_plan(const bl_filter *f, bool raw, bl_export_plan *plan)
{
    bl_status st = parquet_exportable(f);
    if (st != BL_OK)
        return st;
    plan->header_len = raw ? 0 : bl_thrift_write_bloom_header(plan->header, (int32_t)f->nbytes);
    /* The payload already is the Parquet bitset: little-endian 32-bit words, block after block. */
    plan->payload = f->data;
    plan->payload_len = f->nbytes;
    plan->convert = NULL;
    return BL_OK;
}

bl_status bl_parquet_import(bl_filter **out, bool raw, const uint8_t *buf, size_t len)
{
    size_t header_len = 0;
    uint64_t nbytes = len;
    if (!raw) {
        int32_t num_bytes;
        bl_status st = bl_thrift_read_bloom_header(buf, len, &num_bytes, &header_len);
        if (st != BL_OK)
            return st;
        if (num_bytes < 0 || !parquet_size_ok((uint64_t)num_bytes))
            return BL_E_BAD_GEOMETRY;
        nbytes = (uint64_t)num_bytes;
        if (len - header_len < nbytes)
            return BL_E_TRUNCATED;
        if (len - header_len > nbytes)
            return BL_E_BAD_GEOMETRY; /* trailing bytes: numBytes disagrees with the data */
    } else if (!parquet_size_ok(nbytes)) {
        return BL_E_BAD_GEOMETRY;
    }
    bl_filter *f;
    bl_status st = bl_create_geometry(&f, BL_LAYOUT_SBBF, nbytes * 8, BL_SBBF_K, 0, 0, NULL);
    if (st != BL_OK)
        return st;
    memcpy(f->data, buf + header_len, (size_t)nbytes);
    bl_compat_mark_imported(f);
    *out = f;
    return BL_OK;
}
