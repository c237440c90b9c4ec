/* SPDX-License-Identifier: MIT */
/* The AVX-512 kernel: u64 hashing with vpmullq, a key's 16 probes in one zmm against the line. */
#include "../avx2/kernels_avx2.h"
#include "kernels_avx512.h"

#include "avx512_intrin.h"

#define BL_INLINE static inline __attribute__((always_inline))

/* ---- uint64_t hashing, eight keys per zmm: AVX-512DQ has a 64-bit multiply -------------------- */

BL_INLINE __m512i mul64c(__m512i a, uint64_t c)
{
    return _mm512_mullo_epi64(a, _mm512_set1_epi64((long long)c));
}

/* XXH3 of eight keys; `flip` is bl_xxh3_u64_flip(seed) in every lane. */
BL_INLINE __m512i xxh3_u64x8(const uint64_t *keys, __m512i flip)
{
    __m512i h = _mm512_xor_si512(_mm512_rol_epi64(_mm512_loadu_si512(keys), 32), flip);
    /* h ^= rotl(h, 49) ^ rotl(h, 24): one three-input XOR */
    h = _mm512_ternarylogic_epi64(h, _mm512_rol_epi64(h, 49), _mm512_rol_epi64(h, 24), 0x96);
    h = mul64c(h, BL_XXH3_RRMXMX);
    h = _mm512_xor_si512(h, _mm512_add_epi64(_mm512_srli_epi64(h, 35), _mm512_set1_epi64(8)));
    h = mul64c(h, BL_XXH3_RRMXMX);
    return _mm512_xor_si512(h, _mm512_srli_epi64(h, 28));
}

static void hash_u64_xxh3_avx512(const uint64_t *keys, size_t n, uint64_t seed, uint64_t *out)
{
    const uint64_t flip = bl_xxh3_u64_flip(seed);
    const __m512i vflip = _mm512_set1_epi64((long long)flip);
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm512_storeu_si512(out + i, xxh3_u64x8(keys + i, vflip));
    for (; i < n; i++)
        out[i] = bl_xxh3_u64_flipped(keys[i], flip);
}

static void hash_u64_xxh64_avx512(const uint64_t *keys, size_t n, uint64_t seed, uint64_t *out)
{
    const __m512i h0 = _mm512_set1_epi64((long long)(seed + BL_XXH64_P5 + 8));
    const __m512i p4 = _mm512_set1_epi64((long long)BL_XXH64_P4);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m512i v = _mm512_loadu_si512(keys + i);
        __m512i k1 = mul64c(_mm512_rol_epi64(mul64c(v, BL_XXH64_P2), 31), BL_XXH64_P1);
        __m512i h = _mm512_xor_si512(h0, k1);
        h = _mm512_add_epi64(mul64c(_mm512_rol_epi64(h, 27), BL_XXH64_P1), p4);
        h = _mm512_xor_si512(h, _mm512_srli_epi64(h, 33));
        h = mul64c(h, BL_XXH64_P2);
        h = _mm512_xor_si512(h, _mm512_srli_epi64(h, 29));
        h = mul64c(h, BL_XXH64_P3);
        _mm512_storeu_si512(out + i, _mm512_xor_si512(h, _mm512_srli_epi64(h, 32)));
    }
    for (; i < n; i++)
        out[i] = bl_xxh64_u64(keys[i], seed);
}

/* ---- Blocked layout: a line is one zmm ------------------------------------------------------- */

/* Lane i's bit: 1 << (x >> 27) with x = (uint32)h * mul[i] (vprolvd: no masking of the count). */
BL_INLINE __m512i blocked_bits(__m512i hv, __m512i mul)
{
    const __m512i x = _mm512_mullo_epi32(hv, mul);
    return _mm512_rolv_epi32(_mm512_set1_epi32(1), _mm512_srli_epi32(x, 27));
}

/* Lane i's word, r + D_k[i], in its low 4 bits (all vpermd reads). */
BL_INLINE __m512i blocked_words(__m512i hv, __m512i offsets)
{
    return _mm512_add_epi32(_mm512_srli_epi32(hv, 28), offsets);
}

/* One key against its line: lanes [0, k) hold its probes. */
BL_INLINE bool blocked_line_has(const uint8_t *line, __mmask16 lanes, __m512i mul, __m512i offsets,
                                uint64_t h)
{
    const __m512i hv = _mm512_set1_epi32((int)(uint32_t)h);
    const __m512i word =
        _mm512_permutexvar_epi32(blocked_words(hv, offsets), _mm512_load_si512(line));
    const __m512i bit = blocked_bits(hv, mul);
    return _mm512_mask_testn_epi32_mask(lanes, word, bit) == 0;
}

BL_INLINE __m256i load256(const void *p)
{
    return _mm256_loadu_si256((const __m256i *)p);
}

/* Row k: 1 in the lanes of probes 0..k-1, 0 past k, whose bits are then 0: always present. */
static const uint32_t lanes_used8[9][8] __attribute__((aligned(32))) = {
    {0, 0, 0, 0, 0, 0, 0, 0},
    {1, 0, 0, 0, 0, 0, 0, 0},
    {1, 1, 0, 0, 0, 0, 0, 0},
    {1, 1, 1, 0, 0, 0, 0, 0},
    {1, 1, 1, 1, 0, 0, 0, 0},
    {1, 1, 1, 1, 1, 0, 0, 0},
    {1, 1, 1, 1, 1, 1, 0, 0},
    {1, 1, 1, 1, 1, 1, 1, 0},
    {1, 1, 1, 1, 1, 1, 1, 1}};

/* k <= 8: the same test in a ymm, its words picked from both halves of the line by one vpermt2d.
 * 256-bit operations leave port 1's vector unit on, which 512-bit ones fuse with port 0: 3.17
 * against 3.46 ns per bl_contains_u64 in cache, timed alternately. The lanes past k rotate a 0,
 * so one vptest (carry: no bit of `bit` missing from `word`) needs no lane mask: 4 instructions
 * fewer than a masked vptestnmd and kortest (the mask and the ones built in registers). */
BL_INLINE bool blocked_line_has8(const uint8_t *line, unsigned k, uint64_t h)
{
    const __m256i hv = _mm256_set1_epi32((int)(uint32_t)h);
    const __m256i idx = _mm256_add_epi32(_mm256_srli_epi32(hv, 28), load256(bl_blocked_offsets[k]));
    const __m256i word = _mm256_permutex2var_epi32(load256(line), idx, load256(line + 32));
    const __m256i x = _mm256_mullo_epi32(hv, load256(bl_blocked_mul));
    const __m256i bit = _mm256_rolv_epi32(load256(lanes_used8[k]), _mm256_srli_epi32(x, 27));
    return _mm256_testc_si256(word, bit);
}

BL_INLINE bool blocked_probe_one(const uint8_t *data, uint64_t nlines, unsigned k, uint64_t h)
{
    const uint8_t *line = BL_LINE_AT(data, nlines, h);
    if (k <= 8)
        return blocked_line_has8(line, k, h);
    return blocked_line_has(line, (__mmask16)((1u << k) - 1), _mm512_loadu_si512(bl_blocked_mul),
                            _mm512_load_si512(bl_blocked_offsets[k]), h);
}

static bool blocked_contains_avx512(const uint8_t *data, uint64_t nlines, unsigned k, uint64_t h)
{
    return blocked_probe_one(data, nlines, k, h);
}

/* The whole single-key query in one call: every instruction counts at ~2.8 ns per key. */
BL_CONTAINS_U64_BY_K(static, blocked_contains_u64_avx512, blocked_probe_one);
BL_CONTAINS_HASH_BY_K(static, blocked_contains_hash_avx512, blocked_probe_one);

/* k <= 8, two keys per zmm: lanes 0..7 probe key a, lanes 8..15 key b. `hv` holds (uint32)h of
 * a in lanes 0..7 and of b in 8..15, `offsets` D_k[0..7] in both halves; b's word indices get
 * bit 4 so that vpermt2d reads them from b's line. Returns the lanes whose bit is present
 * (lanes past k are sorted out by the caller). */
BL_INLINE __mmask16 blocked_pair_present(const uint8_t *la, const uint8_t *lb, __m512i hv,
                                         __m512i mul, __m512i offsets)
{
    const __m512i line_b = _mm512_set_epi32(16, 16, 16, 16, 16, 16, 16, 16, 0, 0, 0, 0, 0, 0, 0, 0);
    /* 0xea: (words & 15) | line_b */
    const __m512i idx = _mm512_ternarylogic_epi32(blocked_words(hv, offsets),
                                                  _mm512_set1_epi32(15), line_b, 0xea);
    const __m512i word =
        _mm512_permutex2var_epi32(_mm512_load_si512(la), idx, _mm512_load_si512(lb));
    return _mm512_test_epi32_mask(word, blocked_bits(hv, mul));
}

/* Eight keys' answers from the 64 lanes of four pairs (byte j = key j's eight probes): a key is
 * present when its byte is 0xff. Exact zero-byte test on the complement (no borrow between
 * bytes), leaving 0x80 in the bytes of present keys. */
BL_INLINE uint64_t present_bytes(uint64_t lanes)
{
    const uint64_t low7 = 0x7f7f7f7f7f7f7f7fULL, y = ~lanes;
    return ~(((y & low7) + low7) | y) & ~low7;
}

/* Eight keys (hashes in `hw`, lines in `line`): their eight 0/1 answers as the bytes of the
 * result, k <= 8. `absent_lanes` sets, in every byte, the bits of probes >= k. */
BL_INLINE uint64_t blocked_probe8(const uint8_t *const line[8], __m512i hw, __m512i mul,
                                  __m512i offsets, uint64_t absent_lanes)
{
    /* (uint32)h[2p] to lanes 0..7 and (uint32)h[2p + 1] to lanes 8..15, from 8 hashes = 16 words */
    __m512i spread = _mm512_set_epi32(2, 2, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0);
    uint64_t lanes = absent_lanes;
    for (unsigned p = 0; p < 4; p++) { /* unrolled by the compiler */
        const __m512i hv = _mm512_permutexvar_epi32(spread, hw);
        lanes |= (uint64_t)blocked_pair_present(line[2 * p], line[2 * p + 1], hv, mul, offsets)
                 << (16 * p);
        spread = _mm512_add_epi32(spread, _mm512_set1_epi32(4));
    }
    /* bytes 0x80 -> 1: the eight results at once */
    return present_bytes(lanes) >> 7;
}

/* Store eight answers (if wanted) and return their number of hits. */
BL_INLINE size_t put8(uint8_t *res, uint64_t ones)
{
    if (res)
        memcpy(res, &ones, 8);
    return (size_t)((ones * 0x0101010101010101ULL) >> 56); /* the sum of the eight bytes */
}

/* The byte offsets of eight keys' lines, for nlines < 2^32: bl_line_offsets4 (kernels_avx2.h)
 * in one zmm. */
BL_INLINE __m512i line_offsets8(__m512i hw, __m512i vn)
{
    const __m512i lo = _mm512_mul_epu32(hw, vn);
    const __m512i hi = _mm512_mul_epu32(_mm512_srli_epi64(hw, 32), vn);
    const __m512i sum = _mm512_add_epi64(hi, _mm512_srli_epi64(lo, 32));
    return _mm512_slli_epi64(_mm512_srli_epi64(sum, 32), 6);
}

/* The prefetch window moved eight keys at a time (bl_window_fits8): the lines of keys i .. i + 7
 * out of their ring slots into `line`, and the lines of keys i + depth .. + 7 computed in one zmm,
 * stored over those slots (the depth is a multiple of 8) and prefetched. Eight `mul`s, shifts and
 * adds become seven vector operations: batched queries at 2^24 keys on a Zen 5 read 1.06-1.37x ->
 * 0.87-1.20x of the paired probe (12 runs alternated with the key-by-key window, lower in every
 * pair), at 2^20 1.41-1.65x -> 1.26-1.59x; batched adds at 2^24 1.05-1.40x -> 0.91-1.20x of the
 * read-modify-write probe (6 runs); 2^27 did not move. */
BL_INLINE void window_next8(bl_window *w, __m512i vdata, __m512i vnlines, const uint64_t *h,
                            size_t i, const uint8_t *line[8], bool write)
{
    const uint8_t **slot = &w->line[i & (w->depth - 1)];
    memcpy(line, slot, 8 * sizeof *line);
    const __m512i ahead = line_offsets8(_mm512_loadu_si512(h + i + w->depth), vnlines);
    const __m512i at = _mm512_add_epi64(vdata, ahead);
    _mm512_storeu_si512((void *)slot, at);
    bl_prefetch4(_mm512_castsi512_si256(at), write);
    bl_prefetch4(_mm512_extracti64x4_epi64(at, 1), write);
}

/* Loop body shared by the cache-resident and the windowed variant; `window` is a compile-time
 * constant after inlining.
 * (Tried: the line index from two low-half multiplies, which leave the shuffle port to the
 * probes: 1.41 vs 1.29 ns/key at 2^16, so the 64x64->128 multiply stays.) */
BL_INLINE size_t blocked_test_pairs_loop(const uint8_t *data, uint64_t nlines, unsigned k,
                                         const uint64_t *h, size_t n, size_t avail, uint8_t *res,
                                         bool window)
{
    const __m512i mul = _mm512_broadcast_i32x8(
        _mm256_loadu_si256((const __m256i *)(const void *)bl_blocked_mul));
    const __m512i offsets = _mm512_broadcast_i32x8(
        _mm256_load_si256((const __m256i *)(const void *)bl_blocked_offsets[k]));
    const uint64_t absent_lanes = ((0xffu << k) & 0xffu) * 0x0101010101010101ULL;
    bl_window win;
    if (window)
        bl_window_start(&win, data, nlines, h, avail, false);
#define BL_LINE_OF(j)                                                                              \
    (window ? bl_window_next(&win, data, nlines, h, (j), avail, false)                            \
            : BL_LINE_AT(data, nlines, h[(j)]))
    size_t hits = 0, i = 0;
    if (window) { /* eight keys at a time while the window allows, then key by key */
        const __m512i vn = _mm512_set1_epi64((long long)nlines);
        const __m512i vdata = _mm512_set1_epi64((long long)(uintptr_t)data);
        for (; bl_window_fits8(&win, nlines, i, n, avail); i += 8) {
            const uint8_t *line[8];
            window_next8(&win, vdata, vn, h, i, line, false);
            hits += put8(res ? res + i : NULL, blocked_probe8(line, _mm512_loadu_si512(h + i), mul,
                                                              offsets, absent_lanes));
        }
    }
    for (; i + 8 <= n; i += 8) {
        const uint8_t *line[8];
        for (unsigned j = 0; j < 8; j++)
            line[j] = BL_LINE_OF(i + j);
        hits += put8(res ? res + i : NULL,
                     blocked_probe8(line, _mm512_loadu_si512(h + i), mul, offsets, absent_lanes));
    }
    const __m512i mul16 = _mm512_loadu_si512(bl_blocked_mul);
    const __m512i offsets16 = _mm512_load_si512(bl_blocked_offsets[k]);
    const __mmask16 active = (__mmask16)((1u << k) - 1);
    for (; i < n; i++) { /* the last n % 8 keys */
        hits += bl_answer(res, i, blocked_line_has(BL_LINE_OF(i), active, mul16, offsets16, h[i]));
    }
#undef BL_LINE_OF
    return hits;
}

/* k > 8: one key per zmm, its 16 lanes masked to k. */
BL_INLINE size_t blocked_test_single_loop(const uint8_t *data, uint64_t nlines, unsigned k,
                                          const uint64_t *h, size_t n, size_t avail, uint8_t *res)
{
    const __m512i mul = _mm512_loadu_si512(bl_blocked_mul);
    const __m512i offsets = _mm512_load_si512(bl_blocked_offsets[k]);
    const __mmask16 active = (__mmask16)((1u << k) - 1);
    bl_window win;
    bl_window_start(&win, data, nlines, h, avail, false);
    size_t hits = 0;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *line = bl_window_next(&win, data, nlines, h, i, avail, false);
        hits += bl_answer(res, i, blocked_line_has(line, active, mul, offsets, h[i]));
    }
    return hits;
}

/* ---- Blocked adds: the key's k bits as one 512-bit mask, ORed in with one load and one store --- */

/* The key's bits in probe lanes [0, k), moved to their words: word w takes the bit of the probe
 * with offset w - r (bl_blocked_probe_of; lane 15, which is 0, where no probe has it). Two
 * vpermd, as the words are distinct. (An unaligned load of the 16 probes from the doubled
 * table, as AVX2 does, measured slower here: 2.26 vs 2.03 ns/key at 2^16.) */
BL_INLINE __m512i blocked_key_mask(__mmask16 lanes, __m512i mul, __m512i probe_of, uint64_t h)
{
    const __m512i iota = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    const __m512i hv = _mm512_set1_epi32((int)(uint32_t)h);
    const __m512i bits = _mm512_maskz_rolv_epi32(
        lanes, _mm512_set1_epi32(1), _mm512_srli_epi32(_mm512_mullo_epi32(hv, mul), 27));
    const __m512i probe =
        _mm512_permutexvar_epi32(_mm512_sub_epi32(iota, _mm512_srli_epi32(hv, 28)), probe_of);
    return _mm512_permutexvar_epi32(probe, bits);
}

/* OR a key's mask into its line; returns the line as it was. */
BL_INLINE __m512i line_or(const uint8_t *line, __m512i mask)
{
    __m512i *v = (__m512i *)(uintptr_t)line;
    const __m512i old = _mm512_load_si512(v);
    _mm512_store_si512(v, _mm512_or_si512(old, mask));
    return old;
}

/* The add loop. `count` (a constant): count the keys whose line lacked one of their bits (one
 * test of the old line against the mask) and stop once `room` are taken (blocked_add_new);
 * returns the keys gone through. */
BL_INLINE size_t blocked_add_loop(uint8_t *data, uint64_t nlines, unsigned k, const uint64_t *h,
                                  size_t n, size_t avail, uint64_t room, uint64_t *taken,
                                  bool count)
{
    const __m512i mul = _mm512_loadu_si512(bl_blocked_mul);
    const __m512i probe_of = _mm512_load_si512(bl_blocked_probe_of[k]);
    const __mmask16 lanes = (__mmask16)((1u << k) - 1);
    bl_window win;
    bl_window_start(&win, data, nlines, h, avail, true);
    uint64_t t = 0;
    size_t i = 0;
#define BL_OR_KEY(line)                                                                            \
    do {                                                                                           \
        const __m512i mask = blocked_key_mask(lanes, mul, probe_of, h[i]);                         \
        const __m512i old = line_or((line), mask);                                                 \
        if (count)                                                                                 \
            t += _mm512_test_epi32_mask(mask, _mm512_andnot_si512(old, mask)) != 0;                \
    } while (0)
    { /* eight keys at a time while the window allows, then key by key */
        const __m512i vn = _mm512_set1_epi64((long long)nlines);
        const __m512i vdata = _mm512_set1_epi64((long long)(uintptr_t)data);
        while (bl_window_fits8(&win, nlines, i, n, avail) && (!count || t < room)) {
            const uint8_t *line[8];
            window_next8(&win, vdata, vn, h, i, line, true);
            for (unsigned j = 0; j < 8 && (!count || t < room); j++, i++)
                BL_OR_KEY(line[j]);
        }
    }
    for (; i < n && (!count || t < room); i++)
        BL_OR_KEY(bl_window_next(&win, data, nlines, h, i, avail, true));
#undef BL_OR_KEY
    if (count)
        *taken += t;
    return i;
}

static void blocked_add_avx512(uint8_t *data, uint64_t nlines, unsigned k, const uint64_t *h,
                               size_t n, size_t avail)
{
    (void)blocked_add_loop(data, nlines, k, h, n, avail, 0, NULL, false);
}

static size_t blocked_add_new_avx512(uint8_t *data, uint64_t nlines, unsigned k,
                                     const uint64_t *h, size_t n, size_t avail, uint64_t room,
                                     uint64_t *taken)
{
    return blocked_add_loop(data, nlines, k, h, n, avail, room, taken, true);
}

BL_INLINE void blocked_or_key(uint8_t *data, uint64_t nlines, unsigned k, uint64_t h)
{
    (void)line_or(BL_LINE_AT(data, nlines, h),
                  blocked_key_mask((__mmask16)((1u << k) - 1), _mm512_loadu_si512(bl_blocked_mul),
                                   _mm512_load_si512(bl_blocked_probe_of[k]), h));
}

static void blocked_add_one_avx512(uint8_t *data, uint64_t nlines, unsigned k, uint64_t h)
{
    blocked_or_key(data, nlines, k, h);
}

BL_ADD_U64_BY_K(static, blocked_add_u64_avx512, blocked_or_key);
BL_ADD_HASH_BY_K(static, blocked_add_hash_avx512, blocked_or_key);

/* ---- Batched uint64_t keys hashed in the window (bl_key_window) ------------------------------ */

/* The vectors a key-window step uses. */
typedef struct key_step_consts {
    __m512i flip, nlines, data;
} key_step_consts;

/* The window over the first keys (bl_key_window_start), and the constants its steps use. */
BL_INLINE key_step_consts key_window_start(bl_key_window *w, const uint8_t *data, uint64_t nlines,
                                           const uint64_t *keys, size_t n, uint64_t flip,
                                           bool write)
{
    const key_step_consts c = {_mm512_set1_epi64((long long)flip),
                               _mm512_set1_epi64((long long)nlines),
                               _mm512_set1_epi64((long long)(uintptr_t)data)};
    bl_key_window_start(w, data, nlines, keys, n, flip, write);
    return c;
}

/* The key stream is read here, not by the pipeline's hash stage, which prefetches it a step
 * ahead (prefetch_next_u64); so a line of keys is prefetched each step, 512 keys ahead. Against
 * no prefetch, at 2^27 keys on a Zen 5 (bench_ab, three runs of 41 on a busy host): queries
 * 0.83-0.95 (hit) and 0.82-1.03 (miss) of the time, adds 0.93-1.04; faster in two runs of three. */
#define KEY_WINDOW_KEYS_AHEAD 512u

/* The step of keys i .. i + 7 (i a multiple of 8): their lines out of the ring into `line` and
 * their hashes returned, and keys i + depth .. + 7 (those below n) entered into the same slots:
 * at once when all eight exist and nlines < 2^32 (one vector XXH3, line_offsets8, eight
 * prefetches), else one by one. Every key enters once: keys below depth at the start, key
 * j >= depth with the step of key j - depth. With vpmullq the eight hashes cost about as much as
 * the line offsets, where AVX2 pays for a 64-bit multiply made of 32-bit ones. */
BL_INLINE __m512i key_window_step8(bl_key_window *w, key_step_consts c, const uint8_t *data,
                                   uint64_t nlines, const uint64_t *keys, size_t n, size_t i,
                                   uint64_t flip, bool write, const uint8_t *line[8])
{
    const size_t slot = i & (w->depth - 1), ahead = i + w->depth;
    memcpy(line, w->line + slot, 8 * sizeof *line);
    const __m512i hw = _mm512_loadu_si512(w->hash + slot);
    if (ahead + 8 > n || nlines > UINT32_MAX) {
        for (size_t j = ahead; j < n && j < ahead + 8; j++)
            bl_key_window_enter(w, data, nlines, keys, j, flip, write);
        return hw;
    }
    if (ahead + KEY_WINDOW_KEYS_AHEAD < n)
        BL_PREFETCH_R(keys + ahead + KEY_WINDOW_KEYS_AHEAD);
    const __m512i h = xxh3_u64x8(keys + ahead, c.flip);
    _mm512_storeu_si512(w->hash + slot, h);
    const __m512i at = _mm512_add_epi64(c.data, line_offsets8(h, c.nlines));
    _mm512_storeu_si512((void *)(w->line + slot), at);
    bl_prefetch4(_mm512_castsi512_si256(at), write);
    bl_prefetch4(_mm512_extracti64x4_epi64(at, 1), write);
    return hw;
}

/* Eight keys a step, then the last n % 8 one by one from the ring. `pairs` (k <= 8, a constant
 * after inlining): two keys per zmm (blocked_probe8), else one key per zmm. */
BL_INLINE size_t blocked_test_keys_loop(const uint8_t *data, uint64_t nlines, unsigned k,
                                        const uint64_t *keys, size_t n, uint64_t flip,
                                        uint8_t *res, bool pairs)
{
    const __m512i mul = _mm512_broadcast_i32x8(
        _mm256_loadu_si256((const __m256i *)(const void *)bl_blocked_mul));
    const __m512i offsets = _mm512_broadcast_i32x8(
        _mm256_load_si256((const __m256i *)(const void *)bl_blocked_offsets[k]));
    const uint64_t absent_lanes = ((0xffu << k) & 0xffu) * 0x0101010101010101ULL;
    const __m512i mul16 = _mm512_loadu_si512(bl_blocked_mul);
    const __m512i offsets16 = _mm512_load_si512(bl_blocked_offsets[k]);
    const __mmask16 active = (__mmask16)((1u << k) - 1);
    bl_key_window w;
    const key_step_consts c = key_window_start(&w, data, nlines, keys, n, flip, false);
    size_t hits = 0, i = 0;
    for (; i + 8 <= n; i += 8) {
        const uint8_t *line[8];
        const __m512i hw = key_window_step8(&w, c, data, nlines, keys, n, i, flip, false, line);
        if (pairs) {
            hits += put8(res ? res + i : NULL,
                         blocked_probe8(line, hw, mul, offsets, absent_lanes));
            continue;
        }
        uint64_t h[8];
        _mm512_storeu_si512(h, hw);
        for (unsigned q = 0; q < 8; q++)
            hits += bl_answer(res, i + q,
                              blocked_line_has(line[q], active, mul16, offsets16, h[q]));
    }
    for (; i < n; i++) {
        const size_t slot = i & (w.depth - 1);
        hits += bl_answer(res, i,
                          blocked_line_has(w.line[slot], active, mul16, offsets16, w.hash[slot]));
    }
    return hits;
}

static size_t blocked_test_keys_avx512(const uint8_t *data, uint64_t nlines, unsigned k,
                                       const uint64_t *keys, size_t n, uint64_t flip, uint8_t *res)
{
    if (k <= 8)
        return blocked_test_keys_loop(data, nlines, k, keys, n, flip, res, true);
    return blocked_test_keys_loop(data, nlines, k, keys, n, flip, res, false);
}

/* The batched add of uint64_t keys hashed in the window: the query's steps, each key's mask ORed
 * into its line. */
static void blocked_add_keys_avx512(uint8_t *data, uint64_t nlines, unsigned k,
                                    const uint64_t *keys, size_t n, uint64_t flip)
{
    const __m512i mul = _mm512_loadu_si512(bl_blocked_mul);
    const __m512i probe_of = _mm512_load_si512(bl_blocked_probe_of[k]);
    const __mmask16 lanes = (__mmask16)((1u << k) - 1);
    bl_key_window w;
    const key_step_consts c = key_window_start(&w, data, nlines, keys, n, flip, true);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const uint8_t *line[8];
        uint64_t h[8];
        _mm512_storeu_si512(h, key_window_step8(&w, c, data, nlines, keys, n, i, flip, true, line));
        for (unsigned q = 0; q < 8; q++)
            line_or(line[q], blocked_key_mask(lanes, mul, probe_of, h[q]));
    }
    for (; i < n; i++) {
        const size_t slot = i & (w.depth - 1);
        line_or(w.line[slot], blocked_key_mask(lanes, mul, probe_of, w.hash[slot]));
    }
}

static size_t blocked_test_avx512(const uint8_t *data, uint64_t nlines, unsigned k,
                                  const uint64_t *h, size_t n, size_t avail, uint8_t *res)
{
    if (k > 8)
        return blocked_test_single_loop(data, nlines, k, h, n, avail, res);
    if (nlines <= BL_CACHE_RESIDENT_BYTES / BL_LINE_BYTES)
        return blocked_test_pairs_loop(data, nlines, k, h, n, avail, res, false);
    return blocked_test_pairs_loop(data, nlines, k, h, n, avail, res, true);
}

const struct bl_kernels bl_kernels_avx512 = {
    .name = "avx512",
    .required = BL_CPU_AVX512,
    .hash_u64_xxh3 = hash_u64_xxh3_avx512,
    .hash_u64_xxh64 = hash_u64_xxh64_avx512,
    .hash_bytes_xxh64 = bl_hash_bytes_xxh64_avx512,
    .hash_bytes_xxh3 = bl_hash_bytes_xxh3_avx512,
    .null_keys_empty = bl_null_keys_empty_avx2,
    .blocked_add = blocked_add_avx512,
    .blocked_test = blocked_test_avx512,
    .blocked_test_u64_keys = blocked_test_keys_avx512,
    .blocked_add_u64_keys = blocked_add_keys_avx512,
    .keys_in_window_min_bytes = BL_KEYS_IN_WINDOW_MIN_BYTES_AVX512,
    .blocked_contains = blocked_contains_avx512,
    .blocked_contains_u64_by_k = blocked_contains_u64_avx512,
    .blocked_add_u64_by_k = blocked_add_u64_avx512,
    .blocked_contains_hash_by_k = blocked_contains_hash_avx512,
    .blocked_add_hash_by_k = blocked_add_hash_avx512,
    .blocked_add_one = blocked_add_one_avx512,
    .blocked_add_new = blocked_add_new_avx512,
    .sbbf_add = bl_sbbf_add_avx2,
    .sbbf_test = bl_sbbf_test_avx2,
    .sbbf_add_one = bl_sbbf_add_one_avx2,
    .sbbf_contains = bl_sbbf_contains_avx2,
    /* The AVX2 counts already read a large filter at DRAM speed (a 512-bit version is untried) */
    .count_bits = bl_count_bits_avx2,
    .count_nonzero_nibbles = bl_count_nonzero_nibbles_avx2,
};
