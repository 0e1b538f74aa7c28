/* The blocks of each device (ts_devblocks of bound_internal.h), the one helper the lower bound's
 * terms share: bound.c's load and one-machine terms and the memory terms' loop, bound_memdev.c. */
#include <stdlib.h>
#include "bound_internal.h"

int ts_devblocks_make(const ts_placement *p, const int *order, ts_devblocks *db)
{
    int nb = p->nblocks, nd = p->ndevs;
    db->off = calloc((size_t)nd + 2, sizeof(int));
    int *last = malloc(((size_t)nd + 1) * sizeof(int));
    size_t total = 0;
    for (int b = 0; b < nb; b++)
        total += (size_t)p->blocks[b].ndevices;
    db->list = malloc((total ? total : 1) * sizeof(int));
    if (!db->off || !last || !db->list) {
        free(last);
        ts_devblocks_free(db);
        return -1;
    }
    /* Two passes (count, then fill at off[d + 1]); a device listed twice or out of range in an
     * unchecked block counts as ts_block_on does: once, or not at all. */
    for (int pass = 0; pass < 2; pass++) {
        for (int d = 0; d < nd; d++)
            last[d] = -1;
        for (int i = 0; i < nb; i++) {
            int b = order ? order[i] : i;
            const ts_block *x = &p->blocks[b];
            for (int k = 0; k < x->ndevices; k++) {
                int d = x->devices[k];
                if (d < 0 || d >= nd || last[d] == b)
                    continue;
                last[d] = b;
                if (pass == 0)
                    db->off[d + 2]++;
                else
                    db->list[db->off[d + 1]++] = b;
            }
        }
        if (pass == 0)
            for (int d = 0; d < nd; d++)
                db->off[d + 2] += db->off[d + 1];
    }
    free(last);
    return 0;
}

void ts_devblocks_free(ts_devblocks *db)
{
    free(db->off);
    free(db->list);
    db->off = NULL;
    db->list = NULL;
}
