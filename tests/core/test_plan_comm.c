/* The costs of communication a plan pays besides its bytes over bandwidth (issue 45): NCCL's
 * fixed latency per collective (its own tuning model: a base and a latency per ring step, NVLink
 * or network), and the compute slowdown of communication hidden beside it (Lee et al. 2025:
 * 18.9 % on average), here on ZeRO-3's gathers and reduce-scatters; and context parallelism by
 * all-gather beside the ring; expert parallelism's all-to-all across nodes; Megatron-LM's
 * --tp-comm-overlap (Transformer Engine's userbuffers). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>
#include "model_testutil.h"
#include "ts_model.h"
#include "ts_plan.h"


/* NCCL's ring/Simple latencies: 8.4 us base, 3.4 us per NVLink step, 9.6 us per network step. An
 * all-reduce of 8 GPUs in a node takes 2 x 7 NVLink steps; an all-gather of 32 GPUs at stride 2
 * (4 in each of 8 nodes) 31 steps, 7 of them across the network. */
static void test_latency(void **state)
{
    (void)state;
    ts_hardware h;
    tu_hw_load("h100-80gb", &h);
    assert_true(fabs(ts_hw_collective_lat_s(&h, TS_COLL_ALLREDUCE, 1, 8) - 56.0e-6) < 1e-12);
    assert_true(fabs(ts_hw_collective_lat_s(&h, TS_COLL_ALLGATHER, 2, 32) - 157.2e-6) < 1e-12);
    assert_true(fabs(ts_hw_collective_lat_s(&h, TS_COLL_REDUCE_SCATTER, 8, 16) -
                     (8.4 + 15 * 9.6) * 1e-6) < 1e-12);
    assert_true(ts_hw_collective_lat_s(&h, TS_COLL_ALLGATHER, 1, 1) == 0);
    ts_hardware_clear(&h);
}

/* An all-to-all has no ring to aggregate its bytes: 16 GPUs over 2 nodes of DGX H100 send half
 * of each GPU's bytes to the other node through its own 50 GB/s adapter, over 4 times as long
 * as a ring all-gather of as many bytes in the same group, whose 8 channels share the node's 8
 * adapters; inside a node 7/8 of the bytes go over NVLink. */
static void test_alltoall(void **state)
{
    (void)state;
    ts_hardware h;
    tu_hw_load("h100-80gb", &h);
    double n = 1e9;
    assert_true(fabs(ts_hw_alltoall_s(&h, 1, 16, n) - 0.5 * n / 50e9) < 1e-12);
    assert_true(fabs(ts_hw_alltoall_s(&h, 1, 8, n) - 7.0 / 8 * n / 450e9) < 1e-12);
    /* at stride 2, 4 members a node: 12 of 16 shares leave it */
    assert_true(fabs(ts_hw_alltoall_s(&h, 2, 16, n) - 12.0 / 16 * n / 50e9) < 1e-12);
    assert_true(ts_hw_alltoall_s(&h, 1, 16, n) >
                4 * ts_hw_collective_s(&h, TS_COLL_ALLGATHER, 1, 16, n));
    assert_true(ts_hw_alltoall_s(&h, 1, 1, n) == 0);
    ts_hardware_clear(&h);
}

/* GPT-3 13B with ZeRO-3 over 16 H100s (no tensor parallelism): the weights gathered before the
 * forward and again before the backward, the gradients reduce-scattered in fp32 (Megatron), one
 * collective per layer. With links 100 times DGX H100's, everything hides; what remains exposed
 * is the slowdown of the compute beside it (0.189 of the communication), the first layer's
 * gathers and the last layer's reduce-scatter. At DGX H100's own links (30 times as much here)
 * more is exposed, but never more than all of it. */
static void test_zero3_overlap(void **state)
{
    (void)state;
    char why[240];
    ts_model *m = tu_model_load("gpt3-13b");
    ts_hardware h;
    tu_hw_load("h100-80gb", &h);
    double slow_link = 0;
    for (int fast = 1; fast >= 0; fast--) {
        double k = fast ? 100 : 1;
        ts_hardware x = h;
        x.nvlink_gbs = h.nvlink_gbs * k;
        x.internode_gbs = h.internode_gbs * k;
        ts_plan_req r = {.m = m, .h = &x, .gpus = 16, .global = 64};
        ts_plan_cfg c = {.strategy = "no-pipeline",
                         .T = 1,
                         .P = 1,
                         .v = 1,
                         .dp = 16,
                         .zero = 3,
                         .recompute = 0,
                         .b = 1,
                         .N = 4};
        ts_plan_cost out;
        assert_int_equal(ts_plan_cost_eval(&r, &c, &out, why, sizeof why), 0);
        double params = 0;
        int nl = 0;
        for (int i = 0; i < m->nlayers; i++) {
            params += m->layers[i].params;
            nl += m->layers[i].params > 0;
        }
        double ag = ts_hw_collective_s(&x, TS_COLL_ALLGATHER, 1, 16, 2 * params) +
                    nl * ts_hw_collective_lat_s(&x, TS_COLL_ALLGATHER, 1, 16);
        double rs = ts_hw_collective_s(&x, TS_COLL_REDUCE_SCATTER, 1, 16, 4 * params) +
                    nl * ts_hw_collective_lat_s(&x, TS_COLL_REDUCE_SCATTER, 1, 16);
        if (fast) {
            double want = c.N * (0.189 * (ag + rs) + (ag + rs) / nl);
            assert_true(fabs(out.dp_s - want) < 1e-9 * want);
            double want_fwd = c.N * (0.189 * ag + ag / nl);
            assert_true(fabs(out.zero_s - want_fwd) < 1e-9 * want_fwd);
        } else {
            /* more exposed, but never more than the communication and its slowdown */
            assert_true(out.dp_s + out.zero_s > 10 * slow_link);
            assert_true(out.dp_s + out.zero_s < c.N * 1.189 * (2 * ag + rs) * (1 + 1.0 / nl));
        }
        slow_link = out.dp_s + out.zero_s;
    }
    ts_hardware_clear(&h);
    ts_model_free(m);
}

/* Context parallelism by all-gather (the Llama 3 paper's, at 128K tokens over 16 GPUs, one per
 * node behind tensor parallelism 8): each block's keys and values (split by T) gathered before
 * the attention core and their gradients reduce-scattered after the backward, over one network
 * adapter per GPU, exposed; the ring hides its transfers behind the attention core at this
 * length. */
static void test_cp_allgather(void **state)
{
    (void)state;
    char path[512];
    ts_err e = {0};
    ts_model *m = NULL;
    assert_int_equal(ts_model_path(MODELS, "llama3-405b", false, path, sizeof path, &e), TS_OK);
    if (ts_model_load(path, 131072, &m, &e))
        fail_msg("%s", e.msg);
    ts_hardware h;
    tu_hw_load("h100-80gb", &h);
    const ts_layer *l = NULL;
    for (int i = 0; i < m->nlayers && !l; i++)
        if (m->layers[i].kv_bytes > 0)
            l = &m->layers[i];
    assert_non_null(l);
    ts_cost_opts o = {.b = 1, .T = 8, .seqpar = true, .gemm_shape = true, .fused = true, .cp = 16};
    ts_layer_cost ring, ag;
    ts_layer_cost_of(l, &h, &o, 0, &ring);
    o.cp_allgather = true;
    ts_layer_cost_of(l, &h, &o, 0, &ag);
    double n = l->kv_bytes / 8;
    double want = 15.0 / 16 * n / 50e9 * 2 + 2 * (8.4 + 15 * 9.6) * 1e-6;
    /* the ring also merges its 16 steps' partial outputs (forward) and accumulates the query's
     * and the keys' and values' gradients (backward), 6 bytes per element per step at HBM
     * bandwidth; the all-gather merges nothing */
    double hq = l->gemm_hq / 8, kv = (l->gemm_qkv - l->gemm_hq) / 8;
    double merge = 6 * l->gemm_tokens * (2 * hq + kv) / (h.hbm_gbs * 1e9);
    assert_true(ring.cp_s == 0);
    assert_true(fabs(ag.cp_s - want) < 1e-9 * want);
    assert_true(fabs(ag.fwd_s + ag.bgrad_s - (ring.fwd_s + ring.bgrad_s) - (want - merge)) <
                1e-9 * want);
    ts_hardware_clear(&h);
    ts_model_free(m);
}

/* --tp-comm-overlap: each pass's tensor-parallel transfer c runs in T chunks beside the layer's
 * GEMMs, one chunk exposed. gpt3-13b at T 8 on H100: its GEMMs outlast c, so the overlapped
 * tp_s is NCCL's latency and the embedding's and head's collectives (still exposed) + c / T +
 * 18.9 % of the other (T - 1) / T; on a link
 * 100 times slower more is exposed, yet never below the one-chunk floor nor above the whole
 * transfer. Without sequence parallelism the framework rule refuses the plan. */
static void test_tp_overlap(void **state)
{
    (void)state;
    char why[240];
    ts_model *m = tu_model_load("gpt3-13b");
    ts_hardware h;
    tu_hw_load("h100-80gb", &h);
    for (int fast = 1; fast >= 0; fast--) {
        ts_hardware x = h;
        x.nvlink_gbs = fast ? h.nvlink_gbs : h.nvlink_gbs / 100;
        ts_plan_req r = {.m = m, .h = &x, .gpus = 16, .global = 64};
        ts_plan_cfg c = {.strategy = "no-pipeline",
                         .T = 8,
                         .P = 1,
                         .v = 1,
                         .dp = 2,
                         .zero = 1,
                         .recompute = TS_RC_NONE,
                         .b = 1,
                         .N = 32,
                         .seqpar = true};
        ts_plan_cost off, on;
        assert_int_equal(ts_plan_cost_eval(&r, &c, &off, why, sizeof why), 0);
        c.tpo = true;
        assert_int_equal(ts_plan_cost_eval(&r, &c, &on, why, sizeof why), 0);
        /* the pure bandwidth part of the off case in the transformer blocks (the embedding's
         * and the head's collectives are not Transformer Engine's): the forward's and the
         * input gradient's */
        double bw = 0;
        for (int i = 0; i < m->nlayers; i++) {
            const ts_layer *l = &m->layers[i];
            if (l->gemm_tokens > 0)
                bw += 2 * c.N * l->allreduces * ts_hw_allreduce_s(&x, 0, 8, l->ar_bytes);
        }
        assert_true(bw > 0);
        double rest = off.tp_s - bw, floor = rest + bw / 8;
        assert_true(rest > 0);
        assert_true(on.tp_s < off.tp_s);
        assert_true(on.tp_s >= floor - 1e-12);
        if (fast)
            assert_true(fabs(on.tp_s - (floor + 0.189 * bw * 7 / 8)) < 1e-9 * off.tp_s);
        else
            assert_true(on.tp_s > floor + 0.189 * bw * 7 / 8);
        /* the GEMMs are not charged twice: compute stays, the iteration falls by the cut */
        assert_true(fabs(on.compute_s - off.compute_s) < 1e-9 * off.compute_s);
        assert_true(on.iter_s < off.iter_s);
        c.seqpar = false;
        assert_int_equal(ts_plan_cost_eval(&r, &c, &on, why, sizeof why), TS_REFUSE_FRAMEWORK + 1);
        assert_non_null(strstr(why, "sequence parallelism"));
    }
    ts_hardware_clear(&h);
    ts_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_latency),
        cmocka_unit_test(test_alltoall),
        cmocka_unit_test(test_zero3_overlap),
        cmocka_unit_test(test_cp_allgather),
        cmocka_unit_test(test_tp_overlap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
