/* The per-device loop both memory terms share (bound_memory.c, bound_exclusive.c): the
 * dependency context, the devices' blocks in topological order and scratch, built once a bound,
 * then one term per device and the largest kept. */
#include <stdlib.h>
#include "bound_internal.h"

int ts_bound_mem_devices(const ts_placement *p, int n, const long *cap, const long *est,
                         const long *tail, ts_mdev_term term, long *out, int *dev)
{
    *out = -1;
    *dev = -1;
    if (p->nblocks > TS_BOUND_MEM_MAX_BLOCKS)
        return 0;
    ts_mctx c = {0};
    ts_devblocks db = {0};
    long *budget = malloc((size_t)p->nblocks * sizeof(long) + 1);
    char *in = malloc((size_t)p->nblocks + 1);
    int rc = -1;
    if (!budget || !in || ts_mctx_make(&c, p) || ts_devblocks_make(p, c.topo, &db))
        goto out;
    for (int d = 0; d < p->ndevs; d++) {
        ts_mdev m = {.c = &c,
                     .on = db.list + db.off[d],
                     .non = db.off[d + 1] - db.off[d],
                     .n = n,
                     .cap = cap[d],
                     .est = est,
                     .tail = tail,
                     .budget = budget,
                     .in = in};
        /* The pairs of a device are quartic in its blocks: such devices are skipped. */
        if (m.non > TS_BOUND_MEM_MAX_ON_DEVICE)
            continue;
        long v = term(&m);
        if (v == -2)
            goto out;
        if (v > *out) {
            *out = v;
            *dev = d;
        }
    }
    rc = 0;
out:
    ts_devblocks_free(&db);
    free(budget);
    free(in);
    ts_mctx_free(&c);
    return rc;
}
