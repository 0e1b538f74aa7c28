/* A plan's files for `tessel plan -o DIR`: the derived placement, its schedule at N, the SVG
 * timeline and the Chrome trace at real times (one time unit = the placement's unit). */
#ifdef TS_HAVE_SOLVER
#include <stdio.h>
#include "plan.h"
#include "ts_render.h"
#include "ts_trace.h"

int ts_plan_write(const ts_plan *pl, const char *dir, ts_err *e)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s-p%d.placement.json", dir, pl->strategy, pl->pipe);
    if (ts_placement_save(pl->p, path, e))
        return e->code;
    snprintf(path, sizeof path, "%s/%s-p%d.schedule.json", dir, pl->strategy, pl->pipe);
    if (ts_schedule_save(pl->s, path, e))
        return e->code;
    snprintf(path, sizeof path, "%s/%s-p%d.svg", dir, pl->strategy, pl->pipe);
    if (ts_render_svg_file(pl->s, NULL, path, e))
        return e->code;
    snprintf(path, sizeof path, "%s/%s-p%d.trace.json", dir, pl->strategy, pl->pipe);
    ts_trace *t = ts_trace_from_schedule(pl->s, pl->time_unit_s * 1e6);
    if (!t)
        return ts_fail(e, TS_ESYS, "%s: out of memory", path);
    int rc = ts_trace_write(t, path, e);
    ts_trace_free(t);
    return rc;
}
#endif
