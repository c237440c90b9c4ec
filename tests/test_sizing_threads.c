/* SPDX-License-Identifier: MIT */
/* Sizing from many threads at once: the line models' tables, filled on first use. */
#include <pthread.h>

#include "../src/internal.h"
#include "test_util.h"

/* The line models' rows are filled on first use, one k at a time, into scratch shared by the
 * table. Threads that ask for every k at once, each in its own order, must all read the same
 * rates as one thread does alone afterwards (under TSan, .ci's threaded run, without a race).
 * A file of its own, so that the rows are still empty when it starts. */
#define FILL_THREADS 4
typedef struct fill_job {
    unsigned first_k;
    double rate[2][BL_K_MAX_BLOCKED + 1];
} fill_job;

static const bl_layout line_layouts[2] = {BL_LAYOUT_BLOCKED, BL_LAYOUT_COUNTING};

static double line_rate(unsigned which, unsigned k)
{
    return bl_expected_fpp(line_layouts[which], 512 * 1000, k, 40000);
}

static void *fill_rows(void *arg)
{
    fill_job *job = arg;
    for (unsigned i = 0; i < BL_K_MAX_BLOCKED; i++) {
        const unsigned k = 1 + (job->first_k - 1 + i) % BL_K_MAX_BLOCKED;
        for (unsigned which = 0; which < 2; which++)
            job->rate[which][k] = line_rate(which, k);
    }
    return NULL;
}

static void test_model_rows_fill_once_across_threads(void **state)
{
    (void)state;
    pthread_t tid[FILL_THREADS];
    fill_job jobs[FILL_THREADS];
    for (unsigned t = 0; t < FILL_THREADS; t++) {
        jobs[t].first_k = BL_K_MAX_BLOCKED - t * 5; /* 16, 11, 6, 1: the costly rows at once */
        assert_int_equal(pthread_create(&tid[t], NULL, fill_rows, &jobs[t]), 0);
    }
    for (unsigned t = 0; t < FILL_THREADS; t++)
        assert_int_equal(pthread_join(tid[t], NULL), 0);
    for (unsigned which = 0; which < 2; which++) {
        for (unsigned k = 1; k <= BL_K_MAX_BLOCKED; k++) {
            const double alone = line_rate(which, k);
            assert_true(alone > 0 && alone < 1);
            for (unsigned t = 0; t < FILL_THREADS; t++)
                if (jobs[t].rate[which][k] != alone)
                    fail_msg("%s k=%u: thread %u read %.17g, alone %.17g",
                             bl_layout_name(line_layouts[which]), k, t, jobs[t].rate[which][k],
                             alone);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_model_rows_fill_once_across_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
