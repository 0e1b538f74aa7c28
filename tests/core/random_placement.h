/* Shared by the core tests: random placements (branches, joins, blocks on several devices,
 * delays, a distance edge, signed memory) and a schedule that is valid by construction. Include
 * after cmocka.h and ts_schedule.h. */
#ifndef TS_TEST_RANDOM_PLACEMENT_H
#define TS_TEST_RANDOM_PLACEMENT_H

#include "test_rng.h"

/* Block i depends on one or two earlier blocks; memory balanced so that no device keeps memory
 * from a micro-batch (the last block of a device frees what is left). */
static ts_placement *random_placement(uint64_t *seed)
{
    int D = rint_(seed, 1, 4), nb = rint_(seed, 2, 8);
    ts_placement *p = ts_placement_new("random", D);
    for (int i = 0; i < nb; i++) {
        int nd = rint_(seed, 0, 4) == 0 ? rint_(seed, 1, D) : 1, first = rint_(seed, 0, D - 1);
        int devs[4];
        for (int j = 0; j < nd; j++)
            devs[j] = (first + j) % D;
        char id[16];
        snprintf(id, sizeof id, "b%d", i);
        assert_int_equal(ts_placement_add_block(p, id, TS_KIND_OTHER, rint_(seed, 1, 4),
                                                rint_(seed, -1, 3), nd, devs),
                         i);
        if (i > 0) {
            int a = rint_(seed, 0, i - 1), c = rint_(seed, 0, i - 1);
            ts_placement_add_edge(p, a, i, rint_(seed, 0, 3) == 0 ? rint_(seed, 1, 3) : 0, 0);
            if (c != a && rint_(seed, 0, 2) == 0)
                ts_placement_add_edge(p, c, i, 0, 0);
        }
    }
    if (nb > 1 && rint_(seed, 0, 3) == 0)
        ts_placement_add_edge(p, nb - 1, rint_(seed, 0, nb - 2), 0, rint_(seed, 1, 2));
    for (int d = 0; d < D; d++) {
        int net = 0, last = -1;
        for (int i = 0; i < nb; i++)
            if (ts_block_on(&p->blocks[i], d)) {
                net += p->blocks[i].memory;
                last = i;
            }
        if (net > 0 && last >= 0)
            p->blocks[last].memory -= net;
    }
    ts_err e = {0};
    assert_int_equal(ts_placement_check(p, "random", &e), TS_OK);
    return p;
}

/* Micro-batch after micro-batch, each block after the previous one: valid by construction. */
static ts_schedule *sequential(const ts_placement *p, int n)
{
    int *topo = malloc((size_t)p->nblocks * sizeof(int));
    assert_int_equal(ts_placement_topo(p, topo), 0);
    ts_schedule *s = ts_schedule_new(p, n);
    long t = 0;
    for (int m = 0; m < n; m++)
        for (int i = 0; i < p->nblocks; i++) {
            int b = topo[i];
            long delay = 0;
            for (int j = 0; j < p->nedges; j++)
                if (p->edges[j].dst == b && p->edges[j].delay > delay)
                    delay = p->edges[j].delay;
            t += delay;
            assert_int_equal(ts_schedule_add(s, b, m, t), 0);
            t += p->blocks[b].span;
        }
    free(topo);
    return s;
}

#endif
