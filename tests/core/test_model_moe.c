/* Today's models (issue 45): grouped-query and latent attention and mixture-of-experts layers
 * against figures worked by hand from their papers' hyper-parameters, and the shipped models'
 * parameter counts against the totals their papers publish. */
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


/* Parameters a token runs through: every layer's linear FLOPs per token / 2 (the embedding's
 * table counted whole, as the papers count it). */
static double active_params(const ts_model *m)
{
    double p = 0;
    for (int i = 0; i < m->nlayers; i++) {
        const ts_layer *l = &m->layers[i];
        p += !strcmp(l->kind, "embedding") ? l->params : l->slice_lin / 2;
    }
    return p;
}

/* Totals published with each model: Llama 3 8B, 70B, 405B (Table 3's names), Mixtral 8x7B
 * 46.7B total and 12.9B active (the paper's section 2.1: "47B", "13B"; the release card: 46.7B,
 * 12.9B), DeepSeek-V3 671B total and 37B activated (abstract), Qwen3-30B-A3B 30.5B and 3.3B,
 * Qwen3-235B-A22B 235B and 22B (their model cards). */
static void test_published_totals(void **state)
{
    (void)state;
    const struct {
        const char *name;
        double total, active;
    } rows[] = {{"llama3-8b", 8.0e9, 0},
                {"llama3-70b", 70e9, 0},
                {"llama3-405b", 405e9, 0},
                {"mixtral-8x7b", 46.7e9, 12.9e9},
                {"deepseek-v3", 671e9, 37e9},
                {"qwen3-30b-a3b", 30.5e9, 3.3e9},
                {"qwen3-235b-a22b", 235e9, 22e9}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        ts_model *m = tu_model_load(rows[i].name);
        double P = ts_model_params(m), A = active_params(m);
        if (fabs(P / rows[i].total - 1) > 0.01)
            fail_msg("%s: %.2fB parameters, published %.1fB", rows[i].name, P / 1e9,
                     rows[i].total / 1e9);
        if (rows[i].active > 0 && fabs(A / rows[i].active - 1) > 0.03)
            fail_msg("%s: %.2fB active, published %.1fB", rows[i].name, A / 1e9,
                     rows[i].active / 1e9);
        ts_model_free(m);
    }
}

/* A Llama 3 8B layer by hand: Q and O h x h_q, K and V h x (8 x 128), SwiGLU's three h x f,
 * attention core 4 s^2 h_q; stored bytes 18 s h + 6 s f + 5 a s^2 with keys and values 8 heads
 * wide (4 s (h_q - h_kv) less than multi-head attention). */
static void test_gqa_layer(void **state)
{
    (void)state;
    ts_model *m = tu_model_load("llama3-8b");
    const ts_layer *l = &m->layers[1];
    double h = 4096, hq = 4096, hkv = 1024, f = 14336, s = 8192, a = 32;
    double lin = 2 * h * hq + 2 * h * hkv + 3 * h * f;
    assert_true(fabs(l->params - (lin + hq + 2 * hkv + h + 2 * f + h + 4 * h)) < 1);
    assert_true(fabs(l->fwd_flops - (2 * s * lin + 4 * s * s * hq)) < 1e3);
    double act = 18 * s * h + 6 * s * f + 5 * a * s * s - 4 * s * (hq - hkv);
    assert_true(fabs(l->act_bytes - act) < 1);
    assert_true(fabs(l->kv_bytes - 2 * 2 * hkv * s) < 1);
    assert_int_equal(l->kv_heads, 8);
    assert_int_equal(l->heads, 32);
    ts_model_free(m);
}

/* A Mixtral layer: 8 experts of 3 h f held, 2 run per token, a router of h x 8, two all-to-alls
 * of 2 s k h bytes each per sample; and moe_every 2 makes layers 0 and 2 of four MoE. */
static void test_moe_layer(void **state)
{
    (void)state;
    ts_model *m = tu_model_load("mixtral-8x7b");
    const ts_layer *l = &m->layers[1];
    double h = 4096, hkv = 1024, f = 14336, s = 32768;
    double attn = 2 * h * h + 2 * h * hkv;
    assert_true(fabs(l->expert_params - 8 * 3 * h * f) < 1);
    assert_true(fabs(l->slice_lin - 2 * (attn + 2 * 3 * h * f + 8 * h)) < 1);
    assert_true(fabs(l->a2a_bytes - 2 * s * 2 * h) < 1);
    assert_int_equal(l->experts, 8);
    assert_int_equal(l->top_k, 2);
    ts_model_free(m);
    const char *text =
        "{\"format\": \"tessel-model/1\", \"name\": \"every\", \"seq\": 128, \"strategies\": "
        "[\"1f1b\"], \"sections\": [{\"kind\": \"transformer\", \"count\": 4, \"hidden\": 64, "
        "\"heads\": 4, \"kv_heads\": 2, \"experts\": 4, \"top_k\": 1, \"moe_every\": 2}]}";
    ts_err e = {0};
    assert_int_equal(ts_model_parse(text, strlen(text), "every", 0, &m, &e), TS_OK);
    for (int i = 0; i < 4; i++)
        assert_int_equal(m->layers[i].experts, i % 2 ? 0 : 4);
    /* the MoE layer with top-1 of 4 experts of 4h runs the dense layer's FLOPs plus the router */
    assert_true(fabs(m->layers[0].slice_lin - (m->layers[1].slice_lin + 2 * 64 * 4)) < 1e-6);
    ts_model_free(m);
}

static void expect_bad(const char *section, const char *needle)
{
    char text[600];
    snprintf(text, sizeof text,
             "{\"format\": \"tessel-model/1\", \"name\": \"bad\", \"seq\": 128, \"strategies\": "
             "[\"1f1b\"], \"sections\": [%s]}",
             section);
    ts_model *m = NULL;
    ts_err e = {0};
    assert_int_equal(ts_model_parse(text, strlen(text), "bad.json", 0, &m, &e), TS_EINPUT);
    assert_null(m);
    if (!strstr(e.msg, needle))
        fail_msg("expected '%s' in: %s", needle, e.msg);
}

static void test_bad_sections(void **state)
{
    (void)state;
    expect_bad("{\"kind\": \"transformer\", \"hidden\": 64, \"heads\": 4, \"kv_heads\": 3}",
               "kv_heads 3 must divide heads 4");
    expect_bad("{\"kind\": \"transformer\", \"hidden\": 64, \"heads\": 4, \"experts\": 2, "
               "\"top_k\": 3}",
               "top_k 3 must be a whole number up to experts 2");
    expect_bad("{\"kind\": \"swin\", \"hidden\": 64, \"heads\": 4, \"window\": 7, \"experts\": 2}",
               "experts apply to transformer-like sections only");
}

/* Megatron splits key/value groups like heads: T = 16 over Llama 3's 8 groups is refused with
 * the reason, T = 8 is not; --seq (ts_model_load's seq) reaches 128K tokens. */
static void test_tp_divides_kv_heads(void **state)
{
    (void)state;
    ts_model *m = tu_model_load("llama3-70b");
    ts_hardware hw;
    char path[512];
    ts_err e = {0};
    assert_int_equal(ts_model_path(MODELS, "h100-80gb", true, path, sizeof path, &e), TS_OK);
    assert_int_equal(ts_hardware_load(path, &hw, &e), TS_OK);
    ts_plan_req r = {.m = m, .h = &hw, .gpus = 64, .global = 64};
    ts_plan_cfg c = {.strategy = "1f1b",
                     .T = 16,
                     .P = 4,
                     .v = 1,
                     .dp = 1,
                     .b = 1,
                     .N = 64,
                     .recompute = TS_RC_FULL};
    ts_plan_cost out;
    char why[240];
    assert_int_equal(ts_plan_cost_eval(&r, &c, &out, why, sizeof why), TS_REFUSE_HEADS + 1);
    assert_non_null(strstr(why, "8 key/value"));
    c.T = 8;
    c.P = 8;
    assert_int_equal(ts_plan_cost_eval(&r, &c, &out, why, sizeof why), 0);
    ts_model_free(m);
    assert_int_equal(ts_model_path(MODELS, "llama3-8b", false, path, sizeof path, &e), TS_OK);
    assert_int_equal(ts_model_load(path, 131072, &m, &e), TS_OK);
    assert_int_equal(m->seq, 131072);
    assert_true(fabs(m->layers[1].gemm_tokens - 131072) < 1);
    assert_true(isfinite(m->layers[1].act_bytes) &&
                m->layers[1].act_bytes > 5 * 32 * 131072.0 * 131072);
    ts_model_free(m);
    ts_hardware_clear(&hw);
}

/* DeepSeek-V3's MoE layer on B200: the token permutation before the experts and back (8
 * copies of each of 4096 tokens' 7168-wide bf16 state written and read, the tokens read and
 * written once: 2 x 2 x 7168 x 9 bytes a token) at HBM bandwidth, in the forward and again in
 * the backward; with 32 experts on each of 8 GPUs, sorted once more each way. MLA's
 * down-projection runs whole on each tensor-parallel GPU: at T = 8 the layer's GEMMs reach a
 * lower fraction of the large-GEMM rate than the one QKV GEMM of the same FLOPs would. */
static void test_moe_permute_mla(void **state)
{
    (void)state;
    ts_model *m = tu_model_load("deepseek-v3");
    ts_hardware hw;
    char path[512];
    ts_err e = {0};
    assert_int_equal(ts_model_path(MODELS, "b200-180gb", true, path, sizeof path, &e), TS_OK);
    if (ts_hardware_load(path, &hw, &e))
        fail_msg("%s", e.msg);
    const ts_layer *l = NULL;
    for (int i = 0; i < m->nlayers && !l; i++)
        if (m->layers[i].experts > 0)
            l = &m->layers[i];
    assert_non_null(l);
    ts_layer dense = *l;
    dense.experts = 0;
    double bytes = 2 * 2 * 7168.0 * 9 * 4096, bw = hw.hbm_gbs * 1e9;
    for (int ep = 1; ep <= 8; ep *= 8) {
        ts_cost_opts o = {.b = 1, .T = 1, .gemm_shape = true, .fused = true, .ep = ep};
        ts_layer_cost with, without;
        ts_layer_cost_of(l, &hw, &o, 0, &with);
        o.ep = 1;
        ts_layer_cost_of(&dense, &hw, &o, 0, &without);
        double perm = (ep > 1 ? 2 : 1) * bytes / bw;
        double a2a = with.a2a_s / 2;
        assert_true(fabs(with.fwd_s - without.fwd_s - a2a - perm) < 1e-9 * with.fwd_s);
        assert_true(fabs(with.bgrad_s - without.bgrad_s - a2a - perm) < 1e-9 * with.bgrad_s);
    }
    ts_layer one = *l;
    one.mla_down = 0;
    assert_true(ts_layer_gemm_factor(l, &hw, 1, 8) < ts_layer_gemm_factor(&one, &hw, 1, 8));
    assert_true(fabs(ts_layer_gemm_factor(l, &hw, 1, 1) - ts_layer_gemm_factor(&one, &hw, 1, 1)) <
                0.05);
    ts_model_free(m);
    ts_hardware_clear(&hw);
}

/* Qwen3-235B-A22B's shape (its config.json): 94 blocks of hidden 4096, 64 query and 4 key/value
 * heads of 128, 128 SwiGLU experts of 1536 with 8 per token. */
static ts_model *qwen3_moe(void)
{
    const char *text =
        "{\"format\": \"tessel-model/1\", \"name\": \"qwen3-moe\", \"seq\": 4096, \"strategies\": "
        "[\"interleaved\"], \"sections\": [{\"kind\": \"embedding\", \"vocab\": 151936, "
        "\"hidden\": 4096}, {\"kind\": \"transformer\", \"count\": 94, \"hidden\": 4096, "
        "\"heads\": 64, \"kv_heads\": 4, \"head_dim\": 128, \"ffn\": 12288, \"ffn_matrices\": 3, "
        "\"experts\": 128, \"top_k\": 8, \"expert_ffn\": 1536}, {\"kind\": \"head\", \"vocab\": "
        "151936, \"hidden\": 4096}]}";
    ts_model *m = NULL;
    ts_err e = {0};
    if (ts_model_parse(text, strlen(text), "qwen3-moe", 0, &m, &e))
        fail_msg("%s", e.msg);
    return m;
}

/* MoE parallel folding (Megatron-Core's expert tensor parallelism): Megatron-Bridge's
 * Qwen3-235B-A22B recipe, T 2, P 8, EP 32 on 256 GPUs (dp 16), folds its 32-wide expert groups
 * over T x dp = 32 at expert tensor parallelism 1 and is refused at 2 (64 GPUs an expert group);
 * at expert tensor parallelism 1 a GPU holds its experts whole (not split by T), runs the same
 * FLOPs in other GEMM shapes, and its all-to-all group lies 1 apart (4 nodes) instead of 2 (8). */
static void test_parallel_folding(void **state)
{
    (void)state;
    ts_model *m = qwen3_moe();
    ts_hardware hw;
    tu_hw_load("h100-80gb", &hw);
    ts_plan_req r = {.m = m, .h = &hw, .gpus = 256, .global = 8192};
    ts_plan_cfg c = {.strategy = "interleaved", .T = 2, .P = 8, .v = 4, .dp = 16, .zero = 1,
                     .b = 1, .N = 512, .seqpar = true, .recompute = TS_RC_FULL, .E = 32,
                     .etp = 1};
    ts_plan_cost out;
    char why[240] = "";
    if (ts_plan_cost_eval(&r, &c, &out, why, sizeof why))
        fail_msg("T 2 EP 32 ETP 1 on 256 GPUs refused: %s", why);
    c.etp = 2;
    assert_int_equal(ts_plan_cost_eval(&r, &c, &out, why, sizeof why), TS_REFUSE_FRAMEWORK + 1);
    if (!strstr(why, "expert parallelism 32 x expert tensor parallelism 2 does not divide "
                     "tensor x data x context parallelism 32"))
        fail_msg("refusal: %s", why);
    /* unset is T: refused the same way */
    c.etp = 0;
    assert_int_equal(ts_plan_cost_eval(&r, &c, &out, why, sizeof why), TS_REFUSE_FRAMEWORK + 1);

    /* memory: at EP 16 both fit the rule; ETP 1 holds 1/16 of the experts, ETP 2 1/32 */
    c.E = 16;
    c.etp = 1;
    ts_plan_cost one, two;
    assert_int_equal(ts_plan_cost_eval(&r, &c, &one, why, sizeof why), 0);
    c.etp = 2;
    assert_int_equal(ts_plan_cost_eval(&r, &c, &two, why, sizeof why), 0);
    assert_true(one.peak_bytes > two.peak_bytes);
    const ts_layer *l = &m->layers[1];
    assert_true(l->experts == 128 && l->expert_params > 0);
    double dense = (l->params - l->expert_params) / 2;
    assert_true(fabs(ts_layer_held(l, 2, 16, 1) - (dense + l->expert_params / 16)) < 1);
    assert_true(fabs(ts_layer_held(l, 2, 16, 0) - (dense + l->expert_params / 32)) < 1);
    assert_true(fabs(ts_layer_held(l, 2, 16, 2) - ts_layer_held(l, 2, 16, 0)) < 1e-6);

    /* compute: the GEMM seconds times the GEMM-shape factor are the FLOPs at the profile's
     * rate, the same at ETP 1 and ETP T; the shapes, and so the factor, differ */
    ts_cost_opts o = {.b = 1, .T = 2, .seqpar = true, .gemm_shape = true, .ep = 32, .etp = 1};
    ts_layer_cost at1, atT;
    ts_layer_cost_of(l, &hw, &o, 0, &at1);
    o.etp = 0;
    ts_layer_cost_of(l, &hw, &o, 0, &atT);
    double f1 = ts_layer_gemm_factor_etp(l, &hw, 1, 2, 1), fT = ts_layer_gemm_factor(l, &hw, 1, 2);
    assert_true(fabs(f1 - fT) > 1e-4);
    assert_true(fabs(at1.wgrad_s * f1 - atT.wgrad_s * fT) < 1e-9 * atT.wgrad_s * fT);
    /* the all-to-all: 32 GPUs 1 apart span 4 nodes of 8, 2 apart 8 nodes */
    double bytes = l->a2a_bytes / 2;
    assert_true(fabs(at1.a2a_s - 4 * ts_hw_alltoall_s(&hw, 1, 32, bytes)) < 1e-12);
    assert_true(fabs(atT.a2a_s - 4 * ts_hw_alltoall_s(&hw, 2, 32, bytes)) < 1e-12);
    assert_true(at1.a2a_s < atT.a2a_s);
    ts_model_free(m);
    ts_hardware_clear(&hw);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_published_totals),    cmocka_unit_test(test_gqa_layer),
        cmocka_unit_test(test_moe_layer),           cmocka_unit_test(test_bad_sections),
        cmocka_unit_test(test_tp_divides_kv_heads), cmocka_unit_test(test_moe_permute_mla),
        cmocka_unit_test(test_parallel_folding),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
