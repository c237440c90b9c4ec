/* SPDX-License-Identifier: MIT */
/* The NEON kernel, through SIMDe: native on aarch64, emulated (force-only) elsewhere for tests. */
#include "../internal.h"

#include <simde/arm/neon.h>

#define BL_INLINE static inline __attribute__((always_inline))

/* Lane-wise a * b mod 2^32. SIMDe's portable vmulq_u32 multiplies as signed int, which overflows
 * (undefined behaviour, caught by UBSan), so emulation multiplies unsigned lanes in plain C (a
 * widening vmull_u32 version made GCC 12 crash under the sanitizers); native NEON uses the one
 * instruction. */
BL_INLINE simde_uint32x4_t mul_u32(simde_uint32x4_t a, simde_uint32x4_t b)
{
#if defined(SIMDE_ARM_NEON_A32V7_NATIVE)
    return simde_vmulq_u32(a, b);
#else
    uint32_t av[4], bv[4];
    simde_vst1q_u32(av, a);
    simde_vst1q_u32(bv, b);
    for (int i = 0; i < 4; i++)
        av[i] *= bv[i];
    return simde_vld1q_u32(av);
#endif
}

/* ---- uint64_t hashing ------------------------------------------------------------------------- */

/* NEON has no 64-bit lane multiply while aarch64 multiplies 64-bit scalars at one per cycle, so
 * the hash stage is the specification's scalar loop. */
static void hash_u64_xxh3_neon(const uint64_t *keys, size_t n, uint64_t seed, uint64_t *out)
{
    bl_kernels_scalar.hash_u64_xxh3(keys, n, seed, out);
}

static void hash_u64_xxh64_neon(const uint64_t *keys, size_t n, uint64_t seed, uint64_t *out)
{
    bl_kernels_scalar.hash_u64_xxh64(keys, n, seed, out);
}

/* ---- Blocked layout: four probes per q register, the line's words picked with tbl ------------- */

/* Probes [4g, 4g + 4): their multipliers, word offsets D_k, and 1 in the lanes of probes the
 * key has (k of them), 0 past k, so those lanes' bits are 0 and never missing. */
static void blocked_groups(unsigned k, simde_uint32x4_t mul[4], simde_uint32x4_t offsets[4],
                           simde_uint32x4_t one[4])
{
    for (unsigned g = 0; g < 4; g++) {
        uint32_t m[4];
        for (unsigned j = 0; j < 4; j++)
            m[j] = 4 * g + j < k;
        mul[g] = simde_vld1q_u32(bl_blocked_mul + 4 * g);
        offsets[g] = simde_vld1q_u32(bl_blocked_offsets[k] + 4 * g);
        one[g] = simde_vld1q_u32(m);
    }
}

/* Bits of 4 probes that the line lacks (non-zero lanes: absent). Their words, (r + D_k[i]) mod
 * 16, are fetched by a 64-byte table lookup of their 4 bytes; bit = x >> 27 with
 * x = (uint32)h * mul. */
BL_INLINE simde_uint32x4_t blocked_missing(simde_uint8x16x4_t line, simde_uint32x4_t hv,
                                           simde_uint32x4_t mul, simde_uint32x4_t offsets,
                                           simde_uint32x4_t one)
{
    const simde_uint32x4_t x = mul_u32(hv, mul);
    const simde_uint32x4_t words = simde_vandq_u32(
        simde_vaddq_u32(simde_vshrq_n_u32(hv, 28), offsets), simde_vdupq_n_u32(15));
    /* byte j of lane = 4 * word + j: word * 0x04040404 + 0x03020100 (no carries: 4*15+3 < 256;
     * the product stays below 2^31, so even a signed emulation cannot overflow) */
    const simde_uint32x4_t bidx = simde_vmlaq_u32(simde_vdupq_n_u32(0x03020100u), words,
                                                  simde_vdupq_n_u32(0x04040404u));
    const simde_uint32x4_t word = simde_vreinterpretq_u32_u8(
        simde_vqtbl4q_u8(line, simde_vreinterpretq_u8_u32(bidx)));
    const simde_uint32x4_t bit =
        simde_vshlq_u32(one, simde_vreinterpretq_s32_u32(simde_vshrq_n_u32(x, 27)));
    return simde_vbicq_u32(bit, word);
}

static size_t blocked_test_neon(const uint8_t *data, uint64_t nlines, unsigned k,
                                const uint64_t *h, size_t n, size_t avail, uint8_t *res)
{
    simde_uint32x4_t mul[4], offsets[4], one[4];
    blocked_groups(k, mul, offsets, one);
    const unsigned groups = (k + 3) / 4;
    size_t hits = 0;
    for (size_t i = 0; i < n; i++) {
        if (i + BL_PREFETCH_DISTANCE < avail)
            BL_PREFETCH_R(BL_LINE_AT(data, nlines, h[i + BL_PREFETCH_DISTANCE]));
        const uint8_t *w = BL_LINE_AT(data, nlines, h[i]);
        simde_uint8x16x4_t line;
        line.val[0] = simde_vld1q_u8(w);
        line.val[1] = simde_vld1q_u8(w + 16);
        line.val[2] = simde_vld1q_u8(w + 32);
        line.val[3] = simde_vld1q_u8(w + 48);
        const simde_uint32x4_t hv = simde_vdupq_n_u32((uint32_t)h[i]);
        simde_uint32x4_t miss = blocked_missing(line, hv, mul[0], offsets[0], one[0]);
        for (unsigned g = 1; g < groups; g++)
            miss = simde_vorrq_u32(miss, blocked_missing(line, hv, mul[g], offsets[g], one[g]));
        hits += bl_answer(res, i, simde_vmaxvq_u32(miss) == 0);
    }
    return hits;
}

static void blocked_add_neon(uint8_t *data, uint64_t nlines, unsigned k, const uint64_t *h,
                             size_t n, size_t avail)
{
    /* k read-modify-writes of distinct words: scalar stores. */
    for (size_t i = 0; i < n; i++) {
        if (i + BL_PREFETCH_DISTANCE < avail)
            BL_PREFETCH_W(BL_LINE_AT(data, nlines, h[i + BL_PREFETCH_DISTANCE]));
        bl_blocked_add_one(data, nlines, k, h[i]);
    }
}

/* ---- Parquet split-block layout: a block is two q registers ------------------------------------ */

BL_INLINE uint32_t *sbbf_block_ptr(const uint8_t *data, uint64_t nblocks, uint64_t h)
{
    return (uint32_t *)(uintptr_t)(data + bl_sbbf_block(h, nblocks) * BL_SBBF_BLOCK_BYTES);
}

/* The bit of each word: 1 << (((uint32)h * salt) >> 27). */
BL_INLINE simde_uint32x4_t sbbf_bits(simde_uint32x4_t hv, const uint32_t *salt)
{
    const simde_uint32x4_t sh = simde_vshrq_n_u32(mul_u32(hv, simde_vld1q_u32(salt)), 27);
    return simde_vshlq_u32(simde_vdupq_n_u32(1), simde_vreinterpretq_s32_u32(sh));
}

BL_INLINE void sbbf_block_or(uint8_t *data, uint64_t nblocks, uint64_t h)
{
    uint32_t *w = sbbf_block_ptr(data, nblocks, h);
    const simde_uint32x4_t hv = simde_vdupq_n_u32((uint32_t)h);
    simde_vst1q_u32(w, simde_vorrq_u32(simde_vld1q_u32(w), sbbf_bits(hv, bl_sbbf_salt)));
    simde_vst1q_u32(w + 4, simde_vorrq_u32(simde_vld1q_u32(w + 4), sbbf_bits(hv, bl_sbbf_salt + 4)));
}

BL_INLINE bool sbbf_block_has(const uint8_t *data, uint64_t nblocks, uint64_t h)
{
    const uint32_t *w = sbbf_block_ptr(data, nblocks, h);
    const simde_uint32x4_t hv = simde_vdupq_n_u32((uint32_t)h);
    const simde_uint32x4_t miss =
        simde_vorrq_u32(simde_vbicq_u32(sbbf_bits(hv, bl_sbbf_salt), simde_vld1q_u32(w)),
                        simde_vbicq_u32(sbbf_bits(hv, bl_sbbf_salt + 4), simde_vld1q_u32(w + 4)));
    return simde_vmaxvq_u32(miss) == 0;
}

static void sbbf_add_neon(uint8_t *data, uint64_t nblocks, const uint64_t *h, size_t n,
                          size_t avail)
{
    for (size_t i = 0; i < n; i++) {
        if (i + BL_PREFETCH_DISTANCE < avail)
            BL_PREFETCH_W(sbbf_block_ptr(data, nblocks, h[i + BL_PREFETCH_DISTANCE]));
        sbbf_block_or(data, nblocks, h[i]);
    }
}

static size_t sbbf_test_neon(const uint8_t *data, uint64_t nblocks, const uint64_t *h, size_t n,
                             size_t avail, uint8_t *res)
{
    size_t hits = 0;
    for (size_t i = 0; i < n; i++) {
        if (i + BL_PREFETCH_DISTANCE < avail)
            BL_PREFETCH_R(sbbf_block_ptr(data, nblocks, h[i + BL_PREFETCH_DISTANCE]));
        hits += bl_answer(res, i, sbbf_block_has(data, nblocks, h[i]));
    }
    return hits;
}

static void sbbf_add_one_neon(uint8_t *data, uint64_t nblocks, uint64_t h)
{
    sbbf_block_or(data, nblocks, h);
}

static bool sbbf_contains_neon(const uint8_t *data, uint64_t nblocks, uint64_t h)
{
    return sbbf_block_has(data, nblocks, h);
}

const struct bl_kernels bl_kernels_neon = {
    .name = "neon",
#if defined(__aarch64__)
    .required = BL_CPU_NEON,
#else
    .required = BL_CPU_FORCE_ONLY, /* emulated: correct but slow, so only when forced */
#endif
    .hash_u64_xxh3 = hash_u64_xxh3_neon,
    .hash_u64_xxh64 = hash_u64_xxh64_neon,
    .blocked_add = blocked_add_neon,
    .blocked_test = blocked_test_neon,
    .blocked_contains = bl_blocked_contains_scalar,
    .blocked_contains_u64_by_k = bl_blocked_contains_u64_scalar,
    .blocked_add_u64_by_k = bl_blocked_add_u64_scalar,
    .blocked_contains_hash_by_k = bl_blocked_contains_hash_scalar,
    .blocked_add_hash_by_k = bl_blocked_add_hash_scalar,
    .blocked_add_one = bl_blocked_add_one_scalar,
    .blocked_add_new = bl_blocked_add_new_scalar, /* scalar stores, as blocked_add */
    .sbbf_add = sbbf_add_neon,
    .sbbf_test = sbbf_test_neon,
    .sbbf_add_one = sbbf_add_one_neon,
    .sbbf_contains = sbbf_contains_neon,
    .count_bits = bl_count_bits_neon,
    .count_nonzero_nibbles = bl_count_nonzero_nibbles_neon,
};
