/* A compare row's search run in a child process under the watchdog (ts_watch): the child sends
 * the row back through a pipe, and a search that overruns its time limit is stopped and says so
 * in its row instead of holding up the whole table. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "ts_clock.h"
#include "ts_methods.h"
#include "ts_results.h"

/* Moves all len bytes through the pipe, writing when out, reading otherwise; false on an error
 * or an early end (the child died mid-row). */
static bool ts_compare_xfer(int fd, void *buf, size_t len, bool out)
{
    char *c = buf;
    while (len > 0) {
        ssize_t k = out ? write(fd, c, len) : read(fd, c, len);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return false;
        c += k;
        len -= (size_t)k;
    }
    return true;
}

/* In the child: the row, then its peak memory per device; the exit status says whether it got
 * through. */
static void ts_compare_child(const ts_compare_opts *o, const char *name, int fd)
{
    ts_compare_opts co = *o;
    ts_compare_row r;
    co.keep = false;
    ts_compare_row_run(&co, name, &r);
    ts_compare_row copy = r;
    copy.peak = NULL;
    copy.summary = NULL;
    copy.schedule = NULL;
    bool ok = ts_compare_xfer(fd, &copy, sizeof copy, true);
    if (ok && r.ok)
        ok = ts_compare_xfer(fd, r.peak, (size_t)r.ndevs * sizeof(long), true);
    _exit(ok ? 0 : 1);
}

/* In the parent: the row the child sent, or false when none came whole. */
static bool ts_compare_receive(int fd, ts_compare_row *r)
{
    ts_compare_row got;
    if (!ts_compare_xfer(fd, &got, sizeof got, false))
        return false;
    got.peak = NULL;
    if (got.ok && (got.ndevs <= 0 || !(got.peak = malloc((size_t)got.ndevs * sizeof(long))) ||
                   !ts_compare_xfer(fd, got.peak, (size_t)got.ndevs * sizeof(long), false))) {
        free(got.peak);
        return false;
    }
    *r = got;
    return true;
}

void ts_compare_row_run_guarded(const ts_compare_opts *o, const char *name, ts_compare_row *r)
{
    int fds[2];
    if (!ts_compare_is_search(name) || pipe(fds) != 0) {
        ts_compare_row_run(o, name, r);
        return;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        ts_compare_row_run(o, name, r);
        return;
    }
    if (pid == 0) {
        close(fds[0]);
        ts_compare_child(o, name, fds[1]);
    }
    close(fds[1]);
    ts_watch w;
    /* one row, auto's too: its time limit is the whole search's one deadline */
    ts_watch_start(&w, pid, false, o->time_limit, 1);
    bool ready = ts_watch_wait_fd(&w, fds[0]);
    bool ok = ready && ts_compare_receive(fds[0], r);
    if (!ok)
        ts_watch_kill(&w);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    close(fds[0]);
    if (ok)
        return;
    memset(r, 0, sizeof *r);
    snprintf(r->method, sizeof r->method, "%s", name);
    r->search = true;
    r->k = r->period = -1;
    double now = ts_clock_now();
    r->seconds = now - w.started;
    if (w.overdue)
        ts_watch_message(&w, now, r->status, sizeof r->status);
    else
        snprintf(r->status, sizeof r->status, "failed: the search process ended without a result");
}
