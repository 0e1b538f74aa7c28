/* Reading a request's fields by an operation's table: the type and range the row gives, and a
 * message that names the field as the front end that sent it does (--time-limit, time_limit,
 * request: field 'time_limit'). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ts_jsonutil.h"
#include "ts_ops.h"

/* The row of key, whose value in req is *v (NULL when absent or null). */
static const ts_op_option *ts_op_get(const ts_op *op, const char *key, json_t *req, json_t **v)
{
    const ts_op_option *o = ts_op_option_find(op, key);
    *v = json_object_get(req, key);
    if (*v && json_is_null(*v))
        *v = NULL;
    return o;
}

int ts_op_read_num(const ts_op *op, const char *key, json_t *req, ts_front f, double *out,
                   bool *given, ts_err *e)
{
    json_t *v;
    const ts_op_option *o = ts_op_get(op, key, req, &v);
    *given = false;
    if (!v || !o)
        return TS_OK;
    bool whole = o->type == TS_OPV_INT;
    if (whole ? !json_is_integer(v) : !json_is_number(v))
        return ts_op_refuse(o, f, e, "expects %s, got %s", whole ? "an integer" : "a number",
                          ts_jtype(v));
    double x = json_number_value(v);
    if (!(x >= o->min && x <= o->max))
        return whole ? ts_op_refuse(o, f, e, "must be between %.0f and %.0f, got %lld", o->min,
                                  o->max, (long long)json_integer_value(v))
                     : ts_op_refuse(o, f, e, "must be between %g and %g, got %g", o->min, o->max, x);
    *out = x;
    *given = true;
    return TS_OK;
}

int ts_op_read_text(const ts_op *op, const char *key, json_t *req, ts_front f, const char **out,
                    bool *given, ts_err *e)
{
    json_t *v;
    const ts_op_option *o = ts_op_get(op, key, req, &v);
    *given = false;
    if (!v || !o)
        return TS_OK;
    if (!json_is_string(v))
        return ts_op_refuse(o, f, e, "expects a string, got %s", ts_jtype(v));
    *out = json_string_value(v);
    *given = true;
    return TS_OK;
}

/* Appends name to the list buf of cap bytes (comma-separated); refuses an empty name, a comma
 * inside one and a control character. */
static int ts_op_names_add(const ts_op_option *o, ts_front f, char *buf, size_t cap,
                           const char *name, size_t len, ts_err *e)
{
    if (len == 0)
        return ts_op_refuse(o, f, e, "holds an empty name");
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)name[i] < 0x20 || name[i] == ',')
            return ts_op_refuse(o, f, e, "holds a name with a comma or a control character");
    size_t used = strlen(buf);
    if (used + len + 2 > cap)
        return ts_op_refuse(o, f, e, "is longer than %zu characters", cap - 2);
    snprintf(buf + used, cap - used, "%s%.*s", used ? "," : "", (int)len, name);
    return TS_OK;
}

int ts_op_read_names(const ts_op *op, const char *key, json_t *req, ts_front f, char **out,
                     ts_err *e)
{
    json_t *v, *it;
    const ts_op_option *o = ts_op_get(op, key, req, &v);
    size_t i, cap = 4096;
    *out = NULL;
    if (!v || !o)
        return TS_OK;
    if (!json_is_string(v) && !json_is_array(v))
        return ts_op_refuse(o, f, e, "expects a list of names, got %s", ts_jtype(v));
    char *buf = calloc(cap, 1);
    if (!buf)
        return ts_fail(e, TS_ESYS, "out of memory");
    int rc = TS_OK;
    if (json_is_string(v)) {
        for (const char *s = json_string_value(v); rc == TS_OK;) {
            size_t len = strcspn(s, ",");
            rc = ts_op_names_add(o, f, buf, cap, s, len, e);
            if (!s[len])
                break;
            s += len + 1;
        }
    } else {
        json_array_foreach(v, i, it)
        {
            if (rc == TS_OK && !json_is_string(it))
                rc = ts_op_refuse(o, f, e, "expects names: item %zu is %s", i, ts_jtype(it));
            if (rc == TS_OK)
                rc = ts_op_names_add(o, f, buf, cap, json_string_value(it),
                                     strlen(json_string_value(it)), e);
        }
        if (rc == TS_OK && !buf[0])
            rc = ts_op_refuse(o, f, e, "is an empty list");
    }
    if (rc) {
        free(buf);
        return rc;
    }
    *out = buf;
    return TS_OK;
}

int ts_op_read_memory(const ts_op *op, const char *key, json_t *req, ts_front f, int ndevs,
                      ts_op_memory *m, ts_err *e)
{
    const ts_op_option *o = ts_op_option_find(op, key);
    json_t *v = json_object_get(req, key);
    memset(m, 0, sizeof *m);
    if (!v || !o)
        return TS_OK;
    m->given = true;
    if (json_is_null(v) || (json_is_string(v) && !strcmp(json_string_value(v), "none")))
        return TS_OK;
    if (!json_is_integer(v) && !json_is_array(v))
        return ts_op_refuse(o, f, e, "expects a capacity, none or a list of one per device, got %s",
                          ts_jtype(v));
    size_t n = json_is_array(v) ? json_array_size(v) : 1;
    if (json_is_array(v) && n != 1 && n != (size_t)ndevs)
        return ts_op_refuse(o, f, e,
                          "lists %zu capacities for %d devices (give one for every "
                          "device, or one per device)",
                          n, ndevs);
    if (!(m->cap = calloc(n, sizeof *m->cap)))
        return ts_fail(e, TS_ESYS, "out of memory");
    m->n = (int)n;
    for (size_t i = 0; i < n; i++) {
        json_t *c = json_is_array(v) ? json_array_get(v, i) : v;
        if (!json_is_integer(c) || json_integer_value(c) < 0 ||
            json_integer_value(c) > TS_MAX_MEMORY) {
            ts_op_memory_free(m);
            return json_is_integer(c)
                       ? ts_op_refuse(o, f, e, "must be between 0 and %d, got %lld", TS_MAX_MEMORY,
                                    (long long)json_integer_value(c))
                       : ts_op_refuse(o, f, e, "expects integers, got %s", ts_jtype(c));
        }
        m->cap[i] = (long)json_integer_value(c);
    }
    m->given = m->has_memory = true;
    return TS_OK;
}

void ts_op_memory_free(ts_op_memory *m)
{
    free(m->cap);
    memset(m, 0, sizeof *m);
}

int ts_op_memory_caps(const ts_op *op, const ts_op_memory *m, const ts_placement *p, ts_front f,
                      long **caps, bool *has_memory, ts_err *e)
{
    *caps = NULL;
    *has_memory = m->given ? m->has_memory : p->has_capacity;
    if (!m->given && !p->has_capacity) {
        char name[96];
        return ts_fail(e, TS_EINPUT,
                       "%s is required: a per-device capacity, or none (a placement file may "
                       "state its own capacity)",
                       ts_op_field(ts_op_option_find(op, "memory"), f, name, sizeof name));
    }
    if (!*has_memory)
        return TS_OK;
    if (!(*caps = malloc((size_t)p->ndevs * sizeof **caps + 1)))
        return ts_fail(e, TS_ESYS, "out of memory");
    for (int d = 0; d < p->ndevs; d++)
        (*caps)[d] = m->given                 ? m->cap[m->n == 1 ? 0 : d]
                     : p->capacity_per_device ? p->capacity_per_device[d]
                                              : p->capacity;
    return TS_OK;
}

int ts_op_read_factors(const ts_op *op, const char *key, json_t *req, ts_front f,
                       const ts_placement *p, double *scale, int *given, ts_err *e)
{
    json_t *v, *x;
    const ts_op_option *o = ts_op_get(op, key, req, &v);
    const char *id;
    char name[96];
    *given = 0;
    for (int b = 0; b < p->nblocks; b++)
        scale[b] = 1.0;
    if (!v || !o)
        return TS_OK;
    if (!json_is_object(v))
        return ts_op_refuse(o, f, e, "expects a factor per block, got %s", ts_jtype(v));
    json_object_foreach(v, id, x)
    {
        int b = ts_placement_find(p, id);
        if (b < 0)
            return ts_fail(e, TS_EINPUT, "%s: unknown block '%s'",
                           ts_op_field(o, f, name, sizeof name), id);
        if (!json_is_number(x))
            return ts_op_refuse(o, f, e, "expects numbers, got %s", ts_jtype(x));
        double y = json_number_value(x);
        if (!(y >= o->min && y <= o->max))
            return ts_op_refuse(o, f, e, "must be between %g and %g, got %g", o->min, o->max, y);
        scale[b] = y;
        (*given)++;
    }
    return TS_OK;
}
