/* `tessel plan --json` for Python: the plan space of a model on a cluster searched with the cost
 * model (the core's ts_plan_space_search), the best plans with a pipeline searched for their
 * schedule (the results module's ts_plan_eval) with the command's bound pruning, ranked, and
 * answered with the command's keys and, for each searched plan that fits, its placement and
 * schedule. The run follows cmd_plan.c's ts_plan_run step for step. */
#include <stdlib.h>
#include <string.h>
#include "pyapi_internal.h"
#include "ts_plan.h"
#include "ts_plan_eval.h"
#include "ts_time_limit.h"

typedef struct {
    ts_plan_req r;
    ts_plan_space sp;
    ts_plan_stats st;
    const char *names[64];
    int top, search_top, searched, search_pruned;
} ts_py_plan;

/* One of the words of a --flag (its index), -1 when the key is absent. */
static int ts_py_word(json_t *req, const char *key, const char *const *words, int *out, ts_err *e)
{
    const char *s;
    if (ts_py_string(req, key, &s, e))
        return TS_EINPUT;
    if (!s)
        return 0;
    for (int i = 0; words[i]; i++)
        if (!strcmp(s, words[i]))
            return *out = i, 0;
    return ts_py_fail(e, TS_EINPUT, "--%s: unknown value '%s'", key, s);
}

/* The integer flags of `tessel plan`, with their ranges. */
static int ts_py_plan_ints(json_t *req, ts_py_plan *a, ts_err *e)
{
    struct {
        const char *key;
        int *dst;
        long lo, hi;
    } f[] = {{"gpus", &a->r.gpus, 1, 65536},
             {"micro-batch-size", &a->sp.b, 1, 4096},
             {"tensor-parallel", &a->sp.T, 1, 4096},
             {"pipeline", &a->sp.P, 1, 1024},
             {"virtual-stages", &a->sp.v, 1, 64},
             {"zero", &a->sp.zero, 0, 3},
             {"top", &a->top, 1, 1000},
             {"search-top", &a->search_top, 0, 100}};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        char flag[40];
        long v;
        snprintf(flag, sizeof flag, "--%s", f[i].key);
        if (ts_py_long(req, f[i].key, flag, f[i].lo, f[i].hi, *f[i].dst, &v, e))
            return TS_EINPUT;
        *f[i].dst = (int)v;
    }
    return ts_py_long(req, "global-batch", "--global-batch", 1, 100000000, 0, &a->r.global, e);
}

/* The request as `tessel plan`'s options, checked as it checks them. */
static int ts_py_plan_args(json_t *req, ts_py_plan *a, ts_err *e)
{
    static const char *const rc[] = {"none", "selective", "full", "adaptive", NULL};
    json_t *list = json_object_get(req, "strategies"), *v;
    size_t i;
    bool across, seqpar_given = json_object_get(req, "sequence-parallel") != NULL, seqpar;
    if (ts_py_plan_ints(req, a, e) || ts_py_word(req, "recompute", rc, &a->sp.recompute, e) ||
        ts_py_bool(req, "sequence-parallel", &seqpar, e) ||
        ts_py_bool(req, "tp-across-nodes", &across, e) ||
        ts_py_bool(req, "infer", &a->r.infer, e) ||
        ts_py_double(req, "time-limit", "--time-limit", TS_TIME_LIMIT_MIN, TS_TIME_LIMIT_MAX, 3,
                     &a->r.time_limit, e))
        return TS_EINPUT;
    if (seqpar_given && !json_is_null(json_object_get(req, "sequence-parallel")))
        a->sp.seqpar = seqpar;
    a->sp.tp_across_nodes = across;
    if (list && !json_is_null(list)) {
        if (!json_is_array(list))
            return ts_py_fail(e, TS_EINPUT, "--strategies: expected a list of names");
        json_array_foreach(list, i, v)
        {
            if (!json_is_string(v) || a->sp.nstrategies == 64)
                return ts_py_fail(e, TS_EINPUT, "--strategies: bad entry %zu", i);
            a->names[a->sp.nstrategies++] = json_string_value(v);
        }
        a->sp.strategies = a->names;
    }
    if (!a->r.gpus || !a->r.global)
        return ts_py_fail(e, TS_EINPUT,
                          "--model, --hardware, --gpus and --global-batch are all required");
    if (a->sp.b && a->r.global % a->sp.b)
        return ts_py_fail(e, TS_EINPUT,
                          "the global batch %ld is not a multiple of the micro-batch size %d",
                          a->r.global, a->sp.b);
    if (a->sp.T && a->r.gpus % a->sp.T)
        return ts_py_fail(e, TS_EINPUT, "%d GPUs are not a multiple of tensor parallelism %d",
                          a->r.gpus, a->sp.T);
    if (a->sp.P && a->r.gpus % (a->sp.P * (a->sp.T ? a->sp.T : 1)))
        return ts_py_fail(e, TS_EINPUT,
                          "%d GPUs are not a multiple of pipeline %d x tensor parallelism %d",
                          a->r.gpus, a->sp.P, a->sp.T ? a->sp.T : 1);
    return 0;
}

/* The ranking with `tessel plan --json`'s keys, each searched plan that fits with its files. */
static json_t *ts_py_plans_json(const ts_py_plan *a, const ts_plan *pl, int n)
{
    const ts_plan_stats *st = &a->st;
    json_t *arr = json_array(), *ref = json_object();
    for (int i = 0; i < n; i++) {
        json_t *j = ts_plan_json(&pl[i]);
        if (j && pl[i].ok && pl[i].searched && pl[i].p && pl[i].s) {
            json_object_set_new(j, "placement_json", ts_placement_to_json(pl[i].p));
            json_object_set_new(j, "schedule_text", ts_py_schedule_text(pl[i].s));
        }
        json_array_append_new(arr, j);
    }
    for (int k = 0; k < TS_REFUSE_KINDS; k++)
        if (st->refused_by[k])
            json_object_set_new(ref, ts_refuse_name(k),
                                json_pack("{sI ss}", "count", (json_int_t)st->refused_by[k],
                                          "example", st->example[k]));
    json_t *counts =
        json_pack("{sI sI sI sI si si so}", "space", (json_int_t)st->total, "evaluated",
                  (json_int_t)st->evaluated, "pruned", (json_int_t)st->pruned, "refused",
                  (json_int_t)st->refused, "searched", a->searched, "search_pruned",
                  a->search_pruned, "refused_by", ref);
    return json_pack("{ss ss si sI sb sf sf so so}", "model", a->r.m->name, "hardware",
                     a->r.h->name, "gpus", a->r.gpus, "global_batch", (json_int_t)a->r.global,
                     "infer", a->r.infer, "peak_tflops", a->r.h->peak_tflops, "time_limit_s",
                     a->r.time_limit, "counts", counts, "plans", arr);
}

/* Space search, schedule search, ranking; *out gets the answer. */
static int ts_py_plan_run(ts_py_plan *a, json_t **out, ts_err *e)
{
    ts_plan_found *f = NULL;
    int n = 0;
    ts_err le = {0};
    a->sp.keep = a->top;
    int rc = ts_plan_space_search(&a->r, &a->sp, &f, &n, &a->st, &le);
    if (rc)
        return ts_py_fail(e, rc == TS_EINPUT ? TS_EINPUT : TS_ESYS, "%s", le.msg);
    ts_plan *pl = calloc((size_t)n + 1, sizeof *pl);
    for (int i = 0; pl && i < n; i++)
        ts_plan_from_found(&a->r, &f[i], &pl[i]);
    free(f);
    if (!pl || ts_plan_search_best(&a->r, pl, n, a->search_top, false, &a->searched,
                                   &a->search_pruned) < 0) {
        rc = ts_py_fail(e, TS_ESYS, "out of memory");
    } else {
        ts_plan_rank(pl, n);
        if (n > 0 && pl[0].ok)
            *out = ts_py_plans_json(a, pl, n);
        else
            rc = ts_py_fail(e, TS_ENOANSWER, "no plan fits %s on %d x %s", a->r.m->name, a->r.gpus,
                            a->r.h->name);
    }
    for (int i = 0; pl && i < n; i++)
        ts_plan_clear(&pl[i]);
    free(pl);
    return rc;
}

int ts_py_op_plan(json_t *req, const ts_py_hooks *hk, json_t **out, ts_err *e)
{
    (void)hk;
    static const char *const prec[] = {"bf16", "fp8", NULL};
    const char *dir, *model, *hw;
    double eff;
    int fp8 = 0;
    ts_py_plan a = {.top = 10, .search_top = 3};
    a.sp.zero = a.sp.recompute = a.sp.seqpar = -1;
    if (ts_py_models_dir(req, &dir, e) || ts_py_string(req, "model", &model, e) ||
        ts_py_string(req, "hardware", &hw, e) || ts_py_word(req, "precision", prec, &fp8, e) ||
        ts_py_double(req, "efficiency", "--efficiency", 0.01, 1, -1, &eff, e) ||
        ts_py_plan_args(req, &a, e))
        return TS_EINPUT;
    if (!model || !hw)
        return ts_py_fail(e, TS_EINPUT,
                          "--model, --hardware, --gpus and --global-batch are all required");
    ts_model *m;
    ts_hardware h = {0};
    int rc = ts_py_model_load(dir, model, 0, hw, &m, &h, e);
    if (rc)
        return rc;
    if (fp8 && h.peak_fp8_tflops <= 0) {
        rc = ts_py_fail(e, TS_EINPUT, "--precision fp8: %s gives no peak_fp8_tflops", h.name);
    } else {
        if (fp8)
            h.peak_tflops = h.peak_fp8_tflops;
        if (eff > 0)
            h.efficiency = eff;
        a.r.m = m;
        a.r.h = &h;
        rc = ts_py_plan_run(&a, out, e);
    }
    ts_model_free(m);
    ts_hardware_clear(&h);
    return rc;
}
