/* A constructed modulo timetable (iterative modulo scheduling without backtracking): each block,
 * in the order given, starts as early as its placed predecessors allow at a time whose arc is
 * free on every device it occupies. Cheap, and for pipeline placements it is usually already
 * zero-bubble; when it is not, its residues seed the solver. */
#include <stdlib.h>
#include <string.h>
#include "modulo_internal.h"

/* Reservation tables larger than this are not worth a heuristic. */
#define TS_GREEDY_MAX_CELLS (64L * 1024 * 1024)

static bool ts_arc_free(const ts_block *b, const char *busy, long P, long r)
{
    for (int i = 0; i < b->ndevices; i++) {
        const char *row = busy + (long)b->devices[i] * P;
        for (long k = 0; k < b->span; k++)
            if (row[(r + k) % P])
                return false;
    }
    return true;
}

int ts_modulo_greedy(const ts_placement *p, const ts_mplan *mp, long P, const int *order,
                     bool has_memory, long cap, long *t, long *hint_r)
{
    int nb = p->nblocks;
    if (hint_r)
        for (int b = 0; b < nb; b++)
            hint_r[b] = -1;
    if ((long)p->ndevs * P > TS_GREEDY_MAX_CELLS || nb == 0)
        return 0;
    char *busy = calloc((size_t)p->ndevs * (size_t)P, 1);
    char *placed = calloc((size_t)nb, 1);
    int *ioff = calloc((size_t)nb + 1, sizeof(int));
    int *iedge = malloc((size_t)(p->nedges ? p->nedges : 1) * sizeof(int));
    int ok = 0;
    if (!busy || !placed || !ioff || !iedge)
        goto done;
    for (int i = 0; i < p->nedges; i++)
        ioff[p->edges[i].dst + 1]++;
    for (int b = 0; b < nb; b++)
        ioff[b + 1] += ioff[b];
    {
        int *fill = malloc((size_t)nb * sizeof(int));
        if (!fill)
            goto done;
        memcpy(fill, ioff, (size_t)nb * sizeof(int));
        for (int i = 0; i < p->nedges; i++)
            iedge[fill[p->edges[i].dst]++] = i;
        free(fill);
    }
    ok = 1;
    for (int i = 0; i < nb && ok; i++) {
        int b = order[i];
        const ts_block *blk = &p->blocks[b];
        long est = 0;
        bool any = false;
        for (int k = ioff[b]; k < ioff[b + 1]; k++) {
            const ts_edge *x = &p->edges[iedge[k]];
            if (!placed[x->src])
                continue;
            long c = t[x->src] + p->blocks[x->src].span + (long)x->delay - (long)x->distance * P;
            if (!any || c > est)
                est = c;
            any = true;
        }
        ok = 0;
        for (long s = est; s < est + P; s++) {
            long r = ts_mod_floordiv(s, P);
            r = s - r * P;
            if (!ts_arc_free(blk, busy, P, r))
                continue;
            for (int j = 0; j < blk->ndevices; j++)
                for (long k = 0; k < blk->span; k++)
                    busy[(long)blk->devices[j] * P + (r + k) % P] = 1;
            t[b] = s;
            placed[b] = 1;
            if (hint_r)
                hint_r[b] = r;
            ok = 1;
            break;
        }
    }
    if (ok) {
        ts_err e = {0};
        ok = ts_modulo_verify(p, mp, P, t, has_memory, cap, &e) == TS_OK;
    }
done:
    free(busy);
    free(placed);
    free(ioff);
    free(iedge);
    return ok;
}
