/* ts_schedule_measure: makespan, bubble rate, peak memory and loads of a schedule. Its lower
 * bound is the bound's business: ts_schedule_metrics (bound/bound_metrics.c) adds it, so that
 * schedule/ needs nothing above it. */
#include <stdlib.h>
#include <string.h>
#include "ts_schedule.h"

void ts_metrics_free(ts_metrics *m)
{
    free(m->peak);
    free(m->load);
    m->peak = m->load = NULL;
}

int ts_schedule_measure(const ts_schedule *s, ts_metrics *m)
{
    const ts_placement *p = s->placement;
    int *off, *order;
    memset(m, 0, sizeof *m);
    m->peak = calloc((size_t)p->ndevs, sizeof(long));
    m->load = calloc((size_t)p->ndevs, sizeof(long));
    if (!m->peak || !m->load || ts_schedule_device_orders(s, &off, &order)) {
        ts_metrics_free(m);
        return -1;
    }
    ts_placement_device_load(p, m->load);
    ts_schedule_span(s, &m->first, &m->last);
    m->makespan = m->last - m->first;
    for (int i = 0; i < s->nentries; i++) {
        const ts_block *b = &p->blocks[s->entries[i].block];
        m->busy += (long)b->span * b->ndevices;
    }
    m->bubble_rate = m->makespan > 0 ? 1.0 - (double)m->busy / ((double)p->ndevs * m->makespan) : 0;
    for (int d = 0; d < p->ndevs; d++) {
        long run = 0;
        for (int k = off[d]; k < off[d + 1]; k++) {
            run += p->blocks[s->entries[order[k]].block].memory;
            if (run > m->peak[d])
                m->peak[d] = run;
        }
    }
    free(off);
    free(order);
    return 0;
}
