/* The modulo repetend of one period as a Z3 problem (linear integer arithmetic).
 *
 * Each block b starts micro-batch 0 at t_b = q_b*P + r_b with 0 <= r_b < P. With P fixed,
 * everything is linear:
 *   exclusivity  one Boolean o_ab = (r_a < r_b) per pair sharing a device; the arcs
 *                [r, r + span) on the circle of length P do not overlap in either orientation;
 *   dependency   t_dst + distance*P >= t_src + span_src + delay (plain differences);
 *   memory       at a start of a positive block a on device d, the in-flight copies of each
 *                allocation are floor((t_a - t_b)/P) = q_a - q_b - o_ab, so the bound of the
 *                memory plan is sum_b coef_b * (q_a - q_b - o_ab) <= capacity: the floor terms
 *                need no extra integers beyond q, because o_ab is already the exclusivity order.
 * One anchor block is fixed at t = 0, which removes the translation (and with it the rotation)
 * symmetry. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <z3.h>
#include "modulo_internal.h"
#include "ts_search_ctx.h"
#include "ts_z3.h"

typedef struct {
    int a, b;
} ts_pair;

struct ts_mz {
    Z3_context ctx;
    Z3_solver solver;
    const ts_placement *p;
    long P;
    Z3_ast *q, *r, *t; /* per block */
    Z3_ast lhi, llo; /* latency = lhi - llo */
    int npairs;
    ts_pair *pairs;
    Z3_ast *o; /* per pair: r_a < r_b */
    Z3_sort isort;
};

/* Z3's default handler aborts the process; errors are read back with Z3_get_error_code. */
static void ts_mz_on_error(Z3_context c, Z3_error_code code)
{
    (void)c;
    (void)code;
}

static int ts_cmp_pair(const void *x, const void *y)
{
    const ts_pair *a = x, *b = y;
    if (a->a != b->a)
        return (a->a > b->a) - (a->a < b->a);
    return (a->b > b->b) - (a->b < b->b);
}

static Z3_ast ts_int(ts_mz *z, long v)
{
    return Z3_mk_int64(z->ctx, v, z->isort);
}

static Z3_ast ts_add2(ts_mz *z, Z3_ast a, Z3_ast b)
{
    Z3_ast args[2] = {a, b};
    return Z3_mk_add(z->ctx, 2, args);
}

static Z3_ast ts_sub2(ts_mz *z, Z3_ast a, Z3_ast b)
{
    Z3_ast args[2] = {a, b};
    return Z3_mk_sub(z->ctx, 2, args);
}

static Z3_ast ts_and2(ts_mz *z, Z3_ast a, Z3_ast b)
{
    Z3_ast args[2] = {a, b};
    return Z3_mk_and(z->ctx, 2, args);
}

static void ts_assert(ts_mz *z, Z3_ast a)
{
    Z3_solver_assert(z->ctx, z->solver, a);
}

/* Index of pair (a, b), a < b, or -1. */
static int ts_pair_find(const ts_mz *z, int a, int b)
{
    int lo = 0, hi = z->npairs - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        const ts_pair *x = &z->pairs[mid];
        if (x->a == a && x->b == b)
            return mid;
        if (x->a < a || (x->a == a && x->b < b))
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

/* 1 when r_a < r_b in the model's terms, as an integer expression; 0 for a == b. */
static Z3_ast ts_before(ts_mz *z, int a, int b)
{
    if (a == b)
        return ts_int(z, 0);
    int i = a < b ? ts_pair_find(z, a, b) : ts_pair_find(z, b, a);
    if (i < 0) /* blocks on one device always form a pair */
        return NULL;
    Z3_ast one = ts_int(z, 1), zero = ts_int(z, 0);
    return a < b ? Z3_mk_ite(z->ctx, z->o[i], one, zero) : Z3_mk_ite(z->ctx, z->o[i], zero, one);
}

void ts_mz_free(ts_mz *z)
{
    if (!z)
        return;
    if (z->ctx) {
        if (z->solver)
            Z3_solver_dec_ref(z->ctx, z->solver);
        Z3_del_context(z->ctx);
    }
    free(z->q);
    free(z->r);
    free(z->t);
    free(z->pairs);
    free(z->o);
    free(z);
}

/* Collects the distinct pairs of blocks that share a device. */
static int ts_collect_pairs(ts_mz *z)
{
    const ts_placement *p = z->p;
    size_t cap = 64, n = 0;
    ts_pair *v = malloc(cap * sizeof *v);
    int *on = malloc((size_t)(p->nblocks ? p->nblocks : 1) * sizeof(int));
    if (!v || !on) {
        free(v);
        free(on);
        return -1;
    }
    for (int d = 0; d < p->ndevs; d++) {
        int k = 0;
        for (int b = 0; b < p->nblocks; b++)
            if (ts_block_on(&p->blocks[b], d))
                on[k++] = b;
        for (int i = 0; i < k; i++)
            for (int j = i + 1; j < k; j++) {
                if (n == cap) {
                    cap *= 2;
                    ts_pair *nv = realloc(v, cap * sizeof *v);
                    if (!nv) {
                        free(v);
                        free(on);
                        return -1;
                    }
                    v = nv;
                }
                v[n++] = (ts_pair){on[i], on[j]};
            }
    }
    free(on);
    qsort(v, n, sizeof *v, ts_cmp_pair);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (!u || ts_cmp_pair(&v[u - 1], &v[i]))
            v[u++] = v[i];
    z->pairs = v;
    z->npairs = (int)u;
    return 0;
}

/* The context and the solver; false when Z3 cannot make them. */
static bool ts_mz_open(ts_mz *z)
{
    Z3_config cfg = Z3_mk_config();
    if (!cfg)
        return false;
    z->ctx = Z3_mk_context(cfg);
    Z3_del_config(cfg);
    if (!z->ctx)
        return false;
    Z3_set_error_handler(z->ctx, ts_mz_on_error);
    /* The solver set up for QF_LIA: measured against the default solver on mshape at 32
     * devices, period 6, every residue hinted, it answers in 0.5 s instead of 12-16 s (the
     * q*P + r links are not difference constraints, and the logic's configuration handles
     * them much better). */
    z->solver = Z3_mk_solver_for_logic(z->ctx, Z3_mk_string_symbol(z->ctx, "QF_LIA"));
    Z3_solver_inc_ref(z->ctx, z->solver);
    z->isort = Z3_mk_int_sort(z->ctx);
    return true;
}

/* Horizon: how far from the anchor (in periods) a block may start. Without memory limits a
 * compact timetable needs less than span + delay + P of slack per edge, so the sum below is
 * enough. With them, a block may have to wait for memory: each pair may hold up to cap copies,
 * so cap + 1 periods per block are added. The horizon bounds what a refusal by Z3 covers (the
 * memory bound of modulo_bound.c has no horizon); it is generous on purpose, and measured to
 * cost nothing on the paper cases. */
static long ts_mz_horizon(const ts_placement *p, long P, const long *caps)
{
    long cap = 0;
    for (int d = 0; caps && d < p->ndevs; d++)
        cap = caps[d] > cap ? caps[d] : cap;
    int nb = p->nblocks;
    long H = P;
    for (int b = 0; b < nb; b++)
        H += p->blocks[b].span + P;
    for (int i = 0; i < p->nedges; i++)
        H += p->edges[i].delay + (long)p->edges[i].distance * P;
    if (caps && cap > 0 && cap < 1000000)
        H += (long)nb * (cap + 1) * P;
    return H / P + 2;
}

/* t[b] = q[b] * P + r[b] with 0 <= r < P and |q| <= Q; the anchor at 0. */
static void ts_mz_starts(ts_mz *z, long Q, int anchor)
{
    int nb = z->p->nblocks;
    long P = z->P;
    char name[48];
    for (int b = 0; b < nb; b++) {
        snprintf(name, sizeof name, "q%d", b);
        z->q[b] = Z3_mk_const(z->ctx, Z3_mk_string_symbol(z->ctx, name), z->isort);
        snprintf(name, sizeof name, "r%d", b);
        z->r[b] = Z3_mk_const(z->ctx, Z3_mk_string_symbol(z->ctx, name), z->isort);
        Z3_ast qP = Z3_mk_mul(z->ctx, 2, (Z3_ast[]){ts_int(z, P), z->q[b]});
        z->t[b] = ts_add2(z, qP, z->r[b]);
        ts_assert(z, Z3_mk_ge(z->ctx, z->r[b], ts_int(z, 0)));
        ts_assert(z, Z3_mk_le(z->ctx, z->r[b], ts_int(z, P - 1)));
        ts_assert(z, Z3_mk_ge(z->ctx, z->q[b], ts_int(z, -Q)));
        ts_assert(z, Z3_mk_le(z->ctx, z->q[b], ts_int(z, Q)));
    }
    if (anchor >= 0 && anchor < nb) {
        ts_assert(z, Z3_mk_eq(z->ctx, z->q[anchor], ts_int(z, 0)));
        ts_assert(z, Z3_mk_eq(z->ctx, z->r[anchor], ts_int(z, 0)));
    }
}

/* Exclusivity on the circle, dependencies, and the plan's forced orders. */
static void ts_mz_orders(ts_mz *z, const ts_mplan *mp)
{
    const ts_placement *p = z->p;
    long P = z->P;
    char name[48];
    for (int i = 0; i < z->npairs; i++) {
        int a = z->pairs[i].a, b = z->pairs[i].b;
        long sa = p->blocks[a].span, sb = p->blocks[b].span;
        snprintf(name, sizeof name, "o%d_%d", a, b);
        z->o[i] = Z3_mk_const(z->ctx, Z3_mk_string_symbol(z->ctx, name), Z3_mk_bool_sort(z->ctx));
        Z3_ast ra = z->r[a], rb = z->r[b];
        Z3_ast ab =
            ts_and2(z, Z3_mk_le(z->ctx, ts_add2(z, ra, ts_int(z, sa)), rb),
                    Z3_mk_le(z->ctx, ts_add2(z, rb, ts_int(z, sb)), ts_add2(z, ra, ts_int(z, P))));
        Z3_ast ba =
            ts_and2(z, Z3_mk_le(z->ctx, ts_add2(z, rb, ts_int(z, sb)), ra),
                    Z3_mk_le(z->ctx, ts_add2(z, ra, ts_int(z, sa)), ts_add2(z, rb, ts_int(z, P))));
        ts_assert(z, Z3_mk_implies(z->ctx, z->o[i], ab));
        ts_assert(z, Z3_mk_implies(z->ctx, Z3_mk_not(z->ctx, z->o[i]), ba));
    }
    for (int i = 0; i < p->nedges; i++) {
        const ts_edge *x = &p->edges[i];
        long need = p->blocks[x->src].span + (long)x->delay - (long)x->distance * P;
        ts_assert(z, Z3_mk_ge(z->ctx, ts_sub2(z, z->t[x->dst], z->t[x->src]), ts_int(z, need)));
    }
    for (int i = 0; i < mp->nforced; i++)
        ts_assert(z, Z3_mk_ge(z->ctx, z->t[mp->after[i]], z->t[mp->before[i]]));
}

/* Memory: at the start of each positive entry of a device, the plan's bound within its
 * capacity cap[d]. */
static int ts_mz_memory(ts_mz *z, const ts_mplan *mp, const long *cap, ts_err *e)
{
    for (int d = 0; d < mp->ndevs; d++)
        for (int i = mp->off[d]; i < mp->off[d + 1]; i++) {
            if (mp->coef[i] <= 0)
                continue;
            int a = mp->block[i], n = 0;
            Z3_ast *terms = malloc((size_t)(mp->off[d + 1] - mp->off[d]) * sizeof(Z3_ast));
            if (!terms)
                return ts_fail(e, TS_ESYS, "out of memory");
            for (int j = mp->off[d]; j < mp->off[d + 1]; j++) {
                int b = mp->block[j];
                if (b == a)
                    continue;
                Z3_ast before = ts_before(z, a, b);
                if (!before) {
                    free(terms);
                    return ts_fail(e, TS_ESYS,
                                   "internal: blocks %d and %d share device %d but "
                                   "no pair",
                                   a, b, d);
                }
                Z3_ast copies = ts_sub2(z, ts_sub2(z, z->q[a], z->q[b]), before);
                terms[n++] = Z3_mk_mul(z->ctx, 2, (Z3_ast[]){ts_int(z, mp->coef[j]), copies});
            }
            if (n) {
                Z3_ast sum = n == 1 ? terms[0] : Z3_mk_add(z->ctx, (unsigned)n, terms);
                ts_assert(z, Z3_mk_le(z->ctx, sum, ts_int(z, cap[d])));
            } else if (cap[d] < 0) {
                ts_assert(z, Z3_mk_false(z->ctx));
            }
            free(terms);
        }
    return TS_OK;
}

ts_mz *ts_mz_new(const ts_placement *p, const ts_mplan *mp, long P, const long *cap, int anchor,
                 ts_err *e)
{
    ts_mz *z = calloc(1, sizeof *z);
    int nb = p->nblocks;
    if (!z) {
        ts_fail(e, TS_ESYS, "out of memory");
        return NULL;
    }
    z->p = p;
    z->P = P;
    z->q = calloc((size_t)(nb ? nb : 1), sizeof(Z3_ast));
    z->r = calloc((size_t)(nb ? nb : 1), sizeof(Z3_ast));
    z->t = calloc((size_t)(nb ? nb : 1), sizeof(Z3_ast));
    if (!z->q || !z->r || !z->t || ts_collect_pairs(z) ||
        !(z->o = calloc((size_t)(z->npairs ? z->npairs : 1), sizeof(Z3_ast)))) {
        ts_mz_free(z);
        ts_fail(e, TS_ESYS, "out of memory");
        return NULL;
    }
    if (!ts_mz_open(z)) {
        ts_mz_free(z);
        ts_fail(e, TS_ESYS, "cannot create a Z3 context");
        return NULL;
    }
    ts_mz_starts(z, ts_mz_horizon(p, P, cap), anchor);
    ts_mz_orders(z, mp);
    if (cap && ts_mz_memory(z, mp, cap, e)) {
        ts_mz_free(z);
        return NULL;
    }
    /* Latency bounds. */
    z->lhi = Z3_mk_const(z->ctx, Z3_mk_string_symbol(z->ctx, "lat_hi"), z->isort);
    z->llo = Z3_mk_const(z->ctx, Z3_mk_string_symbol(z->ctx, "lat_lo"), z->isort);
    for (int b = 0; b < nb; b++) {
        ts_assert(z, Z3_mk_ge(z->ctx, z->lhi, ts_add2(z, z->t[b], ts_int(z, p->blocks[b].span))));
        ts_assert(z, Z3_mk_le(z->ctx, z->llo, z->t[b]));
    }
    if (Z3_get_error_code(z->ctx) != Z3_OK) {
        ts_fail(e, TS_ESYS, "Z3: %s", Z3_get_error_msg(z->ctx, Z3_get_error_code(z->ctx)));
        ts_mz_free(z);
        return NULL;
    }
    return z;
}

static int ts_mz_extract(ts_mz *z, long *t)
{
    Z3_model m = Z3_solver_get_model(z->ctx, z->solver);
    if (!m)
        return -1;
    Z3_model_inc_ref(z->ctx, m);
    int rc = 0;
    for (int b = 0; b < z->p->nblocks && !rc; b++) {
        Z3_ast v;
        int64_t x;
        if (!Z3_model_eval(z->ctx, m, z->t[b], true, &v) || !Z3_get_numeral_int64(z->ctx, v, &x))
            rc = -1;
        else
            t[b] = (long)x;
    }
    Z3_model_dec_ref(z->ctx, m);
    return rc;
}

ts_mz_result ts_mz_solve(ts_mz *z, ts_meter *meter, double timeout, const long *hint_r,
                         long max_latency, long *t, char *why, size_t whylen)
{
    int nb = z->p->nblocks;
    /* the effort this call has spent, in seconds of effort */
    double used = 0;
    if (why && whylen)
        why[0] = 0;
    Z3_solver_push(z->ctx, z->solver);
    if (max_latency >= 0)
        ts_assert(z, Z3_mk_le(z->ctx, ts_sub2(z, z->lhi, z->llo), ts_int(z, max_latency)));
    /* Hints as assumption literals h_b -> r_b = hint. */
    Z3_ast *lits = NULL;
    int *who = NULL, nlits = 0;
    if (hint_r) {
        lits = malloc((size_t)(nb ? nb : 1) * sizeof(Z3_ast));
        who = malloc((size_t)(nb ? nb : 1) * sizeof(int));
        if (lits && who) {
            char name[32];
            for (int b = 0; b < nb; b++) {
                if (hint_r[b] < 0)
                    continue;
                snprintf(name, sizeof name, "h%d", b);
                Z3_ast h =
                    Z3_mk_const(z->ctx, Z3_mk_string_symbol(z->ctx, name), Z3_mk_bool_sort(z->ctx));
                ts_assert(
                    z, Z3_mk_implies(z->ctx, h, Z3_mk_eq(z->ctx, z->r[b], ts_int(z, hint_r[b]))));
                lits[nlits] = h;
                who[nlits++] = b;
            }
        }
    }
    ts_mz_result res = TS_MZ_UNKNOWN;
    for (int round = 0;; round++) {
        double left = timeout - used;
        if (left <= 0 || (meter && ts_meter_wall_over(meter))) {
            if (why && whylen)
                snprintf(why, whylen, "timeout");
            res = TS_MZ_UNKNOWN;
            break;
        }
        /* After a few rounds of dropping conflicting hints, drop them all. */
        if (round >= 4)
            nlits = 0;
        double before = ts_z3_rlimit_count(z->ctx, z->solver);
        Z3_lbool r = ts_z3_check_effort(z->ctx, z->solver, nlits, lits, meter, left);
        used += (ts_z3_rlimit_count(z->ctx, z->solver) - before) / TS_EFFORT_PER_SECOND;
        if (r == Z3_L_TRUE) {
            res = ts_mz_extract(z, t) ? TS_MZ_UNKNOWN : TS_MZ_SAT;
            break;
        }
        if (r == Z3_L_UNDEF) {
            if (why && whylen)
                snprintf(why, whylen, "%s", Z3_solver_get_reason_unknown(z->ctx, z->solver));
            res = TS_MZ_UNKNOWN;
            break;
        }
        if (!nlits) {
            res = TS_MZ_UNSAT;
            break;
        }
        Z3_ast_vector core = Z3_solver_get_unsat_core(z->ctx, z->solver);
        Z3_ast_vector_inc_ref(z->ctx, core);
        unsigned nc = Z3_ast_vector_size(z->ctx, core);
        int kept = 0;
        for (int i = 0; i < nlits; i++) {
            bool in = false;
            for (unsigned c = 0; c < nc && !in; c++)
                in = Z3_is_eq_ast(z->ctx, Z3_ast_vector_get(z->ctx, core, c), lits[i]);
            if (!in) {
                lits[kept] = lits[i];
                who[kept++] = who[i];
            }
        }
        Z3_ast_vector_dec_ref(z->ctx, core);
        nlits = nc ? kept : 0;
    }
    Z3_solver_pop(z->ctx, z->solver, 1);
    free(lits);
    free(who);
    return res;
}
