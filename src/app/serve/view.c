/* What the page's timeline and memory panels draw for the render operation's schedule at N
 * (ts_op_views.h): its SVG, the schedule's figures and whether it is valid, and each device's
 * live memory over time. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include "ts_bound.h"
#include "ts_serve.h"

typedef struct {
    long step;
    long delta;
} ts_mem_event;

static int ts_mem_cmp(const void *a, const void *b)
{
    const ts_mem_event *x = a, *y = b;
    return (x->step > y->step) - (x->step < y->step);
}

/* One device's running memory: [[step, level after every block starting at step], ...], from
 * level 0 before the first block. Memory is applied when a block starts, as the validator does. */
static json_t *ts_mem_series(const ts_schedule *u, int d, ts_mem_event *ev)
{
    const ts_placement *p = u->placement;
    int n = 0;
    for (int i = 0; i < u->nentries; i++) {
        const ts_block *b = &p->blocks[u->entries[i].block];
        if (ts_block_on(b, d))
            ev[n++] = (ts_mem_event){u->entries[i].step, b->memory};
    }
    qsort(ev, (size_t)n, sizeof *ev, ts_mem_cmp);
    json_t *a = json_array();
    long level = 0;
    for (int i = 0; a && i < n; i++) {
        level += ev[i].delta;
        if (i + 1 < n && ev[i + 1].step == ev[i].step)
            continue;
        json_array_append_new(a, json_pack("[I, I]", (json_int_t)ev[i].step, (json_int_t)level));
    }
    return a;
}

static json_t *ts_view_memory(const ts_schedule *u)
{
    const ts_placement *p = u->placement;
    ts_mem_event *ev = malloc(((size_t)u->nentries + 1) * sizeof *ev);
    json_t *devs = json_array(), *cap = json_null();
    if (!ev || !devs) {
        free(ev);
        json_decref(devs);
        return NULL;
    }
    for (int d = 0; d < p->ndevs; d++)
        json_array_append_new(devs, ts_mem_series(u, d, ev));
    free(ev);
    if (u->has_memory) {
        json_decref(cap);
        cap = json_array();
        for (int d = 0; d < p->ndevs; d++)
            json_array_append_new(cap, json_integer(u->memory[d]));
    }
    return json_pack("{s:o, s:o}", "devices", devs, "capacity", cap);
}

/* Every instance as three integers (block index, micro-batch, start step), in the schedule's
 * order: the page's timeline draws these on a canvas at any N (an SVG of 65,536 boxes is tens of
 * megabytes and slow to zoom). */
static json_t *ts_view_entries(const ts_schedule *u)
{
    json_t *a = json_array();
    for (int i = 0; a && i < u->nentries; i++) {
        const ts_entry *x = &u->entries[i];
        json_array_append_new(a, json_integer(x->block));
        json_array_append_new(a, json_integer(x->micro));
        json_array_append_new(a, json_integer(x->step));
    }
    return a;
}

/* The blocks as the timeline names and colours them: id, kind, span, memory, devices. */
static json_t *ts_view_blocks(const ts_placement *p)
{
    json_t *a = json_array();
    for (int b = 0; a && b < p->nblocks; b++) {
        const ts_block *k = &p->blocks[b];
        json_t *devs = json_array();
        for (int d = 0; d < p->ndevs; d++)
            if (ts_block_on(k, d))
                json_array_append_new(devs, json_integer(d));
        json_array_append_new(a, json_pack("{s:s, s:s, s:I, s:I, s:o}", "id", k->id, "kind",
                                           ts_kind_name(k->kind), "span", (json_int_t)k->span,
                                           "memory", (json_int_t)k->memory, "devices", devs));
    }
    return a;
}

/* The repetend window of the schedule on show and how often it repeats in it, or null. */
static json_t *ts_view_repetend(const ts_schedule *u)
{
    if (!u->has_repetend)
        return json_null();
    /* the window's copies that fit: per micro-batches each */
    int repeats = u->nmicros >= u->rep.k ? (u->nmicros - u->rep.k) / u->rep.per + 1 : 0;
    return json_pack("{s:I, s:I, s:I, s:i, s:i, s:i}", "start", (json_int_t)u->rep.start, "end",
                     (json_int_t)u->rep.end, "period", (json_int_t)u->rep.period, "k", u->rep.k,
                     "per_period", u->rep.per, "repeats", repeats);
}

/* The parts of a view that the canvas timeline draws from. */
static void ts_view_add_timeline(json_t *j, const ts_schedule *u)
{
    json_object_set_new(j, "entries", ts_view_entries(u));
    json_object_set_new(j, "blocks", ts_view_blocks(u->placement));
    json_object_set_new(j, "repetend", ts_view_repetend(u));
}

json_t *ts_api_view(const ts_op_view_res *res, const ts_op_view_req *r, bool with_svg, ts_err *e)
{
    const ts_schedule *u = res->at;
    ts_metrics m;
    char *text = with_svg ? ts_op_render_svg(res, r, e) : NULL;
    json_t *svg = !with_svg ? json_null() : text ? json_string(text) : NULL;
    free(text);
    if (!svg)
        return NULL;
    if (ts_schedule_metrics(u, &m)) {
        json_decref(svg);
        ts_fail(e, TS_ESYS, "view: out of memory");
        return NULL;
    }
    json_t *peak = json_array();
    for (int d = 0; d < u->placement->ndevs; d++)
        json_array_append_new(peak, json_integer(m.peak[d]));
    json_t *j = json_pack("{s:o, s:i, s:i, s:I, s:I, s:f, s:I, s:I, s:o, s:b, s:s, s:o*}", "svg",
                          svg, "ndevs", u->placement->ndevs, "micro_batches", u->nmicros,
                          "makespan", (json_int_t)m.makespan, "lower_bound",
                          (json_int_t)m.lower_bound, "bubble_rate", m.bubble_rate, "first",
                          (json_int_t)m.first, "last", (json_int_t)m.last, "peak_memory", peak,
                          "valid", res->valid, "message", res->why, "memory", ts_view_memory(u));
    ts_metrics_free(&m);
    if (j)
        ts_view_add_timeline(j, u);
    if (!j)
        ts_fail(e, TS_ESYS, "view: out of memory");
    return j;
}
