/* The plan space and its search (ts_plan_space_search of ts_plan.h): every T (powers of two in a
 * node unless allowed across), sequence parallelism, micro-batch size, pipeline size, strategy,
 * virtual stages, ZeRO stage and recomputation, each fixed or auto; each plan costed by the cost
 * model with its lower bound checked against the best kept first (bound pruning). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model_internal.h"

typedef struct {
    const ts_plan_req *r;
    const ts_plan_space *sp;
    ts_plan_stats *st;
    /* best plans with a closed form [0, nk), and bound-only ones [keep, keep + nb) */
    ts_plan_found *kept;
    int nk, nb, keep;
    long seen;
} ts_psearch;

/* Inserts f into the sorted run a[0..*n) of capacity cap (ties keep the earlier plan). */
static void ts_keep(ts_plan_found *a, int *n, int cap, const ts_plan_found *f)
{
    int i = *n < cap ? *n : cap - 1;
    if (*n >= cap && f->cost.iter_s >= a[cap - 1].cost.iter_s)
        return;
    while (i > 0 && a[i - 1].cost.iter_s > f->cost.iter_s) {
        a[i] = a[i - 1];
        i--;
    }
    a[i] = *f;
    if (*n < cap)
        (*n)++;
}

static double ts_threshold(const ts_psearch *s)
{
    return s->nk >= s->keep ? s->kept[s->keep - 1].cost.iter_s : 0;
}

static void ts_try(ts_psearch *s, const ts_plan_tables *t, const ts_plan_cfg *c)
{
    ts_plan_found f = {.cfg = *c};
    char why[240];
    int rc = ts_plan_cost_with(s->r, t, c, ts_threshold(s), &f.cost, why, sizeof why);
    ts_plan_stats *st = s->st;
    if (++st->total % 4096 == 0 && s->sp->progress)
        s->sp->progress(s->sp->ud, st->total, -1, s->nk ? s->kept[0].cost.iter_s : 0);
    if (rc < 0) {
        st->pruned++;
    } else if (rc > 0) {
        st->refused++;
        int k = rc - 1 < TS_REFUSE_KINDS ? rc - 1 : TS_REFUSE_SEARCH;
        if (!st->refused_by[k]++) {
            char name[96];
            ts_plan_name(c, name, sizeof name);
            snprintf(st->example[k], sizeof st->example[k], "%.80s: %.150s", name, why);
        }
    } else {
        st->evaluated++;
        /* adaptive with one recomputation everywhere is that plan: none is named so, and
         * selective or full are tried as themselves */
        const int *k = f.cost.stages_rc;
        if (c->recompute == TS_RC_ADAPTIVE && s->sp->recompute < 0) {
            if (k[TS_RC_NONE] == c->P)
                f.cfg.recompute = TS_RC_NONE;
            else if (k[TS_RC_SELECTIVE] == c->P || k[TS_RC_FULL] == c->P)
                return;
        }
        if (f.cost.closed_form)
            ts_keep(s->kept, &s->nk, s->keep, &f);
        else
            ts_keep(s->kept + s->keep, &s->nb, s->keep, &f);
    }
}

/* Strategy, virtual stages, ZeRO and recomputation at fixed T, b, sequence parallelism, P. */
static void ts_try_inner(ts_psearch *s, const ts_plan_tables *t, ts_plan_cfg c,
                         const char *const *names, int ns)
{
    const ts_plan_space *sp = s->sp;
    static const int rcs[] = {TS_RC_ADAPTIVE, TS_RC_SELECTIVE, TS_RC_FULL};
    for (int i = 0; i < ns; i++) {
        /* one stage is no pipeline: every strategy is the same plan, named "no-pipeline" */
        if (c.P == 1 && i > 0)
            break;
        snprintf(c.strategy, sizeof c.strategy, "%s", c.P == 1 ? "no-pipeline" : names[i]);
        bool inter = !strcmp(c.strategy, "interleaved");
        int vlo = sp->v ? sp->v : inter && c.P > 1 ? 2 : 1, vhi = sp->v ? sp->v : inter ? 8 : 1;
        for (c.v = vlo; c.v <= vhi; c.v++) {
            if (c.P * c.v > t->n && !sp->v)
                break;
            int zlo = sp->zero >= 0 ? sp->zero : 0, zhi = sp->zero >= 0 ? sp->zero : 3;
            /* nothing to shard over one replica, nor in inference */
            if ((c.dp == 1 || s->r->infer) && sp->zero < 0)
                zhi = 0;
            for (c.zero = zlo; c.zero <= zhi; c.zero++)
                for (int k = 0; k < (sp->recompute >= 0 ? 1 : 3); k++) {
                    c.recompute = sp->recompute >= 0 ? sp->recompute : rcs[k];
                    /* under a fused attention kernel selective recomputation is no
                     * recomputation: the same plan twice */
                    if (sp->recompute < 0 && c.recompute == TS_RC_SELECTIVE &&
                        s->r->h->fused_attention)
                        continue;
                    if (s->r->infer)
                        c.recompute = TS_RC_NONE;
                    ts_try(s, t, &c);
                    if (s->r->infer)
                        break;
                }
        }
    }
}

/* Pipeline sizes at fixed T, b and sequence parallelism. */
static void ts_try_pipes(ts_psearch *s, const ts_plan_tables *t, ts_plan_cfg c,
                         const char *const *names, int ns)
{
    int D = s->r->gpus, rest = D / (c.T * c.C);
    /* FSDP runs no pipeline: one stage only */
    int Pmax = s->r->framework == TS_FW_FSDP && !s->sp->P ? 1 : rest;
    for (c.P = 1; c.P <= Pmax; c.P++) {
        if (rest % c.P || (s->sp->P && c.P != s->sp->P) || c.P > t->n)
            continue;
        c.dp = rest / c.P;
        long per = (long)c.b * c.dp;
        c.N = s->r->global % per ? 0 : (int)(s->r->global / per);
        ts_try_inner(s, t, c, names, ns);
    }
}

static int ts_space_names(const ts_plan_req *r, const ts_plan_space *sp, const char **names,
                          int *ns, ts_err *e)
{
    *ns = 0;
    for (int i = 0; i < sp->nstrategies && *ns < 64; i++) {
        if (!ts_model_has_strategy(r->m, sp->strategies[i]))
            return ts_fail(e, TS_EINPUT,
                           "strategy '%s' does not apply to model '%s' (see `tessel model %s`)",
                           sp->strategies[i], r->m->name, r->m->name);
        names[(*ns)++] = sp->strategies[i];
    }
    /* Unless asked for by name, a strategy ranks only where the framework runs its schedule:
     * Megatron-LM 1F1B and interleaved 1F1B (--num-layers-per-virtual-pipeline-stage),
     * DeepSpeed's pipeline engine 1F1B (its TrainSchedule); a model listing none of them keeps
     * its own (their plans' schedules are then Tessel's) */
    static const char *const runs[TS_FW_COUNT][3] = {
        {"1f1b", "interleaved", NULL}, {NULL}, {"1f1b", NULL}};
    for (int pass = 0; pass < 2 && !sp->strategies && !*ns; pass++)
        for (int i = 0; i < r->m->nstrategies && *ns < 64; i++) {
            const char *const *ok =
                runs[r->framework >= 0 && r->framework < TS_FW_COUNT ? r->framework : 0];
            bool keep = pass == 1 || r->framework == TS_FW_FSDP;
            for (int k = 0; !keep && ok[k]; k++)
                keep = !strcmp(ok[k], r->m->strategies[i]);
            if (keep)
                names[(*ns)++] = r->m->strategies[i];
        }
    return *ns ? TS_OK : ts_fail(e, TS_EINPUT, "model '%s' lists no strategy", r->m->name);
}

/* The largest expert count of the model's layers (0: dense). */
static int ts_space_experts(const ts_model *m)
{
    int x = 0;
    for (int i = 0; i < m->nlayers; i++)
        x = m->layers[i].experts > x ? m->layers[i].experts : x;
    return x;
}

/* Context parallelism (auto: powers of two keeping at least 4096 tokens per GPU) and expert parallelism (auto: powers of two dividing the experts, up to 64) at fixed
 * T, b and sequence parallelism: one table each. */
static int ts_space_ce(ts_psearch *s, const char *const *names, int ns, int T, int b, bool seq,
                       ts_err *e)
{
    const ts_plan_req *r = s->r;
    const ts_plan_space *sp = s->sp;
    int experts = ts_space_experts(r->m);
    for (int C = sp->C ? sp->C : 1; C <= (sp->C ? sp->C : r->gpus / T); C *= 2) {
        if (r->gpus % (T * C) || (!sp->C && C > 1 && r->m->seq / C < 4096))
            continue;
        int Emax = sp->E ? sp->E : experts < 2 ? 1 : experts < 64 ? experts : 64;
        for (int E = sp->E ? sp->E : 1; E <= Emax; E *= 2) {
            if (!sp->E && E > 1 && experts % E)
                continue;
            ts_plan_tables t;
            if (ts_plan_tables_make(r, T, b, seq, C, E, sp->etp, sp->tpo, &t, e))
                return e->code;
            ts_plan_cfg c = {.T = T,
                             .b = b,
                             .seqpar = seq,
                             .C = C,
                             .E = E,
                             .etp = sp->etp,
                             .first = sp->first,
                             .last = sp->last,
                             .tpo = sp->tpo};
            ts_try_pipes(s, &t, c, names, ns);
            ts_plan_tables_free(&t);
        }
    }
    return TS_OK;
}

static int ts_space_loop(ts_psearch *s, const char *const *names, int ns, ts_err *e)
{
    const ts_plan_req *r = s->r;
    const ts_plan_space *sp = s->sp;
    int Tmax = sp->tp_across_nodes ? r->gpus : r->h->gpus_per_node;
    for (int T = sp->T ? sp->T : 1; T <= (sp->T ? sp->T : r->gpus); T *= 2) {
        if ((!sp->T && T > Tmax) || r->gpus % T)
            continue;
        for (int q = 0; q < 2; q++) {
            bool seq = q == 1;
            if ((sp->seqpar >= 0 && seq != (sp->seqpar > 0)) || (seq && T == 1 && sp->seqpar < 0))
                continue;
            /* a fixed size, or powers of two */
            for (int b = sp->b ? sp->b : 1; b <= (sp->b ? sp->b : 64); b *= 2) {
                if (r->global % b)
                    continue;
                if (ts_space_ce(s, names, ns, T, b, seq, e))
                    return e->code;
            }
        }
    }
    return TS_OK;
}

int ts_plan_space_search(const ts_plan_req *r, const ts_plan_space *sp, ts_plan_found **out,
                         int *count, ts_plan_stats *st, ts_err *e)
{
    const char *names[64];
    int ns;
    memset(st, 0, sizeof *st);
    *out = NULL;
    *count = 0;
    if (ts_space_names(r, sp, names, &ns, e))
        return e->code;
    ts_psearch s = {r, sp, st, NULL, 0, 0, sp->keep > 0 ? sp->keep : 10, 0};
    s.kept = calloc((size_t)(2 * s.keep), sizeof *s.kept);
    if (!s.kept)
        return ts_fail(e, TS_ESYS, "plan: out of memory");
    int rc = ts_space_loop(&s, names, ns, e);
    if (rc) {
        free(s.kept);
        return rc;
    }
    /* the bound-only plans after those with a time */
    memmove(s.kept + s.nk, s.kept + s.keep, (size_t)s.nb * sizeof *s.kept);
    *out = s.kept;
    *count = s.nk + s.nb;
    return TS_OK;
}
