/* The replay loop of one rank: run its instruction stream, receiving inputs, computing through a
 * workload and sending outputs, with deadlines on every wait so that a dead peer ends the job
 * instead of hanging it. */
#ifndef TS_RT_EXEC_H
#define TS_RT_EXEC_H

#include <mpi.h>
#include <stddef.h>
#include "rt_backend.h"
#include "ts_clock.h"
#include "rt_plan.h"

typedef struct ts_rt_exec ts_rt_exec;

/* Result of a workload's check on one rank. */
typedef struct {
    /* instances (dataflow) or weight shards (train) compared */
    long compared;
    long failed;
    double max_rel_error;
    /* the first mismatch, for the message */
    char first[256];
} ts_rt_check;

/* What a workload plugs into the loop. Messages are msg_floats host floats each. */
typedef struct ts_rt_workload {
    const char *name;
    size_t msg_floats;
    void *state;
    /* Runs once the inputs are there, before the compute is timed (may be NULL): the timing
     * workload waits out the edges' delays here, so that they count as waiting, not compute. */
    int (*before_compute)(struct ts_rt_workload *w, ts_rt_exec *x, const ts_rt_op *op,
                          const float *const *inputs, ts_err *e);
    /* inputs[i] belongs to op->inputs[i]; out has msg_floats floats (zeroed). */
    int (*compute)(struct ts_rt_workload *w, ts_rt_exec *x, const ts_rt_op *op,
                   const float *const *inputs, float *out, ts_err *e);
    /* may be NULL */
    int (*end_iteration)(struct ts_rt_workload *w, ts_rt_exec *x, int iteration, ts_err *e);
    /* Compares what this rank computed with a single-process recomputation (NULL: nothing to
     * check, as for timing). */
    int (*check)(struct ts_rt_workload *w, const ts_rt_plan *p, int rank, ts_rt_check *c,
                 ts_err *e);
    /* This rank's share of the last iteration's loss (NULL: the workload has no loss). */
    double (*loss)(const struct ts_rt_workload *w);
    void (*destroy)(struct ts_rt_workload *w);
} ts_rt_workload;

struct ts_rt_exec {
    const ts_rt_plan *plan;
    int rank, size;
    MPI_Comm world;
    /* plan->ngroups; MPI_COMM_NULL where this rank is not a member */
    MPI_Comm *group_comm;
    /* seconds for any single wait */
    double timeout;
    /* TS_RT_INJECT_* fault for tests (0: none) */
    int inject;
    /* seconds of yielding before a wait sleeps between polls (1 s) */
    double poll_sleep_after;
    int injected;
    ts_rt_backend *be;
    ts_rt_workload *w;
    /* one iteration's state */
    /* per entry: this rank's output buffer while someone still needs it */
    float **out;
    /* per entry: local uses + pending sends left */
    int *refs;
    MPI_Request *sreq;
    int *sreq_entry;
    int nsend, cap_send;
    /* the instance being run, for messages */
    const ts_rt_op *cur;
    /* measurements of the last iteration, seconds from the iteration's start on this rank */
    /* per op of this rank */
    double *t_ready, *t_start, *t_end;
    double t_finish, t_base;
    long long live_bytes, peak_bytes;
};

int ts_rt_exec_init(ts_rt_exec *x, const ts_rt_plan *p, MPI_Comm world, double timeout,
                    ts_rt_backend *be, ts_rt_workload *w, ts_err *e);
void ts_rt_exec_destroy(ts_rt_exec *x);
/* Runs one iteration of the stream; on failure e names the rank and instance. */
int ts_rt_exec_iteration(ts_rt_exec *x, int iteration, ts_err *e);

/* Waits for requests with the deadline; `what` ends the timeout message. */
int ts_rt_exec_wait(ts_rt_exec *x, int n, MPI_Request *req, const char *what, ts_err *e);
/* Sum over the devices of block b, on backend memory (NCCL or host-staged MPI). */
int ts_rt_exec_allreduce(ts_rt_exec *x, int block, float *buf, size_t n, ts_err *e);
/* Live-activation accounting for state a workload keeps between instances. */
void ts_rt_exec_account(ts_rt_exec *x, long long bytes);
/* Fails with a message naming this rank and the current instance. */
int ts_rt_exec_fail(ts_rt_exec *x, ts_err *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
