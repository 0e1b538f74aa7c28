/* Limits on large inputs (issue 14): the seed and construction phases take the search's deadline,
 * and a lazy search cut by a tiny time limit still answers. A generated chain of a few thousand
 * blocks stands in for the huge cases of tests/bench/bench_limits.sh. No timing assertions: a
 * budget that has already ended must stop the work, and the search must return. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "solver_testutil.h"
#include "ts_construct.h"
#include "ts_search_ctx.h"

/* n forward blocks then n backward ones, round-robin on d devices, one chain of edges. */
static ts_placement *chain(int n, int d)
{
    ts_placement *p = ts_placement_new("chain", d);
    assert_non_null(p);
    char id[32];
    for (int i = 0; i < n; i++) {
        snprintf(id, sizeof id, "F%d", i);
        assert_true(ts_placement_add_block(p, id, TS_KIND_FORWARD, 1, 1, 1, (int[]){i % d}) >= 0);
    }
    for (int i = n - 1; i >= 0; i--) {
        snprintf(id, sizeof id, "B%d", i);
        assert_true(ts_placement_add_block(p, id, TS_KIND_BACKWARD, 1, -1, 1, (int[]){i % d}) >= 0);
    }
    for (int b = 0; b + 1 < 2 * n; b++)
        assert_true(ts_placement_add_edge(p, b, b + 1, 0, 0) >= 0);
    ts_err e = {0};
    assert_int_equal(ts_placement_check(p, "chain", &e), TS_OK);
    return p;
}

/* A budget on m whose effort is spent. */
static ts_budget ended(ts_meter *m)
{
    ts_meter_init(m, 0);
    ts_budget b;
    ts_budget_init(&b, m, 1e-9);
    while (!ts_budget_over(&b))
        ;
    return b;
}

static void test_fast_construct_takes_the_deadline(void **state)
{
    (void)state;
    ts_placement *p = chain(2000, 4);
    int n = p->nblocks;
    int *order = malloc((size_t)n * sizeof *order), *mids = calloc((size_t)n, sizeof *mids);
    long *start = calloc((size_t)n, sizeof *start), period = 0;
    assert_true(order && mids && start);
    assert_int_equal(ts_placement_chain_order(p, order), 0);
    bool fits;
    ts_err e = {0};
    long cb[TU_CAPS];
    assert_int_equal(ts_fast_construct(p, order, tu_caps(cb, 4, 4000), NULL, mids, start, &period, &fits, &e),
                     TS_OK);
    assert_true(period >= ts_placement_max_load(p));
    ts_meter b_m;
    ts_budget b = ended(&b_m);
    assert_int_equal(ts_fast_construct(p, order, cb, &b, mids, start, &period, &fits, &e),
                     TS_ENOANSWER);
    assert_non_null(strstr(e.msg, "time limit"));
    free(order);
    free(mids);
    free(start);
    ts_placement_free(p);
}

/* One micro-batch in flight, period the whole chain: the construction succeeds without a clock
 * and gives up (false) with one that has ended. */
static void test_repetend_construct_takes_the_deadline(void **state)
{
    (void)state;
    ts_placement *p = chain(2000, 4);
    int n = p->nblocks;
    int *order = malloc((size_t)n * sizeof *order), *mids = calloc((size_t)n, sizeof *mids);
    long *start = calloc((size_t)n, sizeof *start);
    assert_true(order && mids && start);
    assert_int_equal(ts_placement_chain_order(p, order), 0);
    long cb[TU_CAPS];
    assert_true(ts_repetend_construct(p, order, mids, n, tu_caps(cb, 4, 4000), NULL, start));
    for (int b = 0; b + 1 < n; b++) /* the chain in order, one step each */
        assert_true(start[b + 1] >= start[b] + 1);
    ts_meter b_m;
    ts_budget b = ended(&b_m);
    assert_false(ts_repetend_construct(p, order, mids, n, cb, &b, start));
    free(order);
    free(mids);
    free(start);
    ts_placement_free(p);
}

/* lazy with a limit far below what its candidates need: a valid schedule, marked as cut. */
static void test_lazy_answers_when_cut(void **state)
{
    (void)state;
    ts_placement *p = chain(2000, 4);
    ts_search_opts o = tu_opts(TS_METHOD_LAZY, true, 1000);
    o.time_limit = 0.05;
    ts_schedule *s = NULL;
    ts_search_stats st;
    ts_err e = {0};
    assert_int_equal(ts_search(p, &o, &s, &st, &e), TS_OK);
    assert_non_null(s);
    /* cut by its effort (the same on every machine) or, on a slow one, by the wall-clock cap */
    assert_true(st.timed_out || st.effort_out);
    assert_int_equal(tu_valid_range(s, 1, 1), 0);
    ts_schedule_free(s);
    ts_placement_free(p);
}

/* kshape at 48 devices, memory 50, with a 5 s limit: the completion's model (about 230,000 terms)
 * is over TS_IMODEL_MAX_TERMS_TIMED, so the greedy warm-up and cool-down stand and neither lazy nor
 * fast reaches its limit (Z3 taking that model in ran them past it, with a timed-out result). */
static void test_large_completion_skips_z3_under_a_limit(void **state)
{
    (void)state;
    ts_placement *p = NULL;
    ts_builtin_opts bo = {.ndevs = 48};
    ts_err e = {0};
    assert_int_equal(ts_builtin_make("kshape", &bo, &p, &e), TS_OK);
    ts_method methods[] = {TS_METHOD_LAZY, TS_METHOD_FAST};
    for (int i = 0; i < 2; i++) {
        ts_search_opts o = tu_opts(methods[i], true, 50);
        o.time_limit = 5;
        ts_schedule *s = NULL;
        ts_search_stats st;
        assert_int_equal(ts_search(p, &o, &s, &st, &e), TS_OK);
        assert_non_null(s);
        assert_false(st.timed_out);
        assert_int_equal(tu_valid_range(s, s->nmicros, s->nmicros + 2), 0);
        ts_schedule_free(s);
    }
    ts_placement_free(p);
}

/* vshape_v_zb at 16 devices, N 64, memory 36 (V-Half's): full's model would have 1.18M terms
 * and its greedy start does not fit memory. It used to build the model anyway (75 s and 7.6 GB,
 * whatever the time limit, with no answer at the end); now it refuses at once, saying why. */
static void test_full_refuses_a_model_too_large(void **state)
{
    (void)state;
    ts_placement *p = tu_builtin("vshape_v_zb", 16, false);
    ts_search_opts o = tu_opts(TS_METHOD_FULL, true, 36);
    o.time_limit = 10;
    o.micro_batches = 64;
    ts_schedule *s = NULL;
    ts_search_stats st;
    ts_err e = {0};
    assert_int_equal(ts_search(p, &o, &s, &st, &e), TS_ENOANSWER);
    assert_null(s);
    assert_non_null(strstr(e.msg, "too many for its model"));
    assert_false(st.timed_out);
    ts_placement_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fast_construct_takes_the_deadline),
        cmocka_unit_test(test_repetend_construct_takes_the_deadline),
        cmocka_unit_test(test_lazy_answers_when_cut),
        cmocka_unit_test(test_large_completion_skips_z3_under_a_limit),
        cmocka_unit_test(test_full_refuses_a_model_too_large),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
