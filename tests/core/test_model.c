/* The cost model, the stage DP and the token-slicing DP: formulas against figures computed by
 * hand from the papers' hyper-parameters, the DPs against brute force, and derived placements
 * against the structural and memory rules. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model_testutil.h"
#include "ts_model.h"


static const ts_layer *layer_named(const ts_model *m, const char *name)
{
    for (int i = 0; i < m->nlayers; i++)
        if (!strcmp(m->layers[i].name, name))
            return &m->layers[i];
    fail_msg("no layer %s", name);
    return NULL;
}

/* GPT-3 175B: 96 x (12 h^2 + 13 h) + 50257 h + 2048 h = 174.6B (the head is tied to the
 * embedding), within 1 % of the published 175B. */
static void test_gpt3_params(void **state)
{
    (void)state;
    ts_model *m = tu_model_load("gpt3-175b");
    double h = 12288, P = ts_model_params(m);
    double hand = 96 * (12 * h * h + 13 * h) + 50257 * h + 2048 * h;
    assert_true(fabs(P - hand) < 1);
    assert_true(fabs(P - 175e9) / 175e9 < 0.01);
    assert_int_equal(m->nlayers, 98);
    ts_model_free(m);
}

/* Training FLOPs per sample (3x forward) against 6 * params * tokens plus the attention term
 * 12 * layers * s^2 * (heads x 128) (Narayanan et al. 2021, eq. 3; GPT-3's 1.3B and 13B have
 * heads x 128 != hidden). */
static void test_gpt3_flops(void **state)
{
    (void)state;
    const char *names[] = {"gpt3-1.3b", "gpt3-13b", "gpt3-175b"};
    const double L[] = {24, 40, 96}, H[] = {2048, 5140, 12288}, HQ[] = {3072, 5120, 12288};
    for (int i = 0; i < 3; i++) {
        ts_model *m = tu_model_load(names[i]);
        double s = 2048, train = 3 * ts_model_fwd_flops(m);
        double ref = 6 * ts_model_params(m) * s + 12 * L[i] * s * s * HQ[i];
        assert_true(fabs(train - ref) / ref < 0.01);
        /* one layer exactly: 24 b s h^2 + 4 b s^2 h when heads x 128 = h */
        if (i == 2) {
            double h = H[i];
            assert_true(
                fabs(layer_named(m, "layer0")->fwd_flops - (24 * s * h * h + 4 * s * s * h)) < 1e3);
        }
        ts_model_free(m);
    }
}

/* Per-GPU weights and optimizer state follow 16 bytes/parameter, split by tensor parallelism;
 * activations follow s b h (10 + 24/T + 5 a s / (h T)); times are FLOPs / achievable FLOP/s plus
 * the all-reduces. */
static void test_layer_cost(void **state)
{
    (void)state;
    ts_model *m = tu_model_load("gpt3-175b");
    ts_hardware hw;
    tu_hw_load("a100-80gb", &hw);
    const ts_layer *l = layer_named(m, "layer5");
    ts_cost_opts o = {.b = 2, .T = 8};
    ts_layer_cost c;
    ts_layer_cost_of(l, &hw, &o, 0, &c);
    double h = 12288, s = 2048, a = 96, b = 2, T = 8;
    assert_true(fabs(c.static_bytes - 16 * (12 * h * h + 13 * h) / T) < 1);
    assert_true(fabs(c.act_bytes - s * b * h * (10 + 24 / T + 5 * a * s / (h * T))) < 1);
    double comp = (24 * b * s * h * h + 4 * b * s * s * h) / (312e12 * 0.5 * T);
    double ar = 2 * (2 * (T - 1) / T * (2 * s * b * h) / 300e9);
    assert_true(fabs(c.fwd_s - (comp + ar)) < 1e-12);
    assert_true(fabs(c.wgrad_s - comp) < 1e-12);
    assert_true(fabs(c.bgrad_s - (comp + ar)) < 1e-12);
    o.recompute = true;
    ts_layer_cost_of(l, &hw, &o, 0, &c);
    assert_true(fabs(c.act_bytes - 2 * s * b * h) < 1);
    assert_true(fabs(c.bgrad_s - 2 * (comp + ar)) < 1e-12);
    /* across nodes the ring runs at the network's speed */
    o.recompute = false;
    ts_layer_cost_of(l, &hw, &o, 4, &c);
    assert_true(fabs(c.fwd_s - (comp + ar * 300.0 / 25.0)) < 1e-9);
    ts_model_free(m);
    ts_hardware_clear(&hw);
}


/* The cost options added for plans: ZeRO's bytes per parameter, selective recomputation (the
 * attention core's 5 a s^2 bytes dropped, its FLOPs redone), sequence parallelism (the whole
 * part split by T), the collectives on NVLink or the network, and the GEMM-shape factor (1 for
 * large shapes, lower when T shrinks them). */
static void test_cost_options(void **state)
{
    (void)state;
    ts_model *m = tu_model_load("gpt3-175b");
    ts_hardware hw;
    tu_hw_load("a100-80gb", &hw);
    const ts_layer *l = layer_named(m, "layer5");
    double h = 12288, s = 2048, a = 96, b = 1, T = 8;
    assert_true(fabs(ts_zero_bytes_per_param(0, 8) - 16) < 1e-12);
    assert_true(fabs(ts_zero_bytes_per_param(1, 8) - 5.5) < 1e-12);
    assert_true(fabs(ts_zero_bytes_per_param(2, 7) - 4) < 1e-12);
    assert_true(fabs(ts_zero_bytes_per_param(3, 4) - 4) < 1e-12);
    ts_cost_opts o = {.b = 1, .T = 8, .selective = true};
    ts_layer_cost c, base;
    ts_layer_cost_of(l, &hw, &o, 0, &c);
    assert_true(fabs(c.act_bytes - s * b * h * (10 + 24 / T)) < 1);
    o.seqpar = true;
    ts_layer_cost_of(l, &hw, &o, 0, &c);
    assert_true(fabs(c.act_bytes - s * b * h * 34 / T) < 1);
    ts_cost_opts p = {.b = 1, .T = 8};
    ts_layer_cost_of(l, &hw, &p, 0, &base);
    double core = 4 * s * s * h / (312e12 * 0.5 * T);
    assert_true(fabs(c.bgrad_s - base.bgrad_s - core) < 1e-12);
    assert_true(fabs(base.act_bytes - s * b * h * (10 + 24 / T + 5 * a * s / (h * T))) < 1);
    o = (ts_cost_opts){.b = 1, .T = 8, .zero = 1, .dp = 8};
    ts_layer_cost_of(l, &hw, &o, 0, &c);
    assert_true(fabs(c.static_bytes - base.static_bytes * 5.5 / 16) < 1);
    /* 8 GPUs at stride 1 share a node; at stride 8 they cross nodes */
    double n = 1e9;
    assert_true(fabs(ts_hw_collective_s(&hw, TS_COLL_ALLREDUCE, 1, 8, n) - 1.75 * n / 300e9) <
                1e-12);
    assert_true(fabs(ts_hw_collective_s(&hw, TS_COLL_REDUCE_SCATTER, 8, 8, n) -
                     0.875 * n / 25e9) < 1e-12);
    assert_true(fabs(ts_hw_p2p_s(&hw, 7, 8, n) - n / 25e9) < 1e-12);
    assert_true(ts_hw_p2p_s(&hw, 3, 3, n) == 0);
    double big = ts_layer_gemm_factor(l, &hw, 4, 1), small = ts_layer_gemm_factor(l, &hw, 1, 64);
    assert_true(big > 0.95 && big <= 1);
    assert_true(small < big && small > 0);
    /* 8 x 8 tiles of 128: 64 of 108 SMs busy in one wave */
    assert_true(fabs(ts_gemm_efficiency(&hw, 1024, 1024, 12288) - 64.0 / 108) < 1e-9);
    ts_model_free(m);
    ts_hardware_clear(&hw);
}

/* Stage arrays in these tests; the guard below lets the compiler see the bound. */
#define TEST_MAX_STAGES 8

/* Brute force over every composition of n items into S stages. */
static double brute_stages(const ts_stage_problem *p, int s, int j, int *cut, double best)
{
    if (s == p->S)
        return best;
    cut[s] = j;
    if (s == p->S - 1 || s + 1 >= TEST_MAX_STAGES) {
        double v = ts_stage_objective(p, cut);
        return v >= 0 && (best < 0 || v < best) ? v : best;
    }
    for (int k = j + 1; k <= p->n - (p->S - 1 - s); k++) {
        cut[s + 1] = k;
        best = brute_stages(p, s + 1, k, cut, best);
    }
    return best;
}

static double urand(unsigned *seed, double lo, double hi)
{
    *seed = *seed * 1103515245u + 12345u;
    return lo + (hi - lo) * ((*seed >> 8) & 0xffff) / 65535.0;
}

static void test_stage_dp_brute(void **state)
{
    (void)state;
    unsigned seed = 7;
    int feasible = 0, infeasible = 0;
    for (int t = 0; t < 300; t++) {
        int n = 2 + t % 8, S = 1 + t % 4;
        if (S > n)
            S = n;
        double cost[10], stat[10], act[10], send[10], cap[4], inf[4];
        for (int i = 0; i < n; i++) {
            cost[i] = urand(&seed, 0.1, 5);
            stat[i] = urand(&seed, 0, 3);
            act[i] = urand(&seed, 0, 1);
            send[i] = urand(&seed, 0, 0.5);
        }
        for (int s = 0; s < S; s++) {
            cap[s] = urand(&seed, 2, 12);
            inf[s] = S - s;
        }
        /* every third problem caps the first stage's static bytes (a parameter limit) */
        double scap[TEST_MAX_STAGES];
        for (int s = 0; s < S; s++)
            scap[s] = s == 0 ? urand(&seed, 0.5, 6) : 1e300;
        ts_stage_problem p = {n, S, 1 + t % 12, cost, stat, act, send, cap, inf,
                              t % 3 == 0 ? scap : NULL};
        int cut[TEST_MAX_STAGES], bcut[TEST_MAX_STAGES];
        double obj = -1;
        ts_err e = {0};
        int rc = ts_stage_partition(&p, cut, &obj, &e);
        double bf = brute_stages(&p, 0, 0, bcut, -1);
        if (bf < 0) {
            assert_int_equal(rc, TS_ENOANSWER);
            infeasible++;
            continue;
        }
        if (rc != TS_OK)
            fail_msg("case %d: DP refused (%s), brute force found %g", t, e.msg, bf);
        assert_true(fabs(obj - bf) < 1e-9 * (1 + bf));
        assert_true(fabs(ts_stage_objective(&p, cut) - obj) < 1e-12);
        feasible++;
    }
    assert_true(feasible > 100 && infeasible > 5); /* both kinds of case were exercised */
}

typedef struct {
    double lin, attn, over;
} slice_cost;

static double slice_fn(void *ud, int p, int l)
{
    const slice_cost *c = ud;
    return c->over + c->lin * l + c->attn * l * (double)(p + l);
}

static double brute_slices(int L, int maxk, int g, int K, slice_cost *c, int *len, int k, int used,
                           double best)
{
    if (used == L) {
        double v = ts_slice_objective(k, len, g, K, slice_fn, c);
        return best < 0 || v < best ? v : best;
    }
    if (k == maxk)
        return best;
    for (int l = 1; used + l <= L; l++) {
        len[k] = l;
        best = brute_slices(L, maxk, g, K, c, len, k + 1, used + l, best);
    }
    return best;
}

static void test_slice_dp_brute(void **state)
{
    (void)state;
    unsigned seed = 11;
    for (int t = 0; t < 120; t++) {
        int L = 1 + t % 10, maxk = 1 + t % 7, K = 1 + t % 5, g = 1 + t % 3;
        slice_cost c = {urand(&seed, 0.5, 2), urand(&seed, 0, 0.3), urand(&seed, 0, 6)};
        int len[16], blen[16];
        double obj = 0;
        int k = ts_slice_tokens(L, g, maxk, K, slice_fn, &c, len, &obj);
        assert_true(k >= 1 && k <= maxk);
        int sum = 0;
        for (int i = 0; i < k; i++)
            sum += len[i];
        assert_int_equal(sum, L);
        double bf = brute_slices(L, maxk < L ? maxk : L, g, K, &c, blen, 0, 0, -1);
        assert_true(fabs(obj - bf) < 1e-9 * (1 + bf));
        assert_true(fabs(ts_slice_objective(k, len, g, K, slice_fn, &c) - obj) < 1e-9 * (1 + obj));
    }
}

/* A derived placement: valid structure, each device's memory nets to zero per micro-batch,
 * stages on T devices each, quantisation error within 2 %. */
static void check_derived(const char *model, const char *strategy, int gpus, int T)
{
    ts_model *m = tu_model_load(model);
    ts_hardware hw;
    tu_hw_load("a100-80gb", &hw);
    ts_derive_opts o = {.strategy = strategy, .gpus = gpus, .b = 1, .T = T};
    ts_placement *p = NULL;
    ts_derive_info in;
    ts_err e = {0};
    if (ts_model_derive(m, &hw, &o, &p, &in, &e))
        fail_msg("%s %s: %s", model, strategy, e.msg);
    assert_int_equal(ts_placement_check(p, "derived", &e), TS_OK);
    assert_int_equal(p->ndevs, gpus);
    long *net = calloc((size_t)gpus, sizeof(long));
    for (int i = 0; i < p->nblocks; i++)
        for (int d = 0; d < p->blocks[i].ndevices; d++)
            net[p->blocks[i].devices[d]] += p->blocks[i].memory;
    for (int d = 0; d < gpus; d++)
        assert_int_equal(net[d], 0);
    free(net);
    assert_true(in.time_error <= 0.02 && in.memory_error <= 0.02);
    assert_true(in.capacity > 0 && in.capacity_bytes > 0);
    /* the fullest GPU's unit times the capacity is its free memory */
    double freeb = (hw.hbm_gb - hw.workspace_gb) * 1e9 - in.static_bytes_max;
    assert_true(fabs(in.memory_unit_bytes * in.capacity - freeb) < 1e-3 * freeb);
    ts_placement_free(p);
    ts_derive_info_clear(&in);
    ts_model_free(m);
    ts_hardware_clear(&hw);
}

static void test_derive_every_strategy(void **state)
{
    (void)state;
    const char *models[] = {"gpt3-1.3b",  "gpt3-13b", "mt5",      "swin-l",
                            "alphafold2", "flava",    "llava-13b"};
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        ts_model *m = tu_model_load(models[i]);
        for (int s = 0; s < m->nstrategies; s++)
            check_derived(models[i], m->strategies[s], 8, 1);
        ts_model_free(m);
    }
    check_derived("gpt3-175b", "1f1b", 64, 8);
}

/* The strategy registry: every row has a builder, and some model lists it (so the test above
 * derives every row); a name not in it is unknown. */
static void test_strategy_registry(void **state)
{
    (void)state;
    const char *models[] = {"gpt3-1.3b", "gpt3-13b",  "mt5",       "swin-l",     "alphafold2",
                            "flava",     "llava-13b", "gpt3-175b", "paper-mt5-8"};
    assert_true(ts_strategy_count() >= 10);
    for (int i = 0; i < ts_strategy_count(); i++) {
        const ts_strategy_info *st = ts_strategy_at(i);
        assert_non_null(st->build);
        assert_true(st->replicas == 1 || st->replicas == 2);
        assert_ptr_equal(ts_strategy_find(st->name), st);
        bool listed = false;
        for (size_t k = 0; k < sizeof models / sizeof models[0] && !listed; k++) {
            ts_model *m = tu_model_load(models[k]);
            listed = ts_model_has_strategy(m, st->name);
            ts_model_free(m);
        }
        if (!listed)
            fail_msg("no model lists strategy %s", st->name);
    }
    assert_int_equal(ts_strategy_find("chimera")->replicas, 2);
    assert_null(ts_strategy_find("gpipe"));
    assert_null(ts_strategy_at(ts_strategy_count()));
}

/* 13B on 8 GPUs, 1F1B: the stage cut keeps each GPU's weights, optimizer state and its in-flight
 * activations (8 - s micro-batches on stage s) within 76 GB. */
static void test_derive_memory_by_hand(void **state)
{
    (void)state;
    ts_model *m = tu_model_load("gpt3-13b");
    ts_hardware hw;
    tu_hw_load("a100-80gb", &hw);
    ts_derive_opts o = {.strategy = "1f1b", .gpus = 8, .b = 1, .T = 1};
    ts_placement *p = NULL;
    ts_derive_info in;
    ts_err e = {0};
    assert_int_equal(ts_model_derive(m, &hw, &o, &p, &in, &e), TS_OK);
    assert_int_equal(in.stages, 8);
    double h = 5140, s = 2048, a = 40, act = s * h * (34 + 5 * a * s / h);
    double w = 16 * (12 * h * h + 13 * h);
    for (int st = 0; st < 8; st++) {
        int j = in.cuts[st], i = st < 7 ? in.cuts[st + 1] : m->nlayers, nl = 0;
        for (int k = j; k < i; k++)
            nl += !strcmp(m->layers[k].kind, "transformer");
        assert_true(nl * (w + (8 - st) * act) <= 76e9);
    }
    ts_placement_free(p);
    ts_derive_info_clear(&in);
    ts_model_free(m);
    ts_hardware_clear(&hw);
}

static void expect_refusal(const char *model, const char *strategy, int gpus, int T, int b,
                           int code, const char *needle)
{
    ts_model *m = tu_model_load(model);
    ts_hardware hw;
    tu_hw_load("a100-80gb", &hw);
    ts_derive_opts o = {.strategy = strategy, .gpus = gpus, .b = b, .T = T};
    ts_placement *p = NULL;
    ts_derive_info in;
    ts_err e = {0};
    assert_int_equal(ts_model_derive(m, &hw, &o, &p, &in, &e), code);
    assert_null(p);
    if (!strstr(e.msg, needle))
        fail_msg("expected '%s' in: %s", needle, e.msg);
    ts_model_free(m);
    ts_hardware_clear(&hw);
}

static void test_refusals(void **state)
{
    (void)state;
    /* 175B without tensor parallelism: 16 B x 175.2B (the tied head's copy included) */
    ts_model *m = tu_model_load("gpt3-175b");
    double need = 0;
    for (int i = 0; i < m->nlayers; i++)
        need += 16 * m->layers[i].params;
    char gb[64];
    snprintf(gb, sizeof gb, "need %.0f GB", need / 1e9);
    ts_model_free(m);
    expect_refusal("gpt3-175b", "1f1b", 8, 1, 1, TS_ENOANSWER, gb);
    expect_refusal("gpt3-13b", "kshape", 8, 1, 1, TS_EINPUT, "does not apply");
    expect_refusal("gpt3-13b", "vshape", 8, 1, 1, TS_EINPUT, "unknown strategy");
    expect_refusal("gpt3-13b", "1f1b", 8, 1, 32, TS_ENOANSWER, "micro-batch");
    expect_refusal("mt5", "nnshape", 6, 2, 1, TS_EINPUT, "even number");
    expect_refusal("gpt3-13b", "1f1b", 8, 3, 1, TS_EINPUT, "not a multiple");
}

static void test_bad_files(void **state)
{
    (void)state;
    const char *cases[][2] = {
        {"model_syntax.json", "malformed JSON"},
        {"model_kind.json", "unknown section kind 'mlp'"},
        {"model_missing.json", "needs a positive 'heads'"},
        {"model_type.json", "field 'hidden' must be a number"},
        {"model_strategy.json", "strategies[1]: unknown strategy 'warp'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/bad/%s", TS_TEST_DATA, cases[i][0]);
        ts_model *m = NULL;
        ts_err e = {0};
        assert_int_equal(ts_model_load(path, 0, &m, &e), TS_EINPUT);
        assert_null(m);
        if (!strstr(e.msg, cases[i][1]))
            fail_msg("%s: expected '%s' in: %s", cases[i][0], cases[i][1], e.msg);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpt3_params),       cmocka_unit_test(test_gpt3_flops),
        cmocka_unit_test(test_layer_cost), cmocka_unit_test(test_cost_options),        cmocka_unit_test(test_stage_dp_brute),
        cmocka_unit_test(test_slice_dp_brute),    cmocka_unit_test(test_derive_every_strategy),
        cmocka_unit_test(test_strategy_registry), cmocka_unit_test(test_derive_memory_by_hand),
        cmocka_unit_test(test_refusals),          cmocka_unit_test(test_bad_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
