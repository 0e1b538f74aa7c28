/* Unit tests of the runtime's pure parts: instruction streams (every message sent is received
 * exactly once, with a tag unique to its edge and micro-batch, and streams keep the schedule's
 * order), the forward/backward pairing of the train workload, and option parsing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "rt_mirror.h"
#include "rt_options.h"
#include "rt_plan.h"
#include "rt_testutil.h"

typedef struct {
    int from, to, tag;
} msg;

static int cmp_msg(const void *a, const void *b)
{
    const msg *x = a, *y = b;
    if (x->from != y->from)
        return x->from - y->from;
    if (x->to != y->to)
        return x->to - y->to;
    return x->tag - y->tag;
}

/* Sends and remote receives must pair one to one; every local input must come from an instance
 * earlier in the same stream. */
static void check_plan(const char *fixture, int expect_groups)
{
    ts_schedule *s = rt_test_load(fixture);
    ts_rt_plan *p = NULL;
    ts_err e = {0};
    assert_int_equal(ts_rt_plan_build(s, &p, &e), TS_OK);
    assert_int_equal(p->ngroups, expect_groups);
    const ts_placement *pl = s->placement;
    int cap = 64 * s->nentries + 64, ns = 0, nr = 0, total_ops = 0;
    msg *sent = calloc((size_t)cap, sizeof(msg)), *recv = calloc((size_t)cap, sizeof(msg));
    for (int r = 0; r < p->ndevs; r++) {
        const ts_rt_stream *st = &p->streams[r];
        int *seen = calloc((size_t)s->nentries, sizeof(int));
        for (int i = 0; i < st->nops; i++) {
            const ts_rt_op *op = &st->ops[i];
            const ts_entry *en = &s->entries[op->entry];
            assert_true(ts_block_on(&pl->blocks[op->block], r));
            if (i > 0)
                assert_true(s->entries[st->ops[i - 1].entry].step <= en->step);
            for (int k = 0; k < op->ninputs; k++) {
                const ts_rt_input *in = &op->inputs[k];
                if (in->local) {
                    assert_true(seen[in->src_entry]);
                } else {
                    assert_int_not_equal(in->from, r);
                    recv[nr++] = (msg){in->from, r, in->tag};
                }
                assert_int_equal(in->tag, ts_rt_plan_tag(p, in->edge, op->micro));
            }
            for (int k = 0; k < op->noutputs; k++)
                sent[ns++] = (msg){r, op->outputs[k].to, op->outputs[k].tag};
            seen[op->entry] = 1;
        }
        total_ops += st->nops;
        free(seen);
    }
    int expect_ops = 0;
    for (int i = 0; i < s->nentries; i++)
        expect_ops += pl->blocks[s->entries[i].block].ndevices;
    assert_int_equal(total_ops, expect_ops);
    assert_int_equal(ns, nr);
    qsort(sent, (size_t)ns, sizeof(msg), cmp_msg);
    qsort(recv, (size_t)nr, sizeof(msg), cmp_msg);
    for (int i = 0; i < ns; i++) {
        assert_memory_equal(&sent[i], &recv[i], sizeof(msg));
        if (i)
            /* unambiguous tags */
            assert_true(cmp_msg(&sent[i - 1], &sent[i]) != 0);
    }
    free(sent);
    free(recv);
    ts_rt_plan_free(p);
    ts_schedule_free(s);
}

static void test_plan_vshape(void **state)
{
    (void)state;
    check_plan("runtime_vshape_1f1b.json", 0);
}
static void test_plan_kshape(void **state)
{
    (void)state;
    check_plan("runtime_kshape.json", 1);
}
static void test_plan_xshape(void **state)
{
    (void)state;
    check_plan("runtime_xshape.json", 0);
}
static void test_plan_nnshape(void **state)
{
    (void)state;
    check_plan("runtime_nnshape.json", 1);
}

/* 1F1B vshape on 4 devices: F0 sends to rank 1 only; B0 (last) sends nothing. */
static void test_plan_vshape_messages(void **state)
{
    (void)state;
    ts_schedule *s = rt_test_load("runtime_vshape_1f1b.json");
    ts_rt_plan *p = NULL;
    ts_err e = {0};
    assert_int_equal(ts_rt_plan_build(s, &p, &e), TS_OK);
    const ts_rt_op *first = &p->streams[0].ops[0];
    assert_string_equal(s->placement->blocks[first->block].id, "F0");
    assert_int_equal(first->ninputs, 0);
    assert_int_equal(first->noutputs, 1);
    assert_int_equal(first->outputs[0].to, 1);
    const ts_rt_op *last = &p->streams[0].ops[p->streams[0].nops - 1];
    assert_string_equal(s->placement->blocks[last->block].id, "B0");
    assert_int_equal(last->noutputs, 0);
    assert_int_equal(last->ninputs, 1);
    assert_int_equal(last->inputs[0].from, 1);
    ts_rt_plan_free(p);
    ts_schedule_free(s);
}

static void test_mirror_kshape(void **state)
{
    (void)state;
    ts_schedule *s = rt_test_load("runtime_kshape.json");
    const ts_placement *pl = s->placement;
    ts_rt_mirror m;
    ts_err e = {0};
    assert_int_equal(ts_rt_mirror_build(pl, &m, &e), TS_OK);
    int M = ts_placement_find(pl, "M"), Mb = ts_placement_find(pl, "M'");
    assert_true(M >= 0 && Mb >= 0);
    assert_int_equal(m.partner[M], Mb);
    assert_int_equal(m.partner[Mb], M);
    assert_true(m.sink[M]);
    assert_false(m.source[M]);
    for (int b = 0; b < pl->nblocks; b++) {
        int q = m.partner[b];
        assert_true(q >= 0);
        assert_int_equal(m.partner[q], b);
        assert_int_equal(pl->blocks[b].ndevices, pl->blocks[q].ndevices);
        assert_int_not_equal(pl->blocks[b].kind, pl->blocks[q].kind);
    }
    ts_rt_mirror_free(&m);
    ts_schedule_free(s);
}

static void test_mirror_finetune_frozen(void **state)
{
    (void)state;
    ts_schedule *s = rt_test_load("runtime_finetune.json");
    ts_rt_mirror m;
    ts_err e = {0};
    assert_int_equal(ts_rt_mirror_build(s->placement, &m, &e), TS_OK);
    int S = ts_placement_find(s->placement, "S");
    assert_true(S >= 0);
    /* the frozen embedding has no backward block */
    assert_int_equal(m.partner[S], -1);
    assert_true(m.source[S]);
    ts_rt_mirror_free(&m);
    ts_schedule_free(s);
}

static void test_mirror_refusals(void **state)
{
    (void)state;
    ts_schedule *s = rt_test_load("runtime_vshape_zb.json");
    ts_rt_mirror m;
    ts_err e = {0};
    assert_int_equal(ts_rt_mirror_build(s->placement, &m, &e), TS_EINPUT);
    assert_non_null(strstr(e.msg, "not mirror-shaped"));
    ts_schedule_free(s);
    /* a backward block on other devices than its forward block */
    ts_placement *p = ts_placement_new("skew", 2);
    int d0 = 0, d1 = 1;
    int f = ts_placement_add_block(p, "F", TS_KIND_FORWARD, 1, 1, 1, &d0);
    int b = ts_placement_add_block(p, "B", TS_KIND_BACKWARD, 1, -1, 1, &d1);
    ts_placement_add_edge(p, f, b, 0, 0);
    ts_err e2 = {0};
    assert_int_equal(ts_rt_mirror_build(p, &m, &e2), TS_EINPUT);
    assert_non_null(strstr(e2.msg, "backward block B"));
    ts_placement_free(p);
}

static void test_options(void **state)
{
    (void)state;
    ts_rt_options o;
    ts_err e = {0};
    char *ok[] = {"tessel-run", "--schedule",      "s.json", "--workload=train",
                  "--check",    "--micro-batches", "16",     "--unit-us",
                  "2000",       "--json",          NULL};
    assert_int_equal(ts_rt_options_parse(10, ok, &o, &e), TS_OK);
    assert_string_equal(o.schedule, "s.json");
    assert_int_equal(o.workload, TS_RT_WORK_TRAIN);
    assert_true(o.check && o.json);
    assert_int_equal(o.micro_batches, 16);
    assert_true(o.unit_us == 2000.0);
    assert_int_equal(o.size, 64);
    char *bad1[] = {"tessel-run", "--schedule", "s.json", "--iterations", "0", NULL};
    ts_err e1 = {0};
    assert_int_equal(ts_rt_options_parse(5, bad1, &o, &e1), TS_EINPUT);
    assert_non_null(strstr(e1.msg, "--iterations"));
    char *bad2[] = {"tessel-run", "--size", NULL};
    ts_err e2 = {0};
    assert_int_equal(ts_rt_options_parse(2, bad2, &o, &e2), TS_EINPUT);
    assert_non_null(strstr(e2.msg, "needs a value"));
    char *bad3[] = {"tessel-run", "--workload", "train", NULL};
    ts_err e3 = {0};
    assert_int_equal(ts_rt_options_parse(3, bad3, &o, &e3), TS_EINPUT);
    assert_non_null(strstr(e3.msg, "--schedule"));
    char *help[] = {"tessel-run", "--help", NULL};
    assert_int_equal(ts_rt_options_parse(2, help, &o, &e), TS_OK);
    assert_true(o.help);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan_vshape),
        cmocka_unit_test(test_plan_kshape),
        cmocka_unit_test(test_plan_xshape),
        cmocka_unit_test(test_plan_nnshape),
        cmocka_unit_test(test_plan_vshape_messages),
        cmocka_unit_test(test_mirror_kshape),
        cmocka_unit_test(test_mirror_finetune_frozen),
        cmocka_unit_test(test_mirror_refusals),
        cmocka_unit_test(test_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
