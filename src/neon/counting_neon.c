/* SPDX-License-Identifier: MIT */
/* NEON counting kernels through SIMDe: tbl lookups for queries; updates stay scalar. */
#include "../counting.h"

#include <simde/arm/neon.h>

/*
 * Updates are the specification's scalar loop: a key's k counter steps are scattered nibble
 * read-modify-writes, and the vector formulation (eight byte vectors of counters per line, one
 * compare per vector per probe) costs 16k vector operations for k scalar ones. Its AVX2 twin
 * (four vectors) measured 1.1-2x slower than scalar (src/avx2/counting_avx2.c); no arm64
 * hardware was at hand to measure this one, and with twice the vectors per line it can only
 * do worse. Queries use tbl: one 64-byte table lookup fetches all 16 probed bytes.
 */
/* Query: the 16 probe bytes in one register (lanes past k repeat probe 0, which is tested
 * anyway), the counters' bytes fetched with one 64-byte tbl, each reduced to its nibble. */
/* Not forced inline into the per-k entries, unlike the x86 kernels: with no arm64 machine to
 * measure the gain, it would cost 7 KB there (4.2 -> 11.5 KB) and 53 KB in the SIMDe build. */
static bool test_one_neon(const uint8_t *data, uint64_t nlines, unsigned k, uint64_t h)
{
    const uint8_t *line = BL_LINE_AT(data, nlines, h);
    uint8_t p8[16];
    for (unsigned i = 0; i < 16; i++)
        p8[i] = (uint8_t)bl_counting_pos(h, k, i < k ? i : 0);
    const simde_uint8x16_t p = simde_vld1q_u8(p8);
    simde_uint8x16x4_t tbl;
    tbl.val[0] = simde_vld1q_u8(line);
    tbl.val[1] = simde_vld1q_u8(line + 16);
    tbl.val[2] = simde_vld1q_u8(line + 32);
    tbl.val[3] = simde_vld1q_u8(line + 48);
    const simde_uint8x16_t bytes = simde_vqtbl4q_u8(tbl, simde_vshrq_n_u8(p, 1));
    /* Odd counters sit in the high nibble: pick it where the probe's low bit is set. */
    const simde_uint8x16_t odd = simde_vtstq_u8(p, simde_vdupq_n_u8(1));
    const simde_uint8x16_t c = simde_vbslq_u8(odd, simde_vshrq_n_u8(bytes, 4),
                                              simde_vandq_u8(bytes, simde_vdupq_n_u8(15)));
    return simde_vmaxvq_u8(simde_vceqq_u8(c, simde_vdupq_n_u8(0))) == 0;
}

BL_COUNTING_TEST(bl_counting_test_neon, test_one_neon)
BL_CONTAINS_U64_BY_K(static, contains_u64_neon, test_one_neon);
BL_CONTAINS_HASH_BY_K(static, contains_hash_neon, test_one_neon);

const struct bl_counting_kernels bl_counting_kernels_neon = {
    .name = "neon",
    .add = bl_counting_add_scalar,
    .test = bl_counting_test_neon,
    .contains_u64_by_k = contains_u64_neon,
    .contains_hash_by_k = contains_hash_neon,
    .remove = bl_counting_remove_scalar,
};
