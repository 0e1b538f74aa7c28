/* The registry of the operations' option tables, and what every front end asks of a table: how it
 * names a field, which fields a request may hold, and the tables as JSON. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "ts_jsonutil.h"
#include "ts_op_model.h"
#include "ts_op_views.h"
#include "ts_ops.h"
#include "ts_op_baseline.h"
#include "ts_op_compare.h"
#include "ts_op_export.h"
#include "ts_op_sweep.h"
#ifdef TS_HAVE_SOLVER
#include "ts_op_plan.h"
#include "ts_op_search.h"
#endif

/* Every operation with a table, in the order `tessel --help` lists them; NULL-terminated (the
 * operations that search exist only in a build with the solver). */
static const ts_op *const ts_ops[] = {
#ifdef TS_HAVE_SOLVER
    &ts_op_search,
#endif
    &ts_op_compare,     &ts_op_baseline,
    &ts_op_bound,       &ts_op_validate,
    &ts_op_simulate,    &ts_op_show,
    &ts_op_render,      &ts_op_trace,
    &ts_op_export,      &ts_op_import,
    &ts_op_model,       &ts_op_model_placement,
#ifdef TS_HAVE_SOLVER
    &ts_op_plan,
#endif
    &ts_op_sweep_point, NULL};

int ts_ops_count(void)
{
    return (int)(sizeof ts_ops / sizeof ts_ops[0]) - 1;
}

const ts_op *ts_ops_at(int i)
{
    return i >= 0 && i < ts_ops_count() ? ts_ops[i] : NULL;
}

const ts_op *ts_ops_find(const char *name)
{
    for (int i = 0; i < ts_ops_count(); i++)
        if (!strcmp(ts_ops[i]->name, name))
            return ts_ops[i];
    return NULL;
}

const ts_op_option *ts_op_option_find(const ts_op *op, const char *key)
{
    for (int i = 0; i < op->nopts; i++)
        if (!strcmp(op->opts[i].key, key))
            return &op->opts[i];
    return NULL;
}

const char *ts_op_field(const ts_op_option *o, ts_front f, char *buf, size_t len)
{
    if (f == TS_FRONT_CLI && o->flag)
        snprintf(buf, len, "--%s", o->flag);
    else if (f == TS_FRONT_PY)
        snprintf(buf, len, "%s", o->py ? o->py : o->key);
    else if (f == TS_FRONT_SERVE)
        snprintf(buf, len, "request: field '%s'", o->key);
    else
        snprintf(buf, len, "%s", o->key);
    return buf;
}

int ts_op_refuse(const ts_op_option *o, ts_front f, ts_err *e, const char *fmt, ...)
{
    char name[96], rest[sizeof e->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rest, sizeof rest, fmt, ap);
    va_end(ap);
    return ts_fail(e, TS_EINPUT, "%s %s", ts_op_field(o, f, name, sizeof name), rest);
}

int ts_op_check_keys(const ts_op *op, json_t *req, ts_front f, const char *const *extra, ts_err *e)
{
    const char *key;
    json_t *v;
    json_object_foreach(req, key, v)
    {
        const ts_op_option *o = ts_op_option_find(op, key);
        bool ok = o && (o->fronts & (unsigned)f) && o->type != TS_OPV_HOOK;
        for (int i = 0; !ok && extra && extra[i]; i++)
            ok = !strcmp(extra[i], key);
        if (ok)
            continue;
        if (f == TS_FRONT_SERVE)
            return ts_fail(e, TS_EINPUT, "request: unknown field '%s' for a %s", key, op->name);
        return ts_fail(e, TS_EINPUT, "%s: unknown option '%s'", op->name, key);
    }
    return TS_OK;
}

static json_t *ts_op_option_json(const ts_op_option *o)
{
    static const char *const types[] = {"int",  "number", "flag",    "text", "names", "memory",
                                        "hook", "texts",  "factors", "cap",  "fields"};
    json_t *fronts = json_array();
    if (o->fronts & TS_FRONT_CLI)
        json_array_append_new(fronts, json_string("cli"));
    if (o->fronts & TS_FRONT_SERVE)
        json_array_append_new(fronts, json_string("serve"));
    if (o->fronts & TS_FRONT_PY)
        json_array_append_new(fronts, json_string("python"));
    bool ranged = o->type == TS_OPV_INT || o->type == TS_OPV_NUM || o->type == TS_OPV_FACTORS ||
                  o->type == TS_OPV_CAP;
    char sh[2] = {(char)o->shortflag, '\0'};
    return json_pack("{ss ss ss? ss? ss so so ss? ss so ss?}", "key", o->key, "py",
                     o->py ? o->py : o->key, "flag", o->flag, "short", o->shortflag ? sh : NULL,
                     "type", types[o->type], "min", ranged ? json_real(o->min) : json_null(), "max",
                     ranged ? json_real(o->max) : json_null(), "arg", o->arg, "help", o->help,
                     "fronts", fronts, "why_not", o->why_not);
}

json_t *ts_ops_json(void)
{
    json_t *all = json_array();
    for (int i = 0; all && i < ts_ops_count(); i++) {
        const ts_op *op = ts_ops[i];
        json_t *opts = json_array();
        for (int k = 0; opts && k < op->nopts; k++)
            json_array_append_new(opts, ts_op_option_json(&op->opts[k]));
        static const char *const subjects[] = {NULL, "placement", "schedule", "model"};
        json_array_append_new(all,
                              json_pack("{ss ss ss? ss? ss? ss? ss? so}", "name", op->name,
                                        "summary", op->summary, "subject", subjects[op->subject],
                                        "cli", op->cli, "py", op->py, "serve_path", op->serve_path,
                                        "serve_job", op->serve_job, "options", opts));
    }
    return all;
}
