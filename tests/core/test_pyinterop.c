/* The Python Tessel interchange through the library: the reference's saved schedules import into
 * schedules whose repetend reproduces the reference's unroll at every N, and export writes them
 * back so that importing again changes nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "ts_pytessel.h"

typedef struct {
    const char *file, *placement;
    bool infer;
} ts_case;

static const ts_case cases[] = {
    {"vshape_train", "vshape", false},   {"vshape_infer", "vshape", true},
    {"xshape_train", "xshape", false},   {"xshape_infer", "xshape", true},
    {"kshape_train", "kshape", false},   {"kshape_infer", "kshape", true},
    {"mshape_train", "mshape", false},   {"mshape_infer", "mshape", true},
    {"nnshape_train", "nnshape", false}, {"nnshape_infer", "nnshape", true},
};
#define NCASES (int)(sizeof cases / sizeof cases[0])

static ts_placement *mk(const ts_case *c)
{
    ts_builtin_opts o = {4, c->infer, 0};
    ts_placement *p = NULL;
    ts_err e = {0};
    assert_int_equal(ts_builtin_make(c->placement, &o, &p, &e), TS_OK);
    return p;
}

static ts_schedule *import_at(const ts_case *c, const ts_placement *p, int n)
{
    char path[1024];
    ts_pyimport_opts o = {.nmicros = n};
    ts_schedule *s = NULL;
    ts_err e = {0};
    snprintf(path, sizeof path, "%s/fixtures/pytessel/%s.json", TS_TEST_DATA, c->file);
    if (ts_pyimport_read(path, p, &o, &s, &e))
        fail_msg("%s: %s", c->file, e.msg);
    return s;
}

static bool same_entries(const ts_schedule *a, const ts_schedule *b)
{
    return a->nmicros == b->nmicros && a->nentries == b->nentries &&
           !memcmp(a->entries, b->entries, (size_t)a->nentries * sizeof *a->entries);
}

/* The reference's unroll at N (import -n N) is our repetend's unroll at N, for every N from the
 * fewest micro-batches that hold a one-period window; below that, the import is still valid. */
static void test_repetend_reproduces_reference_unroll(void **state)
{
    (void)state;
    for (int i = 0; i < NCASES; i++) {
        ts_placement *p = mk(&cases[i]);
        ts_schedule *s = import_at(&cases[i], p, 0);
        ts_err e = {0};
        assert_true(s->has_repetend);
        assert_int_equal(s->rep.end - s->rep.start, s->rep.period);
        for (int n = s->nmicros; n <= s->nmicros + 6; n++) {
            ts_schedule *ref = import_at(&cases[i], p, n), *u = NULL;
            assert_int_equal(ts_schedule_unroll(s, n, &u, &e), TS_OK);
            ts_schedule_sort(u);
            if (!same_entries(ref, u))
                fail_msg("%s: our unroll at %d differs from the reference's", cases[i].file, n);
            ts_schedule_free(u);
            ts_schedule_free(ref);
        }
        ts_schedule_free(s);
        ts_placement_free(p);
    }
}

/* export -> import gives the schedule back, repetend included. */
static void test_export_import_unchanged(void **state)
{
    (void)state;
    char out[256];
    snprintf(out, sizeof out, "/tmp/tessel_test_pyexport_%ld.json", (long)getpid());
    for (int i = 0; i < NCASES; i++) {
        ts_placement *p = mk(&cases[i]);
        ts_schedule *s = import_at(&cases[i], p, 0), *back = NULL;
        ts_err e = {0};
        if (ts_pyexport_save(s, out, &e))
            fail_msg("%s: %s", cases[i].file, e.msg);
        if (ts_pyimport_read(out, p, NULL, &back, &e))
            fail_msg("%s: %s", cases[i].file, e.msg);
        assert_true(same_entries(s, back));
        assert_true(back->has_repetend);
        assert_int_equal(back->rep.start, s->rep.start);
        assert_int_equal(back->rep.period, s->rep.period);
        assert_memory_equal(back->rep.mids, s->rep.mids, (size_t)p->nblocks * sizeof(int));
        ts_schedule_free(back);
        ts_schedule_free(s);
        ts_placement_free(p);
    }
    unlink(out);
}

/* The shift the reference derives from a window: the largest per-device extent of the window's
 * instances, plus what an edge to the next micro-batch's instance asks (only with dependencies). */
static void test_reference_period(void **state)
{
    (void)state;
    ts_placement *p = mk(&cases[0]); /* vshape, 4 devices: F0 F1 F2 F3 B3 B2 B1 B0 */
    /* one micro-batch as early as possible: device 0 spans F0 at 0 to B0's end at 16 */
    int mid[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    long step[8] = {0, 1, 2, 3, 4, 7, 10, 13};
    assert_int_equal(ts_py_period(p, mid, step, true), 16);
    assert_int_equal(ts_py_period(p, mid, step, false), 16);
    /* F1 of the next micro-batch at 30: device 1 spans 10 .. 31 (21); F0 -> F1 of micro-batch 1
     * adds 30 - 0 - 21 = 9, F1 -> F2 adds 31 - 2 - 21 = 8 */
    mid[1] = 1;
    step[1] = 30;
    assert_int_equal(ts_py_period(p, mid, step, false), 21);
    assert_int_equal(ts_py_period(p, mid, step, true), 30);
    ts_placement_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_repetend_reproduces_reference_unroll),
        cmocka_unit_test(test_export_import_unchanged),
        cmocka_unit_test(test_reference_period),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
