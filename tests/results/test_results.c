/* The results module: the watchdog rule and supervisor (a real child process group stopped at
 * its deadline, with the one message), the schedule summary, and compare rows (a baseline, a
 * refusal, a search in a guarded child) with the table's best row. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "ts_baseline.h"
#include "ts_results.h"

static ts_placement *vshape(int ndevs)
{
    ts_builtin_opts o = {ndevs, false, 0};
    ts_placement *p = NULL;
    ts_err e = {0};
    assert_int_equal(ts_builtin_make("vshape", &o, &p, &e), TS_OK);
    return p;
}

static void test_watchdog_rule(void **state)
{
    (void)state;
    assert_true(ts_watchdog_seconds(0) == 5.0);
    assert_true(ts_watchdog_seconds(4) == 10.0);
    ts_watch w;
    ts_watch_start(&w, 12345, false, 4, 3);
    assert_true(w.deadline == w.started + 3 * ts_watchdog_seconds(4));
    /* No time limit: no deadline, never overdue. */
    ts_watch_start(&w, 12345, false, 0, 1);
    assert_true(w.deadline == 0);
    assert_false(ts_watch_check(&w, w.started + 1e9));
}

/* A child that leads its own process group, with a grandchild in it; both hold the write end of
 * a pipe, so the read end sees its end only when both are gone. */
static pid_t spawn_group(int *rd)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        setpgid(0, 0);
        close(fds[0]);
        if (fork() == 0)
            for (;;)
                pause();
        for (;;)
            pause();
    }
    setpgid(pid, pid);
    close(fds[1]);
    *rd = fds[0];
    return pid;
}

static void test_watch_stops_the_group(void **state)
{
    (void)state;
    int rd;
    pid_t pid = spawn_group(&rd);
    ts_watch w;
    ts_watch_start(&w, pid, true, 1, 1);
    /* Past its limit but within the grace: it runs on. */
    assert_false(ts_watch_check(&w, w.started + 1.5));
    int status;
    assert_int_equal(waitpid(pid, &status, WNOHANG), 0);
    /* Past the deadline: the child and its group are stopped. */
    assert_true(ts_watch_check(&w, w.deadline + 0.01));
    assert_true(w.overdue);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    struct pollfd pf = {rd, POLLIN, 0};
    assert_int_equal(poll(&pf, 1, 30000), 1);
    char c;
    assert_int_equal(read(rd, &c, 1), 0);
    close(rd);
    char msg[160];
    ts_watch_message(&w, w.started + 6.3, msg, sizeof msg);
    assert_string_equal(
        msg, "stopped after 6.3 s: ran past its time limit of 1 s by more than a quarter");
    w.searches = 3;
    ts_watch_message(&w, w.started + 16, msg, sizeof msg);
    assert_non_null(strstr(msg, "time limit of 1 s per search"));
}

static void test_summary(void **state)
{
    (void)state;
    ts_placement *p = vshape(4);
    ts_schedule *s = NULL;
    ts_err e = {0};
    assert_int_equal(ts_baseline_make("1f1b", p, 8, &s, &e), TS_OK);
    long roomy = 100, tight = 1;
    json_t *j = ts_results_summary(s, 8, &roomy, 1, &e);
    assert_non_null(j);
    const char *keys[] = {"micro_batches", "makespan", "bubble_rate", "lower_bound",
                          "peak_memory",   "load",     "ratio",       "fits"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        assert_non_null(json_object_get(j, keys[i]));
    assert_int_equal(json_object_size(j), sizeof keys / sizeof *keys);
    assert_true(json_is_true(json_object_get(j, "fits")));
    assert_int_equal(json_array_size(json_object_get(j, "peak_memory")), 4);
    json_decref(j);
    j = ts_results_summary(s, 8, &tight, 1, &e);
    assert_true(json_is_false(json_object_get(j, "fits")));
    json_decref(j);
    ts_schedule_free(s);
    ts_placement_free(p);
}

static void test_compare_rows(void **state)
{
    (void)state;
    ts_placement *p = vshape(4);
    long cap = 4;
    ts_compare_opts o = {.p = p,
                         .n = 8,
                         .has_memory = true,
                         .memory = 4,
                         .cap = &cap,
                         .ncap = 1,
                         .time_limit = 20,
                         .keep = true};
    ts_compare_row rows[3];
    ts_compare_row_run(&o, "1f1b", &rows[0]);
    assert_true(rows[0].ok && rows[0].fits && !rows[0].search);
    assert_string_equal(rows[0].status, "ok");
    assert_non_null(rows[0].schedule);
    /* The measured makespan is the summary's. */
    ts_err e = {0};
    json_t *sum = ts_results_summary(rows[0].schedule, 8, &cap, 1, &e);
    assert_int_equal(json_integer_value(json_object_get(sum, "makespan")), rows[0].makespan);
    json_decref(sum);
    /* gpipe holds every micro-batch at once: measured, but it does not fit 4. */
    ts_compare_row_run(&o, "gpipe", &rows[1]);
    assert_true(rows[1].ok && !rows[1].fits);
    /* xshape's bidirectional schedule does not fit vshape's placement: a row without numbers. */
    ts_compare_row_run(&o, "chimera", &rows[2]);
    assert_false(rows[2].ok);
    assert_memory_equal(rows[2].status, "does not fit", 12);
    assert_int_equal(ts_compare_finish(rows, 3, 99), 0);
    assert_true(rows[0].best && !rows[1].best && !rows[2].best);
    assert_int_equal(rows[2].lower_bound, 99);
    json_t *j = ts_compare_row_json(&rows[0]);
    assert_string_equal(json_string_value(json_object_get(j, "kind")), "baseline");
    assert_non_null(json_object_get(j, "schedule"));
    assert_non_null(json_object_get(j, "fits"));
    json_decref(j);
    for (int i = 0; i < 3; i++)
        ts_compare_row_clear(&rows[i]);
    ts_placement_free(p);
}

#ifdef TS_HAVE_SOLVER
/* A search row, in this process (with its record kept) and in a guarded child: the same row. */
static void test_compare_search_row(void **state)
{
    (void)state;
    ts_placement *p = vshape(4);
    long cap = 4;
    ts_compare_opts o = {.p = p,
                         .n = 8,
                         .has_memory = true,
                         .memory = 4,
                         .cap = &cap,
                         .ncap = 1,
                         .time_limit = 20,
                         .keep = true};
    ts_compare_row here, there;
    ts_compare_row_run(&o, "modulo", &here);
    ts_compare_row_run_guarded(&o, "modulo", &there);
    assert_true(here.ok && there.ok && here.search && there.search);
    assert_int_equal(here.makespan, there.makespan);
    assert_int_equal(here.period, there.period);
    assert_string_equal(here.status, there.status);
    for (int d = 0; d < 4; d++)
        assert_int_equal(here.peak[d], there.peak[d]);
    json_t *j = ts_compare_row_json(&here);
    assert_string_equal(json_string_value(json_object_get(j, "kind")), "search");
    /* The record's keys ride along: every statistic, the phases' seconds, the memory searched. */
    assert_non_null(json_object_get(j, "period_optimal"));
    assert_non_null(json_object_get(j, "search_seconds"));
    assert_int_equal(json_integer_value(json_object_get(j, "memory_searched")), 4);
    assert_string_equal(json_string_value(json_object_get(j, "method")), "modulo");
    json_decref(j);
    ts_compare_row_clear(&here);
    ts_compare_row_clear(&there);
    ts_placement_free(p);
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_watchdog_rule),
        cmocka_unit_test(test_watch_stops_the_group),
        cmocka_unit_test(test_summary),
        cmocka_unit_test(test_compare_rows),
#ifdef TS_HAVE_SOLVER
        cmocka_unit_test(test_compare_search_row),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
