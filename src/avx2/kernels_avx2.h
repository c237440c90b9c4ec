/* SPDX-License-Identifier: MIT */
/* The AVX2 kernel's operations, shared with the AVX-512 table for the ops AVX-512 does not speed up. */
#ifndef BL_KERNELS_AVX2_H
#define BL_KERNELS_AVX2_H

#include "../internal.h"

#include <immintrin.h>

bool bl_null_keys_empty_avx2(const void *const *bytes, const size_t *lens, size_t n);
void bl_hash_u64_xxh3_avx2(const uint64_t *keys, size_t n, uint64_t seed, uint64_t *out);
void bl_hash_u64_xxh64_avx2(const uint64_t *keys, size_t n, uint64_t seed, uint64_t *out);
void bl_blocked_add_avx2(uint8_t *data, uint64_t nlines, unsigned k, const uint64_t *h, size_t n,
                         size_t avail);
size_t bl_blocked_test_avx2(const uint8_t *data, uint64_t nlines, unsigned k, const uint64_t *h,
                            size_t n, size_t avail, uint8_t *res);
void bl_sbbf_add_avx2(uint8_t *data, uint64_t nblocks, const uint64_t *h, size_t n, size_t avail);
size_t bl_sbbf_test_avx2(const uint8_t *data, uint64_t nblocks, const uint64_t *h, size_t n,
                         size_t avail, uint8_t *res);
void bl_sbbf_add_one_avx2(uint8_t *data, uint64_t nblocks, uint64_t h);
bool bl_sbbf_contains_avx2(const uint8_t *data, uint64_t nblocks, uint64_t h);
uint64_t bl_count_bits_avx2(const uint8_t *data, uint64_t nbytes);
uint64_t bl_count_nonzero_nibbles_avx2(const uint8_t *data, uint64_t nbytes);

/* Lanes of a 16-lane vector (lo = 0..7, hi = 8..15): vpermd takes lane idx mod 8 of each half,
 * and blendvps takes hi's where `sign` has its sign bit set. */
static inline __attribute__((always_inline)) __m256i
bl_avx2_pick16_by_sign(__m256i lo, __m256i hi, __m256i idx, __m256i sign)
{
    return _mm256_castps_si256(_mm256_blendv_ps(
        _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(lo, idx)),
        _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(hi, idx)), _mm256_castsi256_ps(sign)));
}

/* Probe words of a blocked or counting line (lo = words 0..7, hi = 8..15): for 8 probes, word
 * r + D_k[i] mod 16 with r the top 4 bits of x = (uint32)h, given D_k[i] << 28 in `offsets_top`.
 * x + (D_k[i] << 28) holds that word in its top 4 bits: shifted down, vpermd reads its low 3
 * from each half, and its sign (bit 3 of the word) picks the half with blendvps. (One shift
 * fewer than shifting r down, adding D_k and shifting bit 3 back up to the sign.) */
static inline __attribute__((always_inline)) __m256i
bl_avx2_probe_words(__m256i lo, __m256i hi, __m256i x, __m256i offsets_top)
{
    const __m256i top = _mm256_add_epi32(x, offsets_top);
    return bl_avx2_pick16_by_sign(lo, hi, _mm256_srli_epi32(top, 28), top);
}

/* The rolling prefetch window of the blocked layout. A key's line address costs a 64x64->128
 * multiply; each is computed once, when the key enters the window (and its line is prefetched),
 * kept in a ring of `depth` slots, and reused when the key is probed. The depth is
 * BL_PREFETCH_DISTANCE, or BL_DEEP_WINDOW on filters that fit a last-level cache. */
typedef struct bl_window {
    size_t depth; /* a power of two */
    const uint8_t *line[BL_DEEP_WINDOW];
} bl_window;

/* Enter keys [0, min(depth, avail)). `write`: prefetch with intent to modify (adds). */
static inline __attribute__((always_inline)) void
bl_window_start(bl_window *w, const uint8_t *data, uint64_t nlines, const uint64_t *h,
                size_t avail, bool write)
{
    w->depth = bl_window_depth(nlines);
    const size_t m = avail < w->depth ? avail : w->depth;
    for (size_t i = 0; i < m; i++) {
        w->line[i] = BL_LINE_AT(data, nlines, h[i]);
        if (write)
            BL_PREFETCH_W(w->line[i]);
        else
            BL_PREFETCH_R(w->line[i]);
    }
}

/* The line of key i (which must be the next key in order); key i + D enters the window. */
static inline __attribute__((always_inline)) const uint8_t *
bl_window_next(bl_window *w, const uint8_t *data, uint64_t nlines, const uint64_t *h, size_t i,
               size_t avail, bool write)
{
    const size_t slot = i & (w->depth - 1);
    const uint8_t *line = w->line[slot];
    /* Likely: Clang otherwise placed this block after the loop's end, entered and left by
     * jumps, which cost its add loop 1.88 against 1.45 ns/key at 2^16 (gcc lays it in line). */
    if (__builtin_expect(i + w->depth < avail, 1)) {
        const uint8_t *ahead = BL_LINE_AT(data, nlines, h[i + w->depth]);
        if (write)
            BL_PREFETCH_W(ahead);
        else
            BL_PREFETCH_R(ahead);
        w->line[slot] = ahead;
    }
    return line;
}

/* Prefetch the four lines whose addresses `at` holds, taken out of the register rather than read
 * back from the ring slots just stored. Read back, an address at another offset than the start
 * of a wide store seems not to be forwarded on a Zen 5: it waits for the store to reach L1, so
 * for the probes before it to retire, lines still in flight included, and the window stalls.
 * bench_ab on a Zen 5, new/old medians of 31-61 alternated repetitions: the AVX-512
 * window-hashed query (blocked_test_keys_avx512), first written with the loads, took 1.13-1.5x
 * the time at 2^24 and 2^27 keys; the AVX-512 window_next8, whose gcc code read back only the
 * first address, 0.95x at 2^20 and 0.96x at 2^24 (queries). The AVX2 windows still read back:
 * with this they measured 1.00x in cache, but in DRAM on a busy host 0.97-1.67x on hits at 2^24
 * (four runs) and 0.96-1.05x on misses at 2^27, which does not show a gain (bench/NOTES.md). */
static inline __attribute__((always_inline)) void bl_prefetch4(__m256i at, bool write)
{
    const __m128i pair[2] = {_mm256_castsi256_si128(at), _mm256_extracti128_si256(at, 1)};
    for (unsigned j = 0; j < 2; j++) {
        const void *a = (const void *)(uintptr_t)_mm_cvtsi128_si64(pair[j]);
        const void *b = (const void *)(uintptr_t)_mm_extract_epi64(pair[j], 1);
        if (write) {
            BL_PREFETCH_W(a);
            BL_PREFETCH_W(b);
        } else {
            BL_PREFETCH_R(a);
            BL_PREFETCH_R(b);
        }
    }
}

/* The rolling window with each key's hash beside its line, for batches of uint64_t keys
 * (blocked_test_u64_keys, blocked_add_u64_keys): a key is hashed (XXH3, the seed folded into
 * `flip`) as it enters, D keys ahead of its probe, so the hashing runs while the lines in flight
 * arrive. The pipeline's hash stage, 1024 keys between two probe calls, leaves the memory idle
 * meanwhile: a 2^24-key query cost about the hash stage plus the probe of hashes (bench_parts). */
typedef struct bl_key_window {
    size_t depth; /* bl_window_depth: a power of two, a multiple of 8 */
    const uint8_t *line[BL_DEEP_WINDOW];
    uint64_t hash[BL_DEEP_WINDOW];
} bl_key_window;

/* Key j enters: its hash, its line, the line prefetched (`write`: for an add). */
static inline __attribute__((always_inline)) void
bl_key_window_enter(bl_key_window *w, const uint8_t *data, uint64_t nlines, const uint64_t *keys,
                    size_t j, uint64_t flip, bool write)
{
    const size_t slot = j & (w->depth - 1);
    w->hash[slot] = bl_xxh3_u64_flipped(keys[j], flip);
    w->line[slot] = BL_LINE_AT(data, nlines, w->hash[slot]);
    if (write)
        BL_PREFETCH_W(w->line[slot]);
    else
        BL_PREFETCH_R(w->line[slot]);
}

/* Enter keys [0, min(depth, n)). */
static inline __attribute__((always_inline)) void
bl_key_window_start(bl_key_window *w, const uint8_t *data, uint64_t nlines, const uint64_t *keys,
                    size_t n, uint64_t flip, bool write)
{
    w->depth = bl_window_depth(nlines);
    for (size_t j = 0; j < n && j < w->depth; j++)
        bl_key_window_enter(w, data, nlines, keys, j, flip, write);
}

/* The byte offsets of four keys' lines, mulhi64(h, nlines) * 64, for nlines < 2^32: with
 * h = a 2^32 + b, floor(h n / 2^64) = floor((a n + floor(b n / 2^32)) / 2^32), and the sum fits
 * in 64 bits. */
static inline __attribute__((always_inline)) __m256i bl_line_offsets4(__m256i h, __m256i nlines)
{
    const __m256i lo = _mm256_mul_epu32(h, nlines);
    const __m256i hi = _mm256_mul_epu32(_mm256_srli_epi64(h, 32), nlines);
    const __m256i sum = _mm256_add_epi64(hi, _mm256_srli_epi64(lo, 32));
    return _mm256_slli_epi64(_mm256_srli_epi64(sum, 32), 6);
}

/* Whether the window can move eight keys at once from key i (bl_window_next8 here, the AVX-512
 * kernel's window_next8): the lines fit the vector offsets, and keys i .. i + 7 and their
 * successors depth ahead are in the batch. */
static inline __attribute__((always_inline)) bool
bl_window_fits8(const bl_window *w, uint64_t nlines, size_t i, size_t n, size_t avail)
{
    return nlines <= UINT32_MAX && i + 8 <= n && i + w->depth + 8 <= avail;
}

/* The window moved eight keys at a time (bl_window_fits8): the lines of keys i .. i + 7 out of
 * their ring slots into `line`, and the lines of keys i + depth .. + 7 computed in two vectors,
 * stored over those slots (the depth is a multiple of 8) and prefetched for reading. Eight `mul`s,
 * shifts and adds become a few vector operations. Batched queries (AVX2 kernel) on a Zen 5, 6 runs
 * alternated with the key-by-key window: 2^24 keys 1.78 -> 1.61x of the paired probe (hit), 2^20
 * 2.58 -> 2.34x, 2^16 2.34 -> 2.17 ns/key, 2^27 no change. Adds keep the key-by-key window: this
 * one made them slower (1.56 -> 1.65x of the read-modify-write probe at 2^24). */
static inline __attribute__((always_inline)) void
bl_window_next8(bl_window *w, const uint8_t *data, uint64_t nlines, const uint64_t *h, size_t i,
                const uint8_t *line[8])
{
    const __m256i vn = _mm256_set1_epi64x((long long)nlines);
    const __m256i vdata = _mm256_set1_epi64x((long long)(uintptr_t)data);
    const uint8_t **slot = &w->line[i & (w->depth - 1)];
    memcpy(line, slot, 8 * sizeof *line);
    const uint64_t *ahead = h + i + w->depth;
    for (unsigned half = 0; half < 2; half++) {
        const __m256i hv = _mm256_loadu_si256((const __m256i *)(const void *)(ahead + 4 * half));
        const __m256i at = _mm256_add_epi64(vdata, bl_line_offsets4(hv, vn));
        _mm256_storeu_si256((__m256i *)(void *)(slot + 4 * half), at);
    }
    for (unsigned j = 0; j < 8; j++) /* read back: see bl_prefetch4 */
        BL_PREFETCH_R(slot[j]);
}

#endif
