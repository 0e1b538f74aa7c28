/* The controllable-memory family (V-Half, V-Min) and ZB-V with W deferred, on the V placement
 * with F = B = W = 1: each against its published memory and bubble formulas, and against the
 * makespans of the zero-bubble repository's own schedulers (tests/fixtures/cm_peer_makespans.tsv,
 * which says how they were made). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "ts_baseline.h"
#include "ts_bound.h"

static ts_placement *vplace(int D)
{
    ts_builtin_opts o = {.ndevs = D};
    ts_placement *p = NULL;
    ts_err e = {0};
    assert_int_equal(ts_builtin_make("vshape_v_zb", &o, &p, &e), TS_OK);
    return p;
}

/* Makespan, largest device peak and the lower bound of kind's schedule (validated). */
static void run(const char *kind, int D, int N, long *mk, long *peak, long *lb)
{
    ts_placement *p = vplace(D);
    ts_schedule *s = NULL;
    ts_err e = {0};
    if (ts_baseline_make(kind, p, N, &s, &e) != TS_OK)
        fail_msg("%s D=%d N=%d: %s", kind, D, N, e.msg);
    ts_validate_opts vo = {.monotone = true, .ignore_memory = true};
    if (ts_schedule_validate(s, &vo, &e) != TS_OK)
        fail_msg("%s D=%d N=%d invalid: %s", kind, D, N, e.msg);
    ts_metrics m;
    assert_int_equal(ts_schedule_metrics(s, &m), 0);
    *mk = m.makespan;
    *lb = m.lower_bound;
    *peak = 0;
    for (int d = 0; d < D; d++)
        *peak = m.peak[d] > *peak ? m.peak[d] : *peak;
    ts_metrics_free(&m);
    ts_schedule_free(s);
    ts_placement_free(p);
}

/* Qi et al. (NeurIPS'24): V-Half holds (p+2)/2 micro-batches of activations and V-Min (p+4)/3
 * (integer division, p = D devices), against 1F1B's p; one micro-batch on a device is its two
 * chunks' forwards, 4 units here. The bubble is about 1/2 (V-Half) and 2/3 (V-Min) of 1F1B's,
 * which on this placement (6 units of work per device and micro-batch) is 6(D-1): the steady
 * state has none (the makespan grows by 6 per micro-batch) and the fill and drain cost at most
 * 3(D-1) and 4(D-1). */
static void test_cm_formulas(void **state)
{
    (void)state;
    const int devs[] = {2, 3, 4, 5, 6, 8, 9, 12, 16};
    for (size_t i = 0; i < sizeof devs / sizeof devs[0]; i++) {
        int D = devs[i];
        for (int half = 0; half < 2; half++) {
            const char *kind = half ? "v-half" : "v-min";
            long cap = half ? 4L * ((D + 2) / 2) : 4L * ((D + 4) / 3);
            long over_max = half ? 3L * (D - 1) : 4L * (D - 1);
            long mk2, mk4, pk, lb;
            run(kind, D, 2 * D, &mk2, &pk, &lb);
            if (pk > cap)
                fail_msg("%s D=%d N=%d: peak %ld above the formula's %ld", kind, D, 2 * D, pk, cap);
            run(kind, D, 4 * D, &mk4, &pk, &lb);
            if (pk > cap)
                fail_msg("%s D=%d N=%d: peak %ld above the formula's %ld", kind, D, 4 * D, pk, cap);
            if (mk4 - mk2 != 6L * 2 * D)
                fail_msg("%s D=%d: steady state not bubble-free: makespan %ld at N=%d, %ld at %d",
                         kind, D, mk2, 2 * D, mk4, 4 * D);
            if (mk4 - 6L * 4 * D > over_max)
                fail_msg("%s D=%d N=%d: fill and drain %ld, formula at most %ld", kind, D, 4 * D,
                         mk4 - 6L * 4 * D, over_max);
        }
    }
}

/* Against the peer's schedulers: ZB-V with W deferred gives the peer's ZB-V greedy makespan in
 * every case (at N = D the lower bound) within its 2D-chunk cap (4D units); V-Min and V-Half,
 * built as the peer builds them, give exactly the peer's makespan and peak. */
static void test_cm_peer_reference(void **state)
{
    (void)state;
    FILE *f = fopen(TS_TEST_DATA "/fixtures/cm_peer_makespans.tsv", "r");
    assert_non_null(f);
    char line[1024];
    int rows = 0;
    while (fgets(line, sizeof line, f)) {
        char kind[32];
        int D, N;
        long ref_mk, ref_peak, mk, pk, lb;
        if (line[0] == '#' ||
            sscanf(line, "%31s %d %d %ld %ld", kind, &D, &N, &ref_mk, &ref_peak) != 5)
            continue;
        rows++;
        bool greedy = !strcmp(kind, "zb-v-greedy");
        run(greedy ? "zb-v-defer" : kind, D, N, &mk, &pk, &lb);
        if (pk > ref_peak || (!greedy && pk != ref_peak))
            fail_msg("%s D=%d N=%d: peak %ld, the peer's %ld", kind, D, N, pk, ref_peak);
        if (greedy ? mk > ref_mk : mk != ref_mk)
            fail_msg("%s D=%d N=%d: makespan %ld, the peer's %ld", kind, D, N, mk, ref_mk);
        if (greedy && pk > 4L * D)
            fail_msg("zb-v-defer D=%d N=%d: peak %ld above 2D chunks (%ld)", D, N, pk, 4L * D);
        if (greedy && N == D && mk != lb)
            fail_msg("zb-v-defer D=%d N=%d: makespan %ld, lower bound %ld", D, N, mk, lb);
    }
    fclose(f);
    assert_int_equal(rows, 60);
}

/* The family refuses placements that are not the V: vshape_zb has one chunk per device. */
static void test_cm_refusals(void **state)
{
    (void)state;
    const char *kinds[] = {"v-half", "v-min", "zb-v-defer"};
    ts_builtin_opts o = {.ndevs = 4};
    ts_placement *p = NULL;
    ts_err e = {0};
    assert_int_equal(ts_builtin_make("vshape_zb", &o, &p, &e), TS_OK);
    for (int i = 0; i < 3; i++) {
        ts_err ke = {0};
        assert_int_equal(ts_baseline_fits(kinds[i], p, 8, &ke), TS_EINPUT);
        assert_non_null(strstr(ke.msg, "two forward and two backward blocks per device"));
    }
    ts_placement_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cm_formulas),
        cmocka_unit_test(test_cm_peer_reference),
        cmocka_unit_test(test_cm_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
