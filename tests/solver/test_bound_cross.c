/* The cross term of the lower bound (src/core/bound/bound_cross.c): its value where a device
 * alone says less than the optimum, and sound against the exact search's proven optima on random
 * placements made of two chains that cross the devices in opposite directions, as xshape's do. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "solver_testutil.h"
#include "ts_bound.h"
#include "ts_exact.h"

#include "../core/test_rng.h"

/* The exact search's effort (Z3 resource units) on each random placement. At 2e5 the test takes
 * seconds: 2e7 (the size this test had, 6 minutes on a 2-core machine) proves 298 optima of 300,
 * 2e5 proves 247, and every one of the 59 cases where the cross term is above the others is among
 * them; what it gives up are the long proofs (three of 2e7 each took over half the old time).
 * `--sweep` (tests/bench/bound_sweep.sh, label bench) runs the old effort. */
static long exact_effort = 200000L;

static ts_bound bound_of(const ts_placement *p, int n, long capv)
{
    long cap[TU_CAPS];
    ts_bound b;
    assert_int_equal(ts_bound_compute(p, n, tu_caps(cap, p->ndevs, capv), &b), 0);
    return b;
}

/* The optimum at n within capv on every device, proven by the exact search below hi, which
 * does not read the bound (lo 0); -1 when the search did not prove it. */
static long proven_optimum(const ts_placement *p, int n, long capv, long hi, long effort)
{
    long cap[TU_CAPS];
    ts_meter m;
    ts_meter_init(&m, 0);
    ts_budget bu;
    ts_budget_init(&bu, &m, 120);
    ts_exact_opts eo = {n, tu_caps(cap, p->ndevs, capv), 0, hi + 1, effort, &bu};
    ts_schedule *better = NULL;
    ts_exact_res r;
    ts_err e = {0};
    assert_int_equal(ts_exact_search(p, &eo, &better, &r, &e), TS_OK);
    ts_schedule_free(better);
    return r.run && r.proven && !r.timed_out ? r.best : -1;
}

/* xshape on 4 devices at capacity 1, N = 4: each device alone gives 84 (exclusive); devices 0
 * and 3 together give 107 (worked in bound_cross.c's comment), which the exact search proves to
 * be the optimum. Without memory the term says nothing. */
static void test_cross_xshape(void **state)
{
    (void)state;
    ts_placement *p = tu_builtin("xshape", 4, false);
    ts_bound b = bound_of(p, 4, 1);
    assert_int_equal(b.term[TS_BOUND_EXCLUSIVE], 84);
    assert_int_equal(b.term[TS_BOUND_CROSS], 107);
    assert_int_equal(b.binding, TS_BOUND_CROSS);
    assert_int_equal(proven_optimum(p, 4, 1, 120, 200000000L), 107);
    /* at capacity 2 one micro-batch's two windows fit together: no kind conflicts */
    assert_int_equal(bound_of(p, 4, 2).term[TS_BOUND_CROSS], -1);
    ts_bound none;
    assert_int_equal(ts_bound_compute(p, 4, NULL, &none), 0);
    assert_int_equal(none.term[TS_BOUND_CROSS], -1);
    ts_placement_free(p);
}

/* Two chains over D devices in opposite directions, forwards then backwards (spans 1 to 3,
 * forwards allocate 1 and now and then 0, each backward frees its forward), and now and then a
 * block on every device between them. */
static ts_placement *crossing_chains(uint64_t *seed)
{
    int D = rint_(seed, 2, 3);
    ts_placement *p = ts_placement_new("crossing", D);
    int all[4] = {0, 1, 2, 3}, prev = -1, nb = 0;
    for (int c = 0; c < 2; c++) {
        int fwd[4];
        prev = -1;
        for (int k = 0; k < 2 * D; k++) {
            int i = k < D ? k : 2 * D - 1 - k;
            int d = c == 0 ? i : D - 1 - i;
            long mem = k < D ? (rint_(seed, 0, 5) > 0) : -p->blocks[fwd[i]].memory;
            char id[16];
            snprintf(id, sizeof id, "c%d_%d", c, k);
            int b = ts_placement_add_block(p, id, k < D ? TS_KIND_FORWARD : TS_KIND_BACKWARD,
                                           rint_(seed, 1, 3), mem, 1, &all[d]);
            assert_int_equal(b, nb++);
            if (k < D)
                fwd[i] = b;
            if (prev >= 0)
                ts_placement_add_edge(p, prev, b, 0, 0);
            prev = b;
            if (k == D - 1 && rint_(seed, 0, 3) == 0) {
                snprintf(id, sizeof id, "s%d", c);
                int s = ts_placement_add_block(p, id, TS_KIND_OTHER, 1, 0, D, all);
                assert_int_equal(s, nb++);
                ts_placement_add_edge(p, prev, s, 0, 0);
                prev = s;
            }
        }
    }
    ts_err e = {0};
    assert_int_equal(ts_placement_check(p, "crossing", &e), TS_OK);
    return p;
}

/* On 300 such placements at capacity 1 or 2, N 2 to 4: wherever the exact search proves an
 * optimum, the bound (the cross term above all) is at most that optimum. The term must be above
 * every other term in some of them, or the test would prove nothing of it. */
static void test_cross_sound_random(void **state)
{
    (void)state;
    uint64_t seed = 4242;
    int proven = 0, binds = 0, active = 0;
    for (int it = 0; it < 300; it++) {
        ts_placement *p = crossing_chains(&seed);
        int n = 2 + it % 3;
        long capv = rint_(&seed, 0, 3) ? 1 : 2;
        ts_bound b = bound_of(p, n, capv);
        long x = b.term[TS_BOUND_CROSS], others = -1;
        for (int t = 0; t < TS_BOUND_NTERMS; t++)
            if (t != TS_BOUND_CROSS && b.term[t] > others)
                others = b.term[t];
        active += x >= 0;
        long total = 0;
        for (int i = 0; i < p->nblocks; i++)
            total += p->blocks[i].span;
        /* micro-batch after micro-batch fits any capacity that one micro-batch fits */
        long opt = proven_optimum(p, n, capv, total * n, exact_effort);
        if (opt >= 0) {
            proven++;
            binds += x > others;
            if (opt < b.value)
                fail_msg("it %d: proven optimum %ld below the bound %ld (%s; cross %ld)", it,
                         opt, b.value, ts_bound_term_name(b.binding), x);
        }
        ts_placement_free(p);
    }
    print_message("cross: 300 cases, exact effort %ld: computed %d, above every other term where "
                  "proven %d, optima proven %d\n",
                  exact_effort, active, binds, proven);
    assert_true(proven >= 200);
    assert_true(binds >= 20);
}

int main(int argc, char **argv)
{
    /* the benchmark's size: each exact search at the effort this test once had */
    if (argc > 1 && strcmp(argv[1], "--sweep") == 0)
        exact_effort = 20000000L;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cross_xshape),
        cmocka_unit_test(test_cross_sound_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
