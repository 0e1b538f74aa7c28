/* The search operation: its option table (the request's memory, method and candidates, then every
 * option of the solver's own list, TS_SEARCH_OPTIONS, then what only some front ends take), the
 * request read by it, and the run that every front end shares. */
#include <stdlib.h>
#include <string.h>
#include "ts_json.h"
#include "ts_op_search.h"
#include "ts_search_caps.h"

/* The solver's options, one row each, with their flag, Python keyword, range and help from
 * TS_SEARCH_OPTIONS: an option added there reaches every front end. */
#define TS_X_OPV_int TS_OPV_INT
#define TS_X_OPV_double TS_OPV_NUM
#define TS_X_OP_ROW(f, t, def, lo, hi, sh, flg, py, hlp)                                           \
    {#f, py, flg, sh, TS_X_OPV_##t, lo, hi, NULL, hlp, TS_FRONT_ALL, NULL},

/* The solver's caps, one row each: listed by --help and tessel.options("search"), set by no
 * front end. */
#define TS_X_OP_CAP(name, value, unit, what)                                                       \
    {#name,                                                                                        \
     NULL,                                                                                         \
     NULL,                                                                                         \
     0,                                                                                            \
     TS_OPV_CAP,                                                                                   \
     (double)(value),                                                                              \
     (double)(value),                                                                              \
     unit,                                                                                         \
     what,                                                                                         \
     0,                                                                                            \
     "a measured cap of the search (solver/ts_search_caps.h), not an option"},

static const ts_op_option ts_op_search_opts[] = {
    {"memory", NULL, "memory", 0, TS_OPV_MEMORY, 0, 0, "M|none|M0,M1,...",
     "each device's capacity: one for all, none (no limit), or a list of one per device; "
     "default: the capacity the placement file states",
     TS_FRONT_ALL, NULL},
    {"method", NULL, "method", 0, TS_OPV_TEXT, 0, 0, "METHOD",
     "auto (default: the portfolio for the makespan at N), lazy, fast, full or modulo",
     TS_FRONT_ALL, NULL},
    {"candidates", NULL, "candidates", 0, TS_OPV_NAMES, 0, 0, "ROW,ROW,...",
     "auto runs only these rows of its portfolio (default: every row that applies); the rows "
     "are listed below",
     TS_FRONT_ALL, NULL},
    TS_SEARCH_OPTIONS(TS_X_OP_ROW){
        "output", NULL, "output", 'o', TS_OPV_TEXT, 0, 0, "SCHED", "write the schedule to SCHED",
        TS_FRONT_CLI,
        "Python returns a Schedule (its save() writes the same file); the explorer returns the "
        "schedule to the page, which saves it"},
    {"json", NULL, "json", 0, TS_OPV_FLAG, 0, 0, NULL,
     "print one JSON object: the search record (the same keys for every method), the placement, "
     "memory, feasible and the figures at N",
     TS_FRONT_CLI, "Python and the explorer always answer with the figures as objects"},
    {"progress", NULL, "progress", 0, TS_OPV_HOOK, 0, 0, NULL,
     "progress on stderr even when it is not a terminal (Python: a function called with each "
     "report)",
     TS_FRONT_CLI | TS_FRONT_PY, "the explorer's job always reports its progress to the page"},
    {"verbose", NULL, "verbose", 0, TS_OPV_FLAG, 0, 0, NULL,
     "how the time went, on stderr: seconds and effort of the search, each phase and (auto) "
     "each candidate",
     TS_FRONT_CLI,
     "the record that Python and the explorer return holds the same: search_seconds, portfolio "
     "and portfolio_rows"},
    {"cancel", NULL, NULL, 0, TS_OPV_HOOK, 0, 0, NULL,
     "stops the search from another thread (Python: a CancelToken; the explorer: the job's "
     "cancel route)",
     TS_FRONT_PY | TS_FRONT_SERVE, "the command line stops on Ctrl-C"},
    TS_SEARCH_CAPS(TS_X_OP_CAP)};

const ts_op ts_op_search = {"search",
                            "a schedule of a placement within each device's memory, summarised "
                            "at N micro-batches",
                            TS_OP_ON_PLACEMENT,
                            "search",
                            "search",
                            "/api/jobs",
                            "search",
                            ts_op_search_opts,
                            (int)(sizeof ts_op_search_opts / sizeof ts_op_search_opts[0])};

/* The method and the candidates: a name of the methods' registry, rows of auto's portfolio. */
static int ts_op_search_method(json_t *req, ts_front f, ts_op_search_req *r, ts_err *e)
{
    const char *method = NULL;
    bool given;
    char name[96], list[96];
    if (ts_op_read_text(&ts_op_search, "method", req, f, &method, &given, e))
        return TS_EINPUT;
    if (given && ts_method_parse(method, &r->so.method))
        return ts_fail(
            e, TS_EINPUT, "%s: unknown method '%s' (%s)",
            ts_op_field(ts_op_option_find(&ts_op_search, "method"), f, name, sizeof name), method,
            ts_method_list(list, sizeof list));
    if (ts_op_read_names(&ts_op_search, "candidates", req, f, &r->candidates, e))
        return TS_EINPUT;
    ts_err ce = {0};
    if (r->candidates && ts_portfolio_check(r->candidates, &ce))
        return ts_fail(
            e, TS_EINPUT, "%s: %s",
            ts_op_field(ts_op_option_find(&ts_op_search, "candidates"), f, name, sizeof name),
            strchr(ce.msg, ':') ? strchr(ce.msg, ':') + 2 : ce.msg);
    if (r->candidates && r->so.method != TS_METHOD_AUTO)
        return ts_fail(
            e, TS_EINPUT, "%s: only auto has a portfolio, not %s",
            ts_op_field(ts_op_option_find(&ts_op_search, "candidates"), f, name, sizeof name),
            ts_method_name(r->so.method));
    r->so.candidates = r->candidates;
    return TS_OK;
}

int ts_op_search_read(json_t *req, ts_front f, const ts_placement *p, ts_op_search_req *r,
                      ts_err *e)
{
    memset(r, 0, sizeof *r);
    r->p = p;
    ts_search_opts_init(&r->so);
    /* the operation's default: the user's makespan at N */
    r->so.method = TS_METHOD_AUTO;
    if (!json_is_object(req))
        return ts_fail(e, TS_EINPUT, "search: the request is not an object");
    if (ts_op_search_method(req, f, r, e))
        return TS_EINPUT;
    /* the solver's options by their request field, in ts_search_option_id's order */
    static const char *const keys[] = {
#define TS_X_OPT_KEY(f, t, def, lo, hi, sh, flg, py, hlp) #f,
        TS_SEARCH_OPTIONS(TS_X_OPT_KEY)
#undef TS_X_OPT_KEY
    };
    for (int i = 0; i < TS_OPT_COUNT; i++) {
        double v;
        bool given;
        const char *key = keys[i];
        if (ts_op_read_num(&ts_op_search, key, req, f, &v, &given, e))
            return TS_EINPUT;
        if (given && ts_search_opts_set(&r->so, (ts_search_option_id)i, v))
            return ts_fail(e, TS_EINPUT, "search: %s: not a valid value", key);
    }
    ts_op_memory m;
    if (ts_op_read_memory(&ts_op_search, "memory", req, f, p->ndevs, &m, e))
        return TS_EINPUT;
    int rc = ts_op_memory_caps(&ts_op_search, &m, p, f, &r->cap, &r->so.has_memory, e);
    ts_op_memory_free(&m);
    if (rc == TS_OK && r->cap)
        ts_search_opts_memory(&r->so, r->cap, p->ndevs);
    return rc;
}

void ts_op_search_req_free(ts_op_search_req *r)
{
    free(r->cap);
    free(r->candidates);
    memset(r, 0, sizeof *r);
}

int ts_op_search_run(const ts_op_search_req *r, ts_op_search_res *res, ts_err *e)
{
    memset(res, 0, sizeof *res);
    int rc = ts_search(r->p, &r->so, &res->s, &res->st, e);
    if (rc)
        return rc;
    if (ts_results_at(res->s, r->so.micro_batches, &res->at, &res->m, e))
        return ts_fail(e, TS_ESYS, "search: cannot summarise the schedule at %d micro-batches",
                       r->so.micro_batches);
    res->summary = ts_results_search_json(r->p, &r->so, &res->st, res->at, &res->m);
    return res->summary ? TS_OK : ts_fail(e, TS_ESYS, "search: out of memory for its summary");
}

void ts_op_search_res_free(ts_op_search_res *res)
{
    ts_schedule_free(res->s);
    ts_schedule_free(res->at);
    ts_metrics_free(&res->m);
    json_decref(res->summary);
    memset(res, 0, sizeof *res);
}

char *ts_op_schedule_text(const ts_schedule *s)
{
    json_t *j = ts_schedule_to_json(s);
    /* ts_json_write_file's layout, and its final newline: the file's bytes */
    char *text = j ? json_dumps(j, JSON_INDENT(1) | JSON_PRESERVE_ORDER) : NULL;
    json_decref(j);
    size_t len = text ? strlen(text) : 0;
    char *line = text ? realloc(text, len + 2) : NULL;
    if (!line) {
        free(text);
        return NULL;
    }
    line[len] = '\n';
    line[len + 1] = '\0';
    return line;
}
