/* Event replay: every instance starts when its devices have finished the instances before it (in
 * the schedule's per-device order) and its inputs are ready. That is a longest-path computation
 * over the DAG of device-order and dependency arcs, which Kahn's algorithm walks once. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "ts_schedule.h"

typedef struct {
    int *head; /* per node: first arc index, -1 */
    int *next; /* per arc */
    int *to;   /* per arc */
    double *w; /* per arc: extra wait after the source finishes (delay) */
    int narcs, cap;
} ts_graph;

static int ts_graph_arc(ts_graph *g, int from, int to, double w)
{
    if (g->narcs == g->cap) {
        int cap = g->cap ? 2 * g->cap : 256;
        int *nn = realloc(g->next, (size_t)cap * sizeof(int));
        if (!nn)
            return -1;
        g->next = nn;
        int *nt = realloc(g->to, (size_t)cap * sizeof(int));
        if (!nt)
            return -1;
        g->to = nt;
        double *nw = realloc(g->w, (size_t)cap * sizeof(double));
        if (!nw)
            return -1;
        g->w = nw;
        g->cap = cap;
    }
    g->next[g->narcs] = g->head[from];
    g->to[g->narcs] = to;
    g->w[g->narcs] = w;
    g->head[from] = g->narcs++;
    return 0;
}

static void ts_graph_free(ts_graph *g)
{
    free(g->head);
    free(g->next);
    free(g->to);
    free(g->w);
}

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

int ts_simulate(const ts_schedule *s, const ts_sim_opts *o, ts_sim_result *r, ts_err *e)
{
    static const ts_sim_opts defaults = {0};
    const ts_placement *p = s->placement;
    int n = s->nentries;
    if (!o)
        o = &defaults;
    memset(r, 0, sizeof *r);
    ts_graph g = {0};
    int *idx = ts_schedule_index(s), *off = NULL, *order = NULL, *indeg = NULL, *queue = NULL;
    double *dur = malloc((size_t)(n ? n : 1) * sizeof(double));
    r->start = calloc((size_t)(n ? n : 1), sizeof(double));
    r->finish = calloc((size_t)(n ? n : 1), sizeof(double));
    g.head = malloc((size_t)(n ? n : 1) * sizeof(int));
    indeg = calloc((size_t)(n ? n : 1), sizeof(int));
    queue = malloc((size_t)(n ? n : 1) * sizeof(int));
    int rc = TS_OK;
    if (!idx || !dur || !r->start || !r->finish || !g.head || !indeg || !queue ||
        ts_schedule_device_orders(s, &off, &order)) {
        rc = ts_fail(e, TS_ESYS, "out of memory");
        goto out;
    }
    uint64_t rng = (uint64_t)o->seed;
    for (int i = 0; i < n; i++) {
        int b = s->entries[i].block;
        double d = o->duration ? o->duration[b] : (double)p->blocks[b].span;
        if (o->scale)
            d *= o->scale[b];
        if (o->noise > 0) {
            double u = (double)(ts_splitmix(&rng) >> 11) / 9007199254740992.0; /* [0, 1) */
            d *= 1.0 + o->noise * (2.0 * u - 1.0);
        }
        dur[i] = d > 0 ? d : 0;
        g.head[i] = -1;
    }
    for (int d = 0; d < p->ndevs; d++)
        for (int k = off[d] + 1; k < off[d + 1]; k++)
            if (ts_graph_arc(&g, order[k - 1], order[k], 0.0)) {
                rc = ts_fail(e, TS_ESYS, "out of memory");
                goto out;
            }
    for (int i = 0; i < p->nedges; i++) {
        const ts_edge *x = &p->edges[i];
        for (int m = x->distance; m < s->nmicros; m++) {
            int a = idx[(size_t)x->src * s->nmicros + (m - x->distance)];
            int b = idx[(size_t)x->dst * s->nmicros + m];
            if (a < 0 || b < 0) {
                rc = ts_fail(e, TS_ENOANSWER,
                             "cannot simulate an incomplete schedule: instance %s/%d is missing",
                             p->blocks[a < 0 ? x->src : x->dst].id, a < 0 ? m - x->distance : m);
                goto out;
            }
            /* comm_delay models a transfer: blocks on the same devices pass data in place. */
            double comm = ts_same_devices(&p->blocks[x->src], &p->blocks[x->dst]) ? 0.0
                                                                                  : o->comm_delay;
            double delay = o->edge_delay ? o->edge_delay[i] : (double)x->delay;
            if (ts_graph_arc(&g, a, b, delay + comm)) {
                rc = ts_fail(e, TS_ESYS, "out of memory");
                goto out;
            }
        }
    }
    for (int a = 0; a < g.narcs; a++)
        indeg[g.to[a]]++;
    int qh = 0, qt = 0;
    for (int i = 0; i < n; i++)
        if (!indeg[i])
            queue[qt++] = i;
    while (qh < qt) {
        int u = queue[qh++];
        r->finish[u] = r->start[u] + dur[u];
        if (r->finish[u] > r->makespan)
            r->makespan = r->finish[u];
        for (int a = g.head[u]; a >= 0; a = g.next[a]) {
            int v = g.to[a];
            double t = r->finish[u] + g.w[a];
            if (t > r->start[v])
                r->start[v] = t;
            if (--indeg[v] == 0)
                queue[qt++] = v;
        }
    }
    if (qt < n) {
        int stuck = -1;
        for (int i = 0; i < n && stuck < 0; i++)
            if (indeg[i] > 0)
                stuck = i;
        const ts_entry *x = &s->entries[stuck];
        rc = ts_fail(e, TS_ENOANSWER,
                     "the device orders deadlock: %s/%d (step %ld) waits for an instance that its "
                     "devices only run after it", p->blocks[x->block].id, x->micro, x->step);
        goto out;
    }
    /* Makespan counts from the first start so that a shifted schedule measures the same. */
    double first = n ? r->start[0] : 0;
    for (int i = 1; i < n; i++)
        if (r->start[i] < first)
            first = r->start[i];
    r->makespan -= first;
out:
    if (rc)
        ts_sim_result_free(r);
    ts_graph_free(&g);
    free(idx);
    free(off);
    free(order);
    free(indeg);
    free(queue);
    free(dur);
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
