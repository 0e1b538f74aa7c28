/* Core behaviour: built-ins, bounds, the 1F1B fixture, unrolling, validation, simulation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ts_bound.h"
#include "ts_json.h"
#include "ts_schedule.h"

static ts_placement *mk(const char *name, int D, bool infer)
{
    ts_builtin_opts o = {D, infer, 0};
    ts_placement *p = NULL;
    ts_err e = {0};
    assert_int_equal(ts_builtin_make(name, &o, &p, &e), TS_OK);
    assert_int_equal(ts_placement_check(p, name, &e), TS_OK);
    return p;
}

static ts_schedule *load_fixture(const char *name)
{
    char path[1024];
    ts_schedule *s = NULL;
    ts_err e = {0};
    snprintf(path, sizeof path, "%s/fixtures/%s", TS_TEST_DATA, name);
    if (ts_schedule_load(path, &s, &e))
        fail_msg("%s", e.msg);
    return s;
}

static void test_lower_bound_vshape(void **state)
{
    (void)state;
    ts_placement *p = mk("vshape", 4, false);
    for (int n = 1; n <= 256; n++)
        assert_int_equal(ts_lower_bound(p, n), 4L * n + 12);
    ts_placement_free(p);
    p = mk("vshape", 4, true);
    assert_int_equal(ts_lower_bound(p, 128), 131);
    ts_placement_free(p);
}

static void test_paper_loads(void **state)
{
    (void)state;
    /* Loads per device on 4 devices from paper-cases.md: training and inference. */
    const char *names[] = {"vshape", "xshape", "kshape", "mshape", "nnshape"};
    const long train[] = {4, 8, 6, 6, 8}, infer[] = {1, 2, 2, 2, 3};
    for (int i = 0; i < 5; i++) {
        for (int inf = 0; inf < 2; inf++) {
            ts_placement *p = mk(names[i], 4, inf);
            long load[4];
            ts_placement_device_load(p, load);
            for (int d = 0; d < 4; d++)
                assert_int_equal(load[d], inf ? infer[i] : train[i]);
            ts_placement_free(p);
        }
    }
}

/* A name not in the registry is refused, naming it and where to look; every row has a builder. */
static void test_builtin_unknown_refused(void **state)
{
    (void)state;
    ts_builtin_opts o = {.ndevs = 4};
    ts_placement *before = ts_placement_new("before", 1), *p = before;
    ts_err e = {0};
    assert_int_equal(ts_builtin_make("vshape_q", &o, &p, &e), TS_EINPUT);
    assert_null(p);
    ts_placement_free(before);
    assert_string_equal(e.msg, "unknown built-in placement 'vshape_q' (see `tessel placements`)");
    assert_null(ts_builtin_find("vshape_q"));
    for (int i = 0; i < ts_builtin_count(); i++)
        assert_non_null(ts_builtin_at(i)->build);
}

static void test_builtins_roundtrip(void **state)
{
    (void)state;
    for (int i = 0; i < ts_builtin_count(); i++) {
        const ts_builtin_info *info = ts_builtin_at(i);
        for (int D = info->min_devs; D <= info->max_devs && D <= 32; D += info->step_devs) {
            for (int inf = 0; inf < 2; inf++) {
                ts_placement *p = mk(info->name, D, inf);
                json_t *a = ts_placement_to_json(p);
                char *text = json_dumps(a, JSON_PRESERVE_ORDER);
                ts_placement *q = NULL;
                ts_err e = {0};
                assert_int_equal(ts_placement_from_json(a, "roundtrip", &q, &e), TS_OK);
                json_t *b = ts_placement_to_json(q);
                char *text2 = json_dumps(b, JSON_PRESERVE_ORDER);
                assert_string_equal(text, text2);
                free(text);
                free(text2);
                json_decref(a);
                json_decref(b);
                ts_placement_free(p);
                ts_placement_free(q);
            }
        }
    }
}

static void test_chain_order(void **state)
{
    (void)state;
    ts_placement *p = mk("nnshape", 4, false);
    int order[12];
    assert_int_equal(ts_placement_chain_order(p, order), 0);
    const char *want[] = {"S1", "F0", "F1", "S2", "F2", "F3", "B3", "B2", "S2'", "B1", "B0", "S1'"};
    for (int i = 0; i < 12; i++)
        assert_string_equal(p->blocks[order[i]].id, want[i]);
    ts_placement_free(p);
    /* kshape: both branches start at 0; ties broken by the lowest device. */
    p = mk("kshape", 4, false);
    assert_int_equal(ts_placement_chain_order(p, order), 0);
    const char *kwant[] = {"F0", "F2", "F1", "F3", "M", "M'", "B1", "B3", "B0", "B2"};
    for (int i = 0; i < 10; i++)
        assert_string_equal(p->blocks[order[i]].id, kwant[i]);
    ts_placement_free(p);
}

static void test_1f1b_fixture(void **state)
{
    (void)state;
    ts_schedule *s4 = load_fixture("vshape4_1f1b_n4.json");
    ts_schedule *s = load_fixture("vshape4_1f1b.json");
    int ns[] = {4, 8, 128};
    for (int i = 0; i < 3; i++) {
        ts_schedule *u = NULL;
        ts_err e = {0};
        if (ns[i] == 4)
            u = ts_schedule_clone(s4);
        else
            assert_int_equal(ts_schedule_unroll(s, ns[i], &u, &e), TS_OK);
        ts_validate_opts vo = {true, false};
        if (ts_schedule_validate(u, &vo, &e))
            fail_msg("N=%d: %s", ns[i], e.msg);
        ts_sim_result r;
        assert_int_equal(ts_simulate(u, NULL, &r, &e), TS_OK);
        assert_true(r.makespan == 4.0 * ns[i] + 12);
        ts_metrics m;
        assert_int_equal(ts_schedule_metrics(u, &m), 0);
        assert_int_equal(m.makespan, 4L * ns[i] + 12);
        assert_int_equal(m.lower_bound, 4L * ns[i] + 12);
        for (int d = 0; d < 4; d++)
            assert_int_equal(m.peak[d], 4 - d);
        ts_metrics_free(&m);
        ts_sim_result_free(&r);
        ts_schedule_free(u);
    }
    /* Fewer micro-batches than the file holds: its first N, still a valid 1F1B run. */
    for (int n = 1; n < 5; n++) {
        ts_schedule *t = NULL;
        ts_err e = {0};
        assert_int_equal(ts_schedule_unroll(s, n, &t, &e), TS_OK);
        assert_int_equal(t->nmicros, n);
        assert_int_equal(t->nentries, 8 * n);
        assert_false(t->has_repetend);
        assert_int_equal(ts_schedule_validate(t, NULL, &e), TS_OK);
        ts_schedule_free(t);
    }
    ts_schedule_free(s);
    ts_schedule_free(s4);
}

static void test_validator_catches(void **state)
{
    (void)state;
    ts_schedule *s = load_fixture("vshape4_1f1b_n4.json");
    ts_err e = {0};
    int f0 = ts_placement_find(s->placement, "F0"), f1 = ts_placement_find(s->placement, "F1");
    ts_entry *f0m1 = NULL, *f1m0 = NULL;
    for (int i = 0; i < s->nentries; i++) {
        if (s->entries[i].block == f0 && s->entries[i].micro == 1)
            f0m1 = &s->entries[i];
        if (s->entries[i].block == f1 && s->entries[i].micro == 0)
            f1m0 = &s->entries[i];
    }
    long keep = f0m1->step;
    f0m1->step = 0; /* overlaps F0/0 */
    assert_int_equal(ts_schedule_validate(s, NULL, &e), TS_ENOANSWER);
    assert_non_null(strstr(e.msg, "exclusivity: device 0, step 0"));
    f0m1->step = keep;
    ts_err_clear(&e);
    keep = f1m0->step;
    f1m0->step = 0; /* before F0/0 ends */
    assert_int_equal(ts_schedule_validate(s, NULL, &e), TS_ENOANSWER);
    assert_non_null(strstr(e.msg, "dependency"));
    assert_non_null(strstr(e.msg, "F1/0"));
    f1m0->step = keep;
    ts_err_clear(&e);
    s->memory[2] = 1;
    assert_int_equal(ts_schedule_validate(s, NULL, &e), TS_ENOANSWER);
    assert_non_null(strstr(e.msg, "memory: device 2"));
    ts_validate_opts vo = {false, true};
    ts_err_clear(&e);
    assert_int_equal(ts_schedule_validate(s, &vo, &e), TS_OK);
    s->memory[2] = 2;
    s->nentries--; /* drop the last instance */
    ts_err_clear(&e);
    assert_int_equal(ts_schedule_validate(s, NULL, &e), TS_ENOANSWER);
    assert_non_null(strstr(e.msg, "missing"));
    ts_schedule_free(s);
}

/* A schedule packed badly (every instance spread out) tightens back to 1F1B's makespan. */
static void test_tighten_and_simulate(void **state)
{
    (void)state;
    ts_schedule *s = load_fixture("vshape4_1f1b_n4.json");
    for (int i = 0; i < s->nentries; i++)
        s->entries[i].step *= 3;
    ts_err e = {0};
    assert_int_equal(ts_schedule_validate(s, NULL, &e), TS_OK);
    assert_int_equal(ts_schedule_tighten(s, &e), TS_OK);
    ts_metrics m;
    assert_int_equal(ts_schedule_metrics(s, &m), 0);
    assert_int_equal(m.makespan, 28);
    ts_metrics_free(&m);
    /* Scaling every backward block by 2 lengthens the critical path of 1F1B accordingly. */
    double scale[8];
    for (int b = 0; b < 8; b++)
        scale[b] = s->placement->blocks[b].kind == TS_KIND_BACKWARD ? 2.0 : 1.0;
    ts_sim_opts so = {0};
    so.scale = scale;
    ts_sim_result r;
    assert_int_equal(ts_simulate(s, &so, &r, &e), TS_OK);
    assert_true(r.makespan == 7.0 * 4 + 3 + 3 * 6); /* (N+D-1)(tf+tb) with tf=1, tb=6 */
    ts_sim_result_free(&r);
    /* Seeded noise is reproducible and moves the makespan. */
    so.scale = NULL;
    so.noise = 0.2;
    so.seed = 7;
    ts_sim_result r1, r2;
    assert_int_equal(ts_simulate(s, &so, &r1, &e), TS_OK);
    assert_int_equal(ts_simulate(s, &so, &r2, &e), TS_OK);
    assert_true(r1.makespan == r2.makespan);
    assert_true(r1.makespan != 28.0);
    ts_sim_result_free(&r1);
    ts_sim_result_free(&r2);
    ts_schedule_free(s);
}

/* Edges with delay and distance: the validator and the simulator both honour them. */
static void test_delay_distance(void **state)
{
    (void)state;
    ts_placement *p = ts_placement_new("tok", 2);
    int d0 = 0, d1 = 1;
    int a = ts_placement_add_block(p, "A", TS_KIND_FORWARD, 2, 0, 1, &d0);
    int b = ts_placement_add_block(p, "B", TS_KIND_FORWARD, 1, 0, 1, &d1);
    ts_placement_add_edge(p, a, b, 1, 0); /* B waits A plus 1 */
    ts_placement_add_edge(p, b, a, 0, 1); /* A of m waits B of m-1 */
    ts_err e = {0};
    assert_int_equal(ts_placement_check(p, "tok", &e), TS_OK);
    assert_int_equal(ts_lower_bound_load(p, 3), 6 + 1 + 1);
    /* the distance edge chains the micro-batches: A B A B A B, each with its delay */
    assert_int_equal(ts_lower_bound(p, 3), 3 * (2 + 1 + 1));
    ts_schedule *s = ts_schedule_new(p, 3);
    /* A0 [0,2) B0 [3,4) A1 [4,6) B1 [7,8) A2 [8,10) B2 [11,12) */
    for (int m = 0; m < 3; m++) {
        ts_schedule_add(s, a, m, 4L * m);
        ts_schedule_add(s, b, m, 4L * m + 3);
    }
    assert_int_equal(ts_schedule_validate(s, NULL, &e), TS_OK);
    ts_sim_result r;
    assert_int_equal(ts_simulate(s, NULL, &r, &e), TS_OK);
    assert_true(r.makespan == 12.0);
    ts_sim_result_free(&r);
    s->entries[2].step = 3; /* A1 before B0 is done */
    assert_int_equal(ts_schedule_validate(s, NULL, &e), TS_ENOANSWER);
    assert_non_null(strstr(e.msg, "distance 1"));
    ts_schedule_free(s);
    ts_placement_free(p);
}

static void test_pyimport(void **state)
{
    (void)state;
    char path[1024];
    snprintf(path, sizeof path, "%s/fixtures/pytessel_vshape4.json", TS_TEST_DATA);
    ts_placement *p = mk("vshape", 4, false);
    ts_schedule *s = NULL, *u = NULL;
    ts_err e = {0};
    if (ts_pyimport_load(path, p, &s, &e))
        fail_msg("%s", e.msg);
    assert_true(s->has_repetend);
    assert_int_equal(s->rep.period, 4);
    assert_int_equal(ts_schedule_validate(s, NULL, &e), TS_OK);
    assert_int_equal(ts_schedule_unroll(s, 128, &u, &e), TS_OK);
    assert_int_equal(ts_schedule_validate(u, NULL, &e), TS_OK);
    ts_metrics m;
    assert_int_equal(ts_schedule_metrics(u, &m), 0);
    assert_int_equal(m.makespan, 524);
    ts_metrics_free(&m);
    ts_schedule_free(u);
    ts_schedule_free(s);
    ts_placement_free(p);
}

static void test_schedule_roundtrip(void **state)
{
    (void)state;
    ts_schedule *s = load_fixture("vshape4_1f1b.json");
    json_t *a = ts_schedule_to_json(s);
    ts_schedule *t = NULL;
    ts_err e = {0};
    assert_int_equal(ts_schedule_from_json(a, "rt", &t, &e), TS_OK);
    json_t *b = ts_schedule_to_json(t);
    assert_true(json_equal(a, b));
    json_decref(a);
    json_decref(b);
    ts_schedule_free(t);
    ts_schedule_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lower_bound_vshape), cmocka_unit_test(test_paper_loads),
        cmocka_unit_test(test_builtins_roundtrip), cmocka_unit_test(test_builtin_unknown_refused),
        cmocka_unit_test(test_chain_order),        cmocka_unit_test(test_1f1b_fixture),
        cmocka_unit_test(test_validator_catches),  cmocka_unit_test(test_tighten_and_simulate),
        cmocka_unit_test(test_delay_distance),     cmocka_unit_test(test_pyimport),
        cmocka_unit_test(test_schedule_roundtrip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
