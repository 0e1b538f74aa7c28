/* What every operation of the Python interface reads from its request: numbers with the command
 * line's range messages, the memory, the placement and the schedule; and what several write: a
 * schedule's file text. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pyapi_internal.h"
#include "ts_op_search.h"

int ts_py_fail(ts_err *e, int code, const char *fmt, ...)
{
    va_list ap;
    e->code = code;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    return code;
}

int ts_py_long(json_t *req, const char *key, const char *flag, long lo, long hi, long def,
               long *out, ts_err *e)
{
    json_t *v = json_object_get(req, key);
    *out = def;
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_integer(v))
        return ts_py_fail(e, TS_EINPUT, "%s expects an integer, got %s", flag, ts_jtype(v));
    json_int_t x = json_integer_value(v);
    if (x < lo || x > hi)
        return ts_py_fail(e, TS_EINPUT, "%s must be between %ld and %ld, got %lld", flag, lo, hi,
                          (long long)x);
    *out = (long)x;
    return 0;
}

int ts_py_double(json_t *req, const char *key, const char *flag, double lo, double hi, double def,
                 double *out, ts_err *e)
{
    json_t *v = json_object_get(req, key);
    *out = def;
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_number(v))
        return ts_py_fail(e, TS_EINPUT, "%s expects a number, got %s", flag, ts_jtype(v));
    double x = json_number_value(v);
    if (!(x >= lo && x <= hi))
        return ts_py_fail(e, TS_EINPUT, "%s must be between %g and %g, got %g", flag, lo, hi, x);
    *out = x;
    return 0;
}

int ts_py_bool(json_t *req, const char *key, bool *out, ts_err *e)
{
    json_t *v = json_object_get(req, key);
    *out = false;
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_boolean(v))
        return ts_py_fail(e, TS_EINPUT, "%s: expected true or false, got %s", key, ts_jtype(v));
    *out = json_is_true(v);
    return 0;
}

int ts_py_string(json_t *req, const char *key, const char **out, ts_err *e)
{
    json_t *v = json_object_get(req, key);
    *out = NULL;
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_string(v))
        return ts_py_fail(e, TS_EINPUT, "%s: expected a string, got %s", key, ts_jtype(v));
    *out = json_string_value(v);
    return 0;
}

int ts_py_memory(json_t *req, bool *given, bool *has_memory, long *memory, ts_err *e)
{
    json_t *v = json_object_get(req, "memory");
    *given = v != NULL;
    *has_memory = false;
    *memory = 0;
    if (!v || json_is_null(v))
        return 0;
    if (ts_py_long(req, "memory", "--memory", 0, TS_MAX_MEMORY, 0, memory, e))
        return TS_EINPUT;
    *has_memory = true;
    return 0;
}

/* A built-in named by the request, as the command line's --placement NAME --ndevs D. */
static int ts_py_builtin(json_t *req, const char *name, ts_placement **out, ts_err *e)
{
    long ndevs, chunks;
    bool infer;
    if (ts_py_long(req, "ndevs", "--ndevs", 1, TS_MAX_DEVS, 0, &ndevs, e) ||
        ts_py_long(req, "chunks", "--chunks", 1, 64, 0, &chunks, e) ||
        ts_py_bool(req, "infer", &infer, e))
        return TS_EINPUT;
    if (!ndevs)
        return ts_py_fail(e, TS_EINPUT, "--placement %s needs --ndevs D", name);
    ts_builtin_opts o = {(int)ndevs, infer, (int)chunks};
    ts_err be = {0};
    if (ts_builtin_make(name, &o, out, &be))
        return ts_py_fail(e, TS_EINPUT, "%s", be.msg);
    return 0;
}

int ts_py_placement(json_t *req, ts_placement **out, char *warning, size_t wlen, ts_err *e)
{
    const char *name, *file, *where;
    json_t *obj = json_object_get(req, "placement");
    *out = NULL;
    if (warning)
        warning[0] = '\0';
    if (ts_py_string(req, "builtin", &name, e) || ts_py_string(req, "file", &file, e) ||
        ts_py_string(req, "where", &where, e))
        return TS_EINPUT;
    if (name)
        return ts_py_builtin(req, name, out, e);
    ts_err le = {0};
    int rc;
    if (file)
        rc = ts_placement_load(file, out, &le);
    else if (obj)
        rc = ts_placement_from_json(obj, where ? where : "placement", out, &le);
    else
        return ts_py_fail(e, TS_EINPUT,
                          "no placement: give a placement file or --placement NAME "
                          "--ndevs D");
    if (rc)
        return ts_py_fail(e, le.code ? le.code : rc, "%s", le.msg);
    ts_err we = {0};
    if (warning && ts_placement_check_memory(*out, file ? file : where ? where : "placement", &we))
        snprintf(warning, wlen, "%s", we.msg);
    return 0;
}

int ts_py_schedule(json_t *req, const char *flag_n, ts_schedule **out, ts_err *e)
{
    const char *text, *where;
    long n;
    *out = NULL;
    if (ts_py_string(req, "schedule", &text, e) || ts_py_string(req, "where", &where, e) ||
        ts_py_long(req, "n", flag_n, 1, 1000000, 0, &n, e))
        return TS_EINPUT;
    if (!text)
        return ts_py_fail(e, TS_EINPUT, "missing the schedule");
    where = where ? where : "schedule";
    json_t *j;
    ts_err le = {0};
    if (ts_json_parse(text, strlen(text), where, &j, &le))
        return ts_py_fail(e, TS_EINPUT, "%s", le.msg);
    ts_schedule *s;
    int rc = ts_schedule_from_json(j, where, &s, &le);
    json_decref(j);
    if (rc)
        return ts_py_fail(e, le.code ? le.code : rc, "%s", le.msg);
    if (n > 0 && n != s->nmicros) {
        ts_schedule *u;
        rc = ts_schedule_unroll(s, (int)n, &u, &le);
        ts_schedule_free(s);
        if (rc)
            return ts_py_fail(e, rc, "%s: %s", where, le.msg);
        s = u;
    }
    *out = s;
    return 0;
}

json_t *ts_py_schedule_text(const ts_schedule *s)
{
    char *text = ts_op_schedule_text(s);
    json_t *v = text ? json_string(text) : NULL;
    free(text);
    return v;
}

json_t *ts_py_long_array(const long *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; a && i < n; i++)
        json_array_append_new(a, json_integer(v[i]));
    return a;
}
