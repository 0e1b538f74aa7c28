/* The slow-client guard of `tessel serve`. libmicrohttpd's connection timeout is an idle timeout:
 * a client that sends one header line a second resets it forever, and enough such clients fill
 * the connection limit and lock everyone else out. So every connection is tracked from its
 * opening (MHD_OPTION_NOTIFY_CONNECTION), each request gets a deadline to arrive whole (headers
 * and body), and a thread shuts down the socket of a connection that misses it, which makes the
 * daemon close it. While more than 3/4 of the connection limit is in use the deadline shrinks, so
 * the slowest senders make room for new clients. Contents: ts_guard_start, ts_guard_stop,
 * ts_guard_notify, ts_guard_arrived, ts_guard_answered. */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include "ts_clock.h"
#include "ts_serve_guard.h"

struct ts_guard_conn {
    ts_guard_conn *prev, *next;
    int fd;
    /* When the current request began to be awaited. */
    double since;
    /* False from the request's arrival until its answer is sent. */
    bool receiving;
    /* Shut down already. */
    bool cut;
};

/* How often the thread looks at the connections, in seconds. */
#define TS_GUARD_TICK 0.1

static void *ts_guard_loop(void *arg)
{
    ts_guard *g = arg;
    pthread_mutex_lock(&g->lock);
    while (!g->stop) {
        double now = ts_clock_now();
        double limit = g->n * 4 > g->limit * 3 ? g->pressed : g->deadline;
        for (ts_guard_conn *k = g->head; k; k = k->next)
            if (k->receiving && !k->cut && now - k->since > limit) {
                /* The fd stays open until the daemon's close notification, which takes this
                 * lock first: it cannot have been closed and reused under us. */
                shutdown(k->fd, SHUT_RDWR);
                k->cut = true;
                g->cut++;
            }
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        ts.tv_nsec += (long)(TS_GUARD_TICK * 1e9);
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&g->wake, &g->lock, &ts);
    }
    pthread_mutex_unlock(&g->lock);
    return NULL;
}

int ts_guard_start(ts_guard *g, unsigned limit, double deadline, double pressed, ts_err *e)
{
    memset(g, 0, sizeof *g);
    g->limit = limit;
    g->deadline = deadline;
    g->pressed = pressed;
    pthread_condattr_t ca;
    if (pthread_condattr_init(&ca))
        return ts_fail(e, TS_ESYS, "cannot start the request guard: out of memory");
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    int rc = pthread_cond_init(&g->wake, &ca);
    pthread_condattr_destroy(&ca);
    if (rc)
        return ts_fail(e, TS_ESYS, "cannot start the request guard: %s", strerror(rc));
    pthread_mutex_init(&g->lock, NULL);
    if ((rc = pthread_create(&g->thread, NULL, ts_guard_loop, g))) {
        pthread_cond_destroy(&g->wake);
        pthread_mutex_destroy(&g->lock);
        return ts_fail(e, TS_ESYS, "cannot start the request guard's thread: %s", strerror(rc));
    }
    g->started = true;
    return TS_OK;
}

void ts_guard_stop(ts_guard *g)
{
    if (!g->started)
        return;
    pthread_mutex_lock(&g->lock);
    g->stop = true;
    pthread_cond_signal(&g->wake);
    pthread_mutex_unlock(&g->lock);
    pthread_join(g->thread, NULL);
    /* The daemon has closed every connection by now; anything left is freed all the same. */
    while (g->head) {
        ts_guard_conn *k = g->head;
        g->head = k->next;
        free(k);
    }
    pthread_cond_destroy(&g->wake);
    pthread_mutex_destroy(&g->lock);
    g->started = false;
}

void ts_guard_notify(void *cls, struct MHD_Connection *c, void **socket_context,
                     enum MHD_ConnectionNotificationCode toe)
{
    ts_guard *g = cls;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        ts_guard_conn *k = calloc(1, sizeof *k);
        *socket_context = k;
        if (!k || !ci) {
            /* Untracked, the connection still has the daemon's idle timeout. */
            free(k);
            *socket_context = NULL;
            return;
        }
        k->fd = ci->connect_fd;
        k->receiving = true;
        k->since = ts_clock_now();
        pthread_mutex_lock(&g->lock);
        k->next = g->head;
        if (g->head)
            g->head->prev = k;
        g->head = k;
        g->n++;
        pthread_mutex_unlock(&g->lock);
    } else if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
        ts_guard_conn *k = *socket_context;
        if (!k)
            return;
        pthread_mutex_lock(&g->lock);
        if (k->prev)
            k->prev->next = k->next;
        else
            g->head = k->next;
        if (k->next)
            k->next->prev = k->prev;
        g->n--;
        pthread_mutex_unlock(&g->lock);
        free(k);
        *socket_context = NULL;
    }
}

static ts_guard_conn *ts_guard_of(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci ? ci->socket_context : NULL;
}

void ts_guard_arrived(ts_guard *g, struct MHD_Connection *c)
{
    ts_guard_conn *k = ts_guard_of(c);
    if (!k)
        return;
    pthread_mutex_lock(&g->lock);
    k->receiving = false;
    pthread_mutex_unlock(&g->lock);
}

void ts_guard_answered(ts_guard *g, struct MHD_Connection *c)
{
    ts_guard_conn *k = ts_guard_of(c);
    if (!k)
        return;
    pthread_mutex_lock(&g->lock);
    k->receiving = true;
    k->since = ts_clock_now();
    pthread_mutex_unlock(&g->lock);
}
