/* Hand-made baselines: each checked against the makespan or bubble formula of its paper. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "ts_baseline.h"
#include "ts_bound.h"

static ts_placement *builtin(const char *name, int D, bool infer, int chunks)
{
    ts_builtin_opts o = {.ndevs = D, .infer = infer, .chunks = chunks};
    ts_placement *p = NULL;
    ts_err e = {0};
    assert_int_equal(ts_builtin_make(name, &o, &p, &e), TS_OK);
    return p;
}

/* Builds, validates (with monotone order, except Looped BFS, whose backwards run the micro-batches
 * in reverse by its rule) and returns the schedule's metrics. */
static ts_schedule *make_ok(const char *kind, const ts_placement *p, int n, ts_metrics *m)
{
    ts_schedule *s = NULL;
    ts_err e = {0};
    int rc = ts_baseline_make(kind, p, n, &s, &e);
    if (rc != TS_OK)
        fail_msg("%s on %s N=%d: %s", kind, p->name, n, e.msg);
    ts_validate_opts vo = {.monotone = strcmp(kind, "looped-bfs") != 0, .ignore_memory = true};
    if (ts_schedule_validate(s, &vo, &e) != TS_OK)
        fail_msg("%s on %s N=%d invalid: %s", kind, p->name, n, e.msg);
    assert_int_equal(ts_schedule_metrics(s, m), 0);
    return s;
}

static double sim_makespan(const ts_schedule *s)
{
    ts_sim_opts so = {0};
    ts_sim_result r = {0};
    ts_err e = {0};
    assert_int_equal(ts_simulate(s, &so, &r, &e), TS_OK);
    double mk = r.makespan;
    ts_sim_result_free(&r);
    return mk;
}

/* 1F1B on vshape (F span 1, B span 3): the last device never idles once it starts, so the
 * makespan is the lower bound 4N + 12 for 4 devices (paper-cases.md). */
static void test_1f1b_vshape_reaches_bound(void **state)
{
    (void)state;
    ts_placement *p = builtin("vshape", 4, false, 0);
    const int N = 128;
    ts_metrics m;
    ts_schedule *s = make_ok("1f1b", p, N, &m);
    assert_int_equal(m.makespan, 4 * N + 12);
    assert_int_equal(m.lower_bound, 4 * N + 12);
    assert_true(sim_makespan(s) == 4.0 * N + 12);
    /* 1F1B keeps D - d micro-batches in flight on device d */
    for (int d = 0; d < 4; d++)
        assert_int_equal(m.peak[d], 4 - d);
    ts_metrics_free(&m);
    ts_schedule_free(s);
    ts_placement_free(p);
}

/* GPipe: same makespan as 1F1B on vshape, but device 0 holds all N activations at once. */
static void test_gpipe_vshape_memory(void **state)
{
    (void)state;
    ts_placement *p = builtin("vshape", 4, false, 0);
    const int N = 128;
    ts_metrics m;
    ts_schedule *s = make_ok("gpipe", p, N, &m);
    assert_int_equal(m.peak[0], N);
    assert_int_equal(m.makespan, 4 * N + 12);
    assert_true(sim_makespan(s) == 4.0 * N + 12);
    ts_metrics_free(&m);
    ts_schedule_free(s);
    ts_placement_free(p);
}

/* Interleaved 1F1B (Narayanan et al., SC'21): the pipeline bubble is (p-1)(t_f + t_b)/v, where
 * t_f, t_b are one device's whole forward and backward time per micro-batch. Here a chunk's F is 1
 * and B is 3, so t_f + t_b = 4v, the bubble is 4(p-1) and the makespan 4vN + 4(p-1). */
static void test_interleaved_formula(void **state)
{
    (void)state;
    const int cases[][3] = {{4, 2, 8}, {4, 2, 128}, {4, 3, 16}, {8, 2, 64}, {2, 4, 10}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int D = cases[i][0], v = cases[i][1], N = cases[i][2];
        ts_placement *p = builtin("vshape_interleaved", D, false, v);
        ts_metrics m;
        ts_schedule *s = make_ok("interleaved", p, N, &m);
        long want = 4L * v * N + 4L * (D - 1);
        if (m.makespan != want)
            fail_msg("interleaved D=%d v=%d N=%d: makespan %ld, formula %ld", D, v, N, m.makespan,
                     want);
        /* plain 1F1B over the same D*v stages can only be as good */
        ts_metrics m1;
        ts_schedule *s1 = make_ok("1f1b", p, N, &m1);
        assert_true(m.makespan <= m1.makespan);
        ts_metrics_free(&m1);
        ts_schedule_free(s1);
        ts_metrics_free(&m);
        ts_schedule_free(s);
        ts_placement_free(p);
    }
}

/* Chimera (Li & Hoefler, SC'21): with equal forward and backward times and N = D micro-batches
 * (D/2 per direction; here D/2 xshape micro-batches, each one per direction) every worker idles
 * D - 2 slots: bubble ratio (D-2)/(2N+D-2), makespan 2D + D - 2 = 3D - 2. The built-in xshape has
 * backward span 3, so the formula is checked on xshape with backward span 1. */
static void test_chimera_formula(void **state)
{
    (void)state;
    for (int D = 2; D <= 16; D += 2) {
        ts_placement *p = builtin("xshape", D, false, 0);
        for (int b = 0; b < p->nblocks; b++)
            if (p->blocks[b].kind == TS_KIND_BACKWARD)
                p->blocks[b].span = 1;
        ts_metrics m;
        ts_schedule *s = make_ok("chimera", p, D / 2, &m);
        if (m.makespan != 3L * D - 2)
            fail_msg("chimera D=%d: makespan %ld, formula %d", D, m.makespan, 3 * D - 2);
        double ratio = (double)(D - 2) / (2.0 * D + D - 2);
        assert_true(m.bubble_rate > ratio - 1e-9 && m.bubble_rate < ratio + 1e-9);
        ts_metrics_free(&m);
        ts_schedule_free(s);
        ts_placement_free(p);
    }
    /* the real xshape over many micro-batches: valid, and each device holds at most D
     * micro-batches' activations where GPipe holds all 2N (both directions) */
    ts_placement *p = builtin("xshape", 4, false, 0);
    ts_metrics mc, mg;
    ts_schedule *sc = make_ok("chimera", p, 128, &mc);
    ts_schedule *sg = make_ok("gpipe", p, 128, &mg);
    for (int d = 0; d < 4; d++) {
        assert_true(mc.peak[d] <= 4);
        assert_int_equal(mg.peak[d], 256);
    }
    assert_true(mc.makespan >= mc.lower_bound);
    ts_metrics_free(&mc);
    ts_metrics_free(&mg);
    ts_schedule_free(sc);
    ts_schedule_free(sg);
    ts_placement_free(p);
}

/* ZB-H1 (Qi et al., ICLR'24): with T_F = T_B = T_W = 1 the bubble per device is
 * (p-1)(T_F + T_B - T_W) = p-1, against 1F1B's (p-1)(T_F + T_B + T_W) = 3(p-1), so the makespan
 * is 3N + p - 1; peak memory stays within 1F1B's (F +2, B -1, W -1: 2p on device 0). */
static void test_zbh1_formula(void **state)
{
    (void)state;
    const int cases[][2] = {{4, 8}, {4, 128}, {8, 16}, {8, 64}, {2, 5}, {16, 64}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int D = cases[i][0], N = cases[i][1];
        ts_placement *p = builtin("vshape_zb", D, false, 0);
        ts_metrics mz, m1;
        ts_schedule *sz = make_ok("zb-h1", p, N, &mz);
        ts_schedule *s1 = make_ok("1f1b", p, N, &m1);
        if (mz.makespan != 3L * N + D - 1)
            fail_msg("zb-h1 D=%d N=%d: makespan %ld, formula %d", D, N, mz.makespan, 3 * N + D - 1);
        /* 1F1B running each W right after its B: W leaves the critical path, so its bubble is
         * (p-1)(T_F + T_B) = 2(p-1), between ZB-H1's and unsplit 1F1B's */
        if (m1.makespan != 3L * N + 2L * (D - 1))
            fail_msg("1f1b on vshape_zb D=%d N=%d: makespan %ld, formula %d", D, N, m1.makespan,
                     3 * N + 2 * (D - 1));
        long max1 = 0, maxz = 0;
        for (int d = 0; d < D; d++) {
            max1 = m1.peak[d] > max1 ? m1.peak[d] : max1;
            maxz = mz.peak[d] > maxz ? mz.peak[d] : maxz;
        }
        assert_int_equal(max1, 2L * (N < D ? N : D));
        assert_true(maxz <= max1);
        ts_metrics_free(&mz);
        ts_metrics_free(&m1);
        ts_schedule_free(sz);
        ts_schedule_free(s1);
        ts_placement_free(p);
    }
}

/* Per device: idle steps between its own first start and last end (the zero-bubble papers' and
 * DualPipe's bubble: a device is not charged for starting late or finishing early); returns the
 * largest. */
static long max_own_idle(const ts_schedule *s)
{
    const ts_placement *p = s->placement;
    long worst = 0;
    for (int d = 0; d < p->ndevs; d++) {
        long first = -1, last = 0, busy = 0;
        for (int i = 0; i < s->nentries; i++) {
            const ts_block *b = &p->blocks[s->entries[i].block];
            if (!ts_block_on(b, d))
                continue;
            long st = s->entries[i].step;
            first = first < 0 || st < first ? st : first;
            last = st + b->span > last ? st + b->span : last;
            busy += b->span;
        }
        if (last - first - busy > worst)
            worst = last - first - busy;
    }
    return worst;
}

static long max_peak(const ts_metrics *m, int D)
{
    long best = 0;
    for (int d = 0; d < D; d++)
        best = m->peak[d] > best ? m->peak[d] : best;
    return best;
}

/* ZB-H2 (Qi et al., ICLR'24): bubble (p-1)(T_F + T_B - 2T_W), zero at T_F = T_B = T_W = 1, with
 * activations of 2p-1 micro-batches (F holds 2, B and W free 1 each: 2(2p-1)); ZB-H1 on the
 * same placement has bubble (p-1)(T_F + T_B - T_W) = p-1 within p micro-batches (2p). */
static void test_zbh2_formula(void **state)
{
    (void)state;
    const int cases[][2] = {{4, 16}, {4, 64}, {8, 32}, {8, 64}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int D = cases[i][0], N = cases[i][1];
        ts_placement *p = builtin("vshape_zb", D, false, 0);
        ts_metrics m2, m1;
        ts_schedule *s2 = make_ok("zb-h2", p, N, &m2);
        ts_schedule *s1 = make_ok("zb-h1", p, N, &m1);
        if (max_own_idle(s2) != 0 || max_own_idle(s1) != D - 1)
            fail_msg("D=%d N=%d: bubble zb-h2 %ld (formula 0), zb-h1 %ld (formula %d)", D, N,
                     max_own_idle(s2), max_own_idle(s1), D - 1);
        assert_int_equal(max_peak(&m2, D), 2L * (2 * D - 1));
        assert_int_equal(max_peak(&m1, D), 2L * D);
        assert_int_equal(m2.makespan, m2.lower_bound);
        ts_metrics_free(&m2);
        ts_metrics_free(&m1);
        ts_schedule_free(s2);
        ts_schedule_free(s1);
        ts_placement_free(p);
    }
}

/* ZB-V (Qi et al., the V-shape schedule): at T_F = T_B = T_W the bubble is 0 and the activation
 * memory that of 1F1B on the same model: D micro-batches of a device's two chunks, F holding 2
 * per chunk: 4D. The makespan is then the lower bound 6N + D - 1. */
static void test_zbv_formula(void **state)
{
    (void)state;
    const int cases[][2] = {{4, 8}, {4, 64}, {8, 16}, {8, 64}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int D = cases[i][0], N = cases[i][1];
        ts_placement *p = builtin("vshape_v_zb", D, false, 0);
        ts_metrics m;
        ts_schedule *s = make_ok("zb-v", p, N, &m);
        if (max_own_idle(s) != 0 || m.makespan != 6L * N + D - 1 || max_peak(&m, D) != 4L * D)
            fail_msg("zb-v D=%d N=%d: bubble %ld, makespan %ld (6N+D-1 = %ld), peak %ld (4D)", D, N,
                     max_own_idle(s), m.makespan, 6L * N + D - 1, max_peak(&m, D));
        ts_metrics_free(&m);
        ts_schedule_free(s);
        ts_placement_free(p);
    }
}

/* DualPipe and DualPipeV (DeepSeek): bubble (PP/2-1)(F&B + B - 3W) and activations PP+1 chunks
 * per device, PP the number of stages (D for DualPipe, 2D for DualPipeV); here F = W = 1, a full
 * backward B = 2 and F holds 2 per chunk. Our model runs an F&B pair as F then B, F&B = F + B,
 * where the formula bounds the bubble by (PP/2-1)*2; the measured bubble is PP/2-1 (the formula's
 * value at F&B = B), because F's output leaves when F ends rather than with the pair. */
static void check_dualpipe(const char *kind, const char *placement, int D, int N, int PP)
{
    ts_placement *p = builtin(placement, D, false, 0);
    ts_metrics m;
    ts_schedule *s = make_ok(kind, p, N, &m);
    long bound = (PP / 2 - 1) * ((1 + 2) + 2 - 3);
    if (max_own_idle(s) != PP / 2 - 1 || max_own_idle(s) > bound ||
        max_peak(&m, D) != 2L * (PP + 1) || m.makespan != m.lower_bound)
        fail_msg("%s D=%d N=%d: bubble %ld (PP/2-1 = %d, bound %ld), peak %ld (2(PP+1) = %d), "
                 "makespan %ld (lower bound %ld)",
                 kind, D, N, max_own_idle(s), PP / 2 - 1, bound, max_peak(&m, D), 2 * (PP + 1),
                 m.makespan, m.lower_bound);
    ts_metrics_free(&m);
    ts_schedule_free(s);
    ts_placement_free(p);
}

static void test_dualpipe_formula(void **state)
{
    (void)state;
    const int cases[][2] = {{4, 8}, {4, 64}, {8, 16}, {8, 64}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int D = cases[i][0], N = cases[i][1];
        check_dualpipe("dualpipe", "xshape_zb", D, N, D);
        check_dualpipe("dualpipev", "vshape_v_zb", D, N, 2 * D);
    }
    /* unsplit backward: the rules still run (W-less), valid and above the lower bound */
    ts_placement *p = builtin("vshape_v", 4, false, 0);
    ts_metrics m;
    ts_schedule *s = make_ok("dualpipev", p, 8, &m);
    assert_true(m.makespan >= m.lower_bound);
    ts_metrics_free(&m);
    ts_schedule_free(s);
    ts_placement_free(p);
}

/* Looped BFS (Lamy-Poirier): with N >= D every chunk's forwards follow each other without a gap
 * and so do the backwards, so the makespan is v N (t_f + t_b) + (D-1)(t_f + t_b), as interleaved
 * 1F1B's, while device 0 holds all v N chunk activations as GPipe would. */
static void test_looped_bfs_formula(void **state)
{
    (void)state;
    const int cases[][3] = {{4, 2, 8}, {4, 3, 16}, {8, 2, 8}, {8, 2, 32}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int D = cases[i][0], v = cases[i][1], N = cases[i][2];
        ts_placement *p = builtin("vshape_interleaved", D, false, v);
        ts_metrics m;
        ts_schedule *s = make_ok("looped-bfs", p, N, &m);
        if (m.makespan != 4L * v * N + 4L * (D - 1) || m.peak[0] != (long)v * N)
            fail_msg("looped-bfs D=%d v=%d N=%d: makespan %ld (formula %ld), peak %ld (vN)", D, v,
                     N, m.makespan, 4L * v * N + 4L * (D - 1), m.peak[0]);
        ts_metrics_free(&m);
        ts_schedule_free(s);
        ts_placement_free(p);
    }
}

/* Every baseline that fits a paper case builds a valid schedule, also for few micro-batches. */
static void test_all_cases_valid(void **state)
{
    (void)state;
    const char *names[] = {"vshape",    "xshape",    "mshape",
                           "nnshape",   "kshape",    "mllm",
                           "finetune",  "alphafold", "vshape_interleaved",
                           "vshape_zb", "vshape_v",  "vshape_v_zb",
                           "xshape_zb"};
    const int devs[] = {2, 4, 8};
    const int ns[] = {1, 3, 8, 32};
    int built = 0;
    for (size_t a = 0; a < sizeof names / sizeof names[0]; a++)
        for (size_t b = 0; b < sizeof devs / sizeof devs[0]; b++)
            for (int infer = 0; infer < 2; infer++) {
                ts_placement *p = builtin(names[a], devs[b], infer, 0);
                for (int k = 0; k < ts_baseline_count(); k++)
                    for (size_t c = 0; c < sizeof ns / sizeof ns[0]; c++) {
                        const char *kind = ts_baseline_at(k)->name;
                        ts_err e = {0};
                        if (ts_baseline_fits(kind, p, ns[c], &e) != TS_OK) {
                            assert_int_equal(e.code, TS_EINPUT);
                            continue;
                        }
                        ts_metrics m;
                        ts_schedule *s = make_ok(kind, p, ns[c], &m);
                        assert_true(m.makespan >= m.lower_bound);
                        ts_metrics_free(&m);
                        ts_schedule_free(s);
                        built++;
                    }
                ts_placement_free(p);
            }
    assert_true(built > 100);
    /* nnshape_eager is four devices only */
    ts_placement *p = builtin("nnshape_eager", 4, false, 0);
    ts_metrics m;
    ts_schedule *s = make_ok("1f1b", p, 16, &m);
    ts_metrics_free(&m);
    ts_schedule_free(s);
    ts_placement_free(p);
}

static void expect_refusal(const char *kind, const char *placement, int D, int n,
                           const char *needle)
{
    ts_placement *p = builtin(placement, D, false, 0);
    ts_schedule *s = (ts_schedule *)0x1;
    ts_err e = {0};
    assert_int_equal(ts_baseline_make(kind, p, n, &s, &e), TS_EINPUT);
    assert_null(s);
    if (!strstr(e.msg, needle))
        fail_msg("%s on %s: message '%s' lacks '%s'", kind, placement, e.msg, needle);
    ts_placement_free(p);
}

static void test_refusals(void **state)
{
    (void)state;
    expect_refusal("chimera", "vshape", 4, 8, "fits xshape");
    expect_refusal("interleaved", "vshape", 4, 8, "vshape_interleaved");
    expect_refusal("interleaved", "vshape_interleaved", 4, 6, "multiple of the device count");
    expect_refusal("zb-h1", "vshape", 4, 8, "vshape_zb");
    expect_refusal("1f1b", "kshape", 4, 8, "vshape-like");
    expect_refusal("1f1b", "xshape", 4, 8, "one chain");
    expect_refusal("pipedream", "vshape", 4, 8, "unknown baseline");
    expect_refusal("zb-v", "vshape_zb", 4, 8, "two forward and two backward blocks per device");
    expect_refusal("dualpipev", "vshape_v_zb", 4, 7, "at least 8 micro-batches");
    expect_refusal("dualpipe", "vshape_v_zb", 4, 8, "two separate chains");
    expect_refusal("dualpipe", "xshape_zb", 4, 3, "at least 4 micro-batches");
    expect_refusal("zb-h2", "vshape_v_zb", 4, 8, "one forward and one backward block per device");
    expect_refusal("looped-bfs", "vshape_zb", 4, 8, "round-robin");
    expect_refusal("gpipe", "vshape", 4, 0, "at least 1 micro-batch");
    /* a placement with a micro-batch distance edge (token-level pipeline) has no hand-made rule */
    ts_placement *p = builtin("vshape", 2, false, 0);
    ts_placement_add_edge(p, 0, 0, 0, 1);
    ts_err e = {0};
    assert_int_equal(ts_baseline_fits("gpipe", p, 4, &e), TS_EINPUT);
    assert_non_null(strstr(e.msg, "between micro-batches"));
    ts_placement_free(p);
}

static void test_registry(void **state)
{
    (void)state;
    const char *want[] = {"gpipe",      "1f1b",   "interleaved", "chimera",  "zb-h1",
                          "zb-h2",      "zb-v",   "dualpipev",   "dualpipe", "looped-bfs",
                          "zb-v-defer", "v-half", "v-min"};
    const int nwant = (int)(sizeof want / sizeof want[0]);
    assert_int_equal(ts_baseline_count(), nwant);
    for (int i = 0; i < nwant; i++) {
        assert_string_equal(ts_baseline_at(i)->name, want[i]);
        assert_ptr_equal(ts_baseline_find(want[i]), ts_baseline_at(i));
        assert_non_null(ts_baseline_at(i)->fits);
    }
    assert_null(ts_baseline_find("zb-h3"));
    assert_null(ts_baseline_at(nwant));
    /* search info names the rule */
    ts_placement *p = builtin("vshape", 2, false, 0);
    ts_metrics m;
    ts_schedule *s = make_ok("1f1b", p, 4, &m);
    assert_string_equal(json_string_value(json_object_get(s->search, "baseline")), "1f1b");
    ts_metrics_free(&m);
    ts_schedule_free(s);
    ts_placement_free(p);
}

/* Kind k takes built-in name (and its inference variant when the row says so) on 4 devices. */
static void expect_fits(const ts_baseline_info *k, const char *name)
{
    for (int infer = 0; infer <= (k->inference ? 1 : 0); infer++) {
        ts_placement *p = builtin(name, 4, infer, 0);
        ts_err e = {0};
        if (ts_baseline_fits(k->name, p, 8, &e) != TS_OK)
            fail_msg("%s lists %s%s but refuses it: %s", k->name, name, infer ? " --infer" : "",
                     e.msg);
        ts_placement_free(p);
    }
}

/* What a row says it fits is data, and true: the kind takes every built-in its row lists, and its
 * unsplit one, at N = 8. */
static void test_registry_fits_are_true(void **state)
{
    (void)state;
    for (int i = 0; i < ts_baseline_count(); i++) {
        const ts_baseline_info *k = ts_baseline_at(i);
        assert_non_null(k->rule);
        assert_non_null(k->fits[0]);
        for (int j = 0; k->fits[j]; j++)
            expect_fits(k, k->fits[j]);
        if (k->unsplit)
            expect_fits(k, k->unsplit);
    }
    /* the words are made from the list: 1f1b names its placements and the inference variants */
    char text[512];
    ts_baseline_fits_text(ts_baseline_find("zb-v"), text, sizeof text);
    assert_string_equal(text, "vshape_v_zb (or vshape_v, backward unsplit): device d holds stages "
                              "d and 2D-1-d");
    ts_baseline_fits_text(ts_baseline_find("1f1b"), text, sizeof text);
    assert_non_null(strstr(text, "(vshape, mshape, "));
    assert_non_null(strstr(text, "vshape_zb and inference variants)"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_1f1b_vshape_reaches_bound),
        cmocka_unit_test(test_gpipe_vshape_memory),
        cmocka_unit_test(test_interleaved_formula),
        cmocka_unit_test(test_chimera_formula),
        cmocka_unit_test(test_zbh1_formula),
        cmocka_unit_test(test_zbh2_formula),
        cmocka_unit_test(test_zbv_formula),
        cmocka_unit_test(test_dualpipe_formula),
        cmocka_unit_test(test_looped_bfs_formula),
        cmocka_unit_test(test_all_cases_valid),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_registry),
        cmocka_unit_test(test_registry_fits_are_true),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
