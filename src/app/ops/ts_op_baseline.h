/* The baseline operation (`tessel baseline KIND`, tessel.baseline, the explorer's POST
 * /api/baseline): a hand-made schedule of a kind in the baseline registry, built by its published
 * rule for a placement, and its figures. */
#ifndef TS_OP_BASELINE_H
#define TS_OP_BASELINE_H

#include "ts_ops.h"

extern const ts_op ts_op_baseline;

typedef struct {
    /* a kind of the registry (ts_baseline_find) */
    char kind[32];
    int n;
} ts_op_baseline_req;

/* Reads a baseline request sent by front f: its kind (required) and N. Keys outside the table
 * are the caller's to refuse (ts_op_check_keys). */
int ts_op_baseline_read(json_t *req, ts_front f, ts_op_baseline_req *r, ts_err *e);

typedef struct {
    /* owned: the schedule of N micro-batches, and its figures */
    ts_schedule *s;
    ts_metrics m;
    /* owned: what `tessel baseline -o FILE --json` prints: {baseline, placement, figures} */
    json_t *summary;
} ts_op_baseline_res;

/* Builds the schedule for p. TS_OK, or e says why (a kind that does not fit p: TS_EINPUT). */
int ts_op_baseline_run(const ts_op_baseline_req *r, const ts_placement *p, ts_op_baseline_res *res,
                       ts_err *e);
void ts_op_baseline_res_free(ts_op_baseline_res *res);
/* The kinds and what each fits, as `tessel baseline --list` gives them: [{name, fits}]. */
json_t *ts_op_baselines_json(void);

#endif
