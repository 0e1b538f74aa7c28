/* The local scheduler of a sweep: up to -j workers at a time on this machine, each finished point
 * recorded as soon as its worker ends. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "sweep.h"
#include "ts_clock.h"

/* Starts workers in the free slots while points remain; returns the next point to start. */
static int ts_sweep_fill_slots(ts_sweep_run *s, ts_sweep_job *jobs, const int *todo, int next,
                               int ntodo, ts_err *e)
{
    for (int i = 0; i < s->jobs && next < ntodo; i++) {
        if (jobs[i].pid)
            continue;
        if (ts_sweep_job_start(&jobs[i], &s->spec->points[todo[next]], &s->exec, e))
            return -1;
        next++;
        s->running++;
    }
    return next;
}

/* Records the point of one worker that ended, if one has: 1 when one did, 0 when none has, -1 on
 * an error (in e). */
static int ts_sweep_collect_one(ts_sweep_run *s, ts_sweep_job *jobs, ts_err *e)
{
    int st = 0, i = ts_sweep_jobs_reap(jobs, s->jobs, &st);
    if (i < 0)
        return 0;
    json_t *rec = NULL;
    int rc = ts_sweep_job_finish(&jobs[i], st, &rec, e);
    ts_sweep_job_clear(&jobs[i]);
    s->running--;
    /* out of memory, or an output folder that takes no more: the sweep stops */
    if (rc)
        return -1;
    return ts_sweep_record(s, rec, e) ? -1 : 1;
}

int ts_sweep_run_local(ts_sweep_run *s, const int *todo, int ntodo, ts_err *e)
{
    ts_sweep_job *jobs = calloc((size_t)s->jobs, sizeof *jobs);
    if (!jobs)
        return ts_fail(e, TS_ESYS, "out of memory");
    int next = 0, rc = TS_OK;
    struct timespec nap = {0, 20 * 1000 * 1000};
    while (next < ntodo || s->running > 0) {
        if (*s->stop) {
            rc = -1;
            break;
        }
        if ((next = ts_sweep_fill_slots(s, jobs, todo, next, ntodo, e)) < 0) {
            rc = e->code;
            break;
        }
        int got = ts_sweep_collect_one(s, jobs, e);
        if (got < 0) {
            rc = e->code;
            break;
        }
        if (got)
            continue;
        ts_sweep_jobs_kill_late(jobs, s->jobs, ts_clock_now());
        ts_sweep_progress_tick(&s->prog, s->running);
        nanosleep(&nap, NULL);
    }
    s->running -= ts_sweep_jobs_stop(jobs, s->jobs);
    free(jobs);
    return rc;
}
