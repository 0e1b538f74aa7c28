/* Property test of period_optimal: on small random placements, lazy, modulo and fast search
 * repetends of R = 1, 2, 3 micro-batches per period within one memory; a repetend of R' per
 * period P' unrolled R/R' times is one of R per period (R/R') P', so every claim
 * "period_optimal: period P with R per period" must satisfy P <= (R/R') P' for every repetend any
 * method found with R' dividing R. Also the two-tower case of issue 23 (two encoders feeding a
 * decoder: lazy with three per period claimed 15 where one per period 4 exists).
 *
 * TS_PERIOD_CLAIMS_N sets the number of random placements (12 by default; 1000 or more for the
 * long run, which prints its tally). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include "solver_testutil.h"
#include "ts_schedule.h"
#include "../core/random_placement.h"

#define NMETHODS 3
#define MAXR 3

typedef struct {
    long period; /* 0: none found */
    bool claim;
} found_t;

static void run_one(const ts_placement *p, ts_method m, int R, bool has_memory, long cap,
                    double limit, found_t *f)
{
    ts_search_opts o = tu_opts(m, has_memory, cap);
    o.per_period = R;
    o.micro_batches = 8;
    o.time_limit = limit;
    ts_schedule *s = NULL;
    ts_search_stats st;
    ts_err e = {0};
    f->period = 0;
    f->claim = false;
    if (ts_search(p, &o, &s, &st, &e) == TS_OK && s && st.period > 0) {
        f->period = st.period;
        f->claim = st.period_optimal;
    }
    ts_schedule_free(s);
}

/* Checks every claim against every found period; returns the number of claims checked and fails
 * on a contradiction. */
static int check_claims(const char *what, found_t (*f)[MAXR + 1])
{
    static const char *names[NMETHODS] = {"lazy", "modulo", "fast"};
    int checked = 0;
    for (int m = 0; m < NMETHODS; m++)
        for (int R = 1; R <= MAXR; R++) {
            if (!f[m][R].claim)
                continue;
            checked++;
            for (int m2 = 0; m2 < NMETHODS; m2++)
                for (int R2 = 1; R2 <= R; R2++)
                    if (R % R2 == 0 && f[m2][R2].period > 0 &&
                        (long)(R / R2) * f[m2][R2].period < f[m][R].period)
                        fail_msg("%s: %s claims period_optimal %ld per %d micro-batches, but %s "
                                 "found %ld per %d",
                                 what, names[m], f[m][R].period, R, names[m2], f[m2][R2].period,
                                 R2);
        }
    return checked;
}

static void search_all(const ts_placement *p, bool has_memory, long cap, found_t (*f)[MAXR + 1])
{
    const ts_method ms[NMETHODS] = {TS_METHOD_LAZY, TS_METHOD_MODULO, TS_METHOD_FAST};
    for (int m = 0; m < NMETHODS; m++)
        for (int R = 1; R <= MAXR; R++)
            run_one(p, ms[m], R, has_memory, cap, 2, &f[m][R]);
}

/* Two encoders (devices 0-1 and 2-3) feeding a decoder (4-5): forwards span 1, backwards 3,
 * memory 4. One micro-batch per period 4 (the load) fits; lazy with three per period found 15
 * and claimed it minimal, since its class (contiguous segments of the 3-fold chain order) does
 * not hold the period-4 schedule unrolled three times. */
static void test_two_tower(void **state)
{
    (void)state;
    ts_placement *p = ts_placement_new("twotower", 6);
    const char *fw[] = {"FA0", "FA1", "FC0", "FC1", "FD0", "FD1"};
    const char *bw[] = {"BD1", "BD0", "BA1", "BA0", "BC1", "BC0"};
    const int fdev[] = {0, 1, 2, 3, 4, 5}, bdev[] = {5, 4, 1, 0, 3, 2};
    for (int i = 0; i < 6; i++)
        assert_int_equal(ts_placement_add_block(p, fw[i], TS_KIND_FORWARD, 1, 1, 1, &fdev[i]), i);
    for (int i = 0; i < 6; i++)
        assert_int_equal(ts_placement_add_block(p, bw[i], TS_KIND_BACKWARD, 3, -1, 1, &bdev[i]),
                         6 + i);
    const int edges[][2] = {{0, 1}, {2, 3}, {1, 4},  {3, 4}, {4, 5},  {5, 6},
                            {6, 7}, {7, 8}, {7, 10}, {8, 9}, {10, 11}};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
        ts_placement_add_edge(p, edges[i][0], edges[i][1], 0, 0);
    ts_err e = {0};
    assert_int_equal(ts_placement_check(p, "twotower", &e), TS_OK);
    found_t f[NMETHODS][MAXR + 1] = {{{0}}};
    run_one(p, TS_METHOD_LAZY, 1, true, 4, 60, &f[0][1]);
    run_one(p, TS_METHOD_LAZY, 3, true, 4, 60, &f[0][3]);
    assert_int_equal(f[0][1].period, 4);
    assert_true(f[0][3].period > 0);
    check_claims("twotower", f);
    ts_placement_free(p);
}

static void test_random_claims(void **state)
{
    (void)state;
    const char *env = getenv("TS_PERIOD_CLAIMS_N");
    int count = env && atoi(env) > 0 ? atoi(env) : 12, claims = 0, used = 0;
    uint64_t seed = 20261201;
    for (int iter = 0; iter < count; iter++) {
        ts_placement *p = random_placement(&seed);
        long floor_cap = 0;
        bool exact = false;
        ts_err e = {0};
        bool has_memory = iter % 3 != 2;
        if (has_memory && tu_memory_floor(p, &floor_cap, &exact, &e) != TS_OK) {
            ts_placement_free(p);
            continue;
        }
        long cap = floor_cap + rint_(&seed, 0, 2);
        found_t f[NMETHODS][MAXR + 1] = {{{0}}};
        search_all(p, has_memory, cap, f);
        char what[64];
        snprintf(what, sizeof what, "random placement %d", iter);
        claims += check_claims(what, f);
        used++;
        ts_placement_free(p);
    }
    printf("period claims: %d random placements searched, %d period_optimal claims checked\n", used,
           claims);
    assert_true(claims >= used / 2);
}

int main(void)
{
    /* the shared header's valid-by-construction schedule is not needed here */
    (void)sequential;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_tower),
        cmocka_unit_test(test_random_claims),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
