/* Unit tests of the iteration report: timings that follow the simulator exactly give efficiency 1,
 * a late rank lowers it, a multi-device block is measured by its shortest member, and the trace
 * holds one slice per instance and device and one flow per message. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt_plan.h"
#include "rt_report.h"

/* seconds per time unit */
#define UNIT 0.002

typedef struct {
    ts_schedule *s;
    ts_rt_plan *p;
    double **ready, **start, **end;
    double *finish, *base;
    ts_rt_timings t;
} fixture;

/* Timings of a perfect replay: every instance exactly where the simulator puts it. */
static void make(fixture *f, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/fixtures/%s", TS_TEST_DATA, name);
    ts_err e = {0};
    assert_int_equal(ts_schedule_load(path, &f->s, &e), TS_OK);
    assert_int_equal(ts_rt_plan_build(f->s, &f->p, &e), TS_OK);
    ts_sim_result r;
    assert_int_equal(ts_simulate(f->s, NULL, &r, &e), TS_OK);
    int R = f->p->ndevs;
    f->ready = calloc((size_t)R, sizeof(double *));
    f->start = calloc((size_t)R, sizeof(double *));
    f->end = calloc((size_t)R, sizeof(double *));
    f->finish = calloc((size_t)R, sizeof(double));
    f->base = calloc((size_t)R, sizeof(double));
    for (int d = 0; d < R; d++) {
        const ts_rt_stream *st = &f->p->streams[d];
        f->ready[d] = calloc((size_t)st->nops + 1, sizeof(double));
        f->start[d] = calloc((size_t)st->nops + 1, sizeof(double));
        f->end[d] = calloc((size_t)st->nops + 1, sizeof(double));
        for (int i = 0; i < st->nops; i++) {
            int en = st->ops[i].entry;
            f->ready[d][i] = f->start[d][i] = r.start[en] * UNIT;
            f->end[d][i] = r.finish[en] * UNIT;
            if (f->end[d][i] > f->finish[d])
                f->finish[d] = f->end[d][i];
        }
    }
    ts_sim_result_free(&r);
    f->t = (ts_rt_timings){R,
                           (const double *const *)f->ready,
                           (const double *const *)f->start,
                           (const double *const *)f->end,
                           f->finish,
                           f->base};
}

static void drop(fixture *f)
{
    for (int d = 0; d < f->p->ndevs; d++) {
        free(f->ready[d]);
        free(f->start[d]);
        free(f->end[d]);
    }
    free(f->ready);
    free(f->start);
    free(f->end);
    free(f->finish);
    free(f->base);
    ts_rt_plan_free(f->p);
    ts_schedule_free(f->s);
}

static void test_perfect_replay(void **state)
{
    (void)state;
    const char *names[] = {"runtime_vshape_1f1b.json", "runtime_kshape.json",
                           "runtime_nnshape.json"};
    for (int k = 0; k < 3; k++) {
        fixture f;
        make(&f, names[k]);
        double *sec = calloc((size_t)f.p->nblocks, sizeof(double));
        ts_rt_iter_stats st;
        ts_err e = {0};
        assert_int_equal(ts_rt_report_iteration(f.p, &f.t, UNIT, sec, &st, &e), TS_OK);
        assert_true(fabs(st.efficiency - 1.0) < 1e-9);
        assert_true(fabs(st.predicted - st.planned) < 1e-9);
        assert_true(fabs(st.throughput - f.p->nmicros / st.wall) < 1e-6);
        for (int b = 0; b < f.p->nblocks; b++)
            assert_true(fabs(sec[b] - f.s->placement->blocks[b].span * UNIT) < 1e-12);
        free(sec);
        drop(&f);
    }
}

/* A late last rank: the measured makespan grows, the prediction does not. */
static void test_late_rank(void **state)
{
    (void)state;
    fixture f;
    make(&f, "runtime_vshape_1f1b.json");
    double *sec = calloc((size_t)f.p->nblocks, sizeof(double));
    ts_rt_iter_stats st;
    ts_err e = {0};
    /* its last send completed 10% after the planned end */
    f.finish[3] = f.finish[0] * 1.1;
    assert_int_equal(ts_rt_report_iteration(f.p, &f.t, UNIT, sec, &st, &e), TS_OK);
    assert_true(st.efficiency < 0.95);
    assert_true(fabs(st.efficiency * st.wall - st.predicted) < 1e-12);
    free(sec);
    drop(&f);
}

/* On kshape, members that reach M early wait inside the collective: the block's time is taken
 * from the member that arrived last (the shortest), so the prediction is unchanged. */
static void test_collective_uses_shortest_member(void **state)
{
    (void)state;
    fixture f;
    make(&f, "runtime_kshape.json");
    int M = ts_placement_find(f.s->placement, "M");
    assert_true(M >= 0);
    for (int i = 0; i < f.p->streams[0].nops; i++)
        if (f.p->streams[0].ops[i].block == M)
            /* rank 0 came early */
            f.start[0][i] -= 5 * UNIT;
    double *sec = calloc((size_t)f.p->nblocks, sizeof(double));
    ts_rt_iter_stats st;
    ts_err e = {0};
    assert_int_equal(ts_rt_report_iteration(f.p, &f.t, UNIT, sec, &st, &e), TS_OK);
    assert_true(fabs(sec[M] - UNIT) < 1e-12);
    assert_true(fabs(st.efficiency - 1.0) < 1e-9);
    free(sec);
    drop(&f);
}

static int count(const char *text, const char *needle)
{
    int n = 0;
    for (const char *q = strstr(text, needle); q; q = strstr(q + 1, needle))
        n++;
    return n;
}

static void test_trace(void **state)
{
    (void)state;
    fixture f;
    make(&f, "runtime_kshape.json");
    char path[] = "/tmp/rt_trace_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    ts_err e = {0};
    assert_int_equal(ts_rt_report_trace(f.p, &f.t, path, &e), TS_OK);
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    assert_non_null(j);
    char *text = json_dumps(j, JSON_COMPACT);
    int slices = 0, flows = 0;
    for (int d = 0; d < f.p->ndevs; d++) {
        slices += f.p->streams[d].nops;
        for (int i = 0; i < f.p->streams[d].nops; i++)
            for (int k = 0; k < f.p->streams[d].ops[i].ninputs; k++)
                flows += !f.p->streams[d].ops[i].inputs[k].local;
    }
    assert_true(flows > 0);
    assert_int_equal(count(text, "\"ph\":\"X\""), slices);
    assert_int_equal(count(text, "\"ph\":\"s\""), flows);
    assert_int_equal(count(text, "\"ph\":\"f\""), flows);
    assert_non_null(strstr(text, "\"rank 3\""));
    free(text);
    json_decref(j);
    unlink(path);
    drop(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_perfect_replay),
        cmocka_unit_test(test_late_rank),
        cmocka_unit_test(test_collective_uses_shortest_member),
        cmocka_unit_test(test_trace),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
