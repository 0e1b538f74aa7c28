/* Plans a framework runs (issue 45): each framework's bytes per parameter and rules, Megatron's
 * divisibility of layers by pipeline x virtual stages and uneven first and last stages, context
 * parallelism (ring attention) and expert parallelism against their formulas, and the headroom. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "model_testutil.h"
#include "ts_model.h"
#include "ts_plan.h"


static ts_model *load(const char *name, int seq)
{
    char path[512];
    ts_err e = {0};
    ts_model *m = NULL;
    assert_int_equal(ts_model_path(MODELS, name, false, path, sizeof path, &e), TS_OK);
    if (ts_model_load(path, seq, &m, &e))
        fail_msg("%s", e.msg);
    return m;
}

/* Megatron-Core's table: bf16 parameters with fp32 gradients, 18 bytes, 6 + 12/d distributed;
 * DeepSpeed and FSDP keep ZeRO's 16, 4 + 12/d, 2 + 14/d, 16/d. */
static void test_bytes_per_param(void **state)
{
    (void)state;
    assert_true(ts_framework_bytes_per_param(TS_FW_MEGATRON, 0, 64) == 18);
    assert_true(fabs(ts_framework_bytes_per_param(TS_FW_MEGATRON, 1, 64) - (6 + 12.0 / 64)) <
                1e-12);
    assert_true(fabs(ts_framework_bytes_per_param(TS_FW_MEGATRON, 3, 8) - 18.0 / 8) < 1e-12);
    assert_true(fabs(ts_framework_bytes_per_param(TS_FW_DEEPSPEED, 1, 64) - (4 + 12.0 / 64)) <
                1e-12);
    assert_true(ts_framework_bytes_per_param(TS_FW_FSDP, 3, 16) == 1);
    /* bf16 main gradients (NeMo's FP8 recipes): 2 bytes less, 2/d less under FSDP */
    ts_plan_req r = {.framework = TS_FW_MEGATRON, .grad_bf16 = true};
    assert_true(fabs(ts_plan_bytes_per_param(&r, 1, 64) - (4 + 12.0 / 64)) < 1e-12);
    assert_true(fabs(ts_plan_bytes_per_param(&r, 3, 8) - 16.0 / 8) < 1e-12);
    r.framework = TS_FW_DEEPSPEED;
    assert_true(fabs(ts_plan_bytes_per_param(&r, 1, 64) - (4 + 12.0 / 64)) < 1e-12);
}

/* A ring across nodes with m members in each node runs through m adapters: DGX H100's 50 GB/s
 * per GPU x m, at most NVLink's 450; one member per node (stride 8) gets one adapter. */
static void test_group_bandwidth(void **state)
{
    (void)state;
    ts_hardware h;
    tu_hw_load("h100-80gb", &h);
    assert_true(ts_hw_group_bw(&h, 2, 32) == 4 * 50e9);
    assert_true(ts_hw_group_bw(&h, 8, 16) == 50e9);
    assert_true(ts_hw_group_bw(&h, 1, 16) == 400e9);
    assert_true(ts_hw_group_bw(&h, 1, 8) == 450e9);
    ts_hardware_clear(&h);
}

typedef struct {
    ts_model *m;
    ts_hardware h;
    ts_plan_req r;
} fixture;

static void setup(fixture *x, const char *model, int seq, const char *hw, int gpus, long global)
{
    x->m = load(model, seq);
    tu_hw_load(hw, &x->h);
    x->r = (ts_plan_req){.m = x->m, .h = &x->h, .gpus = gpus, .global = global};
}

static void teardown(fixture *x)
{
    ts_model_free(x->m);
    ts_hardware_clear(&x->h);
}

static int eval(fixture *x, ts_plan_cfg c, ts_plan_cost *out, char *why)
{
    c.N = (int)(x->r.global / ((long)c.b * c.dp));
    return ts_plan_cost_eval(&x->r, &c, out, why, 240);
}

/* The 40 layers on 2 stages: Megatron runs v = 2, 4, 5, and 3 and 7 only with
 * --account-for-embedding/loss-in-pipeline-split (40 + 2 = 42 = 2 x 3 x 7), and refuses 6; ZeRO-2
 * is refused, ZeRO-3 only without a pipeline; FSDP runs no pipeline; DeepSpeed's pipeline
 * runs ZeRO-1 at most. */
static void test_framework_rules(void **state)
{
    (void)state;
    fixture x;
    setup(&x, "gpt3-13b", 0, "a100-80gb", 64, 512);
    ts_plan_cost out;
    char why[240];
    ts_plan_cfg c = {.strategy = "interleaved",
                     .T = 8,
                     .P = 2,
                     .dp = 4,
                     .b = 1,
                     .recompute = TS_RC_FULL,
                     .zero = 1};
    for (int v = 2; v <= 7; v++) {
        c.v = v;
        int rc = eval(&x, c, &out, why);
        /* v = 3 and 7 run only with the embedding and the loss counted as blocks (42) */
        bool divides = 40 % (2 * v) == 0 || 42 % (2 * v) == 0;
        if (divides ? rc != 0 : rc != TS_REFUSE_FRAMEWORK + 1)
            fail_msg("v = %d: %d (%s)", v, rc, why);
    }
    assert_non_null(strstr(why, "divisible by pipeline x virtual stages"));
    c.v = 1;
    c.strategy[0] = 0;
    strcpy(c.strategy, "1f1b");
    c.zero = 2;
    assert_int_equal(eval(&x, c, &out, why), TS_REFUSE_FRAMEWORK + 1);
    c.zero = 3;
    assert_int_equal(eval(&x, c, &out, why), TS_REFUSE_FRAMEWORK + 1);
    assert_non_null(strstr(why, "without a pipeline"));
    ts_plan_cfg one = {.strategy = "no-pipeline",
                       .T = 8,
                       .P = 1,
                       .v = 1,
                       .dp = 8,
                       .b = 1,
                       .recompute = TS_RC_FULL,
                       .zero = 3};
    assert_int_equal(eval(&x, one, &out, why), 0);
    x.r.framework = TS_FW_FSDP;
    c.zero = 3;
    assert_int_equal(eval(&x, c, &out, why), TS_REFUSE_FRAMEWORK + 1);
    assert_int_equal(eval(&x, one, &out, why), 0);
    x.r.framework = TS_FW_DEEPSPEED;
    c.zero = 2;
    assert_int_equal(eval(&x, c, &out, why), TS_REFUSE_FRAMEWORK + 1);
    c.zero = 1;
    assert_int_equal(eval(&x, c, &out, why), 0);
    teardown(&x);
}

/* Llama 3 405B's 126 blocks on 16 stages: not even, but 7 + 14 x 8 + 7 is (the first and last
 * stages one block lighter, as the Llama 3 paper ran it), and so is the split counting the
 * embedding and the loss as blocks (128); 8 + 8 leaves 110 for 14 stages, refused; on 12
 * stages neither 126 nor 128 divides. */
static void test_uneven_stages(void **state)
{
    (void)state;
    fixture x;
    setup(&x, "llama3-405b", 0, "h100-80gb", 2048, 1024);
    ts_plan_cost out;
    char why[240];
    ts_plan_cfg c = {.strategy = "1f1b",
                     .T = 8,
                     .P = 16,
                     .v = 1,
                     .dp = 16,
                     .b = 1,
                     .recompute = TS_RC_FULL,
                     .zero = 1,
                     .seqpar = true};
    if (eval(&x, c, &out, why))
        fail_msg("126 + 2 on 16 stages: %s", why);
    c.P = 12;
    assert_int_equal(eval(&x, c, &out, why), TS_REFUSE_FRAMEWORK + 1);
    c.P = 16;
    c.first = c.last = 7;
    if (eval(&x, c, &out, why))
        fail_msg("7 + 14 x 8 + 7: %s", why);
    c.first = c.last = 8;
    assert_int_equal(eval(&x, c, &out, why), TS_REFUSE_FRAMEWORK + 1);
    teardown(&x);
}

/* Ring attention: activations divide by C; the ring's C - 1 steps of kv_bytes / (C T) on NVLink
 * hide behind the attention core at 128K tokens and not at 4K. */
static void test_context_parallel(void **state)
{
    (void)state;
    fixture x;
    setup(&x, "llama3-8b", 131072, "h100-80gb", 64, 64);
    const ts_layer *l = &x.m->layers[1];
    ts_cost_opts o = {.b = 1, .T = 2, .gemm_shape = true, .fused = true, .seqpar = true};
    ts_layer_cost one, four;
    ts_layer_cost_of(l, &x.h, &o, 0, &one);
    o.cp = 4;
    ts_layer_cost_of(l, &x.h, &o, 0, &four);
    assert_true(fabs(four.act_bytes - one.act_bytes / 4) < 1e-6 * one.act_bytes);
    assert_true(four.cp_s == 0);
    /* at 4K tokens with T = 8, C = 4 the ring spans 32 GPUs: the network, and exposed:
     * (ring - core) in the forward, twice that in the backward */
    ts_model *m4 = load("llama3-8b", 4096);
    const ts_layer *l4 = &m4->layers[1];
    o.T = 8;
    ts_layer_cost_of(l4, &x.h, &o, 0, &four);
    double ring = 3 * l4->kv_bytes / (4 * 8) / (x.h.internode_gbs * 1e9);
    double core = l4->attn_flops / 32 * 0.5 / (x.h.peak_tflops * 1e12 * x.h.attention_efficiency);
    assert_true(ring > core);
    assert_true(fabs(four.cp_s - 3 * (ring - core)) < 1e-9 * ring);
    ts_model_free(m4);
    /* at 128K tokens without recomputation, C = 8 fits where C = 1 does not */
    ts_plan_cost out;
    char why[240];
    ts_plan_cfg c = {.strategy = "no-pipeline",
                     .T = 8,
                     .P = 1,
                     .v = 1,
                     .dp = 8,
                     .b = 1,
                     .recompute = TS_RC_NONE,
                     .zero = 1,
                     .seqpar = true,
                     .C = 1};
    assert_int_equal(eval(&x, c, &out, why), TS_REFUSE_MEMORY + 1);
    c.C = 8;
    c.dp = 1;
    if (eval(&x, c, &out, why))
        fail_msg("C = 8: %s", why);
    teardown(&x);
}

/* Mixtral's experts split E ways; the all-to-alls cost 2 x 2 s top_k h b (E - 1)/E bytes per
 * forward on NVLink; E must divide the experts and dp x C. */
static void test_expert_parallel(void **state)
{
    (void)state;
    fixture x;
    setup(&x, "mixtral-8x7b", 4096, "h100-80gb", 64, 256);
    const ts_layer *l = &x.m->layers[1];
    ts_cost_opts o = {.b = 1, .T = 1, .gemm_shape = true, .fused = true, .zero = 0};
    ts_layer_cost one, eight;
    ts_layer_cost_of(l, &x.h, &o, 0, &one);
    o.ep = 8;
    ts_layer_cost_of(l, &x.h, &o, 0, &eight);
    double moved = l->expert_params * 7 / 8 * 16;
    assert_true(fabs(one.static_bytes - eight.static_bytes - moved) < 1e-6 * moved);
    double a2a = 2 * (2 * l->a2a_bytes * 7 / 8) / (x.h.nvlink_gbs * 1e9);
    assert_true(fabs(eight.a2a_s - a2a) < 1e-9 * a2a);
    assert_true(one.a2a_s == 0);
    ts_plan_cost out;
    char why[240];
    ts_plan_cfg c = {.strategy = "1f1b",
                     .T = 1,
                     .P = 4,
                     .v = 1,
                     .dp = 16,
                     .b = 1,
                     .recompute = TS_RC_FULL,
                     .zero = 1,
                     .E = 8};
    if (eval(&x, c, &out, why))
        fail_msg("E = 8: %s", why);
    c.E = 16;
    assert_int_equal(eval(&x, c, &out, why), TS_REFUSE_FRAMEWORK + 1);
    assert_non_null(strstr(why, "does not divide the 8 experts"));
    teardown(&x);
}

/* The headroom: a plan that fits at 0 is refused at 0.4, the reason naming 60 % of the HBM. */
static void test_headroom(void **state)
{
    (void)state;
    fixture x;
    setup(&x, "gpt3-13b", 0, "a100-80gb", 8, 64);
    ts_plan_cost out;
    char why[240];
    ts_plan_cfg c = {.strategy = "1f1b",
                     .T = 2,
                     .P = 4,
                     .v = 1,
                     .dp = 1,
                     .b = 1,
                     .recompute = TS_RC_NONE,
                     .zero = 0};
    if (eval(&x, c, &out, why))
        fail_msg("%s", why);
    double cap = 0.6 * x.h.hbm_gb;
    assert_true(out.peak_bytes > cap * 1e9);
    x.r.headroom = 0.4;
    assert_int_equal(eval(&x, c, &out, why), TS_REFUSE_MEMORY + 1);
    char want[40];
    snprintf(want, sizeof want, "more than %.1f GB", cap);
    assert_non_null(strstr(why, want));
    teardown(&x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bytes_per_param), cmocka_unit_test(test_framework_rules),
        cmocka_unit_test(test_uneven_stages),   cmocka_unit_test(test_context_parallel),
        cmocka_unit_test(test_expert_parallel), cmocka_unit_test(test_headroom),
        cmocka_unit_test(test_group_bandwidth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
