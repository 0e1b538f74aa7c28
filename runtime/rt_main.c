/* tessel-run: replays a schedule on MPI ranks (rank r = device r). Setup failures are agreed on by
 * all ranks and reported once; a failure while running ends the job with MPI_Abort and a message
 * naming the rank and the instance, so that no rank is left waiting. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_backend.h"
#include "rt_exec.h"
#include "rt_options.h"
#include "rt_plan.h"
#include "rt_report.h"
#include "rt_summary.h"
#include "rt_workloads.h"
#include "ts_schedule.h"
#ifdef TS_HAVE_CUDA
#include "rt_cuda.h"
#endif

/* In the sanitizer build, look for leaks while MPI is still initialised: after MPI_Finalize its
 * plugins are unloaded and their own allocations can no longer be told from ours. */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#define RT_LEAK_CHECK() __lsan_do_leak_check()
#define RT_LEAK_IGNORE_BEGIN() __lsan_disable()
#define RT_LEAK_IGNORE_END() __lsan_enable()
#else
#define RT_LEAK_CHECK() ((void)0)
#define RT_LEAK_IGNORE_BEGIN() ((void)0)
#define RT_LEAK_IGNORE_END() ((void)0)
#endif

typedef struct {
    rt_options o;
    ts_schedule *sched;
    rt_plan *plan;
    rt_backend *be;
    rt_workload *w;
    int rank, size;
    MPI_Comm world;
} rt_run;

static int setup(rt_run *run, ts_err *e) {
    const rt_options *o = &run->o;
    ts_schedule *loaded = NULL;
    int rc = ts_schedule_load(o->schedule, &loaded, e);
    if (rc != TS_OK) return rc;
    int n = o->micro_batches ? o->micro_batches : loaded->nmicros;
    if (n == loaded->nmicros) {
        run->sched = ts_schedule_clone(loaded);
        if (!run->sched) rc = ts_fail(e, TS_ESYS, "out of memory");
    } else {
        ts_err sub = {0};
        rc = ts_schedule_unroll(loaded, n, &run->sched, &sub);
        if (rc != TS_OK)
            rc = ts_fail(e, rc, "%s: cannot replay %d micro-batches: %s", o->schedule, n, sub.msg);
    }
    ts_schedule_free(loaded);
    if (rc != TS_OK) return rc;
    const ts_placement *pl = run->sched->placement;
    ts_validate_opts vo = {0};
    ts_err sub = {0};
    if (ts_schedule_validate(run->sched, &vo, &sub) != TS_OK)
        return ts_fail(e, TS_ENOANSWER, "%s is not a valid schedule, refusing to replay it: %s",
                       o->schedule, sub.msg);
    if (pl->ndevs != run->size)
        return ts_fail(e, TS_EINPUT,
                       "%s schedules %d devices but the job has %d ranks (run it with mpirun -np %d)",
                       o->schedule, pl->ndevs, run->size, pl->ndevs);
    int widest = 1;
    for (int b = 0; b < pl->nblocks; b++)
        if (pl->blocks[b].ndevices > widest) widest = pl->blocks[b].ndevices;
    if (o->size < widest)
        return ts_fail(e, TS_EINPUT, "--size %d is smaller than the %d devices of the widest block",
                       o->size, widest);
    if ((rc = rt_plan_build(run->sched, &run->plan, e)) != TS_OK) return rc;
    void *ub = NULL;
    int flag = 0;
    MPI_Comm_get_attr(run->world, MPI_TAG_UB, &ub, &flag);
    if (flag && run->plan->max_tag > *(int *)ub)
        return ts_fail(e, TS_EINPUT,
                       "%s needs message tags up to %ld but this MPI allows %d; use fewer "
                       "micro-batches", o->schedule, run->plan->max_tag, *(int *)ub);
    if (o->backend == RT_BACKEND_CUDA) {
#ifdef TS_HAVE_CUDA
        rc = rt_cuda_backend_for_rank(run->world, &run->be, e);
        if (rc != TS_OK) return rc;
#else
        return ts_fail(e, TS_EINPUT, "--backend cuda: this tessel-run was built without CUDA");
#endif
    } else if (!(run->be = rt_backend_cpu_new(e))) {
        return TS_ESYS;
    }
    rt_workload_opts wo = {o->size, o->unit_us, run->sched->nmicros, o->check};
    switch (o->workload) {
    case RT_WORK_DATAFLOW: return rt_dataflow_new(run->plan, run->rank, run->be, &wo, &run->w, e);
    case RT_WORK_TRAIN: return rt_train_new(run->plan, run->rank, run->be, &wo, &run->w, e);
    case RT_WORK_TIMING: return rt_timing_new(run->plan, run->be, &wo, &run->w, e);
    }
    return TS_OK;
}

static void teardown(rt_run *run) {
    if (run->w) run->w->destroy(run->w);
    if (run->be) run->be->destroy(run->be);
    rt_plan_free(run->plan);
    ts_schedule_free(run->sched);
}

/* Every rank returns the worst code; the message is printed by rank 0 when rank 0 failed (the
 * ranks read the same file, so they fail alike), else by each rank that failed. */
static int agree(rt_run *run, int rc, const ts_err *e) {
    int rc0 = rc, worst = rc;
    MPI_Bcast(&rc0, 1, MPI_INT, 0, run->world);
    MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, run->world);
    if (rc != TS_OK && (run->rank == 0 || rc0 == TS_OK)) {
        if (run->rank == 0) fprintf(stderr, "tessel-run: %s\n", e->msg);
        else fprintf(stderr, "tessel-run: rank %d: %s\n", run->rank, e->msg);
    }
    return worst;
}

static void die(rt_run *run, const ts_err *e) {
    fprintf(stderr, "tessel-run: %s\n", e->msg);
    fflush(stderr);
    MPI_Abort(run->world, e->code ? e->code : TS_ESYS);
}

int main(int argc, char **argv) {
    RT_LEAK_IGNORE_BEGIN(); /* MPI_Init's plugins allocate, then some are unloaded */
    MPI_Init(&argc, &argv);
    RT_LEAK_IGNORE_END();
    rt_run run;
    memset(&run, 0, sizeof run);
    run.world = MPI_COMM_WORLD;
    MPI_Comm_set_errhandler(run.world, MPI_ERRORS_RETURN);
    MPI_Comm_rank(run.world, &run.rank);
    MPI_Comm_size(run.world, &run.size);
    ts_err e = {0};
    int rc = rt_options_parse(argc, argv, &run.o, &e);
    if (rc == TS_OK && run.o.help) {
        if (run.rank == 0) fputs(rt_options_usage(), stdout);
        RT_LEAK_CHECK();
        MPI_Finalize();
        return 0;
    }
    if (rc == TS_OK) rc = setup(&run, &e);
    rc = agree(&run, rc, &e);
    rt_exec x;
    memset(&x, 0, sizeof x);
    if (rc == TS_OK) rc = agree(&run, rt_exec_init(&x, run.plan, run.world, run.o.timeout, run.be,
                                                   run.w, &e), &e);
    x.inject = run.o.inject;
#ifdef TS_HAVE_CUDA
    if (rc == TS_OK && run.o.backend == RT_BACKEND_CUDA)
        rc = agree(&run, rt_cuda_setup_groups(run.be, run.world, run.plan->ngroups, x.group_comm, &e),
                   &e);
#endif
    if (rc != TS_OK) {
        if (x.plan) rt_exec_destroy(&x);
        teardown(&run);
        RT_LEAK_CHECK();
        MPI_Finalize();
        return rc;
    }
    const rt_plan *p = run.plan;
    const rt_options *o = &run.o;
    int R = run.size, nops = p->streams[run.rank].nops, iters = o->iterations;
    /* gathered per iteration: ready, start, end per op, then finish, base, peak bytes */
    int *counts = calloc((size_t)R, sizeof(int)), *displs = calloc((size_t)R, sizeof(int));
    int total = 0;
    for (int r = 0; r < R; r++) {
        counts[r] = 3 * p->streams[r].nops + 3;
        displs[r] = total;
        total += counts[r];
    }
    double *mine = malloc(sizeof(double) * (size_t)(3 * nops + 3));
    double *all = malloc(sizeof(double) * (size_t)total);
    const double **rd = calloc((size_t)R, sizeof(double *)), **sd = calloc((size_t)R, sizeof(double *));
    const double **ed = calloc((size_t)R, sizeof(double *));
    double *fin = calloc((size_t)R, sizeof(double)), *bas = calloc((size_t)R, sizeof(double));
    double *peak = calloc((size_t)R, sizeof(double));
    double *bsec = calloc((size_t)p->nblocks + 1, sizeof(double));
    rt_iter_stats *stats = calloc((size_t)iters, sizeof(rt_iter_stats));
    double *losses = calloc((size_t)iters, sizeof(double));
    if (!counts || !displs || !mine || !all || !rd || !sd || !ed || !fin || !bas || !peak || !bsec ||
        !stats || !losses) {
        ts_fail(&e, TS_ESYS, "rank %d: out of memory for measurements", run.rank);
        die(&run, &e);
    }
    rt_timings tm = {R, rd, sd, ed, fin, bas};
    rt_summary sum = {o, p, run.w->name, run.be->name, R, iters, stats, losses, bsec, peak,
                      false, 0, 0, 0, true, true};
    for (int it = 0; it < iters; it++) {
        if (rt_exec_iteration(&x, it, &e) != TS_OK) die(&run, &e);
        memcpy(mine, x.t_ready, sizeof(double) * (size_t)nops);
        memcpy(mine + nops, x.t_start, sizeof(double) * (size_t)nops);
        memcpy(mine + 2 * nops, x.t_end, sizeof(double) * (size_t)nops);
        mine[3 * nops] = x.t_finish;
        mine[3 * nops + 1] = x.t_base;
        mine[3 * nops + 2] = (double)x.peak_bytes;
        MPI_Request req[2];
        MPI_Igatherv(mine, 3 * nops + 3, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0, run.world,
                     &req[0]);
        double loss = o->workload == RT_WORK_TRAIN ? rt_train_loss(run.w) : 0, loss_sum = 0;
        MPI_Ireduce(&loss, &loss_sum, 1, MPI_DOUBLE, MPI_SUM, 0, run.world, &req[1]);
        x.cur = NULL;
        if (rt_exec_wait(&x, 2, req, "the measurements of the other ranks", &e) != TS_OK) die(&run, &e);
        if (run.rank != 0) continue;
        for (int r = 0; r < R; r++) {
            int n = p->streams[r].nops;
            rd[r] = all + displs[r];
            sd[r] = all + displs[r] + n;
            ed[r] = all + displs[r] + 2 * n;
            fin[r] = all[displs[r] + 3 * n];
            bas[r] = all[displs[r] + 3 * n + 1];
            if (all[displs[r] + 3 * n + 2] > peak[r]) peak[r] = all[displs[r] + 3 * n + 2];
        }
        double unit_s = o->workload == RT_WORK_TIMING ? o->unit_us * 1e-6 : 0;
        if (rt_report_iteration(p, &tm, unit_s, bsec, &stats[it], &e) != TS_OK) die(&run, &e);
        losses[it] = loss_sum;
        if (!o->json) {
            if (it == 0) rt_summary_header(&sum, stdout);
            rt_summary_row(&sum, it, stdout);
        }
    }
    int exit_code = 0;
    char first[256] = "";
    if (o->check && o->workload != RT_WORK_TIMING) {
        rt_check c = {0};
        if (o->workload == RT_WORK_DATAFLOW) rc = rt_dataflow_check(run.w, p, run.rank, &c, &e);
        else rc = rt_train_check(run.w, p, run.rank, &c, &e);
        if (rc != TS_OK) die(&run, &e);
        sum.checked = true;
        MPI_Reduce(&c.failed, &sum.failed, 1, MPI_LONG, MPI_SUM, 0, run.world);
        MPI_Reduce(&c.compared, &sum.compared, 1, MPI_LONG, MPI_SUM, 0, run.world);
        MPI_Reduce(&c.max_rel_error, &sum.max_rel_error, 1, MPI_DOUBLE, MPI_MAX, 0, run.world);
        /* the first mismatch of the lowest rank that has one */
        char *gather = run.rank == 0 ? malloc(sizeof c.first * (size_t)R) : NULL;
        MPI_Gather(c.first, (int)sizeof c.first, MPI_CHAR, gather, (int)sizeof c.first, MPI_CHAR, 0,
                   run.world);
        for (int r = 0; gather && r < R && !first[0]; r++)
            if (gather[sizeof c.first * r])
                snprintf(first, sizeof first, "%.255s", gather + sizeof c.first * r);
        free(gather);
        if (o->workload == RT_WORK_TRAIN && iters >= 2 && !(losses[iters - 1] < losses[0]))
            sum.loss_ok = false;
        sum.passed = sum.failed == 0 && sum.loss_ok;
        if (run.rank == 0 && !sum.passed) exit_code = 1;
    }
    if (run.rank == 0 && o->trace && rt_report_trace(p, &tm, o->trace, &e) != TS_OK) {
        fprintf(stderr, "tessel-run: %s\n", e.msg);
        exit_code = exit_code ? exit_code : TS_ESYS;
    }
    if (run.rank == 0) {
        if (o->json) rt_summary_json(&sum, stdout);
        else rt_summary_text(&sum, stdout);
        if (sum.failed) fprintf(stderr, "tessel-run: check failed: %s\n", first);
        if (!sum.loss_ok)
            fprintf(stderr, "tessel-run: check failed: the loss did not decrease (%g -> %g)\n",
                    losses[0], losses[iters - 1]);
    }
    MPI_Bcast(&exit_code, 1, MPI_INT, 0, run.world);
    free(counts);
    free(displs);
    free(mine);
    free(all);
    free(rd);
    free(sd);
    free(ed);
    free(fin);
    free(bas);
    free(peak);
    free(bsec);
    free(stats);
    free(losses);
    rt_exec_destroy(&x);
    teardown(&run);
    RT_LEAK_CHECK();
    MPI_Finalize();
    return exit_code;
}
