/* Blocks on every device taken out of a placement and put back as pauses (see ts_shard.h). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "ts_shard.h"

void ts_unshard_free(ts_unshard *u)
{
    ts_placement_free(u->reduced);
    free(u->to_reduced);
    free(u->removed);
    memset(u, 0, sizeof *u);
}

/* Adds src -> dst unless the same pair at the same distance is there among edges [from, end)
 * (src's own, added last); then the longer delay holds. Returns -1 on allocation failure. */
static int ts_unshard_edge(ts_placement *q, int from, int src, int dst, long delay, long distance)
{
    if (delay > INT_MAX || distance > INT_MAX)
        return 0; /* no schedule waits that long: the edge cannot bind */
    for (int i = from; i < q->nedges; i++) {
        ts_edge *x = &q->edges[i];
        if (x->src == src && x->dst == dst && x->distance == distance) {
            if (delay > x->delay)
                x->delay = (int)delay;
            return 0;
        }
    }
    return ts_placement_add_edge(q, src, dst, (int)delay, (int)distance) < 0 ? -1 : 0;
}

typedef struct {
    const int *off, *list; /* out-edges by source (ts_placement_out_edges) */
    int *stack; /* removed blocks to expand */
    long *delay, *dist; /* accumulated along the path to each stacked block */
    int *visited; /* removed blocks reached from the current source */
    char *seen;
} ts_unshard_walk;

/* The reduced edges out of kept block a: every path a -> removed ... -> kept block becomes one
 * edge, its delays and distances summed. */
static int ts_unshard_edges_from(const ts_placement *p, ts_unshard *u, ts_unshard_walk *w, int a)
{
    int top = 0, nvisit = 0, rc = 0, from = u->reduced->nedges;
    w->stack[top] = a;
    w->delay[top] = w->dist[top] = 0;
    top++;
    while (top > 0 && !rc) {
        top--;
        int b = w->stack[top];
        long d = w->delay[top], m = w->dist[top];
        for (int k = w->off[b]; k < w->off[b + 1] && !rc; k++) {
            const ts_edge *x = &p->edges[w->list[k]];
            if (u->to_reduced[x->dst] >= 0) {
                rc = ts_unshard_edge(u->reduced, from, u->to_reduced[a], u->to_reduced[x->dst],
                                     d + x->delay, m + x->distance);
            } else if (!w->seen[x->dst]) {
                w->seen[x->dst] = 1;
                w->visited[nvisit++] = x->dst;
                w->stack[top] = x->dst;
                w->delay[top] = d + x->delay;
                w->dist[top] = m + x->distance;
                top++;
            }
        }
    }
    for (int i = 0; i < nvisit; i++)
        w->seen[w->visited[i]] = 0;
    return rc;
}

static int ts_unshard_reduce(const ts_placement *p, ts_unshard *u)
{
    u->reduced = ts_placement_new(p->name, p->ndevs);
    if (!u->reduced)
        return -1;
    for (int b = 0; b < p->nblocks; b++) {
        const ts_block *x = &p->blocks[b];
        if (u->to_reduced[b] >= 0 &&
            (u->to_reduced[b] = ts_placement_add_block(u->reduced, x->id, x->kind, x->span,
                                                       x->memory, x->ndevices, x->devices)) < 0)
            return -1;
    }
    size_t n = (size_t)p->nblocks + 1;
    ts_unshard_walk w = {0};
    int *off = NULL, *list = NULL, rc = -1;
    w.stack = malloc(n * sizeof(int));
    w.visited = malloc(n * sizeof(int));
    w.delay = malloc(n * sizeof(long));
    w.dist = malloc(n * sizeof(long));
    w.seen = calloc(n, 1);
    if (w.stack && w.visited && w.delay && w.dist && w.seen &&
        !ts_placement_out_edges(p, &off, &list)) {
        w.off = off;
        w.list = list;
        rc = 0;
        for (int b = 0; b < p->nblocks && !rc; b++)
            if (u->to_reduced[b] >= 0)
                rc = ts_unshard_edges_from(p, u, &w, b);
    }
    free(off);
    free(list);
    free(w.stack);
    free(w.visited);
    free(w.delay);
    free(w.dist);
    free(w.seen);
    return rc;
}

int ts_unshard_make(const ts_placement *p, ts_unshard *u, ts_err *e)
{
    memset(u, 0, sizeof *u);
    int nb = p->nblocks, nrem = 0;
    for (int b = 0; b < nb; b++)
        nrem += p->ndevs >= 2 && p->blocks[b].ndevices == p->ndevs;
    if (nrem == 0 || nrem == nb)
        return TS_OK;
    int *order = malloc((size_t)nb * sizeof(int));
    u->to_reduced = malloc((size_t)nb * sizeof(int));
    u->removed = malloc((size_t)nrem * sizeof(int));
    if (!order || !u->to_reduced || !u->removed)
        goto oom;
    if (ts_placement_topo(p, order) < 0) { /* a cycle: the checker's business, not ours */
        free(order);
        ts_unshard_free(u);
        return TS_OK;
    }
    for (int i = 0; i < nb; i++) {
        int b = order[i];
        bool rm = p->blocks[b].ndevices == p->ndevs;
        u->to_reduced[b] = rm ? -1 : 0;
        if (rm)
            u->removed[u->nremoved++] = b;
    }
    if (ts_unshard_reduce(p, u))
        goto oom;
    free(order);
    return TS_OK;
oom:
    free(order);
    ts_unshard_free(u);
    return ts_fail(e, TS_ESYS, "unshard: out of memory");
}

typedef struct {
    long t;
    int cls; /* 0: a removed instance, 1: a kept one (a pause goes before what starts with it) */
    int sub; /* order among equals */
    int block, micro; /* in p */
} ts_unshard_item;

static int ts_unshard_cmp(const void *a, const void *b)
{
    const ts_unshard_item *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    if (x->cls != y->cls)
        return x->cls - y->cls;
    return (x->sub > y->sub) - (x->sub < y->sub);
}

typedef struct {
    const ts_unshard *u;
    const ts_placement *p;
    const ts_schedule *r;
    int *index; /* of r */
    int *pos; /* p's nblocks: place in u->removed, or -1 */
    long *t; /* nremoved * N: each removed instance's time in r's timeline */
    long *hi; /* nremoved * N: the latest it may take (LONG_MAX: no bound) */
    int *touch; /* the edges into or out of a removed block */
    int ntouch;
    long quantum; /* >= 1 */
} ts_unshard_ctx;

/* r's start (end when want_end) of p's kept block b at micro m, or -1 when absent. */
static long ts_unshard_at(const ts_unshard_ctx *c, int b, int m, bool want_end)
{
    int n = c->r->nmicros;
    if (m < 0 || m >= n)
        return -1;
    int i = c->index[c->u->to_reduced[b] * n + m];
    if (i < 0)
        return -1;
    return c->r->entries[i].step + (want_end ? c->p->blocks[b].span : 0);
}

/* The latest time removed instance (x at place k, micro m) may take: before every kept block it
 * leads to, directly or through removed ones (with their delays). Needs hi of the removed
 * instances after it. */
static long ts_unshard_latest(const ts_unshard_ctx *c, int k, int m)
{
    const ts_placement *p = c->p;
    int x = c->u->removed[k], n = c->r->nmicros;
    long hi = LONG_MAX;
    for (int i = 0; i < c->ntouch; i++) {
        const ts_edge *g = &p->edges[c->touch[i]];
        if (g->src != x || m + g->distance >= n)
            continue;
        long v = c->pos[g->dst] >= 0 ? c->hi[(long)c->pos[g->dst] * n + m + g->distance]
                                     : ts_unshard_at(c, g->dst, m + g->distance, false);
        if (v >= 0 && v != LONG_MAX && v - g->delay < hi)
            hi = v - g->delay;
    }
    return hi;
}

/* Removed instance (x at place k, micro m): after its inputs end (with their delays), else as
 * late as its outputs allow, else at 0; moved to a multiple of the quantum inside that window
 * when there is one, so that pauses come in batches. Needs t of the removed instances before
 * it and its own hi. */
static long ts_unshard_time(const ts_unshard_ctx *c, int k, int m)
{
    const ts_placement *p = c->p;
    int x = c->u->removed[k], n = c->r->nmicros;
    long lo = LONG_MIN, hi = c->hi[(long)k * n + m], q = c->quantum;
    for (int i = 0; i < c->ntouch; i++) {
        const ts_edge *g = &p->edges[c->touch[i]];
        if (g->dst != x || m - g->distance < 0)
            continue;
        int mm = m - g->distance;
        long v = c->pos[g->src] >= 0 ? c->t[(long)c->pos[g->src] * n + mm]
                                     : ts_unshard_at(c, g->src, mm, true);
        if (v >= 0 && v + g->delay > lo)
            lo = v + g->delay;
    }
    if (lo != LONG_MIN) {
        long up = (lo + q - 1) / q * q;
        return up <= hi ? up : lo;
    }
    if (hi != LONG_MAX)
        return hi >= 0 ? hi / q * q : hi;
    return 0;
}

/* The one sequence: r's instances by start, each removed instance at its time, before what
 * starts then. Returns the items (caller frees), or NULL on allocation failure. */
static ts_unshard_item *ts_unshard_sequence(ts_unshard_ctx *c, long *count)
{
    const ts_unshard *u = c->u;
    const ts_schedule *r = c->r;
    int n = r->nmicros;
    long total = r->nentries + (long)u->nremoved * n, k = 0;
    ts_unshard_item *it = malloc((size_t)(total ? total : 1) * sizeof *it);
    if (!it)
        return NULL;
    for (int m = n - 1; m >= 0; m--)
        for (int j = u->nremoved - 1; j >= 0; j--)
            c->hi[(long)j * n + m] = ts_unshard_latest(c, j, m);
    for (int m = 0; m < n; m++)
        for (int j = 0; j < u->nremoved; j++) {
            long t = ts_unshard_time(c, j, m);
            c->t[(long)j * n + m] = t;
            it[k++] = (ts_unshard_item){t, 0, m * u->nremoved + j, u->removed[j], m};
        }
    int *back = malloc((size_t)u->reduced->nblocks * sizeof(int));
    if (!back) {
        free(it);
        return NULL;
    }
    for (int b = 0; b < c->p->nblocks; b++)
        if (u->to_reduced[b] >= 0)
            back[u->to_reduced[b]] = b;
    for (int i = 0; i < r->nentries; i++) {
        const ts_entry *x = &r->entries[i];
        it[k++] = (ts_unshard_item){x->step, 1, i, back[x->block], x->micro};
    }
    free(back);
    qsort(it, (size_t)k, sizeof *it, ts_unshard_cmp);
    *count = k;
    return it;
}

int ts_unshard_insert(const ts_unshard *u, const ts_placement *p, const ts_schedule *r,
                      long quantum, ts_schedule **out, ts_err *e)
{
    *out = NULL;
    if (!u->reduced || r->placement->nblocks != u->reduced->nblocks)
        return ts_fail(e, TS_EINPUT, "unshard: the schedule is not of the reduced placement");
    int n = r->nmicros;
    ts_unshard_ctx c = {u,
                        p,
                        r,
                        ts_schedule_index(r),
                        malloc((size_t)p->nblocks * sizeof(int)),
                        malloc(((size_t)u->nremoved * (size_t)n + 1) * sizeof(long)),
                        malloc(((size_t)u->nremoved * (size_t)n + 1) * sizeof(long)),
                        malloc(((size_t)p->nedges + 1) * sizeof(int)),
                        0,
                        quantum > 1 ? quantum : 1};
    ts_unshard_item *it = NULL;
    ts_schedule *s = NULL;
    long count = 0;
    int rc = TS_ESYS;
    if (!c.index || !c.pos || !c.t || !c.hi || !c.touch)
        goto done;
    for (int b = 0; b < p->nblocks; b++)
        c.pos[b] = -1;
    for (int j = 0; j < u->nremoved; j++)
        c.pos[u->removed[j]] = j;
    for (int i = 0; i < p->nedges; i++)
        if (c.pos[p->edges[i].src] >= 0 || c.pos[p->edges[i].dst] >= 0)
            c.touch[c.ntouch++] = i;
    if (!(it = ts_unshard_sequence(&c, &count)) || !(s = ts_schedule_new(p, n)))
        goto done;
    /* the step is only the place in the sequence: the replay below makes it a timetable */
    for (long i = 0; i < count; i++)
        if (ts_schedule_add(s, it[i].block, it[i].micro, i))
            goto done;
    rc = ts_schedule_tighten(s, e);
    if (rc == TS_OK) {
        *out = s;
        s = NULL;
    }
done:
    free(c.index);
    free(c.pos);
    free(c.t);
    free(c.hi);
    free(c.touch);
    free(it);
    ts_schedule_free(s);
    return rc == TS_ESYS ? ts_fail(e, TS_ESYS, "unshard: out of memory") : rc;
}
