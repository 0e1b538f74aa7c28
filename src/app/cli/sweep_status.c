/* The statuses of a sweep point (ok, infeasible, timeout, error) and their names, as results.jsonl
 * and the progress display write them. */
#include "sweep.h"

static const char *const status_names[TS_SWEEP_NSTATUS] = {"ok", "infeasible", "timeout", "error"};

const char *ts_sweep_status_name(ts_sweep_status s)
{
    return (unsigned)s < TS_SWEEP_NSTATUS ? status_names[s] : "error";
}
