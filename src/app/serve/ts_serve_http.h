/* The libmicrohttpd callbacks of `tessel serve` (http.c) and what they share. ts_http_completed
 * takes the same ts_serve_http as its cls. */
#ifndef TS_SERVE_HTTP_H
#define TS_SERVE_HTTP_H

#include <stdbool.h>
#include <microhttpd.h>
#include "ts_serve.h"
#include "ts_serve_guard.h"

typedef struct {
    ts_jobs *jobs;
    /* Bound to a loopback address: Host headers must name it. */
    bool loopback;
    /* Request deadlines. */
    ts_guard *guard;
} ts_serve_http;

enum MHD_Result ts_http_access(void *cls, struct MHD_Connection *c, const char *url,
                               const char *method, const char *version, const char *upload,
                               size_t *upload_size, void **con_cls);
void ts_http_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                       enum MHD_RequestTerminationCode toe);

#endif
