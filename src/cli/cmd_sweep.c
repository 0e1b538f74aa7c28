/* tessel sweep SPEC.json -o OUTDIR [-j J] [--resume] [--time-limit S]: runs every point of a
 * sweep specification in J worker processes and records each finished point, once, as one line of
 * OUTDIR/results.jsonl (plus a row of results.csv). A killed sweep continues with --resume. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "sweep.h"
#include "ts_json.h"

static const char *const CMD = "sweep";

/* The one piece of mutable state outside a function: set by SIGINT/SIGTERM/SIGHUP. */
static volatile sig_atomic_t ts_sweep_stop;

static void on_stop_signal(int sig)
{
    ts_sweep_stop = sig;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: tessel sweep SPEC.json -o OUTDIR [-j J] [--resume] [--time-limit S]\n"
            "                    [--progress | --quiet] [--dry-run]\n\n"
            "Runs every point of a sweep specification (tessel-sweep/1) in worker processes,\n"
            "each a `tessel search ... --json` (or, for a baseline method, `tessel baseline`\n"
            "then `tessel simulate --json`), and appends each finished point as one line to\n"
            "OUTDIR/results.jsonl and one row to OUTDIR/results.csv; schedules go to\n"
            "OUTDIR/schedules/ID.json, the stderr of failed points to OUTDIR/logs/ID.log.\n\n"
            "  -o, --output OUTDIR  folder of the results (created when missing)\n"
            "  -j, --jobs J         worker processes (default 1)\n"
            "  --resume             continue a sweep: skip the points OUTDIR already records\n"
            "  --time-limit S       seconds per point, passed to the search (overrides the\n"
            "                       spec's time_limit); a worker still running at 1.25 S + 10 s\n"
            "                       is killed and recorded as a timeout\n"
            "  --progress           draw the progress bar even when stderr is not a terminal\n"
            "  --quiet              print only the final summary\n"
            "  --dry-run            validate the spec and list its point ids; run nothing\n\n"
            "Spec: {\"format\": \"tessel-sweep/1\", \"name\": ..., \"time_limit\": S,\n"
            "       \"grid\": {axis: [values]} or a list of such grids, \"points\": [{...}]}\n"
            "Axes: placements (built-in names or placement files), ndevs, infer (true/false),\n"
            "      memory (integers or \"none\"), nmicros (k), methods (lazy, fast, full,\n"
            "      modulo, or a baseline: gpipe, 1f1b, interleaved, chimera, zb-h1),\n"
            "      micro_batches (N). Explicit points use the singular keys placement and\n"
            "      method. Defaults: infer false, memory \"none\", method lazy. A placement\n"
            "      file fixes ndevs; nmicros does not apply to modulo, full or baselines, nor\n"
            "      memory to baselines: those axes do not multiply them.\n\n"
            "Each record: id, status (ok, infeasible, timeout, error), message, the point's\n"
            "parameters, wall_seconds, exit_code, schedule, log, and the command's JSON summary\n"
            "under \"result\". A torn last line (a kill during a write) is dropped on --resume.\n"
            "Exit status: 0 every point recorded and none is an error, 1 some point is an\n"
            "error, 2 bad usage or spec (nothing runs), 3 I/O failure, 130 interrupted.\n");
}

/* mkdir -p for the output folder. */
static int make_dirs(const char *path, ts_err *e)
{
    char buf[PATH_MAX];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return ts_fail(e, TS_EINPUT, "%s: path too long", path);
    for (char *c = buf + 1;; c++) {
        if (*c == '/' || *c == '\0') {
            char keep = *c;
            *c = '\0';
            if (mkdir(buf, 0755) && errno != EEXIST)
                return ts_fail(e, TS_ESYS, "%s: cannot create folder: %s", buf, strerror(errno));
            *c = keep;
            if (!keep)
                break;
        }
    }
    struct stat st;
    if (stat(path, &st) || !S_ISDIR(st.st_mode))
        return ts_fail(e, TS_EINPUT, "%s: not a folder", path);
    return TS_OK;
}

static char *join(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s", dir, name);
    return p;
}

/* One sweep at a time per folder: a POSIX record lock, released by the kernel on any exit. */
static int lock_outdir(const char *outdir, int *fd, ts_err *e)
{
    char *path = join(outdir, ".sweep.lock");
    if (!path)
        return ts_fail(e, TS_ESYS, "out of memory");
    *fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (*fd < 0) {
        ts_fail(e, TS_ESYS, "%s: cannot open: %s", path, strerror(errno));
        free(path);
        return TS_ESYS;
    }
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    if (fcntl(*fd, F_SETLK, &fl)) {
        ts_fail(e, TS_EINPUT, "%s: another sweep is running in this folder", outdir);
        free(path);
        return TS_EINPUT;
    }
    free(path);
    return TS_OK;
}

/* Keeps a copy of the spec next to its results (the first run's copy stays). */
static int save_spec(const char *spec_path, const char *outdir, ts_err *e)
{
    char *dst = join(outdir, "spec.json");
    if (!dst)
        return ts_fail(e, TS_ESYS, "out of memory");
    int rc = TS_OK;
    if (access(dst, F_OK)) {
        json_t *j = NULL;
        if (!(rc = ts_json_read_file(spec_path, &j, e)))
            rc = ts_json_write_file(j, dst, e);
        json_decref(j);
    }
    free(dst);
    return rc;
}

typedef struct {
    const char *spec_path, *outdir;
    long jobs;
    bool resume, progress, quiet, dry_run;
    double time_limit; /* < 0: take the spec's */
} sweep_opts;

static int parse_args(int argc, char **argv, sweep_opts *o)
{
    static const struct option longopts[] = {
        {"output", required_argument, 0, 'o'}, {"jobs", required_argument, 0, 'j'},
        {"resume", no_argument, 0, 'r'},       {"time-limit", required_argument, 0, 't'},
        {"progress", no_argument, 0, 'p'},     {"quiet", no_argument, 0, 'q'},
        {"dry-run", no_argument, 0, 'n'},      {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    memset(o, 0, sizeof *o);
    o->jobs = 1;
    o->time_limit = -1;
    int c;
    while ((c = ts_cli_getopt(CMD, argc, argv, "o:j:h", longopts)) != -1) {
        switch (c) {
        case 'o':
            o->outdir = optarg;
            break;
        case 'j':
            if (ts_cli_parse_long(CMD, "--jobs", optarg, 1, 256, &o->jobs))
                return 2;
            break;
        case 'r':
            o->resume = true;
            break;
        case 't':
            if (ts_cli_parse_double(CMD, "--time-limit", optarg, 0.001, 1e6, &o->time_limit))
                return 2;
            break;
        case 'p':
            o->progress = true;
            break;
        case 'q':
            o->quiet = true;
            break;
        case 'n':
            o->dry_run = true;
            break;
        case 'h':
            usage(stdout);
            return -1;
        default:
            return 2;
        }
    }
    if (optind >= argc)
        return ts_cli_usage_error(CMD, "missing the spec file");
    if (optind + 1 < argc)
        return ts_cli_usage_error(CMD, "unexpected argument '%s'", argv[optind + 1]);
    o->spec_path = argv[optind];
    if (!o->outdir && !o->dry_run)
        return ts_cli_usage_error(CMD, "missing -o OUTDIR");
    if (o->progress && o->quiet)
        return ts_cli_usage_error(CMD, "--progress and --quiet exclude each other");
    return 0;
}

static int point_index(const ts_sweep_spec *s, const char *id)
{
    for (int i = 0; i < s->npoints; i++)
        if (!strcmp(s->points[i].id, id))
            return i;
    return -1;
}

/* The records of the spec's points in spec order, then any others (from an earlier spec). */
static int csv_in_spec_order(const char *csv, const ts_sweep_spec *s, const ts_sweep_records *r,
                             ts_err *e)
{
    ts_sweep_records sorted = {0};
    sorted.rec = malloc(((size_t)r->n + 1) * sizeof *sorted.rec);
    if (!sorted.rec)
        return ts_fail(e, TS_ESYS, "out of memory");
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < (pass ? r->n : s->npoints); i++) {
            if (!pass) {
                for (int k = 0; k < r->n; k++) {
                    const char *id = json_string_value(json_object_get(r->rec[k], "id"));
                    if (!strcmp(id, s->points[i].id)) {
                        sorted.rec[sorted.n++] = r->rec[k];
                        break;
                    }
                }
            } else if (point_index(s, json_string_value(json_object_get(r->rec[i], "id"))) < 0) {
                sorted.rec[sorted.n++] = r->rec[i];
            }
        }
    }
    int rc = ts_sweep_csv_rewrite(csv, &sorted, e);
    free(sorted.rec); /* the records themselves belong to r */
    return rc;
}

typedef struct {
    const ts_sweep_spec *spec;
    const sweep_opts *opt;
    ts_sweep_exec_opts exec;
    ts_sweep_records rec;
    char *jsonl, *csv;
    int jfd, cfd;
    ts_sweep_job *jobs;
    int running;
    ts_sweep_progress prog;
} sweep_run;

static int record(sweep_run *s, json_t *rec, ts_err *e)
{
    int rc = ts_sweep_append_json(s->jfd, s->jsonl, rec, e);
    if (!rc) {
        char *row = ts_sweep_csv_row(rec);
        rc = row ? ts_sweep_append_line(s->cfd, s->csv, row, strlen(row), e)
                 : ts_fail(e, TS_ESYS, "out of memory");
        free(row);
    }
    if (rc) {
        json_decref(rec);
        return rc;
    }
    ts_sweep_progress_point(&s->prog, rec, s->running);
    if (ts_sweep_records_add(&s->rec, rec))
        return ts_fail(e, TS_ESYS, "out of memory");
    return TS_OK;
}

/* Stops every worker and reaps it; nothing of theirs is recorded. */
static void stop_all(sweep_run *s)
{
    for (long i = 0; i < s->opt->jobs; i++)
        ts_sweep_job_kill(&s->jobs[i]);
    for (long i = 0; i < s->opt->jobs; i++) {
        ts_sweep_job *j = &s->jobs[i];
        if (j->pid <= 0)
            continue;
        while (waitpid(j->pid, NULL, 0) < 0 && errno == EINTR)
            ;
        unlink(j->tmp_schedule);
        unlink(j->out_path);
        unlink(j->log_path);
        ts_sweep_job_clear(j);
        s->running--;
    }
}

/* Runs the points not yet recorded; returns TS_OK, an error, or -1 when a signal stopped it. */
static int run_points(sweep_run *s, int *todo, int ntodo, ts_err *e)
{
    int next = 0;
    struct timespec nap = {0, 20 * 1000 * 1000};
    while (next < ntodo || s->running > 0) {
        if (ts_sweep_stop) {
            stop_all(s);
            return -1;
        }
        for (long i = 0; i < s->opt->jobs && next < ntodo; i++) {
            if (s->jobs[i].pid)
                continue;
            if (ts_sweep_job_start(&s->jobs[i], &s->spec->points[todo[next]], &s->exec, e)) {
                stop_all(s);
                return e->code;
            }
            next++;
            s->running++;
        }
        /* Peek first: while the finished worker is a zombie its process group id cannot be
         * reused, so whatever is left in its group (a baseline step) can be killed safely. */
        siginfo_t si;
        memset(&si, 0, sizeof si);
        pid_t pid = 0;
        int st = 0;
        if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid > 0) {
            kill(-si.si_pid, SIGKILL);
            while ((pid = waitpid(si.si_pid, &st, 0)) < 0 && errno == EINTR)
                ;
        }
        if (pid > 0) {
            for (long i = 0; i < s->opt->jobs; i++) {
                ts_sweep_job *j = &s->jobs[i];
                if (j->pid != pid)
                    continue;
                json_t *rec = ts_sweep_job_finish(j, st);
                ts_sweep_job_clear(j);
                s->running--;
                if (!rec) {
                    stop_all(s);
                    return ts_fail(e, TS_ESYS, "out of memory");
                }
                if (record(s, rec, e)) {
                    stop_all(s);
                    return e->code;
                }
            }
            continue;
        }
        double now = ts_sweep_now();
        for (long i = 0; i < s->opt->jobs; i++) {
            ts_sweep_job *j = &s->jobs[i];
            if (j->pid && j->deadline > 0 && now > j->deadline && !j->killed_late) {
                j->killed_late = true;
                ts_sweep_job_kill(j);
            }
        }
        ts_sweep_progress_tick(&s->prog, s->running);
        nanosleep(&nap, NULL);
    }
    return TS_OK;
}

int ts_cmd_sweep(int argc, char **argv)
{
    sweep_opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc)
        return rc < 0 ? 0 : rc;

    ts_err e = {0};
    ts_sweep_spec *spec = NULL;
    if (ts_sweep_spec_load(o.spec_path, &spec, &e))
        return ts_cli_report(CMD, &e);
    if (o.dry_run) {
        for (int i = 0; i < spec->npoints; i++)
            printf("%s\n", spec->points[i].id);
        fprintf(stderr, "tessel sweep: %s: %d points\n", o.spec_path, spec->npoints);
        ts_sweep_spec_free(spec);
        return 0;
    }

    sweep_run s;
    memset(&s, 0, sizeof s);
    s.spec = spec;
    s.opt = &o;
    s.jfd = s.cfd = -1;
    int lockfd = -1, *todo = NULL, ntodo = 0;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        rc = ts_fail(&e, TS_ESYS, "cannot find the tessel binary (/proc/self/exe): %s",
                     strerror(errno));
        goto out;
    }
    exe[n] = '\0';
    s.exec.exe = exe;
    s.exec.outdir = o.outdir;
    s.exec.time_limit = o.time_limit >= 0 ? o.time_limit : spec->time_limit;

    char *schedules = join(o.outdir, "schedules"), *logs = join(o.outdir, "logs");
    s.jsonl = join(o.outdir, "results.jsonl");
    s.csv = join(o.outdir, "results.csv");
    if (!schedules || !logs || !s.jsonl || !s.csv) {
        free(schedules);
        free(logs);
        rc = ts_fail(&e, TS_ESYS, "out of memory");
        goto out;
    }
    rc = make_dirs(o.outdir, &e);
    if (!rc)
        rc = lock_outdir(o.outdir, &lockfd, &e);
    if (!rc)
        rc = make_dirs(schedules, &e);
    if (!rc)
        rc = make_dirs(logs, &e);
    free(schedules);
    free(logs);
    if (rc)
        goto out;

    long dropped = 0;
    if ((rc = ts_sweep_records_load(s.jsonl, &s.rec, &dropped, &e)))
        goto out;
    if (s.rec.n && !o.resume) {
        rc = ts_fail(&e, TS_EINPUT,
                     "%s already records %d points: pass --resume to continue that sweep, or "
                     "choose another folder",
                     s.jsonl, s.rec.n);
        goto out;
    }
    if (dropped)
        fprintf(stderr, "tessel sweep: %s: dropped a torn last line (%ld bytes)\n", s.jsonl,
                dropped);
    if ((rc = save_spec(o.spec_path, o.outdir, &e)))
        goto out;
    /* The CSV may lag the JSONL by one row after a kill: rebuild it from the file of truth. */
    if ((rc = csv_in_spec_order(s.csv, spec, &s.rec, &e)))
        goto out;

    todo = malloc((size_t)spec->npoints * sizeof *todo);
    s.jobs = calloc((size_t)o.jobs, sizeof *s.jobs);
    if (!todo || !s.jobs) {
        rc = ts_fail(&e, TS_ESYS, "out of memory");
        goto out;
    }
    int recorded = 0;
    for (int i = 0; i < spec->npoints; i++) {
        if (ts_sweep_records_has(&s.rec, spec->points[i].id))
            recorded++;
        else
            todo[ntodo++] = i;
    }
    if (recorded < s.rec.n)
        fprintf(stderr, "tessel sweep: %s: %d records of points not in this spec are kept\n",
                s.jsonl, s.rec.n - recorded);

    s.jfd = open(s.jsonl, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    s.cfd = open(s.csv, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (s.jfd < 0 || s.cfd < 0) {
        rc = ts_fail(&e, TS_ESYS, "%s: cannot open for appending: %s", o.outdir, strerror(errno));
        goto out;
    }

    struct sigaction sa, old_int, old_term, old_hup;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    sigaction(SIGHUP, &sa, &old_hup);

    bool bar = o.progress || (!o.quiet && isatty(STDERR_FILENO));
    ts_sweep_progress_init(&s.prog, stderr, bar, o.quiet, spec->npoints, recorded);
    if (!o.quiet)
        fprintf(stderr, "tessel sweep: %s: %d points, %d already recorded, %d to run with %ld %s\n",
                spec->name, spec->npoints, recorded, ntodo, o.jobs,
                o.jobs == 1 ? "worker" : "workers");
    double t0 = ts_sweep_now();
    rc = run_points(&s, todo, ntodo, &e);
    double wall = ts_sweep_now() - t0;
    ts_sweep_progress_end(&s.prog);

    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGHUP, &old_hup, NULL);

    /* Totals over the spec's points, whichever run recorded them. */
    int counts[TS_SWEEP_NSTATUS] = {0}, have = 0;
    for (int i = 0; i < s.rec.n; i++) {
        const char *id = json_string_value(json_object_get(s.rec.rec[i], "id"));
        const char *st = json_string_value(json_object_get(s.rec.rec[i], "status"));
        if (point_index(spec, id) < 0)
            continue;
        have++;
        for (int k = 0; k < TS_SWEEP_NSTATUS; k++)
            if (st && !strcmp(st, ts_sweep_status_name((ts_sweep_status)k)))
                counts[k]++;
    }
    printf("sweep %s: %d/%d points recorded (ok %d, infeasible %d, timeout %d, error %d); "
           "this run %d points in %.1f s with -j %ld; results in %s\n",
           spec->name, have, spec->npoints, counts[TS_SWEEP_OK], counts[TS_SWEEP_INFEASIBLE],
           counts[TS_SWEEP_TIMEOUT], counts[TS_SWEEP_ERROR], s.prog.done, wall, o.jobs, s.jsonl);
    fflush(stdout);
    if (rc < 0) {
        fprintf(stderr, "tessel sweep: interrupted; %d of %d points recorded, continue with "
                        "--resume\n",
                have, spec->npoints);
        rc = 130;
        goto out;
    }
    if (rc)
        goto out;
    if ((rc = csv_in_spec_order(s.csv, spec, &s.rec, &e)))
        goto out;
    rc = counts[TS_SWEEP_ERROR] ? 1 : 0;
out:
    if (rc && rc != 130 && e.code)
        rc = ts_cli_report(CMD, &e);
    if (s.jfd >= 0)
        close(s.jfd);
    if (s.cfd >= 0)
        close(s.cfd);
    if (lockfd >= 0)
        close(lockfd);
    free(s.jobs);
    free(todo);
    free(s.jsonl);
    free(s.csv);
    ts_sweep_records_free(&s.rec);
    ts_sweep_spec_free(spec);
    return rc;
}
