/* The explorer's model picker: the model and hardware descriptions of models/ are compiled into
 * the binary (embed.cmake), so that listing them and deriving a placement (what `tessel placement
 * --model` does) read no file at run time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "serve_assets.h"
#include "ts_json.h"
#include "ts_jsonutil.h"
#include "ts_op_model.h"
#include "ts_serve.h"

/* The body of POST /api/model-placement (and the model of a what-if over its GPUs): the model
 * placement operation's fields, read by its table as the command line and Python read theirs. */
int ts_api_model_body(json_t *o, ts_api_request *rq, ts_err *e)
{
    if (ts_op_check_keys(&ts_op_model_placement, o, TS_FRONT_SERVE, NULL, e))
        return TS_EINPUT;
    if (!(rq->derive = calloc(1, sizeof *rq->derive)))
        return ts_fail(e, TS_ESYS, "request: out of memory");
    return ts_op_model_placement_read(o, TS_FRONT_SERVE, rq->derive, e);
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

/* The embedded descriptions as the model operations' store: a name of models/ or
 * models/hardware/ compiled into the binary. */
static int ts_serve_model_load(void *ud, const char *name, bool hardware, int seq, ts_model **m,
                               ts_hardware *h, ts_err *e)
{
    (void)ud;
    const ts_serve_asset *t = hardware ? ts_serve_hardware : ts_serve_models;
    const ts_serve_asset *a = ts_model_find(t, name);
    char names[512];
    if (!a) {
        ts_model_names(t, names, sizeof names);
        return ts_fail(e, TS_EINPUT, "unknown %s '%s' (known: %s)", hardware ? "hardware" : "model",
                       name, names);
    }
    int rc = hardware ? ts_hardware_parse((const char *)a->data, a->size, a->path + 1, h, e)
                      : ts_model_parse((const char *)a->data, a->size, a->path + 1, seq, m, e);
    /* a description compiled in that does not parse is the build's fault, not the request's */
    if (rc)
        e->code = TS_ESYS;
    return rc ? TS_ESYS : TS_OK;
}

int ts_serve_model_derive(const ts_api_request *rq, int gpus, ts_placement **p, ts_derive_info *in,
                          char *msg, size_t len)
{
    /* the request as read, on gpus GPUs, over the embedded descriptions (its strings stay rq's) */
    ts_op_model_placement_req r = *rq->derive;
    r.o.gpus = gpus;
    r.load = ts_serve_model_load;
    ts_op_model_placement_res res;
    ts_err e = {0};
    *p = NULL;
    memset(in, 0, sizeof *in);
    if (ts_op_model_placement_run(&r, &res, &e)) {
        snprintf(msg, len, "%s", e.msg);
        ts_op_model_placement_res_free(&res);
        return e.code == TS_ESYS ? 500 : 400;
    }
    *p = res.p;
    *in = res.in;
    res.p = NULL;
    memset(&res.in, 0, sizeof res.in);
    ts_op_model_placement_res_free(&res);
    return 200;
}

/* The placement `tessel placement --model M --hardware H --gpus D --strategy S` writes, with
 * the derivation's figures; a refusal carries the core's message, as the command line prints. */
int ts_api_model_placement(const ts_api_request *rq, json_t **out)
{
    ts_placement *p;
    ts_derive_info in;
    char msg[700];
    int st = ts_serve_model_derive(rq, rq->derive->o.gpus, &p, &in, msg, sizeof msg);
    if (st != 200)
        return ts_model_error(out, st, msg);
    *out = json_pack("{s:o, s:{s:i, s:f, s:f, s:I}}", "placement", ts_placement_to_json(p), "info",
                     "stages", in.stages, "time_unit_s", in.time_unit_s, "capacity_bytes",
                     in.capacity_bytes, "capacity", (json_int_t)in.capacity);
    ts_placement_free(p);
    ts_derive_info_clear(&in);
    return st;
}
