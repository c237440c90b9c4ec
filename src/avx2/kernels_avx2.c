/* SPDX-License-Identifier: MIT */
/* The AVX2 kernel's blocked layout, a key's k probes in one or two ymm with the line's words
 * picked by vpermd, and its table (uint64_t hashing: hash_avx2.c; Parquet blocks: sbbf_avx2.c). */
#include "hash_avx2.h"
#include "kernels_avx2.h"

#include <immintrin.h>

#define BL_INLINE static inline __attribute__((always_inline))

/* ---- Blocked layout ------------------------------------------------------------------------- */

/* Probes 0..7, the probe-order form (queries with k <= 8, adds with k < 8; more probes take the
 * word-order form, blocked_line_bits): their multipliers, and 1 in the lanes of probes the key
 * has (k of them), 0 past k, so those lanes' bits are 0: never missing, never set. Built in
 * registers: a stack array read back as a vector stalls store forwarding, which costs more than
 * a probe on single-key calls. */
typedef struct probe_group {
    __m256i mul, one;
    __m256i offsets_top; /* D_k of these probes << 28 (bl_avx2_probe_words) */
} probe_group;

static probe_group blocked_group(unsigned k)
{
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i used = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)k), lane);
    const __m256i offsets = _mm256_load_si256((const __m256i *)(const void *)bl_blocked_offsets[k]);
    return (probe_group){_mm256_loadu_si256((const __m256i *)(const void *)bl_blocked_mul),
                         _mm256_and_si256(used, _mm256_set1_epi32(1)),
                         _mm256_slli_epi32(offsets, 28)};
}

/* Lane i's bit: 1 << (x >> 27) with x = (uint32)h * mul[i]. */
BL_INLINE __m256i blocked_bits(__m256i hv, probe_group g)
{
    return _mm256_sllv_epi32(g.one, _mm256_srli_epi32(_mm256_mullo_epi32(hv, g.mul), 27));
}

/* The words of up to 8 probes out of the line (lo = words 0..7, hi = 8..15). */
BL_INLINE __m256i blocked_words(__m256i lo, __m256i hi, __m256i hv, probe_group g)
{
    return bl_avx2_probe_words(lo, hi, hv, g.offsets_top);
}

/* A key's bits in the line's own word order (lo = words 0..7, hi = 8..15), for queries with
 * k > 8 and adds with k >= 8: word w gets 1 << (x * m >> 27), m the multiplier of its probe (0
 * where it has none: min(m, 1) zeroes that lane's bit). Two loads from the doubled table
 * (bl_blocked_mul_of_word) and no word permutation, where picking 16 probes' words took four
 * vpermd and two blends. llvm-mca, cycles per key of the batched test: Zen 3 7.5 -> 4.2,
 * Skylake 8.4 -> 7.6, Zen 2 8.0 -> 7.0. Queries with k <= 8 keep their two vpermd: they
 * multiply one vector, not two (Skylake 4.5 against 7.6; Zen 3 4.7 against 4.2). */
BL_INLINE void blocked_line_bits(__m256i hv, uint64_t h, const uint32_t *word_mul, __m256i *lo,
                                 __m256i *hi)
{
    const uint32_t *m = word_mul + 16 - bl_blocked_shift(h);
    const __m256i mlo = _mm256_loadu_si256((const __m256i *)(const void *)m);
    const __m256i mhi = _mm256_loadu_si256((const __m256i *)(const void *)(m + 8));
    const __m256i one = _mm256_set1_epi32(1);
    *lo = _mm256_sllv_epi32(_mm256_min_epu32(mlo, one),
                            _mm256_srli_epi32(_mm256_mullo_epi32(hv, mlo), 27));
    *hi = _mm256_sllv_epi32(_mm256_min_epu32(mhi, one),
                            _mm256_srli_epi32(_mm256_mullo_epi32(hv, mhi), 27));
}

/* One key against its line; `two`: k > 8 (a compile-time constant after inlining). */
BL_INLINE bool blocked_line_has(const uint8_t *line, uint64_t h, probe_group g0,
                                const uint32_t *word_mul, bool two)
{
    const __m256i *v = (const __m256i *)(const void *)line;
    const __m256i lo = _mm256_load_si256(v), hi = _mm256_load_si256(v + 1);
    const __m256i hv = _mm256_set1_epi32((int)(uint32_t)h);
    if (!two) { /* vptest's carry: no bit of bit0 missing from word0 (one vpandn fewer) */
        const __m256i word0 = blocked_words(lo, hi, hv, g0), bit0 = blocked_bits(hv, g0);
        return _mm256_testc_si256(word0, bit0);
    }
    __m256i bits_lo, bits_hi;
    blocked_line_bits(hv, h, word_mul, &bits_lo, &bits_hi);
    const __m256i miss =
        _mm256_or_si256(_mm256_andnot_si256(lo, bits_lo), _mm256_andnot_si256(hi, bits_hi));
    return _mm256_testz_si256(miss, miss);
}

BL_INLINE size_t blocked_test_loop(const uint8_t *data, uint64_t nlines, const uint64_t *h,
                                   size_t n, size_t avail, uint8_t *res, probe_group g0,
                                   const uint32_t *word_mul, bool two)
{
    bl_window win;
    bl_window_start(&win, data, nlines, h, avail, false);
    size_t hits = 0, i = 0;
    uint8_t unwanted[8]; /* answers nobody asked for (res NULL): stored all the same, as a store
                          * costs less than testing res for each key */
    for (; bl_window_fits8(&win, nlines, i, n, avail); i += 8) {
        const uint8_t *line[8];
        bl_window_next8(&win, data, nlines, h, i, line);
        uint8_t *out = res ? res + i : unwanted;
        for (unsigned j = 0; j < 8; j++) {
            const int r = blocked_line_has(line[j], h[i + j], g0, word_mul, two);
            hits += (size_t)r;
            out[j] = (uint8_t)r;
        }
    }
    for (; i < n; i++) {
        hits += bl_answer(res, i,
                          blocked_line_has(bl_window_next(&win, data, nlines, h, i, avail, false),
                                           h[i], g0, word_mul, two));
    }
    return hits;
}

size_t bl_blocked_test_avx2(const uint8_t *data, uint64_t nlines, unsigned k, const uint64_t *h,
                            size_t n, size_t avail, uint8_t *res)
{
    const probe_group g0 = blocked_group(k);
    const uint32_t *word_mul = bl_blocked_mul_of_word[k];
    if (k <= 8)
        return blocked_test_loop(data, nlines, h, n, avail, res, g0, word_mul, false);
    return blocked_test_loop(data, nlines, h, n, avail, res, g0, word_mul, true);
}

/* ---- Blocked queries of uint64_t keys hashed in the window ---------------------------------- */

/* The window over the first keys, and the constants its steps use. */
typedef struct key_window_consts {
    __m256i vflip, vnlines, vdata;
} key_window_consts;

BL_INLINE key_window_consts key_window_start(bl_key_window *w, const uint8_t *data, uint64_t nlines,
                                             const uint64_t *keys, size_t n, uint64_t flip,
                                             bool write)
{
    bl_key_window_start(w, data, nlines, keys, n, flip, write);
    return (key_window_consts){_mm256_set1_epi64x((long long)flip),
                               _mm256_set1_epi64x((long long)nlines),
                               _mm256_set1_epi64x((long long)(uintptr_t)data)};
}

/* The step of keys i .. i + 7 (i a multiple of 8): their lines and hashes out of the ring into
 * line and h, and keys i + depth .. + 7 (those below n) into the same slots: at once when all
 * eight exist and nlines < 2^32 (two vector hashes, their lines from bl_line_offsets4), else
 * one by one. Every key enters once: keys below depth at the start, key j >= depth with the
 * step of key j - depth (which exists, as depth > 8). The eight entered at once are prefetched
 * here for a query; an add (`write`) prefetches them itself, one per key it ORs in (a burst of
 * eight write prefetches gained nothing). */
BL_INLINE void key_window_step8(bl_key_window *w, key_window_consts c, const uint8_t *data,
                                uint64_t nlines, const uint64_t *keys, size_t n, size_t i,
                                uint64_t flip, bool write, const uint8_t *line[8], uint64_t h[8])
{
    const size_t slot = i & (w->depth - 1), ahead = i + w->depth;
    memcpy(line, w->line + slot, 8 * sizeof *line);
    memcpy(h, w->hash + slot, 8 * sizeof *h);
    if (ahead + 8 > n || nlines > UINT32_MAX) {
        for (size_t j = ahead; j < n && j < ahead + 8; j++)
            bl_key_window_enter(w, data, nlines, keys, j, flip, write);
        return;
    }
    for (unsigned half = 0; half < 2; half++) {
        const __m256i hv = bl_avx2_xxh3_u64x4(keys + ahead + 4 * half, c.vflip);
        _mm256_storeu_si256((__m256i *)(void *)(w->hash + slot + 4 * half), hv);
        const __m256i at = _mm256_add_epi64(c.vdata, bl_line_offsets4(hv, c.vnlines));
        _mm256_storeu_si256((__m256i *)(void *)(w->line + slot + 4 * half), at);
    }
    for (unsigned q = 0; q < 8 && !write; q++) /* read back: see bl_prefetch4 */
        BL_PREFETCH_R(w->line[slot + q]);
}

/* Eight keys a step (key_window_step8), then the last n % 8 one by one from the ring. */
BL_INLINE size_t blocked_test_keys_loop(const uint8_t *data, uint64_t nlines, const uint64_t *keys,
                                        size_t n, uint64_t flip, uint8_t *res, probe_group g0,
                                        const uint32_t *word_mul, bool two)
{
    bl_key_window w;
    const key_window_consts c = key_window_start(&w, data, nlines, keys, n, flip, false);
    uint8_t unwanted[8]; /* as blocked_test_loop */
    size_t hits = 0, i = 0;
    for (; i + 8 <= n; i += 8) {
        const uint8_t *line[8];
        uint64_t h[8];
        key_window_step8(&w, c, data, nlines, keys, n, i, flip, false, line, h);
        uint8_t *out = res ? res + i : unwanted;
        for (unsigned q = 0; q < 8; q++) {
            const int r = blocked_line_has(line[q], h[q], g0, word_mul, two);
            hits += (size_t)r;
            out[q] = (uint8_t)r;
        }
    }
    for (; i < n; i++) {
        const size_t slot = i & (w.depth - 1);
        hits += bl_answer(res, i, blocked_line_has(w.line[slot], w.hash[slot], g0, word_mul, two));
    }
    return hits;
}

static size_t blocked_test_keys_avx2(const uint8_t *data, uint64_t nlines, unsigned k,
                                     const uint64_t *keys, size_t n, uint64_t flip, uint8_t *res)
{
    const probe_group g0 = blocked_group(k);
    const uint32_t *word_mul = bl_blocked_mul_of_word[k];
    if (k <= 8)
        return blocked_test_keys_loop(data, nlines, keys, n, flip, res, g0, word_mul, false);
    return blocked_test_keys_loop(data, nlines, keys, n, flip, res, g0, word_mul, true);
}

/* One key: the batched loop's body without the window (two dependent loads at most). */
BL_INLINE bool blocked_probe_one(const uint8_t *data, uint64_t nlines, unsigned k, uint64_t h)
{
    const uint8_t *line = BL_LINE_AT(data, nlines, h);
    if (k <= 8)
        return blocked_line_has(line, h, blocked_group(k), bl_blocked_mul_of_word[k], false);
    return blocked_line_has(line, h, blocked_group(k), bl_blocked_mul_of_word[k], true);
}

static bool blocked_contains_avx2(const uint8_t *data, uint64_t nlines, unsigned k, uint64_t h)
{
    return blocked_probe_one(data, nlines, k, h);
}

BL_CONTAINS_U64_BY_K(static, blocked_contains_u64_avx2, blocked_probe_one);
BL_CONTAINS_HASH_BY_K(static, blocked_contains_hash_avx2, blocked_probe_one);

/* Adds: the key's bits in the line's word order, ORed into the line with one read-modify-write
 * of each half. `wide` (k >= 8, a constant after inlining): from blocked_line_bits, which for
 * k = 8 .. 16 made adds 0.84-0.89x the time of the probe-order bits picked into words with four
 * vpermd and two blends (Zen 3, 2^16 keys, k = 8 and 11). Up to 7 probes: their lanes moved to
 * their words with two vpermd, word w taking the probe with offset w - r (two unaligned loads
 * from the doubled inverse table; lane 15, 15 mod 8 = 7, is 0 in the first group for k < 8, so
 * words without a probe get no bit), one multiply where the table costs two. Returns whether
 * the line lacked one of them (callers that do not ask pay nothing). */
BL_INLINE bool line_or_key(uint8_t *line, uint64_t h, probe_group g0, const uint32_t *probe_of,
                           const uint32_t *word_mul, bool wide)
{
    const __m256i hv = _mm256_set1_epi32((int)(uint32_t)h);
    __m256i lo, hi;
    if (!wide) {
        const __m256i b0 = blocked_bits(hv, g0);
        const uint32_t *p = probe_of + 16 - bl_blocked_shift(h);
        const __m256i idx_lo = _mm256_loadu_si256((const __m256i *)(const void *)p);
        const __m256i idx_hi = _mm256_loadu_si256((const __m256i *)(const void *)(p + 8));
        lo = _mm256_permutevar8x32_epi32(b0, idx_lo);
        hi = _mm256_permutevar8x32_epi32(b0, idx_hi);
    } else {
        blocked_line_bits(hv, h, word_mul, &lo, &hi);
    }
    __m256i *v = (__m256i *)(void *)line;
    const __m256i old_lo = _mm256_load_si256(v), old_hi = _mm256_load_si256(v + 1);
    _mm256_store_si256(v, _mm256_or_si256(old_lo, lo));
    _mm256_store_si256(v + 1, _mm256_or_si256(old_hi, hi));
    return !(_mm256_testc_si256(old_lo, lo) & _mm256_testc_si256(old_hi, hi));
}

/* The add loop. `count` (a constant): count the keys whose line lacked one of their bits and
 * stop once `room` are taken (blocked_add_new); returns the keys gone through. */
BL_INLINE size_t blocked_add_loop(uint8_t *data, uint64_t nlines, unsigned k, const uint64_t *h,
                                  size_t n, size_t avail, uint64_t room, uint64_t *taken,
                                  bool wide, bool count)
{
    const probe_group g0 = blocked_group(k);
    bl_window win;
    bl_window_start(&win, data, nlines, h, avail, true);
    uint64_t t = 0;
    size_t i = 0;
    for (; i < n && (!count || t < room); i++) {
        const bool lacked =
            line_or_key((uint8_t *)(uintptr_t)bl_window_next(&win, data, nlines, h, i, avail, true),
                        h[i], g0, bl_blocked_probe_of[k], bl_blocked_mul_of_word[k], wide);
        if (count)
            t += lacked;
    }
    if (count)
        *taken += t;
    return i;
}

static size_t blocked_add_new_avx2(uint8_t *data, uint64_t nlines, unsigned k, const uint64_t *h,
                                   size_t n, size_t avail, uint64_t room, uint64_t *taken)
{
    if (k < 8)
        return blocked_add_loop(data, nlines, k, h, n, avail, room, taken, false, true);
    return blocked_add_loop(data, nlines, k, h, n, avail, room, taken, true, true);
}

/* The batched add of uint64_t keys hashed in the window: blocked_test_keys_loop's steps with
 * line_or_key for the probes. */
BL_INLINE void blocked_add_keys_loop(uint8_t *data, uint64_t nlines, unsigned k,
                                     const uint64_t *keys, size_t n, uint64_t flip, bool wide)
{
    const probe_group g0 = blocked_group(k);
    const uint32_t *probe_of = bl_blocked_probe_of[k], *word_mul = bl_blocked_mul_of_word[k];
    bl_key_window w;
    const key_window_consts c = key_window_start(&w, data, nlines, keys, n, flip, true);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const uint8_t *line[8];
        uint64_t h[8];
        key_window_step8(&w, c, data, nlines, keys, n, i, flip, true, line, h);
        const size_t slot = i & (w.depth - 1);
        for (unsigned q = 0; q < 8; q++) {
            BL_PREFETCH_W(w.line[slot + q]);
            line_or_key((uint8_t *)(uintptr_t)line[q], h[q], g0, probe_of, word_mul, wide);
        }
    }
    for (; i < n; i++) {
        const size_t slot = i & (w.depth - 1);
        line_or_key((uint8_t *)(uintptr_t)w.line[slot], w.hash[slot], g0, probe_of, word_mul, wide);
    }
}

static void blocked_add_keys_avx2(uint8_t *data, uint64_t nlines, unsigned k,
                                  const uint64_t *keys, size_t n, uint64_t flip)
{
    if (k < 8)
        blocked_add_keys_loop(data, nlines, k, keys, n, flip, false);
    else
        blocked_add_keys_loop(data, nlines, k, keys, n, flip, true);
}

BL_INLINE void blocked_or_key(uint8_t *data, uint64_t nlines, unsigned k, uint64_t h)
{
    uint8_t *line = (uint8_t *)(uintptr_t)BL_LINE_AT(data, nlines, h);
    const probe_group g0 = blocked_group(k);
    const uint32_t *probe_of = bl_blocked_probe_of[k], *word_mul = bl_blocked_mul_of_word[k];
    if (k < 8)
        line_or_key(line, h, g0, probe_of, word_mul, false);
    else
        line_or_key(line, h, g0, probe_of, word_mul, true);
}

static void blocked_add_one_avx2(uint8_t *data, uint64_t nlines, unsigned k, uint64_t h)
{
    blocked_or_key(data, nlines, k, h);
}

BL_ADD_U64_BY_K(static, blocked_add_u64_avx2, blocked_or_key);
BL_ADD_HASH_BY_K(static, blocked_add_hash_avx2, blocked_or_key);

void bl_blocked_add_avx2(uint8_t *data, uint64_t nlines, unsigned k, const uint64_t *h, size_t n,
                         size_t avail)
{
    if (k < 8)
        (void)blocked_add_loop(data, nlines, k, h, n, avail, 0, NULL, false, false);
    else
        (void)blocked_add_loop(data, nlines, k, h, n, avail, 0, NULL, true, false);
}

const struct bl_kernels bl_kernels_avx2 = {
    .name = "avx2",
    .required = BL_CPU_AVX2,
    .hash_u64_xxh3 = bl_hash_u64_xxh3_avx2,
    .hash_u64_xxh64 = bl_hash_u64_xxh64_avx2,
    .blocked_test_u64_keys = blocked_test_keys_avx2,
    .blocked_add_u64_keys = blocked_add_keys_avx2,
    .keys_in_window_min_bytes = BL_KEYS_IN_WINDOW_MIN_BYTES,
    .null_keys_empty = bl_null_keys_empty_avx2,
    .blocked_add = bl_blocked_add_avx2,
    .blocked_test = bl_blocked_test_avx2,
    .blocked_contains = blocked_contains_avx2,
    .blocked_contains_u64_by_k = blocked_contains_u64_avx2,
    .blocked_add_u64_by_k = blocked_add_u64_avx2,
    .blocked_contains_hash_by_k = blocked_contains_hash_avx2,
    .blocked_add_hash_by_k = blocked_add_hash_avx2,
    .blocked_add_one = blocked_add_one_avx2,
    .blocked_add_new = blocked_add_new_avx2,
    .sbbf_add = bl_sbbf_add_avx2,
    .sbbf_test = bl_sbbf_test_avx2,
    .sbbf_add_one = bl_sbbf_add_one_avx2,
    .sbbf_contains = bl_sbbf_contains_avx2,
    .count_bits = bl_count_bits_avx2,
    .count_nonzero_nibbles = bl_count_nonzero_nibbles_avx2,
};
