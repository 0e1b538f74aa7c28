/* A worker rank of `tessel sweep --mpi`: runs the points rank 0 assigns, up to -j at a time, as
 * the local sweep does (child processes in groups of their own that die with this rank), in a
 * scratch folder of its own under $TMPDIR; each record goes back to rank 0 with the schedule and
 * log bytes, so OUTDIR need not be shared between nodes. Rank 0 silent past the timeout means the
 * coordination is over: this rank kills its points and ends. */
#define _XOPEN_SOURCE 700 /* P_tmpdir */
#ifdef TS_HAVE_MPI
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "sweep.h"
#include "ts_clock.h"
#include "sweep_mpi.h"

typedef struct {
    ts_sweep_mpi *m;
    const ts_sweep_spec *spec;
    ts_sweep_exec_opts exec; /* exec.outdir is the scratch folder */
    ts_sweep_job *jobs;
    int njobs, rank;
    double timeout, heard, last_beat;
    char scratch[4096];
} ts_sweep_worker;

static int ts_sweep_make_scratch(ts_sweep_worker *w, char *err, size_t cap)
{
    const char *tmp = getenv("TMPDIR");
#ifdef P_tmpdir
    if (!tmp || !*tmp)
        tmp = P_tmpdir;
#endif
    if (!tmp || !*tmp) {
        snprintf(err, cap, "no TMPDIR for the scratch folder");
        return -1;
    }
    snprintf(w->scratch, sizeof w->scratch, "%s/tessel-sweep-XXXXXX", tmp);
    char sub[4200];
    bool ok = mkdtemp(w->scratch) != NULL;
    snprintf(sub, sizeof sub, "%s/schedules", w->scratch);
    ok = ok && mkdir(sub, 0755) == 0;
    snprintf(sub, sizeof sub, "%s/logs", w->scratch);
    ok = ok && mkdir(sub, 0755) == 0;
    if (!ok) {
        snprintf(err, cap, "%s: cannot make a scratch folder: %s", w->scratch, strerror(errno));
        return -1;
    }
    return 0;
}

static void ts_sweep_remove_scratch(ts_sweep_worker *w)
{
    char sub[4200];
    snprintf(sub, sizeof sub, "%s/schedules", w->scratch);
    rmdir(sub);
    snprintf(sub, sizeof sub, "%s/logs", w->scratch);
    rmdir(sub);
    rmdir(w->scratch);
}

/* The whole file (NULL when absent or unreadable), removed once read. */
static char *ts_sweep_take_file(const char *dir, const char *rel, size_t *len)
{
    *len = 0;
    char path[8400];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    if (f && fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1))) {
            *len = fread(buf, 1, (size_t)n, f);
            buf[*len] = '\0';
        }
    }
    if (f)
        fclose(f);
    unlink(path);
    return buf;
}

/* Sends the record of point p, with the schedule and log it names, back to rank 0. Returns 0, or
 * -1 when rank 0 did not take it within the timeout. Takes rec. */
static int ts_sweep_send_result(ts_sweep_worker *w, int p, json_t *rec)
{
    size_t nsched = 0, nlog = 0;
    const char *rs = json_string_value(json_object_get(rec, "schedule"));
    const char *rl = json_string_value(json_object_get(rec, "log"));
    char *sched = rs ? ts_sweep_take_file(w->scratch, rs, &nsched) : NULL;
    char *log = rl ? ts_sweep_take_file(w->scratch, rl, &nlog) : NULL;
    char *text = rec ? json_dumps(rec, JSON_COMPACT) : NULL;
    json_decref(rec);
    ts_sweep_frame f = {p, text, sched, log, text ? strlen(text) : 0, nsched, nlog};
    size_t len = 0;
    char *frame = text ? ts_sweep_frame_pack(&f, &len) : NULL;
    free(text);
    free(sched);
    free(log);
    if (!frame) {
        /* Out of memory, or a schedule beyond one message: rank 0 still hears of the point. */
        json_t *err = ts_sweep_error_record(&w->spec->points[p],
                                            "the worker rank could not send its result back", 0);
        char *t = err ? json_dumps(err, JSON_COMPACT) : NULL;
        json_decref(err);
        ts_sweep_frame g = {p, t, NULL, NULL, t ? strlen(t) : 0, 0, 0};
        frame = t ? ts_sweep_frame_pack(&g, &len) : NULL;
        free(t);
        if (!frame)
            return -1;
    }
    int rc = ts_sweep_mpi_send_wait(frame, (int)len, 0, TS_TAG_RESULT, w->timeout);
    if (!rc)
        free(frame); /* else MPI may still read it: left to the process's end */
    return rc;
}

static int ts_sweep_start_point(ts_sweep_worker *w, int p)
{
    if (!w->spec || p < 0 || p >= w->spec->npoints)
        return 0;
    for (int i = 0; i < w->njobs; i++) {
        if (w->jobs[i].pid)
            continue;
        ts_err e = {0};
        if (!ts_sweep_job_start(&w->jobs[i], &w->spec->points[p], &w->exec, &e))
            return 0;
        return ts_sweep_send_result(w, p, ts_sweep_error_record(&w->spec->points[p], e.msg, 0));
    }
    return ts_sweep_send_result(
        w, p, ts_sweep_error_record(&w->spec->points[p], "rank 0 sent more points than -j", 0));
}

/* Messages from rank 0: 1 when told to stop, 0 to go on, -1 when a send back failed. */
static int ts_sweep_read_messages(ts_sweep_worker *w)
{
    int src, tag, len, got;
    char *buf;
    while ((got = ts_sweep_mpi_poll(&src, &tag, &buf, &len, w->timeout)) == 1) {
        int p = -1;
        if (src == 0)
            w->heard = ts_clock_now();
        if (src == 0 && tag == TS_TAG_ASSIGN && len == (int)sizeof p)
            memcpy(&p, buf, sizeof p);
        if (src == 0 && tag == TS_TAG_STOP) {
            w->m->lost |= len == 1 && buf[0] == 1;
            free(buf);
            return 1;
        }
        free(buf);
        if (p >= 0 && ts_sweep_start_point(w, p))
            return -1;
    }
    return got < 0 ? -1 : 0;
}

/* Sends the record of one point that ended, if one has: 1 when one did, 0 when none, -1 when
 * rank 0 did not take it. */
static int ts_sweep_finish_one(ts_sweep_worker *w)
{
    int st = 0, i = ts_sweep_jobs_reap(w->jobs, w->njobs, &st);
    if (i < 0)
        return 0;
    int p = (int)(w->jobs[i].point - w->spec->points);
    json_t *rec = NULL;
    ts_err e = {0};
    int rc = ts_sweep_job_finish(&w->jobs[i], st, &rec, &e);
    ts_sweep_job_clear(&w->jobs[i]);
    if (rc < 0)
        rec = ts_sweep_error_record(&w->spec->points[p], "out of memory on the worker rank", 0);
    /* this rank's scratch folder takes no more: rank 0 must not record the point */
    if (rc > 0 && (rec = ts_sweep_error_record(&w->spec->points[p], e.msg, 0)))
        json_object_set_new(rec, "output_failed", json_true());
    return ts_sweep_send_result(w, p, rec) ? -1 : 1;
}

/* The loop: 0 after STOP, 1 after a stop signal or when rank 0 is gone. */
static int ts_sweep_serve(ts_sweep_worker *w, volatile sig_atomic_t *stop)
{
    struct timespec nap = {0, 10 * 1000 * 1000};
    for (;;) {
        if (*stop)
            return 1;
        int got = ts_sweep_read_messages(w);
        if (got)
            return got > 0 ? 0 : 1;
        if ((got = ts_sweep_finish_one(w)) < 0)
            break;
        double t = ts_clock_now();
        ts_sweep_jobs_kill_late(w->jobs, w->njobs, t);
        if (t - w->last_beat >= TS_SWEEP_BEAT_SECONDS) {
            ts_sweep_mpi_post(NULL, 0, 0, TS_TAG_BEAT);
            w->last_beat = t;
        }
        if (t - w->heard > w->timeout)
            break;
        if (!got)
            nanosleep(&nap, NULL);
    }
    w->m->lost = true;
    fprintf(stderr,
            "tessel sweep: rank %d: rank 0 is gone (silent for %.0f s or not taking "
            "results); stopping\n",
            w->rank, ts_clock_now() - w->heard);
    return 1;
}

int ts_sweep_mpi_work(ts_sweep_mpi *m, const ts_sweep_spec *spec, const char *spec_error,
                      const char *exe, double time_limit, int jobs, double timeout,
                      volatile sig_atomic_t *stop)
{
    ts_sweep_worker w = {.m = m, .spec = spec, .njobs = jobs, .timeout = timeout};
    MPI_Comm_rank(MPI_COMM_WORLD, &w.rank);
    char why[TS_ERRLEN] = "";
    bool scratch = false;
    if (spec_error)
        snprintf(why, sizeof why, "%s", spec_error);
    else if (!(w.jobs = calloc((size_t)jobs, sizeof *w.jobs)))
        snprintf(why, sizeof why, "out of memory");
    else
        scratch = ts_sweep_make_scratch(&w, why, sizeof why) == 0;
    if (*why)
        w.njobs = 0; /* waits for STOP: rank 0 gives this rank no work */
    w.exec = (ts_sweep_exec_opts){exe, w.scratch, time_limit};
    w.heard = w.last_beat = ts_clock_now();
    /* The hello carries why this rank cannot work, or nothing. */
    int rc = 1;
    if (!ts_sweep_mpi_send_wait(why, (int)strlen(why), 0, TS_TAG_HELLO, timeout))
        rc = ts_sweep_serve(&w, stop);
    else
        m->lost = true;
    if (w.jobs)
        ts_sweep_jobs_stop(w.jobs, w.njobs);
    if (scratch)
        ts_sweep_remove_scratch(&w);
    free(w.jobs);
    return rc;
}

#else
typedef int ts_sweep_mpi_worker_unused; /* built without MPI: sweep_mpi.c has the fallback */
#endif
