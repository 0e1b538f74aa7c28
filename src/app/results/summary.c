/* The schedule summary: a schedule measured at N micro-batches (unrolled or cut, then replayed as
 * early as each device's order allows) and its figures as JSON, the same for every front end;
 * and the lower bound of a replay with scaled spans and communication delays. */
#include <limits.h>
#include <math.h>
#include <string.h>
#include "ts_bound.h"
#include "ts_results.h"

int ts_results_at(const ts_schedule *s, int n, ts_schedule **at, ts_metrics *m, ts_err *e)
{
    ts_schedule *u;
    int rc = ts_schedule_at(s, n, true, &u, e);
    *at = NULL;
    if (rc != TS_OK)
        return rc == TS_ESYS ? -1 : 1;
    if (ts_schedule_metrics(u, m)) {
        ts_schedule_free(u);
        return -1;
    }
    *at = u;
    return 0;
}

static json_t *ts_results_long_array(const long *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; a && i < n; i++)
        json_array_append_new(a, json_integer(v[i]));
    return a;
}

void ts_results_metrics_json(json_t *j, const ts_metrics *m, int nmicros, int ndevs)
{
    json_object_set_new(j, "micro_batches", json_integer(nmicros));
    json_object_set_new(j, "makespan", json_integer(m->makespan));
    json_object_set_new(j, "bubble_rate", json_real(m->bubble_rate));
    json_object_set_new(j, "lower_bound", json_integer(m->lower_bound));
    json_object_set_new(j, "peak_memory", ts_results_long_array(m->peak, ndevs));
    json_object_set_new(j, "load", ts_results_long_array(m->load, ndevs));
}

void ts_results_fit_json(json_t *j, const ts_metrics *m, int ndevs, const long *cap, int ncap)
{
    bool fits = true;
    for (int d = 0; ncap > 0 && d < ndevs; d++)
        if (m->peak[d] > cap[ncap > 1 ? d : 0])
            fits = false;
    json_object_set_new(
        j, "ratio",
        json_real(m->lower_bound > 0 ? (double)m->makespan / (double)m->lower_bound : 0.0));
    json_object_set_new(j, "fits", json_boolean(fits));
}

json_t *ts_results_summary(const ts_schedule *s, int n, const long *cap, int ncap, ts_err *e)
{
    ts_schedule *u;
    ts_metrics m;
    int rc = ts_results_at(s, n, &u, &m, e);
    if (rc) {
        if (rc < 0)
            ts_fail(e, TS_ESYS, "schedule: out of memory");
        return NULL;
    }
    json_t *j = json_object();
    if (j) {
        ts_results_metrics_json(j, &m, u->nmicros, u->placement->ndevs);
        ts_results_fit_json(j, &m, u->placement->ndevs, cap, ncap);
    }
    ts_metrics_free(&m);
    ts_schedule_free(u);
    if (!j)
        ts_fail(e, TS_ESYS, "schedule: out of memory");
    return j;
}

/* The lower bound of what is replayed: the bound of a copy of the placement whose spans carry the
 * --scale factors and whose edges between different devices carry --comm-delay. Durations are
 * counted in 1/q units so that factors such as 1.5 stay exact (q shrinks where a span would not
 * fit an int) and rounded down, so that the result stays a lower bound. */
double ts_results_sim_lower_bound(const ts_placement *p, int n, const double *scale, double comm)
{
    for (double q = 1000; q >= 1; q /= 10) {
        ts_placement *c = ts_placement_clone(p);
        if (!c)
            return -1;
        int fits = 1;
        for (int b = 0; b < c->nblocks && fits; b++) {
            double v = floor(p->blocks[b].span * scale[b] * q);
            fits = v <= INT_MAX;
            c->blocks[b].span = fits ? (int)v : 0;
        }
        for (int i = 0; i < c->nedges && fits; i++) {
            const ts_edge *x = &p->edges[i];
            const ts_block *a = &p->blocks[x->src], *b = &p->blocks[x->dst];
            int same = a->ndevices == b->ndevices &&
                       !memcmp(a->devices, b->devices, (size_t)a->ndevices * sizeof(int));
            double v = floor((x->delay + (same ? 0.0 : comm)) * q);
            fits = v <= INT_MAX;
            c->edges[i].delay = fits ? (int)v : 0;
        }
        long lb = fits ? ts_lower_bound(c, n) : -1;
        ts_placement_free(c);
        if (fits)
            return lb < 0 ? -1 : (double)lb / q;
    }
    return -1;
}
