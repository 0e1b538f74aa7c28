/* The exact search's own Z3 model of an instance set (exact.c): the same problem as
 * ts_imodel_build's (starts, dependencies, exclusivity by one order literal per pair, memory at
 * every positive start), written for a proof rather than for a quick answer.
 *
 * - Memory is a pseudo-Boolean sum over the order literals (Z3_mk_pble), one per positive
 *   instance: Z3 propagates it as a constraint of its own, where the integer sum of if-then-else
 *   terms that ts_imodel_build writes reaches the arithmetic solver only as fresh variables.
 * - The capacity is a constant, so the only integers left are the starts and H, and every
 *   arithmetic constraint is a difference constraint: Z3's difference-logic solver decides them.
 *   ts_imodel_build's redundant load sums are left out: on the small-N set
 *   (tests/bench/exact_check.py) they cost 5-60% more Z3 units, and so did transitivity clauses
 *   over each device's orders (1.3 to 4 times more).
 * - Where a device's memory falls into pairs (a block and the one that frees it), the orders
 *   the capacity forces are written out (ts_xm_held, ts_xm_alone).
 * Every constraint here holds in every schedule (with the instances of each block in micro-batch
 * order, which exact.c shows loses none), so a refusal is still a proof. */
#include <stdlib.h>
#include <string.h>
#include "ts_exact_model.h"
#include "ts_imodel.h"
#include "ts_iset.h"
#include "ts_z3.h"

typedef struct {
    ts_imodel *m;
    /* lit[x * n + y], x < y: the order literal of a free pair that shares a device (x first) */
    Z3_ast *lit;
} ts_xm;

/* x runs before y: a constant when the arcs force it (or the pair shares no device), else the
 * pair's literal or its negation. */
static Z3_ast ts_xm_before(const ts_xm *q, int x, int y)
{
    ts_z3 *z = &q->m->z;
    const ts_iset *s = q->m->s;
    if (ts_iset_prec(s, x, y))
        return Z3_mk_true(z->ctx);
    if (ts_iset_prec(s, y, x))
        return Z3_mk_false(z->ctx);
    Z3_ast o = x < y ? q->lit[(size_t)x * (size_t)s->n + (size_t)y]
                     : q->lit[(size_t)y * (size_t)s->n + (size_t)x];
    if (!o)
        return NULL;
    return x < y ? o : ts_z3_not(z, o);
}

/* Exclusivity: one literal per free pair that shares a device, and what it implies. */
static void ts_xm_exclusive(ts_xm *q)
{
    ts_imodel *m = q->m;
    const ts_iset *s = m->s;
    const ts_placement *p = s->p;
    ts_z3 *z = &m->z;
    for (int d = 0; d < p->ndevs; d++)
        for (int i = s->doff[d]; i < s->doff[d + 1]; i++)
            for (int j = i + 1; j < s->doff[d + 1]; j++) {
                int x = s->dlist[i] < s->dlist[j] ? s->dlist[i] : s->dlist[j];
                int y = s->dlist[i] < s->dlist[j] ? s->dlist[j] : s->dlist[i];
                Z3_ast *slot = &q->lit[(size_t)x * (size_t)s->n + (size_t)y];
                if (*slot || ts_iset_prec(s, x, y) || ts_iset_prec(s, y, x))
                    continue;
                const ts_block *bx = &p->blocks[s->inst[x].block];
                const ts_block *by = &p->blocks[s->inst[y].block];
                *slot = ts_z3_bool_var(z, "o");
                ts_z3_assert(z, ts_z3_implies(z, *slot, ts_z3_diff(z, m->t[x], bx->span, m->t[y])));
                ts_z3_assert(z, ts_z3_implies(z, ts_z3_not(z, *slot),
                                              ts_z3_diff(z, m->t[y], by->span, m->t[x])));
            }
}

/* Memory: at each positive instance x's start on device d, level + mem(x) + the memory of
 * everything that started before x is at most the capacity; as a pseudo-Boolean sum over "y
 * before x" (a negative term c*b is written c + |c|*(not b)). args and coeffs have room for one
 * entry per instance of a device. */
static void ts_xm_memory(ts_xm *q, const ts_memspec *ms, Z3_ast *args, int *coeffs)
{
    const ts_iset *s = q->m->s;
    const ts_placement *p = s->p;
    ts_z3 *z = &q->m->z;
    for (int d = 0; d < p->ndevs; d++)
        for (int i = s->doff[d]; i < s->doff[d + 1]; i++) {
            int x = s->dlist[i];
            const ts_block *bx = &p->blocks[s->inst[x].block];
            if (bx->memory <= 0)
                continue;
            long k = ms->cap - (ms->level ? ms->level[d] : 0) - bx->memory;
            unsigned na = 0;
            for (int j = s->doff[d]; j < s->doff[d + 1]; j++) {
                int y = s->dlist[j];
                long c = p->blocks[s->inst[y].block].memory;
                if (y == x || c == 0 || ts_iset_prec(s, x, y))
                    continue;
                if (ts_iset_prec(s, y, x)) {
                    k -= c;
                    continue;
                }
                Z3_ast b = ts_xm_before(q, y, x);
                if (c < 0) {
                    k -= c;
                    b = ts_z3_not(z, b);
                    c = -c;
                }
                args[na] = b;
                coeffs[na++] = (int)c;
            }
            ts_z3_assert(z, k < 0     ? Z3_mk_false(z->ctx)
                            : na == 0 ? Z3_mk_true(z->ctx)
                                      : Z3_mk_pble(z->ctx, na, args, coeffs, (int)k));
        }
}

/* reach[a * nb + b]: a path of same-micro-batch edges (distance 0) leads from block a to b. */
static bool *ts_xm_reach(const ts_placement *p)
{
    int nb = p->nblocks;
    bool *r = calloc((size_t)nb * (size_t)nb + 1, sizeof *r);
    if (!r)
        return NULL;
    for (int i = 0; i < p->nedges; i++)
        if (p->edges[i].distance == 0)
            r[(size_t)p->edges[i].src * (size_t)nb + (size_t)p->edges[i].dst] = true;
    for (int k = 0; k < nb; k++)
        for (int a = 0; a < nb; a++)
            for (int b = 0; a != k && r[(size_t)a * nb + k] && b < nb; b++)
                r[(size_t)a * nb + b] = r[(size_t)a * nb + b] || r[(size_t)k * nb + b];
    return r;
}

/* pair[b] on device d: the block that frees what b allocates there, when every block with
 * memory on d falls into such pairs (b positive, its partner r with memory -mem(b), reachable
 * from b within the micro-batch; matched greedily); false when they do not. */
static bool ts_xm_pairs(const ts_placement *p, int d, const bool *reach, int *pair)
{
    int nb = p->nblocks;
    for (int b = 0; b < nb; b++)
        pair[b] = -1;
    for (int b = 0; b < nb; b++) {
        const ts_block *x = &p->blocks[b];
        if (x->memory <= 0 || !ts_block_on(x, d))
            continue;
        for (int r = 0; r < nb && pair[b] < 0; r++)
            if (ts_block_on(&p->blocks[r], d) && p->blocks[r].memory == -x->memory && pair[r] < 0 &&
                reach[(size_t)b * nb + r])
                pair[b] = r, pair[r] = b;
        if (pair[b] < 0)
            return false;
    }
    for (int b = 0; b < nb; b++)
        if (ts_block_on(&p->blocks[b], d) && p->blocks[b].memory != 0 && pair[b] < 0)
            return false;
    return true;
}

/* Where no two allocations fit together on device d (its memory in pairs, ts_xm_pairs, and
 * mem(b) + mem(b') > room for every two positive blocks there, b = b' too): while b's instance of
 * micro-batch j holds its memory (from its start to the start of r's instance j) no other
 * allocation can start, since the pairs' terms are >= 0 and two would exceed room. So an
 * allocation y after x = (b, j) on d starts after (r, j) ends: one implication per order
 * literal of two allocations, which makes each (b, j)..(r, j) window one interval of the
 * device's order. */
static void ts_xm_alone(ts_xm *q, int d, long room, const int *pair, const int *at, int nm)
{
    ts_imodel *m = q->m;
    const ts_iset *s = m->s;
    const ts_placement *p = s->p;
    ts_z3 *z = &m->z;
    for (int b = 0; b < p->nblocks; b++)
        for (int c = 0; c < p->nblocks; c++) {
            const ts_block *x = &p->blocks[b], *y = &p->blocks[c];
            if (x->memory > 0 && y->memory > 0 && ts_block_on(x, d) && ts_block_on(y, d) &&
                x->memory + y->memory <= room)
                return;
        }
    for (int b = 0; b < p->nblocks; b++) {
        if (p->blocks[b].memory <= 0 || !ts_block_on(&p->blocks[b], d))
            continue;
        for (int j = 0; j < nm; j++) {
            int x = at[(size_t)b * nm + (size_t)j], r = at[(size_t)pair[b] * nm + (size_t)j];
            for (int c = 0; c < p->nblocks && x >= 0 && r >= 0; c++) {
                if (p->blocks[c].memory <= 0 || !ts_block_on(&p->blocks[c], d))
                    continue;
                for (int i = 0; i < nm; i++) {
                    int y = at[(size_t)c * nm + (size_t)i];
                    if (y < 0 || y == x || ts_iset_prec(s, y, x))
                        continue;
                    Z3_ast after = ts_z3_diff(z, m->t[r], p->blocks[pair[b]].span, m->t[y]);
                    Z3_ast o = ts_xm_before(q, x, y);
                    ts_z3_assert(z,
                                 ts_iset_prec(s, x, y) || !o ? after : ts_z3_implies(z, o, after));
                }
            }
        }
    }
}

/* Orders the capacity forces where each device's memory falls into pairs (ts_xm_pairs). Then
 * what a device holds is the sum over its pairs of mem(b) x (b's instances started - r's
 * started), and each term is >= 0, as r's instance of a micro-batch starts after b's. So at the
 * start of b's instance of micro-batch j (b's instances 0..j all started, in micro-batch order),
 * with c = (capacity - level) / mem(b) rounded down: (j + 1 - r's started) x mem(b) <= capacity
 * - level, so r's instances 0..j - c have started, and r's instance j - c (on the same device)
 * ends before b's instance j starts. -1 on allocation failure. */
static int ts_xm_held(ts_xm *q, const ts_memspec *ms)
{
    ts_imodel *m = q->m;
    const ts_iset *s = m->s;
    const ts_placement *p = s->p;
    ts_z3 *z = &m->z;
    /* the instance of each (block, micro-batch): the set holds micro-batches 0..nm-1 */
    int nm = 0;
    for (int x = 0; x < s->n; x++)
        nm = s->inst[x].micro + 1 > nm ? s->inst[x].micro + 1 : nm;
    bool *reach = ts_xm_reach(p);
    int *pair = malloc((size_t)p->nblocks * sizeof *pair + 1);
    int *at = malloc((size_t)p->nblocks * (size_t)nm * sizeof *at + 1);
    if (!reach || !pair || !at) {
        free(reach);
        free(pair);
        free(at);
        return -1;
    }
    memset(at, 0xff, (size_t)p->nblocks * (size_t)nm * sizeof *at);
    for (int x = 0; x < s->n; x++)
        at[(size_t)s->inst[x].block * (size_t)nm + (size_t)s->inst[x].micro] = x;
    for (int d = 0; d < p->ndevs; d++) {
        if (!ts_xm_pairs(p, d, reach, pair))
            continue;
        long room = ms->cap - (ms->level ? ms->level[d] : 0);
        ts_xm_alone(q, d, room, pair, at, nm);
        for (int b = 0; b < p->nblocks; b++) {
            const ts_block *x = &p->blocks[b];
            if (x->memory <= 0 || !ts_block_on(x, d) || room < 0)
                continue;
            long c = room / x->memory;
            for (long j = c; j < nm; j++) {
                int bj = at[(size_t)b * nm + (size_t)j],
                    rj = at[(size_t)pair[b] * nm + (size_t)(j - c)];
                if (bj >= 0 && rj >= 0)
                    ts_z3_assert(z, ts_z3_diff(z, m->t[rj], p->blocks[pair[b]].span, m->t[bj]));
            }
        }
    }
    free(reach);
    free(pair);
    free(at);
    return 0;
}

int ts_exact_model_build(ts_imodel *m, const ts_iset *s, const ts_memspec *ms, ts_err *e)
{
    memset(m, 0, sizeof *m);
    int n = s->n;
    if (ts_z3_open(&m->z, e))
        return e ? e->code : TS_ESYS;
    ts_z3 *z = &m->z;
    m->s = s;
    ts_xm q = {m, calloc((size_t)n * (size_t)n + 1, sizeof(Z3_ast))};
    m->t = malloc((size_t)n * sizeof *m->t + 1);
    Z3_ast *args = malloc((size_t)(n + 2) * sizeof *args);
    int *coeffs = malloc((size_t)(n + 2) * sizeof *coeffs);
    int rc = TS_OK;
    if (!q.lit || !m->t || !args || !coeffs) {
        rc = ts_fail(e, TS_ESYS, "solver: out of memory building a model of %d instances", n);
        goto out;
    }
    m->H = ts_z3_int_var(z, "H");
    m->C = m->H;
    ts_z3_bound_init(&m->hb, m->H);
    ts_imodel_starts(m);
    ts_xm_exclusive(&q);
    if (ms && ms->has_memory)
        ts_xm_memory(&q, ms, args, coeffs);
    if (ms && ms->has_memory && ts_xm_held(&q, ms)) {
        rc = ts_fail(e, TS_ESYS, "solver: out of memory");
        goto out;
    }
    /* Every arithmetic atom is a difference of two integers (or a bound on one), so Z3's
     * difference-logic solver (arith.solver 1) takes them. Measured on the small-N set: 1.2
     * times the units of its general arithmetic where both prove quickly, 3.5 times fewer on the
     * hardest proof (xshape, 4 devices, N 8, memory 1: 2.3e6 against 8.2e6), and 3 to 10 times
     * less wall time. The parameter stays when exact.c sets each call's limits (Z3 merges a
     * solver's parameters). */
    Z3_params prm = Z3_mk_params(z->ctx);
    Z3_params_inc_ref(z->ctx, prm);
    Z3_params_set_uint(z->ctx, prm, Z3_mk_string_symbol(z->ctx, "arith.solver"), 1);
    Z3_solver_set_params(z->ctx, z->solver, prm);
    Z3_params_dec_ref(z->ctx, prm);
    rc = ts_z3_error(z, "encoding the exact search", e);
out:
    free(q.lit);
    free(args);
    free(coeffs);
    if (rc)
        ts_imodel_free(m);
    return rc;
}
