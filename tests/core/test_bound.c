/* The lower bound (ts_bound.h) and the improvement phase (ts_improve.h).
 *
 * Soundness is a property: on random placements (branches, joins, blocks on several devices,
 * delays, distance edges, signed memory) and on the built-ins, every valid schedule we can make
 * -- every fitting baseline, a sequential schedule, and the many schedules the local search
 * walks through -- is at least as long as the bound taken under that schedule's own peak memory
 * (a schedule fits the capacity equal to its peak, so the memory term must hold for it too). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ts_baseline.h"
#include "ts_bound.h"
#include "ts_improve.h"
#include "ts_placement_json.h"
#include "ts_schedule.h"

#include "random_placement.h"

/* The property for one schedule; returns its makespan. */
static long check_sound(const ts_schedule *s, const char *what)
{
    ts_err e = {0};
    ts_validate_opts vo = {0};
    vo.ignore_memory = true;
    if (ts_schedule_validate(s, &vo, &e))
        fail_msg("%s: not valid: %s", what, e.msg);
    ts_metrics m;
    assert_int_equal(ts_schedule_metrics(s, &m), 0);
    ts_bound b;
    assert_int_equal(ts_bound_compute(s->placement, s->nmicros, m.peak, &b), 0);
    if (m.makespan < b.value)
        fail_msg("%s: %s N=%d makespan %ld below the bound %ld (term %s)", what, s->placement->name,
                 s->nmicros, m.makespan, b.value, ts_bound_term_name(b.binding));
    long mk = m.makespan;
    ts_metrics_free(&m);
    return mk;
}

/* Checks s, then walks the local search from it in short legs, checking every stop. */
static void check_walk(ts_schedule *s, const char *what, uint64_t seed)
{
    long mk = check_sound(s, what);
    ts_metrics m;
    assert_int_equal(ts_schedule_metrics(s, &m), 0);
    ts_schedule_set_memory(s, m.peak); /* the walk must stay within the start's peak */
    ts_metrics_free(&m);
    ts_schedule *cur = ts_schedule_clone(s);
    for (int leg = 0; leg < 6; leg++) {
        ts_improve_opts io = {.max_moves = 40, .seed = seed + (uint64_t)leg};
        ts_improve_stats st;
        ts_schedule *r = NULL;
        ts_err e = {0};
        assert_int_equal(ts_improve(cur, &io, &r, &st, &e), TS_OK);
        ts_validate_opts vo = {0};
        if (ts_schedule_validate(r, &vo, &e)) /* memory included: within the start's peak */
            fail_msg("%s: improved schedule not valid: %s", what, e.msg);
        long now = check_sound(r, what);
        assert_true(now <= mk);
        assert_int_equal(now, st.after);
        mk = now;
        ts_schedule_free(cur);
        cur = r;
    }
    ts_schedule_free(cur);
}

static void test_bound_random(void **state)
{
    (void)state;
    uint64_t seed = 12345;
    const int ns[] = {1, 2, 5, 9};
    for (int it = 0; it < 150; it++) {
        ts_placement *p = random_placement(&seed);
        int n = ns[it % 4];
        ts_schedule *s = sequential(p, n);
        check_walk(s, "sequential", seed);
        ts_schedule_free(s);
        ts_placement_free(p);
    }
}

static void test_bound_builtins(void **state)
{
    (void)state;
    const char *shapes[] = {"vshape", "xshape", "mshape", "nnshape", "kshape"};
    const int ns[] = {1, 3, 8, 17};
    for (int i = 0; i < 5; i++)
        for (int D = 2; D <= 8; D += 2)
            for (int k = 0; k < 4; k++) {
                ts_builtin_opts o = {D, k == 3, 0};
                ts_placement *p = NULL;
                ts_err e = {0};
                assert_int_equal(ts_builtin_make(shapes[i], &o, &p, &e), TS_OK);
                for (int b = 0; b < ts_baseline_count(); b++) {
                    ts_schedule *s = NULL;
                    ts_err_clear(&e);
                    if (ts_baseline_make(ts_baseline_at(b)->name, p, ns[k], &s, &e) != TS_OK)
                        continue;
                    check_walk(s, ts_baseline_at(b)->name, 7);
                    ts_schedule_free(s);
                }
                ts_placement_free(p);
            }
}

static void test_bound_terms(void **state)
{
    (void)state;
    ts_builtin_opts o = {32, false, 0};
    ts_placement *p = NULL;
    ts_err e = {0};
    assert_int_equal(ts_builtin_make("mshape", &o, &p, &e), TS_OK);
    ts_bound b;
    assert_int_equal(ts_bound_compute(p, 8, NULL, &b), 0);
    /* one micro-batch crosses 32 devices forwards and backwards: far above N * load */
    assert_true(b.term[TS_BOUND_CRITICAL_PATH] > b.term[TS_BOUND_LOAD]);
    assert_true(b.value >= b.term[TS_BOUND_CRITICAL_PATH]);
    assert_int_equal(b.value, b.term[b.binding]);
    assert_int_equal(b.term[TS_BOUND_MEMORY], -1); /* no capacity, no memory term */
    assert_int_equal(b.term[TS_BOUND_LOAD], ts_lower_bound_load(p, 8));
    ts_placement_free(p);
    /* a tight capacity binds: two devices, F +1 then B -1, one micro-batch in flight */
    o.ndevs = 4;
    assert_int_equal(ts_builtin_make("vshape", &o, &p, &e), TS_OK);
    long cap[4] = {1, 1, 1, 1};
    assert_int_equal(ts_bound_compute(p, 16, cap, &b), 0);
    assert_int_equal(b.binding, TS_BOUND_MEMORY);
    /* device 0 holds a micro-batch from F0 until B0 starts: one micro-batch at a time, and the
     * sequential schedule is optimal */
    ts_schedule *s = sequential(p, 16);
    ts_metrics m;
    assert_int_equal(ts_schedule_metrics(s, &m), 0);
    assert_int_equal(b.value, m.makespan);
    assert_int_equal(m.makespan, 16 * b.term[TS_BOUND_CRITICAL_PATH]);
    ts_metrics_free(&m);
    ts_schedule_free(s);
    ts_placement_free(p);
}

/* Each device's own capacity: a small one on device 0 binds through device 0 alone, the same
 * small one elsewhere only where that device holds as much; and a placement file's "capacity"
 * may list one per device (the wrong length refused, naming the file). */
static void test_bound_per_device(void **state)
{
    (void)state;
    ts_builtin_opts o = {4, false, 0};
    ts_placement *p = NULL;
    ts_err e = {0};
    assert_int_equal(ts_builtin_make("vshape", &o, &p, &e), TS_OK);
    ts_bound one, first, last, none;
    long cap1[4] = {1, 8, 8, 8}, cap3[4] = {8, 8, 8, 1};
    assert_int_equal(ts_bound_compute(p, 16, cap1, &first), 0);
    assert_int_equal(ts_bound_compute(p, 16, cap3, &last), 0);
    assert_int_equal(ts_bound_compute(p, 16, (long[]){1, 1, 1, 1}, &one), 0);
    assert_int_equal(ts_bound_compute(p, 16, NULL, &none), 0);
    /* device 0 holds a micro-batch longest (from F0 to B0): its capacity of 1 alone gives the
     * bound of 1 everywhere */
    assert_int_equal(first.value, one.value);
    assert_int_equal(first.binding, TS_BOUND_MEMORY);
    assert_int_equal(first.device[TS_BOUND_MEMORY], 0);
    /* device 3 runs B3 right after F3: a capacity of 1 there costs nothing (the same small
     * capacity, on another device) */
    assert_true(last.value < first.value);
    assert_int_equal(last.value, none.value);
    assert_true(last.term[TS_BOUND_MEMORY] >= 0 && last.term[TS_BOUND_MEMORY] <= none.value);
    ts_placement_free(p);

    json_t *j = json_pack("{s:s, s:s, s:i, s:[{s:s, s:s, s:i, s:i, s:[i]}, {s:s, s:s, s:i, s:i, "
                          "s:[i]}], s:[[s, s]], s:[i, i]}",
                          "format", "tessel-placement/1", "name", "two", "ndevs", 2, "blocks",
                          "id", "F", "kind", "forward", "span", 1, "memory", 0, "devices", 0,
                          "id", "B", "kind", "backward", "span", 1, "memory", 0, "devices", 1,
                          "chains", "F", "B", "capacity", 9, 4);
    assert_non_null(j);
    assert_int_equal(ts_placement_from_json(j, "two.json", &p, &e), TS_OK);
    assert_true(p->has_capacity);
    assert_int_equal(p->capacity, 9);
    assert_non_null(p->capacity_per_device);
    assert_int_equal(p->capacity_per_device[1], 4);
    json_t *back = ts_placement_to_json(p);
    assert_int_equal(json_integer_value(json_array_get(json_object_get(back, "capacity"), 1)), 4);
    json_decref(back);
    ts_placement *q = ts_placement_clone(p);
    assert_int_equal(q->capacity_per_device[0], 9);
    ts_placement_free(q);
    ts_placement_free(p);
    json_object_set_new(j, "capacity", json_pack("[i, i, i]", 9, 4, 4));
    assert_int_equal(ts_placement_from_json(j, "two.json", &p, &e), TS_EINPUT);
    assert_non_null(strstr(e.msg, "two.json: field 'capacity' lists 3 capacities for 2 devices"));
    json_object_set_new(j, "capacity", json_pack("[i, i]", 5, 5));
    ts_err_clear(&e);
    assert_int_equal(ts_placement_from_json(j, "two.json", &p, &e), TS_OK);
    assert_null(p->capacity_per_device); /* the same for all: one capacity */
    assert_int_equal(p->capacity, 5);
    ts_placement_free(p);
    json_decref(j);
}

static void test_improve_beats_gpipe(void **state)
{
    (void)state;
    ts_builtin_opts o = {8, false, 0};
    ts_placement *p = NULL;
    ts_err e = {0};
    assert_int_equal(ts_builtin_make("nnshape", &o, &p, &e), TS_OK);
    ts_schedule *s = NULL;
    assert_int_equal(ts_baseline_make("gpipe", p, 8, &s, &e), TS_OK);
    ts_metrics m;
    assert_int_equal(ts_schedule_metrics(s, &m), 0);
    ts_schedule_set_memory(s, m.peak);
    ts_improve_opts io = {.max_moves = 20000, .target = ts_lower_bound(p, 8), .seed = 1};
    ts_improve_stats st;
    ts_schedule *r = NULL;
    assert_int_equal(ts_improve(s, &io, &r, &st, &e), TS_OK);
    ts_validate_opts vo = {0};
    assert_int_equal(ts_schedule_validate(r, &vo, &e), TS_OK);
    /* GPipe waits for every forward before the first backward; interleaving them is shorter */
    assert_true(st.after < m.makespan);
    ts_metrics_free(&m);
    ts_schedule_free(s);
    ts_schedule_free(r);
    ts_placement_free(p);
}

static void test_improve_refuses_incomplete(void **state)
{
    (void)state;
    ts_builtin_opts o = {2, false, 0};
    ts_placement *p = NULL;
    ts_err e = {0};
    assert_int_equal(ts_builtin_make("vshape", &o, &p, &e), TS_OK);
    ts_schedule *s = sequential(p, 2);
    s->nentries--; /* drop the last instance */
    ts_improve_opts io = {.max_moves = 10, .seed = 1};
    ts_schedule *r = NULL;
    assert_int_equal(ts_improve(s, &io, &r, NULL, &e), TS_EINPUT);
    assert_null(r);
    assert_non_null(strstr(e.msg, "instances"));
    ts_schedule_free(s);
    ts_placement_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bound_random),
        cmocka_unit_test(test_bound_builtins),
        cmocka_unit_test(test_bound_terms),
        cmocka_unit_test(test_bound_per_device),
        cmocka_unit_test(test_improve_beats_gpipe),
        cmocka_unit_test(test_improve_refuses_incomplete),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
