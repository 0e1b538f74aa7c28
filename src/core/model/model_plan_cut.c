/* The layers cut into a plan's chunks: cut[k] is the first layer of chunk k, the largest chunk
 * as small as it can be. The cost model cuts every plan this way, and Megatron's layouts
 * (model_plan_rules.c) fall back on it where the framework leaves the cut free. */
#include <math.h>
#include <stdbool.h>
#include "model_internal.h"

/* A layer's work without recomputation: what the cut balances. */
static double ts_plan_w(const ts_plan_tables *t, int i)
{
    const ts_layer_cost *c = &t->lc[TS_RC_NONE][i];
    return c->fwd_s + c->bgrad_s + c->wgrad_s;
}

/* Greedy chunks of at most limit each, cutting also where the layers left are as many as the
 * chunks left; the chunk count, or S + 1 when more than S are needed. */
static int ts_plan_pack(const ts_plan_tables *t, int S, double limit, int *cut)
{
    int k = 0;
    double run = 0;
    cut[0] = 0;
    for (int i = 0; i < t->n; i++) {
        double w = ts_plan_w(t, i);
        bool open = i > cut[k];
        if (open && (run + w > limit || t->n - i == S - (k + 1))) {
            if (k + 1 >= S)
                return S + 1;
            cut[++k] = i;
            run = 0;
        }
        run += w;
    }
    cut[S] = t->n;
    return k + 1;
}

/* Chunk boundaries: cut[k] is the first layer of chunk k (cut[S] = n), the largest chunk as
 * small as it can be (bisection on the limit, greedy packing). */
void ts_plan_cut(const ts_plan_tables *t, int S, int *cut)
{
    double lo = 0, hi = t->work;
    for (int i = 0; i < t->n; i++)
        lo = fmax(lo, ts_plan_w(t, i));
    lo = fmax(lo, t->work / S);
    if (ts_plan_pack(t, S, lo, cut) <= S)
        hi = lo;
    for (int it = 0; it < 40 && hi - lo > 1e-9 * hi; it++) {
        double mid = (lo + hi) / 2;
        if (ts_plan_pack(t, S, mid, cut) <= S)
            hi = mid;
        else
            lo = mid;
    }
    ts_plan_pack(t, S, hi * (1 + 1e-12), cut);
}
