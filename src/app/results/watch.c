/* The watchdog rule and the one supervisor of child processes: `tessel compare`'s guarded
 * searches, `tessel sweep`'s workers and the explorer's job workers are all stopped by the same
 * rule, with the same message. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include "ts_clock.h"
#include "ts_results.h"

double ts_watchdog_seconds(double limit)
{
    return 1.25 * limit + 5.0;
}

void ts_watch_start(ts_watch *w, pid_t pid, bool group, double limit, int searches)
{
    w->pid = pid;
    w->group = group;
    w->started = ts_clock_now();
    w->limit = limit;
    w->searches = searches > 0 ? searches : 1;
    w->deadline = limit > 0 ? w->started + w->searches * ts_watchdog_seconds(limit) : 0;
    w->overdue = false;
}

void ts_watch_kill(const ts_watch *w)
{
    if (w->pid <= 0)
        return;
    if (w->group)
        kill(-w->pid, SIGKILL);
    kill(w->pid, SIGKILL);
}

bool ts_watch_check(ts_watch *w, double now)
{
    if (!w->overdue && w->pid > 0 && w->deadline > 0 && now > w->deadline) {
        w->overdue = true;
        ts_watch_kill(w);
    }
    return w->overdue;
}

bool ts_watch_wait_fd(ts_watch *w, int fd)
{
    for (;;) {
        double now = ts_clock_now(), left = w->deadline > 0 ? w->deadline - now : 3600;
        if (ts_watch_check(w, now))
            return false;
        struct pollfd pf = {fd, POLLIN, 0};
        int k = poll(&pf, 1, left > 3600 ? 3600000 : (int)(left * 1000) + 1);
        if (k > 0)
            return true;
        if (k < 0 && errno != EINTR)
            return false;
    }
}

void ts_watch_message(const ts_watch *w, double now, char *buf, size_t len)
{
    snprintf(buf, len,
             "stopped after %.1f s: ran past its time limit of %g s%s by more than a quarter",
             now - w->started, w->limit, w->searches > 1 ? " per search" : "");
}
