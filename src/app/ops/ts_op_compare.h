/* The compare operation (`tessel compare`, tessel.compare, the explorer's compare job): its
 * option table, its request, and the rows it runs and measures (the results module's compare
 * rows), one lower bound for all and the best marked. Each front end prints the rows its way. */
#ifndef TS_OP_COMPARE_H
#define TS_OP_COMPARE_H

#include "ts_bound.h"
#include "ts_ops.h"
#include "ts_results.h"

extern const ts_op ts_op_compare;

/* Rows a request may name, and schedule files it may add after them. */
#define TS_OP_COMPARE_MAX 32
#define TS_OP_COMPARE_FILES 16

/* Told as each row starts: its name, its index and the count of rows to run. */
typedef void (*ts_op_compare_row_fn)(void *ud, const char *name, int i, int n);

typedef struct ts_op_compare_req {
    /* borrowed: the caller's, which must outlive the request */
    const ts_placement *p;
    int n;
    /* owned: each device's capacity, NULL without a memory limit */
    long *cap;
    double time_limit, effort, gap;
    int seed;
    /* the rows by name (the request's, or every baseline kind then every search method) */
    int nnames;
    char names[TS_OP_COMPARE_MAX][TS_COMPARE_NAME];
    /* the request named its rows (the default list leaves out the baselines that do not fit) */
    bool listed;
    /* schedule files measured after the rows: "NAME=FILE" each (owned) */
    int nfiles;
    char *files[TS_OP_COMPARE_FILES];
    /* the front end's: keep each row's summary and schedule; run each search in a child under
     * the watchdog (ts_compare_row_run_guarded, which keeps neither); what to tell */
    bool keep, guarded;
    ts_op_compare_row_fn row_start;
    void *row_ud;
    ts_compare_progress_fn progress;
    void *progress_ud;
} ts_op_compare_req;

/* Reads a compare request for placement p, sent by front f: the memory (absent: the capacity p
 * states), N, the rows by name (methods), the time limit, effort, gap and seed of the searches,
 * and the schedule files. Keys outside the table are the caller's to refuse (ts_op_check_keys). */
int ts_op_compare_read(json_t *req, ts_front f, const ts_placement *p, ts_op_compare_req *r,
                       ts_err *e);
void ts_op_compare_req_free(ts_op_compare_req *r);

typedef struct {
    /* owned, nrows of them */
    ts_compare_row *rows;
    int nrows;
    ts_bound lb;
    /* the first best row, or -1 */
    int best;
} ts_op_compare_res;

/* Runs every row and every schedule file, bounds them at N within the capacities and marks the
 * best. TS_OK, or e says why (a schedule file that cannot be read or is of another placement). */
int ts_op_compare_run(const ts_op_compare_req *r, ts_op_compare_res *res, ts_err *e);
void ts_op_compare_res_free(ts_op_compare_res *res);
/* The capacities as the rows were held to them: "none", one number when every device has the
 * same, or the list of one per device. */
json_t *ts_op_compare_memory_json(const ts_op_compare_req *r);

#endif
