/* r micro-batches as one (see ts_fold.h). */
#include <stdio.h>
#include <stdlib.h>
#include "ts_fold.h"

int ts_placement_fold(const ts_placement *p, int r, ts_placement **out, ts_err *e)
{
    *out = NULL;
    if (r < 1 || r > TS_FOLD_MAX)
        return ts_fail(e, TS_EINPUT, "fold: r = %d is outside 1..%d", r, TS_FOLD_MAX);
    if ((long)p->nblocks * r > 1000000L)
        return ts_fail(e, TS_EINPUT, "fold: %d blocks x %d copies is over 1000000 blocks",
                       p->nblocks, r);
    char name[256];
    snprintf(name, sizeof name, "%s (x%d)", p->name, r);
    ts_placement *q = ts_placement_new(name, p->ndevs);
    if (!q)
        return ts_fail(e, TS_ESYS, "fold: out of memory");
    for (int j = 0; j < r; j++)
        for (int b = 0; b < p->nblocks; b++) {
            const ts_block *x = &p->blocks[b];
            char id[512];
            if (j == 0)
                snprintf(id, sizeof id, "%s", x->id);
            else
                snprintf(id, sizeof id, "%.480s#%d", x->id, j);
            if (ts_placement_add_block(q, id, x->kind, x->span, x->memory, x->ndevices,
                                       x->devices) < 0)
                goto oom;
        }
    for (int j = 0; j < r; j++)
        for (int i = 0; i < p->nedges; i++) {
            const ts_edge *x = &p->edges[i];
            int to = (j + x->distance) % r, dist = (j + x->distance) / r;
            if (ts_placement_add_edge(q, j * p->nblocks + x->src, to * p->nblocks + x->dst,
                                      x->delay, dist) < 0)
                goto oom;
        }
    if (ts_placement_units_copy(q, p))
        goto oom;
    *out = q;
    return TS_OK;
oom:
    ts_placement_free(q);
    return ts_fail(e, TS_ESYS, "fold: out of memory");
}

int ts_schedule_unfold(const ts_schedule *s, const ts_placement *p, int r, ts_schedule **out,
                       ts_err *e)
{
    *out = NULL;
    const ts_placement *q = s->placement;
    if (r < 1 || q->nblocks != r * p->nblocks || q->ndevs != p->ndevs)
        return ts_fail(e, TS_EINPUT,
                       "unfold: the schedule's placement '%s' (%d blocks) is not the %d-fold of "
                       "'%s' (%d blocks)",
                       q->name, q->nblocks, r, p->name, p->nblocks);
    if ((long)s->nmicros * r > 100000000L)
        return ts_fail(e, TS_EINPUT, "unfold: %d x %d micro-batches is too many", s->nmicros, r);
    ts_schedule *u = ts_schedule_new(p, s->nmicros * r);
    if (!u)
        return ts_fail(e, TS_ESYS, "unfold: out of memory");
    for (int i = 0; i < s->nentries; i++) {
        const ts_entry *x = &s->entries[i];
        int j = x->block / p->nblocks, b = x->block % p->nblocks;
        if (ts_schedule_add(u, b, x->micro * r + j, x->step)) {
            ts_schedule_free(u);
            return ts_fail(e, TS_ESYS, "unfold: out of memory");
        }
    }
    if (s->has_memory)
        ts_schedule_set_memory(u, s->memory);
    ts_schedule_sort(u);
    *out = u;
    return TS_OK;
}
