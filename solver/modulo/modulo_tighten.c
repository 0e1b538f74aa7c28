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

int ts_modulo_tighten(ts_schedule *s, long P, ts_err *e)
{
    const ts_placement *p = s->placement;
    int n = s->nentries, nb = p->nblocks, K = s->nmicros;
    if (!s->has_repetend)
        return ts_fail(e, TS_EINPUT, "internal: modulo tightening needs a repetend");
    long W0 = s->rep.start, W1 = s->rep.end;
    int *idx = ts_schedule_index(s);
    int *off = NULL, *ord = NULL;
    long *nw = malloc((size_t)(n ? n : 1) * sizeof(long));
    long *base = malloc((size_t)(nb ? nb : 1) * sizeof(long));
    ts_tkey *keys = malloc((size_t)(n ? n : 1) * sizeof(ts_tkey));
    /* Edges by source (out) and by destination (in), as CSR over edge indices. */
    int *oo = calloc((size_t)nb + 1, sizeof(int)), *io = calloc((size_t)nb + 1, sizeof(int));
    int *oe = malloc((size_t)(p->nedges ? p->nedges : 1) * sizeof(int));
    int *ie = malloc((size_t)(p->nedges ? p->nedges : 1) * sizeof(int));
    int rc = TS_OK;
    if (!idx || !nw || !base || !keys || !oo || !io || !oe || !ie ||
        ts_schedule_device_orders(s, &off, &ord)) {
        rc = ts_fail(e, TS_ESYS, "out of memory");
        goto done;
    }
    for (int k = 0; k < p->nedges; k++) {
        oo[p->edges[k].src + 1]++;
        io[p->edges[k].dst + 1]++;
    }
    for (int b = 0; b < nb; b++) {
        oo[b + 1] += oo[b];
        io[b + 1] += io[b];
    }
    {
        int *fo = malloc((size_t)(nb ? nb : 1) * sizeof(int));
        int *fi = malloc((size_t)(nb ? nb : 1) * sizeof(int));
        if (!fo || !fi) {
            free(fo), free(fi);
            rc = ts_fail(e, TS_ESYS, "out of memory");
            goto done;
        }
        memcpy(fo, oo, (size_t)nb * sizeof(int));
        memcpy(fi, io, (size_t)nb * sizeof(int));
        for (int k = 0; k < p->nedges; k++) {
            oe[fo[p->edges[k].src]++] = k;
            ie[fi[p->edges[k].dst]++] = k;
        }
        free(fo), free(fi);
    }
    /* Position of each entry in each of its devices' orders: next/prev lookups. */
    int *posd = malloc((size_t)(off[p->ndevs] ? off[p->ndevs] : 1) * sizeof(int));
    int *first = malloc((size_t)(n ? n : 1) * sizeof(int)); /* start of entry's slots */
    int *slots = malloc((size_t)(off[p->ndevs] ? off[p->ndevs] : 1) * sizeof(int));
    if (!posd || !first || !slots) {
        free(posd), free(first), free(slots);
        rc = ts_fail(e, TS_ESYS, "out of memory");
        goto done;
    }
    /* slots[first[x] + i] = position in ord of entry x on its i-th device. */
    {
        int acc = 0;
        for (int x = 0; x < n; x++) {
            first[x] = acc;
            acc += p->blocks[s->entries[x].block].ndevices;
        }
        int *fill = calloc((size_t)(n ? n : 1), sizeof(int));
        if (!fill) {
            free(posd), free(first), free(slots);
            rc = ts_fail(e, TS_ESYS, "out of memory");
            goto done;
        }
        for (int d = 0; d < p->ndevs; d++)
            for (int i = off[d]; i < off[d + 1]; i++) {
                int x = ord[i];
                slots[first[x] + fill[x]++] = i;
                posd[i] = d;
            }
        free(fill);
    }
    for (int x = 0; x < n; x++)
        nw[x] = s->entries[x].step;
    for (int b = 0; b < nb; b++) {
        int x = idx[b * K + 0];
        base[b] = x >= 0 ? s->entries[x].step : 0;
    }
    for (int x = 0; x < n; x++)
        keys[x] = (ts_tkey){x, s->entries[x].step};
    qsort(keys, (size_t)n, sizeof *keys, ts_cmp_tkey);

    /* Warm-up, latest first: as late as successors allow. */
    for (int i = n - 1; i >= 0; i--) {
        int x = keys[i].entry;
        if (s->entries[x].step >= W0)
            continue;
        int b = s->entries[x].block, m = s->entries[x].micro;
        long span = p->blocks[b].span, lim = LONG_MAX;
        for (int k = 0; k < p->blocks[b].ndevices; k++) {
            int at = slots[first[x] + k], d = posd[at];
            if (at + 1 < off[d + 1] && nw[ord[at + 1]] - span < lim)
                lim = nw[ord[at + 1]] - span;
        }
        for (int q = oo[b]; q < oo[b + 1]; q++) {
            const ts_edge *g = &p->edges[oe[q]];
            int mm = m + g->distance;
            long succ = mm < K && idx[g->dst * K + mm] >= 0 ? nw[idx[g->dst * K + mm]]
                                                              : base[g->dst] + (long)mm * P;
            if (succ - span - g->delay < lim)
                lim = succ - span - g->delay;
        }
        if (lim != LONG_MAX && lim > nw[x])
            nw[x] = lim;
    }
    /* Cool-down, earliest first: as early as predecessors allow. */
    for (int i = 0; i < n; i++) {
        int x = keys[i].entry;
        if (s->entries[x].step < W1)
            continue;
        int b = s->entries[x].block, m = s->entries[x].micro;
        long lo = LONG_MIN;
        for (int k = 0; k < p->blocks[b].ndevices; k++) {
            int at = slots[first[x] + k], d = posd[at];
            if (at > off[d]) {
                int y = ord[at - 1];
                long end = nw[y] + p->blocks[s->entries[y].block].span;
                if (end > lo)
                    lo = end;
            }
        }
        for (int q = io[b]; q < io[b + 1]; q++) {
            const ts_edge *g = &p->edges[ie[q]];
            int mm = m - g->distance;
            if (mm < 0)
                continue;
            int y = idx[g->src * K + mm];
            long st = y >= 0 ? nw[y] : base[g->src] + (long)mm * P;
            long end = st + p->blocks[g->src].span + g->delay;
            if (end > lo)
                lo = end;
        }
        if (lo != LONG_MIN && lo < nw[x])
            nw[x] = lo;
    }
    for (int x = 0; x < n; x++)
        s->entries[x].step = nw[x];
    ts_schedule_sort(s);
    ts_schedule_normalize(s);
    free(posd), free(first), free(slots);
done:
    free(idx);
    free(off);
    free(ord);
    free(nw);
    free(base);
    free(keys);
    free(oo), free(io), free(oe), free(ie);
    return rc;
}
