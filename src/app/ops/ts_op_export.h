/* The export operation's run, which the command line and Python share: the schedule at N as every
 * command takes it, validated, then written in another tool's format. */
#ifndef TS_OP_EXPORT_H
#define TS_OP_EXPORT_H

#include "ts_schedule.h"

/* The writer of a format ("python": the Python Tessel's saved schedule, "pytorch": PyTorch's
 * action CSV), or NULL for another name. */
typedef int (*ts_op_writer)(const ts_schedule *s, const char *path, ts_err *e);
ts_op_writer ts_op_export_writer(const char *format);

/* Writes s at n micro-batches (n <= 0: its own; the first n below them, unrolled above) to path
 * ("-": stdout) by format's writer. An exporter writes only what it can vouch for: an invalid
 * schedule is refused with TS_ENOANSWER and nothing written; where names the schedule in
 * messages. TS_EINPUT for an unknown format or over the Python format's instance cap. */
int ts_op_export_run(const ts_schedule *s, int n, const char *format, const char *path,
                     const char *where, ts_err *e);

#endif
