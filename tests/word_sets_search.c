/* SPDX-License-Identifier: MIT */
/* The search that chose the blocked layout's word sets D_k (src/blocked_maps.c), a tool, not a
 * test: for each k, every k-subset of the 16 words that contains word 0, rated by the exact
 * rate of a line filter whose keys take its 16 translates (inclusion-exclusion, Poisson line
 * loads, 32 bits per word) at lambda = 512 ln 2 / k keys per line; the lowest rate wins, and
 * among sets within 1e-9 of it (mirror images tie) the smallest mask. Prints the masks and
 * compares them with the tables this build uses. A few seconds;
 * test_sizing repeats the search for k <= 8 on every run. */
#include <math.h>
#include <stdio.h>

#include "../src/internal.h"
#include "word_sets.h"

int main(void)
{
    int rc = 0;
    for (unsigned k = 1; k <= BL_K_MAX_BLOCKED; k++) {
        const long double lambda = 512 * logl(2) / k;
        const uint32_t best = ws_best_set(k, lambda);
        uint32_t used = 0;
        for (unsigned i = 0; i < k; i++)
            used |= 1u << bl_blocked_offsets[k][i];
        printf("k=%2u: best 0x%04x (rate %.6Lg at %.1Lf keys per line), tables 0x%04x%s\n", k,
               best, ws_translates_rate(best, lambda), lambda, used,
               best == used ? "" : "  MISMATCH");
        rc |= best != used;
    }
    return rc;
}
