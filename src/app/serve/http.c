/* libmicrohttpd glue: collects a request's body (up to TS_API_MAX_BODY), checks its Host header,
 * tells the slow-client guard when a request has arrived and when its answer is sent, and answers
 * the API through ts_api_parse + ts_api_handle and the page from the embedded assets. No other
 * file is read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <microhttpd.h>
#include "serve_assets.h"
#include "ts_serve.h"
#include "ts_serve_http.h"

typedef struct {
    char *body;
    size_t len, cap;
    bool too_large;
} ts_http_req;

static enum MHD_Result ts_http_send(struct MHD_Connection *c, int status, const char *type,
                                    const void *data, size_t size)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(size, (void *)data, MHD_RESPMEM_MUST_COPY);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, "Content-Security-Policy",
                            "default-src 'self'; img-src 'self' data: blob:; "
                            "style-src 'self' 'unsafe-inline'; connect-src 'self'");
    enum MHD_Result ok = MHD_queue_response(c, (unsigned)status, r);
    MHD_destroy_response(r);
    return ok;
}

static enum MHD_Result ts_http_json(struct MHD_Connection *c, int status, json_t *j)
{
    char *s = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    if (!s)
        return ts_http_send(c, 500, "application/json", "{\"error\":\"out of memory\"}", 25);
    enum MHD_Result ok = ts_http_send(c, status, "application/json", s, strlen(s));
    free(s);
    return ok;
}

static enum MHD_Result ts_http_error(struct MHD_Connection *c, int status, const char *msg)
{
    return ts_http_json(c, status, json_pack("{s:s}", "error", msg));
}

static enum MHD_Result ts_http_asset(struct MHD_Connection *c, const char *url, const char *method)
{
    if (strcmp(method, "GET") && strcmp(method, "HEAD"))
        return ts_http_error(c, 405, "only GET serves the page");
    size_t plen = strcspn(url, "?#");
    if (plen == 1 && url[0] == '/') {
        url = "/index.html";
        plen = strlen(url);
    }
    for (const ts_serve_asset *a = ts_serve_assets; a->path; a++)
        if (strlen(a->path) == plen && !strncmp(a->path, url, plen))
            return ts_http_send(c, 200, a->type, a->data, a->size);
    return ts_http_error(c, 404, "no such page");
}

/* Counts the request's Host headers (names are case-insensitive). */
static enum MHD_Result ts_http_count_host(void *cls, enum MHD_ValueKind kind, const char *key,
                                          const char *value)
{
    (void)kind;
    (void)value;
    if (key && !strcasecmp(key, MHD_HTTP_HEADER_HOST))
        ++*(unsigned *)cls;
    return MHD_YES;
}

/* Is host "NAME" or "NAME:PORT" with NAME a loopback name and PORT a number in [1, 65535]? */
static bool ts_http_loopback_host(const char *host)
{
    static const char *const names[] = {"127.0.0.1", "localhost", "[::1]"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t n = strlen(names[i]);
        if (strncasecmp(host, names[i], n))
            continue;
        const char *port = host + n;
        if (!*port)
            return true;
        if (*port++ != ':')
            return false;
        size_t digits = strspn(port, "0123456789");
        if (digits < 1 || digits > 5 || port[digits])
            return false;
        long v = strtol(port, NULL, 10);
        return v >= 1 && v <= 65535;
    }
    return false;
}

/* A request carries at most one Host header. With a loopback address, a Host naming another site
 * means a page elsewhere is trying to reach this server through DNS rebinding: the header is
 * parsed as a host and a port, and only a loopback host passes. */
static bool ts_http_host_ok(struct MHD_Connection *c, const ts_serve_http *h)
{
    unsigned count = 0;
    MHD_get_connection_values(c, MHD_HEADER_KIND, ts_http_count_host, &count);
    if (count > 1)
        return false;
    const char *host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
    if (!h->loopback || !host)
        return true;
    return ts_http_loopback_host(host);
}

int ts_http_token_make(ts_serve_http *h, ts_err *e)
{
    unsigned char raw[16];
    FILE *f = fopen("/dev/urandom", "rb");
    size_t got = f ? fread(raw, 1, sizeof raw, f) : 0;
    if (f)
        fclose(f);
    if (got != sizeof raw)
        return ts_fail(e, TS_ESYS, "cannot read random bytes for the page's token (/dev/urandom)");
    for (size_t i = 0; i < sizeof raw; i++)
        snprintf(h->token + 2 * i, 3, "%02x", raw[i]);
    return TS_OK;
}

/* Whether a request that changes state (POST, DELETE) proves that the page this server served
 * sent it: an Origin header, when the browser sent one, naming this server (the Host it asked
 * for, which ts_http_host_ok has checked), and the page's token. Compared in full, without an
 * early exit, so that the time taken says nothing of the token. */
static bool ts_http_from_page(struct MHD_Connection *c, const ts_serve_http *h)
{
    const char *origin = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Origin");
    const char *host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
    const char *token = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Tessel-Token");
    if (origin && (!host || strncmp(origin, "http://", 7) || strcmp(origin + 7, host)))
        return false;
    if (!token || strlen(token) != strlen(h->token))
        return false;
    unsigned char diff = 0;
    for (size_t i = 0; h->token[i]; i++)
        diff |= (unsigned char)(token[i] ^ h->token[i]);
    return diff == 0;
}

static enum MHD_Result ts_http_api(struct MHD_Connection *c, const ts_serve_http *h,
                                   const char *url, const char *method, const ts_http_req *rb)
{
    ts_api_request rq;
    ts_err e = {0};
    if (rb->too_large)
        return ts_http_error(c, 413, "request: body larger than the limit");
    if (ts_api_parse(method, url, rb->body, rb->len, &rq, &e))
        return ts_http_error(c, rq.http_status, e.msg);
    json_t *out;
    int status = ts_api_handle(h->jobs, &rq, &out);
    ts_api_request_free(&rq);
    return ts_http_json(c, status, out);
}

enum MHD_Result ts_http_access(void *cls, struct MHD_Connection *c, const char *url,
                               const char *method, const char *version, const char *upload,
                               size_t *upload_size, void **con_cls)
{
    const ts_serve_http *h = cls;
    ts_http_req *rb = *con_cls;
    (void)version;
    if (!rb) { /* first call: headers only */
        if (!(rb = calloc(1, sizeof *rb)))
            return MHD_NO;
        *con_cls = rb;
        return MHD_YES;
    }
    if (*upload_size) { /* a piece of the body */
        size_t n = *upload_size;
        *upload_size = 0;
        if (rb->too_large || rb->len + n > TS_API_MAX_BODY) {
            rb->too_large = true;
            return MHD_YES;
        }
        if (rb->len + n + 1 > rb->cap) {
            size_t nc = (rb->len + n + 1) * 2;
            char *nb = realloc(rb->body, nc);
            if (!nb)
                return MHD_NO;
            rb->body = nb;
            rb->cap = nc;
        }
        memcpy(rb->body + rb->len, upload, n);
        rb->len += n;
        return MHD_YES;
    }
    ts_guard_arrived(h->guard, c);
    if (!ts_http_host_ok(c, h))
        return ts_http_error(c, 403,
                             "request: Host header names another site, or there is more than one");
    if (!strcmp(url, "/api/session") && !strcmp(method, "GET"))
        return ts_http_json(c, 200, json_pack("{ss}", "token", h->token));
    if (!strncmp(url, "/api/", 5) && strcmp(method, "GET") && strcmp(method, "HEAD") &&
        !ts_http_from_page(c, h))
        return ts_http_error(c, 403,
                             "request: not sent by the explorer's page (its Origin names another "
                             "site, or the token from GET /api/session is missing)");
    if (!strncmp(url, "/api/", 5))
        return ts_http_api(c, h, url, method, rb);
    return ts_http_asset(c, url, method);
}

void ts_http_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                       enum MHD_RequestTerminationCode toe)
{
    const ts_serve_http *h = cls;
    (void)toe;
    ts_guard_answered(h->guard, c);
    ts_http_req *rb = *con_cls;
    if (rb) {
        free(rb->body);
        free(rb);
    }
    *con_cls = NULL;
}
