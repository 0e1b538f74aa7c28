/* Chrome trace-event writer (opens in Perfetto / chrome://tracing). One writer for planned
 * timelines (from a schedule) and measured ones (from the runtime). */
#ifndef TS_TRACE_H
#define TS_TRACE_H

#include <jansson.h>
#include "ts_schedule.h"

typedef struct ts_trace ts_trace;

ts_trace *ts_trace_new(const char *process_name);
void ts_trace_free(ts_trace *t);
/* Names a track (thread id tid), e.g. "device 0" or "rank 0". */
int ts_trace_track(ts_trace *t, int tid, const char *name);
/* A complete slice ("ph":"X"). args is stolen (may be NULL). Times in microseconds. */
int ts_trace_slice(ts_trace *t, int tid, const char *name, const char *category, double ts_us,
                   double dur_us, json_t *args);
/* A flow arrow from (from_tid, from_us) to (to_tid, to_us), e.g. a message between ranks. */
int ts_trace_flow(ts_trace *t, long id, const char *name, int from_tid, double from_us, int to_tid,
                  double to_us);
int ts_trace_write(const ts_trace *t, const char *path, ts_err *e);
/* The document ts_trace_write writes, as a JSON value (new reference; NULL when out of memory). */
json_t *ts_trace_to_json(const ts_trace *t);
/* The planned timeline of a schedule: one track per device, one slice per instance and device,
 * args {block, micro, memory, step}; unit_us microseconds per time unit. */
ts_trace *ts_trace_from_schedule(const ts_schedule *s, double unit_us);

/* The most slices a planned timeline may have (about 2.5 GB of trace, more than a trace viewer
 * opens): ts_trace_write_schedule refuses more, and `tessel trace` before it unrolls. */
#define TS_TRACE_MAX_SLICES (1L << 24)
/* The slices of p's plan at nmicros micro-batches: one per instance and device. */
long ts_trace_schedule_slices(const ts_placement *p, long nmicros);
/* Writes ts_trace_from_schedule's document to path ("-": stdout; else through a temporary file
 * renamed over it), each event as it is made, so the trace is never held in memory whole.
 * TS_EINPUT above TS_TRACE_MAX_SLICES, TS_ESYS when writing fails. */
int ts_trace_write_schedule(const ts_schedule *s, double unit_us, const char *path, ts_err *e);

#endif
