/* SPDX-License-Identifier: MIT */
/* The whole-array counts (counts_scalar.c) in NEON: per byte, vcnt for set bits and a 16-entry
 * table lookup of each nibble for non-zero counters, widened into 16-bit lanes by vpadal. */
#include "../internal.h"

#include <simde/arm/neon.h>

/* A 16-bit lane gains at most 16 per 16 bytes, so 4095 steps fit; fold well before. */
#define STEPS_PER_FOLD 1024u

static inline simde_uint8x16_t bits_per_byte(simde_uint8x16_t v) { return simde_vcntq_u8(v); }

static inline simde_uint8x16_t nonzero_nibbles_per_byte(simde_uint8x16_t v)
{
    static const uint8_t nonzero[16] = {0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    const simde_uint8x16_t table = simde_vld1q_u8(nonzero);
    const simde_uint8x16_t lo = simde_vandq_u8(v, simde_vdupq_n_u8(0x0F));
    const simde_uint8x16_t hi = simde_vshrq_n_u8(v, 4);
    return simde_vaddq_u8(simde_vqtbl1q_u8(table, lo), simde_vqtbl1q_u8(table, hi));
}

static inline __attribute__((always_inline)) uint64_t
count_vectors(const uint8_t *data, uint64_t nbytes, simde_uint8x16_t (*per_byte)(simde_uint8x16_t),
              uint64_t (*tail)(const uint8_t *, uint64_t))
{
    uint64_t total = 0, i = 0;
    while (i + 16 <= nbytes) {
        simde_uint16x8_t sums = simde_vdupq_n_u16(0);
        for (unsigned s = 0; s < STEPS_PER_FOLD && i + 16 <= nbytes; s++, i += 16)
            sums = simde_vpadalq_u8(sums, per_byte(simde_vld1q_u8(data + i)));
        total += simde_vaddlvq_u16(sums);
    }
    return total + tail(data + i, nbytes - i);
}

uint64_t bl_count_bits_neon(const uint8_t *data, uint64_t nbytes)
{
    return count_vectors(data, nbytes, bits_per_byte, bl_count_bits_scalar);
}

uint64_t bl_count_nonzero_nibbles_neon(const uint8_t *data, uint64_t nbytes)
{
    return count_vectors(data, nbytes, nonzero_nibbles_per_byte, bl_count_nonzero_nibbles_scalar);
}
