/* Reading a chain with barriers (ts_bchain.h): the path, its barriers, and the V of pairs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ts_bchain.h"

int ts_bchain_read(const ts_placement *p, ts_bchain *b, char *why, size_t nwhy)
{
    int nb = p->nblocks, nd = p->ndevs;
    int *next = malloc((size_t)nb * sizeof(int)), *indeg = calloc((size_t)nb, sizeof(int));
    int rc = 1;
    memset(b, 0, sizeof *b);
    b->chain = malloc((size_t)nb * sizeof(int));
    b->work = malloc((size_t)nb * sizeof(int));
    b->cross = malloc((size_t)nb * sizeof(bool));
    if (nd < 2)
        snprintf(why, nwhy, "fewer than two devices");
    if (!next || !indeg || !b->chain || !b->work || !b->cross || nd < 2)
        goto out;
    for (int i = 0; i < nb; i++)
        next[i] = -1;
    for (int i = 0; i < p->nedges; i++) {
        const ts_edge *x = &p->edges[i];
        if (x->delay || x->distance || next[x->src] >= 0 || indeg[x->dst]++) {
            snprintf(why, nwhy, "not one path without delays");
            goto out;
        }
        next[x->src] = x->dst;
    }
    int head = -1, len = 0, nwork = 0;
    for (int i = 0; i < nb; i++)
        if (!indeg[i])
            head = head < 0 ? i : -2;
    for (int i = head; i >= 0 && len < nb; i = next[i]) {
        const ts_block *k = &p->blocks[i];
        b->chain[len++] = i;
        if (k->ndevices == nd && k->memory == 0) {
            b->nbar++;
            b->barsteps += k->span;
        } else if (k->ndevices == 1 && nwork < 2 * nd)
            b->work[nwork++] = i;
        else if (k->ndevices == 1) {
            snprintf(why, nwhy, "more than two single-device blocks per device");
            goto out;
        } else {
            snprintf(why, nwhy, "block %s is neither on one device nor a barrier", k->id);
            goto out;
        }
    }
    if (head < 0 || len != nb || nwork != 2 * nd || !b->nbar) {
        snprintf(why, nwhy, "not one path of barriers and two blocks per device");
        goto out;
    }
    b->D = nd;
    for (int k = 0; k < nd; k++) {
        const ts_block *f = &p->blocks[b->work[k]], *s = &p->blocks[b->work[2 * nd - 1 - k]];
        if (f->devices[0] != s->devices[0] || f->memory < 0 || f->memory != -s->memory) {
            snprintf(why, nwhy, "blocks %s and %s are not a nested pair", f->id, s->id);
            goto out;
        }
        for (int j = 0; j < k; j++)
            if (p->blocks[b->work[j]].devices[0] == f->devices[0]) {
                snprintf(why, nwhy, "a device holds two pairs");
                goto out;
            }
    }
    for (int i = 0, at = 0; i + 1 < 2 * nd; i++) {
        while (b->chain[at] != b->work[i])
            at++;
        b->cross[i] = false;
        for (int j = at + 1; b->chain[j] != b->work[i + 1]; j++)
            b->cross[i] = true;
    }
    rc = 0;
out:
    free(next);
    free(indeg);
    return rc;
}

void ts_bchain_free(ts_bchain *b)
{
    free(b->chain);
    free(b->work);
    free(b->cross);
    memset(b, 0, sizeof *b);
}

int ts_bchain_unroll(const ts_placement *p, const long *cap, int n, int R, long period,
                     const long *base, const char *who, ts_schedule **out, ts_err *e)
{
    int nb = p->nblocks, rc = TS_OK;
    ts_schedule *sc = ts_schedule_new(p, n);
    if (!sc)
        return ts_fail(e, TS_ESYS, "%s: out of memory", who);
    long lo = base[0];
    for (long i = 1; i < (long)R * nb; i++)
        lo = base[i] < lo ? base[i] : lo;
    if (cap)
        ts_schedule_set_memory(sc, cap);
    for (int m = 0; m < n && rc == TS_OK; m++)
        for (int x = 0; x < nb && rc == TS_OK; x++)
            if (ts_schedule_add(sc, x, m,
                                base[(long)(m % R) * nb + x] + (long)(m / R) * period - lo))
                rc = ts_fail(e, TS_ESYS, "%s: out of memory", who);
    if (rc == TS_OK) {
        ts_schedule_sort(sc);
        ts_schedule_normalize(sc);
        *out = sc;
        sc = NULL;
    }
    ts_schedule_free(sc);
    return rc;
}
