/* Command-line options of tessel-run. Parsing is pure so that every rank reaches the same verdict
 * and only rank 0 needs to print it. */
#ifndef TS_RT_OPTIONS_H
#define TS_RT_OPTIONS_H

#include <stdbool.h>
#include "ts_error.h"

typedef enum { TS_RT_WORK_DATAFLOW, TS_RT_WORK_TRAIN, TS_RT_WORK_TIMING } ts_rt_work_kind;
typedef enum { TS_RT_BACKEND_CPU, TS_RT_BACKEND_CUDA } ts_rt_backend_kind;

typedef struct {
    const char *schedule;
    /* 0: the schedule's own */
    int micro_batches;
    int iterations;
    ts_rt_work_kind workload;
    bool check;
    double unit_us;
    /* 0: the workload's default */
    int size;
    const char *trace;
    bool json;
    double timeout;
    ts_rt_backend_kind backend;
    bool help;
    /* TS_RT_INJECT_*: deliberate faults, for the tests of the checks and deadlines */
    int inject;
} ts_rt_options;

enum { TS_RT_INJECT_NONE = 0, TS_RT_INJECT_WRONG_INPUT = 1, TS_RT_INJECT_STALL = 2 };

/* Fills o; on a bad option fails with TS_EINPUT and a message. argv is not modified. */
int ts_rt_options_parse(int argc, char **argv, ts_rt_options *o, ts_err *e);
const char *ts_rt_options_usage(void);
const char *ts_rt_work_name(ts_rt_work_kind k);

#endif
