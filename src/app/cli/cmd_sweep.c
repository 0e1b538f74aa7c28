/* tessel sweep SPEC.json -o OUTDIR [-j J] [--resume] [--time-limit S] [--mpi]: runs every point
 * of a sweep specification in J worker processes (on each worker rank under --mpi) and records each
 * finished point, once, as one line of OUTDIR/results.jsonl (plus a row of results.csv). A killed
 * sweep continues with --resume. */
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
#include "cli_ops.h"
#include "sweep.h"
#include "ts_op_sweep.h"
#include "ts_time_limit.h"
#include "ts_clock.h"
#include "ts_json.h"

static const char *const CMD = "sweep";

/* The one piece of mutable state outside a function: set by SIGINT/SIGTERM/SIGHUP. */
static volatile sig_atomic_t ts_sweep_stop;

static void ts_sweep_on_stop_signal(int sig)
{
    ts_sweep_stop = sig;
}

static void ts_sweep_usage(FILE *f)
{
    fprintf(f,
            "usage: tessel sweep SPEC.json -o OUTDIR [-j J] [--resume] [--time-limit S]\n"
            "                    [--progress | --quiet] [--dry-run] [--mpi [--mpi-timeout S]]\n\n"
            "Runs every point of a sweep specification (tessel-sweep/1) in worker processes,\n"
            "each a `tessel search ... --json` (or, for a baseline method, `tessel baseline`\n"
            "then `tessel simulate --json`), and appends each finished point as one line to\n"
            "OUTDIR/results.jsonl and one row to OUTDIR/results.csv; schedules go to\n"
            "OUTDIR/schedules/ID.json, the stderr of failed points to OUTDIR/logs/ID.log.\n\n"
            "  -o, --output OUTDIR  folder of the results (created when missing)\n"
            "  -j, --jobs J         worker processes (default 1)\n"
            "  --resume             continue a sweep: skip the points OUTDIR already records\n"
            "  --time-limit S       seconds per point, passed to the search (overrides the\n"
            "                       spec's time_limit); a worker still running at\n"
            "                       1.25 S + 5 s is killed and recorded as a timeout\n"
            "  --progress           draw the progress bar even when stderr is not a terminal\n"
            "  --quiet              print only the final summary\n"
            "  --dry-run            validate the spec and list its point ids; run nothing\n"
            "  --mpi                under mpirun or srun: rank 0 coordinates and alone writes\n"
            "                       OUTDIR; every other rank runs up to J points at a time\n"
            "                       and sends each record, schedule and log back to rank 0\n"
            "                       (OUTDIR need not be shared; the spec and its placement\n"
            "                       files must be readable at the same path on every node).\n"
            "                       One rank runs the sweep locally\n"
            "  --mpi-timeout S      a rank silent for S seconds is taken as dead and its\n"
            "                       points go back to the queue (default 60); run mpirun with\n"
            "                       --enable-recovery so that the job outlives a lost rank\n\n"
            "Spec: {\"format\": \"tessel-sweep/1\", \"name\": ..., \"time_limit\": S,\n"
            "       \"grid\": {axis: [values]} or a list of such grids, \"points\": [{...}]}\n"
            "Keys of a point (a grid's axes take lists of them, placements and methods in\n"
            "the plural):\n");
    /* the sweep point's table (ts_op_sweep.h) */
    for (int i = 0; i < ts_op_sweep_point.nopts; i++) {
        char head[48];
        snprintf(head, sizeof head, "  %s", ts_op_sweep_point.opts[i].key);
        ts_cli_help_item(head, ts_op_sweep_point.opts[i].help);
    }
    fprintf(f, "A placement file fixes ndevs; nmicros does not apply to modulo, full or\n"
               "baselines, nor memory and options to baselines: those axes do not multiply\n"
               "them.\n\n"
               "Each record: id, status (ok, infeasible, timeout, error), message, the point's\n"
               "parameters, wall_seconds, exit_code, schedule, log, and the command's JSON\n"
               "summary under \"result\". A torn last line (a kill during a write) is dropped on\n"
               "--resume.\n"
               "Exit status: 0 every point recorded and none is an error, 1 some point is an\n"
               "error, 2 bad usage or spec (nothing runs), 3 I/O failure, 130 interrupted.\n");
}

/* mkdir -p for the output folder. */
static int ts_sweep_make_dirs(const char *path, ts_err *e)
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

static char *ts_sweep_join(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s", dir, name);
    return p;
}

/* One sweep at a time per folder: a POSIX record lock, released by the kernel on any exit. */
static int ts_sweep_lock_outdir(const char *outdir, int *fd, ts_err *e)
{
    char *path = ts_sweep_join(outdir, ".sweep.lock");
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
static int ts_sweep_save_spec(const char *spec_path, const char *outdir, ts_err *e)
{
    char *dst = ts_sweep_join(outdir, "spec.json");
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
    bool resume, progress, quiet, dry_run, mpi;
    double time_limit; /* < 0: take the spec's */
    double mpi_timeout; /* seconds of silence after which a rank is taken as dead */
} ts_sweep_opts;

static int ts_sweep_parse_option(int c, ts_sweep_opts *o)
{
    switch (c) {
    case 'o': o->outdir = optarg; return 0;
    case 'j': return ts_cli_parse_long(CMD, "--jobs", optarg, 1, 256, &o->jobs) ? 2 : 0;
    case 'r': o->resume = true; return 0;
    case 't':
        return ts_cli_parse_double(CMD, "--time-limit", optarg, TS_TIME_LIMIT_MIN,
                                   TS_TIME_LIMIT_MAX, &o->time_limit)
                   ? 2
                   : 0;
    case 'p': o->progress = true; return 0;
    case 'q': o->quiet = true; return 0;
    case 'n': o->dry_run = true; return 0;
    case 'm': o->mpi = true; return 0;
    case 'T':
        return ts_cli_parse_double(CMD, "--mpi-timeout", optarg, 1, 1e6, &o->mpi_timeout) ? 2 : 0;
    case 'h': ts_sweep_usage(stdout); return -1;
    default: return 2;
    }
}

static int ts_sweep_parse_args(int argc, char **argv, ts_sweep_opts *o)
{
    static const struct option longopts[] = {{"output", required_argument, 0, 'o'},
                                             {"jobs", required_argument, 0, 'j'},
                                             {"resume", no_argument, 0, 'r'},
                                             {"time-limit", required_argument, 0, 't'},
                                             {"progress", no_argument, 0, 'p'},
                                             {"quiet", no_argument, 0, 'q'},
                                             {"dry-run", no_argument, 0, 'n'},
                                             {"mpi", no_argument, 0, 'm'},
                                             {"mpi-timeout", required_argument, 0, 'T'},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    memset(o, 0, sizeof *o);
    o->jobs = 1;
    o->time_limit = -1;
    o->mpi_timeout = 60;
    int c, rc;
    while ((c = ts_cli_getopt(CMD, argc, argv, "o:j:h", longopts)) != -1)
        if ((rc = ts_sweep_parse_option(c, o)))
            return rc;
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

static const char *ts_sweep_record_id(json_t *rec)
{
    return json_string_value(json_object_get(rec, "id"));
}

/* The records of the spec's points in spec order (the first record of each), then any others
 * (from an earlier spec); each record is placed through the id index, in one pass. */
static int ts_sweep_csv_in_spec_order(const char *csv, const ts_sweep_spec *s,
                                      const ts_sweep_records *r, ts_err *e)
{
    ts_sweep_records sorted = {0};
    sorted.rec = malloc(((size_t)r->n + 1) * sizeof *sorted.rec);
    json_t **by_point = calloc((size_t)s->npoints + 1, sizeof *by_point);
    if (!sorted.rec || !by_point) {
        free(sorted.rec);
        free(by_point);
        return ts_fail(e, TS_ESYS, "out of memory");
    }
    for (int k = 0; k < r->n; k++) {
        int i = ts_sweep_spec_find(s, ts_sweep_record_id(r->rec[k]));
        if (i >= 0 && !by_point[i])
            by_point[i] = r->rec[k];
    }
    for (int i = 0; i < s->npoints; i++)
        if (by_point[i])
            sorted.rec[sorted.n++] = by_point[i];
    for (int k = 0; k < r->n; k++)
        if (ts_sweep_spec_find(s, ts_sweep_record_id(r->rec[k])) < 0)
            sorted.rec[sorted.n++] = r->rec[k];
    int rc = ts_sweep_csv_rewrite(csv, &sorted, e);
    /* the records themselves belong to r */
    free(sorted.rec);
    free(by_point);
    return rc;
}

/* The tessel binary the workers run: this very one. */
static int ts_sweep_self_exe(char *exe, size_t cap, ts_err *e)
{
    ssize_t n = readlink("/proc/self/exe", exe, cap - 1);
    if (n <= 0)
        return ts_fail(e, TS_ESYS, "cannot find the tessel binary (/proc/self/exe): %s",
                       strerror(errno));
    exe[n] = '\0';
    return TS_OK;
}

/* OUTDIR, its schedules/ and logs/, and the lock that keeps a second sweep out. */
static int ts_sweep_prepare_outdir(const char *outdir, int *lockfd, ts_err *e)
{
    char *schedules = ts_sweep_join(outdir, "schedules"), *logs = ts_sweep_join(outdir, "logs");
    int rc =
        !schedules || !logs ? ts_fail(e, TS_ESYS, "out of memory") : ts_sweep_make_dirs(outdir, e);
    if (!rc)
        rc = ts_sweep_lock_outdir(outdir, lockfd, e);
    if (!rc)
        rc = ts_sweep_make_dirs(schedules, e);
    if (!rc)
        rc = ts_sweep_make_dirs(logs, e);
    free(schedules);
    free(logs);
    return rc;
}

/* Reads what results.jsonl already holds (dropping a torn last line) and rebuilds the CSV from
 * it, since the CSV may lag the JSONL by one row after a kill. */
static int ts_sweep_load_records(ts_sweep_run *s, const ts_sweep_opts *o, ts_err *e)
{
    long dropped = 0;
    if (ts_sweep_records_load(s->jsonl, &s->rec, &dropped, e))
        return e->code;
    if (s->rec.n && !o->resume)
        return ts_fail(e, TS_EINPUT,
                       "%s already records %d points: pass --resume to continue that sweep, or "
                       "choose another folder",
                       s->jsonl, s->rec.n);
    if (dropped)
        fprintf(stderr, "tessel sweep: %s: dropped a torn last line (%ld bytes)\n", s->jsonl,
                dropped);
    if (ts_sweep_save_spec(o->spec_path, o->outdir, e))
        return e->code;
    return ts_sweep_csv_in_spec_order(s->csv, s->spec, &s->rec, e);
}

/* The spec's points not yet recorded, in spec order; *recorded counts the others (each record
 * is matched to its point through the id index). */
static int *ts_sweep_points_to_run(const ts_sweep_run *s, int *ntodo, int *recorded)
{
    const ts_sweep_spec *spec = s->spec;
    int *todo = malloc(((size_t)spec->npoints + 1) * sizeof *todo);
    bool *have = calloc((size_t)spec->npoints + 1, sizeof *have);
    *ntodo = *recorded = 0;
    if (!todo || !have) {
        free(todo);
        free(have);
        return NULL;
    }
    for (int k = 0; k < s->rec.n; k++) {
        int i = ts_sweep_spec_find(spec, ts_sweep_record_id(s->rec.rec[k]));
        if (i >= 0)
            have[i] = true;
    }
    for (int i = 0; i < spec->npoints; i++) {
        if (have[i])
            (*recorded)++;
        else
            todo[(*ntodo)++] = i;
    }
    free(have);
    if (*recorded < s->rec.n)
        fprintf(stderr, "tessel sweep: %s: %d records of points not in this spec are kept\n",
                s->jsonl, s->rec.n - *recorded);
    return todo;
}

/* Everything before the first point runs: folders, lock, records, the append descriptors. */
static int ts_sweep_open_run(ts_sweep_run *s, const ts_sweep_opts *o, char *exe, int *lockfd,
                             ts_err *e)
{
    if (ts_sweep_self_exe(exe, PATH_MAX, e))
        return e->code;
    s->exec.exe = exe;
    s->exec.outdir = o->outdir;
    s->exec.time_limit = o->time_limit >= 0 ? o->time_limit : s->spec->time_limit;
    s->jobs = (int)o->jobs;
    s->jsonl = ts_sweep_join(o->outdir, "results.jsonl");
    s->csv = ts_sweep_join(o->outdir, "results.csv");
    if (!s->jsonl || !s->csv)
        return ts_fail(e, TS_ESYS, "out of memory");
    if (ts_sweep_prepare_outdir(o->outdir, lockfd, e) || ts_sweep_load_records(s, o, e))
        return e->code;
    s->jfd = open(s->jsonl, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    s->cfd = open(s->csv, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (s->jfd < 0 || s->cfd < 0)
        return ts_fail(e, TS_ESYS, "%s: cannot open for appending: %s", o->outdir, strerror(errno));
    return TS_OK;
}

static void ts_sweep_close_run(ts_sweep_run *s)
{
    if (s->jfd >= 0)
        close(s->jfd);
    if (s->cfd >= 0)
        close(s->cfd);
    free(s->jsonl);
    free(s->csv);
    ts_sweep_records_free(&s->rec);
}

/* The final line: totals over the spec's points, whichever run recorded them. Returns the
 * number of errors among them. */
static int ts_sweep_print_summary(const ts_sweep_run *s, const ts_sweep_opts *o,
                                  const ts_sweep_mpi *m, double wall, int *have)
{
    const ts_sweep_spec *spec = s->spec;
    int counts[TS_SWEEP_NSTATUS] = {0};
    *have = 0;
    for (int i = 0; i < s->rec.n; i++) {
        const char *st = json_string_value(json_object_get(s->rec.rec[i], "status"));
        if (ts_sweep_spec_find(spec, ts_sweep_record_id(s->rec.rec[i])) < 0)
            continue;
        (*have)++;
        for (int k = 0; k < TS_SWEEP_NSTATUS; k++)
            if (st && !strcmp(st, ts_sweep_status_name((ts_sweep_status)k)))
                counts[k]++;
    }
    char how[64];
    if (m->active && m->size > 1)
        snprintf(how, sizeof how, "-j %ld on %d worker rank%s", o->jobs, m->size - 1,
                 m->size == 2 ? "" : "s");
    else
        snprintf(how, sizeof how, "-j %ld", o->jobs);
    printf("sweep %s: %d/%d points recorded (ok %d, infeasible %d, timeout %d, error %d); "
           "this run %d points in %.1f s with %s; results in %s\n",
           spec->name, *have, spec->npoints, counts[TS_SWEEP_OK], counts[TS_SWEEP_INFEASIBLE],
           counts[TS_SWEEP_TIMEOUT], counts[TS_SWEEP_ERROR], s->prog.done, wall, how, s->jsonl);
    fflush(stdout);
    return counts[TS_SWEEP_ERROR];
}

/* Runs the points left, on this machine or on the worker ranks, and prints the summary.
 * Returns the exit status, or an error code with e set. */
static int ts_sweep_run_and_report(ts_sweep_run *s, const ts_sweep_opts *o, ts_sweep_mpi *m,
                                   ts_err *e)
{
    int ntodo, recorded;
    int *todo = ts_sweep_points_to_run(s, &ntodo, &recorded);
    if (!todo)
        return ts_fail(e, TS_ESYS, "out of memory");
    bool bar = o->progress || (!o->quiet && isatty(STDERR_FILENO));
    bool on_ranks = m->active && m->size > 1;
    ts_sweep_progress_init(&s->prog, stderr, bar, o->quiet, s->spec->npoints, recorded);
    if (!o->quiet)
        fprintf(stderr,
                "tessel sweep: %s: %d points, %d already recorded, %d to run with %ld %s%s\n",
                s->spec->name, s->spec->npoints, recorded, ntodo, o->jobs,
                o->jobs == 1 ? "worker" : "workers", on_ranks ? " per worker rank" : "");
    double t0 = ts_clock_now();
    int rc = on_ranks ? ts_sweep_mpi_coordinate(s, m, todo, ntodo, o->mpi_timeout, e)
                      : ts_sweep_run_local(s, todo, ntodo, e);
    double wall = ts_clock_now() - t0;
    ts_sweep_progress_end(&s->prog);
    free(todo);
    int have, errors = ts_sweep_print_summary(s, o, m, wall, &have);
    if (rc < 0) {
        fprintf(stderr,
                "tessel sweep: interrupted; %d of %d points recorded, continue with "
                "--resume\n",
                have, s->spec->npoints);
        return 130;
    }
    if (rc)
        return rc;
    if (ts_sweep_csv_in_spec_order(s->csv, s->spec, &s->rec, e))
        return e->code;
    return errors ? 1 : 0;
}

/* Rank 0, or the only process: checks the spec, then runs or lists it. */
static int ts_sweep_main(const ts_sweep_opts *o, ts_sweep_mpi *m, volatile sig_atomic_t *stop)
{
    ts_err e = {0};
    ts_sweep_spec *spec = NULL;
    if (ts_sweep_spec_load(o->spec_path, &spec, &e)) {
        ts_sweep_mpi_release(m);
        return ts_cli_report(CMD, &e);
    }
    if (o->dry_run) {
        ts_sweep_mpi_release(m);
        for (int i = 0; i < spec->npoints; i++)
            printf("%s\n", spec->points[i].id);
        fprintf(stderr, "tessel sweep: %s: %d points\n", o->spec_path, spec->npoints);
        ts_sweep_spec_free(spec);
        return 0;
    }
    ts_sweep_run s;
    memset(&s, 0, sizeof s);
    s.spec = spec;
    s.jfd = s.cfd = -1;
    s.stop = stop;
    int lockfd = -1, rc;
    char exe[PATH_MAX];
    if ((rc = ts_sweep_open_run(&s, o, exe, &lockfd, &e)))
        ts_sweep_mpi_release(m);
    else
        rc = ts_sweep_run_and_report(&s, o, m, &e);
    if (rc && rc != 130 && e.code)
        rc = ts_cli_report(CMD, &e);
    ts_sweep_close_run(&s);
    if (lockfd >= 0)
        close(lockfd);
    ts_sweep_spec_free(spec);
    return rc;
}

/* A worker rank (--mpi, rank > 0): loads the spec itself and runs what rank 0 hands it. Rank 0
 * reports a bad spec; a spec that fails here only is named to rank 0, which gives this rank no
 * work. */
static int ts_sweep_worker_main(const ts_sweep_opts *o, ts_sweep_mpi *m,
                                volatile sig_atomic_t *stop)
{
    ts_err e = {0};
    ts_sweep_spec *spec = NULL;
    char exe[PATH_MAX] = "";
    if (!ts_sweep_spec_load(o->spec_path, &spec, &e) && ts_sweep_self_exe(exe, sizeof exe, &e)) {
        ts_sweep_spec_free(spec);
        spec = NULL;
    }
    double tl = o->time_limit >= 0 ? o->time_limit : spec ? spec->time_limit : 0;
    int rc = ts_sweep_mpi_work(m, spec, spec ? NULL : e.msg, exe, tl, (int)o->jobs, o->mpi_timeout,
                               stop);
    ts_sweep_spec_free(spec);
    return rc;
}

int ts_cmd_sweep(int argc, char **argv)
{
    ts_sweep_opts o;
    int rc = ts_sweep_parse_args(argc, argv, &o);
    if (rc)
        return rc < 0 ? 0 : rc;
    ts_sweep_mpi m = {0};
    ts_err e = {0};
    if (o.mpi && ts_sweep_mpi_init(&argc, &argv, &m, &e))
        return ts_cli_report(CMD, &e);

    struct sigaction sa, old_int, old_term, old_hup;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = ts_sweep_on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    sigaction(SIGHUP, &sa, &old_hup);

    if (m.active && m.rank > 0)
        rc = ts_sweep_worker_main(&o, &m, &ts_sweep_stop);
    else
        rc = ts_sweep_main(&o, &m, &ts_sweep_stop);

    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGHUP, &old_hup, NULL);
    ts_sweep_mpi_finalize(&m);
    return rc;
}
