/* Property test on small random placements (DAGs with branches and joins, blocks on several
 * devices, random spans and memory): every schedule any method returns is valid (for several N
 * when it has a repetend), memory below the floor is refused, and `full` (minimum makespan over
 * monotone schedules) is never worse than `lazy` where both are proven optimal. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "solver_testutil.h"
#include "../core/test_rng.h"
#include "ts_baseline.h"
#include "ts_exact.h"
#include "ts_memory.h"
#include "ts_search_ctx.h"

/* A random placement: block i depends on one or two earlier blocks (joins), several blocks may
 * share a predecessor (branches); memory on single-device blocks, balanced so that no device
 * keeps memory from a micro-batch. */
static ts_placement *random_placement(uint64_t *seed)
{
    int D = rint_(seed, 2, 3), n = rint_(seed, 3, 6);
    bool delays = rint_(seed, 0, 3) == 0, distance = rint_(seed, 0, 4) == 0;
    ts_placement *p = ts_placement_new("random", D);
    int *mem = calloc((size_t)n, sizeof *mem);
    int *ndv = calloc((size_t)n, sizeof *ndv);
    int devs[3][3];
    for (int i = 0; i < n; i++) {
        ndv[i] = rint_(seed, 0, 4) == 0 ? rint_(seed, 2, D) : 1;
        int first = rint_(seed, 0, D - 1);
        for (int j = 0; j < ndv[i]; j++)
            devs[i % 3][j] = (first + j) % D;
        mem[i] = ndv[i] == 1 ? rint_(seed, -2, 2) : 0;
        char id[8];
        snprintf(id, sizeof id, "b%d", i);
        int b = ts_placement_add_block(p, id, mem[i] >= 0 ? TS_KIND_FORWARD : TS_KIND_BACKWARD,
                                       rint_(seed, 1, 3), mem[i], ndv[i], devs[i % 3]);
        assert_int_equal(b, i);
        if (i > 0) {
            int a = rint_(seed, 0, i - 1);
            ts_placement_add_edge(p, a, i, delays ? rint_(seed, 0, 2) : 0, 0);
            if (i > 1 && rint_(seed, 0, 2) == 0) {
                int c = rint_(seed, 0, i - 1);
                if (c != a)
                    ts_placement_add_edge(p, c, i, 0, 0);
            }
        }
    }
    /* now and then a dependency on an earlier micro-batch (token-level pipelines) */
    if (distance)
        ts_placement_add_edge(p, n - 1, 0, 0, rint_(seed, 1, 2));
    /* Balance: the last single-device block of a device takes what the device keeps. */
    for (int d = 0; d < D; d++) {
        int net = 0, last = -1;
        for (int i = 0; i < n; i++)
            if (ts_block_on(&p->blocks[i], d)) {
                net += p->blocks[i].memory;
                if (p->blocks[i].ndevices == 1)
                    last = i;
            }
        if (net > 0 && last >= 0)
            p->blocks[last].memory -= net;
    }
    free(mem);
    free(ndv);
    return p;
}

static int search(const ts_placement *p, ts_method m, bool has_memory, long cap, int nmicros, int N,
                  ts_schedule **s, ts_search_stats *st, ts_err *e)
{
    ts_search_opts o = tu_opts(m, has_memory, cap);
    o.k = nmicros;
    o.micro_batches = N;
    o.time_limit = 10;
    return ts_search(p, &o, s, st, e);
}

static void test_random_placements(void **state)
{
    (void)state;
    uint64_t seed = 20240611;
    int compared = 0, refused = 0, found = 0;
    for (int iter = 0; iter < 40; iter++) {
        ts_placement *p = random_placement(&seed);
        ts_err e = {0};
        assert_int_equal(ts_placement_check(p, "random", &e), TS_OK);
        long floor_cap = 0;
        bool exact = false;
        assert_int_equal(tu_memory_floor(p, &floor_cap, &exact, &e), TS_OK);
        bool has_memory = iter % 4 != 3;
        long cap = floor_cap + rint_(&seed, 0, 2);

        /* lazy */
        ts_schedule *ls = NULL;
        ts_search_stats lst;
        int rc = search(p, TS_METHOD_LAZY, has_memory, cap, 0, 4, &ls, &lst, &e);
        if (rc)
            fprintf(stderr, "iter %d lazy: %s\n", iter, e.msg);
        assert_int_equal(rc, TS_OK); /* at or above the floor, k = 1 always works */
        found++;
        assert_int_equal(tu_valid_range(ls, 1, ls->nmicros + 6), 0);
        assert_int_equal(tu_roundtrip(ls), 0);

        /* fast */
        ts_schedule *fs = NULL;
        ts_search_stats fst;
        ts_err_clear(&e);
        rc = search(p, TS_METHOD_FAST, has_memory, cap, 0, 4, &fs, &fst, &e);
        if (rc == TS_EINPUT && ts_placement_has_distance_edges(p)) {
            fs = NULL; /* fast's construction refuses edges between micro-batches */
        } else {
            if (rc)
                fprintf(stderr, "iter %d fast: %s\n", iter, e.msg);
            assert_int_equal(rc, TS_OK);
            assert_int_equal(tu_valid_range(fs, 1, fs->nmicros + 6), 0);
            assert_int_equal(tu_roundtrip(fs), 0);
            assert_true(fst.period >= ts_placement_max_load(p));
        }

        /* full, at an N the lazy schedule covers */
        int N = ls->nmicros > 3 ? ls->nmicros : 3;
        ts_schedule *us = NULL;
        ts_search_stats ust;
        ts_err_clear(&e);
        rc = search(p, TS_METHOD_FULL, has_memory, cap, 0, N, &us, &ust, &e);
        if (rc)
            fprintf(stderr, "iter %d full: %s\n", iter, e.msg);
        assert_int_equal(rc, TS_OK);
        assert_int_equal(us->nmicros, N);
        assert_int_equal(tu_valid_range(us, N, N), 0);
        if (ust.period_optimal && lst.period_optimal) {
            long lm = tu_makespan(ls, N, NULL);
            long um = tu_makespan(us, N, NULL);
            assert_true(lm > 0 && um > 0);
            if (um > lm)
                fprintf(stderr, "iter %d: full %ld > lazy %ld at N = %d\n", iter, um, lm, N);
            assert_true(um <= lm);
            compared++;
        }

        /* below the floor nothing fits */
        if (floor_cap > 0 && exact) {
            ts_schedule *xs = NULL;
            ts_search_stats xst;
            ts_err_clear(&e);
            assert_int_equal(search(p, TS_METHOD_LAZY, true, floor_cap - 1, 0, 4, &xs, &xst, &e),
                             TS_ENOANSWER);
            assert_null(xs);
            assert_int_equal(xst.min_memory, floor_cap);
            refused++;
        }
        ts_schedule_free(ls);
        ts_schedule_free(fs);
        ts_schedule_free(us);
        ts_placement_free(p);
    }
    printf("random placements: %d found, %d full-vs-lazy comparisons, %d refusals\n", found,
           compared, refused);
    assert_true(compared >= 10);
}

/* Each device's peak when one micro-batch runs alone with its blocks started at start. */
static void solo_peaks(const ts_placement *p, const long *start, long *peak)
{
    for (int d = 0; d < p->ndevs; d++) {
        long level = 0;
        peak[d] = 0;
        /* the blocks of d in start order: memory applies when a block starts */
        for (long t = 0, left = 1; left; t++) {
            left = 0;
            for (int b = 0; b < p->nblocks; b++) {
                if (!ts_block_on(&p->blocks[b], d) || start[b] < t)
                    continue;
                left |= start[b] > t;
                if (start[b] == t && (level += p->blocks[b].memory) > peak[d])
                    peak[d] = level;
            }
        }
    }
}

/* A capacity per device: on random placements, each device's capacity is what one micro-batch
 * at a time needs there (in the memory-minimal order) plus 0 to 2. Every method's schedule keeps
 * each device within its own capacity (validated with the capacities, for several N), records
 * them, and lazy always finds one (one micro-batch at a time fits by construction). */
static void test_random_per_device(void **state)
{
    (void)state;
    uint64_t seed = 20261202;
    static const ts_method methods[] = {TS_METHOD_LAZY, TS_METHOD_FAST, TS_METHOD_MODULO,
                                        TS_METHOD_FULL, TS_METHOD_AUTO};
    int found[5] = {0}, uneven = 0;
    for (int iter = 0; iter < 30; iter++) {
        ts_placement *p = random_placement(&seed);
        ts_err e = {0};
        ts_meter m;
        ts_meter_init(&m, 0);
        ts_budget b;
        ts_budget_init(&b, &m, 10);
        long floor_cap = 0, start[8], peak[3], cap[3], at[3];
        bool exact = false;
        assert_int_equal(ts_memory_floor_order(p, NULL, &b, &floor_cap, &exact, start, &e), TS_OK);
        solo_peaks(p, start, peak);
        for (int d = 0; d < p->ndevs; d++)
            cap[d] = peak[d] + rint_(&seed, 0, 2);
        bool same = true;
        for (int d = 1; d < p->ndevs; d++)
            same = same && cap[d] == cap[0];
        uneven += !same;
        for (int i = 0; i < 5; i++) {
            ts_search_opts o;
            ts_search_opts_init(&o);
            o.method = methods[i];
            ts_search_opts_memory(&o, cap, p->ndevs);
            o.micro_batches = 4;
            o.time_limit = 5;
            ts_schedule *s = NULL;
            ts_search_stats st;
            ts_err_clear(&e);
            int rc = ts_search(p, &o, &s, &st, &e);
            if (methods[i] == TS_METHOD_LAZY && rc)
                fail_msg("iter %d lazy within its per-device capacities: %s", iter, e.msg);
            if (rc) {
                assert_null(s);
                continue;
            }
            found[i]++;
            assert_true(s->has_memory);
            for (int d = 0; d < p->ndevs; d++)
                assert_int_equal(s->memory[d], cap[d]);
            assert_int_equal(tu_valid_range(s, 1, s->nmicros + 4), 0);
            assert_true(tu_makespan(s, 4, at) > 0);
            for (int d = 0; d < p->ndevs; d++)
                if (at[d] > cap[d])
                    fail_msg("iter %d %s: device %d peaks at %ld, capacity %ld", iter,
                             ts_method_name(methods[i]), d, at[d], cap[d]);
            ts_schedule_free(s);
        }
        ts_placement_free(p);
    }
    assert_true(uneven >= 10);
    for (int i = 0; i < 5; i++)
        assert_true(found[i] >= 10);
}

/* Brute force on a tiny placement of single-device blocks: every combination of device orders
 * of n micro-batches, each replayed as early as its orders allow (for fixed orders the earliest
 * starts minimise the makespan, and memory depends on the orders alone), kept when it validates
 * within cap. The shortest makespan, or -1 when nothing fits. */
static long brute_force(const ts_placement *p, int n, const long *cap)
{
    int ni = p->nblocks * n, D = p->ndevs, cnt[3] = {0}, pos[24], perm[3][12], idx[3][12];
    for (int x = 0; x < ni; x++)
        idx[p->blocks[x % p->nblocks].devices[0]][cnt[p->blocks[x % p->nblocks].devices[0]]++] = x;
    long best = -1;
    for (int d = 0; d < D; d++)
        for (int i = 0; i < cnt[d]; i++)
            perm[d][i] = i;
    for (;;) {
        ts_schedule *s = ts_schedule_new(p, n);
        ts_schedule_set_memory(s, cap);
        for (int d = 0; d < D; d++)
            for (int i = 0; i < cnt[d]; i++)
                pos[idx[d][perm[d][i]]] = i;
        for (int x = 0; x < ni; x++)
            ts_schedule_add(s, x % p->nblocks, x / p->nblocks, pos[x]);
        ts_err e = {0};
        ts_validate_opts vo = {0};
        long first, last;
        if (ts_schedule_tighten(s, &e) == TS_OK && ts_schedule_validate(s, &vo, &e) == TS_OK) {
            ts_schedule_span(s, &first, &last);
            if (best < 0 || last - first < best)
                best = last - first;
        }
        ts_schedule_free(s);
        /* next combination: the devices' permutations as the digits of one counter */
        int d = 0;
        for (; d < D; d++) {
            int *a = perm[d], k = cnt[d], i = k - 2;
            while (i >= 0 && a[i] >= a[i + 1])
                i--;
            if (i >= 0) {
                int j = k - 1;
                while (a[j] <= a[i])
                    j--;
                int t = a[i];
                a[i] = a[j];
                a[j] = t;
                for (int l = i + 1, r = k - 1; l < r; l++, r--)
                    t = a[l], a[l] = a[r], a[r] = t;
                break;
            }
            for (int l = 0; l < k; l++) /* wrapped: back to the first, carry on */
                a[l] = l;
        }
        if (d == D)
            return best;
    }
}

/* The exact search's proof against brute force: on tiny random placements (two devices, blocks
 * on one device each, two micro-batches, a capacity per device), whatever it proves minimal is
 * the brute-force optimum, a better schedule it returns validates, and from an incumbent above
 * the optimum it reaches the optimum. */
static void test_exact_against_brute_force(void **state)
{
    (void)state;
    uint64_t seed = 77;
    int proven = 0, improved = 0, checked = 0;
    for (int iter = 0; iter < 60; iter++) {
        int nb = rint_(&seed, 2, 4), n = 2;
        ts_placement *p = ts_placement_new("tiny", 2);
        for (int i = 0; i < nb; i++) {
            char id[8];
            snprintf(id, sizeof id, "b%d", i);
            int dev = i < 2 ? i : rint_(&seed, 0, 1), mem = i < 2 ? rint_(&seed, 0, 2) : 0;
            ts_placement_add_block(p, id, TS_KIND_FORWARD, rint_(&seed, 1, 3), mem, 1, &dev);
            if (i > 0)
                ts_placement_add_edge(p, rint_(&seed, 0, i - 1), i, rint_(&seed, 0, 1), 0);
        }
        /* each device frees what it allocates, in its last block */
        for (int d = 0; d < 2; d++) {
            int net = 0, last = -1;
            for (int i = 0; i < nb; i++)
                if (p->blocks[i].devices[0] == d)
                    net += p->blocks[i].memory, last = i;
            if (last >= 0 && net > 0)
                p->blocks[last].memory -= net;
        }
        long cap[2] = {rint_(&seed, 1, 4), rint_(&seed, 1, 4)};
        long opt = brute_force(p, n, cap);
        ts_meter m;
        ts_meter_init(&m, 0);
        ts_budget b;
        ts_budget_init(&b, &m, 30);
        ts_exact_opts eo = {n, cap, 0, opt >= 0 ? opt + rint_(&seed, 0, 3) : 40, 50000000L, &b};
        ts_schedule *better = NULL, *again = NULL;
        ts_exact_res r, r2;
        ts_err e = {0};
        assert_int_equal(ts_exact_search(p, &eo, &better, &r, &e), TS_OK);
        assert_true(r.run);
        /* the same effort and the same answer a second time (a count, not a clock) */
        assert_int_equal(ts_exact_search(p, &eo, &again, &r2, &e), TS_OK);
        assert_int_equal(r2.effort, r.effort);
        assert_int_equal(r2.best, r.best);
        assert_int_equal(r2.proven, r.proven);
        assert_true((again == NULL) == (better == NULL));
        for (int i = 0; again && i < again->nentries; i++)
            assert_int_equal(again->entries[i].step, better->entries[i].step);
        ts_schedule_free(again);
        checked++;
        if (r.proven) {
            proven++;
            /* nothing shorter than best: the optimum, or nothing at all below the incumbent */
            if (opt >= 0)
                assert_int_equal(r.best, opt);
            else
                assert_false(r.improved);
        }
        if (better) {
            improved++;
            assert_int_equal(tu_valid_range(better, n, n), 0);
            assert_true(r.best >= opt && opt >= 0);
            ts_schedule_free(better);
        }
        ts_placement_free(p);
    }
    assert_int_equal(checked, 60);
    assert_true(proven >= 55);
    assert_true(improved >= 10);
}

/* The same on tiny pipelines whose memory falls into pairs (the exact model's held-memory
 * orders, exact_model.c): per device an allocating forward and the backward that frees it
 * (F0 F1 on devices 0 and 1, then B1 B0), a block without memory on device 0, random spans and
 * delays, an edge of distance 1 now and then, a capacity of 1 to 3 per device (1: no two
 * allocations together), two micro-batches (brute force tries 6! x 4! orders). */
static void test_exact_pairs_against_brute_force(void **state)
{
    (void)state;
    uint64_t seed = 2026;
    int proven = 0, above = 0;
    for (int iter = 0; iter < 40; iter++) {
        int n = 2, mem = rint_(&seed, 1, 2);
        ts_placement *p = ts_placement_new("pairs", 2);
        static const char *const ids[] = {"F0", "F1", "B1", "B0", "X"};
        static const int dev[] = {0, 1, 1, 0, 0};
        for (int i = 0; i < 5; i++) {
            int m = i == 4 ? 0 : i < 2 ? mem : -mem;
            ts_placement_add_block(p, ids[i], i < 2 ? TS_KIND_FORWARD : TS_KIND_BACKWARD,
                                   rint_(&seed, 1, 3), m, 1, &dev[i]);
        }
        for (int i = 0; i < 3; i++)
            ts_placement_add_edge(p, i, i + 1, rint_(&seed, 0, 1), 0);
        ts_placement_add_edge(p, 0, 4, 0, 0);
        if (rint_(&seed, 0, 2) == 0)
            ts_placement_add_edge(p, 3, 0, 0, 1);
        long cap[2] = {mem * rint_(&seed, 1, 3), mem * rint_(&seed, 1, 2)};
        long opt = brute_force(p, n, cap);
        assert_true(opt > 0);
        ts_meter m;
        ts_meter_init(&m, 0);
        ts_budget b;
        ts_budget_init(&b, &m, 60);
        ts_exact_opts eo = {n, cap, 0, opt + rint_(&seed, 0, 3), 50000000L, &b};
        ts_schedule *better = NULL;
        ts_exact_res r;
        ts_err e = {0};
        assert_int_equal(ts_exact_search(p, &eo, &better, &r, &e), TS_OK);
        assert_true(r.run);
        if (r.proven) {
            proven++;
            if (r.best != opt)
                fail_msg("iter %d: the exact search proves %ld, brute force finds %ld", iter,
                         r.best, opt);
        }
        if (better) {
            assert_int_equal(tu_valid_range(better, n, n), 0);
            above += eo.hi > opt;
            ts_schedule_free(better);
        }
        ts_placement_free(p);
    }
    assert_true(proven >= 38);
    assert_true(above >= 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_placements),
        cmocka_unit_test(test_random_per_device),
        cmocka_unit_test(test_exact_against_brute_force),
        cmocka_unit_test(test_exact_pairs_against_brute_force),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
