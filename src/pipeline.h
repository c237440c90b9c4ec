/* SPDX-License-Identifier: MIT */
/* The batched pipeline: hash keys a chunk ahead, let the probe kernel prefetch D keys ahead. */
#ifndef BL_PIPELINE_H
#define BL_PIPELINE_H

#include "internal.h"

typedef enum bl_key_kind { BL_KEYS_BYTES, BL_KEYS_U64, BL_KEYS_HASH } bl_key_kind;

/* A batch of keys of one kind. */
typedef struct bl_keys {
    bl_key_kind kind;
    const void *const *bytes;
    const size_t *lens;
    const uint64_t *values; /* u64 keys or hashes */
    /* Byte keys not validated (queries only): a NULL key of non-zero length may occur, and
     * bl_pipeline answers it absent, as bl_contains does. */
    bool unchecked;
} bl_keys;

/* One probe-stage operation over hashes: h holds `avail` >= n hashes (the extra ones are only
 * for prefetching). Returns hits (queries) or keys reported absent (removes), or BL_STAGE_STOP
 * to end the batch there (an add that failed): bl_pipeline then hashes no more keys. */
#define BL_STAGE_STOP SIZE_MAX
typedef size_t (*bl_stage_fn)(bl_filter *f, const uint64_t *h, size_t n, size_t avail,
                              uint8_t *res, void *ctx);

/* A NULL key is valid only when empty: with a length it is a caller's bug, refused by adds,
 * removes and hashes and answered absent by queries, never read. */
static inline bool bl_key_is_bad(const void *key, size_t len)
{
    return key == NULL && len != 0;
}

/* Whether every NULL key among bytes[0, n) has length 0: the portable loop, also what the
 * kernels' vector scans run on a block where they find a NULL pointer. */
static inline bool bl_null_keys_empty(const void *const *bytes, const size_t *lens, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (bl_key_is_bad(bytes[i], lens[i]))
            return false;
    return true;
}

/* A batch of byte keys is valid when its arrays exist (n > 0) and only empty keys are NULL.
 * Batched adds, removes and bl_hash_batch pass this scan before hashing, queries after each
 * chunk (bl_pipeline). The loop above takes ~1 cycle a key (0.28 ns/key, against ~3.6 for a
 * whole URL query in cache), so the AVX2 and AVX-512 tables scan sixteen pointers a step. */
static inline bool bl_byte_keys_valid(const bl_filter *f, const void *const *bytes,
                                      const size_t *lens, size_t n)
{
    if (n == 0)
        return true;
    if (bytes == NULL || lens == NULL)
        return false;
    return f->kern->null_keys_empty ? f->kern->null_keys_empty(bytes, lens, n)
                                    : bl_null_keys_empty(bytes, lens, n);
}

/* Hash keys [from, from + count) with the filter's scheme into out; keys [from, limit) exist
 * (byte keys prefetch the bytes of keys ahead, up to limit). */
void bl_hash_keys(const bl_filter *f, const bl_keys *keys, size_t from, size_t count, size_t limit,
                  uint64_t *out);

/* Hash byte keys [from, from + count) into out (hash.c). Keys up to `limit` (exclusive) are
 * valid, and their bytes are prefetched ahead of use, so the key stream keeps flowing from
 * memory while earlier hashes are probed. Same results as bl_hash_bytes_scheme per key. */
void bl_hash_bytes_batch(bl_hash_scheme scheme, uint64_t seed, const void *const *bytes,
                         const size_t *lens, size_t from, size_t count, size_t limit,
                         uint64_t *out);

/* Byte keys stream from memory (~67 MB of bytes, pointers and lengths for 2^20 URL keys), and
 * with only the hardware prefetchers XXH3 waits on them: ~6 ns/key from memory against ~3 in
 * cache. So the first and last line of the key PREFETCH keys ahead are prefetched (into L1) as
 * each key is hashed, which also keeps lines arriving across the probe phase of a pipeline
 * chunk. Measured at 2^20 ~50-byte URL keys (bench_filters, blocked, avx512, 10 bits/key, 2-core
 * VM, medians of 20-40 alternated runs): batched query 10.9 -> 8.7 ns/key on a busy host (XXH3
 * alone 6.4 there), 5.4 on a quiet one (XXH3 alone 3.3). 64 and 128 keys ahead measured the
 * same, 32 ~0.3 ns/key slower; into L2 only (T1) 128 ahead was ~0.9 ns/key slower and 256
 * ahead the same, a second prefetch into L2 256 ahead gained nothing, NTA was ~1.4x slower.
 * In cache the prefetches cost ~0.15 ns/key. */
#define BL_KEY_PREFETCH 128u

/* Prefetch the first and last line of key j. The address is formed as an integer: a NULL key
 * (length 0) must not be offset as a pointer, and a prefetch never faults. */
static inline void bl_prefetch_key(const void *const *bytes, const size_t *lens, size_t j)
{
    const uintptr_t first = (uintptr_t)bytes[j];
    __builtin_prefetch((const void *)first, 0, 3);
    __builtin_prefetch((const void *)(first + lens[j] - 1), 0, 3);
}

/* Run fn over all n keys, hashing them in chunks with a rolling look-ahead. */
size_t bl_pipeline(bl_filter *f, const bl_keys *keys, size_t n, uint8_t *res, bl_stage_fn fn,
                   void *ctx);

/* Add n hashes (avail >= n, the rest only prefetched) to any layout, without counting them in
 * keys_added (keys.c; the callers count: the batch APIs plainly, partitioned adds atomically). */
bl_status bl_add_hashes_uncounted(bl_filter *f, const uint64_t *h, size_t n, size_t avail);

/* Layout hooks over hashes (counting.c, scalable.c). */
void bl_counting_add_hashes(bl_filter *f, const uint64_t *h, size_t n, size_t avail);
size_t bl_counting_test_hashes(const bl_filter *f, const uint64_t *h, size_t n, size_t avail,
                               uint8_t *res);
/* One hash's add and remove (false: refused, the key was provably absent); single-key queries
 * go through the filter's contains_hash (bl_filter_set_kernel). */
void bl_counting_add_hash(bl_filter *f, uint64_t h);
bool bl_counting_remove_hash(bl_filter *f, uint64_t h);
size_t bl_counting_remove_hashes(bl_filter *f, const uint64_t *h, size_t n, size_t avail);
bl_status bl_scalable_add_hashes(bl_filter *f, const uint64_t *h, size_t n, size_t avail);
bl_status bl_scalable_add_one(bl_filter *f, uint64_t h);
size_t bl_scalable_test_hashes(const bl_filter *f, const uint64_t *h, size_t n, size_t avail,
                               uint8_t *res);
/* One hash against the chain, newest stage first (the single-key query). */
bool bl_scalable_test_one(const bl_filter *f, uint64_t h);

#endif
