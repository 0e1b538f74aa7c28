/* The search operation (`tessel search`, tessel.search, the explorer's search job): its option
 * table, its request read into the solver's options, and its result. */
#ifndef TS_OP_SEARCH_H
#define TS_OP_SEARCH_H

#include "ts_ops.h"
#include "ts_results.h"
#include "ts_solver.h"

extern const ts_op ts_op_search;

typedef struct ts_op_search_req {
    /* borrowed: the caller's, which must outlive the request */
    const ts_placement *p;
    ts_search_opts so;
    /* owned: each device's capacity (so points at it), NULL without a memory limit */
    long *cap;
    /* owned: the rows of auto's portfolio asked for (so points at it), or NULL */
    char *candidates;
} ts_op_search_req;

/* Reads a search request for placement p, sent by front f: the memory (absent: the capacity p
 * states), the method, the candidates and every option of the solver's table (TS_SEARCH_OPTIONS),
 * each checked by its row. Keys outside the table are the caller's to refuse
 * (ts_op_check_keys), since each front end adds its own (the placement, the job). */
int ts_op_search_read(json_t *req, ts_front f, const ts_placement *p, ts_op_search_req *r,
                      ts_err *e);
void ts_op_search_req_free(ts_op_search_req *r);

typedef struct {
    /* owned: the schedule as found (with its repetend when the method makes one) */
    ts_schedule *s;
    ts_search_stats st;
    /* owned: the figures at N, what `tessel search --json` prints (ts_results_search_json) */
    json_t *summary;
    /* owned: the schedule at N, replayed, and its metrics (for a front end's own table) */
    ts_schedule *at;
    ts_metrics m;
} ts_op_search_res;

/* Runs the search. TS_OK: res holds the schedule and its figures at N. Otherwise e says why, and
 * res->st still holds what the search knew (min_memory for a refusal). */
int ts_op_search_run(const ts_op_search_req *r, ts_op_search_res *res, ts_err *e);
void ts_op_search_res_free(ts_op_search_res *res);
/* The schedule file's text, byte for byte what `tessel search -o FILE` writes (NULL when out of
 * memory; the caller frees). */
char *ts_op_schedule_text(const ts_schedule *s);

#endif
