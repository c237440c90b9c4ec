/* SPDX-License-Identifier: MIT */
/* A parallel build without atomics: each thread hashes its share of the keys, then adds the
 * hashes of every thread that fall in its own part of the filter. */
#define _POSIX_C_SOURCE 200809L /* pthread_barrier_t, which strict -std=c11 hides */

#include <bloomline.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { THREADS = 4, KEYS = 1000000, PER = KEYS / THREADS };

static bl_filter *filter;
static uint64_t keys[KEYS], hashes[KEYS];
static pthread_barrier_t hashed;

static void *build(void *arg)
{
    const unsigned t = (unsigned)(uintptr_t)arg;
    /* 1. Hash this thread's keys (any split of the keys works). */
    bl_hash_u64_batch(filter, keys + t * PER, PER, hashes + t * PER);
    pthread_barrier_wait(&hashed);
    /* 2. Add, from all hashes, those whose line is in part t: no other thread writes there. */
    bl_add_hash_batch_part(filter, hashes, KEYS, t, THREADS);
    return NULL;
}

int main(void)
{
    bl_params params;
    bl_params_init(&params);
    params.expected_keys = KEYS;
    params.fpp = 0.001;
    if (bl_create(&filter, &params) != BL_OK)
        return 1;
    for (uint64_t i = 0; i < KEYS; i++)
        keys[i] = i * 0x9E3779B97F4A7C15ULL;
    pthread_barrier_init(&hashed, NULL, THREADS);
    pthread_t tid[THREADS];
    for (uintptr_t t = 0; t < THREADS; t++)
        pthread_create(&tid[t], NULL, build, (void *)t);
    for (int t = 0; t < THREADS; t++)
        pthread_join(tid[t], NULL);
    size_t hits = bl_contains_u64_batch(filter, keys, KEYS, NULL);
    bl_info info;
    bl_get_info(filter, &info);
    printf("%zu of %d keys found, %llu counted\n", hits, KEYS,
           (unsigned long long)info.keys_added);
    bl_free(filter);
    return hits == KEYS && info.keys_added == KEYS ? 0 : 1;
}
