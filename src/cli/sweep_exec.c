/* Sweep workers: each point runs as `tessel search ... --json` (or `tessel baseline` followed by
 * `tessel simulate --json`) in a process group of its own, its stdout and stderr captured in files
 * under OUTDIR/logs. The worker asks the kernel to kill it when the sweep dies, so a sweep killed
 * with SIGKILL leaves no search running behind it. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "sweep.h"

#define MAX_ARGS 32
#define MAX_OUTPUT (4L << 20) /* a summary is a few hundred bytes; more is not a summary */

double ts_sweep_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static char *path_join(const char *dir, const char *sub, const char *id, const char *ext)
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
} argvec;

static void av_add(argvec *a, const char *s)
{
    if (a->argc < MAX_ARGS - 1)
        a->argv[a->argc++] = (char *)s;
    a->argv[a->argc] = NULL;
}

static const char *av_num(argvec *a, const char *fmt, double v)
{
    char *s = a->num[a->nnum++ & 7];
    snprintf(s, sizeof a->num[0], fmt, v);
    return s;
}

/* The placement options every command of the worker shares. */
static void av_placement(argvec *a, const ts_sweep_point *p)
{
    if (p->is_file) {
        av_add(a, p->placement);
        return;
    }
    av_add(a, "--placement");
    av_add(a, p->placement);
    av_add(a, "--ndevs");
    av_add(a, av_num(a, "%.0f", p->ndevs));
    if (p->infer)
        av_add(a, "--infer");
}

/* In the worker, after fork: its own group, death with its parent, default signal handling. */
static void child_setup(pid_t parent)
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

static void child_exec(const char *exe, argvec *a)
{
    execv(exe, a->argv);
    const char msg[] = "tessel sweep: cannot run the tessel binary\n";
    ssize_t w = write(2, msg, sizeof msg - 1);
    (void)w;
    _exit(127);
}

int ts_sweep_job_start(ts_sweep_job *j, const ts_sweep_point *p, const ts_sweep_exec_opts *o,
                       ts_err *e)
{
    memset(j, 0, sizeof *j);
    j->point = p;
    j->out_path = path_join(o->outdir, "logs", p->id, ".out");
    j->log_path = path_join(o->outdir, "logs", p->id, ".log");
    j->tmp_schedule = path_join(o->outdir, "schedules", p->id, ".part.json");
    j->schedule = path_join(o->outdir, "schedules", p->id, ".json");
    if (!j->out_path || !j->log_path || !j->tmp_schedule || !j->schedule) {
        ts_sweep_job_clear(j);
        return ts_fail(e, TS_ESYS, "%s: out of memory", p->id);
    }
    unlink(j->tmp_schedule);

    bool baseline = ts_sweep_method_is_baseline(p->method);
    argvec run = {0}, sim = {0};
    av_add(&run, o->exe);
    if (baseline) {
        av_add(&run, "baseline");
        av_add(&run, p->method);
        av_placement(&run, p);
        if (p->micro_batches > 0) {
            av_add(&run, "--micro-batches");
            av_add(&run, av_num(&run, "%.0f", (double)p->micro_batches));
        }
        av_add(&run, "-o");
        av_add(&run, j->tmp_schedule);
        av_add(&sim, o->exe);
        av_add(&sim, "simulate");
        av_add(&sim, j->tmp_schedule);
        if (p->micro_batches > 0) {
            av_add(&sim, "--micro-batches");
            av_add(&sim, av_num(&sim, "%.0f", (double)p->micro_batches));
        }
        av_add(&sim, "--json");
    } else {
        av_add(&run, "search");
        av_placement(&run, p);
        av_add(&run, "--memory");
        av_add(&run, p->memory < 0 ? "none" : av_num(&run, "%.0f", (double)p->memory));
        av_add(&run, "--method");
        av_add(&run, p->method);
        if (p->nmicros > 0) {
            av_add(&run, "--nmicros");
            av_add(&run, av_num(&run, "%.0f", p->nmicros));
        }
        if (p->micro_batches > 0) {
            av_add(&run, "--micro-batches");
            av_add(&run, av_num(&run, "%.0f", (double)p->micro_batches));
        }
        if (o->time_limit > 0) {
            av_add(&run, "--time-limit");
            av_add(&run, av_num(&run, "%g", o->time_limit));
        }
        av_add(&run, "-o");
        av_add(&run, j->tmp_schedule);
        av_add(&run, "--json");
    }

    int out = open(j->out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int log = open(j->log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (out < 0 || log < 0 || devnull < 0) {
        int err = errno;
        if (out >= 0)
            close(out);
        if (log >= 0)
            close(log);
        if (devnull >= 0)
            close(devnull);
        ts_fail(e, TS_ESYS, "%s: cannot create the worker's output files: %s", j->out_path,
                strerror(err));
        ts_sweep_job_clear(j);
        return TS_ESYS;
    }
    pid_t parent = getpid();
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        int err = errno;
        close(out);
        close(log);
        close(devnull);
        ts_sweep_job_clear(j);
        return ts_fail(e, TS_ESYS, "cannot start a worker: %s", strerror(err));
    }
    if (pid == 0) {
        child_setup(parent);
        if (dup2(devnull, 0) < 0 || dup2(out, 1) < 0 || dup2(log, 2) < 0)
            _exit(127);
        if (baseline) {
            /* Two steps: the baseline writes the schedule (its chatter goes to the log), then
             * this process becomes the simulator whose JSON is the point's summary. */
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
                child_exec(o->exe, &run);
            }
            int st;
            while (waitpid(b, &st, 0) < 0)
                if (errno != EINTR)
                    _exit(127);
            if (WIFSIGNALED(st))
                raise(WTERMSIG(st));
            if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
                _exit(WIFEXITED(st) ? WEXITSTATUS(st) : 127);
            child_exec(o->exe, &sim);
        }
        child_exec(o->exe, &run);
    }
    setpgid(pid, pid); /* also here, so that a kill right after fork reaches the group */
    close(out);
    close(log);
    close(devnull);
    j->pid = pid;
    j->started = ts_sweep_now();
    j->time_limit = o->time_limit;
    if (o->time_limit > 0)
        j->deadline = j->started + o->time_limit * 1.25 + 10.0;
    return TS_OK;
}

void ts_sweep_job_kill(ts_sweep_job *j)
{
    if (j->pid > 0) {
        kill(-j->pid, SIGKILL);
        kill(j->pid, SIGKILL);
    }
}

/* The whole file if it is small enough, else NULL. */
static char *slurp(const char *path, size_t *len)
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
static json_t *last_line(const char *log)
{
    size_t n;
    char *s = slurp(log, &n);
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

static bool file_nonempty(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && st.st_size > 0;
}

json_t *ts_sweep_job_finish(ts_sweep_job *j, int wstatus)
{
    const ts_sweep_point *p = j->point;
    double wall = ts_sweep_now() - j->started;
    json_t *summary = NULL, *message = NULL;
    ts_sweep_status status = TS_SWEEP_ERROR;
    char buf[512];
    bool exited = WIFEXITED(wstatus);
    int code = exited ? WEXITSTATUS(wstatus) : -1;

    if (j->killed_late) {
        status = TS_SWEEP_TIMEOUT;
        snprintf(buf, sizeof buf, "killed by the sweep after %.1f s (time limit %g s)", wall,
                 j->time_limit);
        message = json_string(buf);
    } else if (!exited) {
        snprintf(buf, sizeof buf, "the worker was killed by signal %d", WTERMSIG(wstatus));
        message = json_string(buf);
    } else if (code == 0) {
        size_t n;
        char *out = slurp(j->out_path, &n);
        json_error_t je;
        summary = out ? json_loadb(out, n, 0, &je) : NULL;
        free(out);
        if (!json_is_object(summary)) {
            json_decref(summary);
            summary = NULL;
            message = json_string("the command printed no JSON summary");
        } else if (json_is_true(json_object_get(summary, "timed_out"))) {
            status = TS_SWEEP_TIMEOUT;
            message = last_line(j->log_path);
            if (!message)
                message = json_string("the time limit cut the search");
        } else {
            status = TS_SWEEP_OK;
        }
    } else {
        status = code == 1 ? TS_SWEEP_INFEASIBLE : TS_SWEEP_ERROR;
        /* "No answer" that comes when the time limit is used up proves nothing about
         * feasibility: the search ran out of time before it could decide. */
        if (code == 1 && j->time_limit > 0 && wall >= j->time_limit)
            status = TS_SWEEP_TIMEOUT;
        message = last_line(j->log_path);
        if (!message) {
            snprintf(buf, sizeof buf, "exit status %d", code);
            message = json_string(buf);
        }
    }

    /* A schedule counts only when the command finished with an answer. */
    bool have_schedule = summary && file_nonempty(j->tmp_schedule) &&
                         rename(j->tmp_schedule, j->schedule) == 0;
    unlink(j->tmp_schedule);
    unlink(j->out_path);
    bool keep_log = status != TS_SWEEP_OK && file_nonempty(j->log_path);
    if (!keep_log)
        unlink(j->log_path);
    char rel[600];

    json_t *rec = json_object();
    json_t *params = ts_sweep_point_params(p);
    if (!rec || !params) {
        json_decref(rec);
        json_decref(params);
        json_decref(summary);
        json_decref(message);
        return NULL;
    }
    json_object_set_new(rec, "id", json_string(p->id));
    json_object_set_new(rec, "status", json_string(ts_sweep_status_name(status)));
    json_object_set_new(rec, "message", message ? message : json_null());
    json_object_update(rec, params);
    json_decref(params);
    json_object_set_new(rec, "wall_seconds", json_real(wall));
    json_object_set_new(rec, "time_limit",
                        j->time_limit > 0 ? json_real(j->time_limit) : json_null());
    json_object_set_new(rec, "exit_code", exited ? json_integer(code) : json_null());
    snprintf(rel, sizeof rel, "schedules/%s.json", p->id);
    json_object_set_new(rec, "schedule", have_schedule ? json_string(rel) : json_null());
    snprintf(rel, sizeof rel, "logs/%s.log", p->id);
    json_object_set_new(rec, "log", keep_log ? json_string(rel) : json_null());
    json_object_set_new(rec, "result", summary ? summary : json_null());
    return rec;
}
