/* What the tests of the barrier-chain constructions share (test_bframe.c, test_bwave.c): checks
 * of a schedule, and the cases both constructions must pass. Include after cmocka.h. */
#ifndef BCHAIN_TESTUTIL_H
#define BCHAIN_TESTUTIL_H

#include <string.h>
#include "core_testutil.h"
#include "ts_bound.h"

typedef int (*bc_construct)(const ts_placement *, int, const long *, ts_schedule **, ts_err *);

static inline void bc_assert_valid(const ts_schedule *s)
{
    ts_err e = {0};
    ts_validate_opts vo = {0};
    if (ts_schedule_validate(s, &vo, &e))
        fail_msg("invalid: %s", e.msg);
}

static inline long bc_start_of(const ts_schedule *s, int block, int micro)
{
    for (int i = 0; i < s->nentries; i++)
        if (s->entries[i].block == block && s->entries[i].micro == micro)
            return s->entries[i].step;
    fail_msg("no entry for block %d, micro-batch %d", block, micro);
    return -1;
}

static inline long bc_lower_bound(const ts_placement *p, int n, const long *cap)
{
    long lb = ts_bound_value(p, n, cap);
    assert_true(lb > 0);
    return lb;
}

/* nnshape on 4 devices with barriers of 2 and 3 steps (tests/fixtures), at memory 2, 4, 6: a
 * valid schedule, not below the bound, each barrier laid out whole. */
static inline void bc_long_barriers(bc_construct fn)
{
    ts_placement *p = NULL;
    ts_err e = {0};
    if (ts_placement_load(TS_TEST_DATA "/fixtures/nnshape4_long_barriers.json", &p, &e))
        fail_msg("%s", e.msg);
    for (long c = 2; c <= 6; c += 2) {
        long cap[4];
        tu_caps(cap, 4, c);
        ts_schedule *s = NULL;
        if (fn(p, 20, cap, &s, &e))
            fail_msg("memory %ld: %s", c, e.msg);
        bc_assert_valid(s);
        assert_true(tu_makespan(s, 20, NULL) >= bc_lower_bound(p, 20, cap));
        ts_schedule_free(s);
    }
    ts_placement_free(p);
}

/* What is not a barrier V (xshape, vshape, kshape) is refused as such, and memory 0 fits
 * nothing. */
static inline void bc_refusals(bc_construct fn)
{
    const char *other[] = {"xshape", "vshape", "kshape"};
    for (int i = 0; i < 3; i++) {
        ts_placement *p = tu_builtin(other[i], 4, false);
        ts_schedule *s = NULL;
        ts_err e = {0};
        assert_int_equal(fn(p, 8, NULL, &s, &e), TS_EINPUT);
        assert_null(s);
        assert_non_null(strstr(e.msg, "not a barrier V"));
        ts_placement_free(p);
    }
    ts_placement *p = tu_builtin("nnshape", 4, false);
    long cap[4] = {0, 0, 0, 0};
    ts_schedule *s = NULL;
    ts_err e = {0};
    assert_int_equal(fn(p, 8, cap, &s, &e), TS_ENOANSWER);
    assert_null(s);
    assert_non_null(strstr(e.msg, "fits the memory"));
    ts_placement_free(p);
}

#endif
