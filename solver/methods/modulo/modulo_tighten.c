/* Shortening the fill and drain of a modulo schedule without touching its repetend.
 *
 * The core's ts_schedule_tighten moves every instance as early as possible, which breaks the
 * window's periodicity and so drops the repetend. Here the window stays where it is: warm-up
 * instances move as late as their device successors and dependency successors allow, and
 * cool-down instances as early as their predecessors allow. Each device keeps its order, so each
 * device's running memory visits the same values (same peaks). The caller then checks the result
 * by unrolling and validating it, and keeps the plain timetable if anything fails. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "modulo_internal.h"

typedef struct {
    int entry;
    long step;
} ts_tkey;

static int ts_cmp_tkey(const void *a, const void *b)
{
    const ts_tkey *x = a, *y = b;
    return (x->step > y->step) - (x->step < y->step);
}

/* What the tightening's steps share. */
typedef struct {
    const ts_schedule *s;
    const ts_placement *p;
    long P;
    int n, nb, K;
    int *idx, *off, *ord; /* instance index; each device's order of entries */
    long *nw, *base; /* new steps; each block's micro-batch 0 step */
    int *oo, *io, *oe, *ie; /* edges by source (out) and by destination (in), CSR over edges */
    int *posd, *first, *slots; /* device of each order position; each entry's positions */
    ts_tkey *keys; /* entries by step */
} ts_tstate;

/* Edges by source and by destination. -1 on allocation failure. */
static int ts_tighten_edges(ts_tstate *T)
{
    const ts_placement *p = T->p;
    int nb = T->nb;
    for (int k = 0; k < p->nedges; k++) {
        T->oo[p->edges[k].src + 1]++;
        T->io[p->edges[k].dst + 1]++;
    }
    for (int b = 0; b < nb; b++) {
        T->oo[b + 1] += T->oo[b];
        T->io[b + 1] += T->io[b];
    }
    int *fo = malloc((size_t)(nb ? nb : 1) * sizeof(int));
    int *fi = malloc((size_t)(nb ? nb : 1) * sizeof(int));
    if (!fo || !fi) {
        free(fo), free(fi);
        return -1;
    }
    memcpy(fo, T->oo, (size_t)nb * sizeof(int));
    memcpy(fi, T->io, (size_t)nb * sizeof(int));
    for (int k = 0; k < p->nedges; k++) {
        T->oe[fo[p->edges[k].src]++] = k;
        T->ie[fi[p->edges[k].dst]++] = k;
    }
    free(fo), free(fi);
    return 0;
}

/* Position of each entry in each of its devices' orders, for next/prev lookups:
 * slots[first[x] + i] = position in ord of entry x on its i-th device. -1 on allocation
 * failure. */
static int ts_tighten_slots(ts_tstate *T)
{
    const ts_placement *p = T->p;
    int n = T->n, total = T->off[p->ndevs];
    T->posd = malloc((size_t)(total ? total : 1) * sizeof(int));
    T->first = malloc((size_t)(n ? n : 1) * sizeof(int));
    T->slots = malloc((size_t)(total ? total : 1) * sizeof(int));
    int *fill = calloc((size_t)(n ? n : 1), sizeof(int));
    if (!T->posd || !T->first || !T->slots || !fill) {
        free(fill);
        return -1;
    }
    int acc = 0;
    for (int x = 0; x < n; x++) {
        T->first[x] = acc;
        acc += p->blocks[T->s->entries[x].block].ndevices;
    }
    for (int d = 0; d < p->ndevs; d++)
        for (int i = T->off[d]; i < T->off[d + 1]; i++) {
            int x = T->ord[i];
            T->slots[T->first[x] + fill[x]++] = i;
            T->posd[i] = d;
        }
    free(fill);
    return 0;
}

/* Warm-up, latest first: as late as successors allow. */
static void ts_tighten_warmup(ts_tstate *T, long W0)
{
    const ts_placement *p = T->p;
    const ts_schedule *s = T->s;
    int K = T->K;
    for (int i = T->n - 1; i >= 0; i--) {
        int x = T->keys[i].entry;
        if (s->entries[x].step >= W0)
            continue;
        int b = s->entries[x].block, m = s->entries[x].micro;
        long span = p->blocks[b].span, lim = LONG_MAX;
        for (int k = 0; k < p->blocks[b].ndevices; k++) {
            int at = T->slots[T->first[x] + k], d = T->posd[at];
            if (at + 1 < T->off[d + 1] && T->nw[T->ord[at + 1]] - span < lim)
                lim = T->nw[T->ord[at + 1]] - span;
        }
        for (int q = T->oo[b]; q < T->oo[b + 1]; q++) {
            const ts_edge *g = &p->edges[T->oe[q]];
            int mm = m + g->distance;
            long succ = mm < K && T->idx[g->dst * K + mm] >= 0 ? T->nw[T->idx[g->dst * K + mm]]
                                                               : T->base[g->dst] + (long)mm * T->P;
            if (succ - span - g->delay < lim)
                lim = succ - span - g->delay;
        }
        if (lim != LONG_MAX && lim > T->nw[x])
            T->nw[x] = lim;
    }
}

/* Cool-down, earliest first: as early as predecessors allow. */
static void ts_tighten_cooldown(ts_tstate *T, long W1)
{
    const ts_placement *p = T->p;
    const ts_schedule *s = T->s;
    int K = T->K;
    for (int i = 0; i < T->n; i++) {
        int x = T->keys[i].entry;
        if (s->entries[x].step < W1)
            continue;
        int b = s->entries[x].block, m = s->entries[x].micro;
        long lo = LONG_MIN;
        for (int k = 0; k < p->blocks[b].ndevices; k++) {
            int at = T->slots[T->first[x] + k], d = T->posd[at];
            if (at > T->off[d]) {
                int y = T->ord[at - 1];
                long end = T->nw[y] + p->blocks[s->entries[y].block].span;
                if (end > lo)
                    lo = end;
            }
        }
        for (int q = T->io[b]; q < T->io[b + 1]; q++) {
            const ts_edge *g = &p->edges[T->ie[q]];
            int mm = m - g->distance;
            if (mm < 0)
                continue;
            int y = T->idx[g->src * K + mm];
            long st = y >= 0 ? T->nw[y] : T->base[g->src] + (long)mm * T->P;
            long end = st + p->blocks[g->src].span + g->delay;
            if (end > lo)
                lo = end;
        }
        if (lo != LONG_MIN && lo < T->nw[x])
            T->nw[x] = lo;
    }
}

int ts_modulo_tighten(ts_schedule *s, long P, ts_err *e)
{
    const ts_placement *p = s->placement;
    int n = s->nentries, nb = p->nblocks;
    if (!s->has_repetend)
        return ts_fail(e, TS_EINPUT, "internal: modulo tightening needs a repetend");
    size_t ne = (size_t)(p->nedges ? p->nedges : 1);
    ts_tstate T = {.s = s, .p = p, .P = P, .n = n, .nb = nb, .K = s->nmicros};
    T.idx = ts_schedule_index(s);
    T.nw = malloc((size_t)(n ? n : 1) * sizeof(long));
    T.base = malloc((size_t)(nb ? nb : 1) * sizeof(long));
    T.keys = malloc((size_t)(n ? n : 1) * sizeof(ts_tkey));
    T.oo = calloc((size_t)nb + 1, sizeof(int));
    T.io = calloc((size_t)nb + 1, sizeof(int));
    T.oe = malloc(ne * sizeof(int));
    T.ie = malloc(ne * sizeof(int));
    int rc = TS_OK;
    if (!T.idx || !T.nw || !T.base || !T.keys || !T.oo || !T.io || !T.oe || !T.ie ||
        ts_schedule_device_orders(s, &T.off, &T.ord) || ts_tighten_edges(&T) ||
        ts_tighten_slots(&T)) {
        rc = ts_fail(e, TS_ESYS, "out of memory");
        goto done;
    }
    for (int x = 0; x < n; x++) {
        T.nw[x] = s->entries[x].step;
        T.keys[x] = (ts_tkey){x, s->entries[x].step};
    }
    for (int b = 0; b < nb; b++) {
        int x = T.idx[b * T.K + 0];
        T.base[b] = x >= 0 ? s->entries[x].step : 0;
    }
    qsort(T.keys, (size_t)n, sizeof *T.keys, ts_cmp_tkey);
    ts_tighten_warmup(&T, s->rep.start);
    ts_tighten_cooldown(&T, s->rep.end);
    for (int x = 0; x < n; x++)
        s->entries[x].step = T.nw[x];
    ts_schedule_sort(s);
    ts_schedule_normalize(s);
done:
    free(T.idx), free(T.off), free(T.ord), free(T.nw), free(T.base), free(T.keys);
    free(T.oo), free(T.io), free(T.oe), free(T.ie);
    free(T.posd), free(T.first), free(T.slots);
    return rc;
}
