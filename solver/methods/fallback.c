/* The schedule that exists whenever anything fits: one micro-batch at a time, in the order of
 * one micro-batch that reaches the memory floor, replayed as early as possible (the core's
 * replay), completed as a k = 1 repetend. A method's last resort when the time limit leaves it
 * nothing better. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ts_caps.h"
#include "ts_complete.h"
#include "ts_fallback.h"
#include "ts_memory.h"
#include "ts_replay.h"
#include "ts_search_ctx.h"

typedef struct {
    long start;
    int block;
} ts_order_item;

static int ts_cmp_order_item(const void *a, const void *b)
{
    const ts_order_item *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->block - y->block;
}

/* Each device's blocks in the order of start (ties by block), as instance lists for the replay:
 * off (ndevs + 1) and order. */
static void ts_device_orders(const ts_placement *p, const long *start, ts_order_item *it, int *off,
                             int *order)
{
    int n = p->nblocks, at = 0;
    for (int i = 0; i < n; i++)
        it[i] = (ts_order_item){start[i], i};
    qsort(it, (size_t)n, sizeof *it, ts_cmp_order_item);
    for (int d = 0; d < p->ndevs; d++) {
        off[d] = at;
        for (int i = 0; i < n; i++)
            if (ts_block_on(&p->blocks[it[i].block], d))
                order[at++] = it[i].block;
    }
    off[p->ndevs] = at;
}

/* The period of one micro-batch replayed from compact: its length, stretched so that edges to
 * later micro-batches (distance >= 1) and their delays are met. */
static long ts_sequential_period(const ts_placement *p, const long *compact)
{
    long P = 0;
    for (int b = 0; b < p->nblocks; b++)
        if (compact[b] + p->blocks[b].span > P)
            P = compact[b] + p->blocks[b].span;
    for (int ei = 0; ei < p->nedges; ei++) {
        const ts_edge *ed = &p->edges[ei];
        if (ed->distance == 0)
            continue;
        long need = compact[ed->src] + p->blocks[ed->src].span + ed->delay - compact[ed->dst];
        long per = (need + ed->distance - 1) / ed->distance;
        if (per > P)
            P = per;
    }
    return P;
}

/* Replays the floor order of one micro-batch as early as dependencies and devices allow (same
 * per-device order, so the same memory profile) into compact. */
static int ts_sequential_replay(const ts_placement *p, const long *start, long *compact, ts_err *e)
{
    int n = p->nblocks, ndev_inst = 0, stuck = -1;
    for (int b = 0; b < n; b++)
        ndev_inst += p->blocks[b].ndevices;
    ts_order_item *it = malloc((size_t)n * sizeof *it + 1);
    int *inst = malloc((size_t)n * sizeof *inst + 1);
    int *off = malloc((size_t)(p->ndevs + 1) * sizeof *off);
    int *order = malloc((size_t)ndev_inst * sizeof *order + 1);
    double *dur = malloc((size_t)n * sizeof *dur + 1), *st = malloc((size_t)n * sizeof *st + 1);
    int rc = TS_OK;
    if (!it || !inst || !off || !order || !dur || !st) {
        rc = ts_fail(e, TS_ESYS, "solver: out of memory");
        goto out;
    }
    for (int b = 0; b < n; b++) {
        inst[b] = b;
        dur[b] = (double)p->blocks[b].span;
    }
    ts_device_orders(p, start, it, off, order);
    ts_replay_in in = {p, 1, n, inst, off, order, dur, NULL};
    rc = ts_replay(&in, st, &stuck, e);
    if (rc == TS_ENOANSWER)
        rc = ts_fail(e, TS_ESYS, "solver: internal error: the floor order of '%s' deadlocks at %s",
                     p->name, p->blocks[stuck].id);
    for (int b = 0; rc == TS_OK && b < n; b++)
        compact[b] = lround(st[b]);
out:
    free(it);
    free(inst);
    free(off);
    free(order);
    free(dur);
    free(st);
    return rc;
}

int ts_sequential_schedule(const ts_placement *p, const long *cap, ts_schedule **out, ts_err *e)
{
    *out = NULL;
    int n = p->nblocks;
    long *start = malloc((size_t)n * sizeof *start + 1);
    long *compact = calloc((size_t)n + 1, sizeof *compact);
    int *mids = calloc((size_t)n + 1, sizeof *mids);
    long *unbounded = malloc((size_t)p->ndevs * sizeof *unbounded + 1);
    int rc = TS_OK;
    if (!start || !compact || !mids || !unbounded) {
        rc = ts_fail(e, TS_ESYS, "solver: out of memory");
        goto out;
    }
    long floor_cap = 0;
    bool exact = false;
    /* its own effort, the same on every machine: the last resort needs no caller's cap */
    ts_meter m;
    ts_meter_init(&m, 0);
    ts_budget b;
    ts_budget_init(&b, &m, 10);
    /* without a memory limit any order will do: the greedy one (capacities without bound) */
    for (int d = 0; !cap && d < p->ndevs; d++)
        unbounded[d] = LONG_MAX / 4;
    rc = ts_memory_floor_order(p, cap ? cap : unbounded, &b, &floor_cap, &exact, start, e);
    if (rc)
        goto out;
    if (cap && floor_cap > ts_caps_max(cap, p->ndevs)) {
        char mem[64];
        rc = ts_fail(e, TS_ENOANSWER, "no schedule fits memory %s: one micro-batch alone needs %ld%s",
                     ts_caps_text(cap, p->ndevs, mem, sizeof mem), floor_cap,
                     strchr(mem, ',') ? " on the largest, the others kept as far below it" : "");
        goto out;
    }
    if ((rc = ts_sequential_replay(p, start, compact, e)))
        goto out;
    ts_rep rep = {
        .start = compact, .period = ts_sequential_period(p, compact), .k = 1, .mids = mids};
    ts_complete_opts co;
    ts_complete_opts_init(&co);
    co.cap = cap;
    rc = ts_complete(p, &rep, &co, out, NULL, e);
out:
    free(start);
    free(compact);
    free(mids);
    free(unbounded);
    return rc;
}

int ts_sequential_fallback(const ts_placement *p, const long *cap, long maxload, ts_schedule **out,
                           ts_search_stats *st, ts_err *e)
{
    int rc = ts_sequential_schedule(p, cap, out, e);
    if (rc == TS_OK) {
        st->k = 1;
        st->period = (*out)->rep.period;
        st->bubbles = st->period - maxload;
        st->optimal = false;
    }
    return rc;
}
