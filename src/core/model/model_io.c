/* Reading model descriptions (tessel-model/1) and hardware profiles (tessel-hardware/1). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model_internal.h"
#include "ts_json.h"
#include "ts_jsonutil.h"

int ts_model_path(const char *dir, const char *name, bool hardware, char *out, size_t len,
                  ts_err *e)
{
    size_t n = strlen(name);
    int w;
    if (!n)
        return ts_fail(e, TS_EINPUT, "empty %s name", hardware ? "hardware" : "model");
    if (strchr(name, '/') || (n > 5 && !strcmp(name + n - 5, ".json")))
        w = snprintf(out, len, "%s", name);
    else
        w = snprintf(out, len, "%s/%s%s.json", dir, hardware ? "hardware/" : "", name);
    if (w < 0 || (size_t)w >= len)
        return ts_fail(e, TS_EINPUT, "%s name too long: '%s'", hardware ? "hardware" : "model",
                       name);
    return TS_OK;
}

/* Optional number field (integer or real) in [lo, hi]; *out keeps its value when absent. */
static int ts_jnum(json_t *o, const char *key, const char *where, double lo, double hi, double *out,
                   ts_err *e)
{
    json_t *v = json_object_get(o, key);
    if (!v)
        return TS_OK;
    if (!json_is_number(v))
        return ts_fail(e, TS_EINPUT, "%s: field '%s' must be a number, got %s", where, key,
                       ts_jtype(v));
    double x = json_number_value(v);
    if (!(x >= lo && x <= hi))
        return ts_fail(e, TS_EINPUT, "%s: field '%s' must be between %g and %g, got %g", where, key,
                       lo, hi, x);
    *out = x;
    return TS_OK;
}

static int ts_jstr_opt(json_t *o, const char *key, const char *where, const char **out, ts_err *e)
{
    return json_object_get(o, key) ? ts_jstr(o, key, where, out, e) : TS_OK;
}

static int ts_read_section(json_t *js, const char *file, size_t i, ts_model *m, ts_err *e)
{
    static const char *const keys[] = {"kind",          "name",        "count",
                                       "branch",        "hidden",      "heads",
                                       "head_dim",      "ffn",         "ffn_matrices",
                                       "seq",           "cross_seq",   "vocab",
                                       "positions",     "window",      "channels",
                                       "patch",         "msa_seq",     "residues",
                                       "msa_dim",       "pair_dim",    "tied",
                                       "fwd_flops",     "params",      "act_bytes",
                                       "out_bytes",     "allreduces",  "comment",
                                       "kv_heads",      "q_lora_rank", "kv_lora_rank",
                                       "rope_head_dim", "v_head_dim",  "experts",
                                       "top_k",         "expert_ffn",  "shared_experts",
                                       "moe_every",     "dropout",     NULL};
    char where[600];
    snprintf(where, sizeof where, "%s: sections[%zu]", file, i);
    ts_section s = {0};
    s.seq = m->seq;
    if (!json_is_object(js))
        return ts_fail(e, TS_EINPUT, "%s must be an object, got %s", where, ts_jtype(js));
    if (ts_jkeys(js, where, keys, e) || ts_jstr(js, "kind", where, &s.kind, e) ||
        ts_jstr_opt(js, "name", where, &s.name, e) ||
        ts_jstr_opt(js, "branch", where, &s.branch, e) ||
        ts_jint_opt(js, "count", where, 1, TS_MODEL_MAX_LAYERS, 1, &s.count, e))
        return TS_EINPUT;
    if ((s.name && strlen(s.name) > 32) || (s.branch && strlen(s.branch) > 15))
        return ts_fail(e, TS_EINPUT, "%s: name or branch too long", where);
    const struct {
        const char *key;
        double *v, hi;
    } nums[] = {{"hidden", &s.hidden, 1e6},
                {"heads", &s.heads, 1e4},
                {"head_dim", &s.head_dim, 1e5},
                {"ffn", &s.ffn, 1e7},
                {"ffn_matrices", &s.ffn_matrices, 3},
                {"seq", &s.seq, 1e7},
                {"cross_seq", &s.cross_seq, 1e7},
                {"vocab", &s.vocab, 1e8},
                {"positions", &s.positions, 1e7},
                {"window", &s.window, 1e4},
                {"channels", &s.channels, 1e4},
                {"patch", &s.patch, 1e4},
                {"msa_seq", &s.msa_seq, 1e6},
                {"residues", &s.residues, 1e5},
                {"msa_dim", &s.msa_dim, 1e5},
                {"pair_dim", &s.pair_dim, 1e5},
                {"fwd_flops", &s.fwd_flops, 1e20},
                {"params", &s.params, 1e13},
                {"act_bytes", &s.act_bytes, 1e15},
                {"out_bytes", &s.out_bytes, 1e15},
                {"allreduces", &s.allreduces, 16},
                {"kv_heads", &s.kv_heads, 1e4},
                {"q_lora_rank", &s.q_lora_rank, 1e6},
                {"kv_lora_rank", &s.kv_lora_rank, 1e6},
                {"rope_head_dim", &s.rope_head_dim, 1e5},
                {"v_head_dim", &s.v_head_dim, 1e5},
                {"experts", &s.experts, 1e5},
                {"top_k", &s.top_k, 1e5},
                {"expert_ffn", &s.expert_ffn, 1e7},
                {"shared_experts", &s.shared_experts, 1e4},
                {"moe_every", &s.moe_every, 1e4}};
    for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++)
        if (ts_jnum(js, nums[k].key, where, 0, nums[k].hi, nums[k].v, e))
            return TS_EINPUT;
    json_t *t = json_object_get(js, "tied");
    if (t && !json_is_boolean(t))
        return ts_fail(e, TS_EINPUT, "%s: field 'tied' must be a boolean, got %s", where,
                       ts_jtype(t));
    s.tied = t && json_is_true(t);
    json_t *dr = json_object_get(js, "dropout");
    if (dr && !json_is_boolean(dr))
        return ts_fail(e, TS_EINPUT, "%s: field 'dropout' must be a boolean, got %s", where,
                       ts_jtype(dr));
    s.dropout = !dr || json_is_true(dr);
    return ts_section_expand(&s, where, m, e);
}

static int ts_read_strategies(json_t *j, const char *file, ts_model *m, ts_err *e)
{
    json_t *arr;
    if (ts_jarray(j, "strategies", file, false, &arr, e))
        return TS_EINPUT;
    m->strategies = calloc(json_array_size(arr), sizeof(char *));
    if (!m->strategies)
        return ts_fail(e, TS_ESYS, "%s: out of memory", file);
    for (size_t i = 0; i < json_array_size(arr); i++) {
        json_t *v = json_array_get(arr, i);
        if (!json_is_string(v))
            return ts_fail(e, TS_EINPUT, "%s: strategies[%zu] must be a string, got %s", file, i,
                           ts_jtype(v));
        /* a name no strategy has would be planned as nothing, without a word */
        if (!ts_strategy_find(json_string_value(v)))
            return ts_fail(e, TS_EINPUT, "%s: strategies[%zu]: unknown strategy '%s'", file, i,
                           json_string_value(v));
        if (!(m->strategies[m->nstrategies++] = strdup(json_string_value(v))))
            return ts_fail(e, TS_ESYS, "%s: out of memory", file);
    }
    return TS_OK;
}

static int ts_model_from_json(json_t *j, const char *file, int seq_override, ts_model *m, ts_err *e)
{
    /* run: an evaluation's recipe (paper-artifacts/paper_eval.py reads it; nothing here does) */
    static const char *const keys[] = {"format",  "name",     "description", "source",
                                       "seq",     "recycles", "strategies",  "sections",
                                       "comment", "run",      NULL};
    const char *name, *desc = "", *src = "";
    long seq, rec;
    json_t *secs;
    if (ts_jformat(j, file, TS_MODEL_FORMAT, e) || ts_jkeys(j, file, keys, e) ||
        ts_jstr(j, "name", file, &name, e) || ts_jstr_opt(j, "description", file, &desc, e) ||
        ts_jstr_opt(j, "source", file, &src, e) ||
        ts_jint_opt(j, "seq", file, 0, 10000000, 0, &seq, e) ||
        ts_jint_opt(j, "recycles", file, 1, 16, 1, &rec, e) ||
        ts_jarray(j, "sections", file, false, &secs, e))
        return TS_EINPUT;
    m->name = strdup(name);
    m->description = strdup(desc);
    m->source = strdup(src);
    m->layers = calloc(TS_MODEL_MAX_LAYERS, sizeof(ts_layer));
    if (!m->name || !m->description || !m->source || !m->layers)
        return ts_fail(e, TS_ESYS, "%s: out of memory", file);
    m->seq = seq_override > 0 ? seq_override : (int)seq;
    m->recycles = (int)rec;
    if (ts_read_strategies(j, file, m, e))
        return e ? e->code : TS_EINPUT;
    for (size_t i = 0; i < json_array_size(secs); i++)
        if (ts_read_section(json_array_get(secs, i), file, i, m, e))
            return TS_EINPUT;
    return TS_OK;
}

/* Reads a parsed description and releases j. */
static int ts_model_from_doc(json_t *j, const char *path, int seq, ts_model **out, ts_err *e)
{
    ts_model *m = calloc(1, sizeof *m);
    int rc = m ? ts_model_from_json(j, path, seq, m, e) : ts_fail(e, TS_ESYS, "out of memory");
    json_decref(j);
    if (rc) {
        ts_model_free(m);
        return rc;
    }
    *out = m;
    return TS_OK;
}

int ts_model_load(const char *path, int seq, ts_model **out, ts_err *e)
{
    json_t *j;
    *out = NULL;
    if (ts_json_read_file(path, &j, e))
        return e ? e->code : TS_EINPUT;
    return ts_model_from_doc(j, path, seq, out, e);
}

int ts_model_parse(const char *text, size_t len, const char *where, int seq, ts_model **out,
                   ts_err *e)
{
    json_t *j;
    *out = NULL;
    if (ts_json_parse(text, len, where, &j, e))
        return e ? e->code : TS_EINPUT;
    return ts_model_from_doc(j, where, seq, out, e);
}

void ts_model_free(ts_model *m)
{
    if (!m)
        return;
    for (int i = 0; i < m->nstrategies; i++)
        free(m->strategies[i]);
    free(m->strategies);
    free(m->layers);
    free(m->name);
    free(m->description);
    free(m->source);
    free(m);
}

bool ts_model_has_strategy(const ts_model *m, const char *strategy)
{
    for (int i = 0; i < m->nstrategies; i++)
        if (!strcmp(m->strategies[i], strategy))
            return true;
    return false;
}

double ts_model_params(const ts_model *m)
{
    double s = 0;
    for (int i = 0; i < m->nlayers; i++)
        if (!m->layers[i].shared)
            s += m->layers[i].params;
    return s;
}

double ts_model_fwd_flops(const ts_model *m)
{
    double s = 0;
    for (int i = 0; i < m->nlayers; i++)
        s += m->layers[i].fwd_flops;
    return s;
}

double ts_model_causal_attn_flops(const ts_model *m)
{
    double s = 0;
    /* the kind the compute model runs causally (ts_layer_compute's half of the score pairs) */
    for (int i = 0; i < m->nlayers; i++)
        if (!strcmp(m->layers[i].kind, "transformer"))
            s += m->layers[i].attn_flops;
    return s;
}

/* Reads a parsed profile and releases j. */
static int ts_hardware_from_doc(json_t *j, const char *path, ts_hardware *h, ts_err *e)
{
    static const char *const keys[] = {"format",
                                       "name",
                                       "source",
                                       "peak_bf16_tflops",
                                       "efficiency",
                                       "hbm_gb",
                                       "nvlink_gbs",
                                       "internode_gbs",
                                       "gpus_per_node",
                                       "workspace_gb",
                                       "comment",
                                       "hbm_gbs",
                                       "sms",
                                       "peak_fp8_tflops",
                                       "gemm_efficiency",
                                       "fp8_gemm_efficiency",
                                       "fused_attention",
                                       "attention_efficiency",
                                       "fa2_attention_efficiency",
                                       "triton_attention_efficiency",
                                       "fp8_tn_only",
                                       NULL};
    const char *name, *src = "";
    long gpn, sms = 108;
    h->efficiency = 0.5;
    h->workspace_gb = 4;
    h->hbm_gbs = 2000;
    int rc = TS_EINPUT;
    if (ts_jformat(j, path, TS_HARDWARE_FORMAT, e) || ts_jkeys(j, path, keys, e) ||
        ts_jstr(j, "name", path, &name, e) || ts_jstr_opt(j, "source", path, &src, e) ||
        ts_jint(j, "gpus_per_node", path, 1, 1024, &gpn, e))
        goto done;
    const struct {
        const char *key;
        double *v;
    } req[] = {{"peak_bf16_tflops", &h->peak_tflops},
               {"hbm_gb", &h->hbm_gb},
               {"nvlink_gbs", &h->nvlink_gbs},
               {"internode_gbs", &h->internode_gbs}};
    for (size_t k = 0; k < sizeof req / sizeof req[0]; k++) {
        if (!json_object_get(j, req[k].key)) {
            ts_fail(e, TS_EINPUT, "%s: missing field '%s'", path, req[k].key);
            goto done;
        }
        if (ts_jnum(j, req[k].key, path, 1e-3, 1e7, req[k].v, e))
            goto done;
    }
    if (ts_jnum(j, "efficiency", path, 0.01, 1, &h->efficiency, e) ||
        ts_jnum(j, "workspace_gb", path, 0, 1e4, &h->workspace_gb, e) ||
        ts_jnum(j, "hbm_gbs", path, 1, 1e6, &h->hbm_gbs, e) ||
        ts_jnum(j, "gemm_efficiency", path, 0.01, 1, &h->gemm_efficiency, e) ||
        ts_jnum(j, "peak_fp8_tflops", path, 0, 1e7, &h->peak_fp8_tflops, e) ||
        ts_jnum(j, "fp8_gemm_efficiency", path, 0.01, 1, &h->fp8_gemm_efficiency, e) ||
        ts_jnum(j, "attention_efficiency", path, 0.01, 1, &h->attention_efficiency, e) ||
        ts_jnum(j, "fa2_attention_efficiency", path, 0.01, 1, &h->fa2_attention_efficiency, e) ||
        ts_jnum(j, "triton_attention_efficiency", path, 0.01, 1, &h->triton_attention_efficiency,
                e) ||
        ts_jint_opt(j, "sms", path, 1, 100000, 108, &sms, e))
        goto done;
    h->sms = (int)sms;
    json_t *fused = json_object_get(j, "fused_attention");
    if (fused && !json_is_boolean(fused)) {
        ts_fail(e, TS_EINPUT, "%s: field 'fused_attention' must be a boolean, got %s", path,
                ts_jtype(fused));
        goto done;
    }
    h->fused_attention = fused && json_is_true(fused);
    json_t *tn = json_object_get(j, "fp8_tn_only");
    if (tn && !json_is_boolean(tn)) {
        ts_fail(e, TS_EINPUT, "%s: field 'fp8_tn_only' must be a boolean, got %s", path,
                ts_jtype(tn));
        goto done;
    }
    h->fp8_tn_only = tn && json_is_true(tn);
    if (h->workspace_gb >= h->hbm_gb) {
        ts_fail(e, TS_EINPUT, "%s: workspace_gb %g leaves nothing of hbm_gb %g", path,
                h->workspace_gb, h->hbm_gb);
        goto done;
    }
    h->gpus_per_node = (int)gpn;
    h->name = strdup(name);
    h->source = strdup(src);
    rc = (h->name && h->source) ? TS_OK : ts_fail(e, TS_ESYS, "%s: out of memory", path);
done:
    json_decref(j);
    if (rc)
        ts_hardware_clear(h);
    return rc;
}

int ts_hardware_load(const char *path, ts_hardware *h, ts_err *e)
{
    json_t *j;
    memset(h, 0, sizeof *h);
    if (ts_json_read_file(path, &j, e))
        return e ? e->code : TS_EINPUT;
    return ts_hardware_from_doc(j, path, h, e);
}

int ts_hardware_parse(const char *text, size_t len, const char *where, ts_hardware *h, ts_err *e)
{
    json_t *j;
    memset(h, 0, sizeof *h);
    if (ts_json_parse(text, len, where, &j, e))
        return e ? e->code : TS_EINPUT;
    return ts_hardware_from_doc(j, where, h, e);
}

void ts_hardware_clear(ts_hardware *h)
{
    free(h->name);
    free(h->source);
    h->name = h->source = NULL;
}
