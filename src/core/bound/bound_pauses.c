/* The pauses term of the lower bound.
 *
 * A block that runs on every device (a sharded embedding or loss) leaves no device free while
 * it runs, so in any valid schedule the N copies of such blocks fill disjoint stretches of time,
 * N x their spans in all, in which nothing else runs. Cut those stretches out of the timeline:
 * what is left is a schedule of the other blocks (the reduced placement of ts_shard.h, each path
 * through a removed block joined into one edge) that keeps every device's order and every
 * dependency, so it is at least the reduced placement's own bound. Hence
 *     makespan >= N x (sum of their spans) + bound(reduced, N).
 * Cutting time can shorten a gap below an edge's delay, so the reduced bound is taken with every
 * delay at 0; and removing the blocks' memory deltas can only lower a device's level when none
 * of them frees memory, so the capacity is kept only then. */
#include <stdlib.h>
#include "bound_internal.h"
#include "ts_shard.h"

int ts_bound_pauses_term(const ts_placement *p, int n, const long *cap, long *out)
{
    *out = -1;
    ts_unshard u;
    ts_err e = {0};
    if (ts_unshard_make(p, &u, &e) != TS_OK)
        return -1;
    if (!u.reduced)
        return 0;
    long pauses = 0;
    bool frees = false;
    for (int i = 0; i < u.nremoved; i++) {
        pauses += p->blocks[u.removed[i]].span;
        frees |= p->blocks[u.removed[i]].memory < 0;
    }
    for (int i = 0; i < u.reduced->nedges; i++)
        u.reduced->edges[i].delay = 0;
    ts_bound rb;
    int rc = ts_bound_compute(u.reduced, n, frees ? NULL : cap, &rb);
    if (rc == 0)
        *out = (long)n * pauses + rb.value;
    ts_unshard_free(&u);
    return rc;
}
