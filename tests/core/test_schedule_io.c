/* Schedule output on large schedules (issue 14): ts_schedule_save streams the entries instead of
 * building a Jansson tree, so its file must stay byte for byte what the tree would give; and
 * ts_schedule_sort takes a counting pass over the steps, so its order must stay the full order
 * (step, first device, block, micro-batch). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ts_json.h"
#include "ts_jsonutil.h"
#include "ts_schedule.h"

static ts_placement *mk(const char *name, int D)
{
    ts_builtin_opts o = {D, false, 0};
    ts_placement *p = NULL;
    ts_err e = {0};
    assert_int_equal(ts_builtin_make(name, &o, &p, &e), TS_OK);
    return p;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    assert_true(n >= 0);
    rewind(f);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* ts_schedule_save's file equals ts_json_write_file of ts_schedule_to_json, and loads back to
 * the same schedule (when loads: the loader refuses a schedule without entries). */
static void check_same_file(const ts_schedule *s, bool loads)
{
    char streamed[] = "ts_sched_io_XXXXXX",
         tree[] = "ts_sched_io_XXXXXX"; /* in the test's folder */
    int fa = mkstemp(streamed), fb = mkstemp(tree);
    assert_true(fa >= 0 && fb >= 0);
    close(fa);
    close(fb);
    ts_err e = {0};
    assert_int_equal(ts_schedule_save(s, streamed, &e), TS_OK);
    json_t *j = ts_schedule_to_json(s);
    assert_int_equal(ts_json_write_file(j, tree, &e), TS_OK);
    size_t la, lb;
    char *a = slurp(streamed, &la), *b = slurp(tree, &lb);
    assert_int_equal(la, lb);
    assert_memory_equal(a, b, la);
    if (loads) {
        ts_schedule *t = NULL;
        if (ts_schedule_load(streamed, &t, &e))
            fail_msg("%s", e.msg);
        json_t *k = ts_schedule_to_json(t);
        assert_true(json_equal(j, k));
        json_decref(k);
        ts_schedule_free(t);
    }
    json_decref(j);
    free(a);
    free(b);
    remove(streamed);
    remove(tree);
}

static void test_save_streams_the_same_file(void **state)
{
    (void)state;
    ts_placement *p = mk("vshape", 4);
    ts_schedule *s = ts_schedule_new(p, 3);
    check_same_file(s, false); /* no entries, no memory */
    ts_schedule_set_uniform_memory(s, 4);
    for (int m = 0; m < 3; m++)
        for (int b = 0; b < p->nblocks; b++)
            assert_int_equal(ts_schedule_add(s, b, m, 100L * m + b), 0);
    ts_schedule_set_search_info(s, json_pack("{ss sf}", "method", "lazy", "seconds", 0.25));
    check_same_file(s, true);
    int *mids = calloc((size_t)p->nblocks, sizeof *mids);
    assert_non_null(mids);
    assert_int_equal(ts_schedule_set_repetend(s, 100, 100 + p->nblocks, mids), 0);
    for (int b = 0; b < p->nblocks; b++) /* the window [100, 108) holds micro-batch 1 */
        mids[b] = 1;
    assert_int_equal(ts_schedule_set_repetend(s, 100, 100 + p->nblocks, mids), 0);
    check_same_file(s, true);
    free(mids);
    ts_schedule_free(s);
    ts_placement_free(p);
}

/* Ids that Jansson escapes: quotes, backslashes, control characters, a slash, non-ASCII. */
static void test_save_escapes_ids_as_jansson(void **state)
{
    (void)state;
    static const char *const ids[] = {"q\"uote", "back\\slash", "tab\tnew\nline",
                                      "a/b",     "caf\xc3\xa9", "\x01"};
    int n = (int)(sizeof ids / sizeof *ids);
    ts_placement *p = ts_placement_new("odd ids", 2);
    assert_non_null(p);
    for (int b = 0; b < n; b++)
        assert_true(ts_placement_add_block(p, ids[b], TS_KIND_FORWARD, 1, 0, 1, (int[]){b % 2}) >=
                    0);
    ts_schedule *s = ts_schedule_new(p, 1);
    for (int b = 0; b < n; b++)
        assert_int_equal(ts_schedule_add(s, b, 0, b), 0);
    check_same_file(s, true);
    ts_schedule_free(s);
    ts_placement_free(p);
}

/* The order ts_schedule_sort promises, checked pair by pair. */
static void check_sorted(const ts_schedule *s)
{
    const ts_placement *p = s->placement;
    for (int i = 1; i < s->nentries; i++) {
        const ts_entry *x = &s->entries[i - 1], *y = &s->entries[i];
        long kx[4] = {x->step, p->blocks[x->block].devices[0], x->block, x->micro};
        long ky[4] = {y->step, p->blocks[y->block].devices[0], y->block, y->micro};
        int c = 0;
        for (int k = 0; k < 4 && !c; k++)
            c = (kx[k] > ky[k]) - (kx[k] < ky[k]);
        if (c > 0)
            fail_msg("entries %d and %d are out of order", i - 1, i);
    }
}

/* Many entries per step (the counting pass and its ties) and steps spread far apart (the plain
 * sort): both give the full order and keep every entry. */
static void test_sort_orders_dense_and_sparse_steps(void **state)
{
    (void)state;
    ts_placement *p = mk("mshape", 4);
    for (long spread = 3; spread <= 3000000; spread *= 1000) {
        ts_schedule *s = ts_schedule_new(p, 200);
        unsigned seed = 12345;
        long sum = 0;
        for (int m = 0; m < 200; m++)
            for (int b = 0; b < p->nblocks; b++) {
                seed = seed * 1103515245u + 12345u;
                long step = (long)((seed >> 8) % (unsigned long)spread);
                sum += step + b + m;
                assert_int_equal(ts_schedule_add(s, b, m, step), 0);
            }
        ts_schedule_sort(s);
        check_sorted(s);
        for (int i = 0; i < s->nentries; i++)
            sum -= s->entries[i].step + s->entries[i].block + s->entries[i].micro;
        assert_int_equal(sum, 0);
        ts_schedule_free(s);
    }
    ts_placement_free(p);
}

/* Each device's order lists its entries once, by (step, block, micro-batch), whether the
 * entries come sorted, shuffled with steps close together (the counting pass) or far apart. */
static void test_device_orders_dense_and_sparse_steps(void **state)
{
    (void)state;
    ts_placement *p = mk("mshape", 4); /* blocks on one and on every device */
    for (long spread = 3; spread <= 3000000; spread *= 1000)
        for (int sorted = 0; sorted < 2; sorted++) {
            ts_schedule *s = ts_schedule_new(p, 100);
            unsigned seed = 777;
            for (int m = 0; m < 100; m++)
                for (int b = 0; b < p->nblocks; b++) {
                    seed = seed * 1103515245u + 12345u;
                    assert_int_equal(
                        ts_schedule_add(s, b, m, (long)((seed >> 8) % (unsigned long)spread)), 0);
                }
            if (sorted)
                ts_schedule_sort(s);
            int *off, *order;
            assert_int_equal(ts_schedule_device_orders(s, &off, &order), 0);
            for (int d = 0; d < p->ndevs; d++) {
                int count = 0;
                for (int i = 0; i < s->nentries; i++)
                    count += ts_block_on(&p->blocks[s->entries[i].block], d);
                assert_int_equal(off[d + 1] - off[d], count);
                for (int k = off[d] + 1; k < off[d + 1]; k++) {
                    const ts_entry *x = &s->entries[order[k - 1]], *y = &s->entries[order[k]];
                    assert_true(ts_block_on(&p->blocks[y->block], d));
                    long kx[3] = {x->step, x->block, x->micro};
                    long ky[3] = {y->step, y->block, y->micro};
                    int c = 0;
                    for (int j = 0; j < 3 && !c; j++)
                        c = (kx[j] > ky[j]) - (kx[j] < ky[j]);
                    assert_true(c < 0); /* strictly: (block, micro) is unique */
                }
            }
            free(off);
            free(order);
            ts_schedule_free(s);
        }
    ts_placement_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_save_streams_the_same_file),
        cmocka_unit_test(test_save_escapes_ids_as_jansson),
        cmocka_unit_test(test_sort_orders_dense_and_sparse_steps),
        cmocka_unit_test(test_device_orders_dense_and_sparse_steps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
