/* Folding r micro-batches into one (ts_fold.h) and blocks on every device as pauses
 * (ts_shard.h).
 *
 * Folding is a relabelling: a schedule of p with r*M micro-batches and the schedule of the fold
 * with M micro-batches it corresponds to are valid or invalid together, distance edges
 * included. Taking out the blocks on every device and putting them back must give a valid
 * schedule of the original placement from any valid schedule of the reduced one. */
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
#include "ts_fold.h"
#include "ts_improve.h"
#include "ts_shard.h"
#include "ts_schedule.h"

#include "random_placement.h"

static ts_placement *builtin(const char *name, int D)
{
    ts_builtin_opts o = {D, false, 0};
    ts_placement *p = NULL;
    ts_err e = {0};
    assert_int_equal(ts_builtin_make(name, &o, &p, &e), TS_OK);
    return p;
}

/* The inverse of ts_schedule_unfold, written independently: micro-batch m of p is copy m % r
 * of folded micro-batch m / r. */
static ts_schedule *fold_schedule(const ts_schedule *s, const ts_placement *q, int r)
{
    int nb = s->placement->nblocks;
    ts_schedule *f = ts_schedule_new(q, s->nmicros / r);
    for (int i = 0; i < s->nentries; i++) {
        const ts_entry *x = &s->entries[i];
        if (x->micro < f->nmicros * r)
            assert_int_equal(
                ts_schedule_add(f, (x->micro % r) * nb + x->block, x->micro / r, x->step), 0);
    }
    return f;
}

static int valid(const ts_schedule *s)
{
    ts_validate_opts vo = {0};
    vo.ignore_memory = true;
    ts_err e = {0};
    return ts_schedule_validate(s, &vo, &e) == TS_OK;
}

static void test_fold_shape(void **state)
{
    (void)state;
    ts_placement *p = builtin("mshape", 4), *q = NULL;
    ts_err e = {0};
    assert_int_equal(ts_placement_fold(p, 3, &q, &e), TS_OK);
    assert_int_equal(q->nblocks, 3 * p->nblocks);
    assert_int_equal(q->nedges, 3 * p->nedges);
    assert_int_equal(q->ndevs, p->ndevs);
    assert_string_equal(q->blocks[p->nblocks + 1].id, "F0#1");
    assert_int_equal(q->blocks[2 * p->nblocks].ndevices, 4);
    assert_int_equal(ts_placement_check(q, "fold", &e), TS_OK);
    ts_placement_free(q);
    assert_int_equal(ts_placement_fold(p, 0, &q, &e), TS_EINPUT);
    assert_int_equal(ts_placement_fold(p, TS_FOLD_MAX + 1, &q, &e), TS_EINPUT);
    assert_null(q);
    ts_placement_free(p);
}

/* On random placements (a distance edge in a quarter of them), a valid schedule of p stays
 * valid folded and unfolds back to itself; moving one instance a step earlier breaks both or
 * neither. */
static void test_fold_random(void **state)
{
    (void)state;
    uint64_t seed = 1234;
    for (int it = 0; it < 200; it++) {
        ts_placement *p = random_placement(&seed), *q = NULL;
        int r = rint_(&seed, 1, 3), m = rint_(&seed, 1, 3);
        ts_err e = {0};
        assert_int_equal(ts_placement_fold(p, r, &q, &e), TS_OK);
        ts_schedule *s = sequential(p, r * m), *f = fold_schedule(s, q, r), *u = NULL;
        assert_true(valid(f));
        assert_int_equal(ts_schedule_unfold(f, p, r, &u, &e), TS_OK);
        assert_int_equal(u->nmicros, s->nmicros);
        assert_int_equal(u->nentries, s->nentries);
        ts_schedule_sort(s);
        for (int i = 0; i < s->nentries; i++) {
            assert_int_equal(u->entries[i].block, s->entries[i].block);
            assert_int_equal(u->entries[i].micro, s->entries[i].micro);
            assert_int_equal(u->entries[i].step, s->entries[i].step);
        }
        /* a broken schedule: every instance of the last micro-batch one step earlier */
        for (int i = 0; i < s->nentries; i++)
            if (s->entries[i].micro == s->nmicros - 1 && s->entries[i].step > 0)
                s->entries[i].step--;
        ts_schedule *g = fold_schedule(s, q, r);
        assert_int_equal(valid(g), valid(s));
        ts_schedule_free(g);
        ts_schedule_free(u);
        ts_schedule_free(f);
        ts_schedule_free(s);
        ts_placement_free(q);
        ts_placement_free(p);
    }
}

static long makespan(const ts_schedule *s)
{
    long a, b;
    ts_schedule_span(s, &a, &b);
    return b - a;
}

/* mshape and nnshape without their sharded blocks are a V; the pauses put back give valid
 * schedules, and batched pauses cost their spans plus a little per batch. */
static void test_unshard_builtins(void **state)
{
    (void)state;
    const char *names[] = {"mshape", "nnshape"};
    for (int i = 0; i < 2; i++) {
        ts_placement *p = builtin(names[i], 8);
        ts_unshard u;
        ts_err e = {0};
        assert_int_equal(ts_unshard_make(p, &u, &e), TS_OK);
        assert_non_null(u.reduced);
        assert_int_equal(u.nremoved, i == 0 ? 2 : 4);
        assert_int_equal(u.reduced->nblocks, 16);
        assert_int_equal(u.reduced->nedges, 15); /* one chain F0 .. F7 B7 .. B0 */
        ts_schedule *r = NULL;
        assert_int_equal(ts_baseline_make("1f1b", u.reduced, 32, &r, &e), TS_OK);
        for (long q = 1; q <= 256; q *= 4) {
            ts_schedule *s = NULL;
            assert_int_equal(ts_unshard_insert(&u, p, r, q, &s, &e), TS_OK);
            assert_true(valid(s));
            assert_int_equal(s->nentries, 32 * p->nblocks);
            /* at least the pauses' spans; at most a block's span (3) lost per pause */
            long base = makespan(r), pauses = 32L * u.nremoved;
            assert_true(makespan(s) >= base + pauses);
            assert_true(makespan(s) <= base + 4 * pauses);
            if (i == 0 && q == 256) /* sources and sinks batch: little is lost */
                assert_true(makespan(s) <= base + pauses + 2 * (base / q + 2));
            ts_schedule_free(s);
        }
        ts_schedule_free(r);
        ts_unshard_free(&u);
        ts_placement_free(p);
    }
}

/* A random placement with some blocks on every device: whatever valid schedule of the reduced
 * placement, the pauses put back give a valid schedule of p. */
static void test_unshard_random(void **state)
{
    (void)state;
    uint64_t seed = 99;
    int tried = 0;
    for (int it = 0; it < 400; it++) {
        ts_placement *p = random_placement(&seed);
        if (p->ndevs >= 2)
            for (int b = 0; b < p->nblocks; b++)
                if (rint_(&seed, 0, 3) == 0) { /* widen some blocks to every device */
                    free(p->blocks[b].devices);
                    p->blocks[b].devices = malloc((size_t)p->ndevs * sizeof(int));
                    for (int d = 0; d < p->ndevs; d++)
                        p->blocks[b].devices[d] = d;
                    p->blocks[b].ndevices = p->ndevs;
                }
        ts_unshard u;
        ts_err e = {0};
        assert_int_equal(ts_unshard_make(p, &u, &e), TS_OK);
        if (u.reduced) {
            int n = rint_(&seed, 1, 5);
            ts_schedule *r = sequential(u.reduced, n);
            for (long q = 1; q <= 16; q *= 4) {
                ts_schedule *s = NULL;
                if (ts_unshard_insert(&u, p, r, q, &s, &e) != TS_OK)
                    fail_msg("iteration %d, quantum %ld: %s", it, q, e.msg);
                if (!valid(s)) {
                    ts_validate_opts vo = {0};
                    vo.ignore_memory = true;
                    ts_schedule_validate(s, &vo, &e);
                    fail_msg("iteration %d, quantum %ld: %s", it, q, e.msg);
                }
                /* the pauses term of the bound is sound: no schedule, however improved, is
                 * shorter (the local search walks down towards it) */
                ts_improve_opts io = {.max_moves = 3000, .seed = (unsigned long long)it};
                ts_schedule *t = NULL;
                assert_int_equal(ts_improve(s, &io, &t, NULL, &e), TS_OK);
                long lb = ts_bound_value(p, n, NULL);
                if (makespan(t) < lb)
                    fail_msg("iteration %d: a schedule of %ld under the bound %ld", it, makespan(t),
                             lb);
                ts_schedule_free(t);
                ts_schedule_free(s);
            }
            ts_schedule_free(r);
            tried++;
        }
        ts_unshard_free(&u);
        ts_placement_free(p);
    }
    assert_true(tried > 50);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fold_shape),
        cmocka_unit_test(test_fold_random),
        cmocka_unit_test(test_unshard_builtins),
        cmocka_unit_test(test_unshard_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
