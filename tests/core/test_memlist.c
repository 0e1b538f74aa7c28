/* The memory-aware list schedule (construct/memlist.c): every schedule it returns passes the core's
 * validator within the capacities it was given; on zero-bubble pipelines it is never longer than
 * the ZB-H1 baseline at that baseline's own peak memory; on a tensor-parallel pipeline whose
 * capacity admits three micro-batches it keeps to them; it refuses sharded placements and a
 * capacity no forward pass fits, with a message; and it gives the same schedule twice. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "core_testutil.h"
#include "ts_baseline.h"
#include "ts_bound.h"
#include "ts_memlist.h"

static void assert_valid(const ts_schedule *s)
{
    ts_err e = {0};
    ts_validate_opts vo = {0};
    if (ts_schedule_validate(s, &vo, &e))
        fail_msg("invalid: %s", e.msg);
}

static long makespan(const ts_schedule *s)
{
    long mk = 0;
    for (int i = 0; i < s->nentries; i++) {
        long end = s->entries[i].step + s->placement->blocks[s->entries[i].block].span;
        if (end > mk)
            mk = end;
    }
    return mk;
}

/* A pipeline of S stages, stage s on devices 2s and 2s+1 (tensor parallel): F, B and W each on
 * both, F allocating 2, B and W freeing 1 each; the later half of the stages twice as long. */
static ts_placement *tp_pipeline(int S)
{
    ts_placement *p = ts_placement_new("tp_zb", 2 * S);
    int f[16], b[16];
    for (int s = 0; s < S; s++) {
        int devs[2] = {2 * s, 2 * s + 1}, span = s < S / 2 ? 1 : 2;
        char id[16];
        snprintf(id, sizeof id, "F%d", s);
        f[s] = ts_placement_add_block(p, id, TS_KIND_FORWARD, span, 2, 2, devs);
        snprintf(id, sizeof id, "B%d", s);
        b[s] = ts_placement_add_block(p, id, TS_KIND_BACKWARD, span, -1, 2, devs);
        snprintf(id, sizeof id, "W%d", s);
        int w = ts_placement_add_block(p, id, TS_KIND_BACKWARD, span, -1, 2, devs);
        assert_true(ts_placement_add_edge(p, b[s], w, 0, 0) >= 0);
        if (s > 0)
            assert_true(ts_placement_add_edge(p, f[s - 1], f[s], 0, 0) >= 0);
    }
    assert_true(ts_placement_add_edge(p, f[S - 1], b[S - 1], 0, 0) >= 0);
    for (int s = S - 1; s > 0; s--)
        assert_true(ts_placement_add_edge(p, b[s], b[s - 1], 0, 0) >= 0);
    return p;
}

static long peak_on(const ts_schedule *s, int d)
{
    ts_metrics m;
    assert_int_equal(ts_schedule_metrics(s, &m), 0);
    long v = m.peak[d];
    ts_metrics_free(&m);
    return v;
}

static void test_zb_at_zbh1_memory(void **state)
{
    (void)state;
    for (int D = 2; D <= 8; D *= 2)
        for (int n = D; n <= 4 * D; n += D) {
            ts_placement *p = tu_builtin("vshape_zb", D, false);
            ts_schedule *zb = NULL, *s = NULL;
            ts_err e = {0};
            assert_int_equal(ts_baseline_make("zb-h1", p, n, &zb, &e), TS_OK);
            long cap[TU_CAPS];
            for (int d = 0; d < D; d++)
                cap[d] = peak_on(zb, d);
            assert_int_equal(ts_memlist_schedule(p, n, cap, &s, &e), TS_OK);
            assert_valid(s);
            assert_true(makespan(s) >= ts_bound_value(p, n, cap));
            if (makespan(s) > makespan(zb))
                fail_msg("D %d N %d: memlist %ld, zb-h1 %ld", D, n, makespan(s), makespan(zb));
            ts_schedule_free(zb);
            ts_schedule_free(s);
            ts_placement_free(p);
        }
}

static void test_tensor_parallel_capacity(void **state)
{
    (void)state;
    ts_placement *p = tp_pipeline(6);
    long cap[TU_CAPS];
    tu_caps(cap, p->ndevs, 6);
    ts_schedule *s = NULL, *again = NULL;
    ts_err e = {0};
    assert_int_equal(ts_memlist_schedule(p, 24, cap, &s, &e), TS_OK);
    assert_valid(s);
    for (int d = 0; d < p->ndevs; d++)
        assert_true(peak_on(s, d) <= 6);
    /* both devices of a stage run its blocks at the same steps: one entry per instance */
    assert_int_equal(s->nentries, 24 * p->nblocks);
    assert_true(makespan(s) >= ts_bound_value(p, 24, cap));
    assert_int_equal(ts_memlist_schedule(p, 24, cap, &again, &e), TS_OK);
    assert_int_equal(again->nentries, s->nentries);
    for (int i = 0; i < s->nentries; i++) {
        assert_int_equal(again->entries[i].block, s->entries[i].block);
        assert_int_equal(again->entries[i].micro, s->entries[i].micro);
        assert_int_equal(again->entries[i].step, s->entries[i].step);
    }
    ts_schedule_free(s);
    ts_schedule_free(again);
    ts_placement_free(p);
}

static void test_refusals(void **state)
{
    (void)state;
    ts_schedule *s = NULL;
    ts_err e = {0};
    ts_placement *nn = tu_builtin("nnshape", 4, false);
    assert_int_equal(ts_memlist_schedule(nn, 8, NULL, &s, &e), TS_EINPUT);
    assert_non_null(strstr(e.msg, "different device sets"));
    assert_null(s);
    ts_placement_free(nn);
    /* a forward pass allocates 2 where the capacity is 1: nothing can start */
    ts_placement *p = tp_pipeline(2);
    long cap[TU_CAPS];
    tu_caps(cap, p->ndevs, 1);
    e = (ts_err){0};
    assert_int_equal(ts_memlist_schedule(p, 4, cap, &s, &e), TS_ENOANSWER);
    assert_non_null(strstr(e.msg, "stalled"));
    assert_null(s);
    ts_placement_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zb_at_zbh1_memory),
        cmocka_unit_test(test_tensor_parallel_capacity),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
