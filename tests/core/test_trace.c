/* Chrome trace writer: the file loads as JSON, has the tracks and one slice per instance and
 * device, and the args a reader needs (block, micro, memory, step). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ts_trace.h"

static void tmp_path(char *buf, size_t n, const char *tag)
{
    snprintf(buf, n, "/tmp/tessel_test_trace_%s_%ld.json", tag, (long)getpid());
}

static json_t *load_events(const char *path)
{
    json_error_t jerr;
    json_t *root = json_load_file(path, 0, &jerr);
    assert_non_null(root);
    json_t *ev = json_object_get(root, "traceEvents");
    assert_true(json_is_array(ev));
    json_incref(ev);
    json_decref(root);
    return ev;
}

static int count_phase(json_t *ev, const char *ph, int tid)
{
    int n = 0;
    size_t i;
    json_t *x;
    json_array_foreach(ev, i, x)
    {
        if (strcmp(json_string_value(json_object_get(x, "ph")), ph) != 0)
            continue;
        if (tid >= 0 && json_integer_value(json_object_get(x, "tid")) != tid)
            continue;
        n++;
    }
    return n;
}

static void test_writer_roundtrip(void **state)
{
    (void)state;
    ts_trace *t = ts_trace_new("run");
    assert_non_null(t);
    assert_int_equal(ts_trace_track(t, 0, "rank 0"), 0);
    assert_int_equal(ts_trace_track(t, 1, "rank 1"), 0);
    assert_int_equal(
        ts_trace_slice(t, 0, "F0 m0", "forward", 0.0, 10.0, json_pack("{s:i}", "micro", 0)), 0);
    assert_int_equal(ts_trace_slice(t, 1, "F1 m0", "forward", 12.5, 10.0, NULL), 0);
    assert_int_equal(ts_trace_flow(t, 7, "send", 0, 9.0, 1, 13.0), 0);
    char path[128];
    tmp_path(path, sizeof path, "rt");
    ts_err e = {0};
    assert_int_equal(ts_trace_write(t, path, &e), TS_OK);
    ts_trace_free(t);

    json_t *ev = load_events(path);
    assert_int_equal(count_phase(ev, "X", -1), 2);
    assert_int_equal(count_phase(ev, "X", 1), 1);
    assert_int_equal(count_phase(ev, "s", 0), 1);
    assert_int_equal(count_phase(ev, "f", 1), 1);
    /* process name + 2 x (thread name, sort index) */
    assert_int_equal(count_phase(ev, "M", -1), 5);
    size_t i;
    json_t *x;
    json_array_foreach(ev, i, x)
    {
        if (!strcmp(json_string_value(json_object_get(x, "ph")), "X") &&
            json_integer_value(json_object_get(x, "tid")) == 1) {
            assert_true(json_real_value(json_object_get(x, "ts")) == 12.5);
            assert_null(json_object_get(x, "args"));
        }
    }
    json_decref(ev);
    remove(path);
}

static void test_write_bad_path(void **state)
{
    (void)state;
    ts_trace *t = ts_trace_new("x");
    ts_err e = {0};
    assert_int_equal(ts_trace_write(t, "/nonexistent-dir/x/trace.json", &e), TS_ESYS);
    assert_non_null(strstr(e.msg, "/nonexistent-dir/x/trace.json"));
    ts_trace_free(t);
}

/* Two devices; A on device 0, S sharded on both, B on device 1: A -> S -> B. */
static ts_schedule *small_schedule(void)
{
    ts_placement *p = ts_placement_new("tiny", 2);
    int d0 = 0, d1 = 1, both[2] = {0, 1};
    int a = ts_placement_add_block(p, "A", TS_KIND_FORWARD, 1, 1, 1, &d0);
    int s = ts_placement_add_block(p, "S", TS_KIND_OTHER, 2, 0, 2, both);
    int b = ts_placement_add_block(p, "B", TS_KIND_BACKWARD, 3, -1, 1, &d1);
    ts_placement_add_edge(p, a, s, 0, 0);
    ts_placement_add_edge(p, s, b, 0, 0);
    ts_schedule *sch = ts_schedule_new(p, 3);
    ts_placement_free(p);
    long t = 5; /* a schedule need not start at 0: the trace starts at 0 anyway */
    for (int m = 0; m < 3; m++) {
        ts_schedule_add(sch, a, m, t);
        ts_schedule_add(sch, s, m, t + 1);
        ts_schedule_add(sch, b, m, t + 3);
        t += 6;
    }
    return sch;
}

static void test_from_schedule(void **state)
{
    (void)state;
    ts_schedule *s = small_schedule();
    ts_err e = {0};
    ts_validate_opts vo = {0};
    assert_int_equal(ts_schedule_validate(s, &vo, &e), TS_OK);
    ts_trace *t = ts_trace_from_schedule(s, 100.0);
    assert_non_null(t);
    char path[128];
    tmp_path(path, sizeof path, "sched");
    assert_int_equal(ts_trace_write(t, path, &e), TS_OK);
    ts_trace_free(t);

    json_t *ev = load_events(path);
    /* one slice per instance and device: 3 x (A on 1 + S on 2 + B on 1) */
    assert_int_equal(count_phase(ev, "X", -1), 12);
    assert_int_equal(count_phase(ev, "X", 0), 6);
    assert_int_equal(count_phase(ev, "X", 1), 6);
    int seen_first = 0;
    size_t i;
    json_t *x;
    json_array_foreach(ev, i, x)
    {
        if (strcmp(json_string_value(json_object_get(x, "ph")), "X") != 0)
            continue;
        json_t *args = json_object_get(x, "args");
        assert_non_null(args);
        const char *blk = json_string_value(json_object_get(args, "block"));
        assert_non_null(blk);
        long micro = (long)json_integer_value(json_object_get(args, "micro"));
        long step = (long)json_integer_value(json_object_get(args, "step"));
        assert_true(micro >= 0 && micro < 3);
        assert_non_null(json_object_get(args, "memory"));
        /* shifted to start at 0, 100 us per unit */
        assert_true(json_number_value(json_object_get(x, "ts")) == (double)(step - 5) * 100.0);
        if (!strcmp(blk, "B")) {
            assert_true(json_number_value(json_object_get(x, "dur")) == 300.0);
            assert_int_equal(json_integer_value(json_object_get(args, "memory")), -1);
            assert_string_equal(json_string_value(json_object_get(x, "cat")), "backward");
        }
        if (step == 5)
            seen_first++;
    }
    assert_int_equal(seen_first, 1);
    json_decref(ev);
    remove(path);
    ts_schedule_free(s);
}

/* The streamed plan (ts_trace_write_schedule) is the in-memory one byte for byte, and a plan
 * above the cap is refused before anything is written. */
static void test_write_schedule_streams(void **state)
{
    (void)state;
    ts_schedule *s = small_schedule();
    ts_err e = {0};
    char a[128], b[128];
    tmp_path(a, sizeof a, "mem");
    tmp_path(b, sizeof b, "stream");
    ts_trace *t = ts_trace_from_schedule(s, 100.0);
    assert_non_null(t);
    assert_int_equal(ts_trace_write(t, a, &e), TS_OK);
    ts_trace_free(t);
    assert_int_equal(ts_trace_write_schedule(s, 100.0, b, &e), TS_OK);
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    assert_non_null(fa);
    assert_non_null(fb);
    int ca, cb;
    long n = 0;
    do {
        ca = fgetc(fa);
        cb = fgetc(fb);
        assert_int_equal(ca, cb);
        n++;
    } while (ca != EOF);
    assert_true(n > 100);
    fclose(fa);
    fclose(fb);
    remove(a);
    remove(b);
    /* 4 slices per micro-batch: 2^22 + 1 micro-batches are one slice too many. */
    assert_int_equal(ts_trace_schedule_slices(s->placement, 1L << 22), TS_TRACE_MAX_SLICES);
    s->nmicros = (1 << 22) + 1;
    assert_int_equal(ts_trace_write_schedule(s, 100.0, b, &e), TS_EINPUT);
    assert_non_null(strstr(e.msg, "more than the limit"));
    assert_null(fopen(b, "rb"));
    ts_schedule_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_writer_roundtrip),
        cmocka_unit_test(test_write_bad_path),
        cmocka_unit_test(test_from_schedule),
        cmocka_unit_test(test_write_schedule_streams),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
