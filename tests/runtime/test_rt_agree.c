/* Unit tests of the ranks' agreement record (rt_agree.c): the schedule digest follows what the
 * replay reads and nothing else, and the comparison names the option that differs with both
 * values, or both schedule files. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_agree.h"
#include "rt_testutil.h"

static uint64_t digest(const ts_schedule *s)
{
    uint64_t h = 0;
    ts_err e = {0};
    assert_int_equal(ts_rt_schedule_digest(s, &h, &e), TS_OK);
    assert_true(h != 0);
    return h;
}

/* The same timetable gives the same digest, whatever its search notes; another placement, another
 * micro-batch count or one moved instance gives another. */
static void test_digest(void **state)
{
    (void)state;
    ts_schedule *k = rt_test_load("runtime_kshape.json"), *m = rt_test_load("runtime_mshape.json");
    ts_schedule *copy = ts_schedule_clone(k);
    assert_non_null(copy);
    ts_schedule_set_search_info(copy, json_pack("{ss}", "method", "elsewhere"));
    assert_true(digest(k) == digest(copy));
    assert_true(digest(k) != digest(m));
    /* the 1F1B fixture has a repetend to unroll */
    ts_schedule *v = rt_test_load("runtime_vshape_1f1b.json"), *more = NULL;
    ts_err e = {0};
    assert_int_equal(ts_schedule_unroll(v, v->nmicros + 2, &more, &e), TS_OK);
    assert_true(digest(v) != digest(more));
    ts_schedule_free(v);
    copy->entries[copy->nentries - 1].step += 1;
    assert_true(digest(k) != digest(copy));
    ts_schedule_free(more);
    ts_schedule_free(copy);
    ts_schedule_free(m);
    ts_schedule_free(k);
}

static void parse(ts_rt_options *o, int argc, char **argv)
{
    ts_err e = {0};
    assert_int_equal(ts_rt_options_parse(argc, argv, o, &e), TS_OK);
}

static void make(const ts_rt_options *o, const ts_schedule *s, ts_rt_agreement *a)
{
    ts_err e = {0};
    assert_int_equal(ts_rt_agreement_make(o, s, a, &e), TS_OK);
}

/* rank 1 started with argv against rank 0 started with only --schedule a.json (the schedule s
 * for both unless other is given): the verdict and, on a refusal, the message must hold want. */
static void expect(int argc, char **argv, const ts_schedule *s, const ts_schedule *other, int code,
                   const char *want)
{
    char *base[] = {"tessel-run", "--schedule", "a.json"};
    ts_rt_options o0, o1;
    parse(&o0, 3, base);
    parse(&o1, argc, argv);
    ts_rt_agreement a0, a1;
    make(&o0, s, &a0);
    make(&o1, other ? other : s, &a1);
    ts_err e = {0};
    int rc = ts_rt_agreement_compare(&a1, 1, &a0, &e);
    if (rc != code || (want && !strstr(e.msg, want)))
        fprintf(stderr, "got %d '%s', wanted %d '%s'\n", rc, e.msg, code, want ? want : "");
    assert_int_equal(rc, code);
    if (want)
        assert_non_null(strstr(e.msg, want));
    /* rank 0 against itself always agrees */
    assert_int_equal(ts_rt_agreement_compare(&a0, 0, &a0, &e), TS_OK);
}

static void test_compare(void **state)
{
    (void)state;
    ts_schedule *k = rt_test_load("runtime_kshape.json"), *m = rt_test_load("runtime_mshape.json");
    char *same[] = {"tessel-run", "--schedule", "b.json", "--json", "--timeout", "7"};
    expect(6, same, k, NULL, TS_OK, NULL);
    char *size[] = {"tessel-run", "--schedule", "a.json", "--size", "128"};
    expect(5, size, k, NULL, TS_EINPUT,
           "rank 1 was started with --size 128 but rank 0 with --size 64");
    char *work[] = {"tessel-run", "--schedule", "a.json", "--workload", "timing"};
    expect(5, work, k, NULL, TS_EINPUT,
           "rank 1 was started with --workload timing but rank 0 with --workload dataflow");
    char *check[] = {"tessel-run", "--schedule", "a.json", "--check"};
    expect(4, check, k, NULL, TS_EINPUT,
           "rank 1 was started with --check but rank 0 with no --check");
    char *micro[] = {"tessel-run", "--schedule", "a.json", "--micro-batches", "9"};
    expect(5, micro, k, NULL, TS_EINPUT, "--micro-batches 9 but rank 0 with no --micro-batches");
    char *unit[] = {"tessel-run", "--schedule", "a.json", "--unit-us", "5"};
    expect(5, unit, k, NULL, TS_EINPUT, "--unit-us 5 but rank 0 with 1000");
    char *help[] = {"tessel-run", "--help"};
    expect(2, help, k, NULL, TS_EINPUT, "rank 1 was started with --help but rank 0 with no --help");
    char *other[] = {"tessel-run", "--schedule", "b.json"};
    expect(3, other, k, m, TS_EINPUT,
           "the schedule files differ: rank 1 replays b.json but rank 0 replays a.json");
    char *path[] = {"tessel-run", "--schedule", "a.json"};
    expect(3, path, k, m, TS_EINPUT, "rank 1 read another schedule from a.json than rank 0");
    ts_schedule_free(m);
    ts_schedule_free(k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_digest),
        cmocka_unit_test(test_compare),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
