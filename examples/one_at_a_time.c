/* SPDX-License-Identifier: MIT */
/* Keys that come one at a time (packets, rows) and cannot wait for a batch: each is hashed and
 * its line prefetched on arrival, and answered AHEAD keys later, when the line has come. */
#include <bloomline.h>
#include <stdio.h>

enum { KEYS = 1000000, STREAM = 2 * KEYS, AHEAD = 32 };

/* The stream: keys 0, 1, 2, ... of which the first KEYS were added. */
static uint64_t key_at(uint64_t i)
{
    return i * 0x9E3779B97F4A7C15ULL;
}

int main(void)
{
    bl_params params;
    bl_params_init(&params);
    params.expected_keys = KEYS;
    params.fpp = 0.001;
    bl_filter *filter;
    if (bl_create(&filter, &params) != BL_OK)
        return 1;
    for (uint64_t i = 0; i < KEYS; i++)
        bl_add_u64(filter, key_at(i));

    uint64_t ring[AHEAD]; /* the hashes of the last AHEAD keys, waiting for their lines */
    size_t hits = 0, wrong = 0;
    for (uint64_t i = 0; i < STREAM + AHEAD; i++) {
        const uint64_t slot = i % AHEAD;
        if (i >= AHEAD) { /* key i - AHEAD: its line has had AHEAD keys' time to arrive */
            const bool found = bl_contains_hash(filter, ring[slot]);
            hits += found;
            wrong += found != bl_contains_u64(filter, key_at(i - AHEAD)); /* (a check) */
        }
        if (i < STREAM) { /* key i arrives */
            ring[slot] = bl_hash_u64(filter, key_at(i));
            bl_prefetch_hash(filter, ring[slot]);
        }
    }
    printf("%zu of %d keys found (%d added), %zu answers differ from bl_contains_u64\n", hits,
           STREAM, KEYS, wrong);
    bl_free(filter);
    return hits >= KEYS && hits < KEYS + KEYS / 100 && wrong == 0 ? 0 : 1;
}
