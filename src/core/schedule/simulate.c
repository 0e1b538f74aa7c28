/* Event replay of a schedule: every instance starts when its devices have finished the instances
 * before it (in the schedule's per-device order) and its inputs are ready — the core's one replay
 * (ts_replay) with the durations, noise and transfer delays of the options. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "ts_replay.h"
#include "ts_schedule.h"

/* splitmix64: a small, seedable generator kept in a local state (no global RNG). */
static uint64_t ts_splitmix(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static int ts_same_devices(const ts_block *a, const ts_block *b)
{
    return a->ndevices == b->ndevices &&
           !memcmp(a->devices, b->devices, (size_t)a->ndevices * sizeof(int));
}

void ts_sim_result_free(ts_sim_result *r)
{
    if (!r)
        return;
    free(r->start);
    free(r->finish);
    r->start = r->finish = NULL;
}

/* Each instance's duration: the option's, scaled, with noise; never negative. */
static void ts_sim_durations(const ts_schedule *s, const ts_sim_opts *o, double *dur)
{
    const ts_placement *p = s->placement;
    uint64_t rng = (uint64_t)o->seed;
    for (int i = 0; i < s->nentries; i++) {
        int b = s->entries[i].block;
        double d = o->duration ? o->duration[b] : (double)p->blocks[b].span;
        if (o->scale)
            d *= o->scale[b];
        if (o->noise > 0) {
            double u = (double)(ts_splitmix(&rng) >> 11) / 9007199254740992.0; /* [0, 1) */
            d *= 1.0 + o->noise * (2.0 * u - 1.0);
        }
        dur[i] = d > 0 ? d : 0;
    }
}

/* Each edge's wait: its delay (or the option's), plus comm_delay for a transfer (blocks on the
 * same devices pass data in place). */
static void ts_sim_edge_waits(const ts_placement *p, const ts_sim_opts *o, double *wait)
{
    for (int i = 0; i < p->nedges; i++) {
        const ts_edge *x = &p->edges[i];
        double comm = ts_same_devices(&p->blocks[x->src], &p->blocks[x->dst]) ? 0.0 : o->comm_delay;
        wait[i] = (o->edge_delay ? o->edge_delay[i] : (double)x->delay) + comm;
    }
}

/* Every instance an edge needs is in the schedule. */
static int ts_sim_complete(const ts_schedule *s, const int *idx, ts_err *e)
{
    const ts_placement *p = s->placement;
    for (int i = 0; i < p->nedges; i++) {
        const ts_edge *x = &p->edges[i];
        for (int m = x->distance; m < s->nmicros; m++) {
            int a = idx[(size_t)x->src * s->nmicros + (m - x->distance)];
            int b = idx[(size_t)x->dst * s->nmicros + m];
            if (a < 0 || b < 0)
                return ts_fail(e, TS_ENOANSWER,
                               "cannot simulate an incomplete schedule: instance %s/%d is missing",
                               p->blocks[a < 0 ? x->src : x->dst].id, a < 0 ? m - x->distance : m);
        }
    }
    return TS_OK;
}

/* Finish times and the makespan, counted from the first start so that a shifted schedule
 * measures the same. */
static void ts_sim_finish(int n, const double *dur, ts_sim_result *r)
{
    double first = n ? r->start[0] : 0, last = 0;
    for (int i = 0; i < n; i++) {
        r->finish[i] = r->start[i] + dur[i];
        if (r->finish[i] > last)
            last = r->finish[i];
        if (r->start[i] < first)
            first = r->start[i];
    }
    r->makespan = last - first;
}

int ts_simulate(const ts_schedule *s, const ts_sim_opts *o, ts_sim_result *r, ts_err *e)
{
    static const ts_sim_opts defaults = {0};
    const ts_placement *p = s->placement;
    int n = s->nentries, stuck = -1;
    if (!o)
        o = &defaults;
    memset(r, 0, sizeof *r);
    int *idx = ts_schedule_index(s), *off = NULL, *order = NULL;
    double *dur = malloc((size_t)(n ? n : 1) * sizeof(double));
    double *wait = malloc((size_t)(p->nedges ? p->nedges : 1) * sizeof(double));
    r->start = calloc((size_t)(n ? n : 1), sizeof(double));
    r->finish = calloc((size_t)(n ? n : 1), sizeof(double));
    int rc = TS_OK;
    if (!idx || !dur || !wait || !r->start || !r->finish ||
        ts_schedule_device_orders(s, &off, &order)) {
        rc = ts_fail(e, TS_ESYS, "out of memory");
        goto out;
    }
    if ((rc = ts_sim_complete(s, idx, e)))
        goto out;
    ts_sim_durations(s, o, dur);
    ts_sim_edge_waits(p, o, wait);
    ts_replay_in in = {p, s->nmicros, n, idx, off, order, dur, wait};
    rc = ts_replay(&in, r->start, &stuck, e);
    if (rc == TS_ENOANSWER) {
        const ts_entry *x = &s->entries[stuck];
        rc = ts_fail(e, TS_ENOANSWER,
                     "the device orders deadlock: %s/%d (step %ld) waits for an instance that its "
                     "devices only run after it",
                     p->blocks[x->block].id, x->micro, x->step);
        goto out;
    }
    if (rc == TS_OK)
        ts_sim_finish(n, dur, r);
out:
    if (rc)
        ts_sim_result_free(r);
    free(idx);
    free(off);
    free(order);
    free(dur);
    free(wait);
    return rc;
}

int ts_schedule_tighten(ts_schedule *s, ts_err *e)
{
    ts_sim_result r;
    int rc = ts_simulate(s, NULL, &r, e);
    if (rc)
        return rc;
    int changed = 0;
    for (int i = 0; i < s->nentries; i++) {
        long t = lround(r.start[i]);
        if (t != s->entries[i].step)
            changed = 1;
        s->entries[i].step = t;
    }
    ts_sim_result_free(&r);
    if (changed && s->has_repetend)
        ts_schedule_clear_repetend(s);
    ts_schedule_sort(s);
    return TS_OK;
}

int ts_schedule_at(const ts_schedule *s, int n, bool replayed, ts_schedule **out, ts_err *e)
{
    ts_schedule *u = NULL;
    *out = NULL;
    if (n != s->nmicros && (s->has_repetend || n < s->nmicros)) {
        if (ts_schedule_unroll(s, n, &u, e) != TS_OK)
            return e ? e->code : TS_EINPUT;
    } else if (!(u = ts_schedule_clone(s))) {
        return ts_fail(e, TS_ESYS, "schedule: out of memory");
    }
    if (replayed) {
        ts_err te = {0};
        ts_schedule_tighten(u, &te); /* a failure leaves u as it was: the planned steps stand */
    }
    *out = u;
    return TS_OK;
}
