/* The export and import operations: a schedule taken to another tool's format (the Python Tessel's
 * saved schedule, PyTorch pipelining's action CSV) and read back from one. Their option tables
 * give `tessel export` / `tessel import` their flags and Schedule.export / tessel.import_schedule
 * their keywords; the explorer has neither (the page saves a tessel-schedule/1 file). */
#ifndef TS_OP_EXPORT_H
#define TS_OP_EXPORT_H

#include "ts_ops.h"
#include "ts_schedule.h"

extern const ts_op ts_op_export, ts_op_import;

/* The writer of a format ("python": the Python Tessel's saved schedule, "pytorch": PyTorch's
 * action CSV), or NULL for another name. */
typedef int (*ts_op_writer)(const ts_schedule *s, const char *path, ts_err *e);
ts_op_writer ts_op_export_writer(const char *format);

/* ---- export (op_export.c) ------------------------------------------------------------------ */

typedef struct {
    /* "python" or "pytorch" (the table's strings or the request's, which must outlive r) */
    const char *format;
    /* 0: the schedule's own micro-batches */
    int n;
    /* NULL: none given (the command line writes to stdout, "-") */
    const char *path;
} ts_op_export_req;

/* Reads format (or, on the command line, its shorthands python and pytorch: one format only),
 * micro_batches and output; a request without a format, or with another, is TS_EINPUT naming
 * the field as front f does. */
int ts_op_export_read(json_t *req, ts_front f, ts_op_export_req *r, ts_err *e);

/* Writes s at n micro-batches (n <= 0: its own; the first n below them, unrolled above) to path
 * ("-": stdout) by format's writer. An exporter writes only what it can vouch for: an invalid
 * schedule is refused with TS_ENOANSWER and nothing written; where names the schedule in
 * messages. TS_EINPUT for an unknown format or over the Python format's instance cap. */
int ts_op_export_run(const ts_schedule *s, int n, const char *format, const char *path,
                     const char *where, ts_err *e);

/* ---- import (op_import.c) ------------------------------------------------------------------ */

typedef struct {
    /* the file to read (NULL when the request names none) */
    const char *file;
    /* "python" (default) or "pytorch" */
    const char *format;
    /* a capacity to record and check, when has_memory */
    bool has_memory;
    long memory;
    /* the reference's unroll at exactly n micro-batches (python only); 0: its own */
    int n;
    /* the command line's --placement-file and --output (NULL: none) */
    const char *placement_file;
    const char *output;
} ts_op_import_req;

int ts_op_import_read(json_t *req, ts_front f, ts_op_import_req *r, ts_err *e);
/* The schedule r->file holds, against placement p, validated (and within the memory when given):
 * TS_EINPUT for a malformed file, TS_ENOANSWER when no valid schedule results. */
int ts_op_import_run(const ts_op_import_req *r, const ts_placement *p, ts_schedule **out,
                     ts_err *e);

#endif
