/* SPDX-License-Identifier: MIT */
/* Smoke test: create, add, query. */
#include "test_util.h"

static void test_basic(void **state)
{
    (void)state;
    bl_filter *f = tu_create(BL_LAYOUT_BLOCKED, 1000, 0.01, NULL);
    assert_int_equal(bl_add(f, "hello", 5), BL_OK);
    assert_true(bl_contains(f, "hello", 5));
    bl_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_basic)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
