/* The warm-up term of the lower bound (src/core/bound/bound_warmup.c, with its cool-down): its
 * value on xshape, where it proves the paper case optimal, and soundness against every schedule we can find and the
 * exact search's proven optima, on random small placements and on the small built-in pipelines
 * at tight capacities (tests/bench/bound_cpsat.py checks the same against CP-SAT). */
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

/* The exact search's effort (Z3 resource units) on each case: seconds in all. */
static const long exact_effort = 200000L;

static ts_bound bound_of(const char *shape, int D, bool infer, int n, long capv)
{
    ts_placement *p = tu_builtin(shape, D, infer);
    long cap[TU_CAPS];
    ts_bound b;
    assert_int_equal(ts_bound_compute(p, n, tu_caps(cap, D, capv), &b), 0);
    ts_placement_free(p);
    return b;
}

/* xshape on 4 devices, capacity 4: on device 1 head = 1 (Fa1) and the first freeing block, Bb1,
 * starts no earlier than 7 (Fb3 Fb2 Fb1 Fb0 Bb0); Fa1 and Fb1 (1 step, 1 unit each) fill at most
 * 4 of the 6 steps between: 2 idle, so 1 + 2 + 8N + 3 (Ba1's tail). At N = 128 that is 1030,
 * which full-greedy and modulo reach (the other terms: 1028); at N = 4 it is 38, the optimum
 * (CP-SAT proves it). With room for 6 forwards the stretch fills: no term. Inference frees
 * nothing: no term. */
static void test_warmup_xshape(void **state)
{
    (void)state;
    ts_bound b = bound_of("xshape", 4, false, 128, 4);
    assert_int_equal(b.term[TS_BOUND_WARMUP], 1030);
    assert_int_equal(b.value, 1030);
    assert_int_equal(b.binding, TS_BOUND_WARMUP);
    assert_int_equal(b.device[TS_BOUND_WARMUP], 1);
    assert_int_equal(b.term[TS_BOUND_ONE_MACHINE], 1028);
    assert_int_equal(bound_of("xshape", 4, false, 4, 4).term[TS_BOUND_WARMUP], 38);
    /* capacity 3: 3 idle steps in the warm-up; and the cool-down: the last forward on device 1
     * ends at least 13 steps before the end (Fb1's tail), Ba1's tail is 3, and in the 10 steps
     * between only backwards run, freeing at most 3 units: 3 of 3 steps, 1 idle. The stretches
     * are disjoint: 1 + 3 + 1 + 8N + 3 */
    assert_int_equal(bound_of("xshape", 4, false, 128, 3).term[TS_BOUND_WARMUP], 1032);
    assert_int_equal(bound_of("xshape", 4, false, 3, 3).term[TS_BOUND_WARMUP], 32);
    assert_int_equal(bound_of("xshape", 4, false, 128, 6).term[TS_BOUND_WARMUP], -1);
    assert_int_equal(bound_of("xshape", 4, true, 128, 4).term[TS_BOUND_WARMUP], -1);
    /* unconstrained memory: no term */
    ts_placement *p = tu_builtin("xshape", 4, false);
    ts_bound u;
    assert_int_equal(ts_bound_compute(p, 128, NULL, &u), 0);
    assert_int_equal(u.term[TS_BOUND_WARMUP], -1);
    ts_placement_free(p);
}

/* One case: the warm-up term at most every schedule's makespan, and at most the optimum where
 * the exact search (started from nothing better than auto's makespan + 1, with no lower bound
 * to stop at, so its proof does not lean on the bound) proves one. Counts what it saw. */
static void check_case(const ts_placement *p, int n, const long *cap, long seqmk, const char *what,
                       int *proven, int *binds, int *active)
{
    ts_bound b;
    assert_int_equal(ts_bound_compute(p, n, cap, &b), 0);
    long w = b.term[TS_BOUND_WARMUP], others = -1;
    for (int t = 0; t < TS_BOUND_NTERMS; t++)
        if (t != TS_BOUND_WARMUP && b.term[t] > others)
            others = b.term[t];
    *active += w >= 0;
    *binds += w > others;
    if (seqmk >= 0 && w > seqmk)
        fail_msg("%s: the sequential schedule (%ld) below the warm-up term %ld", what, seqmk, w);
    long mk = tu_auto_makespan(p, n, cap);
    assert_true(mk != -2);
    if (mk < 0)
        return; /* no schedule within the capacity: nothing to bound */
    if (mk < w)
        fail_msg("%s: auto %ld below the warm-up term %ld", what, mk, w);
    long opt = tu_exact_optimum(p, n, cap, mk + 1, exact_effort);
    assert_true(opt != -2);
    if (opt >= 0) {
        (*proven)++;
        if (opt < w)
            fail_msg("%s: proven optimum %ld below the warm-up term %ld", what, opt, w);
    }
}

/* Random placements (branches, joins, blocks on several devices, delays, signed memory, some
 * keeping or freeing a unit a micro-batch), N 2 to 4, each device's capacity the peak of the
 * sequential schedule or one more. */
static void test_warmup_sound_random(void **state)
{
    (void)state;
    uint64_t seed = 4646;
    int proven = 0, binds = 0, active = 0;
    for (int it = 0; it < 120; it++) {
        ts_placement *p = random_placement(&seed);
        int n = 2 + it % 3;
        /* a quarter keep a unit on some device and a quarter free one more than they took: the
         * cool-down's room depends on what a micro-batch leaves (N x net) */
        if (it % 4 >= 2)
            p->blocks[rint_(&seed, 0, p->nblocks - 1)].memory += it % 4 == 2 ? 1 : -1;
        ts_schedule *seq = sequential(p, n);
        long cap[TU_CAPS], seqmk = tu_makespan(seq, n, cap);
        for (int d = 0; d < p->ndevs; d++)
            cap[d] += rint_(&seed, 0, 2) == 0;
        ts_schedule_free(seq);
        char what[32];
        snprintf(what, sizeof what, "random %d", it);
        check_case(p, n, cap, seqmk, what, &proven, &binds, &active);
        ts_placement_free(p);
    }
    print_message("warm-up, random: 120 cases, computed %d, above every other term %d, optima "
                  "proven %d\n",
                  active, binds, proven);
    assert_true(proven >= 60);
    assert_true(active >= 10);
}

/* The built-in pipelines on 3 and 4 devices (kshape, nnshape: 2 and 4), N 2 to 4, capacities 2 to 5: the term is above
 * every other on most xshape cases, and proven optimal on some. */
static void test_warmup_sound_builtin(void **state)
{
    (void)state;
    const char *shapes[] = {"vshape", "xshape", "kshape", "mshape", "nnshape"};
    const int even[] = {0, 0, 1, 0, 1}; /* shapes built on even device counts only */
    int proven = 0, binds = 0, active = 0;
    for (int s = 0; s < 5; s++)
        for (int D = 3 - even[s]; D <= 4; D += 1 + even[s])
            for (int n = 2; n <= 4; n++)
                for (long c = 2; c <= 5; c += 3 - (s == 1)) {
                    ts_placement *p = tu_builtin(shapes[s], D, false);
                    long cap[TU_CAPS];
                    char what[48];
                    snprintf(what, sizeof what, "%s D %d N %d cap %ld", shapes[s], D, n, c);
                    check_case(p, n, tu_caps(cap, D, c), -1, what, &proven, &binds, &active);
                    ts_placement_free(p);
                }
    print_message("warm-up, built-in: computed %d, above every other term %d, optima proven %d\n",
                  active, binds, proven);
    assert_true(binds >= 6);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_warmup_xshape),
        cmocka_unit_test(test_warmup_sound_random),
        cmocka_unit_test(test_warmup_sound_builtin),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
