/* SPDX-License-Identifier: MIT */
/* The README's example: build a filter, add keys, query them. */
#include <bloomline.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    bl_params params;
    bl_params_init(&params);
    params.expected_keys = 1000000; /* n */
    params.fpp = 0.001;             /* p */
    bl_filter *filter;
    bl_status st = bl_create(&filter, &params);
    if (st != BL_OK) {
        fprintf(stderr, "bl_create: %s\n", bl_strerror(st));
        return 1;
    }
    const char *urls[] = {"https://example.com/", "https://example.org/a"};
    for (size_t i = 0; i < 2; i++)
        bl_add(filter, urls[i], strlen(urls[i]));
    uint64_t ids[] = {1, 2, 3};
    bl_add_u64_batch(filter, ids, 3);

    uint8_t found[4];
    uint64_t probe[] = {1, 2, 3, 4};
    size_t hits = bl_contains_u64_batch(filter, probe, 4, found);
    printf("kernel %s: \"%s\" %s; ids 1-4: %zu hits, id 4 %s\n", bl_filter_kernel(filter), urls[0],
           bl_contains(filter, urls[0], strlen(urls[0])) ? "may be present" : "absent", hits,
           found[3] ? "may be present" : "absent");
    bl_free(filter);
    return 0;
}
