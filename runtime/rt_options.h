/* Command-line options of tessel-run. Parsing is pure so that every rank reaches the same verdict
 * and only rank 0 needs to print it. */
#ifndef RT_OPTIONS_H
#define RT_OPTIONS_H

#include <stdbool.h>
#include "ts_error.h"

typedef enum { RT_WORK_DATAFLOW, RT_WORK_TRAIN, RT_WORK_TIMING } rt_work_kind;
typedef enum { RT_BACKEND_CPU, RT_BACKEND_CUDA } rt_backend_kind;

typedef struct {
    const char *schedule;
    int micro_batches; /* 0: the schedule's own */
    int iterations;
    rt_work_kind workload;
    bool check;
    double unit_us;
    int size; /* 0: the workload's default */
    const char *trace;
    bool json;
    double timeout;
    rt_backend_kind backend;
    bool help;
    int inject; /* RT_INJECT_*: deliberate faults, for the tests of the checks and deadlines */
} rt_options;

enum { RT_INJECT_NONE = 0, RT_INJECT_WRONG_INPUT = 1, RT_INJECT_STALL = 2 };

/* Fills o; on a bad option fails with TS_EINPUT and a message. argv is not modified. */
int rt_options_parse(int argc, char **argv, rt_options *o, ts_err *e);
const char *rt_options_usage(void);
const char *rt_work_name(rt_work_kind k);

#endif
