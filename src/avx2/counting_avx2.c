/* SPDX-License-Identifier: MIT */
/* AVX2 counting kernels: 8 probe positions per multiply, line-wide counter updates in bytes. */
#include <immintrin.h>

#include "../counting.h"

/*
 * A line's 128 counters are split into four byte vectors: the low nibbles (even counters) and
 * high nibbles (odd counters) of bytes 0..31 and 32..63. A key's k probes become per-counter
 * probe counts (one compare per vector per probe, so repeated probes count twice), and the
 * update is then one saturating add (add) or one checked subtract (remove) per vector. This
 * equals the scalar spec's sequence of single steps: k saturating increments of a counter v
 * give min(v + cnt, 15), and cnt checked decrements give v - cnt, or leave 15 alone, or fail
 * when v < cnt.
 */

typedef struct bl_split {
    __m256i lo0, hi0, lo1, hi1;
} bl_split;

/* The counter index each byte lane of the four split vectors holds. */
static inline void counter_index(bl_split *c)
{
    const __m256i two_j = _mm256_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28,
                                           30, 32, 34, 36, 38, 40, 42, 44, 46, 48, 50, 52, 54, 56,
                                           58, 60, 62);
    const __m256i one = _mm256_set1_epi8(1), s64 = _mm256_set1_epi8(64);
    c->lo0 = two_j;
    c->hi0 = _mm256_add_epi8(two_j, one);
    c->lo1 = _mm256_add_epi8(two_j, s64);
    c->hi1 = _mm256_add_epi8(c->hi0, s64);
}

/* The k probe positions (0..127) of h. */
static inline void positions(uint64_t h, unsigned k, uint32_t pos[16])
{
    const __m256i x = _mm256_set1_epi32((int)(uint32_t)h);
    const __m256i m0 = _mm256_loadu_si256((const __m256i *)(const void *)bl_blocked_mul);
    _mm256_storeu_si256((__m256i *)(void *)pos, _mm256_srli_epi32(_mm256_mullo_epi32(x, m0), 25));
    if (k > 8) {
        const __m256i m1 = _mm256_loadu_si256((const __m256i *)(const void *)(bl_blocked_mul + 8));
        _mm256_storeu_si256((__m256i *)(void *)(pos + 8),
                            _mm256_srli_epi32(_mm256_mullo_epi32(x, m1), 25));
    }
}

static inline void probe_counts(const bl_split *idx, uint64_t h, unsigned k, bl_split *cnt)
{
    uint32_t pos[16];
    positions(h, k, pos);
    cnt->lo0 = cnt->hi0 = cnt->lo1 = cnt->hi1 = _mm256_setzero_si256();
    for (unsigned i = 0; i < k; i++) {
        const __m256i p = _mm256_set1_epi8((char)pos[i]);
        /* cmpeq gives -1 where the lane is the probed counter: subtracting it counts one. */
        cnt->lo0 = _mm256_sub_epi8(cnt->lo0, _mm256_cmpeq_epi8(idx->lo0, p));
        cnt->hi0 = _mm256_sub_epi8(cnt->hi0, _mm256_cmpeq_epi8(idx->hi0, p));
        cnt->lo1 = _mm256_sub_epi8(cnt->lo1, _mm256_cmpeq_epi8(idx->lo1, p));
        cnt->hi1 = _mm256_sub_epi8(cnt->hi1, _mm256_cmpeq_epi8(idx->hi1, p));
    }
}

static inline void load_split(const uint8_t *line, bl_split *v)
{
    const __m256i m = _mm256_set1_epi8(15);
    const __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)line);
    const __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(line + 32));
    v->lo0 = _mm256_and_si256(a, m);
    v->hi0 = _mm256_and_si256(_mm256_srli_epi16(a, 4), m);
    v->lo1 = _mm256_and_si256(b, m);
    v->hi1 = _mm256_and_si256(_mm256_srli_epi16(b, 4), m);
}

/* Unaligned loads and stores: a mapped file need not place the payload on a 64-byte boundary.
 * Each byte is <= 15, so shifting 16-bit lanes by 4 never carries into the next byte. */
static inline void store_split(uint8_t *line, const bl_split *v)
{
    _mm256_storeu_si256((__m256i *)(void *)line,
                       _mm256_or_si256(v->lo0, _mm256_slli_epi16(v->hi0, 4)));
    _mm256_storeu_si256((__m256i *)(void *)(line + 32),
                       _mm256_or_si256(v->lo1, _mm256_slli_epi16(v->hi1, 4)));
}

static inline __m256i sat_add(__m256i v, __m256i cnt)
{
    return _mm256_min_epu8(_mm256_adds_epu8(v, cnt), _mm256_set1_epi8(15));
}

/* Checked subtract: *bad gets lanes where v < cnt and v is not saturated. */
static inline __m256i checked_sub(__m256i v, __m256i cnt, __m256i *bad)
{
    const __m256i sat = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(15));
    *bad = _mm256_or_si256(*bad, _mm256_andnot_si256(sat, _mm256_subs_epu8(cnt, v)));
    return _mm256_blendv_epi8(_mm256_sub_epi8(v, cnt), v, sat);
}

static void bl_counting_add_avx2(uint8_t *data, uint64_t nlines, unsigned k, const uint64_t *h,
                                 size_t n, size_t avail)
{
    bl_split idx, cnt, v;
    counter_index(&idx);
    for (size_t i = 0; i < n; i++) {
        if (i + BL_PREFETCH_DISTANCE < avail)
            BL_PREFETCH_W(bl_counting_line(data, nlines, h[i + BL_PREFETCH_DISTANCE]));
        uint8_t *line = bl_counting_line(data, nlines, h[i]);
        probe_counts(&idx, h[i], k, &cnt);
        load_split(line, &v);
        v.lo0 = sat_add(v.lo0, cnt.lo0);
        v.hi0 = sat_add(v.hi0, cnt.hi0);
        v.lo1 = sat_add(v.lo1, cnt.lo1);
        v.hi1 = sat_add(v.hi1, cnt.hi1);
        store_split(line, &v);
    }
}

static size_t bl_counting_remove_avx2(uint8_t *data, uint64_t nlines, unsigned k,
                                      const uint64_t *h, size_t n, size_t avail)
{
    bl_split idx, cnt, v;
    counter_index(&idx);
    size_t absent = 0;
    for (size_t i = 0; i < n; i++) {
        if (i + BL_PREFETCH_DISTANCE < avail)
            BL_PREFETCH_W(bl_counting_line(data, nlines, h[i + BL_PREFETCH_DISTANCE]));
        uint8_t *line = bl_counting_line(data, nlines, h[i]);
        probe_counts(&idx, h[i], k, &cnt);
        load_split(line, &v);
        __m256i bad = _mm256_setzero_si256();
        v.lo0 = checked_sub(v.lo0, cnt.lo0, &bad);
        v.hi0 = checked_sub(v.hi0, cnt.hi0, &bad);
        v.lo1 = checked_sub(v.lo1, cnt.lo1, &bad);
        v.hi1 = checked_sub(v.hi1, cnt.hi1, &bad);
        if (!_mm256_testz_si256(bad, bad)) {
            absent++;
            continue;
        }
        store_split(line, &v);
    }
    return absent;
}

/* Query: gather the 32-bit word holding each probed counter (counter c is bits 4(c & 7).. of
 * word c >> 3) and check that no probe lane below k reads zero. */
static inline bool test_one_avx2(const uint8_t *data, uint64_t nlines, unsigned k, uint64_t h,
                                 __m256i m0, __m256i m1)
{
    const int *line = (const int *)(const void *)(data + bl_blocked_line(h, nlines) * BL_LINE_BYTES);
    const __m256i x = _mm256_set1_epi32((int)(uint32_t)h);
    const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i nib = _mm256_set1_epi32(15), seven = _mm256_set1_epi32(7);
    __m256i bad = _mm256_setzero_si256();
    for (unsigned base = 0; base < k; base += 8) {
        const __m256i p = _mm256_srli_epi32(_mm256_mullo_epi32(x, base ? m1 : m0), 25);
        const __m256i w = _mm256_i32gather_epi32(line, _mm256_srli_epi32(p, 3), 4);
        const __m256i c = _mm256_and_si256(
            _mm256_srlv_epi32(w, _mm256_slli_epi32(_mm256_and_si256(p, seven), 2)), nib);
        const __m256i live = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(k - base)), iota);
        bad = _mm256_or_si256(bad, _mm256_and_si256(live, _mm256_cmpeq_epi32(c, _mm256_setzero_si256())));
    }
    return _mm256_testz_si256(bad, bad);
}

static size_t bl_counting_test_avx2(const uint8_t *data, uint64_t nlines, unsigned k,
                                    const uint64_t *h, size_t n, size_t avail, uint8_t *res)
{
    const __m256i m0 = _mm256_loadu_si256((const __m256i *)(const void *)bl_blocked_mul);
    const __m256i m1 = _mm256_loadu_si256((const __m256i *)(const void *)(bl_blocked_mul + 8));
    size_t hits = 0;
    for (size_t i = 0; i < n; i++) {
        if (i + BL_PREFETCH_DISTANCE < avail)
            BL_PREFETCH_R(data + bl_blocked_line(h[i + BL_PREFETCH_DISTANCE], nlines) * BL_LINE_BYTES);
        const bool r = test_one_avx2(data, nlines, k, h[i], m0, m1);
        hits += r;
        if (res)
            res[i] = r;
    }
    return hits;
}

const struct bl_counting_kernels bl_counting_kernels_avx2 = {
    .name = "avx2",
    .add = bl_counting_add_avx2,
    .test = bl_counting_test_avx2,
    .remove = bl_counting_remove_avx2,
};
