/* The baseline operation: its option table, its request and its run (the registry's rule, then
 * the schedule's figures), shared by every front end. */
#include <stdio.h>
#include <string.h>
#include "ts_baseline.h"
#include "ts_methods.h"
#include "ts_op_baseline.h"
#include "ts_results.h"

static const ts_op_option ts_op_baseline_opts[] = {
    {"kind", NULL, NULL, 0, TS_OPV_TEXT, 0, 0, "KIND",
     "the kind of the registry (1f1b, gpipe, ...; each with the placements it fits)",
     TS_FRONT_SERVE | TS_FRONT_PY, "the command line takes KIND as its first argument"},
    {"micro_batches", "n", "micro-batches", 'n', TS_OPV_INT, 1, 100000, "N",
     "micro-batches of the schedule (default 128)", TS_FRONT_ALL, NULL},
    {"output", NULL, "output", 'o', TS_OPV_TEXT, 0, 0, "SCHED",
     "write the schedule (tessel-schedule/1) there and print a summary; without -o the schedule "
     "goes to stdout",
     TS_FRONT_CLI,
     "Python returns a Schedule (its save() writes the same file); the explorer returns the "
     "schedule to the page, which saves it"},
    {"json", NULL, "json", 0, TS_OPV_FLAG, 0, 0, NULL,
     "with -o: print the summary as one JSON object", TS_FRONT_CLI,
     "Python and the explorer always answer with the summary as an object"},
    {"list", NULL, "list", 0, TS_OPV_FLAG, 0, 0, NULL,
     "list the kinds and the placements each fits", TS_FRONT_CLI,
     "Python lists them with tessel.baselines(), the explorer with GET /api/info"},
};

const ts_op ts_op_baseline = {"baseline",
                              "a hand-made schedule by its published rule (not searched)",
                              TS_OP_ON_PLACEMENT,
                              "baseline",
                              "baseline",
                              "/api/baseline",
                              NULL,
                              ts_op_baseline_opts,
                              (int)(sizeof ts_op_baseline_opts / sizeof ts_op_baseline_opts[0])};

int ts_op_baseline_read(json_t *req, ts_front f, ts_op_baseline_req *r, ts_err *e)
{
    const ts_op_option *o = ts_op_option_find(&ts_op_baseline, "kind");
    const char *kind = NULL;
    char field[96];
    bool given;
    double n = TS_DEFAULT_MICRO_BATCHES;
    memset(r, 0, sizeof *r);
    if (!json_is_object(req))
        return ts_fail(e, TS_EINPUT, "baseline: the request is not an object");
    if (ts_op_read_text(&ts_op_baseline, "kind", req, f, &kind, &given, e) ||
        ts_op_read_num(&ts_op_baseline, "micro_batches", req, f, &n, &given, e))
        return TS_EINPUT;
    r->n = (int)n;
    if (!kind)
        return ts_fail(e, TS_EINPUT, "%s is required (%s)", ts_op_field(o, f, field, sizeof field),
                       f == TS_FRONT_PY ? "tessel.baselines() lists the kinds" : "see --list");
    if (ts_baseline_find(kind) && strlen(kind) < sizeof r->kind) {
        snprintf(r->kind, sizeof r->kind, "%s", kind);
        return TS_OK;
    }
    /* the command line names the kind by its place, not by a field */
    if (f == TS_FRONT_CLI)
        return ts_fail(e, TS_EINPUT, "unknown baseline '%s' (see --list)", kind);
    return ts_fail(e, TS_EINPUT, "%s: unknown baseline '%s' (%s)",
                   ts_op_field(o, f, field, sizeof field), kind,
                   f == TS_FRONT_PY ? "tessel.baselines() lists them" : "GET /api/info lists them");
}

int ts_op_baseline_run(const ts_op_baseline_req *r, const ts_placement *p, ts_op_baseline_res *res,
                       ts_err *e)
{
    memset(res, 0, sizeof *res);
    int rc = ts_baseline_make(r->kind, p, r->n, &res->s, e);
    if (rc != TS_OK)
        return e->code ? e->code : rc;
    if (ts_schedule_metrics(res->s, &res->m) != 0)
        return ts_fail(e, TS_ESYS, "baseline: out of memory for its figures");
    res->summary = json_pack("{ss ss}", "baseline", r->kind, "placement", p->name);
    if (!res->summary) {
        ts_metrics_free(&res->m);
        return ts_fail(e, TS_ESYS, "baseline: out of memory for its summary");
    }
    ts_results_metrics_json(res->summary, &res->m, res->s->nmicros, p->ndevs);
    return TS_OK;
}

void ts_op_baseline_res_free(ts_op_baseline_res *res)
{
    /* the figures exist when the summary does (ts_op_baseline_run) */
    if (res->summary)
        ts_metrics_free(&res->m);
    ts_schedule_free(res->s);
    json_decref(res->summary);
    memset(res, 0, sizeof *res);
}

json_t *ts_op_baselines_json(void)
{
    json_t *list = json_array();
    for (int i = 0; list && i < ts_baseline_count(); i++) {
        char fits[512];
        ts_baseline_fits_text(ts_baseline_at(i), fits, sizeof fits);
        json_array_append_new(list,
                              json_pack("{ss ss}", "name", ts_baseline_at(i)->name, "fits", fits));
    }
    return list;
}
