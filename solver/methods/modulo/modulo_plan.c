/* Modulo timetables without a solver: the memory plan, the recurrence bound and verification.
 * Below every other modulo file (the greedy construction, the memory bound, the Z3 problem and
 * the search read the plan, and the greedy construction and the search verify with it). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "modulo_plan.h"
#include "ts_search_ctx.h"

void ts_mplan_free(ts_mplan *mp)
{
    free(mp->off);
    free(mp->block);
    free(mp->coef);
    free(mp->before);
    free(mp->after);
    memset(mp, 0, sizeof *mp);
}

/* Distance-0 successor lists in CSR form. */
typedef struct {
    int *off, *to;
} ts_adj;

static int ts_adj_build(const ts_placement *p, ts_adj *a)
{
    int n = p->nblocks;
    a->off = calloc((size_t)n + 1, sizeof(int));
    a->to = malloc((size_t)(p->nedges ? p->nedges : 1) * sizeof(int));
    if (!a->off || !a->to)
        return -1;
    for (int i = 0; i < p->nedges; i++)
        if (p->edges[i].distance == 0)
            a->off[p->edges[i].src + 1]++;
    for (int b = 0; b < n; b++)
        a->off[b + 1] += a->off[b];
    int *fill = malloc((size_t)(n ? n : 1) * sizeof(int));
    if (!fill)
        return -1;
    memcpy(fill, a->off, (size_t)n * sizeof(int));
    for (int i = 0; i < p->nedges; i++)
        if (p->edges[i].distance == 0)
            a->to[fill[p->edges[i].src]++] = p->edges[i].dst;
    free(fill);
    return 0;
}

/* Marks in seen[] (stamp) every block reachable from src through distance-0 edges. */
static void ts_reach(const ts_adj *a, int src, int *seen, int stamp, int *stack)
{
    int top = 0;
    stack[top++] = src;
    seen[src] = stamp;
    while (top) {
        int b = stack[--top];
        for (int i = a->off[b]; i < a->off[b + 1]; i++) {
            int c = a->to[i];
            if (seen[c] != stamp) {
                seen[c] = stamp;
                stack[top++] = c;
            }
        }
    }
}

/* Max flow from positive to negative blocks of one device (Edmonds-Karp on a dense matrix).
 * Nodes: 0 source, 1..np positives, np+1..np+nn negatives, np+nn+1 sink. */
static int ts_pair_flow(int np, int nn, const long *supply, const long *demand, const char *reach,
                        long *flow_pn)
{
    int V = np + nn + 2, S = 0, T = V - 1;
    long *cap = calloc((size_t)V * (size_t)V, sizeof(long));
    int *prev = malloc((size_t)V * sizeof(int)), *queue = malloc((size_t)V * sizeof(int));
    if (!cap || !prev || !queue) {
        free(cap);
        free(prev);
        free(queue);
        return -1;
    }
    for (int i = 0; i < np; i++)
        cap[S * V + 1 + i] = supply[i];
    for (int j = 0; j < nn; j++)
        cap[(1 + np + j) * V + T] = demand[j];
    for (int i = 0; i < np; i++)
        for (int j = 0; j < nn; j++)
            if (reach[i * nn + j])
                cap[(1 + i) * V + 1 + np + j] = supply[i];
    long *orig = malloc((size_t)np * (size_t)(nn ? nn : 1) * sizeof(long));
    if (!orig) {
        free(cap);
        free(prev);
        free(queue);
        return -1;
    }
    for (int i = 0; i < np; i++)
        for (int j = 0; j < nn; j++)
            orig[i * nn + j] = cap[(1 + i) * V + 1 + np + j];
    for (;;) {
        for (int v = 0; v < V; v++)
            prev[v] = -1;
        int head = 0, tail = 0;
        queue[tail++] = S;
        prev[S] = S;
        while (head < tail && prev[T] < 0) {
            int u = queue[head++];
            for (int v = 0; v < V; v++)
                if (prev[v] < 0 && cap[u * V + v] > 0) {
                    prev[v] = u;
                    queue[tail++] = v;
                }
        }
        if (prev[T] < 0)
            break;
        long f = -1;
        for (int v = T; v != S; v = prev[v])
            if (f < 0 || cap[prev[v] * V + v] < f)
                f = cap[prev[v] * V + v];
        for (int v = T; v != S; v = prev[v]) {
            cap[prev[v] * V + v] -= f;
            cap[v * V + prev[v]] += f;
        }
    }
    for (int i = 0; i < np; i++)
        for (int j = 0; j < nn; j++) {
            long left = cap[(1 + i) * V + 1 + np + j];
            flow_pn[i * nn + j] = orig[i * nn + j] > left ? orig[i * nn + j] - left : 0;
        }
    free(orig);
    free(cap);
    free(prev);
    free(queue);
    return 0;
}

/* What ts_mplan_build's steps share. */
typedef struct {
    const ts_placement *p;
    ts_mplan *mp;
    int *order, *pos, *seen, *stack, *pl, *nl; /* chain order and position; scratch */
    ts_adj adj;
    int stamp, cap_ent, cap_forced;
} ts_mplan_state;

/* Appends the forced order t[after] >= t[before]. -1 on allocation failure. */
static int ts_mplan_force(ts_mplan_state *S, int before, int after)
{
    ts_mplan *mp = S->mp;
    if (mp->nforced == S->cap_forced) {
        S->cap_forced = S->cap_forced ? 2 * S->cap_forced : 8;
        int *nbf = realloc(mp->before, (size_t)S->cap_forced * sizeof(int));
        if (nbf)
            mp->before = nbf;
        int *naf = realloc(mp->after, (size_t)S->cap_forced * sizeof(int));
        if (naf)
            mp->after = naf;
        if (!nbf || !naf)
            return -1;
    }
    mp->before[mp->nforced] = before;
    mp->after[mp->nforced] = after;
    mp->nforced++;
    mp->exact = false;
    return 0;
}

/* After what the dependencies pair: forced pairs for the rest of each positive unit, in chain
 * order (frees later in the chain first, then any). A unit left over means the device gains
 * memory with every micro-batch. */
static int ts_mplan_force_rest(ts_mplan_state *S, int d, int np, int nn, long *left_s, long *left_d,
                               long *flow, ts_err *e)
{
    const ts_placement *p = S->p;
    const int *pl = S->pl, *nl = S->nl;
    for (int i = 0; i < np; i++) {
        for (int pass = 0; pass < 2 && left_s[i] > 0; pass++)
            for (int j = 0; j < nn && left_s[i] > 0; j++) {
                if (left_d[j] <= 0 || (pass == 0 && S->pos[nl[j]] < S->pos[pl[i]]))
                    continue;
                long f = left_s[i] < left_d[j] ? left_s[i] : left_d[j];
                flow[i * nn + j] += f;
                left_s[i] -= f;
                left_d[j] -= f;
                if (ts_mplan_force(S, pl[i], nl[j]))
                    return ts_fail(e, TS_ESYS, "out of memory");
            }
        if (left_s[i] > 0)
            return ts_fail(e, TS_ENOANSWER,
                           "placement '%s': device %d allocates %ld more memory units per "
                           "micro-batch than it frees (block '%s'), so no capacity holds for "
                           "every number of micro-batches",
                           p->name, d, left_s[i], p->blocks[pl[i]].id);
    }
    return TS_OK;
}

/* The entries of device d: every positive unit, and each free with what it was paired with. */
static int ts_mplan_entries(ts_mplan_state *S, int d, int np, int nn, const long *flow, ts_err *e)
{
    ts_mplan *mp = S->mp;
    int need = mp->off[d] + np + nn;
    if (need > S->cap_ent) {
        int nc = S->cap_ent ? S->cap_ent : 16;
        while (nc < need)
            nc *= 2;
        int *nbk = realloc(mp->block, (size_t)nc * sizeof(int));
        if (nbk)
            mp->block = nbk;
        long *ncf = realloc(mp->coef, (size_t)nc * sizeof(long));
        if (ncf)
            mp->coef = ncf;
        if (!nbk || !ncf)
            return ts_fail(e, TS_ESYS, "out of memory");
        S->cap_ent = nc;
    }
    int k = mp->off[d];
    for (int i = 0; i < np; i++) {
        mp->block[k] = S->pl[i];
        mp->coef[k++] = S->p->blocks[S->pl[i]].memory;
    }
    for (int j = 0; j < nn; j++) {
        long used = 0;
        for (int i = 0; i < np; i++)
            used += flow[i * nn + j];
        if (used) {
            mp->block[k] = S->nl[j];
            mp->coef[k++] = -used;
        }
    }
    mp->off[d + 1] = k;
    return TS_OK;
}

/* The plan of device d: its positive units (pl) and frees (nl) in chain order, paired through
 * dependencies by a flow, then by forced orders. */
static int ts_mplan_device(ts_mplan_state *S, int d, ts_err *e)
{
    const ts_placement *p = S->p;
    int np = 0, nn = 0, nb = p->nblocks, rc = TS_OK;
    for (int i = 0; i < nb; i++) {
        int b = S->order[i];
        if (!ts_block_on(&p->blocks[b], d) || p->blocks[b].memory == 0)
            continue;
        if (p->blocks[b].memory > 0)
            S->pl[np++] = b;
        else
            S->nl[nn++] = b;
    }
    S->mp->off[d + 1] = S->mp->off[d];
    if (!np && !nn)
        return TS_OK;
    /* The pairing flow is a dense np x nn matrix solved in O(np x V^2): refuse before building
     * it rather than take minutes and GBs (20,000 blocks on 8 devices: 1250 x 1250). */
    if ((long)np * nn > TS_MPLAN_MAX_PAIRS)
        return ts_fail(e, TS_EINPUT,
                       "placement too large for modulo: device %d has %d allocating x %d freeing "
                       "blocks = %ld pairs in its memory plan (cap %ld); try lazy or fast",
                       d, np, nn, (long)np * nn, TS_MPLAN_MAX_PAIRS);
    long *supply = malloc((size_t)(np ? np : 1) * sizeof(long));
    long *demand = malloc((size_t)(nn ? nn : 1) * sizeof(long));
    char *reach = calloc((size_t)(np ? np : 1) * (size_t)(nn ? nn : 1), 1);
    long *flow = calloc((size_t)(np ? np : 1) * (size_t)(nn ? nn : 1), sizeof(long));
    if (!supply || !demand || !reach || !flow) {
        rc = ts_fail(e, TS_ESYS, "out of memory");
        goto out;
    }
    for (int i = 0; i < np; i++) {
        supply[i] = p->blocks[S->pl[i]].memory;
        ts_reach(&S->adj, S->pl[i], S->seen, ++S->stamp, S->stack);
        for (int j = 0; j < nn; j++)
            reach[i * nn + j] = S->seen[S->nl[j]] == S->stamp;
    }
    for (int j = 0; j < nn; j++)
        demand[j] = -(long)p->blocks[S->nl[j]].memory;
    if (np && nn && ts_pair_flow(np, nn, supply, demand, reach, flow)) {
        rc = ts_fail(e, TS_ESYS, "out of memory");
        goto out;
    }
    /* What is left of each unit after the dependencies' pairing. */
    for (int i = 0; i < np; i++)
        for (int j = 0; j < nn; j++) {
            supply[i] -= flow[i * nn + j];
            demand[j] -= flow[i * nn + j];
        }
    rc = ts_mplan_force_rest(S, d, np, nn, supply, demand, flow, e);
    for (int j = 0; j < nn; j++)
        if (demand[j] > 0)
            S->mp->exact = false; /* dropped units: the bound is safe but not tight */
    if (rc == TS_OK)
        rc = ts_mplan_entries(S, d, np, nn, flow, e);
out:
    free(supply), free(demand), free(reach), free(flow);
    return rc;
}

int ts_mplan_build(const ts_placement *p, bool has_memory, ts_mplan *mp, ts_err *e)
{
    memset(mp, 0, sizeof *mp);
    int nd = p->ndevs, nb = p->nblocks;
    mp->ndevs = nd;
    mp->nblocks = nb;
    mp->exact = true;
    mp->off = calloc((size_t)nd + 1, sizeof(int));
    if (!mp->off)
        return ts_fail(e, TS_ESYS, "out of memory");
    if (!has_memory)
        return TS_OK;
    /* Position of each block in the chain order: the tie-break of forced pairings. */
    size_t sz = (size_t)(nb ? nb : 1);
    ts_mplan_state S = {p,
                        mp,
                        malloc(sz * sizeof(int)),
                        malloc(sz * sizeof(int)),
                        calloc(sz, sizeof(int)),
                        malloc(sz * sizeof(int)),
                        malloc(sz * sizeof(int)),
                        malloc(sz * sizeof(int)),
                        {0},
                        0,
                        0,
                        0};
    int rc = TS_OK;
    if (!S.order || !S.pos || !S.seen || !S.stack || !S.pl || !S.nl || ts_adj_build(p, &S.adj))
        rc = ts_fail(e, TS_ESYS, "out of memory");
    else if (ts_placement_chain_order(p, S.order))
        rc = ts_fail(e, TS_EINPUT, "placement '%s': dependencies form a cycle", p->name);
    for (int i = 0; rc == TS_OK && i < nb; i++)
        S.pos[S.order[i]] = i;
    for (int d = 0; rc == TS_OK && d < nd; d++)
        rc = ts_mplan_device(&S, d, e);
    free(S.order), free(S.pos), free(S.seen), free(S.stack), free(S.pl), free(S.nl);
    free(S.adj.off), free(S.adj.to);
    if (rc != TS_OK)
        ts_mplan_free(mp);
    return rc;
}

long ts_mplan_peak_on(const ts_mplan *mp, long P, const long *t, int d)
{
    long best = LONG_MIN;
    for (int i = mp->off[d]; i < mp->off[d + 1]; i++) {
        if (mp->coef[i] <= 0)
            continue;
        long a = t[mp->block[i]], sum = 0;
        for (int j = mp->off[d]; j < mp->off[d + 1]; j++)
            sum += mp->coef[j] * ts_mod_floordiv(a - t[mp->block[j]], P);
        if (sum > best)
            best = sum;
    }
    return best;
}

long ts_mplan_peak(const ts_mplan *mp, long P, const long *t, int *dev_out)
{
    long best = 0;
    int bd = -1;
    for (int d = 0; d < mp->ndevs; d++) {
        long v = ts_mplan_peak_on(mp, P, t, d);
        if (v != LONG_MIN && (bd < 0 || v > best)) {
            best = v;
            bd = d;
        }
    }
    if (dev_out)
        *dev_out = bd;
    return best;
}

/* True when the constraint graph t[dst] - t[src] >= span + delay - distance*P has a positive
 * cycle (Bellman-Ford on longest paths). */
static bool ts_positive_cycle(const ts_placement *p, long P, long *dist)
{
    int n = p->nblocks;
    for (int b = 0; b < n; b++)
        dist[b] = 0;
    for (int round = 0; round <= n; round++) {
        bool changed = false;
        for (int i = 0; i < p->nedges; i++) {
            const ts_edge *x = &p->edges[i];
            long w = p->blocks[x->src].span + (long)x->delay - (long)x->distance * P;
            if (dist[x->src] + w > dist[x->dst]) {
                dist[x->dst] = dist[x->src] + w;
                changed = true;
            }
        }
        if (!changed)
            return false;
    }
    return true;
}

long ts_modulo_recurrence_bound(const ts_placement *p)
{
    if (!ts_placement_has_distance_edges(p))
        return 1;
    long hi = 1;
    for (int b = 0; b < p->nblocks; b++)
        hi += p->blocks[b].span;
    for (int i = 0; i < p->nedges; i++)
        hi += p->edges[i].delay;
    long *dist = malloc((size_t)(p->nblocks ? p->nblocks : 1) * sizeof(long));
    if (!dist)
        return 1;
    long lo = 1; /* hi is always feasible: every cycle has distance >= 1 */
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (ts_positive_cycle(p, mid, dist))
            lo = mid + 1;
        else
            hi = mid;
    }
    free(dist);
    return lo;
}

typedef struct {
    long r;
    int span, block;
} ts_arc;

static int ts_cmp_arc(const void *a, const void *b)
{
    const ts_arc *x = a, *y = b;
    return (x->r > y->r) - (x->r < y->r);
}

int ts_modulo_verify(const ts_placement *p, const ts_mplan *mp, long P, const long *t,
                     const long *cap, ts_err *e)
{
    int nb = p->nblocks, nd = p->ndevs;
    /* Each device's arcs, gathered in one pass over the blocks' devices (scanning every block
     * for every device cost most of a construction at 128 devices). */
    long narcs = 0;
    for (int b = 0; b < nb; b++)
        narcs += p->blocks[b].ndevices;
    ts_arc *arcs = malloc((size_t)(narcs ? narcs : 1) * sizeof(ts_arc));
    int *off = calloc((size_t)nd + 1, sizeof(int)), *at = calloc((size_t)nd + 1, sizeof(int));
    if (!arcs || !off || !at) {
        free(arcs);
        free(off);
        free(at);
        return ts_fail(e, TS_ESYS, "out of memory");
    }
    for (int b = 0; b < nb; b++)
        for (int j = 0; j < p->blocks[b].ndevices; j++)
            off[p->blocks[b].devices[j] + 1]++;
    for (int d = 0; d < nd; d++)
        off[d + 1] += off[d];
    for (int b = 0; b < nb; b++)
        for (int j = 0; j < p->blocks[b].ndevices; j++) {
            int d = p->blocks[b].devices[j];
            arcs[off[d] + at[d]++] =
                (ts_arc){t[b] - ts_mod_floordiv(t[b], P) * P, p->blocks[b].span, b};
        }
    free(at);
    for (int d = 0; d < nd; d++) {
        ts_arc *row = arcs + off[d];
        int n = off[d + 1] - off[d];
        if (!n)
            continue;
        qsort(row, (size_t)n, sizeof *row, ts_cmp_arc);
        for (int i = 0; i < n; i++) {
            const ts_arc *x = &row[i], *y = &row[(i + 1) % n];
            long next = i + 1 < n ? y->r : y->r + P;
            if (x->r + x->span > next) {
                int rc = ts_fail(e, TS_ENOANSWER,
                                 "period %ld: blocks '%s' and '%s' overlap on device %d", P,
                                 p->blocks[x->block].id, p->blocks[y->block].id, d);
                free(arcs);
                free(off);
                return rc;
            }
        }
    }
    free(arcs);
    free(off);
    for (int i = 0; i < p->nedges; i++) {
        const ts_edge *x = &p->edges[i];
        if (t[x->dst] + (long)x->distance * P < t[x->src] + p->blocks[x->src].span + (long)x->delay)
            return ts_fail(e, TS_ENOANSWER, "period %ld: dependency '%s' -> '%s' violated", P,
                           p->blocks[x->src].id, p->blocks[x->dst].id);
    }
    for (int i = 0; i < mp->nforced; i++)
        if (t[mp->after[i]] < t[mp->before[i]])
            return ts_fail(e, TS_ENOANSWER, "period %ld: '%s' must free after '%s' allocates", P,
                           p->blocks[mp->after[i]].id, p->blocks[mp->before[i]].id);
    for (int d = 0; cap && d < mp->ndevs; d++) {
        long peak = ts_mplan_peak_on(mp, P, t, d);
        if (peak != LONG_MIN && peak > cap[d])
            return ts_fail(e, TS_ENOANSWER,
                           "period %ld: device %d holds %ld memory units, capacity %ld", P, d, peak,
                           cap[d]);
    }
    return TS_OK;
}
