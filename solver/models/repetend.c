/* The repetend problem on one incremental solver. Everything that does not depend on the
 * candidate (window, exclusivity, no idle step, the memory sums) is asserted once; what a
 * candidate changes (which edges bind inside the window, the level its offsets leave on each
 * device, the period bound) is a literal passed as an assumption, so that Z3 keeps what it
 * learnt from one candidate to the next and across k. */
#include <stdlib.h>
#include <string.h>
#include "ts_memory.h"
#include "ts_rmodel.h"
#include "ts_search_ctx.h"
#include "ts_z3.h"

typedef struct {
    long key;
    Z3_ast lit;
} ts_litent;

typedef struct {
    int n, cap;
    ts_litent *v;
} ts_litlist;

struct ts_rmodel {
    ts_z3 z;
    const ts_placement *p;
    bool has_memory;
    long *cap; /* per device, when has_memory (owned) */
    Z3_ast *s; /* start of each block in the window */
    Z3_ast P;
    long maxload;
    Z3_ast *mem; /* per (block, device slot): memory term of a positive block, else NULL */
    int *memoff; /* mem index of block b's first device slot */
    ts_litlist *edge; /* per edge: literals by offset difference */
    ts_litlist *lvl; /* per device: literals by starting level */
    ts_z3_bound pb;
    Z3_ast *assume;
    long calls;
};

static Z3_ast ts_litlist_find(const ts_litlist *l, long key)
{
    for (int i = 0; i < l->n; i++)
        if (l->v[i].key == key)
            return l->v[i].lit;
    return NULL;
}

static int ts_litlist_add(ts_litlist *l, long key, Z3_ast lit)
{
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 8;
        ts_litent *v = realloc(l->v, (size_t)cap * sizeof *v);
        if (!v)
            return -1;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = (ts_litent){key, lit};
    return 0;
}

void ts_rmodel_free(ts_rmodel *m)
{
    if (!m)
        return;
    if (m->edge)
        for (int i = 0; i < m->p->nedges; i++)
            free(m->edge[i].v);
    if (m->lvl)
        for (int d = 0; d < m->p->ndevs; d++)
            free(m->lvl[d].v);
    free(m->edge);
    free(m->lvl);
    free(m->s);
    free(m->mem);
    free(m->memoff);
    free(m->assume);
    free(m->cap);
    ts_z3_bound_free(&m->pb);
    ts_z3_close(&m->z);
    free(m);
}

long ts_rmodel_calls(const ts_rmodel *m)
{
    return m->calls;
}

/* before(j, i): j starts before i, from the pair literal. */
static Z3_ast ts_before(ts_rmodel *m, Z3_ast *ord, int j, int i)
{
    int n = m->p->nblocks;
    if (j < i)
        return ord[j * n + i];
    return ts_z3_not(&m->z, ord[i * n + j]);
}

/* No fully idle step: on the circle, the step after every block's end is covered by some block
 * (a gap would begin right after some end). terms has room for 2 * nblocks terms. */
static void ts_rmodel_no_idle(ts_rmodel *m, Z3_ast *terms)
{
    const ts_placement *p = m->p;
    ts_z3 *z = &m->z;
    int n = p->nblocks;
    for (int i = 0; i < n; i++) {
        Z3_ast end = ts_z3_addc(z, m->s[i], p->blocks[i].span);
        int nt = 0;
        for (int j = 0; j < n; j++) {
            Z3_ast sj = m->s[j];
            long sp = p->blocks[j].span;
            if (j != i) {
                Z3_ast in[2] = {ts_z3_le(z, sj, end),
                                ts_z3_le(z, ts_z3_addc(z, end, 1), ts_z3_addc(z, sj, sp))};
                terms[nt++] = ts_z3_and(z, 2, in);
            }
            Z3_ast sjp = ts_z3_add2(z, sj, m->P);
            Z3_ast wrap[2] = {ts_z3_le(z, sjp, end),
                              ts_z3_le(z, ts_z3_addc(z, end, 1), ts_z3_addc(z, sjp, sp))};
            terms[nt++] = ts_z3_and(z, 2, wrap);
        }
        ts_z3_assert(z, ts_z3_or(z, nt, terms));
    }
}

/* Memory sums: for each positive block on each of its devices, its own memory plus that of every
 * block on the device that starts before it. The candidate's level bounds them. */
static void ts_rmodel_memory_sums(ts_rmodel *m, Z3_ast *ord, Z3_ast *terms)
{
    const ts_placement *p = m->p;
    ts_z3 *z = &m->z;
    int n = p->nblocks;
    Z3_ast zero = ts_z3_num(z, 0);
    for (int i = 0; i < n; i++) {
        const ts_block *a = &p->blocks[i];
        if (a->memory <= 0)
            continue;
        for (int x = 0; x < a->ndevices; x++) {
            int d = a->devices[x];
            int nt = 0;
            for (int j = 0; j < n; j++) {
                const ts_block *c = &p->blocks[j];
                if (j == i || c->memory == 0 || !ts_block_on(c, d))
                    continue;
                terms[nt++] =
                    Z3_mk_ite(z->ctx, ts_before(m, ord, j, i), ts_z3_num(z, c->memory), zero);
            }
            terms[nt++] = ts_z3_num(z, a->memory);
            m->mem[m->memoff[i] + x] = ts_z3_add(z, nt, terms);
        }
    }
}

int ts_rmodel_new(const ts_placement *p, const long *cap, ts_rmodel **out, ts_err *e)
{
    *out = NULL;
    ts_rmodel *m = calloc(1, sizeof *m);
    if (!m || (cap && !(m->cap = malloc((size_t)p->ndevs * sizeof *m->cap)))) {
        free(m);
        return ts_fail(e, TS_ESYS, "solver: out of memory");
    }
    m->p = p;
    m->has_memory = cap != NULL;
    if (cap)
        memcpy(m->cap, cap, (size_t)p->ndevs * sizeof *m->cap);
    if (ts_z3_open(&m->z, e)) {
        free(m->cap);
        free(m);
        return e ? e->code : TS_ESYS;
    }
    ts_z3 *z = &m->z;
    int n = p->nblocks, D = p->ndevs;
    m->s = calloc((size_t)n + 1, sizeof *m->s);
    m->memoff = calloc((size_t)n + 1, sizeof *m->memoff);
    m->edge = calloc((size_t)p->nedges + 1, sizeof *m->edge);
    m->lvl = calloc((size_t)D + 1, sizeof *m->lvl);
    m->assume = calloc((size_t)(p->nedges + D + 2), sizeof *m->assume);
    Z3_ast *ord = calloc((size_t)n * (size_t)n + 1, sizeof *ord);
    Z3_ast *terms = calloc((size_t)(2 * n + 4), sizeof *terms);
    if (!m->s || !m->memoff || !m->edge || !m->lvl || !m->assume || !ord || !terms)
        goto oom;
    int slots = 0;
    for (int b = 0; b < n; b++) {
        m->memoff[b] = slots;
        slots += p->blocks[b].ndevices;
    }
    m->mem = calloc((size_t)slots + 1, sizeof *m->mem);
    if (!m->mem)
        goto oom;

    m->P = ts_z3_int_var(z, "P");
    m->maxload = ts_placement_max_load(p);
    ts_z3_bound_init(&m->pb, m->P);
    ts_z3_assert(z, ts_z3_gec(z, m->P, ts_placement_max_load(p)));
    for (int b = 0; b < n; b++) {
        m->s[b] = ts_z3_int_var(z, "s");
        ts_z3_assert(z, ts_z3_gec(z, m->s[b], 0));
        ts_z3_assert(z, ts_z3_diff(z, m->s[b], 1, m->P)); /* starts inside the window */
    }
    /* Exclusivity on the circle of length P: every instance starts inside the window but may run
     * past its end into the next repetend, so two blocks of a device must not meet either inside
     * one window or across the boundary. o true: i before j in the window. */
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            const ts_block *a = &p->blocks[i], *c = &p->blocks[j];
            bool share = false;
            for (int x = 0; x < a->ndevices && !share; x++)
                share = ts_block_on(c, a->devices[x]);
            if (!share)
                continue;
            Z3_ast o = ts_z3_bool_var(z, "o");
            ord[i * n + j] = o;
            Z3_ast ij[2] = {ts_z3_diff(z, m->s[i], a->span, m->s[j]),
                            ts_z3_diff(z, m->s[j], c->span, ts_z3_add2(z, m->s[i], m->P))};
            Z3_ast ji[2] = {ts_z3_diff(z, m->s[j], c->span, m->s[i]),
                            ts_z3_diff(z, m->s[i], a->span, ts_z3_add2(z, m->s[j], m->P))};
            ts_z3_assert(z, ts_z3_implies(z, o, ts_z3_and(z, 2, ij)));
            ts_z3_assert(z, ts_z3_implies(z, ts_z3_not(z, o), ts_z3_and(z, 2, ji)));
        }
    ts_rmodel_no_idle(m, terms);
    if (m->has_memory)
        ts_rmodel_memory_sums(m, ord, terms);
    free(ord);
    free(terms);
    int rc = ts_z3_error(z, "encoding the repetend", e);
    if (rc) {
        ts_rmodel_free(m);
        return rc;
    }
    *out = m;
    return TS_OK;
oom:
    free(ord);
    free(terms);
    ts_rmodel_free(m);
    return ts_fail(e, TS_ESYS, "solver: out of memory encoding the repetend");
}

/* Literal: edge ei binds with offset difference delta. NULL when it cannot bind (always true). */
static Z3_ast ts_edge_lit(ts_rmodel *m, int ei, long delta, int *oom)
{
    const ts_edge *ed = &m->p->edges[ei];
    /* Starts lie in [0, P) and P >= max load >= span: two periods apart or more, the edge holds
     * by itself unless a delay asks for more. */
    if (delta >= 2 && (delta - 1) * m->maxload + 1 >= (long)m->p->blocks[ed->src].span + ed->delay)
        return NULL;
    Z3_ast lit = ts_litlist_find(&m->edge[ei], delta);
    if (lit)
        return lit;
    ts_z3 *z = &m->z;
    lit = ts_z3_bool_var(z, "e");
    Z3_ast lhs = delta ? ts_z3_add2(z, m->s[ed->dst], ts_z3_mulc(z, delta, m->P)) : m->s[ed->dst];
    long need = (long)m->p->blocks[ed->src].span + ed->delay;
    ts_z3_assert(z, ts_z3_implies(z, lit, ts_z3_diff(z, m->s[ed->src], need, lhs)));
    if (ts_litlist_add(&m->edge[ei], delta, lit))
        *oom = 1;
    return lit;
}

/* Literal: the device starts the window at memory level `level`. NULL when nothing to check. */
static Z3_ast ts_level_lit(ts_rmodel *m, int d, long level, int *oom)
{
    Z3_ast lit = ts_litlist_find(&m->lvl[d], level);
    if (lit)
        return lit;
    ts_z3 *z = &m->z;
    const ts_placement *p = m->p;
    int nt = 0;
    Z3_ast *cons = malloc((size_t)(p->nblocks + 1) * sizeof *cons);
    if (!cons) {
        *oom = 1;
        return NULL;
    }
    for (int i = 0; i < p->nblocks; i++) {
        const ts_block *a = &p->blocks[i];
        for (int x = 0; x < a->ndevices; x++)
            if (a->devices[x] == d && m->mem[m->memoff[i] + x])
                cons[nt++] = ts_z3_lec(z, m->mem[m->memoff[i] + x], m->cap[d] - level);
    }
    if (nt == 0) {
        free(cons);
        return NULL;
    }
    lit = ts_z3_bool_var(z, "L");
    ts_z3_assert(z, ts_z3_implies(z, lit, ts_z3_and(z, nt, cons)));
    free(cons);
    if (ts_litlist_add(&m->lvl[d], level, lit))
        *oom = 1;
    return lit;
}

int ts_rmodel_solve(ts_rmodel *m, const int *mids, long lo, long hi, const ts_budget *b,
                    double call_cap, long *start, ts_rres *r, ts_err *e)
{
    const ts_placement *p = m->p;
    ts_z3 *z = &m->z;
    memset(r, 0, sizeof *r);
    int na = 0, oom = 0;
    for (int ei = 0; ei < p->nedges; ei++) {
        const ts_edge *ed = &p->edges[ei];
        long delta = (long)mids[ed->src] + ed->distance - mids[ed->dst];
        if (delta < 0) {
            r->proven = true; /* the dependency would point back in time: no repetend */
            return TS_OK;
        }
        Z3_ast lit = ts_edge_lit(m, ei, delta, &oom);
        if (lit)
            m->assume[na++] = lit;
    }
    if (m->has_memory) {
        long *level = calloc((size_t)p->ndevs + 1, sizeof *level);
        if (!level)
            return ts_fail(e, TS_ESYS, "solver: out of memory");
        ts_mids_levels(p, mids, level);
        for (int d = 0; d < p->ndevs; d++) {
            Z3_ast lit = ts_level_lit(m, d, level[d], &oom);
            if (lit)
                m->assume[na++] = lit;
        }
        free(level);
    }
    if (oom)
        return ts_fail(e, TS_ESYS, "solver: out of memory");
    bool tried_lo = false;
    long best = -1;
    long cur_hi = hi;
    for (;;) {
        long v;
        if (best < 0)
            v = cur_hi; /* first: anything within hi (or unbounded) */
        else if (best <= lo)
            break;
        else if (!tried_lo)
            v = lo;
        else
            v = lo + (best - 1 - lo) / 2;
        if (best >= 0)
            tried_lo = true;
        int nas = na;
        if (v >= 0) {
            Z3_ast lit = ts_z3_bound_lit(z, &m->pb, v);
            if (!lit)
                return ts_fail(e, TS_ESYS, "solver: out of memory");
            m->assume[nas++] = lit;
        }
        if (ts_budget_over(b)) {
            r->timed_out = true;
            break;
        }
        m->calls++;
        Z3_lbool res = ts_z3_check(z, nas, m->assume, b, call_cap);
        if (res == Z3_L_UNDEF) {
            r->timed_out = true;
            break;
        }
        if (res == Z3_L_FALSE) {
            if (best < 0) {
                r->proven = true; /* nothing within hi */
                break;
            }
            lo = v + 1;
            continue;
        }
        Z3_model mdl = ts_z3_model(z);
        best = ts_z3_value(z, mdl, m->P);
        for (int i = 0; i < p->nblocks; i++)
            start[i] = ts_z3_value(z, mdl, m->s[i]);
        ts_z3_model_free(z, mdl);
        r->found = true;
        r->period = best;
        if (best < lo)
            lo = best;
    }
    if (r->found)
        r->proven = !r->timed_out && best <= lo;
    return ts_z3_error(z, "solving a repetend", e);
}
