/* A small hand-written parser rather than getopt: getopt permutes and keeps global state, and
 * every rank must parse the same way without printing anything. */
#include "rt_options.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *ts_rt_options_usage(void)
{
    return "usage: mpirun -np D tessel-run --schedule SCHEDULE.json [options]\n"
           "\n"
           "Replays a schedule (tessel-schedule/1) on D MPI ranks, rank r being device r,\n"
           "with real compute and communication, and reports how well the replay keeps the\n"
           "schedule's promise. The ranks first agree on their options and schedule.\n"
           "\n"
           "  --schedule FILE        the schedule to replay (required)\n"
           "  --micro-batches N      unroll the schedule's repetend to N micro-batches\n"
           "                         (default: as is)\n"
           "  --iterations I         training iterations / repetitions (default 1)\n"
           "  --workload KIND        dataflow (default) | train | timing\n"
           "  --check                dataflow: compare every instance with a single-process\n"
           "                         run; train: compare accumulated gradients (relative\n"
           "                         error <= 1e-5) and require the loss to decrease over\n"
           "                         the iterations\n"
           "  --unit-us U            timing: microseconds per span unit (default 1000)\n"
           "  --size S               matrix size: dataflow S x S (default 64), train hidden\n"
           "                         width (default 64, micro-batches of 16 samples)\n"
           "  --trace FILE           write a Chrome trace of the last iteration (one track\n"
           "                         per rank)\n"
           "  --json                 print the measurements as one JSON object\n"
           "  --timeout S            seconds any single wait (and each start-up phase,\n"
           "                         MPI_Init included) may take before the job fails\n"
           "                         (default 60)\n"
           "  --backend cpu|cuda     compute backend (default cpu; cuda when built with\n"
           "                         CUDA)\n"
           "  --inject wrong-input|stall\n"
           "                         deliberate fault on the last rank, for tests: zero one\n"
           "                         received input (the check must fail) or stop answering\n"
           "                         (peers time out)\n"
           "  --help                 this text\n"
           "\n"
           "Exit status: 0 ok, 1 invalid schedule or failed check, 2 bad usage or input\n"
           "(wrong rank count, unreadable file, placement the workload cannot run, ranks\n"
           "started differently), 3 runtime failure (a rank failed or timed out; the job is\n"
           "aborted).\n";
}

const char *ts_rt_work_name(ts_rt_work_kind k)
{
    return k == TS_RT_WORK_TRAIN ? "train" : k == TS_RT_WORK_TIMING ? "timing" : "dataflow";
}

static int ts_rt_parse_int(const char *flag, const char *s, long lo, long hi, int *out, ts_err *e)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || !end || *end || end == s || v < lo || v > hi)
        return ts_fail(e, TS_EINPUT, "%s: expected an integer in [%ld, %ld], got '%s'", flag, lo,
                       hi, s);
    *out = (int)v;
    return TS_OK;
}

static int ts_rt_parse_double(const char *flag, const char *s, double lo, double hi, double *out,
                              ts_err *e)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || !end || *end || end == s || !isfinite(v) || v < lo || v > hi)
        return ts_fail(e, TS_EINPUT, "%s: expected a number in [%g, %g], got '%s'", flag, lo, hi,
                       s);
    *out = v;
    return TS_OK;
}

/* One option that takes a value (flag is known, val its value). */
static int ts_rt_option_value(ts_rt_options *o, const char *flag, const char *val, ts_err *e)
{
    int rc = TS_OK;
    if (!strcmp(flag, "--schedule")) {
        o->schedule = val;
    } else if (!strcmp(flag, "--micro-batches")) {
        rc = ts_rt_parse_int(flag, val, 1, 1000000, &o->micro_batches, e);
    } else if (!strcmp(flag, "--iterations")) {
        rc = ts_rt_parse_int(flag, val, 1, 1000000, &o->iterations, e);
    } else if (!strcmp(flag, "--size")) {
        rc = ts_rt_parse_int(flag, val, 1, 16384, &o->size, e);
    } else if (!strcmp(flag, "--unit-us")) {
        rc = ts_rt_parse_double(flag, val, 0, 1e7, &o->unit_us, e);
    } else if (!strcmp(flag, "--timeout")) {
        rc = ts_rt_parse_double(flag, val, 0.01, 1e6, &o->timeout, e);
    } else if (!strcmp(flag, "--trace")) {
        o->trace = val;
    } else if (!strcmp(flag, "--workload")) {
        if (!strcmp(val, "dataflow"))
            o->workload = TS_RT_WORK_DATAFLOW;
        else if (!strcmp(val, "train"))
            o->workload = TS_RT_WORK_TRAIN;
        else if (!strcmp(val, "timing"))
            o->workload = TS_RT_WORK_TIMING;
        else
            rc = ts_fail(e, TS_EINPUT, "--workload: expected dataflow, train or timing, got '%s'",
                         val);
    } else if (!strcmp(flag, "--inject")) {
        if (!strcmp(val, "wrong-input"))
            o->inject = TS_RT_INJECT_WRONG_INPUT;
        else if (!strcmp(val, "stall"))
            o->inject = TS_RT_INJECT_STALL;
        else
            rc = ts_fail(e, TS_EINPUT, "--inject: expected wrong-input or stall, got '%s'", val);
    } else if (!strcmp(flag, "--backend")) {
        if (!strcmp(val, "cpu"))
            o->backend = TS_RT_BACKEND_CPU;
        else if (!strcmp(val, "cuda"))
            o->backend = TS_RT_BACKEND_CUDA;
        else
            rc = ts_fail(e, TS_EINPUT, "--backend: expected cpu or cuda, got '%s'", val);
    }
    return rc;
}

int ts_rt_options_parse(int argc, char **argv, ts_rt_options *o, ts_err *e)
{
    memset(o, 0, sizeof *o);
    o->iterations = 1;
    o->workload = TS_RT_WORK_DATAFLOW;
    o->unit_us = 1000;
    o->timeout = 60;
    o->backend = TS_RT_BACKEND_CPU;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = NULL;
        char flag[64];
        /* --name=value and --name value */
        const char *eq = strchr(a, '=');
        size_t len = eq ? (size_t)(eq - a) : strlen(a);
        if (len >= sizeof flag)
            len = sizeof flag - 1;
        memcpy(flag, a, len);
        flag[len] = 0;
        if (!strcmp(flag, "--help") || !strcmp(flag, "-h")) {
            o->help = true;
            continue;
        }
        if (!strcmp(flag, "--check")) {
            o->check = true;
            continue;
        }
        if (!strcmp(flag, "--json")) {
            o->json = true;
            continue;
        }
        static const char *const with_value[] = {
            "--schedule", "--micro-batches", "--iterations", "--workload", "--unit-us",
            "--size",     "--trace",         "--timeout",    "--backend",  "--inject"};
        int known = 0;
        for (size_t k = 0; k < sizeof with_value / sizeof *with_value; k++)
            if (!strcmp(flag, with_value[k]))
                known = 1;
        if (!known)
            return ts_fail(e, TS_EINPUT, "unknown option '%s' (see --help)", a);
        if (eq) {
            val = eq + 1;
        } else if (i + 1 < argc) {
            val = argv[++i];
        } else {
            return ts_fail(e, TS_EINPUT, "%s needs a value", flag);
        }
        int rc = ts_rt_option_value(o, flag, val, e);
        if (rc != TS_OK)
            return rc;
    }
    if (o->help)
        return TS_OK;
    if (!o->schedule)
        return ts_fail(e, TS_EINPUT, "--schedule FILE is required (see --help)");
    if (!strcmp(o->schedule, "-"))
        return ts_fail(e, TS_EINPUT,
                       "--schedule: every rank reads the file, so it cannot be stdin");
    if (o->size == 0)
        o->size = 64;
    return TS_OK;
}
