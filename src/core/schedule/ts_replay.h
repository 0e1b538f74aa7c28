/* The one replay of the project: "run each device's order as early as possible".
 *
 * Instances 0..ninst-1 each have a duration; every device runs its instances in the order given;
 * an instance starts once every device it occupies has finished the instances before it and its
 * inputs (the placement's edges between instances, with delay and micro-batch distance) are done,
 * plus any extra wait on the edge. That is a longest-path computation over the DAG of
 * device-order and dependency arcs, which Kahn's algorithm walks once.
 *
 * Used by the simulator (ts_simulate, ts_schedule_tighten), the baselines (ts_bl_asap) and the
 * solver's one-micro-batch-at-a-time fallback. */
#ifndef TS_REPLAY_H
#define TS_REPLAY_H

#include "ts_placement.h"

typedef struct {
    const ts_placement *p;
    /* micro-batches the instances belong to */
    int nmicros;
    int ninst;
    /* nblocks * nmicros: instance of (b, m) at b * nmicros + m, -1 when absent (edges to or from
     * it are left out) */
    const int *inst;
    /* ndevs + 1: device d runs dev_order[dev_off[d] .. dev_off[d+1]) */
    const int *dev_off;
    /* instance indices, in each device's order */
    const int *dev_order;
    /* ninst */
    const double *duration;
    /* nedges: wait after the source ends, replacing the edge's delay; NULL: the delays */
    const double *edge_wait;
} ts_replay_in;

/* Fills start (ninst) with the earliest starts from step 0. Returns TS_OK; TS_ENOANSWER when the
 * device orders deadlock (*stuck: an instance that never starts; the caller words the message,
 * e may be NULL then); TS_ESYS on allocation failure. */
int ts_replay(const ts_replay_in *in, double *start, int *stuck, ts_err *e);

#endif
