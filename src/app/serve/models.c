/* The explorer's model picker: the model and hardware descriptions of models/ are compiled into
 * the binary (embed.cmake), so that listing them and deriving a placement (what `tessel placement
 * --model` does) read no file at run time. */
#include <stdio.h>
#include <string.h>
#include "serve_assets.h"
#include "ts_json.h"
#include "ts_jsonutil.h"
#include "ts_serve.h"

/* A name field: non-empty, shorter than cap, no control character (messages stay one line). */
static int ts_model_name_field(json_t *o, const char *key, char *buf, size_t cap, ts_err *e)
{
    const char *s;
    if (ts_jstr(o, key, "request", &s, e))
        return TS_EINPUT;
    size_t n = strlen(s);
    if (!n || n >= cap)
        return ts_fail(e, TS_EINPUT, "request: field '%s' must have 1 to %zu characters", key,
                       cap - 1);
    for (const char *c = s; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            return ts_fail(e, TS_EINPUT, "request: field '%s' holds a control character", key);
    memcpy(buf, s, n + 1);
    return TS_OK;
}

static int ts_model_flag(json_t *o, const char *key, bool *out, ts_err *e)
{
    json_t *v = json_object_get(o, key);
    if (v && !json_is_boolean(v))
        return ts_fail(e, TS_EINPUT, "request: field '%s' must be true or false, got %s", key,
                       ts_jtype(v));
    *out = v && json_is_true(v);
    return TS_OK;
}

int ts_api_model_body(json_t *o, ts_api_request *rq, ts_err *e)
{
    static const char *const keys[] = {
        "model",           "hardware", "gpus",   "strategy", "micro_batch_size",
        "tensor_parallel", "chunks",   "slices", "max_span", "recompute",
        "infer",           NULL};
    /* The command line's ranges for the same flags. */
    const struct {
        const char *key;
        long lo, hi, def;
        int *dst;
    } ints[] = {{"gpus", 1, 4096, 0, &rq->dopts.gpus},
                {"micro_batch_size", 1, 65536, 1, &rq->dopts.b},
                {"tensor_parallel", 1, 1024, 1, &rq->dopts.T},
                {"chunks", 1, 64, 0, &rq->dopts.chunks},
                {"slices", 1, 64, 0, &rq->dopts.max_slices},
                {"max_span", 4, 100000, 0, &rq->dopts.max_span}};
    if (ts_jkeys(o, "request", keys, e) ||
        ts_model_name_field(o, "model", rq->model, sizeof rq->model, e) ||
        ts_model_name_field(o, "hardware", rq->hardware, sizeof rq->hardware, e) ||
        ts_model_name_field(o, "strategy", rq->strategy, sizeof rq->strategy, e) ||
        ts_model_flag(o, "recompute", &rq->dopts.recompute, e) ||
        ts_model_flag(o, "infer", &rq->dopts.infer, e))
        return TS_EINPUT;
    if (!json_object_get(o, "gpus"))
        return ts_fail(e, TS_EINPUT, "request: missing field 'gpus'");
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        long v;
        if (ts_jint_opt(o, ints[i].key, "request", ints[i].lo, ints[i].hi, ints[i].def, &v, e))
            return TS_EINPUT;
        *ints[i].dst = (int)v;
    }
    return TS_OK;
}

/* The entry "/NAME.json" of an embedded table, or NULL. */
static const ts_serve_asset *ts_model_find(const ts_serve_asset *t, const char *name)
{
    size_t n = strlen(name);
    for (; t->path; t++)
        if (strlen(t->path) == n + 6 && !strncmp(t->path + 1, name, n) &&
            !strcmp(t->path + 1 + n, ".json"))
            return t;
    return NULL;
}

/* "a, b, c": the names of a table, for an unknown-name message. */
static void ts_model_names(const ts_serve_asset *t, char *buf, size_t cap)
{
    buf[0] = 0;
    for (; t->path; t++) {
        size_t used = strlen(buf);
        snprintf(buf + used, cap - used, "%s%.*s", used ? ", " : "", (int)(strlen(t->path) - 6),
                 t->path + 1);
    }
}

static int ts_model_error(json_t **out, int status, const char *msg)
{
    *out = json_pack("{s:s}", "error", msg);
    return status;
}

/* Each embedded model (name, description, strategies) and hardware profile (name, HBM, GPUs
 * per node). A description that does not parse is listed with its error, not hidden. */
int ts_api_models(json_t **out)
{
    json_t *ms = json_array(), *hs = json_array();
    ts_err e = {0};
    for (const ts_serve_asset *a = ts_serve_models; a->path; a++) {
        ts_model *m;
        if (ts_model_parse((const char *)a->data, a->size, a->path + 1, 0, &m, &e)) {
            json_array_append_new(ms, json_pack("{s:s%, s:s}", "name", a->path + 1,
                                                strlen(a->path) - 6, "error", e.msg));
            continue;
        }
        json_t *st = json_array();
        for (int i = 0; i < m->nstrategies; i++)
            json_array_append_new(st, json_string(m->strategies[i]));
        json_array_append_new(ms, json_pack("{s:s, s:s, s:o}", "name", m->name, "description",
                                            m->description, "strategies", st));
        ts_model_free(m);
    }
    for (const ts_serve_asset *a = ts_serve_hardware; a->path; a++) {
        ts_hardware h;
        if (ts_hardware_parse((const char *)a->data, a->size, a->path + 1, &h, &e)) {
            json_array_append_new(hs, json_pack("{s:s%, s:s}", "name", a->path + 1,
                                                strlen(a->path) - 6, "error", e.msg));
            continue;
        }
        json_array_append_new(hs, json_pack("{s:s%, s:f, s:i}", "name", a->path + 1,
                                            strlen(a->path) - 6, "hbm_gb", h.hbm_gb,
                                            "gpus_per_node", h.gpus_per_node));
        ts_hardware_clear(&h);
    }
    *out = json_pack("{s:o, s:o}", "models", ms, "hardware", hs);
    return 200;
}

int ts_serve_model_derive(const ts_api_request *rq, int gpus, ts_placement **p, ts_derive_info *in,
                          char *msg, size_t len)
{
    const ts_serve_asset *ma = ts_model_find(ts_serve_models, rq->model);
    const ts_serve_asset *ha = ts_model_find(ts_serve_hardware, rq->hardware);
    char names[512];
    *p = NULL;
    memset(in, 0, sizeof *in);
    if (!ma || !ha) {
        ts_model_names(ma ? ts_serve_hardware : ts_serve_models, names, sizeof names);
        snprintf(msg, len, "unknown %s '%s' (known: %s)", ma ? "hardware" : "model",
                 ma ? rq->hardware : rq->model, names);
        return 400;
    }
    ts_err e = {0};
    ts_model *m = NULL;
    ts_hardware h = {0};
    ts_derive_opts o = rq->dopts;
    o.strategy = rq->strategy;
    o.gpus = gpus;
    int st = 200;
    if (ts_model_parse((const char *)ma->data, ma->size, ma->path + 1, 0, &m, &e) ||
        ts_hardware_parse((const char *)ha->data, ha->size, ha->path + 1, &h, &e))
        st = 500;
    else if (ts_model_derive(m, &h, &o, p, in, &e))
        st = e.code == TS_ESYS ? 500 : 400;
    if (st != 200)
        snprintf(msg, len, "%s", e.msg);
    ts_model_free(m);
    ts_hardware_clear(&h);
    return st;
}

/* The placement `tessel placement --model M --hardware H --gpus D --strategy S` writes, with
 * the derivation's figures; a refusal carries the core's message, as the command line prints. */
int ts_api_model_placement(const ts_api_request *rq, json_t **out)
{
    ts_placement *p;
    ts_derive_info in;
    char msg[700];
    int st = ts_serve_model_derive(rq, rq->dopts.gpus, &p, &in, msg, sizeof msg);
    if (st != 200)
        return ts_model_error(out, st, msg);
    *out = json_pack("{s:o, s:{s:i, s:f, s:f, s:I}}", "placement", ts_placement_to_json(p), "info",
                     "stages", in.stages, "time_unit_s", in.time_unit_s, "capacity_bytes",
                     in.capacity_bytes, "capacity", (json_int_t)in.capacity);
    ts_placement_free(p);
    ts_derive_info_clear(&in);
    return st;
}
