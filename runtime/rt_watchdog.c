/* The watchdog thread of tessel-run's start-up and shutdown (rt_watchdog.h): a condition
 * variable on the monotonic clock, waited on until the phase's deadline; past it the rank prints
 * its one line and ends with _exit (MPI cannot be called from this thread, and the launcher then
 * ends the job, the other ranks included). */
#include "rt_watchdog.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "ts_clock.h"

struct ts_rt_watchdog {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    double timeout;
    /* the phase under way (NULL: paused), its start and the rank, guarded by mu */
    const char *phase;
    double since;
    int rank;
    bool stop;
};

int ts_rt_launcher_rank(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
                                       "SLURM_PROCID"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        const char *v = getenv(vars[i]);
        char *end = NULL;
        long r = v && *v ? strtol(v, &end, 10) : -1;
        if (v && *v && end && !*end && r >= 0 && r < 1 << 30)
            return (int)r;
    }
    return -1;
}

/* Past the deadline: one line, then this rank ends. */
static void ts_rt_watchdog_fire(const ts_rt_watchdog *w)
{
    char who[32] = "rank ?";
    if (w->rank >= 0)
        snprintf(who, sizeof who, "rank %d", w->rank);
    fprintf(stderr,
            "tessel-run: %s: %s did not finish within %g s (--timeout): another rank is stopped, "
            "lost or too slow; ending this rank\n",
            who, w->phase, w->timeout);
    fflush(stderr);
    _exit(TS_ESYS);
}

static void *ts_rt_watchdog_main(void *arg)
{
    ts_rt_watchdog *w = arg;
    pthread_mutex_lock(&w->mu);
    while (!w->stop) {
        if (!w->phase) {
            pthread_cond_wait(&w->cv, &w->mu);
            continue;
        }
        double left = w->since + w->timeout - ts_clock_now();
        if (left <= 0)
            ts_rt_watchdog_fire(w);
        /* the condition variable runs on CLOCK_MONOTONIC, the clock behind ts_clock_now */
        struct timespec at;
        clock_gettime(CLOCK_MONOTONIC, &at);
        double ns = (double)at.tv_nsec + left * 1e9;
        at.tv_sec += (time_t)(ns / 1e9);
        at.tv_nsec = (long)(ns - 1e9 * (double)(time_t)(ns / 1e9));
        pthread_cond_timedwait(&w->cv, &w->mu, &at);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

int ts_rt_watchdog_start(double timeout, int rank, const char *phase, ts_rt_watchdog **out,
                         ts_err *e)
{
    *out = NULL;
    ts_rt_watchdog *w = calloc(1, sizeof *w);
    if (!w)
        return ts_fail(e, TS_ESYS, "out of memory for the start-up watchdog");
    w->timeout = timeout;
    w->rank = rank;
    w->phase = phase;
    w->since = ts_clock_now();
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, &ca);
    pthread_condattr_destroy(&ca);
    if (pthread_create(&w->thread, NULL, ts_rt_watchdog_main, w)) {
        pthread_cond_destroy(&w->cv);
        pthread_mutex_destroy(&w->mu);
        free(w);
        return ts_fail(e, TS_ESYS, "cannot start the start-up watchdog thread");
    }
    *out = w;
    return TS_OK;
}

void ts_rt_watchdog_phase(ts_rt_watchdog *w, int rank, const char *phase)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->mu);
    if (rank >= 0)
        w->rank = rank;
    w->phase = phase;
    w->since = ts_clock_now();
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

void ts_rt_watchdog_stop(ts_rt_watchdog *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->mu);
    w->stop = true;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thread, NULL);
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
    free(w);
}
