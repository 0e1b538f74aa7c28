/* The barrier-wave construction (solver/bwave.c): on nnshape at 128 devices and memory 40 (the
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
#include <string.h>
#include "solver_testutil.h"
#include "ts_bound.h"
#include "ts_bwave.h"

static void assert_valid(const ts_schedule *s)
{
    ts_err e = {0};
    ts_validate_opts vo = {0};
    if (ts_schedule_validate(s, &vo, &e))
        fail_msg("invalid: %s", e.msg);
}

static long start_of(const ts_schedule *s, int block, int micro)
{
    for (int i = 0; i < s->nentries; i++)
        if (s->entries[i].block == block && s->entries[i].micro == micro)
            return s->entries[i].step;
    fail_msg("no entry for block %d, micro-batch %d", block, micro);
    return -1;
}

static long lower_bound(const ts_placement *p, int n, const long *cap)
{
    long lb = ts_bound_value(p, n, cap);
    assert_true(lb > 0);
    return lb;
}

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
    assert_valid(s);
    /* 40 micro-batches per 516 gap steps and their 160 barrier steps: 16.9 a micro-batch, where
     * the top device, holding at most 40 windows of at least 509 gap steps, needs 16.725 */
    for (int b = 0; b < p->nblocks; b++)
        for (int m = 0; m + 40 < n; m += 7)
            assert_int_equal(start_of(s, b, m + 40) - start_of(s, b, m), 676);
    long lb = lower_bound(p, n, cap), mk = tu_makespan(s, n, NULL);
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
    assert_valid(s);
    assert_true(tu_makespan(s, 48, NULL) >= lower_bound(p, 48, cap));
    ts_schedule_free(s);
    ts_placement_free(p);

    p = tu_builtin("mshape", 16, false);
    long c2[16];
    tu_caps(c2, 16, 4);
    assert_int_equal(ts_bwave_schedule(p, 40, c2, &s, &e), TS_OK);
    assert_valid(s);
    assert_true(tu_makespan(s, 40, NULL) >= lower_bound(p, 40, c2));
    ts_schedule_free(s);
    ts_placement_free(p);
}

/* nnshape on 4 devices with barriers of 2 and 3 steps (tests/fixtures): each is laid out whole. */
static void test_long_barriers(void **state)
{
    (void)state;
    ts_placement *p = NULL;
    ts_err e = {0};
    if (ts_placement_load(TS_TEST_DATA "/fixtures/nnshape4_long_barriers.json", &p, &e))
        fail_msg("%s", e.msg);
    for (long c = 2; c <= 6; c += 2) {
        long cap[4];
        tu_caps(cap, 4, c);
        ts_schedule *s = NULL;
        if (ts_bwave_schedule(p, 20, cap, &s, &e))
            fail_msg("memory %ld: %s", c, e.msg);
        assert_valid(s);
        assert_true(tu_makespan(s, 20, NULL) >= lower_bound(p, 20, cap));
        ts_schedule_free(s);
    }
    ts_placement_free(p);
}

static void test_refusals(void **state)
{
    (void)state;
    const char *other[] = {"xshape", "vshape", "kshape"};
    for (int i = 0; i < 3; i++) {
        ts_placement *p = tu_builtin(other[i], 4, false);
        ts_schedule *s = NULL;
        ts_err e = {0};
        assert_int_equal(ts_bwave_schedule(p, 8, NULL, &s, &e), TS_EINPUT);
        assert_null(s);
        assert_non_null(strstr(e.msg, "not a barrier V"));
        ts_placement_free(p);
    }
    ts_placement *p = tu_builtin("nnshape", 4, false);
    long cap[4] = {0, 0, 0, 0};
    ts_schedule *s = NULL;
    ts_err e = {0};
    assert_int_equal(ts_bwave_schedule(p, 8, cap, &s, &e), TS_ENOANSWER);
    assert_null(s);
    assert_non_null(strstr(e.msg, "fits the memory"));
    ts_placement_free(p);
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
