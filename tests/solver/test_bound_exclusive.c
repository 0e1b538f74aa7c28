/* The exclusive term of the lower bound (src/core/bound/bound_exclusive.c): sound against every
 * schedule we can find and against the exact search's proven optima on random small placements,
 * and its value on the small set's cases where the other terms are far below the optimum. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "solver_testutil.h"
#include "ts_bound.h"
#include "ts_exact.h"

#include "../core/random_placement.h"

/* The exact search's effort (Z3 resource units) on each random case. At 2e5 the test takes seconds:
 * 2e7 (the size this test had, 18 minutes on a 2-core machine) proves 144 optima of the 160 cases,
 * 2e5 proves 125, and each of the 7 cases where the exclusive term is above the others is among
 * them; what it gives up are the long proofs, a third of them of one device. Every case is still
 * checked against auto's schedule and the sequential one. `--sweep` (tests/bench/bound_sweep.sh,
 * label bench) runs the old effort. */
static long exact_effort = 200000L;

/* Random placements (branches, joins, blocks on several devices, delays, signed memory), N 2 to
 * 4, each device's capacity the peak of the sequential schedule or one more: every term, the
 * exclusive one above all, is at most the makespan of auto's schedule and of the sequential one,
 * and at most the optimum wherever the exact search (started from the sequential schedule, with
 * no lower bound to stop at, so its proof does not lean on the bound) proves one. */
static void test_exclusive_sound_random(void **state)
{
    (void)state;
    uint64_t seed = 2323;
    int proven = 0, binds = 0, active = 0;
    for (int it = 0; it < 160; it++) {
        ts_placement *p = random_placement(&seed);
        int n = 2 + it % 3;
        ts_schedule *seq = sequential(p, n);
        long cap[TU_CAPS], seqmk = tu_makespan(seq, n, cap);
        for (int d = 0; d < p->ndevs; d++)
            cap[d] += rint_(&seed, 0, 2) == 0;
        ts_schedule_free(seq);
        ts_bound b;
        assert_int_equal(ts_bound_compute(p, n, cap, &b), 0);
        long x = b.term[TS_BOUND_EXCLUSIVE], others = -1;
        for (int t = 0; t < TS_BOUND_NTERMS; t++)
            if (t != TS_BOUND_EXCLUSIVE && b.term[t] > others)
                others = b.term[t];
        active += x >= 0;
        binds += x > others;
        assert_true(b.value <= seqmk);
        long mk = tu_auto_makespan(p, n, cap);
        assert_true(mk > 0);
        if (mk < b.value)
            fail_msg("it %d: auto %ld below the bound %ld (%s)", it, mk, b.value,
                     ts_bound_term_name(b.binding));
        long opt = tu_exact_optimum(p, n, cap, mk + 1, exact_effort);
        assert_true(opt != -2);
        if (opt >= 0) {
            proven++;
            if (opt < b.value)
                fail_msg("it %d: proven optimum %ld below the bound %ld (%s = %ld)", it, opt,
                         b.value, ts_bound_term_name(b.binding), b.term[b.binding]);
        }
        ts_placement_free(p);
    }
    print_message("exclusive: 160 cases, exact effort %ld: computed %d, above every other term "
                  "%d, optima proven %d\n",
                  exact_effort, active, binds, proven);
    assert_true(proven >= 80);
    assert_true(binds >= 5);
}

static long exclusive_of(const char *shape, int D, int n, long capv)
{
    ts_placement *p = tu_builtin(shape, D, false);
    long cap[TU_CAPS];
    ts_bound b;
    assert_int_equal(ts_bound_compute(p, n, tu_caps(cap, D, capv), &b), 0);
    ts_placement_free(p);
    return b.term[TS_BOUND_EXCLUSIVE];
}

/* kshape, 4 devices, N = 8, capacity 2 (optimum 66, proven by the exact search; the other terms
 * give 52). On device 0, F0 (+1), M (+1, on every device), M' (-1, on every device), B0 (-1).
 * Between M and M' a micro-batch holds 2 there, so the window (M, M') of one micro-batch shares
 * no point with another's: tau = 2 - 2 = 0. L(M, M') = 1. After M' a micro-batch still holds 1
 * (F0 + M - M') until B0, which starts 1 + 3 (M', B1) after M' and ends 3 later: gap 7. Before
 * it, F0 lags M by 2: 1 + 2 = 3. est(M) = 2 (F0, F1), tail(M') = 6 (B1, B0):
 *     2 + 8 * 1 + 7 * 7 + 1 + 6 = 66, the optimum.
 * xshape, 4 devices, N = 4, capacity 1 (optimum 107; memory gives 64): on device 1 the windows
 * (Fa1, Ba1), L = 1 + 1 + 1 + 3 + 3 = 9 (Fa1 Fa2 Fa3 Ba3 Ba2), and (Fb1, Bb1), L = 1 + 1 + 3 = 5
 * (Fb1 Fb0 Bb0), each holding 1, cannot share a point, in one micro-batch or in two: 4 * ((9 + 3) + (5 + 3)) = 80, plus
 * est(Fa1) = 1 and tail(Ba1) = 3: 84. */
static void test_exclusive_small_set(void **state)
{
    (void)state;
    assert_int_equal(exclusive_of("kshape", 4, 8, 2), 66);
    assert_int_equal(exclusive_of("xshape", 4, 4, 1), 84);
    /* with room for a second micro-batch the windows may overlap and the term says less */
    assert_true(exclusive_of("kshape", 4, 8, 4) < 66);
}

int main(int argc, char **argv)
{
    /* the benchmark's size: each exact search at the effort this test once had */
    if (argc > 1 && strcmp(argv[1], "--sweep") == 0)
        exact_effort = 20000000L;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exclusive_small_set),
        cmocka_unit_test(test_exclusive_sound_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
