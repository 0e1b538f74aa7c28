/* Measurement gathering: one Igatherv of every rank's timings per iteration (waited on with the
 * replay's deadline, so that a dead rank ends the job), and reductions of the check's counts. */
#include "rt_gather.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ts_rt_gather_init(ts_rt_gather *g, const ts_rt_plan *p, int rank, int nranks, ts_err *e)
{
    memset(g, 0, sizeof *g);
    int nops = p->streams[rank].nops, total = 0;
    g->counts = calloc((size_t)nranks, sizeof(int));
    g->displs = calloc((size_t)nranks, sizeof(int));
    if (g->counts && g->displs)
        for (int r = 0; r < nranks; r++) {
            g->counts[r] = 3 * p->streams[r].nops + 3;
            g->displs[r] = total;
            total += g->counts[r];
        }
    g->mine = malloc(sizeof(double) * (size_t)(3 * nops + 3));
    g->all = malloc(sizeof(double) * (size_t)(total + 1));
    g->ready = calloc((size_t)nranks, sizeof(double *));
    g->start = calloc((size_t)nranks, sizeof(double *));
    g->end = calloc((size_t)nranks, sizeof(double *));
    g->finish = calloc((size_t)nranks, sizeof(double));
    g->base = calloc((size_t)nranks, sizeof(double));
    g->peak = calloc((size_t)nranks, sizeof(double));
    if (!g->counts || !g->displs || !g->mine || !g->all || !g->ready || !g->start || !g->end ||
        !g->finish || !g->base || !g->peak) {
        ts_rt_gather_free(g);
        return ts_fail(e, TS_ESYS, "rank %d: out of memory for measurements", rank);
    }
    g->tm = (ts_rt_timings){nranks, g->ready, g->start, g->end, g->finish, g->base};
    return TS_OK;
}

void ts_rt_gather_free(ts_rt_gather *g)
{
    free(g->counts);
    free(g->displs);
    free(g->mine);
    free(g->all);
    free(g->ready);
    free(g->start);
    free(g->end);
    free(g->finish);
    free(g->base);
    free(g->peak);
    memset(g, 0, sizeof *g);
}

/* Points the per-rank views of g->tm into the gathered buffer (rank 0). */
static void ts_rt_unpack(ts_rt_gather *g, const ts_rt_plan *p, int nranks)
{
    for (int r = 0; r < nranks; r++) {
        int n = p->streams[r].nops;
        const double *a = g->all + g->displs[r];
        g->ready[r] = a;
        g->start[r] = a + n;
        g->end[r] = a + 2 * n;
        g->finish[r] = a[3 * n];
        g->base[r] = a[3 * n + 1];
        if (a[3 * n + 2] > g->peak[r])
            g->peak[r] = a[3 * n + 2];
    }
}

int ts_rt_gather_iteration(ts_rt_gather *g, ts_rt_exec *x, double loss, double *loss_sum, ts_err *e)
{
    int nops = x->plan->streams[x->rank].nops;
    memcpy(g->mine, x->t_ready, sizeof(double) * (size_t)nops);
    memcpy(g->mine + nops, x->t_start, sizeof(double) * (size_t)nops);
    memcpy(g->mine + 2 * nops, x->t_end, sizeof(double) * (size_t)nops);
    g->mine[3 * nops] = x->t_finish;
    g->mine[3 * nops + 1] = x->t_base;
    g->mine[3 * nops + 2] = (double)x->peak_bytes;
    MPI_Request req[2];
    MPI_Igatherv(g->mine, 3 * nops + 3, MPI_DOUBLE, g->all, g->counts, g->displs, MPI_DOUBLE, 0,
                 x->world, &req[0]);
    *loss_sum = 0;
    MPI_Ireduce(&loss, loss_sum, 1, MPI_DOUBLE, MPI_SUM, 0, x->world, &req[1]);
    x->cur = NULL;
    int rc = ts_rt_exec_wait(x, 2, req, "the measurements of the other ranks", e);
    if (rc == TS_OK && x->rank == 0)
        ts_rt_unpack(g, x->plan, x->size);
    return rc;
}

int ts_rt_gather_check(ts_rt_exec *x, ts_rt_workload *w, ts_rt_summary *sum, char *first,
                       size_t cap, ts_err *e)
{
    ts_rt_check c = {0};
    int rc = w->check(w, x->plan, x->rank, &c, e);
    if (rc != TS_OK)
        return rc;
    sum->checked = true;
    MPI_Reduce(&c.failed, &sum->failed, 1, MPI_LONG, MPI_SUM, 0, x->world);
    MPI_Reduce(&c.compared, &sum->compared, 1, MPI_LONG, MPI_SUM, 0, x->world);
    MPI_Reduce(&c.max_rel_error, &sum->max_rel_error, 1, MPI_DOUBLE, MPI_MAX, 0, x->world);
    char *all = x->rank == 0 ? malloc(sizeof c.first * (size_t)x->size) : NULL;
    MPI_Gather(c.first, (int)sizeof c.first, MPI_CHAR, all, (int)sizeof c.first, MPI_CHAR, 0,
               x->world);
    first[0] = '\0';
    for (int r = 0; all && r < x->size && !first[0]; r++)
        if (all[sizeof c.first * r])
            snprintf(first, cap, "%.255s", all + sizeof c.first * r);
    free(all);
    return TS_OK;
}
