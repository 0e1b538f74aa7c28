/* The large-neighbourhood search at N: a window of the incumbent's instances is freed and solved
 * exactly with Z3 (the instance model of imodel.c) while every other instance keeps its place in
 * its device's order; the result is kept when the makespan falls.
 *
 * A window is a run of entries [a, b) in start order, cut between steps: the prefix (entries
 * before a) starts earlier and the suffix (from b) later. The composed schedule runs, on every
 * device, the prefix, then the window in the order the solver chose, then the suffix, each part
 * in its own order, and is replayed as early as those orders allow (ts_schedule_tighten). That is
 * always a valid schedule when the window's starts are:
 *  - exclusivity and dependencies hold in the window (the model), after every prefix instance
 *    that shares a device or feeds it (its release), and before the suffix (the suffix comes
 *    after in every device order, and no suffix instance feeds the window: it starts later);
 *  - memory, taken in start order on each device, is the prefix's running sum, then the window's
 *    from the level the prefix leaves (the model checks it at each positive start), then the
 *    suffix's from the level prefix and window leave, which is what it was (the same instances).
 * Its makespan after the replay is the longest path through the fixed orders. A path that enters
 * the suffix from window instance x adds what follows x there: q_x, the longest path from x's
 * end through the suffix's orders and edges to the end (computed backwards over the suffix, whose
 * arcs all go forward in start order). So the model asks t_x + q_x <= H (q raises the instance
 * set's tails), and a path that never touches the window is a constant of the fixed part (lo):
 * the replayed makespan is at most max(H, lo), and a window with lo >= the incumbent cannot help.
 *
 * Effort: Z3's resource units on the caller's meter (ts_z3_check), plus TS_LNS_SCAN_EFFORT per
 * entry scanned and a unit per model term built, so that the same request stops at the same
 * place on every machine. */
#include <stdlib.h>
#include <string.h>
#include "ts_imodel.h"
#include "ts_iset.h"
#include "ts_lns.h"
#include "ts_search_ctx.h"
#include "ts_z3.h"

/* Window sizes in instances, tried in this order: a pass at one size runs until it keeps
 * nothing, then the next size. */
static const int ts_lns_sizes[] = {16, 32, 64, 128};

static long ts_lns_max(long a, long b)
{
    return a > b ? a : b;
}

/* The placement's edges by source and by target block: edge indices out[out_off[b] ..
 * out_off[b + 1]) leave b, in[in_off[b] .. in_off[b + 1]) enter it. */
typedef struct {
    int *out_off, *out, *in_off, *in;
} ts_lns_edges;

static void ts_lns_edges_free(ts_lns_edges *g)
{
    free(g->out_off);
    free(g->out);
    free(g->in_off);
    free(g->in);
}

static int ts_lns_edges_build(const ts_placement *p, ts_lns_edges *g)
{
    int nb = p->nblocks, ne = p->nedges;
    g->out_off = calloc((size_t)nb + 2, sizeof *g->out_off);
    g->in_off = calloc((size_t)nb + 2, sizeof *g->in_off);
    g->out = malloc((size_t)ne * sizeof *g->out + 1);
    g->in = malloc((size_t)ne * sizeof *g->in + 1);
    if (!g->out_off || !g->in_off || !g->out || !g->in)
        return -1;
    for (int i = 0; i < ne; i++) {
        g->out_off[p->edges[i].src + 2]++;
        g->in_off[p->edges[i].dst + 2]++;
    }
    for (int b = 0; b < nb; b++) {
        g->out_off[b + 2] += g->out_off[b + 1];
        g->in_off[b + 2] += g->in_off[b + 1];
    }
    /* the offsets at b + 1 run ahead while filling and end where b + 1's list begins */
    for (int i = 0; i < ne; i++) {
        g->out[g->out_off[p->edges[i].src + 1]++] = i;
        g->in[g->in_off[p->edges[i].dst + 1]++] = i;
    }
    return 0;
}

/* The entry of (block, micro) in sc, -1 when there is none. */
static int ts_lns_entry(const ts_schedule *sc, const int *index, int block, int micro)
{
    if (micro < 0 || micro >= sc->nmicros)
        return -1;
    return index[(size_t)block * (size_t)sc->nmicros + (size_t)micro];
}

/* What the fixed part of one window says: per entry from a on, len[y] (for the suffix: the
 * longest path from y's start to the end through the suffix; for the window: q_y) and rel[y]
 * (the release the prefix gives: its devices' last prefix end and every prefix input's end plus
 * its lag); per device, the memory level the prefix leaves; and lo, the makespan of the paths
 * that never touch the window. Scratch: nxt and dend, ndevs each. */
typedef struct {
    long *len, *rel, *level, *nxt, *dend;
    long lo;
} ts_lns_fixed;

static void ts_lns_backward(const ts_schedule *sc, const ts_lns_edges *g, const int *index, int a,
                            int b, ts_lns_fixed *f)
{
    const ts_placement *p = sc->placement;
    for (int d = 0; d < p->ndevs; d++)
        f->nxt[d] = -1;
    for (int y = sc->nentries - 1; y >= a; y--) {
        const ts_entry *en = &sc->entries[y];
        const ts_block *bk = &p->blocks[en->block];
        long t = bk->span;
        for (int i = g->out_off[en->block]; i < g->out_off[en->block + 1]; i++) {
            const ts_edge *ed = &p->edges[g->out[i]];
            int z = ts_lns_entry(sc, index, ed->dst, en->micro + ed->distance);
            if (z >= b)
                t = ts_lns_max(t, bk->span + ed->delay + f->len[z]);
        }
        for (int i = 0; i < bk->ndevices; i++) {
            long z = f->nxt[bk->devices[i]];
            if (z >= 0)
                t = ts_lns_max(t, bk->span + f->len[z]);
        }
        f->len[y] = t;
        /* a window entry is not a suffix entry: nxt stays at each device's first suffix entry */
        for (int i = 0; y >= b && i < bk->ndevices; i++)
            f->nxt[bk->devices[i]] = y;
    }
}

static void ts_lns_forward(const ts_schedule *sc, const ts_lns_edges *g, const int *index, int a,
                           int b, ts_lns_fixed *f)
{
    const ts_placement *p = sc->placement;
    for (int d = 0; d < p->ndevs; d++)
        f->dend[d] = f->level[d] = 0;
    f->lo = 0;
    for (int x = 0; x < a; x++) {
        const ts_block *bk = &p->blocks[sc->entries[x].block];
        long end = sc->entries[x].step + bk->span;
        for (int i = 0; i < bk->ndevices; i++) {
            f->dend[bk->devices[i]] = ts_lns_max(f->dend[bk->devices[i]], end);
            f->level[bk->devices[i]] += bk->memory;
        }
        f->lo = ts_lns_max(f->lo, end);
    }
    for (int y = a; y < sc->nentries; y++) {
        const ts_entry *en = &sc->entries[y];
        const ts_block *bk = &p->blocks[en->block];
        long r = 0;
        for (int i = 0; i < bk->ndevices; i++)
            r = ts_lns_max(r, f->dend[bk->devices[i]]);
        for (int i = g->in_off[en->block]; i < g->in_off[en->block + 1]; i++) {
            const ts_edge *ed = &p->edges[g->in[i]];
            int z = ts_lns_entry(sc, index, ed->src, en->micro - ed->distance);
            if (z >= 0 && z < a)
                r = ts_lns_max(r, sc->entries[z].step + p->blocks[ed->src].span + ed->delay);
        }
        f->rel[y] = r;
        if (y >= b)
            f->lo = ts_lns_max(f->lo, r + f->len[y]);
    }
    (void)b;
}

/* The window's instance set: releases raised into est and carried forward along the arcs, the
 * suffix's q raised into tail and carried backward (both over a DAG: at most n rounds). */
static void ts_lns_raise(ts_iset *s, const ts_lns_fixed *f, int a)
{
    for (int x = 0; x < s->n; x++) {
        s->est[x] = ts_lns_max(s->est[x], f->rel[a + x]);
        s->tail[x] = ts_lns_max(s->tail[x], f->len[a + x]);
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (int i = 0; i < s->narcs; i++) {
            const ts_arc *c = &s->arcs[i];
            if (s->est[c->x] + c->lag > s->est[c->y]) {
                s->est[c->y] = s->est[c->x] + c->lag;
                changed = true;
            }
            if (c->lag + s->tail[c->y] > s->tail[c->x]) {
                s->tail[c->x] = c->lag + s->tail[c->y];
                changed = true;
            }
        }
    }
}

/* sc with the window's entries at start, the suffix moved past them (hi: later than any window
 * end) and everything replayed in those device orders; validated. NULL when any step fails. */
static ts_schedule *ts_lns_compose(const ts_schedule *sc, int a, int b, const long *start, long hi,
                                   long *mk)
{
    ts_schedule *out = ts_schedule_clone(sc);
    ts_err e = {0};
    ts_validate_opts vo = {0};
    ts_metrics m;
    if (!out)
        return NULL;
    for (int x = a; x < sc->nentries; x++)
        out->entries[x].step = x < b ? start[x - a] : sc->entries[x].step + hi;
    ts_schedule_clear_repetend(out);
    if (ts_schedule_tighten(out, &e) != TS_OK || ts_schedule_validate(out, &vo, &e) != TS_OK ||
        ts_schedule_metrics(out, &m)) {
        ts_schedule_free(out);
        return NULL;
    }
    *mk = m.makespan;
    ts_metrics_free(&m);
    ts_schedule_sort(out);
    ts_schedule_normalize(out);
    return out;
}

/* The bounded search on the window's model: below the incumbent first, then bisection down to
 * lo; every answer composed and replayed (its makespan is the next bound). */
static int ts_lns_search(ts_imodel *m, const ts_schedule *sc, int a, int b, long lo, long hi,
                         const ts_lns_opts *o, long *start, ts_schedule **better, long *mk,
                         ts_err *e)
{
    ts_z3 *z = &m->z;
    ts_budget wb;
    double left = ts_budget_left(o->budget), cap = o->window_cap < left ? o->window_cap : left;
    /* a budget of 0 seconds has no deadline at all: with nothing left, nothing is asked */
    if (cap <= 0)
        return TS_OK;
    ts_budget_init(&wb, o->budget->m, cap);
    wb.cancel = o->budget->cancel;
    long best = hi;
    for (bool first = true; lo < best && !ts_budget_over(&wb); first = false) {
        long v = first ? best - 1 : lo + (best - 1 - lo) / 2;
        Z3_ast lit = ts_z3_bound_lit(z, &m->hb, v);
        if (!lit)
            return ts_fail(e, TS_ESYS, "solver: out of memory");
        Z3_lbool res = ts_z3_check(z, 1, &lit, &wb, 0);
        if (res == Z3_L_UNDEF)
            break;
        if (res == Z3_L_FALSE) {
            lo = v + 1;
            continue;
        }
        Z3_model mdl = ts_z3_model(z);
        for (int x = 0; x < m->s->n; x++)
            start[x] = ts_z3_value(z, mdl, m->t[x]);
        ts_z3_model_free(z, mdl);
        long got = 0;
        ts_meter_spend(o->budget->m, (double)sc->nentries * TS_LNS_SCAN_EFFORT);
        ts_schedule *c = ts_lns_compose(sc, a, b, start, hi, &got);
        /* the replay is never longer than the model's bound (file comment); should it be, the
         * window's answer is dropped rather than trusted */
        if (!c || got >= best) {
            ts_schedule_free(c);
            break;
        }
        ts_schedule_free(*better);
        *better = c;
        *mk = best = got;
    }
    return ts_z3_error(z, "the large-neighbourhood search", e);
}

/* One window on a fixed part already bounded (f), with the placement's edge lists. */
static int ts_lns_solve(const ts_schedule *sc, int a, int b, const ts_lns_opts *o,
                        const ts_lns_fixed *f, long hi, ts_schedule **better, long *mk,
                        ts_lns_stats *st, ts_err *e)
{
    const ts_placement *p = sc->placement;
    int k = b - a;
    ts_inst *inst = malloc((size_t)k * sizeof *inst + 1);
    long *start = malloc((size_t)k * sizeof *start + 1);
    long *buf = malloc((size_t)p->ndevs * sizeof *buf + 1);
    ts_iset s = {0};
    int rc = TS_OK;
    if (!inst || !start || !buf) {
        rc = ts_fail(e, TS_ESYS, "solver: out of memory");
        goto out;
    }
    for (int x = 0; x < k; x++)
        inst[x] = (ts_inst){sc->entries[a + x].block, sc->entries[a + x].micro};
    if ((rc = ts_iset_build(p, k, inst, false, &s, e)))
        goto out;
    ts_lns_raise(&s, f, a);
    long terms = ts_imodel_size(&s);
    if (terms > TS_LNS_MAX_TERMS)
        goto out;
    ts_meter_spend(o->budget->m, (double)terms);
    ts_memspec ms = ts_memspec_fill(o->cap, p->ndevs, f->level, buf);
    ts_imodel m;
    if ((rc = ts_imodel_build(&m, &s, &ms, true, e)))
        goto out;
    if (st)
        st->solved++;
    long lo = ts_lns_max(o->lo, f->lo);
    rc = ts_lns_search(&m, sc, a, b, lo, hi, o, start, better, mk, e);
    ts_imodel_free(&m);
out:
    ts_iset_free(&s);
    free(inst);
    free(start);
    free(buf);
    return rc;
}

/* The makespan of a schedule whose first step is 0. */
static long ts_lns_makespan(const ts_schedule *sc)
{
    long first, last;
    ts_schedule_span(sc, &first, &last);
    return last - first;
}

/* ts_lns_window with the stats counted (st may be NULL). */
static int ts_lns_window_st(const ts_schedule *sc, int a, int count, const ts_lns_opts *o,
                            ts_schedule **better, long *mk, ts_lns_stats *st, ts_err *e)
{
    const ts_placement *p = sc->placement;
    int n = sc->nentries, b = a + count;
    *better = NULL;
    *mk = ts_lns_makespan(sc);
    /* a window must cut between steps, and leave something to reorder */
    if (a < 0 || count < 2 || b > n || (a > 0 && sc->entries[a].step == sc->entries[a - 1].step) ||
        (b < n && b > 0 && sc->entries[b].step == sc->entries[b - 1].step))
        return TS_OK;
    ts_lns_edges g = {0};
    ts_lns_fixed f = {0};
    int *index = ts_schedule_index(sc), rc = TS_OK;
    f.len = malloc((size_t)n * sizeof *f.len + 1);
    f.rel = malloc((size_t)n * sizeof *f.rel + 1);
    f.level = malloc((size_t)p->ndevs * sizeof *f.level + 1);
    f.nxt = malloc((size_t)p->ndevs * sizeof *f.nxt + 1);
    f.dend = malloc((size_t)p->ndevs * sizeof *f.dend + 1);
    if (!index || !f.len || !f.rel || !f.level || !f.nxt || !f.dend || ts_lns_edges_build(p, &g)) {
        rc = ts_fail(e, TS_ESYS, "solver: out of memory");
        goto out;
    }
    ts_meter_spend(o->budget->m, (double)n * TS_LNS_SCAN_EFFORT);
    ts_lns_backward(sc, &g, index, a, b, &f);
    ts_lns_forward(sc, &g, index, a, b, &f);
    long hi = *mk;
    if (ts_lns_max(f.lo, o->lo) >= hi) {
        if (st)
            st->ruled_out++;
        goto out;
    }
    rc = ts_lns_solve(sc, a, b, o, &f, hi, better, mk, st, e);
out:
    ts_lns_edges_free(&g);
    free(index);
    free(f.len);
    free(f.rel);
    free(f.level);
    free(f.nxt);
    free(f.dend);
    return rc;
}

int ts_lns_window(const ts_schedule *sc, int first, int count, const ts_lns_opts *o,
                  ts_schedule **better, long *mk, ts_err *e)
{
    return ts_lns_window_st(sc, first, count, o, better, mk, NULL, e);
}

/* The first entry at or after i that starts a step (n when none). */
static int ts_lns_cut(const ts_schedule *sc, int i)
{
    int n = sc->nentries;
    if (i <= 0)
        return 0;
    while (i < n && sc->entries[i].step == sc->entries[i - 1].step)
        i++;
    return i < n ? i : n;
}

/* Idle device time inside entries [a, b): the devices times the steps they cover, less the
 * busy time of the instances there. */
static long ts_lns_idle(const ts_schedule *sc, int a, int b)
{
    const ts_placement *p = sc->placement;
    long end = 0, busy = 0;
    for (int x = a; x < b; x++) {
        const ts_block *bk = &p->blocks[sc->entries[x].block];
        end = ts_lns_max(end, sc->entries[x].step + bk->span);
        busy += bk->span * bk->ndevices;
    }
    return (long)p->ndevs * (end - sc->entries[a].step) - busy;
}

/* The windows of one pass at size k, as first entries (cut between steps) in the order they are
 * tried: the fill, the drain, then windows overlapping by half, the idlest first (ties: the
 * earlier). Returns the count; *out is owned by the caller (NULL on allocation failure). */
static int ts_lns_plan(const ts_schedule *sc, int k, int **out)
{
    int n = sc->nentries, cap = n / (k / 2 > 0 ? k / 2 : 1) + 3, nw = 0;
    int *w = malloc((size_t)cap * sizeof *w);
    long *idle = malloc((size_t)cap * sizeof *idle);
    *out = NULL;
    if (!w || !idle) {
        free(w);
        free(idle);
        return 0;
    }
    w[nw] = 0;
    idle[nw++] = -1;
    int drain = ts_lns_cut(sc, n - k);
    if (drain > 0 && drain < n) {
        w[nw] = drain;
        idle[nw++] = -1;
    }
    for (int s = k / 2; s < n - k && nw < cap; s += k / 2) {
        int a = ts_lns_cut(sc, s);
        if (a >= n || a == drain || (nw > 0 && a == w[nw - 1]))
            continue;
        w[nw] = a;
        idle[nw++] = ts_lns_idle(sc, a, ts_lns_cut(sc, a + k));
    }
    /* insertion sort of the middle windows, idlest first, stable */
    int fixed = drain > 0 && drain < n ? 2 : 1;
    for (int i = fixed + 1; i < nw; i++)
        for (int j = i; j > fixed && idle[j] > idle[j - 1]; j--) {
            int t = w[j];
            w[j] = w[j - 1];
            w[j - 1] = t;
            long u = idle[j];
            idle[j] = idle[j - 1];
            idle[j - 1] = u;
        }
    free(idle);
    *out = w;
    return nw;
}

/* One pass at size k over the windows ts_lns_plan gives: each kept when it shortens *cur. Returns
 * TS_OK; *gained: something was kept. */
static int ts_lns_pass(ts_schedule **cur, long *mk, int k, const ts_lns_opts *o, ts_lns_stats *st,
                       bool *gained, ts_err *e)
{
    int *w = NULL, nw = ts_lns_plan(*cur, k, &w), rc = TS_OK;
    *gained = false;
    if (!w)
        return ts_fail(e, TS_ESYS, "solver: out of memory");
    for (int i = 0; i<nw && * mk> o->lo && rc == TS_OK; i++) {
        if (ts_budget_over(o->budget))
            break;
        int a = ts_lns_cut(*cur, w[i]), b = ts_lns_cut(*cur, a + k);
        ts_schedule *better = NULL;
        long bm = *mk;
        rc = ts_lns_window_st(*cur, a, b - a, o, &better, &bm, st, e);
        if (rc == TS_OK && better && bm < *mk) {
            ts_schedule_free(*cur);
            *cur = better;
            *mk = bm;
            st->kept++;
            *gained = true;
        } else {
            ts_schedule_free(better);
        }
    }
    free(w);
    return rc;
}

int ts_lns(const ts_schedule *in, const ts_lns_opts *o, ts_schedule **out, ts_lns_stats *st,
           ts_err *e)
{
    *out = NULL;
    memset(st, 0, sizeof *st);
    ts_schedule *cur = ts_schedule_clone(in);
    ts_err te = {0};
    if (!cur)
        return ts_fail(e, TS_ESYS, "solver: out of memory");
    ts_schedule_clear_repetend(cur);
    ts_schedule *t = ts_schedule_clone(cur);
    /* the seed as early as its orders allow, so that the prefix of every window is too */
    if (t && ts_schedule_tighten(t, &te) == TS_OK) {
        ts_schedule_free(cur);
        cur = t;
    } else {
        ts_schedule_free(t);
    }
    ts_schedule_sort(cur);
    ts_schedule_normalize(cur);
    long mk = ts_lns_makespan(cur);
    st->before = st->after = mk;
    long seed = ts_lns_makespan(in);
    int rc = TS_OK;
    size_t nsizes = sizeof ts_lns_sizes / sizeof ts_lns_sizes[0];
    for (size_t i = 0; i < nsizes && mk > o->lo && rc == TS_OK;) {
        if (ts_budget_over(o->budget))
            break;
        bool gained = false;
        rc = ts_lns_pass(&cur, &mk, ts_lns_sizes[i], o, st, &gained, e);
        if (!gained)
            i++;
    }
    st->after = mk;
    if (rc == TS_OK && mk < seed)
        *out = cur;
    else
        ts_schedule_free(cur);
    return rc;
}
