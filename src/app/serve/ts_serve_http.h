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
    /* The token the page holds (GET /api/session) and sends with every POST and DELETE: a page of
     * another site can send a request here but cannot read the token (no CORS headers are sent),
     * so it cannot change the server's state. 32 hex digits from /dev/urandom, per start. */
    char token[33];
} ts_serve_http;

/* Fills h->token; TS_ESYS when no random bytes could be read. */
int ts_http_token_make(ts_serve_http *h, ts_err *e);

enum MHD_Result ts_http_access(void *cls, struct MHD_Connection *c, const char *url,
                               const char *method, const char *version, const char *upload,
                               size_t *upload_size, void **con_cls);
void ts_http_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                       enum MHD_RequestTerminationCode toe);

#endif
