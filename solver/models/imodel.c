/* Z3 model of an instance set and its bounded minimisation (steps or memory capacity). */
#include <stdlib.h>
#include <string.h>
#include "ts_imodel.h"
#include "ts_iset.h"
#include "ts_search_ctx.h"
#include "ts_z3.h"

/* Order literals of the pairs that share a device and whose order is not forced, keyed by
 * (x, y) with x < y: true means x runs before y. Open addressing; the table lives only while the
 * model is built. */
typedef struct {
    size_t cap;
    uint64_t *keys;
    Z3_ast *vals;
} ts_pairmap;

static uint64_t ts_pair_key(int x, int y)
{
    return ((uint64_t)(uint32_t)x << 32) | (uint32_t)y;
}

static size_t ts_pair_hash(uint64_t k, size_t cap)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return (size_t)(k & (cap - 1));
}

static int ts_pairmap_init(ts_pairmap *m, size_t want)
{
    m->cap = 16;
    while (m->cap < 2 * want + 16)
        m->cap *= 2;
    m->keys = malloc(m->cap * sizeof *m->keys);
    m->vals = calloc(m->cap, sizeof *m->vals);
    if (!m->keys || !m->vals)
        return -1;
    memset(m->keys, 0xff, m->cap * sizeof *m->keys);
    return 0;
}

static Z3_ast *ts_pairmap_slot(ts_pairmap *m, int x, int y)
{
    uint64_t k = ts_pair_key(x, y);
    size_t i = ts_pair_hash(k, m->cap);
    while (m->keys[i] != UINT64_MAX && m->keys[i] != k)
        i = (i + 1) & (m->cap - 1);
    if (m->keys[i] == UINT64_MAX)
        m->keys[i] = k;
    return &m->vals[i];
}

static void ts_pairmap_free(ts_pairmap *m)
{
    free(m->keys);
    free(m->vals);
}

/* The first device two blocks share, or -1. */
static int ts_first_shared(const ts_block *a, const ts_block *b)
{
    int i = 0, j = 0;
    while (i < a->ndevices && j < b->ndevices) {
        if (a->devices[i] == b->devices[j])
            return a->devices[i];
        if (a->devices[i] < b->devices[j])
            i++;
        else
            j++;
    }
    return -1;
}

long ts_imodel_size(const ts_iset *s)
{
    /* without the orders every pair counts one term: already above every cap */
    if (!s->prec)
        return s->pairs;
    long terms = 0;
    for (int d = 0; d < s->p->ndevs; d++)
        for (int i = s->doff[d]; i < s->doff[d + 1]; i++)
            for (int j = i + 1; j < s->doff[d + 1]; j++) {
                int x = s->dlist[i], y = s->dlist[j];
                /* a free pair: its literal, two implications, two load terms, memory terms */
                terms += ts_iset_prec(s, x, y) || ts_iset_prec(s, y, x) ? 1 : 6;
            }
    return terms;
}

void ts_imodel_free(ts_imodel *m)
{
    ts_z3_bound_free(&m->hb);
    ts_z3_bound_free(&m->cb);
    free(m->t);
    ts_z3_close(&m->z);
    memset(m, 0, sizeof *m);
}

/* Exclusivity: one literal per free pair, created on the first device the pair shares. */
static void ts_imodel_exclusive(ts_imodel *m, ts_pairmap *pm)
{
    const ts_iset *s = m->s;
    const ts_placement *p = s->p;
    ts_z3 *z = &m->z;
    for (int d = 0; d < p->ndevs; d++) {
        for (int i = s->doff[d]; i < s->doff[d + 1]; i++) {
            for (int j = i + 1; j < s->doff[d + 1]; j++) {
                int x = s->dlist[i], y = s->dlist[j];
                if (x > y) {
                    int t = x;
                    x = y;
                    y = t;
                }
                if (ts_iset_prec(s, x, y) || ts_iset_prec(s, y, x))
                    continue;
                const ts_block *bx = &p->blocks[s->inst[x].block];
                const ts_block *by = &p->blocks[s->inst[y].block];
                if (ts_first_shared(bx, by) != d)
                    continue;
                Z3_ast o = ts_z3_bool_var(z, "o");
                *ts_pairmap_slot(pm, x, y) = o;
                ts_z3_assert(z, ts_z3_implies(z, o, ts_z3_diff(z, m->t[x], bx->span, m->t[y])));
                ts_z3_assert(z, ts_z3_implies(z, ts_z3_not(z, o),
                                              ts_z3_diff(z, m->t[y], by->span, m->t[x])));
            }
        }
    }
}

/* Redundant load constraints that let the solver count a device's work instead of discovering
 * it pair by pair: everything before x on a device runs between the device's earliest start and
 * t[x]; everything after x runs between x's end and H. bef and aft have room for n + 2 terms. */
static void ts_imodel_loads(ts_imodel *m, ts_pairmap *pm, Z3_ast *bef, Z3_ast *aft)
{
    const ts_iset *s = m->s;
    const ts_placement *p = s->p;
    ts_z3 *z = &m->z;
    Z3_ast zero = ts_z3_num(z, 0);
    for (int d = 0; d < p->ndevs; d++) {
        long head = -1;
        for (int i = s->doff[d]; i < s->doff[d + 1]; i++)
            if (head < 0 || s->est[s->dlist[i]] < head)
                head = s->est[s->dlist[i]];
        for (int i = s->doff[d]; i < s->doff[d + 1]; i++) {
            int x = s->dlist[i];
            long cb = head, ca = p->blocks[s->inst[x].block].span;
            int nb = 0, na = 0;
            for (int j = s->doff[d]; j < s->doff[d + 1]; j++) {
                int y = s->dlist[j];
                if (y == x)
                    continue;
                long sp = p->blocks[s->inst[y].block].span;
                if (ts_iset_prec(s, y, x)) {
                    cb += sp;
                    continue;
                }
                if (ts_iset_prec(s, x, y)) {
                    ca += sp;
                    continue;
                }
                Z3_ast o = *ts_pairmap_slot(pm, x < y ? x : y, x < y ? y : x);
                Z3_ast v = ts_z3_num(z, sp);
                /* o(x,y) true: x before y */
                Z3_ast first = Z3_mk_ite(z->ctx, o, v, zero); /* counts when o holds */
                Z3_ast second = Z3_mk_ite(z->ctx, o, zero, v); /* counts when it fails */
                bef[nb++] = y < x ? first : second;
                aft[na++] = y < x ? second : first;
            }
            bef[nb++] = ts_z3_num(z, cb);
            aft[na++] = ts_z3_num(z, ca);
            ts_z3_assert(z, ts_z3_le(z, ts_z3_add(z, nb, bef), m->t[x]));
            ts_z3_assert(z, ts_z3_le(z, ts_z3_add2(z, m->t[x], ts_z3_add(z, na, aft)), m->H));
        }
    }
}

/* Memory: at each positive instance's start, level + everything started no later <= C. terms
 * has room for n + 1 terms. */
static void ts_imodel_memory(ts_imodel *m, ts_pairmap *pm, const ts_memspec *ms, Z3_ast *terms)
{
    const ts_iset *s = m->s;
    const ts_placement *p = s->p;
    ts_z3 *z = &m->z;
    Z3_ast zero = ts_z3_num(z, 0);
    for (int d = 0; d < p->ndevs; d++) {
        long level = ms->level ? ms->level[d] : 0;
        for (int i = s->doff[d]; i < s->doff[d + 1]; i++) {
            int x = s->dlist[i];
            const ts_block *bx = &p->blocks[s->inst[x].block];
            if (bx->memory <= 0)
                continue;
            long c = level + bx->memory;
            int nt = 0;
            for (int j = s->doff[d]; j < s->doff[d + 1]; j++) {
                int y = s->dlist[j];
                const ts_block *by = &p->blocks[s->inst[y].block];
                if (y == x || by->memory == 0)
                    continue;
                if (ts_iset_prec(s, y, x)) {
                    c += by->memory;
                    continue;
                }
                if (ts_iset_prec(s, x, y))
                    continue;
                Z3_ast o = *ts_pairmap_slot(pm, x < y ? x : y, x < y ? y : x);
                Z3_ast mem = ts_z3_num(z, by->memory);
                /* o(x,y) true: x before y, so y does not count. */
                terms[nt++] =
                    y < x ? Z3_mk_ite(z->ctx, o, mem, zero) : Z3_mk_ite(z->ctx, o, zero, mem);
            }
            terms[nt++] = ts_z3_num(z, c);
            ts_z3_assert(z, ts_z3_le(z, ts_z3_add(z, nt, terms), m->C));
        }
    }
}

void ts_imodel_starts(ts_imodel *m)
{
    const ts_iset *s = m->s;
    ts_z3 *z = &m->z;
    for (int x = 0; x < s->n; x++) {
        m->t[x] = ts_z3_int_var(z, "t");
        ts_z3_assert(z, ts_z3_gec(z, m->t[x], s->est[x]));
        /* tail >= span: everything after x must still fit before H */
        ts_z3_assert(z, ts_z3_diff(z, m->t[x], s->tail[x], m->H));
    }
    for (int a = 0; a < s->narcs; a++)
        ts_z3_assert(z, ts_z3_diff(z, m->t[s->arcs[a].x], s->arcs[a].lag, m->t[s->arcs[a].y]));
}

int ts_imodel_build(ts_imodel *m, const ts_iset *s, const ts_memspec *ms, bool fix_cap, ts_err *e)
{
    memset(m, 0, sizeof *m);
    const ts_placement *p = s->p;
    int n = s->n;
    if (ts_z3_open(&m->z, e))
        return e ? e->code : TS_ESYS;
    ts_z3 *z = &m->z;
    m->s = s;
    m->t = malloc((size_t)n * sizeof *m->t + 1);
    ts_pairmap pm = {0};
    size_t npairs = 0;
    for (int d = 0; d < p->ndevs; d++) {
        size_t c = (size_t)(s->doff[d + 1] - s->doff[d]);
        npairs += c * (c - (c > 0)) / 2;
    }
    if (!m->t || ts_pairmap_init(&pm, npairs)) {
        ts_pairmap_free(&pm);
        ts_imodel_free(m);
        return ts_fail(e, TS_ESYS, "solver: out of memory building a model of %d instances", n);
    }
    m->H = ts_z3_int_var(z, "H");
    m->C = ts_z3_int_var(z, "C");
    ts_z3_bound_init(&m->hb, m->H);
    ts_z3_bound_init(&m->cb, m->C);
    ts_imodel_starts(m);
    ts_imodel_exclusive(m, &pm);
    /* Scratch for the load and memory sums (one term per instance of a device, and a constant). */
    Z3_ast *bef = malloc((size_t)(n + 2) * sizeof *bef);
    Z3_ast *aft = malloc((size_t)(n + 2) * sizeof *aft);
    if (!bef || !aft) {
        free(bef);
        free(aft);
        ts_pairmap_free(&pm);
        ts_imodel_free(m);
        return ts_fail(e, TS_ESYS, "solver: out of memory encoding loads");
    }
    ts_imodel_loads(m, &pm, bef, aft);
    if (ms && ms->has_memory) {
        ts_imodel_memory(m, &pm, ms, bef);
        if (fix_cap)
            ts_z3_assert(z, Z3_mk_eq(z->ctx, m->C, ts_z3_num(z, ms->cap)));
    }
    free(bef);
    free(aft);
    ts_pairmap_free(&pm);
    int rc = ts_z3_error(z, "encoding an instance set", e);
    if (rc)
        ts_imodel_free(m);
    return rc;
}

/* Reads the starts; returns the value of the minimised term: for H the actual last end (the
 * model's H may lie above it), for C the model's value. */
static long ts_imodel_read(ts_imodel *m, Z3_model mdl, int what, long *start)
{
    long end = 0;
    for (int x = 0; x < m->s->n; x++) {
        start[x] = ts_z3_value(&m->z, mdl, m->t[x]);
        long t = start[x] + m->s->p->blocks[m->s->inst[x].block].span;
        if (t > end)
            end = t;
    }
    return what == 0 ? end : ts_z3_value(&m->z, mdl, m->C);
}

int ts_imodel_minimise(ts_imodel *m, int what, long lo, long hi, long slack, const ts_budget *b,
                       double call_cap, long *start, ts_minres *r, ts_err *e)
{
    ts_z3 *z = &m->z;
    ts_z3_bound *bd = what == 0 ? &m->hb : &m->cb;
    memset(r, 0, sizeof *r);
    r->best = hi;
    if (slack < 0)
        slack = 0;
    if (hi < 0) {
        /* No known solution: one unbounded check first. */
        Z3_lbool v = ts_z3_check(z, 0, NULL, b, call_cap);
        if (v == Z3_L_UNDEF) {
            r->timed_out = true;
            return ts_z3_error(z, "checking an instance set", e);
        }
        if (v == Z3_L_FALSE) {
            r->optimal = true; /* proven: no solution at all */
            return ts_z3_error(z, "checking an instance set", e);
        }
        Z3_model mdl = ts_z3_model(z);
        r->best = ts_imodel_read(m, mdl, what, start);
        ts_z3_model_free(z, mdl);
        r->found = true;
    }
    /* Bounded search: the lower bound first (often reached), then bisection between what is
     * proven impossible and the incumbent. A call that times out proves nothing: the search
     * moves above it and the result is marked not optimal. */
    bool tried_lo = false;
    long floor_v = lo; /* every value below is impossible or was given up */
    bool gave_up = false;
    while (r->best > floor_v + slack && floor_v < r->best) {
        long v = tried_lo ? floor_v + (r->best - 1 - floor_v) / 2 : floor_v;
        tried_lo = true;
        if (ts_budget_over(b)) {
            r->timed_out = true;
            break;
        }
        Z3_ast lit = ts_z3_bound_lit(z, bd, v);
        if (!lit)
            return ts_fail(e, TS_ESYS, "solver: out of memory");
        /* The lower bound is a long shot when the gap is wide: give it a tenth of what is left. */
        double cap = ts_budget_call(b, call_cap);
        if (v == lo && r->best > lo + 1 && cap > 0.2 && 0.1 * cap > 0.2)
            cap = 0.1 * cap;
        Z3_lbool res = ts_z3_check(z, 1, &lit, b, cap);
        if (res == Z3_L_UNDEF) {
            r->timed_out = true;
            gave_up = true;
            floor_v = v + 1;
            continue;
        }
        if (res == Z3_L_FALSE) {
            floor_v = v + 1;
            if (!gave_up)
                lo = floor_v;
            continue;
        }
        Z3_model mdl = ts_z3_model(z);
        r->best = ts_imodel_read(m, mdl, what, start);
        ts_z3_model_free(z, mdl);
        r->found = true;
        if (r->best < floor_v)
            floor_v = r->best;
        if (r->best < lo)
            lo = r->best; /* lo was a bound, not a proof; keep lo <= best */
    }
    r->optimal = !gave_up && r->best <= lo;
    return ts_z3_error(z, "minimising", e);
}
