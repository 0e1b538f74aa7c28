/* Helpers shared by the tests of the core and of the solver: capacities per device, build a
 * built-in placement, check a schedule for every N, and measure it at N micro-batches the way
 * `tessel search` does. Core only, so that the core's tests build without the solver. */
#ifndef CORE_TESTUTIL_H
#define CORE_TESTUTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "ts_placement.h"
#include "ts_schedule.h"

/* The same capacity v on every device (the constructions and the solver take one per device):
 * buf holds TU_CAPS entries. */
#define TU_CAPS 256
static inline const long *tu_caps(long *buf, int ndevs, long v)
{
    for (int d = 0; d < ndevs && d < TU_CAPS; d++)
        buf[d] = v;
    return buf;
}

static inline ts_placement *tu_builtin(const char *name, int ndevs, bool infer)
{
    ts_builtin_opts bo = {ndevs, infer, 0};
    ts_placement *p = NULL;
    ts_err e = {0};
    if (ts_builtin_make(name, &bo, &p, &e)) {
        fprintf(stderr, "built-in %s: %s\n", name, e.msg);
        return NULL;
    }
    return p;
}

/* Validates s unrolled to every N in [lo, hi] (hi < s->nmicros: just s). Returns 0 when all are
 * valid, else prints the first failure and returns -1. */
static inline int tu_valid_range(const ts_schedule *s, int lo, int hi)
{
    ts_err e = {0};
    ts_validate_opts vo = {0};
    if (ts_schedule_validate(s, &vo, &e)) {
        fprintf(stderr, "invalid at N = %d: %s\n", s->nmicros, e.msg);
        return -1;
    }
    if (!s->has_repetend)
        return 0;
    for (int n = lo < s->nmicros ? s->nmicros : lo; n <= hi; n++) {
        ts_schedule *u = NULL;
        ts_err_clear(&e);
        if (ts_schedule_unroll(s, n, &u, &e) || ts_schedule_validate(u, &vo, &e)) {
            fprintf(stderr, "invalid at N = %d: %s\n", n, e.msg);
            ts_schedule_free(u);
            return -1;
        }
        ts_schedule_free(u);
    }
    return 0;
}

/* Makespan at n micro-batches after replaying each device's order as early as possible; peak
 * memory per device into peak (ndevs entries, may be NULL). -1 on failure. */
static inline long tu_makespan(const ts_schedule *s, int n, long *peak)
{
    ts_err e = {0};
    ts_schedule *u = NULL;
    if (s->has_repetend && n > s->nmicros) {
        if (ts_schedule_unroll(s, n, &u, &e))
            return -1;
    } else {
        u = ts_schedule_clone(s);
    }
    if (!u)
        return -1;
    ts_schedule_tighten(u, &e); /* keeps the schedule as it is when it cannot */
    ts_metrics m = {0};
    long r = -1;
    if (!ts_schedule_metrics(u, &m)) {
        r = m.makespan;
        if (peak)
            for (int d = 0; d < s->placement->ndevs; d++)
                peak[d] = m.peak[d];
    }
    ts_metrics_free(&m);
    ts_schedule_free(u);
    return r;
}

/* Writes s to a file and reads it back: the file must load, validate and unroll the same. */
static inline int tu_roundtrip(const ts_schedule *s)
{
    char path[] = "/tmp/tessel-solver-test-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    close(fd);
    ts_err e = {0};
    ts_schedule *r = NULL;
    int rc = ts_schedule_save(s, path, &e) || ts_schedule_load(path, &r, &e);
    remove(path);
    if (rc) {
        fprintf(stderr, "round trip: %s\n", e.msg);
        return -1;
    }
    rc = r->nentries == s->nentries && r->has_repetend == s->has_repetend ? 0 : -1;
    if (!rc)
        rc = tu_valid_range(r, r->nmicros, r->nmicros + 3);
    ts_schedule_free(r);
    return rc;
}

#endif
