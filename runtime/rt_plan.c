/* Instruction streams: for each rank, its instances in schedule order with the messages each one
 * waits for and sends. The rule is symmetric so that every rank derives the same plan from the
 * same file: the output of a block reaches every device of a consumer block that did not compute
 * it, sent once by the producer's lowest device. */
#include "rt_plan.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

int ts_rt_plan_sender(const ts_block *b)
{
    return b->devices[0];
}

int ts_rt_block_member(const ts_block *b, int rank)
{
    for (int i = 0; i < b->ndevices; i++)
        if (b->devices[i] == rank)
            return i;
    return -1;
}

long ts_rt_plan_tag(const ts_rt_plan *p, int edge, int micro)
{
    return (long)edge * p->nmicros + micro;
}

void ts_rt_plan_free(ts_rt_plan *p)
{
    if (!p)
        return;
    if (p->streams) {
        for (int d = 0; d < p->ndevs; d++) {
            for (int i = 0; i < p->streams[d].nops; i++) {
                free(p->streams[d].ops[i].inputs);
                free(p->streams[d].ops[i].outputs);
            }
            free(p->streams[d].ops);
        }
        free(p->streams);
    }
    free(p->index);
    free(p->group_off);
    free(p->group_devs);
    free(p->block_group);
    free(p);
}

static bool ts_rt_same_devices(const ts_block *a, const ts_block *b)
{
    if (a->ndevices != b->ndevices)
        return false;
    return memcmp(a->devices, b->devices, sizeof(int) * (size_t)a->ndevices) == 0;
}

/* Groups of identical device sets among multi-device blocks, numbered in block order so that
 * every rank creates the matching communicators in the same sequence. */
static int ts_rt_build_groups(ts_rt_plan *p, ts_err *e)
{
    const ts_placement *pl = p->s->placement;
    p->block_group = malloc(sizeof(int) * (size_t)pl->nblocks);
    p->group_off = malloc(sizeof(int) * (size_t)(pl->nblocks + 1));
    size_t total = 0;
    for (int b = 0; b < pl->nblocks; b++)
        total += (size_t)pl->blocks[b].ndevices;
    p->group_devs = malloc(sizeof(int) * (total + 1));
    if (!p->block_group || !p->group_off || !p->group_devs)
        return ts_fail(e, TS_ESYS, "runtime plan: out of memory");
    /* representative block */
    int *first = malloc(sizeof(int) * (size_t)(pl->nblocks + 1));
    if (!first)
        return ts_fail(e, TS_ESYS, "runtime plan: out of memory");
    p->ngroups = 0;
    p->group_off[0] = 0;
    for (int b = 0; b < pl->nblocks; b++) {
        const ts_block *blk = &pl->blocks[b];
        p->block_group[b] = -1;
        if (blk->ndevices < 2)
            continue;
        for (int g = 0; g < p->ngroups; g++)
            if (ts_rt_same_devices(&pl->blocks[first[g]], blk))
                p->block_group[b] = g;
        if (p->block_group[b] >= 0)
            continue;
        int g = p->ngroups++;
        first[g] = b;
        p->block_group[b] = g;
        memcpy(p->group_devs + p->group_off[g], blk->devices, sizeof(int) * (size_t)blk->ndevices);
        p->group_off[g + 1] = p->group_off[g] + blk->ndevices;
    }
    free(first);
    return TS_OK;
}

static int ts_rt_build_op(ts_rt_plan *p, int rank, int entry, ts_rt_op *op, ts_err *e)
{
    const ts_schedule *s = p->s;
    const ts_placement *pl = s->placement;
    const ts_entry *en = &s->entries[entry];
    memset(op, 0, sizeof *op);
    op->entry = entry;
    op->block = en->block;
    op->micro = en->micro;
    const ts_block *me = &pl->blocks[en->block];
    int nin = 0, nout = 0;
    for (int k = 0; k < pl->nedges; k++) {
        if (pl->edges[k].dst == en->block)
            nin++;
        if (pl->edges[k].src == en->block)
            nout += pl->blocks[pl->edges[k].dst].ndevices;
    }
    op->inputs = calloc((size_t)nin + 1, sizeof(ts_rt_input));
    op->outputs = calloc((size_t)nout + 1, sizeof(ts_rt_output));
    if (!op->inputs || !op->outputs)
        return ts_fail(e, TS_ESYS, "runtime plan: out of memory");
    for (int k = 0; k < pl->nedges; k++) {
        const ts_edge *ed = &pl->edges[k];
        if (ed->dst == en->block) {
            int m = en->micro - ed->distance;
            if (m < 0)
                /* no producer before the first micro-batch */
                continue;
            int src = p->index[ed->src * p->nmicros + m];
            if (src < 0)
                return ts_fail(e, TS_EINPUT, "runtime plan: instance %s micro %d is missing",
                               pl->blocks[ed->src].id, m);
            const ts_block *sb = &pl->blocks[ed->src];
            ts_rt_input *in = &op->inputs[op->ninputs++];
            in->edge = k;
            in->src_entry = src;
            in->local = ts_rt_block_member(sb, rank) >= 0;
            in->from = in->local ? rank : ts_rt_plan_sender(sb);
            in->tag = (int)ts_rt_plan_tag(p, k, en->micro);
        }
        if (ed->src == en->block) {
            int m = en->micro + ed->distance;
            if (m >= p->nmicros)
                continue;
            const ts_block *db = &pl->blocks[ed->dst];
            if (ts_rt_block_member(db, rank) >= 0)
                op->nlocal_uses++;
            if (ts_rt_plan_sender(me) != rank)
                continue;
            for (int i = 0; i < db->ndevices; i++) {
                int d = db->devices[i];
                if (ts_rt_block_member(me, d) >= 0)
                    /* it computed the output itself */
                    continue;
                ts_rt_output *o = &op->outputs[op->noutputs++];
                o->edge = k;
                o->to = d;
                o->tag = (int)ts_rt_plan_tag(p, k, m);
            }
        }
    }
    return TS_OK;
}

int ts_rt_plan_build(const ts_schedule *s, ts_rt_plan **out, ts_err *e)
{
    *out = NULL;
    const ts_placement *pl = s->placement;
    ts_rt_plan *p = calloc(1, sizeof *p);
    if (!p)
        return ts_fail(e, TS_ESYS, "runtime plan: out of memory");
    p->s = s;
    p->ndevs = pl->ndevs;
    p->nblocks = pl->nblocks;
    p->nmicros = s->nmicros;
    if ((long)pl->nedges * s->nmicros >= INT_MAX) {
        ts_rt_plan_free(p);
        return ts_fail(e, TS_EINPUT,
                       "runtime plan: %d edges x %d micro-batches exceed the tag range", pl->nedges,
                       s->nmicros);
    }
    p->max_tag = pl->nedges > 0 ? (long)pl->nedges * s->nmicros - 1 : 0;
    p->index = ts_schedule_index(s);
    p->streams = calloc((size_t)p->ndevs, sizeof(ts_rt_stream));
    int *off = NULL, *order = NULL;
    if (!p->index || !p->streams || ts_schedule_device_orders(s, &off, &order) != 0) {
        free(off);
        free(order);
        ts_rt_plan_free(p);
        return ts_fail(e, TS_ESYS, "runtime plan: out of memory");
    }
    int rc = ts_rt_build_groups(p, e);
    for (int d = 0; d < p->ndevs && rc == TS_OK; d++) {
        ts_rt_stream *st = &p->streams[d];
        int n = off[d + 1] - off[d];
        st->ops = calloc((size_t)n + 1, sizeof(ts_rt_op));
        if (!st->ops) {
            rc = ts_fail(e, TS_ESYS, "runtime plan: out of memory");
            break;
        }
        st->nops = n;
        for (int i = 0; i < st->nops && rc == TS_OK; i++)
            rc = ts_rt_build_op(p, d, order[off[d] + i], &st->ops[i], e);
    }
    free(off);
    free(order);
    if (rc != TS_OK) {
        ts_rt_plan_free(p);
        return rc;
    }
    *out = p;
    return TS_OK;
}
