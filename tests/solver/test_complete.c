/* The completion API (ts_complete.h): warm-up and cool-down around a given repetend, including
 * a window whose instance runs past its end, memory feasibility, and refused repetends. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "solver_testutil.h"
#include "ts_complete.h"

/* One device: a (span sa, memory +1) -> b (span sb, memory -1). */
static ts_placement *two_blocks(int sa, int sb)
{
    ts_placement *p = ts_placement_new("two", 1);
    int d = 0;
    ts_placement_add_block(p, "a", TS_KIND_FORWARD, sa, 1, 1, &d);
    ts_placement_add_block(p, "b", TS_KIND_BACKWARD, sb, -1, 1, &d);
    ts_placement_add_edge(p, 0, 1, 0, 0);
    return p;
}

static void test_complete_simple(void **state)
{
    (void)state;
    ts_placement *p = two_blocks(1, 2);
    int mids[2] = {1, 0};
    long start[2] = {0, 1};
    ts_rep r = {.start = start, .period = 3, .mids = mids};
    ts_complete_opts o;
    ts_complete_opts_init(&o);
    long cb[TU_CAPS];
    o.cap = tu_caps(cb, p->ndevs, 2);
    ts_schedule *s = NULL;
    ts_complete_stats st;
    ts_err e = {0};
    assert_int_equal(ts_complete(p, &r, &o, &s, &st, &e), TS_OK);
    assert_int_equal(s->nmicros, 2);
    assert_true(s->has_repetend);
    assert_int_equal(s->rep.period, 3);
    assert_int_equal(st.warmup_steps, 1);
    assert_int_equal(st.cooldown_steps, 2);
    assert_true(st.warmup_optimal && st.cooldown_optimal);
    assert_int_equal(tu_valid_range(s, 2, 40), 0);
    ts_schedule_free(s);

    /* memory 1 cannot hold the window's level 1 + 1 */
    o.cap = tu_caps(cb, p->ndevs, 1);
    bool feasible, unknown;
    assert_int_equal(ts_complete_feasible(p, mids, o.cap, NULL, 5, &feasible, &unknown, &e), TS_OK);
    assert_true(feasible); /* warm-up and cool-down alone fit... */
    assert_int_not_equal(ts_complete(p, &r, &o, &s, &st, &e), TS_OK); /* ...the window does not */
    assert_null(s);
    ts_placement_free(p);
}

static void test_complete_overhang(void **state)
{
    (void)state;
    ts_placement *p = two_blocks(2, 2);
    int mids[2] = {1, 0};
    long start[2] = {3, 1}; /* a runs [3, 5): past the window end, wrapping onto [0, 1) */
    ts_rep r = {.start = start, .period = 4, .mids = mids};
    ts_complete_opts o;
    ts_complete_opts_init(&o);
    ts_schedule *s = NULL;
    ts_err e = {0};
    assert_int_equal(ts_complete(p, &r, &o, &s, NULL, &e), TS_OK);
    assert_int_equal(tu_valid_range(s, 2, 30), 0);
    ts_schedule_free(s);
    ts_placement_free(p);
}

static void test_complete_refuses(void **state)
{
    (void)state;
    ts_placement *p = two_blocks(1, 2);
    ts_complete_opts o;
    ts_complete_opts_init(&o);
    ts_schedule *s = NULL;
    ts_err e = {0};
    int m1[2] = {2, 1};
    long s1[2] = {0, 1};
    ts_rep r1 = {.start = s1, .period = 3, .mids = m1};
    assert_int_equal(ts_complete(p, &r1, &o, &s, NULL, &e), TS_EINPUT); /* min offset 1 */
    int m2[2] = {0, 1};
    ts_rep r2 = {.start = s1, .period = 3, .mids = m2};
    ts_err_clear(&e);
    assert_int_equal(ts_complete(p, &r2, &o, &s, NULL, &e), TS_EINPUT); /* offset grows on edge */
    assert_non_null(strstr(e.msg, "goes back"));
    int m3[2] = {1, 0};
    long s3[2] = {0, 3};
    ts_rep r3 = {.start = s3, .period = 3, .mids = m3};
    ts_err_clear(&e);
    assert_int_equal(ts_complete(p, &r3, &o, &s, NULL, &e), TS_EINPUT); /* start outside */
    assert_null(s);
    ts_placement_free(p);
}

/* The warm-up of vshape with every forward one micro-batch ahead of the next needs k - 1
 * forwards in flight on device 0: memory 1 is too small, and the check says so. */
static void test_feasible_memory(void **state)
{
    (void)state;
    ts_placement *p = tu_builtin("vshape", 4, false);
    assert_non_null(p);
    int mids[8] = {3, 2, 1, 0, 0, 0, 0, 0}; /* F0..F3 B3..B0 */
    bool feasible, unknown;
    ts_err e = {0};
    long cb[TU_CAPS];
    assert_int_equal(
        ts_complete_feasible(p, mids, tu_caps(cb, 4, 4), NULL, 5, &feasible, &unknown, &e), TS_OK);
    assert_true(feasible);
    assert_int_equal(
        ts_complete_feasible(p, mids, tu_caps(cb, 4, 2), NULL, 5, &feasible, &unknown, &e), TS_OK);
    assert_false(feasible);
    assert_false(unknown);
    ts_placement_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_complete_simple),
        cmocka_unit_test(test_complete_overhang),
        cmocka_unit_test(test_complete_refuses),
        cmocka_unit_test(test_feasible_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
