/* The sweep point: one point of a sweep specification (tessel-sweep/1), a search of a placement
 * (or a baseline replayed) that a worker runs as `tessel search` (or `tessel baseline`, then
 * `tessel simulate`). Its table names the keys a spec's point takes (a grid takes lists under the
 * same keys, placements and methods in the plural); `tessel sweep --help` lists them from it, and
 * the spec's reader names them from it. Its options are the search's own fields, checked by the
 * search's table and sent as the command line's flags that table gives. */
#include <string.h>
#include "ts_op_sweep.h"
#ifdef TS_HAVE_SOLVER
#include "ts_op_search.h"
#endif

#define TS_OP_SWEEP_ONLY                                                                           \
    "a key of a sweep file (tessel sweep); Python runs a grid as a loop over tessel.search, the "  \
    "explorer's what-if as a grid of one axis"

static const ts_op_option ts_op_sweep_point_opts[] = {
    {"placement", NULL, NULL, 0, TS_OPV_TEXT, 0, 0, NULL,
     "a built-in's name or a placement file, relative to the spec (a grid: placements, a list)",
     TS_FRONT_CLI, TS_OP_SWEEP_ONLY},
    {"ndevs", NULL, NULL, 0, TS_OPV_INT, 1, TS_MAX_DEVS, NULL,
     "a built-in's device count (a placement file fixes its own)", TS_FRONT_CLI, TS_OP_SWEEP_ONLY},
    {"infer", NULL, NULL, 0, TS_OPV_FLAG, 0, 0, NULL,
     "the built-in's inference variant (default false)", TS_FRONT_CLI, TS_OP_SWEEP_ONLY},
    {"memory", NULL, NULL, 0, TS_OPV_MEMORY, 0, 0, NULL,
     "each device's capacity: an integer, \"none\" (the default) or a list of one per device "
     "(not for baselines)",
     TS_FRONT_CLI, TS_OP_SWEEP_ONLY},
    {"nmicros", NULL, NULL, 0, TS_OPV_INT, 1, 1024, NULL,
     "k, micro-batches per repetend (not for modulo, full or baselines)", TS_FRONT_CLI,
     TS_OP_SWEEP_ONLY},
    {"method", NULL, NULL, 0, TS_OPV_TEXT, 0, 0, NULL,
     "lazy (the default), fast, full, modulo, auto, or a kind of `tessel baseline --list` (a "
     "grid: methods, a list)",
     TS_FRONT_CLI, TS_OP_SWEEP_ONLY},
    {"micro_batches", NULL, NULL, 0, TS_OPV_INT, 1, 100000, NULL, "N", TS_FRONT_CLI,
     TS_OP_SWEEP_ONLY},
    {"options", NULL, NULL, 0, TS_OPV_FIELDS, 0, 0, NULL,
     "an object of `tessel search`'s other options, by their request fields (effort, gap, seed, "
     "accept, per_period, candidates), given to every search of the grid or point (one value "
     "each, not an axis; the point's id then ends with their hash)",
     TS_FRONT_CLI, TS_OP_SWEEP_ONLY},
};

const ts_op ts_op_sweep_point = {
    "sweep_point",
    "one point of a sweep file: a search of a placement, or a baseline replayed",
    TS_OP_ON_NOTHING,
    "sweep",
    NULL,
    NULL,
    NULL,
    ts_op_sweep_point_opts,
    (int)(sizeof ts_op_sweep_point_opts / sizeof ts_op_sweep_point_opts[0])};

const ts_op *ts_op_sweep_search(void)
{
#ifdef TS_HAVE_SOLVER
    return &ts_op_search;
#else
    return NULL;
#endif
}

int ts_op_sweep_options(json_t *options, ts_err *e)
{
    /* the point's own keys, and what the sweep itself decides (its file, its record) */
    static const char *const reserved[] = {
        "memory", "method", "k", "micro_batches", "time_limit", "output", "json", "verbose", NULL};
    const ts_op *search = ts_op_sweep_search();
    if (!search)
        return ts_fail(e, TS_EINPUT, "this build has no solver: a search takes no options");
    return ts_op_check_values(search, options, TS_FRONT_CLI, reserved, e);
}
