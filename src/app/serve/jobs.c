/* Search jobs in worker processes. A solver run cannot be interrupted from outside, but a process
 * can: each job is a child that execs `tessel serve --worker` (ts_worker_main), gets the request
 * on its stdin and streams lines through a pipe; a monitor thread reads them, reaps the child, and
 * kills it on cancel or past its time limit. The exec is what makes the fork safe here: the server
 * is multi-threaded, and a lock that another thread held at fork time (malloc's, ASan's,
 * Jansson's, Z3's) stays locked forever in a child that keeps running this program's code. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include "ts_clock.h"
#include "ts_methods.h"
#include "ts_op_compare.h"
#include "ts_results.h"
#include "ts_serve.h"

#define TS_JOBS_KEEP 32 /* jobs remembered (finished ones are evicted oldest first) */
#define TS_JOBS_MAX_LINE (64L << 20) /* a worker's answer larger than this is refused */
#define TS_JOBS_MAX_EXE 4096 /* bytes of the worker program's path */
#define TS_JOBS_EXEC_ERRNO "exec_errno" /* the child's "E" line when exec failed */

typedef enum { TS_JS_RUNNING, TS_JS_DONE, TS_JS_FAILED, TS_JS_CANCELLED, TS_JS_TIMEOUT } ts_jstate;
static const char *const ts_jstate_names[] = {"running", "done", "failed", "cancelled",
                                              "timed out"};
static const char *const ts_jkind_names[] = {"search", "compare", "whatif"};

typedef struct {
    long id; /* 0: free slot */
    ts_job_kind kind;
    ts_jstate state;
    pid_t pid; /* -1 once reaped */
    int fd; /* read end of the worker's pipe, -1 once closed */
    char *line; /* the partial line read so far */
    size_t len, cap;
    json_t *progress, *result;
    char error[512];
    /* The worker's own verdict (its R or E line), applied once the worker is reaped, so that a
     * client never sees a finished job whose worker is still alive. */
    ts_jstate verdict;
    char verdict_why[512];
    /* Its start, deadline and whether the watchdog stopped it. */
    ts_watch watch;
    double finished;
} ts_job;

struct ts_jobs {
    pthread_mutex_t mu;
    pthread_t monitor;
    bool stop;
    int max_running;
    long next_id;
    char exe[TS_JOBS_MAX_EXE]; /* the program a worker execs */
    ts_job jobs[TS_JOBS_KEEP];
};

static void ts_job_clear(ts_job *j)
{
    free(j->line);
    json_decref(j->progress);
    json_decref(j->result);
    memset(j, 0, sizeof *j);
    j->fd = -1;
    j->pid = -1;
}

static void ts_job_finish(ts_job *j, ts_jstate st, const char *why)
{
    if (j->state != TS_JS_RUNNING)
        return;
    j->state = st;
    j->finished = ts_clock_now();
    if (why)
        snprintf(j->error, sizeof j->error, "%s", why);
}

/* One complete line from the worker: progress, a partial result, the result or an error. exe names the worker program in
 * the message of a failed exec (the child can only send errno: it may not format text). */
static void ts_job_line(ts_job *j, const char *exe, char *s, size_t n)
{
    if (n < 2 || s[1] != ' ')
        return;
    json_t *v = json_loadb(s + 2, n - 2, 0, NULL);
    if (!v)
        return;
    if (s[0] == 'P') {
        json_decref(j->progress);
        j->progress = v;
    } else if (s[0] == 'Q') {
        /* a what-if's points so far: the answer of a job stopped before its end */
        json_decref(j->result);
        j->result = v;
    } else if (s[0] == 'R') {
        json_decref(j->result);
        j->result = v;
        if (j->verdict == TS_JS_RUNNING)
            j->verdict = TS_JS_DONE;
    } else if (s[0] == 'E') {
        json_t *en = json_object_get(v, TS_JOBS_EXEC_ERRNO);
        char why[TS_JOBS_MAX_EXE + 128];
        if (json_is_integer(en))
            snprintf(why, sizeof why, "serve: cannot start the search worker %s: %s", exe,
                     strerror((int)json_integer_value(en)));
        else
            snprintf(why, sizeof why, "%s", json_string_value(json_object_get(v, "error")));
        if (j->verdict == TS_JS_RUNNING) {
            j->verdict = TS_JS_FAILED;
            snprintf(j->verdict_why, sizeof j->verdict_why, "%s", why);
        }
        json_decref(v);
    } else {
        json_decref(v);
    }
}

/* Reads what the worker wrote; at end of stream reaps it. Called with the lock held. */
static void ts_job_drain(ts_job *j, const char *exe)
{
    char buf[65536];
    for (;;) {
        ssize_t k = read(j->fd, buf, sizeof buf);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return; /* EAGAIN: more later */
        for (ssize_t i = 0; i < k; i++) {
            if (buf[i] == '\n') {
                ts_job_line(j, exe, j->line, j->len);
                j->len = 0;
                continue;
            }
            if (j->len + 1 >= j->cap) {
                size_t nc = j->cap ? 2 * j->cap : 4096;
                char *nl = nc <= (size_t)TS_JOBS_MAX_LINE ? realloc(j->line, nc) : NULL;
                if (!nl) {
                    kill(j->pid, SIGKILL);
                    ts_job_finish(j, TS_JS_FAILED, "the worker's answer is too large");
                    k = 0;
                    break;
                }
                j->line = nl;
                j->cap = nc;
            }
            j->line[j->len++] = buf[i];
        }
        if (k == 0)
            break;
    }
    close(j->fd);
    j->fd = -1;
    int status = 0;
    while (waitpid(j->pid, &status, 0) < 0 && errno == EINTR)
        ;
    j->pid = -1;
    j->watch.pid = -1;
    if (j->verdict != TS_JS_RUNNING)
        ts_job_finish(j, j->verdict, j->verdict == TS_JS_FAILED ? j->verdict_why : NULL);
    char why[96];
    snprintf(why, sizeof why, "the worker ended without an answer (%s %d)",
             WIFSIGNALED(status) ? "signal" : "exit status",
             WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    ts_job_finish(j, TS_JS_FAILED, why);
}

static void *ts_jobs_monitor(void *arg)
{
    ts_jobs *js = arg;
    struct pollfd fds[TS_JOBS_KEEP];
    int idx[TS_JOBS_KEEP];
    for (;;) {
        int n = 0;
        pthread_mutex_lock(&js->mu);
        if (js->stop) {
            pthread_mutex_unlock(&js->mu);
            return NULL;
        }
        double now = ts_clock_now();
        for (int i = 0; i < TS_JOBS_KEEP; i++) {
            ts_job *j = &js->jobs[i];
            if (j->id && j->state == TS_JS_RUNNING && ts_watch_check(&j->watch, now)) {
                char why[160];
                ts_watch_message(&j->watch, now, why, sizeof why);
                ts_job_finish(j, TS_JS_TIMEOUT, why);
            }
            if (j->id && j->fd >= 0) {
                fds[n] = (struct pollfd){j->fd, POLLIN, 0};
                idx[n++] = i;
            }
        }
        pthread_mutex_unlock(&js->mu);
        if (poll(fds, (nfds_t)n, 100) <= 0)
            continue;
        pthread_mutex_lock(&js->mu);
        for (int k = 0; k < n; k++)
            if (fds[k].revents && js->jobs[idx[k]].fd == fds[k].fd)
                ts_job_drain(&js->jobs[idx[k]], js->exe);
        pthread_mutex_unlock(&js->mu);
    }
}

ts_jobs *ts_jobs_new(int max_running, const char *worker_exe, ts_err *e)
{
#ifdef __linux__
    if (!worker_exe)
        worker_exe = "/proc/self/exe"; /* this very program, even if its file was replaced */
#endif
    if (!worker_exe || !*worker_exe || strlen(worker_exe) >= TS_JOBS_MAX_EXE) {
        ts_fail(e, TS_EINPUT, "serve: no path for the search workers' program (--worker-exe)");
        return NULL;
    }
    ts_jobs *js = calloc(1, sizeof *js);
    if (!js) {
        ts_fail(e, TS_ESYS, "serve: out of memory");
        return NULL;
    }
    memcpy(js->exe, worker_exe, strlen(worker_exe) + 1);
    js->max_running = max_running;
    js->next_id = 1;
    for (int i = 0; i < TS_JOBS_KEEP; i++)
        ts_job_clear(&js->jobs[i]);
    pthread_mutex_init(&js->mu, NULL);
    if (pthread_create(&js->monitor, NULL, ts_jobs_monitor, js)) {
        pthread_mutex_destroy(&js->mu);
        free(js);
        ts_fail(e, TS_ESYS, "serve: cannot start the job monitor thread");
        return NULL;
    }
    return js;
}

void ts_jobs_free(ts_jobs *js)
{
    if (!js)
        return;
    pthread_mutex_lock(&js->mu);
    js->stop = true;
    pthread_mutex_unlock(&js->mu);
    pthread_join(js->monitor, NULL);
    for (int i = 0; i < TS_JOBS_KEEP; i++) {
        ts_job *j = &js->jobs[i];
        if (j->pid > 0) {
            kill(j->pid, SIGKILL);
            while (waitpid(j->pid, NULL, 0) < 0 && errno == EINTR)
                ;
        }
        if (j->fd >= 0)
            close(j->fd);
        ts_job_clear(j);
    }
    pthread_mutex_destroy(&js->mu);
    free(js);
}

/* A free slot, or the one of the oldest finished job (whose worker has been reaped). */
static ts_job *ts_jobs_slot(ts_jobs *js)
{
    ts_job *best = NULL;
    for (int i = 0; i < TS_JOBS_KEEP; i++) {
        ts_job *j = &js->jobs[i];
        if (!j->id)
            return j;
        if (j->state != TS_JS_RUNNING && j->fd < 0 && (!best || j->id < best->id))
            best = j;
    }
    if (best)
        ts_job_clear(best);
    return best;
}

/* What the child of fork needs, all prepared before the fork: after it, only async-signal-safe
 * calls (no malloc, no stdio, no locks) until exec. */
typedef struct {
    const char *exe;
    char *argv[4];
    int in, out; /* the child's ends of the request and answer pipes */
    long maxfd; /* descriptors below this are closed (from 4 on) */
    pid_t parent;
    sigset_t
        mask; /* the worker starts with no signal blocked (the server blocks SIGINT, SIGTERM) */
    char line[64]; /* "E {"exec_errno":" */
    size_t nline;
} ts_spawn;

/* The worker's side of fork: the answer pipe becomes fd 3 and the request pipe stdin; nothing else
 * stays open (not the server's sockets, whose clients would otherwise wait for this process too),
 * and it dies with the server. If exec fails, one "E" line carries errno (the server words it). */
static void ts_jobs_child(const ts_spawn *sp)
{
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != sp->parent) /* the server died before prctl took effect */
        _exit(1);
#endif
    /* Out of the way of 0 and 3 first, so that neither dup2 below overwrites the other end. */
    int out = fcntl(sp->out, F_DUPFD, 4), in = fcntl(sp->in, F_DUPFD, 4);
    if (out < 0 || in < 0 || dup2(out, 3) < 0 || dup2(in, 0) < 0)
        _exit(3);
    for (long fd = 4; fd < sp->maxfd; fd++)
        close((int)fd);
    sigprocmask(SIG_SETMASK, &sp->mask, NULL);
    execv(sp->exe, sp->argv);
    char num[16], *p = num + sizeof num;
    int err = errno;
    *--p = '\n';
    *--p = '}';
    do
        *--p = (char)('0' + err % 10);
    while ((err /= 10) > 0);
    if (write(3, sp->line, sp->nline) == (ssize_t)sp->nline)
        (void)!write(3, p, (size_t)(num + sizeof num - p));
    _exit(127);
}

static void ts_spawn_init(ts_spawn *sp, const char *exe, int in, int out)
{
    static const char *const args[] = {"tessel", "serve", "--worker"};
    struct rlimit rl;
    sp->exe = exe;
    sp->argv[0] = (char *)args[0];
    sp->argv[1] = (char *)args[1];
    sp->argv[2] = (char *)args[2];
    sp->argv[3] = NULL;
    sp->in = in;
    sp->out = out;
    sp->maxfd =
        getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 65536 ? (long)rl.rlim_cur : 65536;
    sp->parent = getpid();
    sigemptyset(&sp->mask);
    snprintf(sp->line, sizeof sp->line, "E {\"%s\":", TS_JOBS_EXEC_ERRNO);
    sp->nline = strlen(sp->line);
}

/* Two pipes, close-on-exec (other workers, exec'ed later, must not hold them open): req carries
 * the request to the worker's stdin, ans the worker's lines back. Called with the lock held, as
 * every fork of the server is, so no fork sees these before the flag is set. */
static int ts_jobs_pipes(int req[2], int ans[2], ts_err *e)
{
    if (pipe(req))
        return ts_fail(e, TS_ESYS, "serve: cannot create a pipe: %s", strerror(errno));
    if (pipe(ans)) {
        int err = errno;
        close(req[0]);
        close(req[1]);
        return ts_fail(e, TS_ESYS, "serve: cannot create a pipe: %s", strerror(err));
    }
    for (int i = 0; i < 2; i++) {
        fcntl(req[i], F_SETFD, FD_CLOEXEC);
        fcntl(ans[i], F_SETFD, FD_CLOEXEC);
    }
    fcntl(ans[0], F_SETFL, fcntl(ans[0], F_GETFL) | O_NONBLOCK);
    return TS_OK;
}

/* Writes all n bytes (a short write is resumed); 0, or -1 with errno (EPIPE: the worker is gone,
 * and SIGPIPE is ignored by `tessel serve`). */
static int ts_jobs_write(int fd, const char *s, size_t n)
{
    while (n > 0) {
        ssize_t k = write(fd, s, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return -1;
        s += k;
        n -= (size_t)k;
    }
    return 0;
}

/* Sends the request to the worker's stdin, without the lock (a large body takes the worker's
 * reading to pass the pipe). If that fails, the worker is stopped; with EPIPE it has exited and
 * its own "E" line (or its exit status) says why, otherwise the write error does. */
static void ts_jobs_send(ts_jobs *js, long id, pid_t pid, int fd, const ts_api_request *rq)
{
    char head[64];
    int hn = snprintf(head, sizeof head, "POST /api/jobs %zu\n", rq->raw_len);
    int rc = ts_jobs_write(fd, head, (size_t)hn);
    if (rc == 0 && rq->raw_len)
        rc = ts_jobs_write(fd, rq->raw_body, rq->raw_len);
    int err = errno;
    close(fd);
    if (rc == 0)
        return;
    pthread_mutex_lock(&js->mu);
    for (int i = 0; i < TS_JOBS_KEEP; i++) {
        ts_job *j = &js->jobs[i];
        if (j->id != id || j->pid != pid || j->state != TS_JS_RUNNING)
            continue;
        kill(pid, SIGKILL); /* not reaped yet (pid matches), so the pid is still this worker */
        if (err != EPIPE) {
            char why[160];
            snprintf(why, sizeof why, "serve: cannot send the request to its worker: %s",
                     strerror(err));
            ts_job_finish(j, TS_JS_FAILED, why);
        }
    }
    pthread_mutex_unlock(&js->mu);
}

/* The searches a job runs in turn, each within its time limit (auto's too: the limit is its one
 * deadline): the watchdog gives it that many. */
static int ts_jobs_searches(const ts_api_request *rq)
{
    const ts_op_compare_req *c = rq->job == TS_JOB_COMPARE ? rq->compare : NULL;
    /* compare's default list: lazy, fast, full, modulo and auto, and one for its baselines */
    int rows = c && c->listed ? c->nnames : 6;
    return rq->job == TS_JOB_COMPARE ? rows : rq->job == TS_JOB_WHATIF ? rq->nvalues : 1;
}

/* The time limit each of the job's searches runs under: its own, or, in a what-if over the time
 * limit, the largest of the values (each point's search has its value as its limit: sized on the
 * job's own, the watchdog stopped the sweep before its longer points). */
static double ts_jobs_limit(const ts_api_request *rq)
{
    double limit = rq->time_limit;
    if (rq->job == TS_JOB_WHATIF && !strcmp(rq->knob, "time_limit"))
        for (int i = 0; i < rq->nvalues; i++)
            if ((double)rq->values[i] > limit)
                limit = (double)rq->values[i];
    return limit;
}

int ts_jobs_start(ts_jobs *js, const ts_api_request *rq, long *id, ts_err *e)
{
    int running = 0, req[2], ans[2];
    if (!rq->raw_body && rq->raw_len) {
        ts_fail(e, TS_ESYS, "serve: a job without the body it was parsed from");
        return 500;
    }
    pthread_mutex_lock(&js->mu);
    for (int i = 0; i < TS_JOBS_KEEP; i++)
        running += js->jobs[i].id && js->jobs[i].state == TS_JS_RUNNING;
    ts_job *j = running < js->max_running ? ts_jobs_slot(js) : NULL;
    if (!j) {
        pthread_mutex_unlock(&js->mu);
        ts_fail(e, TS_EINPUT,
                "%d searches are running already (the limit is %d): cancel one or "
                "wait",
                running, js->max_running);
        return 429;
    }
    if (ts_jobs_pipes(req, ans, e)) {
        pthread_mutex_unlock(&js->mu);
        return 500;
    }
    ts_spawn sp;
    ts_spawn_init(&sp, js->exe, req[0], ans[1]);
    pid_t pid = fork();
    if (pid == 0)
        ts_jobs_child(&sp);
    int err = errno;
    close(req[0]);
    close(ans[1]);
    if (pid < 0) {
        close(req[1]);
        close(ans[0]);
        pthread_mutex_unlock(&js->mu);
        ts_fail(e, TS_ESYS, "serve: cannot start a worker: %s", strerror(err));
        return 500;
    }
    j->id = js->next_id++;
    j->kind = rq->job;
    j->state = TS_JS_RUNNING;
    j->pid = pid;
    j->fd = ans[0];
    ts_watch_start(&j->watch, pid, false, ts_jobs_limit(rq), ts_jobs_searches(rq));
    *id = j->id;
    pthread_mutex_unlock(&js->mu);
    ts_jobs_send(js, *id, pid, req[1], rq);
    return 200;
}

static ts_job *ts_jobs_find(ts_jobs *js, long id)
{
    for (int i = 0; i < TS_JOBS_KEEP; i++)
        if (js->jobs[i].id == id && id > 0)
            return &js->jobs[i];
    return NULL;
}

static json_t *ts_job_json(const ts_job *j, bool with_result)
{
    double end = j->state == TS_JS_RUNNING ? ts_clock_now() : j->finished;
    json_t *o =
        json_pack("{s:I, s:s, s:s, s:f}", "id", (json_int_t)j->id, "job", ts_jkind_names[j->kind],
                  "state", ts_jstate_names[j->state], "elapsed", end - j->watch.started);
    if (o && j->progress)
        json_object_set(o, "progress", j->progress);
    if (o && j->error[0])
        json_object_set_new(o, "error", json_string(j->error));
    if (o && with_result && j->result)
        json_object_set(o, "result", j->result);
    return o;
}

json_t *ts_jobs_status(ts_jobs *js, long id, bool with_result)
{
    pthread_mutex_lock(&js->mu);
    ts_job *j = ts_jobs_find(js, id);
    json_t *o = j ? ts_job_json(j, with_result) : NULL;
    pthread_mutex_unlock(&js->mu);
    return o;
}

int ts_jobs_cancel(ts_jobs *js, long id)
{
    pthread_mutex_lock(&js->mu);
    ts_job *j = ts_jobs_find(js, id);
    if (j && j->state == TS_JS_RUNNING) {
        kill(j->pid, SIGKILL); /* the monitor reaps it when its pipe closes */
        ts_job_finish(j, TS_JS_CANCELLED, "cancelled");
    }
    pthread_mutex_unlock(&js->mu);
    return j ? 0 : -1;
}

json_t *ts_jobs_list(ts_jobs *js)
{
    json_t *a = json_array();
    int running = 0;
    pthread_mutex_lock(&js->mu);
    for (int i = 0; i < TS_JOBS_KEEP; i++)
        if (js->jobs[i].id) {
            json_array_append_new(a, ts_job_json(&js->jobs[i], false));
            running += js->jobs[i].state == TS_JS_RUNNING || js->jobs[i].pid > 0;
        }
    pthread_mutex_unlock(&js->mu);
    return json_pack("{s:o, s:i, s:i}", "jobs", a, "workers", running, "max_running",
                     js->max_running);
}
