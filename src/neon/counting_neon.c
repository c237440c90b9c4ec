/* SPDX-License-Identifier: MIT */
/* NEON counting kernels through SIMDe: tbl lookups for queries, byte-split counters for updates. */
#include "../counting.h"

#include <simde/arm/neon.h>

/*
 * Updates split the line's 64 bytes (four q registers) into eight vectors of one counter per
 * byte: low nibbles (even counters) and high nibbles (odd counters). Probe counts are built
 * with one compare per vector per probe (repeated probes count twice) and applied with one
 * saturating add, or one checked subtract, per vector: the same result as the scalar spec's
 * sequence of single steps (see counting.h). Queries look the probed bytes up with tbl.
 */

typedef struct bl_nsplit {
    simde_uint8x16_t lo[4], hi[4];
} bl_nsplit;

/* Scalar multiplies: the 16 products are independent, so they pipeline as well as vmulq_u32
 * would on aarch64, and SIMDe's portable vmulq_u32 multiplies signed lanes (an overflow UBSan
 * rejects) when it emulates NEON elsewhere. */
static void positions(uint64_t h, unsigned k, uint32_t pos[16])
{
    for (unsigned i = 0; i < k; i++)
        pos[i] = bl_counting_pos(h, i);
}

static void counter_index(bl_nsplit *idx)
{
    uint8_t lo[16];
    for (unsigned j = 0; j < 16; j++)
        lo[j] = (uint8_t)(2 * j);
    const simde_uint8x16_t base = simde_vld1q_u8(lo);
    for (unsigned r = 0; r < 4; r++) {
        idx->lo[r] = simde_vaddq_u8(base, simde_vdupq_n_u8((uint8_t)(32 * r)));
        idx->hi[r] = simde_vaddq_u8(base, simde_vdupq_n_u8((uint8_t)(32 * r + 1)));
    }
}

static void probe_counts(const bl_nsplit *idx, uint64_t h, unsigned k, bl_nsplit *cnt)
{
    uint32_t pos[16];
    positions(h, k, pos);
    for (unsigned r = 0; r < 4; r++)
        cnt->lo[r] = cnt->hi[r] = simde_vdupq_n_u8(0);
    for (unsigned i = 0; i < k; i++) {
        const simde_uint8x16_t p = simde_vdupq_n_u8((uint8_t)pos[i]);
        for (unsigned r = 0; r < 4; r++) {
            /* vceq gives 0xff on the probed counter: subtracting it counts one. */
            cnt->lo[r] = simde_vsubq_u8(cnt->lo[r], simde_vceqq_u8(idx->lo[r], p));
            cnt->hi[r] = simde_vsubq_u8(cnt->hi[r], simde_vceqq_u8(idx->hi[r], p));
        }
    }
}

static void load_split(const uint8_t *line, bl_nsplit *v)
{
    const simde_uint8x16_t m = simde_vdupq_n_u8(15);
    for (unsigned r = 0; r < 4; r++) {
        const simde_uint8x16_t b = simde_vld1q_u8(line + 16 * r);
        v->lo[r] = simde_vandq_u8(b, m);
        v->hi[r] = simde_vshrq_n_u8(b, 4);
    }
}

static void store_split(uint8_t *line, const bl_nsplit *v)
{
    for (unsigned r = 0; r < 4; r++)
        simde_vst1q_u8(line + 16 * r, simde_vorrq_u8(v->lo[r], simde_vshlq_n_u8(v->hi[r], 4)));
}

static simde_uint8x16_t sat_add(simde_uint8x16_t v, simde_uint8x16_t cnt)
{
    return simde_vminq_u8(simde_vqaddq_u8(v, cnt), simde_vdupq_n_u8(15));
}

/* Checked subtract: *bad gets lanes where v < cnt and v is not saturated. */
static simde_uint8x16_t checked_sub(simde_uint8x16_t v, simde_uint8x16_t cnt,
                                    simde_uint8x16_t *bad)
{
    const simde_uint8x16_t sat = simde_vceqq_u8(v, simde_vdupq_n_u8(15));
    *bad = simde_vorrq_u8(*bad, simde_vbicq_u8(simde_vqsubq_u8(cnt, v), sat));
    return simde_vbslq_u8(sat, v, simde_vsubq_u8(v, cnt));
}

static void bl_counting_add_neon(uint8_t *data, uint64_t nlines, unsigned k, const uint64_t *h,
                                 size_t n, size_t avail)
{
    bl_nsplit idx, cnt, v;
    counter_index(&idx);
    for (size_t i = 0; i < n; i++) {
        if (i + BL_PREFETCH_DISTANCE < avail)
            BL_PREFETCH_W(bl_counting_line(data, nlines, h[i + BL_PREFETCH_DISTANCE]));
        uint8_t *line = bl_counting_line(data, nlines, h[i]);
        probe_counts(&idx, h[i], k, &cnt);
        load_split(line, &v);
        for (unsigned r = 0; r < 4; r++) {
            v.lo[r] = sat_add(v.lo[r], cnt.lo[r]);
            v.hi[r] = sat_add(v.hi[r], cnt.hi[r]);
        }
        store_split(line, &v);
    }
}

static size_t bl_counting_remove_neon(uint8_t *data, uint64_t nlines, unsigned k,
                                      const uint64_t *h, size_t n, size_t avail)
{
    bl_nsplit idx, cnt, v;
    counter_index(&idx);
    size_t absent = 0;
    for (size_t i = 0; i < n; i++) {
        if (i + BL_PREFETCH_DISTANCE < avail)
            BL_PREFETCH_W(bl_counting_line(data, nlines, h[i + BL_PREFETCH_DISTANCE]));
        uint8_t *line = bl_counting_line(data, nlines, h[i]);
        probe_counts(&idx, h[i], k, &cnt);
        load_split(line, &v);
        simde_uint8x16_t bad = simde_vdupq_n_u8(0);
        for (unsigned r = 0; r < 4; r++) {
            v.lo[r] = checked_sub(v.lo[r], cnt.lo[r], &bad);
            v.hi[r] = checked_sub(v.hi[r], cnt.hi[r], &bad);
        }
        if (simde_vmaxvq_u8(bad) != 0) {
            absent++;
            continue;
        }
        store_split(line, &v);
    }
    return absent;
}

/* Query: the 16 probe bytes in one register (lanes past k repeat probe 0, which is tested
 * anyway), the counters' bytes fetched with one 64-byte tbl, each shifted to its nibble. */
static bool test_one_neon(const uint8_t *data, uint64_t nlines, unsigned k, uint64_t h)
{
    const uint8_t *line = data + bl_blocked_line(h, nlines) * BL_LINE_BYTES;
    uint8_t p8[16];
    for (unsigned i = 0; i < 16; i++)
        p8[i] = (uint8_t)bl_counting_pos(h, i < k ? i : 0);
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

static size_t bl_counting_test_neon(const uint8_t *data, uint64_t nlines, unsigned k,
                                    const uint64_t *h, size_t n, size_t avail, uint8_t *res)
{
    size_t hits = 0;
    for (size_t i = 0; i < n; i++) {
        if (i + BL_PREFETCH_DISTANCE < avail)
            BL_PREFETCH_R(data + bl_blocked_line(h[i + BL_PREFETCH_DISTANCE], nlines) * BL_LINE_BYTES);
        const bool r = test_one_neon(data, nlines, k, h[i]);
        hits += r;
        if (res)
            res[i] = r;
    }
    return hits;
}

const struct bl_counting_kernels bl_counting_kernels_neon = {
    .name = "neon",
    .add = bl_counting_add_neon,
    .test = bl_counting_test_neon,
    .remove = bl_counting_remove_neon,
};
