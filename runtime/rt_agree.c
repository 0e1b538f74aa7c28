/* The agreement record of rt_agree.h: this rank's options and a digest of its schedule, and the
 * comparison with rank 0's that names what differs. */
#include "rt_agree.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ts_json.h"

#define TS_RT_FNV_OFFSET 0xcbf29ce484222325ull
#define TS_RT_FNV_PRIME 0x100000001b3ull

static void ts_rt_hash_bytes(uint64_t *h, const void *data, size_t n)
{
    const unsigned char *b = data;
    for (size_t i = 0; i < n; i++) {
        *h ^= b[i];
        *h *= TS_RT_FNV_PRIME;
    }
}

/* Byte by byte from the least significant, so that the digest does not depend on the host's
 * byte order. */
static void ts_rt_hash_int(uint64_t *h, long long v)
{
    uint64_t u = (uint64_t)v;
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(u >> (8 * i));
    ts_rt_hash_bytes(h, b, sizeof b);
}

int ts_rt_schedule_digest(const ts_schedule *s, uint64_t *out, ts_err *e)
{
    uint64_t h = TS_RT_FNV_OFFSET;
    /* The placement as its canonical JSON (sorted keys, no spaces): ids, kinds, spans, memory,
     * devices and edges, whatever the file's layout was. */
    json_t *pj = ts_placement_to_json(s->placement);
    char *text = pj ? json_dumps(pj, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(pj);
    if (!text)
        return ts_fail(e, TS_ESYS, "out of memory hashing the schedule");
    ts_rt_hash_bytes(&h, text, strlen(text) + 1);
    free(text);
    ts_rt_hash_int(&h, s->nmicros);
    ts_rt_hash_int(&h, s->has_memory);
    for (int d = 0; s->has_memory && d < s->placement->ndevs; d++)
        ts_rt_hash_int(&h, s->memory[d]);
    ts_rt_hash_int(&h, s->nentries);
    for (int i = 0; i < s->nentries; i++) {
        ts_rt_hash_int(&h, s->entries[i].block);
        ts_rt_hash_int(&h, s->entries[i].micro);
        ts_rt_hash_int(&h, s->entries[i].step);
    }
    /* 0 is kept for "no schedule" (--help) */
    *out = h ? h : 1;
    return TS_OK;
}

int ts_rt_agreement_make(const ts_rt_options *o, const ts_schedule *s, ts_rt_agreement *a,
                         ts_err *e)
{
    /* zeroed whole, padding included: the record travels as bytes */
    memset(a, 0, sizeof *a);
    a->help = o->help;
    a->workload = (int)o->workload;
    a->size = o->size;
    a->micro_batches = o->micro_batches;
    a->iterations = o->iterations;
    a->check = o->check;
    a->backend = (int)o->backend;
    a->inject = o->inject;
    a->unit_us = o->unit_us;
    if (o->schedule)
        snprintf(a->schedule, sizeof a->schedule, "%s", o->schedule);
    if (o->help || !s)
        return TS_OK;
    return ts_rt_schedule_digest(s, &a->schedule_digest, e);
}

/* One compared option: its flag, and how a value reads in the message. */
typedef struct {
    const char *flag;
    size_t offset;
    /* a flag without a value: "--check" or "no --check" */
    int boolean;
    /* values 0 .. nnames - 1 by name (NULL: a number) */
    const char *const *names;
    int nnames;
    /* the value meaning "not given" (-1: none) */
    int unset;
} ts_rt_agreed_option;

static const char *const ts_rt_workload_names[] = {"dataflow", "train", "timing"};
static const char *const ts_rt_backend_names[] = {"cpu", "cuda"};
static const char *const ts_rt_inject_names[] = {"none", "wrong-input", "stall"};

static const ts_rt_agreed_option ts_rt_agreed[] = {
    {"--help", offsetof(ts_rt_agreement, help), 1, NULL, 0, -1},
    {"--workload", offsetof(ts_rt_agreement, workload), 0, ts_rt_workload_names, 3, -1},
    {"--size", offsetof(ts_rt_agreement, size), 0, NULL, 0, -1},
    {"--micro-batches", offsetof(ts_rt_agreement, micro_batches), 0, NULL, 0, 0},
    {"--iterations", offsetof(ts_rt_agreement, iterations), 0, NULL, 0, -1},
    {"--check", offsetof(ts_rt_agreement, check), 1, NULL, 0, -1},
    {"--backend", offsetof(ts_rt_agreement, backend), 0, ts_rt_backend_names, 2, -1},
    {"--inject", offsetof(ts_rt_agreement, inject), 0, ts_rt_inject_names, 3, 0},
};

static void ts_rt_option_text(const ts_rt_agreed_option *opt, int v, char *buf, size_t cap)
{
    if (opt->boolean)
        snprintf(buf, cap, "%s%s", v ? "" : "no ", opt->flag);
    else if (v == opt->unset)
        snprintf(buf, cap, "no %s", opt->flag);
    else if (opt->names && v >= 0 && v < opt->nnames)
        snprintf(buf, cap, "%s %s", opt->flag, opt->names[v]);
    else
        snprintf(buf, cap, "%s %d", opt->flag, v);
}

int ts_rt_agreement_compare(const ts_rt_agreement *mine, int rank, const ts_rt_agreement *root,
                            ts_err *e)
{
    static const char why[] = "every rank must be started with the same options and schedule";
    for (size_t k = 0; k < sizeof ts_rt_agreed / sizeof *ts_rt_agreed; k++) {
        const ts_rt_agreed_option *opt = &ts_rt_agreed[k];
        int a, b;
        memcpy(&a, (const char *)mine + opt->offset, sizeof a);
        memcpy(&b, (const char *)root + opt->offset, sizeof b);
        if (a == b)
            continue;
        char ta[96], tb[96];
        ts_rt_option_text(opt, a, ta, sizeof ta);
        ts_rt_option_text(opt, b, tb, sizeof tb);
        return ts_fail(e, TS_EINPUT, "rank %d was started with %s but rank 0 with %s; %s", rank, ta,
                       tb, why);
    }
    /* with --help everywhere nothing else is used */
    if (mine->help)
        return TS_OK;
    if (mine->unit_us != root->unit_us)
        return ts_fail(e, TS_EINPUT, "rank %d was started with --unit-us %g but rank 0 with %g; %s",
                       rank, mine->unit_us, root->unit_us, why);
    if (mine->schedule_digest != root->schedule_digest && !strcmp(mine->schedule, root->schedule))
        return ts_fail(e, TS_EINPUT,
                       "the schedule files differ: rank %d read another schedule from %s than "
                       "rank 0; %s",
                       rank, mine->schedule, why);
    if (mine->schedule_digest != root->schedule_digest)
        return ts_fail(e, TS_EINPUT,
                       "the schedule files differ: rank %d replays %s but rank 0 replays %s; %s",
                       rank, mine->schedule, root->schedule, why);
    return TS_OK;
}
