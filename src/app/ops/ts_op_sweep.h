/* The sweep point (op_sweep_point.c): the keys of one point of a sweep file, as one table, and
 * the check of its search options against the search's own table. */
#ifndef TS_OP_SWEEP_H
#define TS_OP_SWEEP_H

#include "ts_ops.h"

extern const ts_op ts_op_sweep_point;

/* The search's operation (NULL in a build without the solver). */
const ts_op *ts_op_sweep_search(void);
/* Checks a point's "options": fields of the search's table the command line takes, other than
 * the point's own (memory, method, k, micro_batches) and the sweep's (time_limit, output, json,
 * verbose). TS_EINPUT naming the field. */
int ts_op_sweep_options(json_t *options, ts_err *e);

#endif
