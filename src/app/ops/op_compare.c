/* The compare operation: its option table, its request read by it, and the run every front end
 * shares (the rows by name, then the schedule files, one lower bound, the best marked). */
#include <stdlib.h>
#include <string.h>
#include "ts_baseline.h"
#include "ts_methods.h"
#include "ts_op_compare.h"

static const ts_op_option ts_op_compare_opts[] = {
    {"memory", NULL, "memory", 'm', TS_OPV_MEMORY, 0, 0, "M|none|M0,M1,...",
     "each device's capacity, which the searches keep to and fits judges: one for all, none "
     "(no limit), or a list of one per device; default: the capacity the placement file states",
     TS_FRONT_ALL, NULL},
    {"micro_batches", "n", "micro-batches", 'n', TS_OPV_INT, 1, 100000, "N",
     "micro-batches at which every row is measured (default 128)", TS_FRONT_ALL, NULL},
    {"methods", NULL, "methods", 0, TS_OPV_NAMES, 0, 0, "NAME,NAME,...",
     "the rows, in this order: baseline kinds and search methods (default: every baseline that "
     "fits, then every search method); listed below",
     TS_FRONT_ALL, NULL},
    {"time_limit", NULL, "time-limit", 't', TS_OPV_NUM, TS_TIME_LIMIT_MIN, TS_TIME_LIMIT_MAX, "S",
     "seconds per search method (default 60; the explorer's 10): the effort of each (unless "
     "--effort) and a wall-clock cap (a row it cuts says timed out, and may differ from machine "
     "to machine); auto's row runs the other search rows itself, each with their effort, all "
     "within its one deadline of S",
     TS_FRONT_ALL, NULL},
    {"effort", NULL, "effort", 0, TS_OPV_NUM, 1, 1e15, "E",
     "solver resource units per search method, the same on any machine (default: 1.2e5 per "
     "second of --time-limit)",
     TS_FRONT_ALL, NULL},
    {"gap", NULL, "gap", 0, TS_OPV_NUM, 0, 10, "G",
     "auto's row: return as soon as a schedule is within this fraction of the lower bound (0: "
     "only at the bound)",
     TS_FRONT_ALL, NULL},
    {"seed", NULL, "seed", 0, TS_OPV_INT, 1, 2147483647, "SEED",
     "auto's row: seed of the improvement phase's moves (default: a fixed one)", TS_FRONT_ALL,
     NULL},
    {"schedule", NULL, "schedule", 0, TS_OPV_TEXTS, 0, 0, "NAME=FILE",
     "a row NAME for the schedule file FILE (of this placement; `tessel import --pytorch` writes "
     "one), measured the same way; repeatable, up to 16",
     TS_FRONT_CLI,
     "Python and the explorer hold schedules, not files: Schedule.validate(n) and the page's "
     "view measure one the same way"},
    {"csv", NULL, "csv", 0, TS_OPV_FLAG, 0, 0, NULL, "one CSV row per method instead of the table",
     TS_FRONT_CLI,
     "Python answers one dict per row with the CSV's columns (a DataFrame with pandas); the "
     "explorer answers the rows as JSON"},
};

const ts_op ts_op_compare = {"compare",
                             "every baseline that fits next to every search method, measured "
                             "the same way at N micro-batches, in one table",
                             TS_OP_ON_PLACEMENT,
                             "compare",
                             "compare",
                             "/api/jobs",
                             "compare",
                             ts_op_compare_opts,
                             (int)(sizeof ts_op_compare_opts / sizeof ts_op_compare_opts[0])};

/* "NAME rest" with NAME the field key as front f names it. */
static const char *ts_op_compare_field(const char *key, ts_front f, char *buf, size_t len)
{
    return ts_op_field(ts_op_option_find(&ts_op_compare, key), f, buf, len);
}

/* Where front f lists the baseline kinds, for a message about an unknown one. */
static const char *ts_op_compare_kinds_hint(ts_front f)
{
    return f == TS_FRONT_PY      ? "tessel.baselines()"
           : f == TS_FRONT_SERVE ? "/api/info"
                                 : "`tessel baseline --list`";
}

/* The rows by name: the request's (each a baseline kind or a search method), or every baseline
 * kind then every search method. */
static int ts_op_compare_names(json_t *req, ts_front f, ts_op_compare_req *r, ts_err *e)
{
    char *names, field[96], list[128];
    if (ts_op_read_names(&ts_op_compare, "methods", req, f, &names, e))
        return TS_EINPUT;
    ts_op_compare_field("methods", f, field, sizeof field);
    r->listed = names != NULL;
    for (int i = 0; !names && i < ts_baseline_count(); i++)
        snprintf(r->names[r->nnames++], TS_COMPARE_NAME, "%s", ts_baseline_at(i)->name);
    for (int i = 0; !names && i < TS_METHOD_COUNT && r->nnames < TS_OP_COMPARE_MAX; i++)
        snprintf(r->names[r->nnames++], TS_COMPARE_NAME, "%s", ts_methods[i].name);
    int rc = TS_OK;
    for (const char *s = names; s && *s; s += strcspn(s, ",") + (s[strcspn(s, ",")] == ',')) {
        size_t len = strcspn(s, ",");
        if (len >= TS_COMPARE_NAME) {
            rc = ts_fail(e, TS_EINPUT, "%s: '%.*s' is longer than %d characters", field, (int)len,
                         s, TS_COMPARE_NAME - 1);
            break;
        }
        if (r->nnames == TS_OP_COMPARE_MAX) {
            rc = ts_fail(e, TS_EINPUT, "%s: more than %d rows", field, TS_OP_COMPARE_MAX);
            break;
        }
        char *m = r->names[r->nnames++];
        snprintf(m, TS_COMPARE_NAME, "%.*s", (int)len, s);
        if (!ts_baseline_find(m) && !ts_compare_is_search(m)) {
            rc = ts_fail(e, TS_EINPUT, "%s: unknown method '%s' (baselines: see %s; searches: %s)",
                         field, m, ts_op_compare_kinds_hint(f), ts_method_list(list, sizeof list));
            break;
        }
    }
    free(names);
    return rc;
}

/* One NAME=FILE of the schedule field, kept. */
static int ts_op_compare_file(const char *item, ts_front f, ts_op_compare_req *r, ts_err *e)
{
    char field[96];
    const char *eq = strchr(item, '=');
    ts_op_compare_field("schedule", f, field, sizeof field);
    if (!eq || eq == item || eq - item >= TS_COMPARE_NAME)
        return ts_fail(e, TS_EINPUT, "%s: '%s' is not NAME=FILE (NAME up to %d characters)", field,
                       item, TS_COMPARE_NAME - 1);
    if (r->nfiles == TS_OP_COMPARE_FILES)
        return ts_fail(e, TS_EINPUT, "%s: at most %d", field, TS_OP_COMPARE_FILES);
    if (!(r->files[r->nfiles] = strdup(item)))
        return ts_fail(e, TS_ESYS, "out of memory");
    r->nfiles++;
    return TS_OK;
}

/* The schedule field: one NAME=FILE, or a list of them. */
static int ts_op_compare_files(json_t *req, ts_front f, ts_op_compare_req *r, ts_err *e)
{
    json_t *v = json_object_get(req, "schedule"), *it;
    size_t i;
    char field[96];
    if (!v || json_is_null(v))
        return TS_OK;
    if (json_is_string(v))
        return ts_op_compare_file(json_string_value(v), f, r, e);
    if (!json_is_array(v))
        return ts_fail(e, TS_EINPUT, "%s expects NAME=FILE or a list of them",
                       ts_op_compare_field("schedule", f, field, sizeof field));
    json_array_foreach(v, i, it)
    {
        if (!json_is_string(it))
            return ts_fail(e, TS_EINPUT, "%s: item %zu is not NAME=FILE",
                           ts_op_compare_field("schedule", f, field, sizeof field), i);
        if (ts_op_compare_file(json_string_value(it), f, r, e))
            return TS_EINPUT;
    }
    return TS_OK;
}

/* The searches' numbers: N, time limit, effort, gap, seed. */
static int ts_op_compare_numbers(json_t *req, ts_front f, ts_op_compare_req *r, ts_err *e)
{
    static const char *const keys[] = {"micro_batches", "time_limit", "effort", "gap", "seed"};
    double v[5] = {TS_DEFAULT_MICRO_BATCHES, 60, 0, 0, 0};
    for (int i = 0; i < 5; i++) {
        bool given;
        if (ts_op_read_num(&ts_op_compare, keys[i], req, f, &v[i], &given, e))
            return TS_EINPUT;
    }
    r->n = (int)v[0];
    r->time_limit = v[1];
    r->effort = v[2];
    r->gap = v[3];
    r->seed = (int)v[4];
    return TS_OK;
}

int ts_op_compare_read(json_t *req, ts_front f, const ts_placement *p, ts_op_compare_req *r,
                       ts_err *e)
{
    memset(r, 0, sizeof *r);
    r->p = p;
    if (!json_is_object(req))
        return ts_fail(e, TS_EINPUT, "compare: the request is not an object");
    if (ts_op_compare_numbers(req, f, r, e) || ts_op_compare_names(req, f, r, e) ||
        ts_op_compare_files(req, f, r, e))
        return e->code ? e->code : TS_EINPUT;
    ts_op_memory m;
    bool has_memory;
    if (ts_op_read_memory(&ts_op_compare, "memory", req, f, p->ndevs, &m, e))
        return TS_EINPUT;
    int rc = ts_op_memory_caps(&ts_op_compare, &m, p, f, &r->cap, &has_memory, e);
    ts_op_memory_free(&m);
    return rc;
}

void ts_op_compare_req_free(ts_op_compare_req *r)
{
    free(r->cap);
    for (int i = 0; i < r->nfiles; i++)
        free(r->files[i]);
    memset(r, 0, sizeof *r);
}

json_t *ts_op_compare_memory_json(const ts_op_compare_req *r)
{
    int nd = r->p->ndevs;
    bool uniform = true;
    for (int d = 1; r->cap && d < nd; d++)
        uniform = uniform && r->cap[d] == r->cap[0];
    if (!r->cap)
        return json_string("none");
    if (uniform)
        return json_integer(r->cap[0]);
    json_t *a = json_array();
    for (int d = 0; a && d < nd; d++)
        json_array_append_new(a, json_integer(r->cap[d]));
    return a;
}
