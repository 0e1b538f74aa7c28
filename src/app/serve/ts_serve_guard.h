/* The slow-client guard of `tessel serve` (guard.c): a deadline for each request to arrive whole,
 * enforced by a thread that closes the connections that miss it. */
#ifndef TS_SERVE_GUARD_H
#define TS_SERVE_GUARD_H

#include <pthread.h>
#include <stdbool.h>
#include <microhttpd.h>
#include "ts_error.h"

typedef struct ts_guard_conn ts_guard_conn;

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_t thread;
    bool started, stop;
    /* The open connections, newest first. */
    ts_guard_conn *head;
    /* Open connections; the daemon's connection limit. */
    unsigned n, limit;
    /* Seconds a request may take to arrive (headers and body). */
    double deadline;
    /* The same, while more than 3/4 of the limit is in use. */
    double pressed;
    /* Connections closed for missing their deadline. */
    unsigned long cut;
} ts_guard;

/* Starts the guard's thread; limit is the daemon's MHD_OPTION_CONNECTION_LIMIT. */
int ts_guard_start(ts_guard *g, unsigned limit, double deadline, double pressed, ts_err *e);
/* Stops the thread (after MHD_stop_daemon, which closes every connection). */
void ts_guard_stop(ts_guard *g);
/* MHD_OPTION_NOTIFY_CONNECTION's callback, cls the guard: tracks connections as they open and
 * close. */
void ts_guard_notify(void *cls, struct MHD_Connection *c, void **socket_context,
                     enum MHD_ConnectionNotificationCode toe);
/* The request on c has arrived whole: its answer is not cut short. */
void ts_guard_arrived(ts_guard *g, struct MHD_Connection *c);
/* The answer on c is sent: the next request on the connection has a new deadline from now. */
void ts_guard_answered(ts_guard *g, struct MHD_Connection *c);

#endif
