/* The barrier-frame construction (construct/bframe.c): on nnshape at memory D + 2 its steps per
 * two micro-batches are the least of the one-boundary class as CP-SAT decides it on a model of
 * its own (tests/bench/periodic_cpsat.py --boundaries 1: 2 per 17 proven infeasible at 8, 16 and
 * 32 devices, 2 per 18 feasible; tests/python/test_barrier_frames.py holds the search's Python
 * twin to CP-SAT on more cases); every schedule passes the core's validator within the
 * capacities given, uneven ones included, and is not below the lower bound; the same input gives
 * the same schedule; what is not a barrier V, and a memory nothing fits, are refused. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "bchain_testutil.h"
#include "ts_bframe.h"

static void test_nnshape_least_period(void **state)
{
    (void)state;
    for (int D = 8; D <= 32; D *= 2) {
        ts_placement *p = tu_builtin("nnshape", D, false);
        long cap[TU_CAPS];
        tu_caps(cap, D, D + 2);
        int n = 32;
        ts_schedule *s = NULL;
        ts_err e = {0};
        assert_int_equal(ts_bframe_schedule(p, n, cap, &s, &e), TS_OK);
        bc_assert_valid(s);
        /* every block's instance two micro-batches on starts 18 steps later */
        for (int b = 0; b < p->nblocks; b++)
            for (int m = 0; m + 2 < n; m++)
                assert_int_equal(bc_start_of(s, b, m + 2) - bc_start_of(s, b, m), 18);
        long mk = tu_makespan(s, n, NULL);
        assert_true(mk >= bc_lower_bound(p, n, cap));
        ts_schedule_free(s);
        ts_placement_free(p);
    }
}

static void test_uneven_capacities(void **state)
{
    (void)state;
    ts_placement *p = tu_builtin("nnshape", 8, false);
    long cap[8] = {12, 11, 10, 9, 8, 7, 6, 5};
    ts_schedule *s = NULL, *t = NULL;
    ts_err e = {0};
    assert_int_equal(ts_bframe_schedule(p, 24, cap, &s, &e), TS_OK);
    bc_assert_valid(s);
    assert_int_equal(ts_bframe_schedule(p, 24, cap, &t, &e), TS_OK);
    assert_int_equal(s->nentries, t->nentries);
    assert_memory_equal(s->entries, t->entries, (size_t)s->nentries * sizeof *s->entries);
    ts_schedule_free(s);
    ts_schedule_free(t);
    ts_placement_free(p);

    p = tu_builtin("mshape", 4, false);
    long c2[4];
    tu_caps(c2, 4, 2);
    assert_int_equal(ts_bframe_schedule(p, 16, c2, &s, &e), TS_OK);
    bc_assert_valid(s);
    assert_true(tu_makespan(s, 16, NULL) >= bc_lower_bound(p, 16, c2));
    ts_schedule_free(s);
    ts_placement_free(p);
}

static void test_long_barriers(void **state)
{
    (void)state;
    bc_long_barriers(ts_bframe_schedule);
}

/* On nnshape at 128 devices and memory 40 the first device alone rules out every period the
 * search tries (a window of at least 509 steps against 40 x 12): the answer is that no period
 * fits the memory, reached before the work bound, which the full pass at each period used to
 * exhaust first. */
static void test_memory_rules_out_periods(void **state)
{
    (void)state;
    ts_placement *p = tu_builtin("nnshape", 128, false);
    long cap[TU_CAPS];
    tu_caps(cap, 128, 40);
    ts_schedule *s = NULL;
    ts_err e = {0};
    assert_int_equal(ts_bframe_schedule(p, 512, cap, &s, &e), TS_ENOANSWER);
    assert_null(s);
    assert_non_null(strstr(e.msg, "fits the memory"));
    ts_placement_free(p);
}

static void test_refusals(void **state)
{
    (void)state;
    bc_refusals(ts_bframe_schedule);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nnshape_least_period),
        cmocka_unit_test(test_uneven_capacities),
        cmocka_unit_test(test_long_barriers),
        cmocka_unit_test(test_memory_rules_out_periods),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
