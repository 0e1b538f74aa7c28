/* The kernels of H100-era training (issue 45): fused attention (no score matrix stored or moved,
 * causal pairs halved, the backward recomputing the scores), FP8 for the linear GEMMs only, and
 * the Hopper and Blackwell profiles; each against the formula of models/README.md worked by
 * hand from the layer's figures. */
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

static void close_to(double got, double want, const char *what)
{
    if (fabs(got - want) > 1e-9 * fmax(fabs(want), 1e-6))
        fail_msg("%s: got %.9g, want %.9g", what, got, want);
}

/* Llama 3 8B's layer at b = 1, T = 2 on H100: fused against unfused attention. */
static void test_fused_attention(void **state)
{
    (void)state;
    ts_model *m = tu_model_load("llama3-8b");
    ts_hardware hw;
    tu_hw_load("h100-80gb", &hw);
    assert_true(hw.fused_attention);
    const ts_layer *l = &m->layers[1];
    double a = 32, s = 8192, T = 2, bw = hw.hbm_gbs * 1e9;
    ts_cost_opts o = {.b = 1, .T = 2, .gemm_shape = true};
    ts_layer_cost un, fu;
    ts_layer_cost_of(l, &hw, &o, 0, &un);
    o.fused = true;
    ts_layer_cost_of(l, &hw, &o, 0, &fu);
    double score = 5 * a * s * s / T;
    close_to(un.act_bytes - fu.act_bytes, score, "fused: the 5 a s^2 bytes not stored");
    double gemm = hw.peak_tflops * 1e12 * hw.gemm_efficiency * ts_layer_gemm_factor(l, &hw, 1, 2);
    double core_un = l->attn_flops / T / gemm;
    double core_fu = l->attn_flops / T * 0.5 / (hw.peak_tflops * 1e12 * hw.attention_efficiency);
    /* forward: the core's time, and the score bytes' HBM traffic (written and read) gone */
    close_to(un.fwd_s - fu.fwd_s, core_un - core_fu + 2 * score / bw, "fused forward");
    /* backward: its traffic twice, and the kernel recomputing the scores (half a core) */
    close_to(un.bgrad_s - fu.bgrad_s, core_un - 1.5 * core_fu + 4 * score / bw, "fused backward");
    /* selective recomputation stores and redoes nothing more under a fused kernel */
    o.selective = true;
    ts_layer_cost sel;
    ts_layer_cost_of(l, &hw, &o, 0, &sel);
    close_to(sel.bgrad_s, fu.bgrad_s, "selective under fused: the same backward");
    close_to(sel.act_bytes, fu.act_bytes, "selective under fused: the same bytes");
    ts_model_free(m);
    ts_hardware_clear(&hw);
}

/* FP8 runs the linear GEMMs at peak_fp8 x fp8_gemm_efficiency; the attention core, the
 * element-wise work, the collectives and the memory stay as in BF16. */
static void test_fp8_linear_only(void **state)
{
    (void)state;
    ts_model *m = tu_model_load("llama3-70b");
    ts_hardware hw;
    tu_hw_load("h100-80gb", &hw);
    const ts_layer *l = &m->layers[3];
    ts_cost_opts o = {.b = 1, .T = 8, .gemm_shape = true, .fused = true, .seqpar = true};
    ts_layer_cost bf, f8;
    ts_layer_cost_of(l, &hw, &o, 0, &bf);
    hw.fp8 = true;
    ts_layer_cost_of(l, &hw, &o, 0, &f8);
    double factor = ts_layer_gemm_factor(l, &hw, 1, 8);
    double lin = (l->fwd_flops - l->attn_flops) / 8;
    double t16 = lin / (hw.peak_tflops * 1e12 * hw.gemm_efficiency * factor);
    double t8 = lin / (hw.peak_fp8_tflops * 1e12 * hw.fp8_gemm_efficiency * factor);
    close_to(bf.fwd_s - f8.fwd_s, t16 - t8, "fp8 forward: the linear GEMMs only");
    close_to(bf.wgrad_s - f8.wgrad_s, t16 - t8, "fp8 weight gradient");
    close_to(bf.act_bytes, f8.act_bytes, "fp8: activations as bf16");
    close_to(bf.static_bytes, f8.static_bytes, "fp8: weights and state as bf16");
    /* current scaling: an amax pass reads each GEMM input (2 bytes an element) once more before
     * its cast, in the forward; the backward's two casts of each output gradient twice that */
    o.fp8 = true;
    ts_layer_cost_of(l, &hw, &o, 0, &f8);
    hw.fp8_current = true;
    ts_layer_cost cs;
    ts_layer_cost_of(l, &hw, &o, 0, &cs);
    double amax = l->act_gemm_in_bytes / 8 / (hw.hbm_gbs * 1e9);
    close_to(cs.fwd_s - f8.fwd_s, amax, "current scaling: one more read in the forward");
    close_to(cs.bgrad_s - f8.bgrad_s, 2 * amax, "current scaling: twice in the backward");
    close_to(cs.wgrad_s, f8.wgrad_s, "current scaling: the weight-gradient GEMM as before");
    ts_model_free(m);
    ts_hardware_clear(&hw);
}

/* The profiles' datasheet figures: H100 and H200 SXM, B200 (HGX, 1000 W); HBM as nvidia-smi gives
 * the card's total (81559, 143771 and 183359 MiB) in 10^9 bytes. */
static void test_profiles(void **state)
{
    (void)state;
    const struct {
        const char *name;
        double bf16, fp8, hbm, hbm_gbs, nvlink, net;
    } rows[] = {{"h100-80gb", 989, 1979, 85.52, 3350, 450, 50},
                {"h200-141gb", 989, 1979, 150.75, 4800, 450, 50},
                {"b200-180gb", 2250, 4500, 192.27, 8000, 900, 50}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        ts_hardware hw;
        tu_hw_load(rows[i].name, &hw);
        assert_true(hw.peak_tflops == rows[i].bf16 && hw.peak_fp8_tflops == rows[i].fp8);
        assert_true(hw.hbm_gb == rows[i].hbm && hw.hbm_gbs == rows[i].hbm_gbs);
        assert_true(hw.nvlink_gbs == rows[i].nvlink && hw.internode_gbs == rows[i].net);
        assert_true(hw.fused_attention && hw.gpus_per_node == 8);
        assert_true(strlen(hw.source) > 40);
        /* FlashAttention-2 on Hopper: 35 % of the peak (FlashAttention-3's abstract) */
        assert_true(hw.fa2_attention_efficiency == (i < 2 ? 0.35 : 0));
        /* llm-foundry's Triton kernel: measured on H100 only among these (0.17 of the peak,
         * tests/bench/triton_attention_slope.py) */
        assert_true(hw.triton_attention_efficiency == (i == 0 ? 0.17 : 0));
        ts_hardware_clear(&hw);
    }
    ts_hardware a100;
    tu_hw_load("a100-80gb", &a100);
    assert_false(a100.fused_attention);
    assert_true(a100.triton_attention_efficiency == 0.30);
    ts_hardware_clear(&a100);
}

/* "dropout": false (MPT's training, attn_pdrop and resid_pdrop 0): a block stores 2 s h bytes
 * fewer (its two 1-byte masks, whole on each tensor-parallel GPU without sequence
 * parallelism), the embedding none; FLOPs and parameters as with dropout. */
static void test_no_dropout(void **state)
{
    (void)state;
    const char *fmt =
        "{\"format\": \"tessel-model/1\", \"name\": \"d\", \"seq\": 2048, \"strategies\": "
        "[\"1f1b\"], "
        "\"sections\": [{\"kind\": \"embedding\", \"vocab\": 50368, \"hidden\": 2048%s}, "
        "{\"kind\": \"transformer\", \"hidden\": 2048, \"heads\": 16%s}]}";
    char with[512], without[512];
    snprintf(with, sizeof with, fmt, "", "");
    snprintf(without, sizeof without, fmt, ", \"dropout\": false", ", \"dropout\": false");
    ts_model *a = NULL, *b = NULL;
    ts_err e = {0};
    if (ts_model_parse(with, strlen(with), "with", 0, &a, &e))
        fail_msg("%s", e.msg);
    if (ts_model_parse(without, strlen(without), "without", 0, &b, &e))
        fail_msg("%s", e.msg);
    double s = 2048, h = 2048;
    close_to(a->layers[1].act_bytes - b->layers[1].act_bytes, 2 * s * h, "block: two masks");
    close_to(a->layers[1].act_whole_bytes - b->layers[1].act_whole_bytes, 2 * s * h,
             "block: the masks are not split by T");
    close_to(b->layers[0].act_bytes, 0, "embedding: no mask");
    close_to(a->layers[1].fwd_flops, b->layers[1].fwd_flops, "the same FLOPs");
    close_to(a->layers[1].params, b->layers[1].params, "the same parameters");
    ts_model_free(a);
    ts_model_free(b);
    const char *bad = "{\"format\": \"tessel-model/1\", \"name\": \"d\", \"seq\": 8, "
                      "\"strategies\": [\"1f1b\"], \"sections\": "
                      "[{\"kind\": \"transformer\", \"hidden\": 8, \"heads\": 2, \"dropout\": 0}]}";
    assert_int_equal(ts_model_parse(bad, strlen(bad), "bad", 0, &a, &e), TS_EINPUT);
    assert_non_null(strstr(e.msg, "'dropout' must be a boolean"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fused_attention),
        cmocka_unit_test(test_fp8_linear_only),
        cmocka_unit_test(test_profiles),
        cmocka_unit_test(test_no_dropout),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
