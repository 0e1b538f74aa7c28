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

/* One field of obj read by its row, only to check its value (messages name the bare key). */
static int ts_op_check_value(const ts_op *op, const ts_op_option *o, json_t *obj, ts_err *e)
{
    /* no front end's naming: the field as the file writes it */
    const ts_front bare = (ts_front)0;
    double d;
    bool given, flag = false;
    const char *text;
    char *names = NULL;
    ts_op_memory m = {0};
    int rc = TS_OK;
    switch (o->type) {
    case TS_OPV_INT:
    case TS_OPV_NUM: rc = ts_op_read_num(op, o->key, obj, bare, &d, &given, e); break;
    case TS_OPV_FLAG: rc = ts_op_read_flag(op, o->key, obj, bare, &flag, e); break;
    case TS_OPV_TEXT: rc = ts_op_read_text(op, o->key, obj, bare, &text, &given, e); break;
    case TS_OPV_NAMES: rc = ts_op_read_names(op, o->key, obj, bare, &names, e); break;
    case TS_OPV_MEMORY:
        rc = ts_op_read_memory(op, o->key, obj, bare, 0, &m, e);
        ts_op_memory_free(&m);
        break;
    default: rc = ts_fail(e, TS_EINPUT, "%s: not a field this file takes", o->key);
    }
    free(names);
    return rc;
}

int ts_op_check_values(const ts_op *op, json_t *obj, ts_front f, const char *const *reserved,
                       ts_err *e)
{
    const char *key;
    json_t *v;
    if (!json_is_object(obj))
        return ts_fail(e, TS_EINPUT, "expected an object of %s's options, got %s", op->name,
                       ts_jtype(obj));
    json_object_foreach(obj, key, v)
    {
        const ts_op_option *o = ts_op_option_find(op, key);
        bool ok = o && (o->fronts & (unsigned)f) && o->type != TS_OPV_HOOK;
        for (int i = 0; ok && reserved && reserved[i]; i++)
            ok = strcmp(reserved[i], key) != 0;
        if (!ok)
            return ts_fail(e, TS_EINPUT, "'%s' is not one of %s's options here", key, op->name);
        if (ts_op_check_value(op, o, obj, e))
            return TS_EINPUT;
    }
    return TS_OK;
}
