/* The timing workload: each instance occupies its device for span x unit microseconds, and a block
 * on several devices ends with a collective so that it occupies them together. An edge's delay is
 * emulated too: the consumer does not start before the producer's end plus delay x unit. For that a
 * message carries the producer's end on the monotonic clock (a double in two floats' bytes; ranks
 * on one host share that clock). The wait sleeps for all but the last
 * stretch and spins that, so that ranks sharing cores do not steal each other's time yet end on
 * time. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rt_workloads.h"

/* seconds spun at the end of each wait */
#define TS_RT_SPIN_TAIL 3e-4

typedef struct {
    double unit_s;
    const ts_rt_plan *p;
    ts_rt_backend *be;
    float *one;
} ts_rt_timing;

/* Sleeps until TS_RT_SPIN_TAIL before END (a ts_clock_now() time), then spins. Each sleep is for
 * what is left by the one clock, so an interrupted or short sleep just sleeps again. */
static void ts_rt_wait_until(double end)
{
    double left;
    while ((left = end - TS_RT_SPIN_TAIL - ts_clock_now()) > 0) {
        struct timespec ts = {(time_t)left, (long)((left - (double)(time_t)left) * 1e9)};
        nanosleep(&ts, NULL);
    }
    while (ts_clock_now() < end) {
    }
}

/* Waits until every input's producer ended at least its edge's delay ago. The wait never exceeds
 * the largest delay from now (the message left after its producer ended), so clocks that differ
 * between hosts can only shorten a delay, never stall the replay. */
static int ts_rt_tm_before(ts_rt_workload *w, ts_rt_exec *x, const ts_rt_op *op,
                           const float *const *inputs, ts_err *e)
{
    (void)x;
    (void)e;
    ts_rt_timing *t = w->state;
    const ts_placement *pl = t->p->s->placement;
    double need = 0, longest = 0;
    for (int k = 0; k < op->ninputs; k++) {
        double d = pl->edges[op->inputs[k].edge].delay * t->unit_s;
        if (d <= 0)
            continue;
        double end;
        memcpy(&end, inputs[k], sizeof end);
        double ready = end + d;
        if (ready > need)
            need = ready;
        if (d > longest)
            longest = d;
    }
    if (longest > 0) {
        double now = ts_clock_now(), until = need;
        ts_rt_wait_until(until < now + longest ? until : now + longest);
    }
    return TS_OK;
}

static int ts_rt_tm_compute(ts_rt_workload *w, ts_rt_exec *x, const ts_rt_op *op,
                            const float *const *inputs, float *out, ts_err *e)
{
    (void)inputs;
    ts_rt_timing *t = w->state;
    const ts_block *blk = &t->p->s->placement->blocks[op->block];
    ts_rt_wait_until(ts_clock_now() + blk->span * t->unit_s);
    if (blk->ndevices > 1) {
        int rc = x->be->upload(x->be, t->one, out, 1);
        if (rc != TS_OK)
            return ts_rt_exec_fail(x, e, TS_ESYS, "backend copy failed");
        if ((rc = ts_rt_exec_allreduce(x, op->block, t->one, 1, e)) != TS_OK)
            return rc;
    }
    double end = ts_clock_now();
    memcpy(out, &end, sizeof end);
    return TS_OK;
}

static void ts_rt_tm_destroy(ts_rt_workload *w)
{
    if (!w)
        return;
    ts_rt_timing *t = w->state;
    if (t && t->one)
        t->be->release(t->be, t->one);
    free(t);
    free(w);
}

int ts_rt_timing_new(const ts_rt_plan *p, ts_rt_backend *be, const ts_rt_workload_opts *o,
                     ts_rt_workload **out, ts_err *e)
{
    *out = NULL;
    ts_rt_workload *w = calloc(1, sizeof *w);
    ts_rt_timing *t = calloc(1, sizeof *t);
    if (!w || !t) {
        free(w);
        free(t);
        return ts_fail(e, TS_ESYS, "timing: out of memory");
    }
    w->state = t;
    w->name = "timing";
    w->msg_floats = sizeof(double) / sizeof(float);
    w->before_compute = ts_rt_tm_before;
    w->compute = ts_rt_tm_compute;
    w->destroy = ts_rt_tm_destroy;
    t->unit_s = o->unit_us * 1e-6;
    t->p = p;
    t->be = be;
    t->one = be->alloc(be, 1);
    if (!t->one) {
        ts_rt_tm_destroy(w);
        return ts_fail(e, TS_ESYS, "timing: out of memory");
    }
    *out = w;
    return TS_OK;
}
