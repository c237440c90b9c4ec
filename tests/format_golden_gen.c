/* SPDX-License-Identifier: MIT */
/* Writes the golden files (tests/data, tests/data/aarch64) from the fixed specs in format_test.h. */
#include <stdio.h>

#include "format_test.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s <output directory>\n", argv[0]);
        return 2;
    }
    int rc = 0;
    for (size_t i = 0; i < sizeof ft_goldens / sizeof ft_goldens[0]; i++) {
        const ft_golden *g = &ft_goldens[i];
        char path[4096];
        snprintf(path, sizeof path, "%s/golden-%s.blf", argv[1], g->name);
        bl_filter *f = NULL;
        bl_status st = ft_golden_build(g, &f);
        if (st == BL_OK)
            st = bl_save(f, path);
        if (st != BL_OK) {
            fprintf(stderr, "%s: %s\n", path, bl_strerror(st));
            rc = 1;
        } else {
            printf("%s (kernel %s)\n", path, bl_filter_kernel(f));
        }
        ft_free(f);
    }
    return rc;
}
