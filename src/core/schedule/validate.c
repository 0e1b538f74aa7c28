/* ts_schedule_validate: exclusivity and running memory per device, dependencies with delays and
 * distances, completeness and the optional micro-batch order; the first violation, named. */
#include <stdio.h>
#include <stdlib.h>
#include "ts_schedule.h"

static void ts_inst_name(const ts_schedule *s, int entry, char *buf, size_t n)
{
    const ts_entry *x = &s->entries[entry];
    snprintf(buf, n, "%s/%d", s->placement->blocks[x->block].id, x->micro);
}

static int ts_check_complete(const ts_schedule *s, const int *idx, ts_err *e)
{
    const ts_placement *p = s->placement;
    for (int i = 0; i < s->nentries; i++) {
        const ts_entry *x = &s->entries[i];
        if (x->block < 0 || x->block >= p->nblocks || x->micro < 0 || x->micro >= s->nmicros)
            return ts_fail(e, TS_ENOANSWER, "entry %d: instance out of range (block %d, micro %d)",
                           i, x->block, x->micro);
        int first = idx[(size_t)x->block * (size_t)s->nmicros + (size_t)x->micro];
        if (first != i)
            return ts_fail(e, TS_ENOANSWER,
                           "completeness: instance %s/%d appears twice (steps %ld and %ld)",
                           p->blocks[x->block].id, x->micro, s->entries[first].step, x->step);
    }
    for (int m = 0; m < s->nmicros; m++)
        for (int b = 0; b < p->nblocks; b++)
            if (idx[(size_t)b * (size_t)s->nmicros + (size_t)m] < 0)
                return ts_fail(e, TS_ENOANSWER,
                               "completeness: instance %s/%d (block '%s' of micro-batch %d) is "
                               "missing",
                               p->blocks[b].id, m, p->blocks[b].id, m);
    return TS_OK;
}

/* Walks each device's start order: overlaps, then the running memory sum. Reports the violation
 * with the earliest step so that the message points at where things first go wrong. */
static int ts_check_devices(const ts_schedule *s, const ts_validate_opts *o, ts_err *e)
{
    const ts_placement *p = s->placement;
    int *off, *order;
    if (ts_schedule_device_orders(s, &off, &order))
        return ts_fail(e, TS_ESYS, "out of memory");
    long best = -1;
    int bd = -1, ba = -1, bb = -1;
    for (int d = 0; d < p->ndevs; d++)
        for (int k = off[d] + 1; k < off[d + 1]; k++) {
            const ts_entry *a = &s->entries[order[k - 1]], *b = &s->entries[order[k]];
            if (b->step < a->step + p->blocks[a->block].span && (best < 0 || b->step < best)) {
                best = b->step;
                bd = d;
                ba = order[k - 1];
                bb = order[k];
            }
        }
    if (best >= 0) {
        char na[128], nb[128];
        ts_inst_name(s, ba, na, sizeof na);
        ts_inst_name(s, bb, nb, sizeof nb);
        const ts_entry *a = &s->entries[ba];
        free(off);
        free(order);
        return ts_fail(
            e, TS_ENOANSWER,
            "exclusivity: device %d, step %ld: %s starts while %s (steps %ld..%ld) still "
            "runs",
            bd, best, nb, na, a->step, a->step + p->blocks[a->block].span - 1);
    }
    if (s->has_memory && !o->ignore_memory) {
        long at = -1, level = 0, cap = 0;
        int md = -1, me = -1;
        for (int d = 0; d < p->ndevs; d++) {
            long run = 0;
            for (int k = off[d]; k < off[d + 1]; k++) {
                const ts_entry *x = &s->entries[order[k]];
                run += p->blocks[x->block].memory;
                if (run > s->memory[d]) {
                    if (at < 0 || x->step < at) {
                        at = x->step;
                        level = run;
                        cap = s->memory[d];
                        md = d;
                        me = order[k];
                    }
                    break;
                }
            }
        }
        if (at >= 0) {
            char nm[128];
            ts_inst_name(s, me, nm, sizeof nm);
            free(off);
            free(order);
            return ts_fail(e, TS_ENOANSWER,
                           "memory: device %d, step %ld: starting %s raises memory to %ld, above "
                           "the capacity %ld",
                           md, at, nm, level, cap);
        }
    }
    free(off);
    free(order);
    return TS_OK;
}

static int ts_check_deps(const ts_schedule *s, const int *idx, ts_err *e)
{
    const ts_placement *p = s->placement;
    long best = -1;
    int bs = -1, bd = -1, be = -1;
    long need = 0;
    for (int i = 0; i < p->nedges; i++) {
        const ts_edge *x = &p->edges[i];
        for (int m = x->distance; m < s->nmicros; m++) {
            const ts_entry *a = &s->entries[idx[(size_t)x->src * s->nmicros + (m - x->distance)]];
            const ts_entry *b = &s->entries[idx[(size_t)x->dst * s->nmicros + m]];
            long ready = a->step + p->blocks[x->src].span + x->delay;
            if (b->step < ready && (best < 0 || b->step < best)) {
                best = b->step;
                bs = idx[(size_t)x->src * s->nmicros + (m - x->distance)];
                bd = idx[(size_t)x->dst * s->nmicros + m];
                be = i;
                need = ready;
            }
        }
    }
    if (best < 0)
        return TS_OK;
    char na[128], nb[128], extra[96] = "";
    ts_inst_name(s, bs, na, sizeof na);
    ts_inst_name(s, bd, nb, sizeof nb);
    const ts_edge *x = &p->edges[be];
    if (x->delay || x->distance)
        snprintf(extra, sizeof extra, " (edge delay %d, distance %d)", x->delay, x->distance);
    int dev = p->blocks[s->entries[bd].block].devices[0];
    return ts_fail(e, TS_ENOANSWER,
                   "dependency: device %d, step %ld: %s starts before %s is done (needs step >= "
                   "%ld)%s",
                   dev, best, nb, na, need, extra);
}

static int ts_check_monotone(const ts_schedule *s, const int *idx, ts_err *e)
{
    const ts_placement *p = s->placement;
    for (int b = 0; b < p->nblocks; b++)
        for (int m = 1; m < s->nmicros; m++) {
            const ts_entry *x = &s->entries[idx[(size_t)b * s->nmicros + m - 1]];
            const ts_entry *y = &s->entries[idx[(size_t)b * s->nmicros + m]];
            if (y->step < x->step)
                return ts_fail(e, TS_ENOANSWER,
                               "monotone order: device %d, step %ld: %s/%d runs before %s/%d "
                               "(step %ld)",
                               p->blocks[b].devices[0], y->step, p->blocks[b].id, m,
                               p->blocks[b].id, m - 1, x->step);
        }
    return TS_OK;
}

int ts_schedule_validate(const ts_schedule *s, const ts_validate_opts *o, ts_err *e)
{
    static const ts_validate_opts defaults = {false, false};
    if (!o)
        o = &defaults;
    if (s->nmicros < 1)
        return ts_fail(e, TS_ENOANSWER, "the schedule has no micro-batches");
    int *idx = ts_schedule_index(s);
    if (!idx)
        return ts_fail(e, TS_ESYS, "out of memory");
    int rc = ts_check_complete(s, idx, e);
    if (!rc)
        rc = ts_check_devices(s, o, e);
    if (!rc)
        rc = ts_check_deps(s, idx, e);
    if (!rc && o->monotone)
        rc = ts_check_monotone(s, idx, e);
    free(idx);
    return rc;
}
