/* ts_schedule_metrics: a schedule's measures (ts_schedule_measure, schedule/metrics.c) with its
 * lower bound. The bound is added here, above the schedule, so that schedule/ needs nothing of
 * bound/. */
#include "ts_bound.h"

int ts_schedule_metrics(const ts_schedule *s, ts_metrics *m)
{
    if (ts_schedule_measure(s, m))
        return -1;
    /* a schedule with capacities is bounded under them too (the memory term) */
    m->lower_bound = ts_bound_value(s->placement, s->nmicros, s->has_memory ? s->memory : NULL);
    return 0;
}
