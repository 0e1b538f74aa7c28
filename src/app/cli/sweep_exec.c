/* Sweep workers: each point runs as `tessel search ... --json` (or `tessel baseline` followed by
 * `tessel simulate --json`) in a process group of its own, its stdout and stderr captured in files
 * under OUTDIR/logs. The worker asks the kernel to kill it when the sweep dies, so a sweep killed
 * with SIGKILL leaves no search running behind it. A worker that failed because its output could
 * not be written (a full or read-only disk) gets no record: that is no result of its point. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "sweep.h"
#include "ts_clock.h"
#include "ts_methods.h"

#define MAX_ARGS 64
#define MAX_OUTPUT (4L << 20) /* a summary is a few hundred bytes; more is not a summary */

static char *ts_sweep_path_join(const char *dir, const char *sub, const char *id, const char *ext)
{
    size_t n = strlen(dir) + strlen(sub) + strlen(id) + strlen(ext) + 3;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s/%s%s", dir, sub, id, ext);
    return p;
}

void ts_sweep_job_clear(ts_sweep_job *j)
{
    free(j->out_path);
    free(j->log_path);
    free(j->tmp_schedule);
    free(j->schedule);
    memset(j, 0, sizeof *j);
}

/* Argument vectors are built in the parent (no allocation after fork). */
typedef struct {
    char *argv[MAX_ARGS];
    int argc;
    char num[8][32]; /* storage for numbers */
    int nnum;
} ts_sweep_argvec;

static void ts_sweep_av_add(ts_sweep_argvec *a, const char *s)
{
    if (a->argc < MAX_ARGS - 1)
        a->argv[a->argc++] = (char *)s;
    a->argv[a->argc] = NULL;
}

static const char *ts_sweep_av_num(ts_sweep_argvec *a, const char *fmt, double v)
{
    char *s = a->num[a->nnum++ & 7];
    snprintf(s, sizeof a->num[0], fmt, v);
    return s;
}

/* The placement options every command of the worker shares. */
static void ts_sweep_av_placement(ts_sweep_argvec *a, const ts_sweep_point *p)
{
    if (p->is_file) {
        ts_sweep_av_add(a, p->placement);
        return;
    }
    ts_sweep_av_add(a, "--placement");
    ts_sweep_av_add(a, p->placement);
    ts_sweep_av_add(a, "--ndevs");
    ts_sweep_av_add(a, ts_sweep_av_num(a, "%.0f", p->ndevs));
    if (p->infer)
        ts_sweep_av_add(a, "--infer");
}

/* In the worker, after fork: its own group, death with its parent, default signal handling. */
static void ts_sweep_child_setup(pid_t parent)
{
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(127); /* the parent died before the request took effect */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGPIPE, &sa, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
}

static void ts_sweep_child_exec(const char *exe, ts_sweep_argvec *a)
{
    execv(exe, a->argv);
    const char msg[] = "tessel sweep: cannot run the tessel binary\n";
    ssize_t w = write(2, msg, sizeof msg - 1);
    (void)w;
    _exit(127);
}

/* The worker's file names: its summary and log under logs/, its schedule under schedules/. */
static int ts_sweep_job_paths(ts_sweep_job *j, const ts_sweep_point *p, const char *outdir,
                              ts_err *e)
{
    memset(j, 0, sizeof *j);
    j->point = p;
    j->out_path = ts_sweep_path_join(outdir, "logs", p->id, ".out");
    j->log_path = ts_sweep_path_join(outdir, "logs", p->id, ".log");
    j->tmp_schedule = ts_sweep_path_join(outdir, "schedules", p->id, ".part.json");
    j->schedule = ts_sweep_path_join(outdir, "schedules", p->id, ".json");
    if (!j->out_path || !j->log_path || !j->tmp_schedule || !j->schedule) {
        ts_sweep_job_clear(j);
        return ts_fail(e, TS_ESYS, "%s: out of memory", p->id);
    }
    unlink(j->tmp_schedule);
    return TS_OK;
}

static void ts_sweep_av_micro_batches(ts_sweep_argvec *a, const ts_sweep_point *p)
{
    if (p->micro_batches > 0) {
        ts_sweep_av_add(a, "--micro-batches");
        ts_sweep_av_add(a, ts_sweep_av_num(a, "%.0f", (double)p->micro_batches));
    }
}

/* A baseline point: `tessel baseline KIND ... -o SCHEDULE`, then `tessel simulate SCHEDULE`. */
static void ts_sweep_argv_baseline(ts_sweep_argvec *run, ts_sweep_argvec *sim,
                                   const ts_sweep_point *p, const char *exe, const char *schedule)
{
    ts_sweep_av_add(run, exe);
    ts_sweep_av_add(run, "baseline");
    ts_sweep_av_add(run, p->method);
    ts_sweep_av_placement(run, p);
    ts_sweep_av_micro_batches(run, p);
    ts_sweep_av_add(run, "-o");
    ts_sweep_av_add(run, schedule);
    ts_sweep_av_add(sim, exe);
    ts_sweep_av_add(sim, "simulate");
    ts_sweep_av_add(sim, schedule);
    ts_sweep_av_micro_batches(sim, p);
    ts_sweep_av_add(sim, "--json");
}

/* A search point: `tessel search ... -o SCHEDULE --json`. */
static void ts_sweep_argv_search(ts_sweep_argvec *run, const ts_sweep_point *p,
                                 const ts_sweep_exec_opts *o, const char *schedule)
{
    ts_sweep_av_add(run, o->exe);
    ts_sweep_av_add(run, "search");
    ts_sweep_av_placement(run, p);
    ts_sweep_av_add(run, "--memory");
    ts_sweep_av_add(run, p->memory_list  ? p->memory_list
                         : p->memory < 0 ? "none"
                                         : ts_sweep_av_num(run, "%.0f", (double)p->memory));
    ts_sweep_av_add(run, "--method");
    ts_sweep_av_add(run, p->method);
    if (p->nmicros > 0) {
        ts_sweep_av_add(run, "--nmicros");
        ts_sweep_av_add(run, ts_sweep_av_num(run, "%.0f", p->nmicros));
    }
    ts_sweep_av_micro_batches(run, p);
    for (int i = 0; p->options_argv && p->options_argv[i]; i++)
        ts_sweep_av_add(run, p->options_argv[i]);
    if (o->time_limit > 0) {
        ts_sweep_av_add(run, "--time-limit");
        ts_sweep_av_add(run, ts_sweep_av_num(run, "%g", o->time_limit));
    }
    ts_sweep_av_add(run, "-o");
    ts_sweep_av_add(run, schedule);
    ts_sweep_av_add(run, "--json");
}

/* stdin from /dev/null, stdout to the summary file, stderr to the log: fd[0..2]. */
static int ts_sweep_open_outputs(const ts_sweep_job *j, int fd[3], ts_err *e)
{
    fd[0] = open("/dev/null", O_RDONLY | O_CLOEXEC);
    fd[1] = open(j->out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    fd[2] = open(j->log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd[0] >= 0 && fd[1] >= 0 && fd[2] >= 0)
        return TS_OK;
    int err = errno;
    for (int i = 0; i < 3; i++)
        if (fd[i] >= 0)
            close(fd[i]);
    return ts_fail(e, TS_ESYS, "%s: cannot create the worker's output files: %s", j->out_path,
                   strerror(err));
}

/* In the worker of a baseline point: the baseline writes the schedule (its chatter goes to the
 * log), then this process becomes the simulator whose JSON is the point's summary. */
static void ts_sweep_child_baseline(const char *exe, ts_sweep_argvec *run, ts_sweep_argvec *sim)
{
    pid_t me = getpid();
    pid_t b = fork();
    if (b < 0)
        _exit(127);
    if (b == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != me)
            _exit(127);
        if (dup2(2, 1) < 0)
            _exit(127);
        ts_sweep_child_exec(exe, run);
    }
    int st;
    while (waitpid(b, &st, 0) < 0)
        if (errno != EINTR)
            _exit(127);
    if (WIFSIGNALED(st))
        raise(WTERMSIG(st));
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        _exit(WIFEXITED(st) ? WEXITSTATUS(st) : 127);
    ts_sweep_child_exec(exe, sim);
}

int ts_sweep_job_start(ts_sweep_job *j, const ts_sweep_point *p, const ts_sweep_exec_opts *o,
                       ts_err *e)
{
    if (ts_sweep_job_paths(j, p, o->outdir, e))
        return e->code;
    bool baseline = ts_sweep_method_is_baseline(p->method);
    ts_sweep_argvec run = {0}, sim = {0};
    if (baseline)
        ts_sweep_argv_baseline(&run, &sim, p, o->exe, j->tmp_schedule);
    else
        ts_sweep_argv_search(&run, p, o, j->tmp_schedule);
    int fd[3];
    if (ts_sweep_open_outputs(j, fd, e)) {
        ts_sweep_job_clear(j);
        return e->code;
    }
    pid_t parent = getpid();
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        ts_sweep_child_setup(parent);
        for (int i = 0; i < 3; i++)
            if (dup2(fd[i], i) < 0)
                _exit(127);
        if (baseline)
            ts_sweep_child_baseline(o->exe, &run, &sim);
        ts_sweep_child_exec(o->exe, &run);
    }
    int err = errno;
    for (int i = 0; i < 3; i++)
        close(fd[i]);
    if (pid < 0) {
        ts_sweep_job_clear(j);
        return ts_fail(e, TS_ESYS, "cannot start a worker: %s", strerror(err));
    }
    /* Also here, so that a kill right after fork reaches the group. */
    setpgid(pid, pid);
    j->pid = pid;
    /* one search, auto too: its time limit is the whole search's one deadline */
    ts_watch_start(&j->watch, pid, true, o->time_limit, 1);
    return TS_OK;
}

void ts_sweep_job_kill(ts_sweep_job *j)
{
    if (j->pid > 0)
        ts_watch_kill(&j->watch);
}

/* The whole file if it is small enough, else NULL. */
static char *ts_sweep_slurp(const char *path, size_t *len)
{
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = malloc(MAX_OUTPUT + 1);
    if (!buf) {
        fclose(f);
        return NULL;
    }
    size_t n = fread(buf, 1, MAX_OUTPUT, f);
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* The last non-empty line of the worker's stderr: the message of a failed command. */
static json_t *ts_sweep_last_line(const char *log)
{
    size_t n;
    char *s = ts_sweep_slurp(log, &n);
    if (!s)
        return NULL;
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
        s[--n] = '\0';
    char *start = s + n;
    while (start > s && start[-1] != '\n')
        start--;
    json_t *m = NULL;
    if (*start) {
        if (strlen(start) > 400)
            strcpy(start + 396, " ...");
        m = json_string(start);
    }
    free(s);
    return m;
}

static bool ts_sweep_file_nonempty(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && st.st_size > 0;
}

/* What the worker's end says: status, message and (for an answer) the JSON summary. */
typedef struct {
    ts_sweep_status status;
    json_t *message, *summary;
    bool exited;
    int code;
} ts_sweep_outcome;

static void ts_sweep_read_summary(const ts_sweep_job *j, ts_sweep_outcome *r)
{
    size_t n;
    char *out = ts_sweep_slurp(j->out_path, &n);
    json_error_t je;
    r->summary = out ? json_loadb(out, n, 0, &je) : NULL;
    free(out);
    if (!json_is_object(r->summary)) {
        json_decref(r->summary);
        r->summary = NULL;
        r->message = json_string("the command printed no JSON summary");
    } else if (json_is_true(json_object_get(r->summary, "timed_out")) ||
               json_is_true(json_object_get(r->summary, "effort_out"))) {
        /* cut by the wall-clock cap, or by the effort (given, or set by the time limit: it stops the
         * search the same way on every machine): either way a limit ended the search */
        r->status = TS_SWEEP_TIMEOUT;
        /* the message says which of the two: only the wall-clock cap makes timed_out true */
        if (!json_is_true(json_object_get(r->summary, "timed_out")))
            r->message = json_string("the search stopped on its effort (--effort, or what "
                                     "--time-limit sets: the same on every machine; timed_out "
                                     "is false)");
        else if (!(r->message = ts_sweep_last_line(j->log_path)))
            r->message = json_string("the wall-clock cap (--time-limit) cut the search");
    } else {
        r->status = TS_SWEEP_OK;
    }
}

static ts_sweep_outcome ts_sweep_classify(const ts_sweep_job *j, int wstatus, double wall)
{
    ts_sweep_outcome r = {TS_SWEEP_ERROR, NULL, NULL, WIFEXITED(wstatus), 0};
    r.code = r.exited ? WEXITSTATUS(wstatus) : -1;
    char buf[512];
    if (j->watch.overdue) {
        r.status = TS_SWEEP_TIMEOUT;
        ts_watch_message(&j->watch, j->watch.started + wall, buf, sizeof buf);
        r.message = json_string(buf);
    } else if (!r.exited) {
        snprintf(buf, sizeof buf, "the worker was killed by signal %d", WTERMSIG(wstatus));
        r.message = json_string(buf);
    } else if (r.code == 0) {
        ts_sweep_read_summary(j, &r);
    } else {
        r.status = r.code == 1 ? TS_SWEEP_INFEASIBLE : TS_SWEEP_ERROR;
        /* "No answer" that comes when the time limit is used up proves nothing about
         * feasibility: the search ran out of time before it could decide. */
        if (r.code == 1 && j->watch.limit > 0 && wall >= j->watch.limit)
            r.status = TS_SWEEP_TIMEOUT;
        r.message = ts_sweep_last_line(j->log_path);
        if (!r.message) {
            snprintf(buf, sizeof buf, "exit status %d", r.code);
            r.message = json_string(buf);
        }
    }
    return r;
}

/* The record: id, status, message, the point's parameters, then how the run went. Takes the
 * outcome's references. */
static json_t *ts_sweep_make_record(const ts_sweep_point *p, ts_sweep_outcome *r, double wall,
                                    double time_limit, bool have_schedule, bool keep_log)
{
    json_t *rec = json_object();
    json_t *params = ts_sweep_point_params(p);
    if (!rec || !params) {
        json_decref(rec);
        json_decref(params);
        json_decref(r->summary);
        json_decref(r->message);
        return NULL;
    }
    char rel[600];
    json_object_set_new(rec, "id", json_string(p->id));
    json_object_set_new(rec, "status", json_string(ts_sweep_status_name(r->status)));
    json_object_set_new(rec, "message", r->message ? r->message : json_null());
    json_object_update(rec, params);
    json_decref(params);
    json_object_set_new(rec, "wall_seconds", json_real(wall));
    json_object_set_new(rec, "time_limit", time_limit > 0 ? json_real(time_limit) : json_null());
    json_object_set_new(rec, "exit_code", r->exited ? json_integer(r->code) : json_null());
    snprintf(rel, sizeof rel, "schedules/%s.json", p->id);
    json_object_set_new(rec, "schedule", have_schedule ? json_string(rel) : json_null());
    snprintf(rel, sizeof rel, "logs/%s.log", p->id);
    json_object_set_new(rec, "log", keep_log ? json_string(rel) : json_null());
    json_object_set_new(rec, "result", r->summary ? r->summary : json_null());
    return rec;
}

/* Whether OUTDIR (the folder of the worker's log) still takes a write: a page written, synced
 * and removed. On failure, why says what the kernel answered. */
static bool ts_sweep_outdir_writable(const ts_sweep_job *j, char *why, size_t cap)
{
    static const char page[4096];
    size_t n = strlen(j->log_path) + sizeof ".probe";
    char *probe = malloc(n);
    if (!probe) {
        snprintf(why, cap, "out of memory");
        return false;
    }
    snprintf(probe, n, "%s.probe", j->log_path);
    int fd = open(probe, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int err = fd < 0 ? errno : 0;
    if (fd >= 0) {
        ssize_t w = write(fd, page, sizeof page);
        err = w == (ssize_t)sizeof page ? 0 : w < 0 ? errno : ENOSPC;
        if (!err && fsync(fd))
            err = errno;
        close(fd);
        unlink(probe);
    }
    free(probe);
    if (err)
        snprintf(why, cap, "%s", strerror(err));
    return err == 0;
}

/* A failure that is the output folder's, not the point's: the command ended with a system
 * failure (exit 3) or said it succeeded yet left no summary, and its stderr is lost (the log is
 * empty: even that could not be written), names a full or read-only file system, or the folder
 * now refuses a write. Such a point has no result of its own. */
static bool ts_sweep_output_failed(const ts_sweep_job *j, const ts_sweep_outcome *r, char *why,
                                   size_t cap)
{
    if (r->status != TS_SWEEP_ERROR || !r->exited || (r->code != 3 && r->code != 0))
        return false;
    const char *last = json_string_value(r->message);
    if (!ts_sweep_file_nonempty(j->log_path)) {
        snprintf(why, cap, "%s, and its log is empty",
                 r->code ? "exit status 3" : "exit status 0 but no JSON summary");
        return true;
    }
    const int full[] = {ENOSPC, EDQUOT, EROFS, EFBIG};
    for (size_t i = 0; last && i < sizeof full / sizeof *full; i++)
        if (strstr(last, strerror(full[i]))) {
            snprintf(why, cap, "%s", last);
            return true;
        }
    char probe[128];
    if (ts_sweep_outdir_writable(j, probe, sizeof probe))
        return false;
    snprintf(why, cap, "%s; the output folder refuses a write: %s", last ? last : "no message",
             probe);
    return true;
}

int ts_sweep_job_finish(ts_sweep_job *j, int wstatus, json_t **rec, ts_err *e)
{
    *rec = NULL;
    double wall = ts_clock_now() - j->watch.started;
    ts_sweep_outcome r = ts_sweep_classify(j, wstatus, wall);
    char why[512];
    if (ts_sweep_output_failed(j, &r, why, sizeof why)) {
        json_decref(r.summary);
        json_decref(r.message);
        unlink(j->tmp_schedule);
        unlink(j->out_path);
        unlink(j->log_path);
        ts_fail(e, TS_ESYS,
                "point '%s' could not write its output (%s); it is not recorded: free space in "
                "the output folder and continue with --resume",
                j->point->id, why);
        return 1;
    }
    /* A schedule counts only when the command finished with an answer. */
    bool have_schedule = r.summary && ts_sweep_file_nonempty(j->tmp_schedule) &&
                         rename(j->tmp_schedule, j->schedule) == 0;
    unlink(j->tmp_schedule);
    unlink(j->out_path);
    bool keep_log = r.status != TS_SWEEP_OK && ts_sweep_file_nonempty(j->log_path);
    if (!keep_log)
        unlink(j->log_path);
    *rec = ts_sweep_make_record(j->point, &r, wall, j->watch.limit, have_schedule, keep_log);
    if (!*rec) {
        ts_fail(e, TS_ESYS, "out of memory");
        return -1;
    }
    return TS_OK;
}

json_t *ts_sweep_error_record(const ts_sweep_point *p, const char *message, double wall)
{
    ts_sweep_outcome r = {TS_SWEEP_ERROR, json_string(message), NULL, false, 0};
    return ts_sweep_make_record(p, &r, wall, 0, false, false);
}

int ts_sweep_jobs_reap(ts_sweep_job *jobs, int n, int *wstatus)
{
    for (int i = 0; i < n; i++) {
        if (jobs[i].pid <= 0)
            continue;
        /* Peek first: while the finished worker is a zombie its process group id cannot be
         * reused, so whatever is left in its group (a baseline step) can be killed safely. */
        siginfo_t si;
        memset(&si, 0, sizeof si);
        if (waitid(P_PID, (id_t)jobs[i].pid, &si, WEXITED | WNOHANG | WNOWAIT) || si.si_pid <= 0)
            continue;
        kill(-jobs[i].pid, SIGKILL);
        pid_t got;
        while ((got = waitpid(jobs[i].pid, wstatus, 0)) < 0 && errno == EINTR)
            ;
        if (got == jobs[i].pid)
            return i;
    }
    return -1;
}

void ts_sweep_jobs_kill_late(ts_sweep_job *jobs, int n, double now)
{
    for (int i = 0; i < n; i++)
        if (jobs[i].pid > 0)
            ts_watch_check(&jobs[i].watch, now);
}

int ts_sweep_jobs_stop(ts_sweep_job *jobs, int n)
{
    int stopped = 0;
    for (int i = 0; i < n; i++)
        ts_sweep_job_kill(&jobs[i]);
    for (int i = 0; i < n; i++) {
        ts_sweep_job *j = &jobs[i];
        if (j->pid <= 0)
            continue;
        while (waitpid(j->pid, NULL, 0) < 0 && errno == EINTR)
            ;
        unlink(j->tmp_schedule);
        unlink(j->out_path);
        unlink(j->log_path);
        ts_sweep_job_clear(j);
        stopped++;
    }
    return stopped;
}
