/* One rank's replay loop. Receives are posted when an instance is next and completed by polling
 * against a deadline; sends are non-blocking and completed lazily, so a rank never stalls on a
 * consumer that is busy. Output buffers live exactly as long as a local consumer or a pending send
 * still needs them, which is what the live-activation figure measures. */
#include "rt_exec.h"

#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int ts_rt_exec_fail(ts_rt_exec *x, ts_err *e, int code, const char *fmt, ...)
{
    char msg[TS_ERRLEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (x->cur)
        return ts_fail(e, code, "rank %d, instance %s micro %d: %s", x->rank,
                       x->plan->s->placement->blocks[x->cur->block].id, x->cur->micro, msg);
    return ts_fail(e, code, "rank %d: %s", x->rank, msg);
}

void ts_rt_exec_account(ts_rt_exec *x, long long bytes)
{
    x->live_bytes += bytes;
    if (x->live_bytes > x->peak_bytes)
        x->peak_bytes = x->live_bytes;
}

/* Polls rather than blocking so that the deadline holds. Between polls it yields the core (ranks
 * may share cores with each other and with other work) but stays runnable: sleeping instead made
 * every wake-up late by up to a scheduler tick on a loaded machine, and those delays add up along
 * the critical path (timing efficiency on kshape fell from about 0.93 to 0.85). Only a wait longer
 * than poll_sleep_after seconds sleeps between polls, so that a stuck peer does not burn a core. */
int ts_rt_exec_wait(ts_rt_exec *x, int n, MPI_Request *req, const char *what, ts_err *e)
{
    if (n <= 0)
        return TS_OK;
    double t0 = ts_clock_now(), deadline = t0 + x->timeout;
    for (long spins = 0;; spins++) {
        int flag = 0;
        int rc = MPI_Testall(n, req, &flag, MPI_STATUSES_IGNORE);
        if (rc != MPI_SUCCESS) {
            char s[MPI_MAX_ERROR_STRING];
            int len = 0;
            MPI_Error_string(rc, s, &len);
            return ts_rt_exec_fail(x, e, TS_ESYS, "MPI failed while waiting for %s: %s", what, s);
        }
        if (flag)
            return TS_OK;
        if (spins < 200)
            continue;
        double now = ts_clock_now();
        if (now > deadline)
            return ts_rt_exec_fail(x, e, TS_ESYS, "timed out after %g s waiting for %s", x->timeout,
                                   what);
        if (now - t0 < x->poll_sleep_after) {
            sched_yield();
        } else {
            struct timespec ts = {0, 20000};
            nanosleep(&ts, NULL);
        }
    }
}

int ts_rt_exec_allreduce(ts_rt_exec *x, int block, float *buf, size_t n, ts_err *e)
{
    int g = x->plan->block_group[block];
    if (g < 0 || n == 0)
        return TS_OK;
    if (x->be->allreduce) {
        ts_err sub = {0};
        if (x->be->allreduce(x->be, g, buf, n, ts_clock_now() + x->timeout, &sub) != TS_OK)
            return ts_rt_exec_fail(x, e, sub.code ? sub.code : TS_ESYS, "%s", sub.msg);
        return TS_OK;
    }
    float *host = buf;
    if (!x->be->host_memory) {
        host = malloc(n * sizeof(float));
        if (!host)
            return ts_rt_exec_fail(x, e, TS_ESYS, "out of memory staging a collective");
        if (x->be->download(x->be, host, buf, n) != TS_OK) {
            free(host);
            return ts_rt_exec_fail(x, e, TS_ESYS, "device to host copy failed");
        }
    }
    MPI_Request req;
    int rc = MPI_Iallreduce(MPI_IN_PLACE, host, (int)n, MPI_FLOAT, MPI_SUM, x->group_comm[g], &req);
    if (rc == MPI_SUCCESS) {
        char what[96];
        snprintf(what, sizeof what, "the collective of its %d devices",
                 x->plan->s->placement->blocks[block].ndevices);
        rc = ts_rt_exec_wait(x, 1, &req, what, e);
    } else {
        rc = ts_rt_exec_fail(x, e, TS_ESYS, "MPI_Iallreduce failed");
    }
    if (rc == TS_OK && !x->be->host_memory && x->be->upload(x->be, buf, host, n) != TS_OK)
        rc = ts_rt_exec_fail(x, e, TS_ESYS, "host to device copy failed");
    if (host != buf)
        free(host);
    return rc;
}

int ts_rt_exec_init(ts_rt_exec *x, const ts_rt_plan *p, MPI_Comm world, double timeout,
                    ts_rt_backend *be, ts_rt_workload *w, ts_err *e)
{
    memset(x, 0, sizeof *x);
    x->plan = p;
    x->world = world;
    x->timeout = timeout;
    x->poll_sleep_after = 1.0;
    x->be = be;
    x->w = w;
    MPI_Comm_rank(world, &x->rank);
    MPI_Comm_size(world, &x->size);
    size_t nent = (size_t)p->s->nentries;
    int nops = p->streams[x->rank].nops;
    x->group_comm = malloc(sizeof(MPI_Comm) * (size_t)(p->ngroups + 1));
    x->out = calloc(nent + 1, sizeof(float *));
    x->refs = calloc(nent + 1, sizeof(int));
    x->t_ready = calloc((size_t)nops + 1, sizeof(double));
    x->t_start = calloc((size_t)nops + 1, sizeof(double));
    x->t_end = calloc((size_t)nops + 1, sizeof(double));
    if (!x->group_comm || !x->out || !x->refs || !x->t_ready || !x->t_start || !x->t_end)
        return ts_rt_exec_fail(x, e, TS_ESYS, "out of memory");
    /* Communicators for every multi-device block's device set, created once, in the same order
     * on every rank (MPI_Comm_split is collective over the world). */
    for (int g = 0; g < p->ngroups; g++) {
        int member = 0;
        for (int i = p->group_off[g]; i < p->group_off[g + 1]; i++)
            if (p->group_devs[i] == x->rank)
                member = 1;
        if (MPI_Comm_split(world, member ? 0 : MPI_UNDEFINED, x->rank, &x->group_comm[g]) !=
            MPI_SUCCESS) {
            for (int h = 0; h < g; h++)
                if (x->group_comm[h] != MPI_COMM_NULL)
                    MPI_Comm_free(&x->group_comm[h]);
            free(x->group_comm);
            x->group_comm = NULL;
            return ts_rt_exec_fail(x, e, TS_ESYS, "MPI_Comm_split failed for device group %d", g);
        }
        x->group_comm[g] = member ? x->group_comm[g] : MPI_COMM_NULL;
    }
    return TS_OK;
}

static void ts_rt_release_output(ts_rt_exec *x, int entry)
{
    if (--x->refs[entry] > 0 || !x->out[entry])
        return;
    free(x->out[entry]);
    x->out[entry] = NULL;
    ts_rt_exec_account(x, -(long long)(x->w->msg_floats * sizeof(float)));
}

/* Completes whatever sends have finished, releasing their buffers. */
static int ts_rt_progress_sends(ts_rt_exec *x, ts_err *e)
{
    int i = 0;
    while (i < x->nsend) {
        int flag = 0;
        if (MPI_Test(&x->sreq[i], &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return ts_rt_exec_fail(x, e, TS_ESYS, "a send failed");
        if (!flag) {
            i++;
            continue;
        }
        ts_rt_release_output(x, x->sreq_entry[i]);
        x->sreq[i] = x->sreq[x->nsend - 1];
        x->sreq_entry[i] = x->sreq_entry[x->nsend - 1];
        x->nsend--;
    }
    return TS_OK;
}

/* The inputs of an instance: local ones point at the producer's output, remote ones are received
 * into recv[k]; all of them are there when this returns TS_OK. */
typedef struct {
    const float **in;
    float **recv;
    MPI_Request *req;
} ts_rt_inputs;

static int ts_rt_receive_inputs(ts_rt_exec *x, const ts_rt_op *op, ts_rt_inputs *io, ts_err *e)
{
    const ts_rt_plan *p = x->plan;
    const ts_placement *pl = p->s->placement;
    size_t mf = x->w->msg_floats, bytes = mf * sizeof(float);
    int nreq = 0, rc = TS_OK;
    char what[160] = "";
    for (int k = 0; k < op->ninputs && rc == TS_OK; k++) {
        const ts_rt_input *inp = &op->inputs[k];
        if (inp->local) {
            io->in[k] = x->out[inp->src_entry];
            if (!io->in[k])
                rc = ts_rt_exec_fail(x, e, TS_ESYS, "local input from %s is missing (order broken)",
                                     pl->blocks[p->s->entries[inp->src_entry].block].id);
            continue;
        }
        io->recv[k] = malloc(bytes ? bytes : 1);
        if (!io->recv[k])
            return ts_rt_exec_fail(x, e, TS_ESYS, "out of memory for a receive");
        ts_rt_exec_account(x, (long long)bytes);
        io->in[k] = io->recv[k];
        if (MPI_Irecv(io->recv[k], (int)mf, MPI_FLOAT, inp->from, inp->tag, x->world,
                      &io->req[nreq++]) != MPI_SUCCESS)
            rc = ts_rt_exec_fail(x, e, TS_ESYS, "MPI_Irecv failed");
        if (!what[0]) {
            const ts_entry *src = &p->s->entries[inp->src_entry];
            snprintf(what, sizeof what, "input from rank %d (%s micro %d)", inp->from,
                     pl->blocks[src->block].id, src->micro);
        }
    }
    if (rc == TS_OK && x->inject == 2 && x->rank == x->size - 1 &&
        x->cur == &p->streams[x->rank].ops[1]) {
        /* TS_RT_INJECT_STALL: stop answering; the peers' deadlines must end the job */
        for (;;) {
            struct timespec ts = {1, 0};
            nanosleep(&ts, NULL);
        }
    }
    if (rc == TS_OK)
        rc = ts_rt_exec_wait(x, nreq, io->req, what, e);
    if (rc == TS_OK && x->inject == 1 && x->rank == x->size - 1 && !x->injected)
        for (int k = 0; k < op->ninputs; k++)
            /* TS_RT_INJECT_WRONG_INPUT: lose one message's data */
            if (io->recv[k] && !x->injected) {
                memset(io->recv[k], 0, bytes);
                x->injected = 1;
            }
    return rc;
}

/* Frees the received inputs and drops this instance's hold on the local ones. */
static void ts_rt_release_inputs(ts_rt_exec *x, const ts_rt_op *op, ts_rt_inputs *io, int done)
{
    size_t bytes = x->w->msg_floats * sizeof(float);
    for (int k = 0; k < op->ninputs; k++) {
        if (io->recv[k]) {
            free(io->recv[k]);
            ts_rt_exec_account(x, -(long long)bytes);
        } else if (op->inputs[k].local && done) {
            ts_rt_release_output(x, op->inputs[k].src_entry);
        }
    }
    free(io->in);
    free(io->recv);
    free(io->req);
}

/* Keeps the output for local uses and sends it to every rank that needs it. */
static int ts_rt_send_output(ts_rt_exec *x, const ts_rt_op *op, float *out, ts_err *e)
{
    int mf = (int)x->w->msg_floats;
    x->out[op->entry] = out;
    x->refs[op->entry] = op->nlocal_uses + op->noutputs + 1;
    if (x->nsend + op->noutputs > x->cap_send) {
        int cap = 2 * (x->nsend + op->noutputs) + 16;
        MPI_Request *r = realloc(x->sreq, sizeof(MPI_Request) * (size_t)cap);
        if (r)
            x->sreq = r;
        int *en = realloc(x->sreq_entry, sizeof(int) * (size_t)cap);
        if (en)
            x->sreq_entry = en;
        if (!r || !en)
            return ts_rt_exec_fail(x, e, TS_ESYS, "out of memory for sends");
        x->cap_send = cap;
    }
    for (int k = 0; k < op->noutputs; k++) {
        const ts_rt_output *o = &op->outputs[k];
        if (MPI_Isend(out, mf, MPI_FLOAT, o->to, o->tag, x->world, &x->sreq[x->nsend]) !=
            MPI_SUCCESS)
            return ts_rt_exec_fail(x, e, TS_ESYS, "MPI_Isend to rank %d failed", o->to);
        x->sreq_entry[x->nsend++] = op->entry;
    }
    /* the +1 above: the instance itself is done with it */
    ts_rt_release_output(x, op->entry);
    return TS_OK;
}

/* One instance: inputs, the workload's wait (delays), the timed compute, then the output. */
static int ts_rt_run_op(ts_rt_exec *x, int i, double base, ts_err *e)
{
    const ts_rt_op *op = &x->plan->streams[x->rank].ops[i];
    size_t mf = x->w->msg_floats, bytes = mf * sizeof(float);
    x->cur = op;
    int rc = ts_rt_progress_sends(x, e);
    if (rc != TS_OK)
        return rc;
    ts_rt_inputs io = {calloc((size_t)op->ninputs + 1, sizeof(float *)),
                       calloc((size_t)op->ninputs + 1, sizeof(float *)),
                       calloc((size_t)op->ninputs + 1, sizeof(MPI_Request))};
    if (!io.in || !io.recv || !io.req) {
        free(io.in);
        free(io.recv);
        free(io.req);
        return ts_rt_exec_fail(x, e, TS_ESYS, "out of memory");
    }
    rc = ts_rt_receive_inputs(x, op, &io, e);
    x->t_ready[i] = ts_clock_now() - base;
    if (rc == TS_OK && x->w->before_compute)
        rc = x->w->before_compute(x->w, x, op, io.in, e);
    float *out = NULL;
    if (rc == TS_OK) {
        out = calloc(mf ? mf : 1, sizeof(float));
        if (!out)
            rc = ts_rt_exec_fail(x, e, TS_ESYS, "out of memory for an output");
        else
            ts_rt_exec_account(x, (long long)bytes);
    }
    x->t_start[i] = ts_clock_now() - base;
    if (rc == TS_OK)
        rc = x->w->compute(x->w, x, op, io.in, out, e);
    x->t_end[i] = ts_clock_now() - base;
    ts_rt_release_inputs(x, op, &io, rc == TS_OK);
    if (rc != TS_OK) {
        free(out);
        return rc;
    }
    return ts_rt_send_output(x, op, out, e);
}

int ts_rt_exec_iteration(ts_rt_exec *x, int iteration, ts_err *e)
{
    const ts_rt_stream *st = &x->plan->streams[x->rank];
    x->cur = NULL;
    MPI_Request bar;
    if (MPI_Ibarrier(x->world, &bar) != MPI_SUCCESS)
        return ts_rt_exec_fail(x, e, TS_ESYS, "MPI_Ibarrier failed");
    int rc = ts_rt_exec_wait(x, 1, &bar, "the other ranks to start the iteration", e);
    if (rc != TS_OK)
        return rc;
    double base = ts_clock_now();
    x->t_base = base;
    for (int i = 0; i < st->nops && rc == TS_OK; i++)
        rc = ts_rt_run_op(x, i, base, e);
    if (rc == TS_OK) {
        x->cur = NULL;
        rc = ts_rt_exec_wait(x, x->nsend, x->sreq, "its last sends to be received", e);
        if (rc == TS_OK)
            for (int i = 0; i < x->nsend; i++)
                ts_rt_release_output(x, x->sreq_entry[i]);
        if (rc == TS_OK)
            x->nsend = 0;
    }
    x->t_finish = ts_clock_now() - base;
    if (rc == TS_OK && x->w->end_iteration)
        rc = x->w->end_iteration(x->w, x, iteration, e);
    return rc;
}

void ts_rt_exec_destroy(ts_rt_exec *x)
{
    if (x->out)
        for (int i = 0; i < x->plan->s->nentries; i++)
            free(x->out[i]);
    free(x->out);
    free(x->refs);
    free(x->sreq);
    free(x->sreq_entry);
    free(x->t_ready);
    free(x->t_start);
    free(x->t_end);
    if (x->group_comm)
        for (int g = 0; g < x->plan->ngroups; g++)
            if (x->group_comm[g] != MPI_COMM_NULL)
                MPI_Comm_free(&x->group_comm[g]);
    free(x->group_comm);
    memset(x, 0, sizeof *x);
}
