/* SPDX-License-Identifier: MIT */
/* Adds for BL_FLAG_CONCURRENT filters: atomic OR, so concurrent adders lose no bit. Same
 * positions as the scalar spec, so the bits are identical to every kernel's. */
#include "internal.h"

/* A locked OR is a full barrier on x86 (tens of cycles, and it stalls the prefetch stream), so
 * a key's bits are first gathered per 64-bit word (bit pos of the line is bit pos & 63 of
 * little-endian word pos >> 6, the same bit as in the 32-bit view), words whose bits are all set
 * already are skipped with a plain load, and each remaining word takes one locked OR. (A 16-byte
 * compare-and-swap per quarter line, `lock cmpxchg16b`, halves the locked operations at k = 12
 * but measured 1.6x slower: 70 against 43 ns/key at 2^25 keys, p = 1e-4, alternated.) */
static inline void or_words(uint64_t *w, const uint64_t *mask, unsigned nwords)
{
    for (unsigned q = 0; q < nwords; q++)
        if (mask[q] != 0 && (__atomic_load_n(&w[q], __ATOMIC_RELAXED) & mask[q]) != mask[q])
            __atomic_fetch_or(&w[q], mask[q], __ATOMIC_RELAXED);
}

void bl_blocked_add_atomic(uint8_t *data, uint64_t nlines, unsigned k, const uint64_t *h,
                           size_t n, size_t avail)
{
    for (size_t j = 0; j < n; j++) {
        if (j + BL_PREFETCH_DISTANCE < avail)
            BL_PREFETCH_W(BL_LINE_AT(data, nlines, h[j + BL_PREFETCH_DISTANCE]));
        uint64_t mask[BL_LINE_BYTES / 8] = {0};
        for (unsigned i = 0; i < k; i++) {
            uint32_t pos = bl_blocked_pos(h[j], k, i);
            mask[pos >> 6] |= UINT64_C(1) << (pos & 63);
        }
        or_words((uint64_t *)(void *)BL_LINE_AT(data, nlines, h[j]), mask,
                 BL_LINE_BYTES / 8);
    }
}

void bl_sbbf_add_atomic(uint8_t *data, uint64_t nblocks, const uint64_t *h, size_t n, size_t avail)
{
    for (size_t j = 0; j < n; j++) {
        if (j + BL_PREFETCH_DISTANCE < avail)
            BL_PREFETCH_W(data + bl_sbbf_block(h[j + BL_PREFETCH_DISTANCE], nblocks) * BL_SBBF_BLOCK_BYTES);
        uint64_t mask[BL_SBBF_BLOCK_BYTES / 8] = {0};
        for (unsigned i = 0; i < 8; i++) /* word i of 32 bits is half i & 1 of 64-bit word i / 2 */
            mask[i >> 1] |= (UINT64_C(1) << (((uint32_t)h[j] * bl_sbbf_salt[i]) >> 27)) << (32 * (i & 1));
        or_words((uint64_t *)(void *)(data + bl_sbbf_block(h[j], nblocks) * BL_SBBF_BLOCK_BYTES),
                 mask, BL_SBBF_BLOCK_BYTES / 8);
    }
}
