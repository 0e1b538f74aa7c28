/* Instance sets: explicit (block, micro-batch) instances, their dependency arcs, the orders the
 * arcs force, simple bounds, a greedy serial list schedule that answers most memory questions
 * without calling Z3 (with the memory settings it reads), and the schedule of a set's starts. */
#include <stdlib.h>
#include <string.h>
#include "ts_caps.h"
#include "ts_iset.h"
#include "ts_search_ctx.h"

static long ts_lmax(long a, long b)
{
    return a > b ? a : b;
}

ts_schedule *ts_iset_schedule(const ts_iset *s, int n, const long *cap, const long *start)
{
    ts_schedule *sc = ts_schedule_new(s->p, n);
    if (!sc)
        return NULL;
    if (cap)
        ts_schedule_set_memory(sc, cap);
    for (int i = 0; i < s->n; i++)
        if (ts_schedule_add(sc, s->inst[i].block, s->inst[i].micro, start[i])) {
            ts_schedule_free(sc);
            return NULL;
        }
    ts_schedule_sort(sc);
    ts_schedule_normalize(sc);
    return sc;
}

bool ts_iset_prec(const ts_iset *s, int x, int y)
{
    return s->prec && (s->prec[(size_t)x * (size_t)s->words + (size_t)(y >> 6)] >> (y & 63)) & 1u;
}

void ts_iset_free(ts_iset *s)
{
    free(s->inst);
    free(s->arcs);
    free(s->doff);
    free(s->dlist);
    free(s->prec);
    free(s->est);
    free(s->tail);
    memset(s, 0, sizeof *s);
}

static int ts_iset_add_arc(ts_iset *s, int *cap, int x, int y, long lag)
{
    if (s->narcs == *cap) {
        int nc = *cap ? 2 * *cap : 64;
        ts_arc *a = realloc(s->arcs, (size_t)nc * sizeof *a);
        if (!a)
            return -1;
        s->arcs = a;
        *cap = nc;
    }
    s->arcs[s->narcs++] = (ts_arc){x, y, lag};
    return 0;
}

/* Topological order of the instances over the arcs; -1 when they form a cycle. */
static int ts_iset_topo(const ts_iset *s, const int *aoff, const int *aout, int *order)
{
    int n = s->n;
    int *indeg = calloc((size_t)n + 1, sizeof *indeg);
    if (!indeg)
        return -2;
    for (int a = 0; a < s->narcs; a++)
        indeg[s->arcs[a].y]++;
    int head = 0, tailq = 0;
    for (int x = 0; x < n; x++)
        if (!indeg[x])
            order[tailq++] = x;
    while (head < tailq) {
        int x = order[head++];
        for (int i = aoff[x]; i < aoff[x + 1]; i++) {
            int y = s->arcs[aout[i]].y;
            if (--indeg[y] == 0)
                order[tailq++] = y;
        }
    }
    free(indeg);
    return tailq == n ? 0 : -1;
}

/* The arcs: placement edges between instances of the set (delays, distances) and, with
 * monotone, (b, m) before (b, m') for m < m'. index maps (block, micro - minm) to an instance or
 * -1 (nm micro-batches per block). Each edge visits only its target block's instances (in index
 * order, as a scan of all would): O(instances + edges x nm), not O(instances x edges), which took
 * seconds per set at 8,192 blocks. -1 on allocation failure. */
static int ts_iset_arcs(ts_iset *s, const int *index, int nm, int minm, int maxm, bool monotone)
{
    const ts_placement *p = s->p;
    int n = s->n, acap = 0, nb = p->nblocks;
    int *boff = calloc((size_t)nb + 2, sizeof *boff),
        *blist = malloc((size_t)n * sizeof *blist + 1);
    if (!boff || !blist) {
        free(boff);
        free(blist);
        return -1;
    }
    for (int y = 0; y < n; y++)
        boff[s->inst[y].block + 2]++;
    for (int b = 0; b < nb; b++)
        boff[b + 2] += boff[b + 1];
    for (int y = 0; y < n; y++) /* boff[b + 1] runs ahead while filling */
        blist[boff[s->inst[y].block + 1]++] = y;
    int bad = 0;
    for (int ei = 0; ei < p->nedges && !bad; ei++) {
        const ts_edge *ed = &p->edges[ei];
        long lag = (long)p->blocks[ed->src].span + ed->delay;
        for (int j = boff[ed->dst]; j < boff[ed->dst + 1] && !bad; j++) {
            int y = blist[j];
            int m = s->inst[y].micro - ed->distance;
            if (m < minm || m > maxm)
                continue;
            int x = index[(size_t)ed->src * (size_t)nm + (size_t)(m - minm)];
            if (x >= 0 && ts_iset_add_arc(s, &acap, x, y, lag))
                bad = 1;
        }
    }
    free(boff);
    free(blist);
    if (bad)
        return -1;
    for (int b = 0; monotone && b < p->nblocks; b++) {
        int prev = -1;
        for (int m = 0; m < nm; m++) {
            int x = index[(size_t)b * (size_t)nm + (size_t)m];
            if (x < 0)
                continue;
            if (prev >= 0 && ts_iset_add_arc(s, &acap, prev, x, p->blocks[b].span))
                return -1;
            prev = x;
        }
    }
    return 0;
}

/* Pairs of instances that share a device (a pair on several shared devices once per device). */
static long ts_iset_pairs(const ts_placement *p, int n, const ts_inst *inst)
{
    long *per = calloc((size_t)p->ndevs + 1, sizeof *per), pairs = 0;
    if (!per)
        return 0;
    for (int x = 0; x < n; x++) {
        const ts_block *b = &p->blocks[inst[x].block];
        for (int i = 0; i < b->ndevices; i++)
            per[b->devices[i]]++;
    }
    for (int d = 0; d < p->ndevs; d++)
        pairs += per[d] * (per[d] - 1) / 2;
    free(per);
    return pairs;
}

/* Earliest starts forward, tails and forced orders backward (when kept), over the topological
 * order. */
static void ts_iset_bounds(ts_iset *s, const int *aoff, const int *aout, const int *order)
{
    const ts_placement *p = s->p;
    int n = s->n;
    for (int i = 0; i < n; i++) {
        int x = order[i];
        for (int j = aoff[x]; j < aoff[x + 1]; j++) {
            const ts_arc *a = &s->arcs[aout[j]];
            s->est[a->y] = ts_lmax(s->est[a->y], s->est[x] + a->lag);
        }
    }
    for (int i = n - 1; i >= 0; i--) {
        int x = order[i];
        long t = p->blocks[s->inst[x].block].span;
        uint64_t *row = s->prec ? s->prec + (size_t)x * (size_t)s->words : NULL;
        for (int j = aoff[x]; j < aoff[x + 1]; j++) {
            const ts_arc *a = &s->arcs[aout[j]];
            t = ts_lmax(t, a->lag + s->tail[a->y]);
            if (!row)
                continue;
            const uint64_t *ry = s->prec + (size_t)a->y * (size_t)s->words;
            for (int w = 0; w < s->words; w++)
                row[w] |= ry[w];
            row[a->y >> 6] |= (uint64_t)1 << (a->y & 63);
        }
        s->tail[x] = t;
    }
}

/* Instances per device (doff, dlist). -1 on allocation failure. */
static int ts_iset_devices(ts_iset *s)
{
    const ts_placement *p = s->p;
    int n = s->n, D = p->ndevs;
    for (int x = 0; x < n; x++) {
        const ts_block *b = &p->blocks[s->inst[x].block];
        for (int i = 0; i < b->ndevices; i++)
            s->doff[b->devices[i] + 1]++;
    }
    for (int d = 0; d < D; d++)
        s->doff[d + 1] += s->doff[d];
    s->dlist = malloc((size_t)s->doff[D] * sizeof *s->dlist + 1);
    int *fill = calloc((size_t)D + 1, sizeof *fill);
    if (!s->dlist || !fill) {
        free(fill);
        return -1;
    }
    for (int x = 0; x < n; x++) {
        const ts_block *b = &p->blocks[s->inst[x].block];
        for (int i = 0; i < b->ndevices; i++) {
            int d = b->devices[i];
            s->dlist[s->doff[d] + fill[d]++] = x;
        }
    }
    free(fill);
    return 0;
}

int ts_iset_build(const ts_placement *p, int n, const ts_inst *inst, bool monotone, ts_iset *s,
                  ts_err *e)
{
    memset(s, 0, sizeof *s);
    s->p = p;
    s->n = n;
    int nb = p->nblocks, D = p->ndevs;
    int minm = 0, maxm = 0;
    for (int x = 0; x < n; x++) {
        if (x == 0 || inst[x].micro < minm)
            minm = inst[x].micro;
        if (x == 0 || inst[x].micro > maxm)
            maxm = inst[x].micro;
    }
    int nm = n ? maxm - minm + 1 : 1;
    int *index = malloc((size_t)nb * (size_t)nm * sizeof *index + 1);
    int *aoff = NULL, *aout = NULL, *order = NULL;
    s->inst = malloc((size_t)n * sizeof *s->inst + 1);
    s->doff = calloc((size_t)D + 1, sizeof *s->doff);
    s->est = calloc((size_t)n + 1, sizeof *s->est);
    s->tail = calloc((size_t)n + 1, sizeof *s->tail);
    s->words = (n + 63) / 64;
    if (s->words == 0)
        s->words = 1;
    s->pairs = ts_iset_pairs(p, n, inst);
    /* Every pair of instances on a device costs a model at least one term, so above
     * TS_IMODEL_MAX_TERMS pairs no model of the set is ever built (ts_imodel_size, which every
     * caller checks first), and the orders are not needed: the n x n closure alone took 4.8 GB
     * and most of 20 s for full's greedy row on GPT-3 175B's zb placement at N 1024. */
    if (s->pairs <= TS_IMODEL_MAX_TERMS)
        s->prec = calloc((size_t)n * (size_t)s->words + 1, sizeof *s->prec);
    if (!index || !s->inst || !s->doff || !s->est || !s->tail ||
        (s->pairs <= TS_IMODEL_MAX_TERMS && !s->prec))
        goto oom;
    memcpy(s->inst, inst, (size_t)n * sizeof *inst);
    for (size_t i = 0; i < (size_t)nb * (size_t)nm; i++)
        index[i] = -1;
    for (int x = 0; x < n; x++)
        index[(size_t)inst[x].block * (size_t)nm + (size_t)(inst[x].micro - minm)] = x;

    if (ts_iset_arcs(s, index, nm, minm, maxm, monotone))
        goto oom;

    /* Outgoing arcs in CSR form. */
    aoff = calloc((size_t)n + 2, sizeof *aoff);
    aout = malloc((size_t)s->narcs * sizeof *aout + 1);
    order = malloc((size_t)n * sizeof *order + 1);
    if (!aoff || !aout || !order)
        goto oom;
    for (int a = 0; a < s->narcs; a++)
        aoff[s->arcs[a].x + 1]++;
    for (int x = 0; x < n; x++)
        aoff[x + 1] += aoff[x];
    {
        int *fill = calloc((size_t)n + 1, sizeof *fill);
        if (!fill)
            goto oom;
        for (int a = 0; a < s->narcs; a++) {
            int x = s->arcs[a].x;
            aout[aoff[x] + fill[x]++] = a;
        }
        free(fill);
    }
    int rc = ts_iset_topo(s, aoff, aout, order);
    if (rc == -2)
        goto oom;
    if (rc == -1) {
        ts_fail(e, TS_EINPUT, "solver: the dependencies between instances form a cycle");
        goto fail;
    }
    ts_iset_bounds(s, aoff, aout, order);
    if (ts_iset_devices(s))
        goto oom;
    free(index);
    free(aoff);
    free(aout);
    free(order);
    return TS_OK;
oom:
    ts_fail(e, TS_ESYS, "solver: out of memory building an instance set of %d instances", n);
fail:
    free(index);
    free(aoff);
    free(aout);
    free(order);
    ts_iset_free(s);
    return e ? e->code : TS_ESYS;
}

long ts_iset_lower_bound(const ts_iset *s)
{
    const ts_placement *p = s->p;
    long lb = 0;
    for (int x = 0; x < s->n; x++)
        lb = ts_lmax(lb, s->est[x] + s->tail[x]);
    for (int d = 0; d < p->ndevs; d++) {
        if (s->doff[d] == s->doff[d + 1])
            continue;
        long load = 0, head = -1, after = -1;
        for (int i = s->doff[d]; i < s->doff[d + 1]; i++) {
            int x = s->dlist[i];
            long span = p->blocks[s->inst[x].block].span;
            load += span;
            if (head < 0 || s->est[x] < head)
                head = s->est[x];
            if (after < 0 || s->tail[x] - span < after)
                after = s->tail[x] - span;
        }
        lb = ts_lmax(lb, head + load + after);
    }
    return lb;
}

ts_memspec ts_memspec_fill(const long *cap, int ndevs, const long *level, long *buf)
{
    if (!cap)
        return (ts_memspec){false, 0, level};
    long capmax = ts_caps_max(cap, ndevs);
    for (int d = 0; d < ndevs; d++)
        buf[d] = (level ? level[d] : 0) + capmax - cap[d];
    return (ts_memspec){true, capmax, buf};
}

/* The candidates of the list schedule: every instance whose predecessors are all placed, kept in
 * ascending index order (the order the selection breaks ties by), with each instance's outgoing
 * arcs indexed once. Both keep the greedy linear in the arcs and quadratic only in the width of
 * the ready set, not in the instance count. */
typedef struct {
    int *cand, ncand;
    int *off, *list; /* arcs leaving x: list[off[x] .. off[x+1]) */
} ts_greedy_ready;

static void ts_ready_insert(ts_greedy_ready *r, int x)
{
    int lo = 0, hi = r->ncand;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (r->cand[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    memmove(r->cand + lo + 1, r->cand + lo, (size_t)(r->ncand - lo) * sizeof *r->cand);
    r->cand[lo] = x;
    r->ncand++;
}

static int ts_ready_init(ts_greedy_ready *r, const ts_iset *s, const int *npred)
{
    int n = s->n;
    r->cand = malloc(((size_t)n + 1) * sizeof *r->cand);
    r->off = calloc((size_t)n + 2, sizeof *r->off);
    r->list = malloc(((size_t)s->narcs + 1) * sizeof *r->list);
    r->ncand = 0;
    if (!r->cand || !r->off || !r->list)
        return -1;
    for (int a = 0; a < s->narcs; a++)
        r->off[s->arcs[a].x + 1]++;
    for (int x = 0; x < n; x++)
        r->off[x + 1] += r->off[x];
    int *fill = malloc(((size_t)n + 1) * sizeof *fill);
    if (!fill)
        return -1;
    memcpy(fill, r->off, ((size_t)n + 1) * sizeof *fill);
    for (int a = 0; a < s->narcs; a++)
        r->list[fill[s->arcs[a].x]++] = a;
    free(fill);
    for (int x = 0; x < n; x++)
        if (!npred[x])
            r->cand[r->ncand++] = x;
    return 0;
}

static void ts_ready_free(ts_greedy_ready *r)
{
    free(r->cand);
    free(r->off);
    free(r->list);
}

/* Is instance x a better pick than best (placed at t and bt)? The priority rule prio decides. */
static bool ts_greedy_better(const ts_iset *s, int prio, int x, long t, int best, long bt)
{
    const ts_placement *p = s->p;
    const ts_block *b = &p->blocks[s->inst[x].block], *bb = &p->blocks[s->inst[best].block];
    if (prio == 1 && b->memory != bb->memory)
        return b->memory < bb->memory;
    if (t != bt)
        return t < bt;
    if (prio == 2 && s->tail[x] != s->tail[best])
        return s->tail[x] > s->tail[best]; /* critical path first */
    if ((b->memory < 0) != (bb->memory < 0))
        return b->memory < 0;
    if (s->inst[x].micro != s->inst[best].micro)
        return s->inst[x].micro < s->inst[best].micro;
    return false; /* keep the lower index: the caller's order */
}

/* The candidate to place next and its start, or -1 when none fits the memory. */
static int ts_greedy_pick(const ts_iset *s, const ts_memspec *m, int prio, const ts_greedy_ready *r,
                          const long *ready, const long *devfree, const long *lvl, long *bt)
{
    const ts_placement *p = s->p;
    int best = -1;
    for (int c = 0; c < r->ncand; c++) {
        int x = r->cand[c];
        const ts_block *b = &p->blocks[s->inst[x].block];
        bool fits = true;
        if (m && m->has_memory && b->memory > 0)
            for (int i = 0; i < b->ndevices; i++)
                if (lvl[b->devices[i]] + b->memory > m->cap)
                    fits = false;
        if (!fits)
            continue;
        long t = ready[x];
        for (int i = 0; i < b->ndevices; i++)
            t = ts_lmax(t, devfree[b->devices[i]]);
        if (best < 0 || ts_greedy_better(s, prio, x, t, best, *bt)) {
            best = x;
            *bt = t;
        }
    }
    return best;
}

int ts_iset_greedy(const ts_iset *s, const ts_memspec *m, int prio, long *start, long *steps)
{
    const ts_placement *p = s->p;
    int n = s->n, D = p->ndevs;
    int rc = -1;
    ts_greedy_ready r = {0};
    int *npred = calloc((size_t)n + 1, sizeof *npred);
    long *ready = calloc((size_t)n + 1, sizeof *ready);
    long *devfree = calloc((size_t)D + 1, sizeof *devfree);
    long *lvl = calloc((size_t)D + 1, sizeof *lvl);
    if (!npred || !ready || !devfree || !lvl)
        goto out;
    for (int d = 0; d < D; d++)
        lvl[d] = m && m->level ? m->level[d] : 0;
    for (int a = 0; a < s->narcs; a++)
        npred[s->arcs[a].y]++;
    if (ts_ready_init(&r, s, npred))
        goto out;
    long end = 0;
    for (int step = 0; step < n; step++) {
        long bt = 0;
        int best = ts_greedy_pick(s, m, prio, &r, ready, devfree, lvl, &bt);
        if (best < 0) {
            rc = 1;
            goto out;
        }
        const ts_block *b = &p->blocks[s->inst[best].block];
        start[best] = bt;
        for (int c = 0; c < r.ncand; c++)
            if (r.cand[c] == best) {
                memmove(r.cand + c, r.cand + c + 1, (size_t)(r.ncand - c - 1) * sizeof *r.cand);
                r.ncand--;
                break;
            }
        for (int i = 0; i < b->ndevices; i++) {
            devfree[b->devices[i]] = bt + b->span;
            lvl[b->devices[i]] += b->memory;
        }
        end = ts_lmax(end, bt + b->span);
        for (int k = r.off[best]; k < r.off[best + 1]; k++) {
            const ts_arc *a = &s->arcs[r.list[k]];
            ready[a->y] = ts_lmax(ready[a->y], bt + a->lag);
            if (--npred[a->y] == 0)
                ts_ready_insert(&r, a->y);
        }
    }
    *steps = end;
    rc = 0;
out:
    ts_ready_free(&r);
    free(npred);
    free(ready);
    free(devfree);
    free(lvl);
    return rc;
}

int ts_iset_greedy_best(const ts_iset *s, const ts_memspec *m, long *start, long *steps)
{
    long *tmp = malloc((size_t)s->n * sizeof *tmp + 1);
    if (!tmp)
        return -1;
    static const int prios[] = {2, 0, 1};
    int found = 1;
    long lb = ts_iset_lower_bound(s);
    for (int i = 0; i < 3; i++) {
        long st;
        int r = ts_iset_greedy(s, m, prios[i], tmp, &st);
        if (r < 0) {
            free(tmp);
            return -1;
        }
        if (r == 0 && (found || st < *steps)) {
            *steps = st;
            memcpy(start, tmp, (size_t)s->n * sizeof *tmp);
            found = 0;
            if (st <= lb)
                break;
        }
    }
    free(tmp);
    return found;
}
