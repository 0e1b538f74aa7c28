/* The plan space's cost model and search (ts_plan.h): a plan's breakdown adds up to its
 * iteration time; the closed forms order as their formulas say (interleaving shrinks the bubble,
 * one stage has none); refusals (stages, memory, heads); ZeRO and recomputation lower the memory they should; bound pruning keeps
 * the answer of a search that prunes almost nothing; the counts add up. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ts_plan.h"

#define MODELS TS_TEST_DATA "/../models"

typedef struct {
    ts_model *m;
    ts_hardware h;
    ts_plan_req r;
} fixture;

static void setup(fixture *f, const char *model, int gpus, long global)
{
    char path[512];
    ts_err e = {0};
    memset(f, 0, sizeof *f);
    assert_int_equal(ts_model_path(MODELS, model, false, path, sizeof path, &e), TS_OK);
    if (ts_model_load(path, 0, &f->m, &e))
        fail_msg("%s", e.msg);
    assert_int_equal(ts_model_path(MODELS, "a100-80gb", true, path, sizeof path, &e), TS_OK);
    if (ts_hardware_load(path, &f->h, &e))
        fail_msg("%s", e.msg);
    f->r = (ts_plan_req){.m = f->m, .h = &f->h, .gpus = gpus, .global = global};
}

static void teardown(fixture *f)
{
    ts_model_free(f->m);
    ts_hardware_clear(&f->h);
}

static ts_plan_cost cost(const fixture *f, ts_plan_cfg c, int want)
{
    ts_plan_cost out;
    char why[240] = "";
    c.dp = f->r.gpus / (c.T * c.P);
    c.N = (int)(f->r.global / ((long)c.b * c.dp));
    int rc = ts_plan_cost_eval(&f->r, &c, &out, why, sizeof why);
    if (rc != want)
        fail_msg("rc %d, want %d: %s", rc, want, why);
    return out;
}

static double parts(const ts_plan_cost *c)
{
    return c->compute_s + c->tp_s + c->p2p_s + c->bubble_s + c->dp_s + c->zero_s +
           c->optimizer_s;
}

static void test_breakdown_and_forms(void **state)
{
    (void)state;
    fixture f;
    setup(&f, "gpt3-175b", 512, 1536);
    ts_plan_cfg c = {.strategy = "1f1b", .T = 8, .P = 8, .v = 1, .b = 1,
                     .recompute = TS_RC_FULL};
    ts_plan_cost a = cost(&f, c, 0);
    assert_true(fabs(parts(&a) - a.iter_s) <= 1e-12 * a.iter_s);
    assert_true(a.closed_form && a.bubble_s > 0 && a.tp_s > 0 && a.p2p_s > 0);
    assert_true(a.lower_bound_s < a.iter_s);
    assert_int_equal(a.stages_rc[TS_RC_FULL], 8);
    /* Megatron counts the recomputed forward: 4 forwards' worth of the blocks, not 3 */
    assert_true(a.counted_flops > a.model_flops * 1.3 && a.counted_flops < a.model_flops * 4 / 3.0);
    /* Megatron-Bridge's causal count drops half the attention core: by Megatron-LM's formula
     * (72 B s l h^2 (1 + s / 6h + V / 12lh)) the core is the s / 6h part of the whole */
    double h = 12288, sq = 2048, l = 96, V = 50257, q = sq / (6 * h);
    double dropped = 0.5 * q / (1 + q + V / (12 * l * h));
    assert_true(fabs((a.model_flops - a.causal_flops) / a.model_flops - dropped) < 1e-3 * dropped);
    snprintf(c.strategy, sizeof c.strategy, "interleaved");
    c.v = 4;
    ts_plan_cost b = cost(&f, c, 0);
    assert_true(b.bubble_s < a.bubble_s);
    assert_true(fabs(parts(&b) - b.iter_s) <= 1e-12 * b.iter_s);
    /* the same plan with ZeRO-1 holds less and adds its gather */
    c.zero = 1;
    ts_plan_cost z = cost(&f, c, 0);
    assert_true(z.peak_bytes < b.peak_bytes && z.zero_s > 0);
    /* selective recomputation stores less than none, more than full */
    c = (ts_plan_cfg){.strategy = "1f1b", .T = 8, .P = 32, .v = 1, .b = 1};
    c.recompute = TS_RC_NONE;
    ts_plan_cost n = cost(&f, c, 0);
    c.recompute = TS_RC_SELECTIVE;
    ts_plan_cost s = cost(&f, c, 0);
    c.recompute = TS_RC_FULL;
    ts_plan_cost u = cost(&f, c, 0);
    assert_true(n.peak_bytes > s.peak_bytes && s.peak_bytes > u.peak_bytes);
    assert_true(n.iter_s < s.iter_s && s.iter_s < u.iter_s);
    /* one stage: no bubble; too many stages or a batch that does not split are refused */
    c = (ts_plan_cfg){.strategy = "1f1b", .T = 8, .P = 1, .v = 1, .b = 1, .zero = 3,
                      .recompute = TS_RC_FULL};
    ts_plan_cost one = cost(&f, c, 0);
    assert_true(one.bubble_s == 0 && one.p2p_s == 0);
    c.P = 64;
    c.v = 2;
    snprintf(c.strategy, sizeof c.strategy, "interleaved");
    cost(&f, c, TS_REFUSE_STAGES + 1);
    c = (ts_plan_cfg){.strategy = "1f1b", .T = 8, .P = 2, .v = 1, .b = 1,
                      .recompute = TS_RC_NONE};
    cost(&f, c, TS_REFUSE_MEMORY + 1);
    /* 96 heads do not split over 64 GPUs */
    c.T = 64;
    c.P = 1;
    cost(&f, c, TS_REFUSE_HEADS + 1);
    teardown(&f);
}

/* Pruning: the best 5 of a search that keeps 5 are those of one that keeps 2000. */
static void test_pruning_keeps_the_answer(void **state)
{
    (void)state;
    fixture f;
    setup(&f, "gpt3-13b", 32, 128);
    ts_plan_space sp = {.zero = -1, .recompute = -1, .seqpar = -1, .keep = 5};
    ts_plan_found *a, *b;
    int na, nb;
    ts_plan_stats sa, sb;
    ts_err e = {0};
    assert_int_equal(ts_plan_space_search(&f.r, &sp, &a, &na, &sa, &e), TS_OK);
    sp.keep = 2000;
    assert_int_equal(ts_plan_space_search(&f.r, &sp, &b, &nb, &sb, &e), TS_OK);
    assert_true(sa.pruned > sb.pruned && sa.pruned > 0);
    assert_int_equal(sa.total, sb.total);
    assert_int_equal(sa.total, sa.evaluated + sa.pruned + sa.refused);
    for (int i = 0; i < 5; i++) {
        assert_true(a[i].cost.closed_form);
        assert_true(a[i].cost.iter_s == b[i].cost.iter_s);
        assert_memory_equal(&a[i].cfg, &b[i].cfg, sizeof a[i].cfg);
        assert_true(i == 0 || a[i - 1].cost.iter_s <= a[i].cost.iter_s);
    }
    free(a);
    free(b);
    /* a strategy the model does not list is a bad request */
    const char *bad[] = {"kshape"};
    sp.strategies = bad;
    sp.nstrategies = 1;
    assert_int_equal(ts_plan_space_search(&f.r, &sp, &a, &na, &sa, &e), TS_EINPUT);
    teardown(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_breakdown_and_forms),
        cmocka_unit_test(test_pruning_keeps_the_answer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
