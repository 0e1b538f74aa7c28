/* tessel-run: replays a schedule on MPI ranks (rank r = device r). Before any buffer is sized the
 * ranks check that they were started with the same options and schedule (rt_agree.h). Setup
 * failures are agreed on by all ranks and reported once; a failure while running ends the job with
 * MPI_Abort and a message naming the rank and the instance, so that no rank is left waiting.
 * Start-up (MPI_Init, set-up, agreement) and shutdown run under a watchdog (rt_watchdog.c) that
 * ends a rank left waiting in them for longer than --timeout. */
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_agree.h"
#include "rt_backend.h"
#include "rt_exec.h"
#include "rt_gather.h"
#include "rt_options.h"
#include "rt_plan.h"
#include "rt_report.h"
#include "rt_summary.h"
#include "rt_watchdog.h"
#include "rt_workloads.h"
#include "ts_schedule.h"
#ifdef TS_HAVE_CUDA
#include "rt_cuda.h"
#endif

/* In the sanitizer build, look for leaks while MPI is still initialised: after MPI_Finalize its
 * plugins are unloaded and their own allocations can no longer be told from ours. */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#define TS_RT_LEAK_CHECK() __lsan_do_leak_check()
#define TS_RT_LEAK_IGNORE_BEGIN() __lsan_disable()
#define TS_RT_LEAK_IGNORE_END() __lsan_enable()
#else
#define TS_RT_LEAK_CHECK() ((void)0)
#define TS_RT_LEAK_IGNORE_BEGIN() ((void)0)
#define TS_RT_LEAK_IGNORE_END() ((void)0)
#endif

typedef struct {
    ts_rt_options o;
    ts_schedule *sched;
    ts_rt_plan *plan;
    ts_rt_backend *be;
    ts_rt_workload *w;
    int rank, size;
    MPI_Comm world;
    /* start-up and shutdown deadline; NULL when it could not be started */
    ts_rt_watchdog *wd;
} ts_rt_run;

static int ts_rt_make_workload(ts_rt_run *run, ts_err *e)
{
    const ts_rt_options *o = &run->o;
    ts_rt_workload_opts wo = {o->size, o->unit_us, run->sched->nmicros, o->check};
    switch (o->workload) {
    case TS_RT_WORK_DATAFLOW:
        return ts_rt_dataflow_new(run->plan, run->rank, run->be, &wo, &run->w, e);
    case TS_RT_WORK_TRAIN: return ts_rt_train_new(run->plan, run->rank, run->be, &wo, &run->w, e);
    case TS_RT_WORK_TIMING: return ts_rt_timing_new(run->plan, run->be, &wo, &run->w, e);
    }
    return TS_OK;
}

/* The backend of this rank: CUDA (one GPU per rank) or the CPU's BLAS. */
static int ts_rt_make_backend(ts_rt_run *run, ts_err *e)
{
    if (run->o.backend == TS_RT_BACKEND_CUDA) {
#ifdef TS_HAVE_CUDA
        return ts_rt_cuda_backend_for_rank(run->world, &run->be, e);
#else
        return ts_fail(e, TS_EINPUT, "--backend cuda: this tessel-run was built without CUDA");
#endif
    }
    return (run->be = ts_rt_backend_cpu_new(e)) ? TS_OK : TS_ESYS;
}

/* The schedule to replay: the file, unrolled to --micro-batches, and valid. */
static int ts_rt_load_schedule(ts_rt_run *run, ts_err *e)
{
    const ts_rt_options *o = &run->o;
    ts_schedule *loaded = NULL;
    int rc = ts_schedule_load(o->schedule, &loaded, e);
    if (rc != TS_OK)
        return rc;
    int n = o->micro_batches ? o->micro_batches : loaded->nmicros;
    if (n == loaded->nmicros) {
        run->sched = ts_schedule_clone(loaded);
        if (!run->sched)
            rc = ts_fail(e, TS_ESYS, "out of memory");
    } else {
        ts_err sub = {0};
        rc = ts_schedule_unroll(loaded, n, &run->sched, &sub);
        if (rc != TS_OK)
            rc = ts_fail(e, rc, "%s: cannot replay %d micro-batches: %s", o->schedule, n, sub.msg);
    }
    ts_schedule_free(loaded);
    if (rc != TS_OK)
        return rc;
    ts_validate_opts vo = {0};
    ts_err sub = {0};
    if (ts_schedule_validate(run->sched, &vo, &sub) != TS_OK)
        return ts_fail(e, TS_ENOANSWER, "%s is not a valid schedule, refusing to replay it: %s",
                       o->schedule, sub.msg);
    return TS_OK;
}

/* The rest of the set-up, once every rank is known to replay the same schedule with the same
 * options: the rank count, the plan, the backend and the workload's buffers. */
static int ts_rt_setup(ts_rt_run *run, ts_err *e)
{
    const ts_rt_options *o = &run->o;
    int rc;
    const ts_placement *pl = run->sched->placement;
    if (pl->ndevs != run->size)
        return ts_fail(
            e, TS_EINPUT,
            "%s schedules %d devices but the job has %d ranks (run it with mpirun -np %d)",
            o->schedule, pl->ndevs, run->size, pl->ndevs);
    int widest = 1;
    for (int b = 0; b < pl->nblocks; b++)
        if (pl->blocks[b].ndevices > widest)
            widest = pl->blocks[b].ndevices;
    if (o->size < widest)
        return ts_fail(e, TS_EINPUT, "--size %d is smaller than the %d devices of the widest block",
                       o->size, widest);
    if ((rc = ts_rt_plan_build(run->sched, &run->plan, e)) != TS_OK)
        return rc;
    void *ub = NULL;
    int flag = 0;
    MPI_Comm_get_attr(run->world, MPI_TAG_UB, &ub, &flag);
    if (flag && run->plan->max_tag > *(int *)ub)
        return ts_fail(e, TS_EINPUT,
                       "%s needs message tags up to %ld but this MPI allows %d; use fewer "
                       "micro-batches",
                       o->schedule, run->plan->max_tag, *(int *)ub);
    if ((rc = ts_rt_make_backend(run, e)) != TS_OK)
        return rc;
    return ts_rt_make_workload(run, e);
}

static void ts_rt_teardown(ts_rt_run *run)
{
    if (run->w)
        run->w->destroy(run->w);
    if (run->be)
        run->be->destroy(run->be);
    ts_rt_plan_free(run->plan);
    ts_schedule_free(run->sched);
}

/* Every rank returns the worst code; the message is printed by rank 0 when rank 0 failed (the
 * ranks read the same file, so they fail alike), else by each rank that failed. */
static int ts_rt_agree(ts_rt_run *run, int rc, const ts_err *e)
{
    int rc0 = rc, worst = rc;
    MPI_Bcast(&rc0, 1, MPI_INT, 0, run->world);
    MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, run->world);
    if (rc != TS_OK && (run->rank == 0 || rc0 == TS_OK)) {
        if (run->rank == 0)
            fprintf(stderr, "tessel-run: %s\n", e->msg);
        else
            fprintf(stderr, "tessel-run: rank %d: %s\n", run->rank, e->msg);
    }
    return worst;
}

static void ts_rt_die(ts_rt_run *run, const ts_err *e)
{
    fprintf(stderr, "tessel-run: %s\n", e->msg);
    fflush(stderr);
    MPI_Abort(run->world, e->code ? e->code : TS_ESYS);
}

/* Every rank compares its options and schedule with rank 0's before any buffer is sized: a rank
 * started with another --size or --workload would overflow or starve its peers' receives, and one
 * with another schedule would wait for messages that no peer sends. Every rank returns the same
 * code; the lowest rank that differs prints why, once. */
static int ts_rt_compare_ranks(ts_rt_run *run, const ts_rt_agreement *mine, ts_err *e)
{
    ts_rt_agreement root = *mine;
    MPI_Bcast(&root, (int)sizeof root, MPI_BYTE, 0, run->world);
    int rc = ts_rt_agreement_compare(mine, run->rank, &root, e);
    int first = rc == TS_OK ? run->size : run->rank, lowest = first;
    MPI_Allreduce(&first, &lowest, 1, MPI_INT, MPI_MIN, run->world);
    if (lowest == run->size)
        return TS_OK;
    if (run->rank == lowest)
        fprintf(stderr, "tessel-run: %s\n", e->msg);
    else if (rc == TS_OK)
        ts_fail(e, TS_EINPUT, "rank %d does not agree with rank 0", lowest);
    return TS_EINPUT;
}

/* Options, schedule, plan, backend, workload and the replay loop's state, agreed on by all ranks.
 * Returns TS_OK with *help set when there is nothing to run. */
static int ts_rt_start(ts_rt_run *run, ts_rt_exec *x, int argc, char **argv, bool *help, ts_err *e)
{
    ts_rt_agreement mine;
    memset(&mine, 0, sizeof mine);
    int rc = ts_rt_options_parse(argc, argv, &run->o, e);
    if (rc == TS_OK && !run->o.help)
        rc = ts_rt_load_schedule(run, e);
    if (rc == TS_OK)
        rc = ts_rt_agreement_make(&run->o, run->sched, &mine, e);
    ts_rt_watchdog_phase(
        run->wd, run->rank,
        "start-up (agreeing on the options and the schedule with the other ranks)");
    rc = ts_rt_agree(run, rc, e);
    if (rc == TS_OK)
        rc = ts_rt_compare_ranks(run, &mine, e);
    *help = rc == TS_OK && run->o.help;
    if (*help) {
        if (run->rank == 0)
            fputs(ts_rt_options_usage(), stdout);
        return TS_OK;
    }
    if (rc == TS_OK) {
        ts_rt_watchdog_phase(run->wd, run->rank, "start-up (set-up: plan, backend, workload)");
        rc = ts_rt_setup(run, e);
        ts_rt_watchdog_phase(run->wd, run->rank,
                             "start-up (agreeing on the set-up with the other ranks)");
        rc = ts_rt_agree(run, rc, e);
    }
    if (rc == TS_OK)
        rc = ts_rt_agree(
            run, ts_rt_exec_init(x, run->plan, run->world, run->o.timeout, run->be, run->w, e), e);
    x->inject = run->o.inject;
#ifdef TS_HAVE_CUDA
    if (rc == TS_OK && run->o.backend == TS_RT_BACKEND_CUDA)
        rc = ts_rt_agree(
            run, ts_rt_cuda_setup_groups(run->be, run->world, run->plan->ngroups, x->group_comm, e),
            e);
#endif
    return rc;
}

/* The iterations: replay, gather, and on rank 0 analyse and print a row each. */
static void ts_rt_run_iterations(ts_rt_run *run, ts_rt_exec *x, ts_rt_gather *g, ts_rt_summary *sum,
                                 ts_err *e)
{
    const ts_rt_options *o = &run->o;
    ts_rt_iter_stats *stats = (ts_rt_iter_stats *)sum->stats;
    double *losses = (double *)sum->loss, *bsec = (double *)sum->block_seconds;
    double unit_s = o->workload == TS_RT_WORK_TIMING ? o->unit_us * 1e-6 : 0;
    for (int it = 0; it < o->iterations; it++) {
        if (ts_rt_exec_iteration(x, it, e) != TS_OK)
            ts_rt_die(run, e);
        double loss = run->w->loss ? run->w->loss(run->w) : 0;
        if (ts_rt_gather_iteration(g, x, loss, &losses[it], e) != TS_OK)
            ts_rt_die(run, e);
        if (run->rank != 0)
            continue;
        if (ts_rt_report_iteration(run->plan, &g->tm, unit_s, bsec, &stats[it], e) != TS_OK)
            ts_rt_die(run, e);
        if (!o->json) {
            if (it == 0)
                ts_rt_summary_header(sum, stdout);
            ts_rt_summary_row(sum, it, stdout);
        }
    }
}

/* The workload's check and the loss trend; the exit code on rank 0. */
static int ts_rt_verdict(ts_rt_run *run, ts_rt_exec *x, ts_rt_summary *sum, char *first, size_t cap,
                         ts_err *e)
{
    const ts_rt_options *o = &run->o;
    if (!o->check || !run->w->check)
        return 0;
    if (ts_rt_gather_check(x, run->w, sum, first, cap, e) != TS_OK)
        ts_rt_die(run, e);
    int iters = o->iterations;
    if (run->w->loss && iters >= 2 && !(sum->loss[iters - 1] < sum->loss[0]))
        sum->loss_ok = false;
    sum->passed = sum->failed == 0 && sum->loss_ok;
    return run->rank == 0 && !sum->passed ? 1 : 0;
}

/* Rank 0's trace file and final words. */
static int ts_rt_finish(ts_rt_run *run, const ts_rt_gather *g, const ts_rt_summary *sum,
                        const char *first, int exit_code, ts_err *e)
{
    const ts_rt_options *o = &run->o;
    if (run->rank != 0)
        return exit_code;
    if (o->trace && ts_rt_report_trace(run->plan, &g->tm, o->trace, e) != TS_OK) {
        fprintf(stderr, "tessel-run: %s\n", e->msg);
        exit_code = exit_code ? exit_code : TS_ESYS;
    }
    if (o->json)
        ts_rt_summary_json(sum, stdout);
    else
        ts_rt_summary_text(sum, stdout);
    if (sum->failed)
        fprintf(stderr, "tessel-run: check failed: %s\n", first);
    if (!sum->loss_ok)
        fprintf(stderr, "tessel-run: check failed: the loss did not decrease (%g -> %g)\n",
                sum->loss[0], sum->loss[o->iterations - 1]);
    return exit_code;
}

/* Shutdown under the watchdog: the exit code from rank 0, then MPI_Finalize, which waits for
 * every rank. */
static void ts_rt_shutdown(ts_rt_run *run, int *exit_code)
{
    ts_rt_watchdog_phase(run->wd, run->rank, "shutdown (MPI_Finalize)");
    if (exit_code)
        MPI_Bcast(exit_code, 1, MPI_INT, 0, run->world);
    TS_RT_LEAK_CHECK();
    MPI_Finalize();
    ts_rt_watchdog_stop(run->wd);
    run->wd = NULL;
}

int main(int argc, char **argv)
{
    ts_rt_run run;
    memset(&run, 0, sizeof run);
    ts_err e = {0};
    /* The options are parsed again once MPI runs; this first pass only finds --timeout, the
     * deadline of each start-up phase, MPI_Init's included. */
    ts_rt_options pre;
    ts_rt_options_parse(argc, argv, &pre, &e);
    if (ts_rt_watchdog_start(pre.timeout, ts_rt_launcher_rank(), "start-up (MPI_Init)", &run.wd,
                             &e) != TS_OK) {
        fprintf(stderr, "tessel-run: %s\n", e.msg);
        return TS_ESYS;
    }
    memset(&e, 0, sizeof e);
    /* MPI_Init's plugins allocate, then some are unloaded */
    TS_RT_LEAK_IGNORE_BEGIN();
    MPI_Init(&argc, &argv);
    TS_RT_LEAK_IGNORE_END();
    run.world = MPI_COMM_WORLD;
    MPI_Comm_set_errhandler(run.world, MPI_ERRORS_RETURN);
    MPI_Comm_rank(run.world, &run.rank);
    MPI_Comm_size(run.world, &run.size);
    ts_rt_watchdog_phase(run.wd, run.rank, "start-up (set-up: options and schedule)");
    ts_rt_exec x;
    memset(&x, 0, sizeof x);
    bool help = false;
    int rc = ts_rt_start(&run, &x, argc, argv, &help, &e);
    if (rc != TS_OK || help) {
        if (x.plan)
            ts_rt_exec_destroy(&x);
        ts_rt_teardown(&run);
        ts_rt_shutdown(&run, NULL);
        return rc;
    }
    /* the replay's waits are polled against --timeout by the replay itself */
    ts_rt_watchdog_phase(run.wd, run.rank, NULL);
    const ts_rt_plan *p = run.plan;
    int iters = run.o.iterations;
    ts_rt_gather g;
    double *bsec = calloc((size_t)p->nblocks + 1, sizeof(double));
    ts_rt_iter_stats *stats = calloc((size_t)iters, sizeof(ts_rt_iter_stats));
    double *losses = calloc((size_t)iters, sizeof(double));
    if (ts_rt_gather_init(&g, p, run.rank, run.size, &e) != TS_OK || !bsec || !stats || !losses) {
        ts_fail(&e, TS_ESYS, "rank %d: out of memory for measurements", run.rank);
        ts_rt_die(&run, &e);
    }
    ts_rt_summary sum = {&run.o, p,      run.w->name, run.be->name, run.size, iters,
                         stats,  losses, bsec,        g.peak,       false,    0,
                         0,      0,      true,        true};
    ts_rt_run_iterations(&run, &x, &g, &sum, &e);
    char first[256] = "";
    int exit_code = ts_rt_verdict(&run, &x, &sum, first, sizeof first, &e);
    exit_code = ts_rt_finish(&run, &g, &sum, first, exit_code, &e);
    ts_rt_gather_free(&g);
    free(bsec);
    free(stats);
    free(losses);
    ts_rt_exec_destroy(&x);
    ts_rt_teardown(&run);
    ts_rt_shutdown(&run, &exit_code);
    return exit_code;
}
