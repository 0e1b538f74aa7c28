/* The barrier-wave construction (construct/bwave.c): on nnshape at 128 devices and memory 40 (the
 * scale set of tests/bench/quality.sh) it repeats every 676 steps per 40 micro-batches, within
 * 1.10 of the lower bound at N 512 where the other constructions stay above 1.17; every schedule
 * passes the core's validator within the capacities given, uneven ones included, and is not
 * below the lower bound; barriers longer than a step are laid out whole; the same input gives
 * the same schedule; what is not a barrier V, and a memory nothing fits, are refused. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "bchain_testutil.h"
#include "ts_bwave.h"

static void test_nnshape_at_scale(void **state)
{
    (void)state;
    ts_placement *p = tu_builtin("nnshape", 128, false);
    long cap[TU_CAPS];
    tu_caps(cap, 128, 40);
    int n = 512;
    ts_schedule *s = NULL, *t = NULL;
    ts_err e = {0};
    assert_int_equal(ts_bwave_schedule(p, n, cap, &s, &e), TS_OK);
    bc_assert_valid(s);
    /* 40 micro-batches per 516 gap steps and their 160 barrier steps: 16.9 a micro-batch, where
     * the top device, holding at most 40 windows of at least 509 gap steps, needs 16.725 */
    for (int b = 0; b < p->nblocks; b++)
        for (int m = 0; m + 40 < n; m += 7)
            assert_int_equal(bc_start_of(s, b, m + 40) - bc_start_of(s, b, m), 676);
    long lb = bc_lower_bound(p, n, cap), mk = tu_makespan(s, n, NULL);
    assert_true(mk >= lb);
    /* within 1.10 of the bound (8704), where modulo-x2 gives 10251 */
    assert_true(mk * 100 <= lb * 110);
    assert_int_equal(ts_bwave_schedule(p, n, cap, &t, &e), TS_OK);
    assert_int_equal(s->nentries, t->nentries);
    assert_memory_equal(s->entries, t->entries, (size_t)s->nentries * sizeof *s->entries);
    ts_schedule_free(s);
    ts_schedule_free(t);
    ts_placement_free(p);
}

static void test_uneven_and_mshape(void **state)
{
    (void)state;
    ts_placement *p = tu_builtin("nnshape", 32, false);
    long cap[32];
    for (int d = 0; d < 32; d++)
        cap[d] = 8 - d / 8;
    ts_schedule *s = NULL;
    ts_err e = {0};
    assert_int_equal(ts_bwave_schedule(p, 48, cap, &s, &e), TS_OK);
    bc_assert_valid(s);
    assert_true(tu_makespan(s, 48, NULL) >= bc_lower_bound(p, 48, cap));
    ts_schedule_free(s);
    ts_placement_free(p);

    p = tu_builtin("mshape", 16, false);
    long c2[16];
    tu_caps(c2, 16, 4);
    assert_int_equal(ts_bwave_schedule(p, 40, c2, &s, &e), TS_OK);
    bc_assert_valid(s);
    assert_true(tu_makespan(s, 40, NULL) >= bc_lower_bound(p, 40, c2));
    ts_schedule_free(s);
    ts_placement_free(p);
}

static void test_long_barriers(void **state)
{
    (void)state;
    bc_long_barriers(ts_bwave_schedule);
}

static void test_refusals(void **state)
{
    (void)state;
    bc_refusals(ts_bwave_schedule);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nnshape_at_scale),
        cmocka_unit_test(test_uneven_and_mshape),
        cmocka_unit_test(test_long_barriers),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
