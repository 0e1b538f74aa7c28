/* ts_schedule_find_repetend: a schedule at N whose steady state repeats gets the repetend that
 * unrolls it to any N; one that does not repeat is left as it is. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "ts_baseline.h"

static ts_schedule *baseline(const char *kind, const char *shape, int D, int n)
{
    ts_builtin_opts o = {.ndevs = D};
    ts_placement *p = NULL;
    ts_schedule *s = NULL;
    ts_err e = {0};
    assert_int_equal(ts_builtin_make(shape, &o, &p, &e), TS_OK);
    assert_int_equal(ts_baseline_make(kind, p, n, &s, &e), TS_OK);
    ts_placement_free(p);
    ts_schedule_clear_repetend(s);
    return s;
}

/* 1F1B on vshape: one forward and one backward per device every 4 steps in its steady state. */
static void test_1f1b_repeats(void **state)
{
    (void)state;
    ts_schedule *s = baseline("1f1b", "vshape", 4, 16);
    assert_int_equal(ts_schedule_find_repetend(s), 1);
    assert_true(s->has_repetend);
    assert_int_equal(s->rep.period, 4);
    ts_schedule *u = NULL;
    ts_err e = {0};
    ts_validate_opts vo = {0};
    assert_int_equal(ts_schedule_unroll(s, 100, &u, &e), TS_OK);
    assert_int_equal(ts_schedule_validate(u, &vo, &e), TS_OK);
    ts_metrics m;
    assert_int_equal(ts_schedule_metrics(u, &m), 0);
    /* the steady state adds one period per micro-batch */
    ts_metrics m16;
    assert_int_equal(ts_schedule_metrics(s, &m16), 0);
    assert_int_equal(m.makespan, m16.makespan + 84 * 4);
    ts_metrics_free(&m);
    ts_metrics_free(&m16);
    ts_schedule_free(u);
    ts_schedule_free(s);
}

/* GPipe runs every forward, then every backward: each block's instances are its span apart,
 * forwards 1, backwards 3, so no one period holds and the schedule is left without a window. */
static void test_broken_steady_state_stays(void **state)
{
    (void)state;
    ts_schedule *s = baseline("gpipe", "vshape", 4, 6);
    assert_int_equal(ts_schedule_find_repetend(s), 0);
    assert_false(s->has_repetend);
    ts_schedule_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_1f1b_repeats),
        cmocka_unit_test(test_broken_steady_state_stays),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
