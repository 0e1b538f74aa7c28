/* ts_placement_check: the rules a placement must satisfy (device counts, spans, ids, edges, no
 * cycle within a micro-batch, named by one of its edges). */
#include <stdlib.h>
#include <string.h>
#include "ts_placement.h"

typedef struct {
    const ts_placement *p;
    int idx;
} ts_id_ref;

static int ts_cmp_ref(const void *a, const void *b)
{
    const ts_id_ref *x = a, *y = b;
    int c = strcmp(x->p->blocks[x->idx].id, y->p->blocks[y->idx].id);
    return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

/* Finds a block on a same-micro-batch cycle by peeling sources: what remains lies on or after one. */
static int ts_cycle_witness(const ts_placement *p, int *src, int *dst)
{
    int n = p->nblocks;
    int *order = malloc((size_t)(n ? n : 1) * sizeof(int));
    int *indeg = calloc((size_t)(n ? n : 1), sizeof(int));
    int found = 0;
    if (!order || !indeg)
        goto out;
    int tail = ts_placement_peel(p, order, indeg);
    if (tail == n)
        goto out;
    /* Walk backwards along remaining edges until a block repeats: that block is on a cycle. */
    int *seen = order; /* reuse as a visit stamp */
    for (int b = 0; b < n; b++)
        seen[b] = -1;
    int cur = -1;
    for (int b = 0; b < n && cur < 0; b++)
        if (indeg[b] > 0)
            cur = b;
    for (int step = 0; seen[cur] < 0; step++) {
        seen[cur] = step;
        for (int i = 0; i < p->nedges; i++)
            if (p->edges[i].distance == 0 && p->edges[i].dst == cur && indeg[p->edges[i].src] > 0) {
                *src = p->edges[i].src;
                *dst = cur;
                cur = p->edges[i].src;
                break;
            }
    }
    found = 1;
out:
    free(order);
    free(indeg);
    return found;
}

int ts_placement_check(const ts_placement *p, const char *where, ts_err *e)
{
    if (!where)
        where = "placement";
    if (p->ndevs < 1 || p->ndevs > TS_MAX_DEVS)
        return ts_fail(e, TS_EINPUT, "%s: 'ndevs' must be between 1 and %d, got %d", where,
                       TS_MAX_DEVS, p->ndevs);
    if (p->nblocks < 1)
        return ts_fail(e, TS_EINPUT, "%s: 'blocks' is empty: a placement needs at least one block",
                       where);
    if (p->nblocks > TS_MAX_BLOCKS)
        return ts_fail(e, TS_EINPUT, "%s: %d blocks, more than the limit of %d", where, p->nblocks,
                       TS_MAX_BLOCKS);
    for (int i = 0; i < p->nblocks; i++) {
        const ts_block *b = &p->blocks[i];
        if (!b->id[0])
            return ts_fail(e, TS_EINPUT, "%s: blocks[%d]: 'id' is empty", where, i);
        if (b->span < 1 || b->span > TS_MAX_SPAN)
            return ts_fail(e, TS_EINPUT, "%s: block '%s': 'span' must be between 1 and %d, got %d",
                           where, b->id, TS_MAX_SPAN, b->span);
        if (b->memory < -TS_MAX_MEMORY || b->memory > TS_MAX_MEMORY)
            return ts_fail(e, TS_EINPUT, "%s: block '%s': 'memory' %d is outside [-%d, %d]", where,
                           b->id, b->memory, TS_MAX_MEMORY, TS_MAX_MEMORY);
        if (b->ndevices < 1)
            return ts_fail(e, TS_EINPUT, "%s: block '%s': 'devices' is empty", where, b->id);
        for (int k = 0; k < b->ndevices; k++) {
            if (b->devices[k] < 0 || b->devices[k] >= p->ndevs)
                return ts_fail(e, TS_EINPUT,
                               "%s: block '%s': device %d is out of range (ndevs is %d)", where,
                               b->id, b->devices[k], p->ndevs);
            if (k > 0 && b->devices[k] == b->devices[k - 1])
                return ts_fail(e, TS_EINPUT, "%s: block '%s': device %d is listed twice", where,
                               b->id, b->devices[k]);
        }
    }
    ts_id_ref *refs = malloc((size_t)p->nblocks * sizeof *refs);
    if (!refs)
        return ts_fail(e, TS_ESYS, "%s: out of memory", where);
    for (int i = 0; i < p->nblocks; i++)
        refs[i] = (ts_id_ref){p, i};
    qsort(refs, (size_t)p->nblocks, sizeof *refs, ts_cmp_ref);
    for (int i = 1; i < p->nblocks; i++)
        if (!strcmp(p->blocks[refs[i].idx].id, p->blocks[refs[i - 1].idx].id)) {
            int a = refs[i - 1].idx, b = refs[i].idx;
            free(refs);
            return ts_fail(e, TS_EINPUT, "%s: duplicate block id '%s' (blocks[%d] and blocks[%d])",
                           where, p->blocks[a].id, a, b);
        }
    free(refs);
    for (int i = 0; i < p->nedges; i++) {
        const ts_edge *x = &p->edges[i];
        if (x->src < 0 || x->src >= p->nblocks || x->dst < 0 || x->dst >= p->nblocks)
            return ts_fail(e, TS_EINPUT, "%s: edge %d refers to a block that does not exist", where,
                           i);
        if (x->delay < 0 || x->delay > TS_MAX_DELAY)
            return ts_fail(e, TS_EINPUT, "%s: edge '%s' -> '%s': 'delay' must be between 0 and %d",
                           where, p->blocks[x->src].id, p->blocks[x->dst].id, TS_MAX_DELAY);
        if (x->distance < 0 || x->distance > TS_MAX_DISTANCE)
            return ts_fail(e, TS_EINPUT,
                           "%s: edge '%s' -> '%s': 'distance' must be between 0 and %d", where,
                           p->blocks[x->src].id, p->blocks[x->dst].id, TS_MAX_DISTANCE);
        if (x->src == x->dst && x->distance == 0)
            return ts_fail(e, TS_EINPUT, "%s: edge '%s' -> '%s' is a self-loop", where,
                           p->blocks[x->src].id, p->blocks[x->dst].id);
    }
    int cs = -1, cd = -1;
    if (ts_cycle_witness(p, &cs, &cd))
        return ts_fail(e, TS_EINPUT,
                       "%s: the dependencies form a cycle (through edge '%s' -> '%s')", where,
                       p->blocks[cs].id, p->blocks[cd].id);
    return TS_OK;
}
