/* The paper's simulator cases at 4 devices (k and memory of paper-cases.md): lazy reaches zero
 * bubbles within the memory limit and its schedule validates for every N from k to 128; fast
 * honours the memory where its construction overshoots it; infeasible memory is reported. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "solver_testutil.h"
#include "ts_bound.h"

typedef struct {
    const char *name;
    bool infer;
    int k;
    long memory; /* -1: none */
} paper_case;

static const paper_case cases[] = {
    {"vshape", false, 4, 4},  {"vshape", true, 4, -1}, {"xshape", false, 3, 4},
    {"xshape", true, 3, -1},  {"kshape", false, 3, 6}, {"kshape", true, 2, -1},
    {"mshape", false, 6, 6},  {"mshape", true, 4, -1}, {"nnshape", false, 6, 6},
    {"nnshape", true, 6, -1},
};

static void run_lazy(const paper_case *c)
{
    ts_placement *p = tu_builtin(c->name, 4, c->infer);
    assert_non_null(p);
    ts_search_opts o = tu_opts(TS_METHOD_LAZY, c->memory >= 0, c->memory);
    o.k = c->k;
    ts_schedule *s = NULL;
    ts_search_stats st;
    ts_err e = {0};
    int rc = ts_search(p, &o, &s, &st, &e);
    if (rc)
        fprintf(stderr, "%s: %s\n", c->name, e.msg);
    assert_int_equal(rc, TS_OK);
    assert_int_equal(st.k, c->k);
    assert_int_equal(st.bubbles, 0);
    assert_int_equal(st.period, ts_placement_max_load(p));
    assert_true(st.period_optimal);
    assert_true(s->has_repetend);
    assert_int_equal(s->nmicros, c->k);
    assert_int_equal(tu_valid_range(s, c->k, 128), 0);
    long peak[4];
    long mk = tu_makespan(s, 128, peak);
    assert_true(mk >= ts_lower_bound(p, 128));
    for (int d = 0; d < 4 && c->memory >= 0; d++)
        assert_true(peak[d] <= c->memory);
    printf("%-8s %-5s k=%d period=%ld makespan(128)=%ld LB=%ld %.3f s\n", c->name,
           c->infer ? "infer" : "train", st.k, st.period, mk, ts_lower_bound(p, 128), st.seconds);
    ts_schedule_free(s);
    ts_placement_free(p);
}

static void test_lazy_paper_cases(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_lazy(&cases[i]);
}

/* vshape train: 1F1B reaches LB = 4N + 12; the search must not report less, and reaches it. */
static void test_lazy_vshape_bound(void **state)
{
    (void)state;
    ts_placement *p = tu_builtin("vshape", 4, false);
    assert_non_null(p);
    assert_int_equal(ts_lower_bound(p, 128), 4 * 128 + 12);
    ts_search_opts o;
    ts_search_opts_init(&o);
    o.has_memory = true;
    o.memory = 4;
    ts_schedule *s = NULL;
    ts_search_stats st;
    ts_err e = {0};
    assert_int_equal(ts_search(p, &o, &s, &st, &e), TS_OK);
    assert_int_equal(st.bubbles, 0);
    for (int n = st.k; n <= 64; n += 7)
        assert_true(tu_makespan(s, n, NULL) >= 4 * n + 12);
    ts_schedule_free(s);
    ts_placement_free(p);
}

static void test_fast_repairs_memory(void **state)
{
    (void)state;
    const char *names[] = {"vshape", "xshape"};
    for (int i = 0; i < 2; i++) {
        ts_placement *p = tu_builtin(names[i], 4, false);
        assert_non_null(p);
        ts_search_opts o = tu_opts(TS_METHOD_FAST, true, 4);
        ts_schedule *s = NULL;
        ts_search_stats st;
        ts_err e = {0};
        int rc = ts_search(p, &o, &s, &st, &e);
        if (rc)
            fprintf(stderr, "%s: %s\n", names[i], e.msg);
        assert_int_equal(rc, TS_OK);
        assert_true(s->has_memory);
        assert_int_equal(tu_valid_range(s, st.k, 40), 0);
        ts_schedule_free(s);
        ts_placement_free(p);
    }
}

static void test_fast_paper_cases_valid(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const paper_case *c = &cases[i];
        ts_placement *p = tu_builtin(c->name, 4, c->infer);
        assert_non_null(p);
        ts_search_opts o = tu_opts(TS_METHOD_FAST, c->memory >= 0, c->memory);
        ts_schedule *s = NULL;
        ts_search_stats st;
        ts_err e = {0};
        int rc = ts_search(p, &o, &s, &st, &e);
        if (rc)
            fprintf(stderr, "%s: %s\n", c->name, e.msg);
        assert_int_equal(rc, TS_OK);
        assert_int_equal(tu_valid_range(s, st.k, 32), 0);
        ts_schedule_free(s);
        ts_placement_free(p);
    }
}

static void test_infeasible_memory(void **state)
{
    (void)state;
    ts_placement *p = tu_builtin("vshape", 4, false);
    assert_non_null(p);
    for (int m = 0; m < 3; m++) {
        ts_search_opts o;
        ts_search_opts_init(&o);
        o.method = m;
        o.micro_batches = 4;
        o.has_memory = true;
        o.memory = 0; /* every forward block needs 1 */
        ts_schedule *s = NULL;
        ts_search_stats st;
        ts_err e = {0};
        assert_int_equal(ts_search(p, &o, &s, &st, &e), TS_ENOANSWER);
        assert_null(s);
        assert_true(strlen(e.msg) > 0);
        if (m == TS_METHOD_LAZY)
            assert_int_equal(st.min_memory, 1);
    }
    /* k fixed beyond what memory allows: no repetend */
    ts_search_opts o;
    ts_search_opts_init(&o);
    o.has_memory = true;
    o.memory = 2;
    o.k = 4;
    ts_schedule *s = NULL;
    ts_search_stats st;
    ts_err e = {0};
    assert_int_equal(ts_search(p, &o, &s, &st, &e), TS_ENOANSWER);
    /* k larger than the chain: no candidate */
    ts_placement *q = tu_builtin("mshape", 4, true);
    o.has_memory = false;
    o.k = 6;
    ts_err_clear(&e);
    assert_int_equal(ts_search(q, &o, &s, &st, &e), TS_ENOANSWER);
    assert_non_null(strstr(e.msg, "no candidate"));
    ts_placement_free(q);
    ts_placement_free(p);
}

/* A time limit far too short: the best schedule so far (or one micro-batch at a time), valid,
 * marked as cut and not optimal. */
static void test_time_limit(void **state)
{
    (void)state;
    ts_placement *p = tu_builtin("nnshape", 4, false);
    assert_non_null(p);
    for (int m = 0; m < 3; m++) {
        ts_search_opts o = tu_opts(m, true, 6);
        o.micro_batches = 12;
        o.time_limit = 0.02;
        ts_schedule *s = NULL;
        ts_search_stats st;
        ts_err e = {0};
        int rc = ts_search(p, &o, &s, &st, &e);
        if (rc)
            fprintf(stderr, "method %d: %s\n", m, e.msg);
        assert_int_equal(rc, TS_OK);
        assert_int_equal(tu_valid_range(s, s->nmicros, s->nmicros + 4), 0);
        /* cut by the effort 0.02 s sets (the same everywhere) or by the wall-clock cap */
        bool cut = st.timed_out || st.effort_out;
        if (cut)
            assert_true(!st.period_optimal || st.bubbles == 0);
        if (m == TS_METHOD_LAZY)
            assert_true(cut);
        ts_schedule_free(s);
    }
    ts_placement_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lazy_paper_cases),    cmocka_unit_test(test_lazy_vshape_bound),
        cmocka_unit_test(test_fast_repairs_memory), cmocka_unit_test(test_fast_paper_cases_valid),
        cmocka_unit_test(test_infeasible_memory),   cmocka_unit_test(test_time_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
