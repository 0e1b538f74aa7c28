/* libFuzzer target: the explorer's request parser (ts_api_parse of `tessel serve`). The first byte
 * picks the HTTP verb, the bytes up to the first newline are the URL (one of the API's routes when
 * the byte after the verb says so, so that bodies get parsed), the rest is the body. A refusal is
 * a 4xx status with a one-line message; an accepted request frees cleanly. */
#include "fuzz_util.h"
#include "ts_serve.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const verbs[] = {"GET", "POST", "DELETE", "PUT"};
    static const char *const routes[] = {"/api/info",     "/api/builtin", "/api/check",
                                         "/api/baseline", "/api/view",    "/api/trace",
                                         "/api/jobs",     "/api/jobs/1",  "/api/jobs/1/cancel"};
    if (size < 2)
        return 0;
    const char *verb = verbs[data[0] % 4];
    char url[256];
    const uint8_t *nl = memchr(data + 2, '\n', size - 2);
    size_t ulen = nl ? (size_t)(nl - (data + 2)) : 0;
    if (data[1] < 200) { /* mostly a known route, so that the body parsers are reached */
        snprintf(url, sizeof url, "%s", routes[data[1] % 9]);
    } else {
        if (ulen >= sizeof url)
            ulen = sizeof url - 1;
        memcpy(url, data + 2, ulen);
        url[ulen] = '\0';
    }
    const char *body = nl ? (const char *)nl + 1 : (const char *)data + 2;
    size_t blen = size - (size_t)(body - (const char *)data);
    ts_api_request rq;
    ts_err e = {0};
    int rc = ts_api_parse(verb, url, body, blen, &rq, &e);
    fz_check_message(&e);
    if (rc == TS_OK) {
        ts_api_request_free(&rq);
    } else if (rq.http_status < 400 || rq.http_status > 499) {
        fprintf(stderr, "fuzz invariant: a refused request has HTTP status %d\n", rq.http_status);
        abort();
    }
    return 0;
}
