/* Chrome trace-event writer. The file is the "JSON object format" of the trace-event spec:
 * {"traceEvents": [...], "displayTimeUnit": "ms"}, which both chrome://tracing and Perfetto open.
 * One process (pid 1) whose threads are the tracks: devices of a plan or ranks of a run, so that a
 * planned and a measured timeline written by this same code look alike side by side.
 * A trace either gathers its events in memory (ts_trace_new, then ts_trace_write or
 * ts_trace_to_json) or, for a schedule's plan (ts_trace_write_schedule), writes each event as it
 * is made, so that a long unrolled schedule never holds its whole trace in memory. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ts_jsonutil.h"
#include "ts_trace.h"

#define TS_TRACE_PID 1

struct ts_trace {
    /* Array of trace events, metadata first as they are added. */
    json_t *events;
    /* Instead: where each event is written as it is added. */
    FILE *sink;
    /* Events written to sink. */
    long nwritten;
};

/* Adds an event (stolen): appended to the array, or written to the sink after a comma. */
static int ts_trace_add(ts_trace *t, json_t *ev)
{
    if (!t->sink)
        return json_array_append_new(t->events, ev);
    int rc =
        (t->nwritten++ && fputc(',', t->sink) == EOF) || json_dumpf(ev, t->sink, JSON_COMPACT) != 0;
    json_decref(ev);
    return rc ? -1 : 0;
}

/* Metadata ("ph":"M") event naming the process or a thread. */
static json_t *ts_trace_meta(const char *what, int tid, bool has_tid, json_t *args)
{
    json_t *ev = json_pack("{s:s, s:s, s:i, s:o}", "name", what, "ph", "M", "pid", TS_TRACE_PID,
                           "args", args);
    if (ev && has_tid && json_object_set_new(ev, "tid", json_integer(tid)) != 0) {
        json_decref(ev);
        return NULL;
    }
    return ev;
}

ts_trace *ts_trace_new(const char *process_name)
{
    ts_trace *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->events = json_array();
    const char *pname = process_name ? process_name : "tessel";
    json_t *meta = ts_trace_meta("process_name", 0, false, json_pack("{s:s}", "name", pname));
    if (!t->events || !meta || json_array_append_new(t->events, meta) != 0) {
        json_decref(t->events);
        free(t);
        return NULL;
    }
    return t;
}

void ts_trace_free(ts_trace *t)
{
    if (!t)
        return;
    json_decref(t->events);
    free(t);
}

int ts_trace_track(ts_trace *t, int tid, const char *name)
{
    if (!t || !name)
        return -1;
    /* The sort index keeps tracks in tid order (device 0 on top) instead of by name. */
    json_t *nm = ts_trace_meta("thread_name", tid, true, json_pack("{s:s}", "name", name));
    if (!nm || ts_trace_add(t, nm) != 0)
        return -1;
    json_t *order =
        ts_trace_meta("thread_sort_index", tid, true, json_pack("{s:i}", "sort_index", tid));
    if (!order || ts_trace_add(t, order) != 0)
        return -1;
    return 0;
}

int ts_trace_slice(ts_trace *t, int tid, const char *name, const char *category, double ts_us,
                   double dur_us, json_t *args)
{
    if (!t || !name) {
        json_decref(args);
        return -1;
    }
    json_t *ev = json_pack("{s:s, s:s, s:s, s:i, s:i, s:f, s:f}", "name", name, "cat",
                           category ? category : "default", "ph", "X", "pid", TS_TRACE_PID, "tid",
                           tid, "ts", ts_us, "dur", dur_us < 0 ? 0.0 : dur_us);
    if (!ev) {
        json_decref(args);
        return -1;
    }
    if (args && json_object_set_new(ev, "args", args) != 0) {
        json_decref(ev);
        return -1;
    }
    if (ts_trace_add(t, ev) != 0)
        return -1;
    return 0;
}

int ts_trace_flow(ts_trace *t, long id, const char *name, int from_tid, double from_us, int to_tid,
                  double to_us)
{
    if (!t || !name)
        return -1;
    /* A flow start binds to the slice enclosing from_us on its track; "bp":"e" makes the end bind
     * to the slice enclosing to_us (instead of the next slice to begin), which is where a message
     * is received. */
    json_t *s =
        json_pack("{s:s, s:s, s:s, s:I, s:i, s:i, s:f}", "name", name, "cat", "flow", "ph", "s",
                  "id", (json_int_t)id, "pid", TS_TRACE_PID, "tid", from_tid, "ts", from_us);
    json_t *f = json_pack("{s:s, s:s, s:s, s:s, s:I, s:i, s:i, s:f}", "name", name, "cat", "flow",
                          "ph", "f", "bp", "e", "id", (json_int_t)id, "pid", TS_TRACE_PID, "tid",
                          to_tid, "ts", to_us);
    if (!s || !f) {
        json_decref(s);
        json_decref(f);
        return -1;
    }
    if (ts_trace_add(t, s) != 0) {
        json_decref(f);
        return -1;
    }
    if (ts_trace_add(t, f) != 0)
        return -1;
    return 0;
}

json_t *ts_trace_to_json(const ts_trace *t)
{
    return t && t->events
               ? json_pack("{s:O, s:s}", "traceEvents", t->events, "displayTimeUnit", "ms")
               : NULL;
}

int ts_trace_write(const ts_trace *t, const char *path, ts_err *e)
{
    if (!t || !t->events || !path)
        return ts_fail(e, TS_EINPUT, "trace: nothing to write");
    json_t *root = json_pack("{s:O, s:s}", "traceEvents", t->events, "displayTimeUnit", "ms");
    if (!root)
        return ts_fail(e, TS_ESYS, "trace %s: out of memory", path);
    int rc = TS_OK;
    bool to_stdout = strcmp(path, "-") == 0;
    FILE *f = to_stdout ? stdout : fopen(path, "w");
    if (!f) {
        rc = ts_fail(e, TS_ESYS, "trace %s: cannot open for writing: %s", path, strerror(errno));
    } else {
        if (json_dumpf(root, f, JSON_COMPACT) != 0 || fputc('\n', f) == EOF)
            rc = ts_fail(e, TS_ESYS, "trace %s: write failed", path);
        if (to_stdout) {
            if (fflush(f) != 0 && rc == TS_OK)
                rc = ts_fail(e, TS_ESYS, "trace %s: write failed: %s", path, strerror(errno));
        } else if (fclose(f) != 0 && rc == TS_OK) {
            rc = ts_fail(e, TS_ESYS, "trace %s: write failed: %s", path, strerror(errno));
        }
    }
    json_decref(root);
    return rc;
}

long ts_trace_schedule_slices(const ts_placement *p, long nmicros)
{
    long per = 0;
    for (int b = 0; b < p->nblocks; b++)
        per += p->blocks[b].ndevices;
    return per * nmicros;
}

/* The process name, the device tracks and one slice per instance and device of s. */
static int ts_trace_fill_schedule(ts_trace *t, const ts_schedule *s, double unit_us)
{
    const ts_placement *p = s->placement;
    if (!(unit_us > 0))
        unit_us = 1.0;
    char buf[64];
    for (int d = 0; d < p->ndevs; d++) {
        snprintf(buf, sizeof buf, "device %d", d);
        if (ts_trace_track(t, d, buf) != 0)
            return -1;
    }
    /* Steps are shifted so the first instance starts at time 0, as a measured run does. */
    long first = 0;
    for (int i = 0; i < s->nentries; i++)
        if (i == 0 || s->entries[i].step < first)
            first = s->entries[i].step;
    for (int i = 0; i < s->nentries; i++) {
        const ts_entry *en = &s->entries[i];
        if (en->block < 0 || en->block >= p->nblocks)
            return -1;
        const ts_block *b = &p->blocks[en->block];
        snprintf(buf, sizeof buf, "%.40s m%d", b->id, en->micro);
        double ts = (double)(en->step - first) * unit_us;
        double dur = (double)b->span * unit_us;
        for (int j = 0; j < b->ndevices; j++) {
            json_t *args =
                json_pack("{s:s, s:i, s:i, s:I, s:i}", "block", b->id, "micro", en->micro, "memory",
                          b->memory, "step", (json_int_t)en->step, "span", b->span);
            if (!args ||
                ts_trace_slice(t, b->devices[j], buf, ts_kind_name(b->kind), ts, dur, args) != 0)
                return -1;
        }
    }
    return 0;
}

static void ts_trace_plan_name(const ts_schedule *s, char *buf, size_t size)
{
    const char *name = s->placement->name;
    snprintf(buf, size, "plan: %s", name ? name : "schedule");
}

ts_trace *ts_trace_from_schedule(const ts_schedule *s, double unit_us)
{
    if (!s || !s->placement)
        return NULL;
    char pname[256];
    ts_trace_plan_name(s, pname, sizeof pname);
    ts_trace *t = ts_trace_new(pname);
    if (t && ts_trace_fill_schedule(t, s, unit_us) != 0) {
        ts_trace_free(t);
        return NULL;
    }
    return t;
}

typedef struct {
    const ts_schedule *s;
    double unit_us;
} ts_trace_plan_job;

/* Writes the document ts_trace_write would, event by event: the same bytes. */
static int ts_trace_stream(FILE *f, const void *ud)
{
    const ts_trace_plan_job *job = ud;
    char pname[256];
    ts_trace_plan_name(job->s, pname, sizeof pname);
    ts_trace t = {NULL, f, 0};
    json_t *meta = ts_trace_meta("process_name", 0, false, json_pack("{s:s}", "name", pname));
    if (fputs("{\"traceEvents\":[", f) == EOF || !meta || ts_trace_add(&t, meta) != 0 ||
        ts_trace_fill_schedule(&t, job->s, job->unit_us) != 0)
        return -1;
    return fputs("],\"displayTimeUnit\":\"ms\"}\n", f) == EOF ? -1 : 0;
}

int ts_trace_write_schedule(const ts_schedule *s, double unit_us, const char *path, ts_err *e)
{
    if (!s || !s->placement || !path)
        return ts_fail(e, TS_EINPUT, "trace: nothing to write");
    long slices = ts_trace_schedule_slices(s->placement, s->nmicros);
    if (slices > TS_TRACE_MAX_SLICES)
        return ts_fail(e, TS_EINPUT,
                       "%d micro-batches make %ld slices, more than the limit of %ld (2^24): ask "
                       "for fewer micro-batches",
                       s->nmicros, slices, (long)TS_TRACE_MAX_SLICES);
    ts_trace_plan_job job = {s, unit_us};
    return ts_write_file(path, ts_trace_stream, &job, e);
}
