/* The explorer's request parser called as a plain function (as a fuzz target calls it): routes,
 * statuses and messages, and every prefix of valid bodies parsed without a crash or a leak. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "ts_json.h"
#include "ts_serve.h"

static char *vshape_body(const char *fmt)
{
    ts_placement *p;
    ts_err e = {0};
    assert_int_equal(ts_builtin_make("vshape", &(ts_builtin_opts){4, false, 0}, &p, &e), TS_OK);
    json_t *j = ts_placement_to_json(p);
    char *pj = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    ts_placement_free(p);
    size_t n = strlen(fmt) + strlen(pj) + 1;
    char *b = malloc(n);
    snprintf(b, n, fmt, pj);
    free(pj);
    return b;
}

/* Parses and returns the status (200 when accepted), freeing what the parse made. */
static int parse(const char *method, const char *url, const char *body, size_t len, char *msg)
{
    ts_api_request rq;
    ts_err e = {0};
    int rc = ts_api_parse(method, url, body, len, &rq, &e);
    if (msg)
        snprintf(msg, TS_ERRLEN, "%s", rc == TS_OK ? "" : e.msg);
    if (rc == TS_OK) {
        ts_api_request_free(&rq);
        return 200;
    }
    return rq.http_status;
}

static void test_routes(void **state)
{
    (void)state;
    char msg[TS_ERRLEN];
    assert_int_equal(parse("GET", "/api/info", NULL, 0, NULL), 200);
    assert_int_equal(parse("GET", "/api/jobs/12", NULL, 0, NULL), 200);
    assert_int_equal(parse("POST", "/api/jobs/12/cancel", "", 0, NULL), 200);
    assert_int_equal(parse("DELETE", "/api/jobs/12", NULL, 0, NULL), 200);
    assert_int_equal(parse("GET", "/api/nope", NULL, 0, msg), 404);
    assert_non_null(strstr(msg, "no such API path"));
    assert_int_equal(parse("PUT", "/api/check", NULL, 0, NULL), 405);
    assert_int_equal(parse("GET", "/api/jobs/0", NULL, 0, NULL), 404);
    assert_int_equal(parse("GET", "/api/jobs/-3", NULL, 0, NULL), 404);
    assert_int_equal(parse("POST", "/api/jobs/3/stop", "", 0, NULL), 404);
    assert_int_equal(parse("POST", "/api/check", "{}", TS_API_MAX_BODY + 1, NULL), 413);
    assert_int_equal(parse("POST", "/api/check", NULL, 5, NULL), 400);
    assert_int_equal(parse(NULL, "/api/info", NULL, 0, NULL), 400);
}

static void test_bodies(void **state)
{
    (void)state;
    char msg[TS_ERRLEN];
    char *ok = vshape_body("{\"placement\": %s, \"memory\": [4, 4, 4, 4]}");
    assert_int_equal(parse("POST", "/api/check", ok, strlen(ok), NULL), 200);
    free(ok);
    char *bad = vshape_body("{\"placement\": %s, \"memory\": [4, 4]}");
    assert_int_equal(parse("POST", "/api/check", bad, strlen(bad), msg), 400);
    assert_string_equal(msg, "request: field 'memory' lists 2 capacities for 4 devices (give one "
                             "for every device, or one per device)");
    free(bad);
    const char nul[] = "{\"name\": \"vsh\0ape\", \"ndevs\": 4}";
    assert_int_equal(parse("POST", "/api/builtin", nul, sizeof nul - 1, msg), 400);
    const char *good = "{\"name\": \"vshape\", \"ndevs\": 4}";
    assert_int_equal(parse("POST", "/api/builtin", good, strlen(good), NULL), 200);
    const char *ctl = "{\"name\": \"v\\u0001\", \"ndevs\": 4}";
    assert_int_equal(parse("POST", "/api/builtin", ctl, strlen(ctl), msg), 400);
    assert_non_null(strstr(msg, "control character"));
}

/* Every prefix of valid bodies, and each with one byte changed: never a crash, always a status. */
static void test_prefixes(void **state)
{
    (void)state;
    char *bodies[] = {
        vshape_body("{\"job\": \"compare\", \"placement\": %s, \"memory\": 4, "
                    "\"methods\": [\"1f1b\", \"lazy\"]}"),
        vshape_body("{\"job\": \"whatif\", \"knob\": \"memory\", \"values\": [1, 2], "
                    "\"placement\": %s}"),
    };
    for (size_t b = 0; b < sizeof bodies / sizeof bodies[0]; b++) {
        size_t n = strlen(bodies[b]);
        assert_int_equal(parse("POST", "/api/jobs", bodies[b], n, NULL), 200);
        for (size_t k = 0; k < n; k++) {
            int st = parse("POST", "/api/jobs", bodies[b], k, NULL);
            assert_true(st == 400);
            char saved = bodies[b][k];
            bodies[b][k] = (char)(saved ^ 0x5a);
            st = parse("POST", "/api/jobs", bodies[b], n, NULL);
            assert_true(st == 200 || st == 400);
            bodies[b][k] = saved;
        }
        free(bodies[b]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_routes), cmocka_unit_test(test_bodies),
                                       cmocka_unit_test(test_prefixes)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
