/* The validate operation (`tessel validate`, Schedule.validate): its option table, its request
 * and the judgement of a schedule at N: exclusivity, dependencies, memory, completeness. */
#include <string.h>
#include "ts_jsonutil.h"
#include "ts_op_views.h"

static const ts_op_option ts_op_validate_opts[] = {
    {"micro_batches", "n", "micro-batches", 'n', TS_OPV_INT, 1, 1000000, "N",
     "unroll the repetend to N micro-batches first; below the file's count, only its first N "
     "are judged",
     TS_FRONT_CLI | TS_FRONT_PY,
     "the explorer has no route for it: its view says whether the "
     "schedule it draws is valid, and why not"},
    {"monotone", NULL, "monotone", 0, TS_OPV_FLAG, 0, 0, NULL,
     "also require each block's instances in micro-batch order", TS_FRONT_CLI | TS_FRONT_PY,
     "the explorer has no route for it"},
    {"ignore_memory", NULL, "ignore-memory", 0, TS_OPV_FLAG, 0, 0, NULL, "skip the memory check",
     TS_FRONT_CLI | TS_FRONT_PY, "the explorer has no route for it"},
    {"quiet", NULL, "quiet", 'q', TS_OPV_FLAG, 0, 0, NULL, "print nothing when valid", TS_FRONT_CLI,
     "Python returns the figures and prints nothing; the explorer has no route"},
};

const ts_op ts_op_validate = {"validate",
                              "checks a schedule: exclusivity, dependencies (with delays and "
                              "distances), memory against its capacities, completeness",
                              TS_OP_ON_SCHEDULE,
                              "validate",
                              "Schedule.validate",
                              NULL,
                              NULL,
                              ts_op_validate_opts,
                              (int)(sizeof ts_op_validate_opts / sizeof ts_op_validate_opts[0])};

int ts_op_validate_read(json_t *req, ts_front f, ts_op_validate_req *r, ts_err *e)
{
    bool replayed;
    memset(r, 0, sizeof *r);
    if (ts_op_read_at(&ts_op_validate, req, f, &r->n, &replayed, e))
        return TS_EINPUT;
    static const char *const flags[] = {"monotone", "ignore_memory"};
    bool *out[] = {&r->vo.monotone, &r->vo.ignore_memory};
    for (int i = 0; i < 2; i++) {
        json_t *v = json_object_get(req, flags[i]);
        char name[96];
        if (v && !json_is_null(v) && !json_is_boolean(v))
            return ts_fail(e, TS_EINPUT, "%s expects true or false, got %s",
                           ts_op_field(&ts_op_validate_opts[1 + i], f, name, sizeof name),
                           ts_jtype(v));
        *out[i] = json_is_true(v);
    }
    return TS_OK;
}

int ts_op_validate_run(const ts_schedule *s, const char *where, const ts_op_validate_req *r,
                       ts_op_validate_res *res, ts_err *e)
{
    ts_err ve = {0};
    memset(res, 0, sizeof *res);
    /* Below the file's count, only its first N micro-batches are judged (a run that stops
     * early). Above it, the file's own micro-batches first: a fault there (a moved entry breaking
     * a dependency) shows up after unrolling only as its consequence (an instance twice). */
    bool cut = r->n > 0 && r->n < s->nmicros;
    int rc = cut ? TS_OK : ts_schedule_validate(s, &r->vo, &ve);
    if (rc)
        return ts_fail(e, rc, "%s: invalid%s: %s", where,
                       r->n > s->nmicros ? " (in the file's micro-batches)" : "", ve.msg);
    if (ts_op_schedule_at(s, r->n, false, where, &res->at, e))
        return e->code;
    if (r->n > 0 && r->n != s->nmicros && (rc = ts_schedule_validate(res->at, &r->vo, &ve)))
        return ts_fail(e, rc, "%s: invalid: %s", where, ve.msg);
    if (ts_schedule_metrics(res->at, &res->m))
        return ts_fail(e, TS_ESYS, "out of memory");
    res->json =
        json_pack("{sb si sI sI}", "valid", 1, "micro_batches", res->at->nmicros, "makespan",
                  (json_int_t)res->m.makespan, "lower_bound", (json_int_t)res->m.lower_bound);
    return res->json ? TS_OK : ts_fail(e, TS_ESYS, "out of memory");
}

void ts_op_validate_res_free(ts_op_validate_res *res)
{
    ts_schedule_free(res->at);
    ts_metrics_free(&res->m);
    json_decref(res->json);
    memset(res, 0, sizeof *res);
}
