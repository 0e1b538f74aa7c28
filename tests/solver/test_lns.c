/* The large-neighbourhood search (solver/improve/lns.c): on random small placements it never
 * returns a longer or invalid schedule (every result checked by the core's validator, within the
 * seed's own peak memory where that is the capacity), it spends the same effort and gives the same
 * schedule twice, and on a fixed poor incumbent (1F1B on vshape with two forwards swapped, which
 * replaying its device orders cannot undo) it provably finds the shorter schedule, as it does on a
 * drain pushed late. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "solver_testutil.h"
#include "../core/test_rng.h"
#include "ts_baseline.h"
#include "ts_construct.h"
#include "ts_fallback.h"
#include "ts_lns.h"
#include "ts_search_ctx.h"

/* A random placement (as test_search_property.c draws them): block i depends on one or two
 * earlier blocks, some blocks on several devices, random spans, delays now and then, memory on
 * single-device blocks balanced so that no device keeps memory from a micro-batch. */
static ts_placement *random_placement(uint64_t *seed)
{
    int D = rint_(seed, 2, 3), n = rint_(seed, 3, 6);
    bool delays = rint_(seed, 0, 3) == 0;
    ts_placement *p = ts_placement_new("random", D);
    int devs[3];
    for (int i = 0; i < n; i++) {
        int nd = rint_(seed, 0, 4) == 0 ? rint_(seed, 2, D) : 1, first = rint_(seed, 0, D - 1);
        for (int j = 0; j < nd; j++)
            devs[j] = (first + j) % D;
        int mem = nd == 1 ? rint_(seed, -2, 2) : 0;
        char id[8];
        snprintf(id, sizeof id, "b%d", i);
        assert_int_equal(ts_placement_add_block(p, id,
                                                mem >= 0 ? TS_KIND_FORWARD : TS_KIND_BACKWARD,
                                                rint_(seed, 1, 3), mem, nd, devs),
                         i);
        if (i > 0) {
            int a = rint_(seed, 0, i - 1);
            ts_placement_add_edge(p, a, i, delays ? rint_(seed, 0, 2) : 0, 0);
            int c = rint_(seed, 0, i - 1);
            if (i > 1 && c != a && rint_(seed, 0, 2) == 0)
                ts_placement_add_edge(p, c, i, 0, 0);
        }
    }
    for (int d = 0; d < D; d++) {
        int net = 0, last = -1;
        for (int i = 0; i < n; i++)
            if (ts_block_on(&p->blocks[i], d)) {
                net += p->blocks[i].memory;
                last = p->blocks[i].ndevices == 1 ? i : last;
            }
        if (net > 0 && last >= 0)
            p->blocks[last].memory -= net;
    }
    return p;
}

static long makespan(const ts_schedule *s)
{
    long first, last;
    ts_schedule_span(s, &first, &last);
    return last - first;
}

/* ts_lns on s within cap, with `seconds` of effort on a fresh meter; *spent: the effort. */
static ts_schedule *lns(const ts_schedule *s, const long *cap, long lo, double seconds,
                        ts_lns_stats *st, double *spent)
{
    ts_meter m;
    ts_meter_init(&m, 0);
    ts_budget b;
    ts_budget_init(&b, &m, seconds);
    ts_lns_opts o = {cap, lo, &b, seconds / 4};
    ts_schedule *out = NULL;
    ts_err e = {0};
    assert_int_equal(ts_lns(s, &o, &out, st, &e), TS_OK);
    *spent = m.spent;
    return out;
}

static void test_random_never_worse(void **state)
{
    (void)state;
    uint64_t seed = 20261202;
    int improved = 0, solved = 0;
    for (int iter = 0; iter < 40; iter++) {
        ts_placement *p = random_placement(&seed);
        int n = rint_(&seed, 3, 8);
        ts_schedule *q = NULL, *g = NULL;
        ts_err e = {0};
        /* the seed: one micro-batch at a time (the fallback), or the greedy list schedule,
         * unconstrained or at its own peaks */
        if (iter % 4 < 2) {
            assert_int_equal(ts_sequential_schedule(p, NULL, &q, &e), TS_OK);
            assert_int_equal(ts_schedule_at(q, n, true, &g, &e), TS_OK);
            ts_schedule_free(q);
        } else {
            assert_int_equal(ts_full_greedy(p, n, NULL, &g, &e), TS_OK);
        }
        long peak[3], cap[3];
        assert_true(tu_makespan(g, n, peak) > 0);
        bool tight = iter % 2 == 1;
        for (int d = 0; d < p->ndevs; d++)
            cap[d] = peak[d] > 0 ? peak[d] : 0;
        if (tight)
            ts_schedule_set_memory(g, cap);
        ts_lns_stats st, st2;
        double spent, spent2;
        ts_schedule *r = lns(g, tight ? cap : NULL, 0, 2, &st, &spent);
        solved += st.solved;
        /* within its effort, but for what the last window started (its scans and one call) */
        assert_true(spent <= 2.5 * TS_EFFORT_PER_SECOND + 20000);
        if (r) {
            improved++;
            assert_int_equal(tu_valid_range(r, n, n), 0);
            assert_int_equal(r->nentries, g->nentries);
            assert_true(makespan(r) < makespan(g));
            assert_int_equal(makespan(r), st.after);
            long rp[3];
            assert_true(tu_makespan(r, n, rp) <= makespan(r));
            for (int d = 0; tight && d < p->ndevs; d++)
                assert_true(rp[d] <= cap[d]);
        } else {
            assert_true(st.after >= tu_makespan(g, n, NULL));
        }
        /* a count, not a clock: the same effort and the same schedule again */
        ts_schedule *r2 = lns(g, tight ? cap : NULL, 0, 2, &st2, &spent2);
        assert_true(spent2 == spent);
        assert_int_equal(st2.after, st.after);
        assert_true((r == NULL) == (r2 == NULL));
        for (int i = 0; r && i < r->nentries; i++)
            assert_int_equal(r->entries[i].step, r2->entries[i].step);
        ts_schedule_free(r);
        ts_schedule_free(r2);
        ts_schedule_free(g);
        ts_placement_free(p);
    }
    print_message("%d seeds, %d windows solved, %d beaten\n", 40, solved, improved);
    /* the windows were searched, and some seeds were beaten */
    assert_true(solved >= 40);
    assert_true(improved >= 5);
}

/* Swaps the steps of entries i and j. */
static void swap_steps(ts_schedule *s, int i, int j)
{
    long t = s->entries[i].step;
    s->entries[i].step = s->entries[j].step;
    s->entries[j].step = t;
}

static void test_poor_incumbent(void **state)
{
    (void)state;
    ts_placement *p = tu_builtin("vshape", 4, false);
    ts_schedule *s = NULL;
    ts_err e = {0};
    long cap[4] = {4, 4, 4, 4};
    assert_int_equal(ts_baseline_make("1f1b", p, 8, &s, &e), TS_OK);
    ts_schedule_set_memory(s, cap);
    ts_schedule_sort(s);
    long best = tu_makespan(s, 8, NULL);
    /* on device 0, the first forward of micro-batch 1 before that of micro-batch 0: micro-batch
     * 0's chain starts a step late, and device 1 runs micro-batch 0 first all the same */
    int f0 = -1, f1 = -1;
    for (int i = 0; i < s->nentries; i++)
        if (s->entries[i].block == 0 && s->entries[i].micro <= 1)
            *(s->entries[i].micro == 0 ? &f0 : &f1) = i;
    assert_true(f0 >= 0 && f1 >= 0);
    swap_steps(s, f0, f1);
    ts_schedule *poor = NULL;
    assert_int_equal(ts_schedule_at(s, 8, true, &poor, &e), TS_OK);
    ts_validate_opts vo = {0};
    assert_int_equal(ts_schedule_validate(poor, &vo, &e), TS_OK);
    long bad = makespan(poor);
    assert_true(bad > best);
    /* the fill window alone (16 instances) gives the 1F1B makespan back, or better */
    ts_schedule_sort(poor);
    ts_schedule_normalize(poor);
    ts_meter m;
    ts_meter_init(&m, 0);
    ts_budget b;
    ts_budget_init(&b, &m, 30);
    ts_lns_opts o = {cap, 0, &b, 30};
    ts_schedule *w = NULL;
    long wm = 0;
    int first = 16;
    while (first < poor->nentries && poor->entries[first].step == poor->entries[first - 1].step)
        first++;
    assert_int_equal(ts_lns_window(poor, 0, first, &o, &w, &wm, &e), TS_OK);
    assert_non_null(w);
    assert_true(wm <= best && wm == makespan(w));
    assert_int_equal(ts_schedule_validate(w, &vo, &e), TS_OK);
    /* and the whole search, seeded with the poor schedule, ends no longer */
    ts_lns_stats st;
    double spent;
    ts_schedule *r = lns(poor, cap, 0, 30, &st, &spent);
    assert_non_null(r);
    assert_true(st.kept >= 1 && makespan(r) <= best);
    assert_int_equal(ts_schedule_validate(r, &vo, &e), TS_OK);
    /* at the lower bound nothing runs: no window is solved */
    ts_schedule *none = lns(r, cap, makespan(r), 30, &st, &spent);
    assert_null(none);
    assert_int_equal(st.solved, 0);
    ts_schedule_free(r);
    ts_schedule_free(w);
    ts_schedule_free(poor);
    ts_schedule_free(s);
    ts_placement_free(p);
}

/* The drain window: 1F1B on vshape with its last instances pushed 5 steps later (still valid)
 * comes back to 1F1B's makespan or better when its last 16 instances are freed, within memory,
 * and the schedule validates; asked again behind the same fixed part, nothing beats it. */
static void test_drain_window(void **state)
{
    (void)state;
    ts_placement *p = tu_builtin("vshape", 4, false);
    ts_schedule *s = NULL;
    ts_err e = {0};
    assert_int_equal(ts_baseline_make("1f1b", p, 8, &s, &e), TS_OK);
    long cap[4] = {4, 4, 4, 4}, first, last;
    ts_schedule_set_memory(s, cap);
    ts_schedule_sort(s);
    ts_schedule_normalize(s);
    ts_schedule_span(s, &first, &last);
    long mk = last - first;
    ts_schedule *late = ts_schedule_clone(s);
    for (int i = 0; i < late->nentries; i++)
        if (late->entries[i].step >= last - 8)
            late->entries[i].step += 5;
    ts_validate_opts vo = {0};
    assert_int_equal(ts_schedule_validate(late, &vo, &e), TS_OK);
    int a = late->nentries - 16;
    while (a > 0 && late->entries[a].step == late->entries[a - 1].step)
        a++;
    ts_meter m;
    ts_meter_init(&m, 0);
    ts_budget b;
    ts_budget_init(&b, &m, 30);
    ts_lns_opts o = {cap, 0, &b, 30};
    ts_schedule *w = NULL, *none = NULL;
    long wm = 0, again = 0;
    assert_int_equal(ts_lns_window(late, a, late->nentries - a, &o, &w, &wm, &e), TS_OK);
    assert_non_null(w);
    assert_true(wm <= mk && wm == makespan(w));
    assert_int_equal(ts_schedule_validate(w, &vo, &e), TS_OK);
    a = w->nentries - 16;
    while (a > 0 && w->entries[a].step == w->entries[a - 1].step)
        a++;
    assert_int_equal(ts_lns_window(w, a, w->nentries - a, &o, &none, &again, &e), TS_OK);
    assert_null(none);
    assert_int_equal(again, wm);
    ts_schedule_free(w);
    ts_schedule_free(late);
    ts_schedule_free(s);
    ts_placement_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_never_worse),
        cmocka_unit_test(test_poor_incumbent),
        cmocka_unit_test(test_drain_window),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
