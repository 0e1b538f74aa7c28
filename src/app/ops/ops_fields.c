/* More of a request's fields read by an operation's table: names (owned copies that messages can
 * quote on one line), whole numbers into an int, flags, and the fields a request must hold. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ts_jsonutil.h"
#include "ts_ops.h"

int ts_op_read_name(const ts_op *op, const char *key, json_t *req, ts_front f, char **out,
                    ts_err *e)
{
    const char *s;
    bool given;
    *out = NULL;
    if (ts_op_read_text(op, key, req, f, &s, &given, e))
        return TS_EINPUT;
    if (!given)
        return TS_OK;
    const ts_op_option *o = ts_op_option_find(op, key);
    if (!*s)
        return ts_op_refuse(o, f, e, "must not be empty");
    for (const char *c = s; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            return ts_op_refuse(o, f, e, "holds a control character");
    if (!(*out = strdup(s)))
        return ts_fail(e, TS_ESYS, "out of memory");
    return TS_OK;
}

int ts_op_read_int(const ts_op *op, const char *key, json_t *req, ts_front f, int *out, ts_err *e)
{
    double v;
    bool given;
    if (ts_op_read_num(op, key, req, f, &v, &given, e))
        return TS_EINPUT;
    if (given)
        *out = (int)v;
    return TS_OK;
}

int ts_op_read_flag(const ts_op *op, const char *key, json_t *req, ts_front f, bool *out, ts_err *e)
{
    const ts_op_option *o = ts_op_option_find(op, key);
    json_t *v = json_object_get(req, key);
    if (!o || !v || json_is_null(v))
        return TS_OK;
    if (!json_is_boolean(v))
        return ts_op_refuse(o, f, e, "expects true or false, got %s", ts_jtype(v));
    *out = json_is_true(v);
    return TS_OK;
}

int ts_op_require(const ts_op *op, json_t *req, ts_front f, const char *const *keys,
                  const char *tail, ts_err *e)
{
    int n = 0;
    bool missing = false;
    for (; keys[n]; n++) {
        json_t *v = json_object_get(req, keys[n]);
        if (!v || json_is_null(v)) {
            if (f == TS_FRONT_SERVE)
                return ts_fail(e, TS_EINPUT, "request: missing field '%s'", keys[n]);
            missing = true;
        }
    }
    if (!missing)
        return TS_OK;
    char list[512] = "", name[96];
    for (int i = 0; i < n; i++) {
        size_t used = strlen(list);
        const char *sep = i == 0 ? "" : i == n - 1 ? " and " : ", ";
        snprintf(list + used, sizeof list - used, "%s%s", sep,
                 ts_op_field(ts_op_option_find(op, keys[i]), f, name, sizeof name));
    }
    return ts_fail(e, TS_EINPUT, "%s are all required%s", list, tail ? tail : "");
}
