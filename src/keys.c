/* SPDX-License-Identifier: MIT */
/* Public add/contains/remove entry points: single keys inline, batches through the pipeline. */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "counting.h"
#include "pipeline.h"

/* XXH3 of a key of at most 16 bytes, inlined (bl_add and bl_contains are `flatten`: gcc left the
 * call once two functions used it). The blocked layout's single-key call then needs no frame of
 * its own and tail-calls the kernel: 8-byte keys 6.0 -> 4.1 ns per query and 5.8 -> 4.3 per add
 * at 2^16 keys on the Zen 5, AVX-512 kernel. Longer keys go out of line (add_long_plain,
 * contains_long_blocked), as XXH3's 17..240-byte paths save registers. A NULL key is empty here
 * (bl_key_is_bad), and XXH3 reads no byte of it. */
static inline uint64_t short_key_xxh3(const void *key, size_t len, uint64_t seed)
{
    return XXH3_64bits_withSeed(key != NULL ? key : "", len, seed);
}

static bool writable(const bl_filter *f) { return f->storage != BL_STORAGE_FILE_MAP; }

/* ---- Single keys --------------------------------------------------------------------------- */

/* The public hashes have no status to return: invalid arguments give 0, as a query on a NULL
 * filter gives false, rather than a crash or a read of len bytes at a NULL key. */
uint64_t bl_hash(const bl_filter *filter, const void *key, size_t len)
{
    if (filter == NULL || bl_key_is_bad(key, len))
        return 0;
    return bl_hash_bytes_scheme(filter->hash, filter->seed, key, len);
}

uint64_t bl_hash_u64(const bl_filter *filter, uint64_t key)
{
    if (filter == NULL)
        return 0;
    switch (filter->hash) {
    case BL_HASH_XXH3: return bl_xxh3_u64_flipped(key, filter->xxh3_flip);
    case BL_HASH_XXH64: return bl_xxh64_u64(key, filter->seed);
    case BL_HASH_MURMUR3_128: return bl_hash_bytes_scheme(filter->hash, filter->seed, &key, 8);
    }
    return 0;
}

static bl_status add_hash(bl_filter *f, uint64_t h)
{
    switch (f->layout) {
    case BL_LAYOUT_BLOCKED:
        if (f->flags & BL_FLAG_CONCURRENT)
            bl_blocked_add_atomic(f->data, f->nblocks, f->k, &h, 1, 1);
        else /* the kernel's permuted mask: 5.0 vs 8.8 ns/key at 2^16 for the spec's k ORs */
            f->kern->blocked_add_one(f->data, f->nblocks, f->k, h);
        break;
    case BL_LAYOUT_SBBF:
        if (f->flags & BL_FLAG_CONCURRENT)
            bl_sbbf_add_atomic(f->data, f->nblocks, &h, 1, 1);
        else
            f->kern->sbbf_add_one(f->data, f->nblocks, h); /* as queries: 8.1 -> 4.7 ns */
        break;
    case BL_LAYOUT_CLASSIC: {
        uint64_t h1, h2;
        bl_classic_hashes_from_prehash(h, &h1, &h2);
        bl_classic_add_h(f, h1, h2);
        break;
    }
    case BL_LAYOUT_COUNTING: /* one key, past the batched add's loop: 197 -> 152 instructions */
        bl_counting_add_hash(f, h);
        break;
    case BL_LAYOUT_SCALABLE:
        return bl_scalable_add_one(f, h);
    }
    bl_count_keys(f, 1);
    return BL_OK;
}

/* Parquet's layout: the kernel's test of one block (one vptest in AVX2) beat the spec's eight
 * scalar shifts, 3.95 -> 3.11 ns/key at 2^16; its one-key entry, in place of the batch one
 * with n = 1, runs 41-55 fewer instructions per query (callgrind). */
static bool sbbf_test_hash(const bl_filter *f, uint64_t h)
{
    return f->kern->sbbf_contains(f->data, f->nblocks, h);
}

static bool test_hash(const bl_filter *f, uint64_t h)
{
    switch (f->layout) {
    case BL_LAYOUT_BLOCKED: return f->kern->blocked_contains(f->data, f->nblocks, f->k, h);
    case BL_LAYOUT_SBBF: return sbbf_test_hash(f, h);
    case BL_LAYOUT_CLASSIC: {
        uint64_t h1, h2;
        bl_classic_hashes_from_prehash(h, &h1, &h2);
        return bl_classic_test_h(f, h1, h2);
    }
    /* (Tried for counting: the scalar probe of the line, bl_counting_test_one, in place of the
     * kernel's. At 2^16 it took 12 ns for hits and, with its early exit, 16 for misses, against
     * the kernel's 10.3; only misses from DRAM gained, 62 against 74 ns at 2^24.) */
    case BL_LAYOUT_COUNTING: return f->contains_hash(f, h);
    /* a chain's stages probed one by one, past the batch path's set-up for one key: 12.2 ->
     * 5.6 ns/key at 2^16 (one stage), 83-98 -> 39-47 at 2^24 */
    case BL_LAYOUT_SCALABLE: return bl_scalable_test_one(f, h);
    }
    return false;
}

/* Every layout but a plain blocked filter, whose keys bl_add adds itself: kept out of line, so
 * that bl_add saves no registers for them. */
__attribute__((noinline)) static bl_status add_bytes(bl_filter *filter, const void *key, size_t len)
{
    if (!writable(filter))
        return BL_E_READ_ONLY;
    if (filter->layout == BL_LAYOUT_CLASSIC) {
        uint64_t h[2];
        bl_murmur3_x64_128(key, len, (uint32_t)filter->seed, h);
        bl_classic_add_h(filter, h[0], h[1]);
        bl_count_keys(filter, 1);
        return BL_OK;
    }
    return add_hash(filter, bl_hash_bytes_scheme(filter->hash, filter->seed, key, len));
}

/* A plain blocked filter's add of one hash: the add compiled for its kernel and k, then the
 * count. */
static inline bl_status add_plain(bl_filter *filter, uint64_t hash)
{
    filter->add_hash_plain(filter, hash);
    filter->keys_added = bl_keys_sum(filter->keys_added, 1);
    return BL_OK;
}

/* A plain blocked filter's key over 16 bytes: XXH3 inline, in one frame with the add compiled
 * for the filter's kernel and k. Through add_bytes (the layout's tests, the scheme's, the
 * kernel's add for any k, two frames saving registers) a 50-byte key took 197 instructions,
 * here 151 (callgrind). Not faster on the busy Zen 3 where it was made (bench_filters' URL
 * insert at 2^16, best of 9, alternated 4 times: 17.2-17.6 before, 17.6-18.0 after). */
__attribute__((noinline)) static bl_status add_long_plain(bl_filter *filter, const void *key,
                                                         size_t len)
{
    return add_plain(filter, XXH3_64bits_withSeed(key, len, filter->seed));
}

__attribute__((flatten)) bl_status bl_add(bl_filter *filter, const void *key, size_t len)
{
    if (filter == NULL || bl_key_is_bad(key, len))
        return BL_E_INVALID;
    if (filter->add_hash_plain != NULL && writable(filter)) {
        if (len > 16)
            return add_long_plain(filter, key, len);
        return add_plain(filter, short_key_xxh3(key, len, filter->seed));
    }
    return add_bytes(filter, key, len);
}

bl_status bl_add_u64(bl_filter *filter, uint64_t key)
{
    if (filter == NULL)
        return BL_E_INVALID;
    /* A plain blocked filter's add: one call compiled for its kernel and k, then the count. */
    if (filter->add_u64_plain != NULL && writable(filter)) {
        filter->add_u64_plain(filter, key);
        filter->keys_added = bl_keys_sum(filter->keys_added, 1);
        return BL_OK;
    }
    if (filter->layout == BL_LAYOUT_CLASSIC)
        return bl_add(filter, &key, sizeof key);
    if (!writable(filter))
        return BL_E_READ_ONLY;
    return add_hash(filter, bl_hash_u64(filter, key));
}

bl_status bl_add_hash(bl_filter *filter, uint64_t hash)
{
    if (filter == NULL)
        return BL_E_INVALID;
    if (filter->add_hash_plain != NULL && writable(filter))
        return add_plain(filter, hash);
    if (!writable(filter))
        return BL_E_READ_ONLY;
    return add_hash(filter, hash);
}

/* Every layout but blocked, which bl_contains answers itself (out of line, as add_bytes). */
__attribute__((noinline)) static bool contains_bytes(const bl_filter *filter, const void *key,
                                                     size_t len)
{
    if (filter->layout == BL_LAYOUT_CLASSIC) {
        uint64_t h[2];
        bl_murmur3_x64_128(key, len, (uint32_t)filter->seed, h);
        return bl_classic_test_h(filter, h[0], h[1]);
    }
    return test_hash(filter, bl_hash_bytes_scheme(filter->hash, filter->seed, key, len));
}

/* A blocked filter's key over 16 bytes: XXH3 inline, in one frame with the call to the probe.
 * Through contains_bytes and bl_xxh3_bytes a 50-byte key took 139 instructions, here 124
 * (callgrind); bench_filters' URL hit at 2^16 on the Zen 3, best of 9, alternated 4 times:
 * 12.1-12.3 -> 11.0-11.6 ns. */
__attribute__((noinline)) static bool contains_long_blocked(const bl_filter *filter,
                                                            const void *key, size_t len)
{
    return filter->contains_hash(filter, XXH3_64bits_withSeed(key, len, filter->seed));
}

__attribute__((flatten)) bool bl_contains(const bl_filter *filter, const void *key, size_t len)
{
    if (filter == NULL || bl_key_is_bad(key, len))
        return false;
    if (filter->layout == BL_LAYOUT_BLOCKED) {
        if (len <= 16)
            return filter->contains_hash(filter, short_key_xxh3(key, len, filter->seed));
        return contains_long_blocked(filter, key, len);
    }
    return contains_bytes(filter, key, len);
}

/* Parquet's layout: XXH64 of the key's 8 bytes, then the block test, past the switches on the
 * layout and the hash scheme (7.9 -> 4.7 ns/key at 2^16, AVX-512 kernel). */
static bool contains_u64_sbbf(const bl_filter *filter, uint64_t key)
{
    return sbbf_test_hash(filter, bl_xxh64_u64(key, filter->seed));
}

/* Every other layout. */
static bool contains_u64_other(const bl_filter *filter, uint64_t key)
{
    if (filter->layout == BL_LAYOUT_CLASSIC)
        return bl_contains(filter, &key, sizeof key);
    return test_hash(filter, bl_hash_u64(filter, key));
}

void bl_filter_set_kernel(bl_filter *f, const struct bl_kernels *kern)
{
    f->kern = kern;
    /* a blocked filter's k is 1..16 (bl_filter_new checks it) */
    if (f->layout == BL_LAYOUT_BLOCKED) {
        f->contains_u64 = kern->blocked_contains_u64_by_k[f->k];
        f->contains_hash = kern->blocked_contains_hash_by_k[f->k];
    } else if (f->layout == BL_LAYOUT_COUNTING) {
        /* the same for counters. callgrind per u64 query at 2^16 (k = 7, AVX2): 181 instructions
         * through test_hash's switch, 116 in the kernel's one-key test for any k, 55 compiled
         * for k; bench_ab against the any-k test: 0.61-0.69 of its time, AVX2 and scalar */
        const struct bl_counting_kernels *ck = bl_counting_kernels_for(kern);
        f->contains_u64 = ck->contains_u64_by_k[f->k];
        f->contains_hash = ck->contains_hash_by_k[f->k];
    } else {
        f->contains_u64 = f->layout == BL_LAYOUT_SBBF ? contains_u64_sbbf : contains_u64_other;
        f->contains_hash = test_hash;
    }
    const bool plain = f->layout == BL_LAYOUT_BLOCKED && !(f->flags & BL_FLAG_CONCURRENT);
    f->add_u64_plain = plain ? kern->blocked_add_u64_by_k[f->k] : NULL;
    f->add_hash_plain = plain ? kern->blocked_add_hash_by_k[f->k] : NULL;
}

bool bl_contains_u64(const bl_filter *filter, uint64_t key)
{
    /* The native layout's single-key query is the embedders' hot path: one call that hashes
     * (seed pre-folded) and probes with SIMD (3.1 vs 7.7 ns/key at 2^16 for hash-then-scalar),
     * chosen with the kernel for the filter's layout and k. */
    return filter != NULL && filter->contains_u64(filter, key);
}

bool bl_contains_hash(const bl_filter *filter, uint64_t hash)
{
    /* as bl_contains_u64: one indirect call to the probe compiled for the filter's k (2.1 ->
     * 1.5 ns/key at 2^16 against the kernel's probe for any k, AVX-512 and AVX2 alike) */
    return filter != NULL && filter->contains_hash(filter, hash);
}

/* ---- Batches ------------------------------------------------------------------------------- */

bl_status bl_add_hashes_uncounted(bl_filter *f, const uint64_t *h, size_t n, size_t avail)
{
    switch (f->layout) {
    case BL_LAYOUT_BLOCKED:
        if (f->flags & BL_FLAG_CONCURRENT)
            bl_blocked_add_atomic(f->data, f->nblocks, f->k, h, n, avail);
        else
            f->kern->blocked_add(f->data, f->nblocks, f->k, h, n, avail);
        break;
    case BL_LAYOUT_SBBF:
        if (f->flags & BL_FLAG_CONCURRENT)
            bl_sbbf_add_atomic(f->data, f->nblocks, h, n, avail);
        else
            f->kern->sbbf_add(f->data, f->nblocks, h, n, avail);
        break;
    case BL_LAYOUT_COUNTING:
        bl_counting_add_hashes(f, h, n, avail);
        break;
    case BL_LAYOUT_SCALABLE:
        return bl_scalable_add_hashes(f, h, n, avail);
    case BL_LAYOUT_CLASSIC: /* classic batches take the classic path (add_keys) */
        for (size_t i = 0; i < n; i++) {
            uint64_t h1, h2;
            bl_classic_hashes_from_prehash(h[i], &h1, &h2);
            bl_classic_add_h(f, h1, h2);
        }
        break;
    }
    return BL_OK;
}

static size_t stage_add(bl_filter *f, const uint64_t *h, size_t n, size_t avail, uint8_t *res,
                        void *ctx)
{
    (void)res;
    bl_status *st = ctx;
    /* Only a scalable chain fails here, when it cannot grow. The batch stops at that key, as
     * bl_params.growth promises (a later chunk's retry might grow, memory freed meanwhile, and
     * add keys past the gap: the keys after a failure would be in the chain and the one before
     * them not), and the rest of the batch is not hashed for nothing. */
    const bl_status s = bl_add_hashes_uncounted(f, h, n, avail);
    if (s != BL_OK) {
        *st = s;
        return BL_STAGE_STOP;
    }
    /* scalable stages count their own keys */
    if (f->layout != BL_LAYOUT_SCALABLE)
        bl_count_keys(f, n);
    return 0;
}

static size_t stage_test(bl_filter *f, const uint64_t *h, size_t n, size_t avail, uint8_t *res,
                         void *ctx)
{
    (void)ctx;
    switch (f->layout) {
    case BL_LAYOUT_BLOCKED: return f->kern->blocked_test(f->data, f->nblocks, f->k, h, n, avail, res);
    case BL_LAYOUT_SBBF: return f->kern->sbbf_test(f->data, f->nblocks, h, n, avail, res);
    case BL_LAYOUT_COUNTING: return bl_counting_test_hashes(f, h, n, avail, res);
    case BL_LAYOUT_SCALABLE: return bl_scalable_test_hashes(f, h, n, avail, res);
    case BL_LAYOUT_CLASSIC: {
        size_t hits = 0;
        for (size_t i = 0; i < n; i++) {
            uint64_t h1, h2;
            bl_classic_hashes_from_prehash(h[i], &h1, &h2);
            hits += bl_answer(res, i, bl_classic_test_h(f, h1, h2));
        }
        return hits;
    }
    }
    return 0;
}

/* Classic filters hash keys to 128 bits (Guava's scheme), so their key batches bypass the
 * 64-bit pipeline; classic exists for compatibility, not speed. */
static void classic_key_hash(const bl_filter *f, const bl_keys *keys, size_t i, uint64_t h[2])
{
    if (keys->kind == BL_KEYS_BYTES) {
        bl_murmur3_x64_128(keys->bytes[i], keys->lens[i], (uint32_t)f->seed, h);
    } else {
        uint64_t v = keys->values[i];
        bl_murmur3_x64_128(&v, 8, (uint32_t)f->seed, h);
    }
}

/* Whether a batch of uint64_t keys goes to the kernel's window-hashed blocked path (its add or
 * test; `kernel_has_it`: not NULL in the table) rather than through bl_pipeline. */
static bool u64_keys_in_window(const bl_filter *f, const bl_keys *keys, bool kernel_has_it)
{
    return kernel_has_it && keys->kind == BL_KEYS_U64 && f->layout == BL_LAYOUT_BLOCKED &&
           f->hash == BL_HASH_XXH3 && f->nbytes > f->kern->keys_in_window_min_bytes;
}

static bl_status add_keys(bl_filter *f, const bl_keys *keys, size_t n)
{
    if (f->layout == BL_LAYOUT_CLASSIC && keys->kind != BL_KEYS_HASH) {
        for (size_t i = 0; i < n; i++) {
            uint64_t h[2];
            classic_key_hash(f, keys, i, h);
            bl_classic_add_h(f, h[0], h[1]);
        }
        bl_count_keys(f, n);
        return BL_OK;
    }
    if (f->add_u64_plain != NULL && /* plain: not concurrent */
        u64_keys_in_window(f, keys, f->kern->blocked_add_u64_keys != NULL)) {
        f->kern->blocked_add_u64_keys(f->data, f->nblocks, f->k, keys->values, n, f->xxh3_flip);
        bl_count_keys(f, n);
        return BL_OK;
    }
    bl_status st = BL_OK;
    bl_pipeline(f, keys, n, NULL, stage_add, &st);
    return st;
}

static size_t test_keys(const bl_filter *cf, const bl_keys *keys, size_t n, uint8_t *res)
{
    if (cf->layout == BL_LAYOUT_CLASSIC && keys->kind != BL_KEYS_HASH) {
        size_t hits = 0;
        for (size_t i = 0; i < n; i++) {
            if (keys->unchecked && bl_key_is_bad(keys->bytes[i], keys->lens[i])) {
                if (res) /* absent, as bl_contains says (bl_keys) */
                    res[i] = 0;
                continue;
            }
            uint64_t h[2];
            classic_key_hash(cf, keys, i, h);
            hits += bl_answer(res, i, bl_classic_test_h(cf, h[0], h[1]));
        }
        return hits;
    }
    if (u64_keys_in_window(cf, keys, cf->kern->blocked_test_u64_keys != NULL))
        return cf->kern->blocked_test_u64_keys(cf->data, cf->nblocks, cf->k, keys->values, n,
                                               cf->xxh3_flip, res);
    /* The stage only reads the filter on this path; the cast lets add and test share bl_pipeline. */
    return bl_pipeline((bl_filter *)cf, keys, n, res, stage_test, NULL);
}

static bl_status check_add(const bl_filter *f, const void *arr, size_t n)
{
    if (f == NULL || (arr == NULL && n != 0))
        return BL_E_INVALID;
    return writable(f) ? BL_OK : BL_E_READ_ONLY;
}

bl_status bl_add_batch(bl_filter *filter, const void *const *keys, const size_t *lens, size_t n)
{
    bl_status st = check_add(filter, keys, n);
    if (st != BL_OK)
        return st;
    if (!bl_byte_keys_valid(filter, keys, lens, n))
        return BL_E_INVALID;
    bl_keys k = {BL_KEYS_BYTES, keys, lens, NULL, false};
    return add_keys(filter, &k, n);
}

bl_status bl_add_u64_batch(bl_filter *filter, const uint64_t *keys, size_t n)
{
    bl_status st = check_add(filter, keys, n);
    if (st != BL_OK)
        return st;
    bl_keys k = {BL_KEYS_U64, NULL, NULL, keys, false};
    return add_keys(filter, &k, n);
}

bl_status bl_add_hash_batch(bl_filter *filter, const uint64_t *hashes, size_t n)
{
    bl_status st = check_add(filter, hashes, n);
    if (st != BL_OK)
        return st;
    bl_keys k = {BL_KEYS_HASH, NULL, NULL, hashes, false};
    return add_keys(filter, &k, n);
}

/* ---- Hashes of many keys ------------------------------------------------------------------ */

bl_status bl_hash_batch(const bl_filter *filter, const void *const *keys, const size_t *lens,
                        size_t n, uint64_t *out)
{
    if (filter == NULL || !bl_byte_keys_valid(filter, keys, lens, n) || (n != 0 && out == NULL))
        return BL_E_INVALID;
    bl_keys k = {BL_KEYS_BYTES, keys, lens, NULL, false};
    if (n != 0)
        bl_hash_keys(filter, &k, 0, n, n, out);
    return BL_OK;
}

bl_status bl_hash_u64_batch(const bl_filter *filter, const uint64_t *keys, size_t n,
                            uint64_t *out)
{
    if (filter == NULL || (n != 0 && (keys == NULL || out == NULL)))
        return BL_E_INVALID;
    bl_keys k = {BL_KEYS_U64, NULL, NULL, keys, false};
    if (n != 0)
        bl_hash_keys(filter, &k, 0, n, n, out);
    return BL_OK;
}

size_t bl_contains_batch(const bl_filter *filter, const void *const *keys, const size_t *lens,
                         size_t n, uint8_t *results)
{
    if (filter == NULL || n == 0 || keys == NULL || lens == NULL)
        return 0;
    /* Not validated first: a NULL key of non-zero length (a caller's bug) is answered absent, as
     * bl_contains answers it, and the others are answered. The check rides on the pipeline,
     * chunk by chunk, while the pointers are in cache (bl_keys.unchecked). */
    bl_keys k = {BL_KEYS_BYTES, keys, lens, NULL, true};
    return test_keys(filter, &k, n, results);
}

size_t bl_contains_u64_batch(const bl_filter *filter, const uint64_t *keys, size_t n,
                             uint8_t *results)
{
    if (filter == NULL || n == 0 || keys == NULL)
        return 0;
    bl_keys k = {BL_KEYS_U64, NULL, NULL, keys, false};
    return test_keys(filter, &k, n, results);
}

size_t bl_contains_hash_batch(const bl_filter *filter, const uint64_t *hashes, size_t n,
                              uint8_t *results)
{
    if (filter == NULL || n == 0 || hashes == NULL)
        return 0;
    bl_keys k = {BL_KEYS_HASH, NULL, NULL, hashes, false};
    return test_keys(filter, &k, n, results);
}
