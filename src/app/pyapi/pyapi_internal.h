/* Internal to the Python interface (src/app/pyapi): the operation type and the request helpers
 * that every operation shares. Messages follow the command line's, with a keyword's flag name
 * (n: --micro-batches) where the command line names its flag. */
#ifndef TS_PYAPI_INTERNAL_H
#define TS_PYAPI_INTERNAL_H

#include <stdbool.h>
#include "ts_json.h"
#include "ts_model.h"
#include "ts_pyapi.h"

/* One operation: fills *out (a JSON object) and returns 0, or returns the status with e set. */
typedef int (*ts_py_op_fn)(json_t *req, const ts_py_hooks *h, json_t **out, ts_err *e);

/* Sets e (overwriting what it held) and returns code. */
int ts_py_fail(ts_err *e, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Optional integer key in [lo, hi] (def when absent or null); flag names it in messages. */
int ts_py_long(json_t *req, const char *key, const char *flag, long lo, long hi, long def,
               long *out, ts_err *e);
int ts_py_double(json_t *req, const char *key, const char *flag, double lo, double hi, double def,
                 double *out, ts_err *e);
int ts_py_bool(json_t *req, const char *key, bool *out, ts_err *e);
/* Optional string key (NULL when absent or null); borrowed from req. */
int ts_py_string(json_t *req, const char *key, const char **out, ts_err *e);
/* The memory key: absent (*given false), null (none), or a capacity in [0, TS_MAX_MEMORY]. */
int ts_py_memory(json_t *req, bool *given, bool *has_memory, long *memory, ts_err *e);

/* The placement of the request: "placement" (a tessel-placement/1 object; "where" names it in
 * messages), or "file" (a placement file), or "builtin" with "ndevs", "infer" and "chunks". A
 * file's or object's warning (ts_placement_check_memory) goes to *warning when not NULL. */
int ts_py_placement(json_t *req, ts_placement **out, char *warning, size_t wlen, ts_err *e);
/* The schedule of the request: "schedule", the text of a tessel-schedule/1 file ("where" names
 * it), unrolled to "n" when given and different (as the command line's -n). */
int ts_py_schedule(json_t *req, const char *flag_n, ts_schedule **out, ts_err *e);
/* The schedule's file text, the bytes `tessel ... -o FILE` writes. NULL when out of memory. */
json_t *ts_py_schedule_text(const ts_schedule *s);
json_t *ts_py_long_array(const long *v, int n);

/* The operations, one file per family. */
int ts_py_op_placement(json_t *req, const ts_py_hooks *h, json_t **out, ts_err *e);
int ts_py_op_placements(json_t *req, const ts_py_hooks *h, json_t **out, ts_err *e);
int ts_py_op_bound(json_t *req, const ts_py_hooks *h, json_t **out, ts_err *e);
int ts_py_op_ops(json_t *req, const ts_py_hooks *h, json_t **out, ts_err *e);
int ts_py_op_search(json_t *req, const ts_py_hooks *h, json_t **out, ts_err *e);
int ts_py_op_baseline(json_t *req, const ts_py_hooks *h, json_t **out, ts_err *e);
int ts_py_op_compare(json_t *req, const ts_py_hooks *h, json_t **out, ts_err *e);
int ts_py_op_summary(json_t *req, const ts_py_hooks *h, json_t **out, ts_err *e);
int ts_py_op_validate(json_t *req, const ts_py_hooks *h, json_t **out, ts_err *e);
int ts_py_op_simulate(json_t *req, const ts_py_hooks *h, json_t **out, ts_err *e);
int ts_py_op_export(json_t *req, const ts_py_hooks *h, json_t **out, ts_err *e);
int ts_py_op_import_pytorch(json_t *req, const ts_py_hooks *h, json_t **out, ts_err *e);
int ts_py_op_render(json_t *req, const ts_py_hooks *h, json_t **out, ts_err *e);
int ts_py_op_show(json_t *req, const ts_py_hooks *h, json_t **out, ts_err *e);
int ts_py_op_trace(json_t *req, const ts_py_hooks *h, json_t **out, ts_err *e);
int ts_py_op_model(json_t *req, const ts_py_hooks *h, json_t **out, ts_err *e);
int ts_py_op_placement_model(json_t *req, const ts_py_hooks *h, json_t **out, ts_err *e);
int ts_py_op_plan(json_t *req, const ts_py_hooks *h, json_t **out, ts_err *e);

#endif
