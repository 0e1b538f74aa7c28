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

#endif
