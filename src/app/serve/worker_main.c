/* `tessel serve --worker`: the process one search job runs in. The server forks and, in the child,
 * execs this program at once (a child of a threaded process must not take locks that another
 * thread may have held at fork time: malloc's, the sanitizers', Jansson's, Z3's). So the job
 * comes as bytes on stdin, "METHOD URL LENGTH\n" and the body, and is parsed here again by the
 * same ts_api_parse the server ran; the answer goes out on fd 3 as ts_worker_run writes it. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ts_serve.h"

#define TS_WORKER_MAX_HEAD 256 /* bytes of the first line: a verb, a path and a length */

/* Reads exactly n bytes; 0, or -1 with errno (0 at an early end of stream). */
static int ts_wread(int fd, char *buf, size_t n)
{
    size_t off = 0;
    while (off < n) {
        ssize_t k = read(fd, buf + off, n - off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            if (k == 0)
                errno = 0;
            return -1;
        }
        off += (size_t)k;
    }
    return 0;
}

/* The first line, one byte at a time so that nothing of the body is read past it. */
static int ts_wread_head(int fd, char *head, size_t cap, ts_err *e)
{
    for (size_t n = 0; n + 1 < cap; n++) {
        if (ts_wread(fd, head + n, 1))
            return ts_fail(e, TS_ESYS, "serve worker: the request ended inside its first line");
        if (head[n] == '\n') {
            head[n] = '\0';
            return TS_OK;
        }
    }
    return ts_fail(e, TS_EINPUT, "serve worker: the request's first line is too long");
}

/* "METHOD URL LENGTH": splits head in place. The URL may not hold a space (the server sends the
 * path it matched, "/api/jobs"). */
static int ts_wsplit(char *head, char **method, char **url, size_t *len, ts_err *e)
{
    char *sp1 = strchr(head, ' '), *sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL, *end = NULL;
    unsigned long long n = sp2 ? strtoull(sp2 + 1, &end, 10) : 0;
    if (!sp2 || sp2 == sp1 + 1 || end == sp2 + 1 || *end || sp2[1] < '0' || sp2[1] > '9' ||
        n > TS_API_MAX_BODY)
        return ts_fail(e, TS_EINPUT,
                       "serve worker: the request's first line is not 'METHOD URL LENGTH'");
    *sp1 = *sp2 = '\0';
    *method = head;
    *url = sp1 + 1;
    *len = (size_t)n;
    return TS_OK;
}

/* Reads and parses the job; on TS_OK rq is the server's request (rq->raw_body points into *body,
 * which the caller frees after rq). */
static int ts_wrequest(int in, ts_api_request *rq, char **body, ts_err *e)
{
    char head[TS_WORKER_MAX_HEAD], *method = NULL, *url = NULL;
    size_t len = 0;
    *body = NULL;
    if (ts_wread_head(in, head, sizeof head, e) || ts_wsplit(head, &method, &url, &len, e))
        return TS_EINPUT;
    if (!(*body = malloc(len ? len : 1)))
        return ts_fail(e, TS_ESYS, "serve worker: out of memory for a %zu-byte request", len);
    if (ts_wread(in, *body, len))
        return ts_fail(e, TS_ESYS, "serve worker: the request's body ended early (%s)",
                       errno ? strerror(errno) : "end of stream");
    if (ts_api_parse(method, url, *body, len, rq, e))
        return TS_EINPUT;
    if (rq->route != TS_API_JOB_START) {
        ts_api_request_free(rq);
        return ts_fail(e, TS_EINPUT, "serve worker: the request is not a job (POST /api/jobs)");
    }
    return TS_OK;
}

int ts_worker_main(int in, int out)
{
    if (fcntl(out, F_GETFD) < 0) {
        fprintf(stderr,
                "tessel serve --worker: an internal mode of the server, which starts it "
                "with the answer's pipe as fd %d (not open here)\n",
                out);
        return 2;
    }
    ts_api_request rq;
    ts_err e = {0};
    char *body;
    int rc = ts_wrequest(in, &rq, &body, &e);
    if (rc) {
        ts_worker_fail(out, e.msg, e.code);
    } else {
        ts_worker_run(&rq, out);
        ts_api_request_free(&rq);
    }
    free(body);
    return rc ? 2 : 0;
}
