/* The replay loop of one rank: run its instruction stream, receiving inputs, computing through a
 * workload and sending outputs, with deadlines on every wait so that a dead peer ends the job
 * instead of hanging it. */
#ifndef RT_EXEC_H
#define RT_EXEC_H

#include <mpi.h>
#include <stddef.h>
#include "rt_backend.h"
#include "rt_plan.h"

typedef struct rt_exec rt_exec;

/* Result of a workload's check on one rank. */
typedef struct {
    long compared; /* instances (dataflow) or weight shards (train) compared */
    long failed;
    double max_rel_error;
    char first[256]; /* the first mismatch, for the message */
} rt_check;

/* What a workload plugs into the loop. Messages are msg_floats host floats each. */
typedef struct rt_workload {
    const char *name;
    size_t msg_floats;
    void *state;
    /* Runs once the inputs are there, before the compute is timed (may be NULL): the timing
     * workload waits out the edges' delays here, so that they count as waiting, not compute. */
    int (*before_compute)(struct rt_workload *w, rt_exec *x, const rt_op *op,
                          const float *const *inputs, ts_err *e);
    /* inputs[i] belongs to op->inputs[i]; out has msg_floats floats (zeroed). */
    int (*compute)(struct rt_workload *w, rt_exec *x, const rt_op *op, const float *const *inputs,
                   float *out, ts_err *e);
    int (*end_iteration)(struct rt_workload *w, rt_exec *x, int iteration,
                         ts_err *e); /* may be NULL */
    /* Compares what this rank computed with a single-process recomputation (NULL: nothing to
     * check, as for timing). */
    int (*check)(struct rt_workload *w, const rt_plan *p, int rank, rt_check *c, ts_err *e);
    /* This rank's share of the last iteration's loss (NULL: the workload has no loss). */
    double (*loss)(const struct rt_workload *w);
    void (*destroy)(struct rt_workload *w);
} rt_workload;

struct rt_exec {
    const rt_plan *plan;
    int rank, size;
    MPI_Comm world;
    MPI_Comm *group_comm; /* plan->ngroups; MPI_COMM_NULL where this rank is not a member */
    double timeout; /* seconds for any single wait */
    int inject; /* RT_INJECT_* fault for tests (0: none) */
    double poll_sleep_after; /* seconds of yielding before a wait sleeps between polls (1 s) */
    int injected;
    rt_backend *be;
    rt_workload *w;
    /* one iteration's state */
    float **out; /* per entry: this rank's output buffer while someone still needs it */
    int *refs; /* per entry: local uses + pending sends left */
    MPI_Request *sreq;
    int *sreq_entry;
    int nsend, cap_send;
    const rt_op *cur; /* the instance being run, for messages */
    /* measurements of the last iteration, seconds from the iteration's start on this rank */
    double *t_ready, *t_start, *t_end; /* per op of this rank */
    double t_finish, t_base;
    long long live_bytes, peak_bytes;
};

double rt_now(void); /* monotonic seconds */

int rt_exec_init(rt_exec *x, const rt_plan *p, MPI_Comm world, double timeout, rt_backend *be,
                 rt_workload *w, ts_err *e);
void rt_exec_destroy(rt_exec *x);
/* Runs one iteration of the stream; on failure e names the rank and instance. */
int rt_exec_iteration(rt_exec *x, int iteration, ts_err *e);

/* Waits for requests with the deadline; `what` ends the timeout message. */
int rt_exec_wait(rt_exec *x, int n, MPI_Request *req, const char *what, ts_err *e);
/* Sum over the devices of block b, on backend memory (NCCL or host-staged MPI). */
int rt_exec_allreduce(rt_exec *x, int block, float *buf, size_t n, ts_err *e);
/* Live-activation accounting for state a workload keeps between instances. */
void rt_exec_account(rt_exec *x, long long bytes);
/* Fails with a message naming this rank and the current instance. */
int rt_exec_fail(rt_exec *x, ts_err *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
