/* Interchange with the Python Tessel (zhiqi-0/Tessel): its saved schedules are
 * {ndevs, blocks: [{mid, span, memory, btype, gid, step, device}], repetend: [start, end]}.
 *
 * Its convention differs from ours in two ways that matter. A block is named only by its gid, the
 * index of the block in its placement's chain order, so a placement must supply the edges and the
 * identities. And its repetend [start, end) is the window of steps that holds one instance of
 * every gid, which may be longer than one period: its unroll shifts each further micro-batch by
 * the largest per-device extent of the window's instances plus an offset the dependencies need. */
#ifndef TS_PYTESSEL_H
#define TS_PYTESSEL_H

#include "ts_schedule.h"

typedef struct {
    /* Micro-batches of the result: 0 = the fewest for which the reference's unroll holds a window
     * of one period with one instance of every block (so the result has a repetend). Larger
     * values give the reference's unroll at that count; values where no such window exists yet
     * give a schedule without a repetend. */
    int nmicros;
    /* record this per-device capacity and check the schedule against it */
    bool has_memory;
    long memory;
} ts_pyimport_opts;

/* Reads a Python Tessel schedule, matches its gids to p's blocks (look-alike gids are resolved by
 * the dependencies), rebuilds the reference's unroll and checks the result with the validator
 * (dependencies, exclusivity, completeness, and memory when o gives a capacity). Fails with
 * TS_EINPUT for malformed files and TS_ENOANSWER when no assignment or schedule is valid. */
int ts_pyimport_read(const char *path, const ts_placement *p, const ts_pyimport_opts *o,
                     ts_schedule **out, ts_err *e);

/* The reference's gid of every block of p (its chain order), gid_of[nblocks]. -1 on a cycle. */
int ts_py_gids(const ts_placement *p, int *gid_of);

/* The step by which the reference's unroll shifts each further micro-batch, for a window that
 * holds block b's instance of micro-batch mid[b] at step[b]. With deps, as the plan its search
 * returns has it; without, as a plan it loads from a file has it (no dependencies). */
long ts_py_period(const ts_placement *p, const int *mid, const long *step, bool deps);

/* The most instances ts_pyexport_save writes (its window check holds several copies of them);
 * `tessel export --python` refuses more before it unrolls. */
#define TS_PYEXPORT_MAX_INSTANCES (1L << 22)
/* Writes s (which needs a repetend) in the reference's format, with its gids and a repetend
 * window whose unroll by the reference repeats every s's period. path "-" means stdout.
 * TS_EINPUT above TS_PYEXPORT_MAX_INSTANCES. */
int ts_pyexport_save(const ts_schedule *s, const char *path, ts_err *e);

#endif
