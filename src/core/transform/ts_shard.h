/* Blocks that span every device, taken out and put back as pauses of the whole machine.
 *
 * A block on all devices (an embedding or a loss sharded over the pipeline, as in mshape and
 * nnshape) stops every device while it runs. A good schedule of the rest, for example a 1F1B
 * pipeline of the remaining chain, stays good when each such instance is slipped in as a pause
 * of every device at once: the devices keep their relative timing, so the pipeline's overlap
 * survives, and the makespan grows by the pauses' total span at most. The reduced placement
 * drops these blocks and joins each path through them into one edge (delays and distances
 * summed); ts_unshard_insert puts them back into a schedule of the reduced placement. */
#ifndef TS_SHARD_H
#define TS_SHARD_H

#include "ts_error.h"
#include "ts_schedule.h"

typedef struct {
    /* owned; NULL when p has no such block */
    ts_placement *reduced;
    /* p's nblocks: the block's index in reduced, or -1 for a removed one */
    int *to_reduced;
    /* nremoved block indices of p, in a topological order */
    int *removed;
    int nremoved;
} ts_unshard;

/* Fills u from p (ndevs >= 2). With no block on every device, u->reduced stays NULL and
 * u->nremoved is 0; a placement of nothing else is left alone too. Returns TS_OK or TS_ESYS. */
int ts_unshard_make(const ts_placement *p, ts_unshard *u, ts_err *e);
void ts_unshard_free(ts_unshard *u);

/* r: a complete schedule of u->reduced; *out: the schedule of p with the same micro-batches,
 * each removed instance placed after its inputs (or, without inputs, before its outputs),
 * every device running its instances in that one order, as early as it allows. It is a valid
 * schedule unless memory overflows: the caller validates.
 *
 * A pause can only start when every device has finished what it was running, so a pipeline
 * whose devices are staggered (1F1B) loses up to a block's span at each one. quantum > 1 moves
 * each removed instance to a multiple of it, as late as its outputs allow when it has no
 * inputs and as early as its inputs allow otherwise (staying inside its window), so that
 * pauses come in batches that pay that loss once. */
int ts_unshard_insert(const ts_unshard *u, const ts_placement *p, const ts_schedule *r,
                      long quantum, ts_schedule **out, ts_err *e);

#endif
