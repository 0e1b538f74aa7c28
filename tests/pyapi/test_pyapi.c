/* libtessel's flat interface from C, as the Python package calls it: every operation answers a
 * good request with a JSON object and a bad one with the command line's one-line message and
 * status, a set cancel flag makes a search answer TS_PY_CANCELLED, and (under ASan, with leak
 * checking on here, unlike in python3) no call leaks. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "ts_pyapi.h"

/* Calls op and returns its status; *reply gets the parsed object (status 0) or NULL, msg the
 * message line (status != 0). */
static int call(const char *op, const char *req, const ts_py_hooks *h, json_t **reply, char *msg,
                size_t len)
{
    char *out = NULL;
    int rc = ts_py_call(op, req, h, &out);
    assert_non_null(out);
    if (reply)
        *reply = rc == 0 ? json_loads(out, 0, NULL) : NULL;
    if (msg)
        snprintf(msg, len, "%s", out);
    if (rc == 0 && reply)
        assert_non_null(*reply);
    ts_py_free(out);
    return rc;
}

static void test_search_and_views(void **state)
{
    (void)state;
    json_t *r;
    assert_int_equal(
        call("search", "{\"builtin\":\"vshape\",\"ndevs\":4,\"memory\":4}", NULL, &r, NULL, 0), 0);
    json_t *summary = json_object_get(r, "summary");
    assert_int_equal(json_integer_value(json_object_get(summary, "makespan")), 524);
    const char *text = json_string_value(json_object_get(r, "schedule"));
    assert_non_null(strstr(text, "\"format\": \"tessel-schedule/1\""));
    /* the schedule's text goes back in for every view */
    const char *ops[] = {"summary", "validate", "simulate", "render", "show", "trace"};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        json_t *req = json_pack("{ss si}", "schedule", text, "micro_batches", 16);
        char *body = json_dumps(req, 0), msg[256];
        json_t *v;
        assert_int_equal(call(ops[i], body, NULL, &v, msg, sizeof msg), 0);
        assert_true(json_is_object(v));
        json_decref(v);
        free(body);
        json_decref(req);
    }
    json_decref(r);
}

static void test_bad_requests(void **state)
{
    (void)state;
    char msg[512];
    assert_int_equal(call("nope", "{}", NULL, NULL, msg, sizeof msg), 2);
    assert_string_equal(msg, "tessel python: unknown operation 'nope'");
    assert_int_equal(call("bound", "[1]", NULL, NULL, msg, sizeof msg), 2);
    assert_string_equal(msg, "tessel bound: request: expected an object, got an array");
    assert_int_equal(
        call("bound", "{\"builtin\":\"vshape\",\"ndevs\":4}", NULL, NULL, msg, sizeof msg), 2);
    assert_string_equal(msg, "tessel bound: n is required: the number of micro-batches");
    assert_int_equal(call("search",
                          "{\"builtin\":\"vshape\",\"ndevs\":4,\"memory\":0,"
                          "\"method\":\"lazy\"}",
                          NULL, NULL, msg, sizeof msg),
                     1);
    assert_int_equal(
        call("placement", "{\"builtin\":\"vshape\",\"ndevs\":0}", NULL, NULL, msg, sizeof msg), 2);
    assert_string_equal(msg, "tessel placement: --ndevs must be between 1 and 4096, got 0");
    assert_int_equal(
        call("validate", "{\"schedule\":\"{\\\"format\\\": 1\"}", NULL, NULL, msg, sizeof msg), 2);
    assert_int_equal(call("search", NULL, NULL, NULL, msg, sizeof msg), 2);
}

static void test_cancel_flag(void **state)
{
    (void)state;
    volatile int flag = 1;
    ts_py_hooks h = {NULL, NULL, &flag};
    char msg[128];
    assert_int_equal(call("search", "{\"builtin\":\"vshape\",\"ndevs\":4,\"memory\":4}", &h, NULL,
                          msg, sizeof msg),
                     TS_PY_CANCELLED);
    assert_string_equal(msg, "tessel search: cancelled");
    flag = 0;
    assert_int_equal(
        call("search", "{\"builtin\":\"vshape\",\"ndevs\":4,\"memory\":4}", &h, NULL, NULL, 0), 0);
}

static void test_other_operations(void **state)
{
    (void)state;
    const char *ok[][2] = {
        {"placements", "{}"},
        {"baseline", "{}"},
        {"baseline", "{\"kind\":\"1f1b\",\"builtin\":\"vshape\",\"ndevs\":4,\"micro_batches\":8}"},
        {"compare", "{\"builtin\":\"vshape\",\"ndevs\":4,\"memory\":4,\"micro_batches\":8,"
                    "\"methods\":[\"1f1b\",\"lazy\"]}"},
        {"model", "{\"name\":\"gpt3-1.3b\",\"hardware\":\"a100-40gb\"}"},
        {"plan", "{\"model\":\"gpt3-1.3b\",\"hardware\":\"a100-40gb\",\"gpus\":4,"
                 "\"global_batch\":16,\"micro_batch_size\":1,\"strategies\":[\"1f1b\"],"
                 "\"time_limit\":1}"},
        {"placement_from_model",
         "{\"model\":\"gpt3-1.3b\",\"hardware\":\"a100-40gb\",\"gpus\":4,\"strategy\":\"1f1b\"}"},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        json_t *r;
        char msg[512];
        int rc = call(ok[i][0], ok[i][1], NULL, &r, msg, sizeof msg);
        if (rc)
            fail_msg("%s: %s", ok[i][0], msg);
        json_decref(r);
    }
    assert_string_equal(ts_py_version(), TS_VERSION);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_search_and_views),
        cmocka_unit_test(test_bad_requests),
        cmocka_unit_test(test_cancel_flag),
        cmocka_unit_test(test_other_operations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
