/* Reads PyTorch's compute-only pipelining CSV (ts_pytorch.h) into a schedule of a placement. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ts_pytorch.h"

/* One parsed action, and the growing list of them. */
typedef struct {
    int rank, pos, block, micro;
} ts_pt_action;

typedef struct {
    ts_pt_action *v;
    int len, cap, nrows, max_micro;
} ts_pt_actions;

static int ts_pt_push(ts_pt_actions *a, ts_pt_action x)
{
    if (a->len == a->cap) {
        int cap = a->cap ? 2 * a->cap : 256;
        ts_pt_action *v = realloc(a->v, (size_t)cap * sizeof *v);
        if (!v)
            return -1;
        a->v = v;
        a->cap = cap;
    }
    a->v[a->len++] = x;
    if (x.micro > a->max_micro)
        a->max_micro = x.micro;
    return 0;
}

/* Parses one cell "[stage][F|I|W|B][micro]" (surrounding blanks and quotes ignored). 1: an
 * action, 0: an empty cell, -1: anything else. */
static int ts_pt_cell(char *c, int *stage, char *kind, int *micro)
{
    while (*c == ' ' || *c == '\t' || *c == '"')
        c++;
    size_t len = strlen(c);
    while (len > 0 &&
           (c[len - 1] == ' ' || c[len - 1] == '\t' || c[len - 1] == '"' || c[len - 1] == '\r'))
        c[--len] = '\0';
    if (len == 0)
        return 0;
    char *end;
    if (!isdigit((unsigned char)c[0]))
        return -1;
    long s = strtol(c, &end, 10);
    if (!strchr("FIWB", *end) || *end == '\0' || !isdigit((unsigned char)end[1]))
        return -1;
    *kind = *end;
    char *end2;
    long m = strtol(end + 1, &end2, 10);
    if (*end2 != '\0' || s > 1000000 || m > 1000000)
        return -1;
    *stage = (int)s;
    *micro = (int)m;
    return 1;
}

/* The block of (stage, kind), or -1. */
static int ts_pt_block(const ts_pytorch_map *m, int nblocks, int stage, char kind)
{
    for (int b = 0; b < nblocks; b++)
        if (m->stage[b] == stage && m->kind[b] == kind)
            return b;
    return -1;
}

/* Parses one row (rank r) of the file into a. */
static int ts_pt_row(const char *path, int line, char *row, int r, const ts_placement *p,
                     const ts_pytorch_map *m, ts_pt_actions *a, ts_err *e)
{
    int pos = 0;
    for (char *save = NULL, *c = strtok_r(row, ",", &save); c; c = strtok_r(NULL, ",", &save)) {
        int stage, micro;
        char kind;
        int k = ts_pt_cell(c, &stage, &kind, &micro);
        if (k == 0)
            continue;
        if (k < 0)
            return ts_fail(e, TS_EINPUT,
                           "%s:%d: '%s' is not a compute action "
                           "[stage][F|I|W|B][micro-batch]",
                           path, line, c);
        int b = ts_pt_block(m, p->nblocks, stage, kind), w = -1;
        /* A full backward B of a stage whose backward the placement splits runs both halves,
         * as PyTorch runs it (DualPipeV mixes B with I and W): its I then its W. */
        if (b < 0 && kind == 'B' && (b = ts_pt_block(m, p->nblocks, stage, 'I')) >= 0)
            w = ts_pt_block(m, p->nblocks, stage, 'W');
        if (b < 0)
            return ts_fail(e, TS_EINPUT, "%s:%d: placement '%s' has no stage %d with a %c pass",
                           path, line, p->name, stage, kind);
        if (p->blocks[b].devices[0] != r)
            return ts_fail(e, TS_EINPUT,
                           "%s:%d: rank %d runs %s, but the placement puts stage %d "
                           "(block %s) on device %d",
                           path, line, r, c, stage, p->blocks[b].id, p->blocks[b].devices[0]);
        if (ts_pt_push(a, (ts_pt_action){r, pos++, b, micro}) != 0 ||
            (w >= 0 && ts_pt_push(a, (ts_pt_action){r, pos++, w, micro}) != 0))
            return ts_fail(e, TS_ESYS, "%s: out of memory", path);
    }
    return TS_OK;
}

/* Reads every row; the row count must be the placement's device count. */
static int ts_pt_read(const char *path, const ts_placement *p, const ts_pytorch_map *m,
                      ts_pt_actions *a, ts_err *e)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return ts_fail(e, TS_EINPUT, "%s: cannot open: %s", path, strerror(errno));
    char *buf = NULL;
    size_t cap = 0;
    int rc = TS_OK, line = 0;
    a->max_micro = -1;
    while (rc == TS_OK && getline(&buf, &cap, f) >= 0) {
        line++;
        buf[strcspn(buf, "\r\n")] = '\0';
        if (a->nrows >= p->ndevs) {
            if (buf[strspn(buf, " \t,")] != '\0')
                rc = ts_fail(e, TS_EINPUT,
                             "%s:%d: more rows than the %d devices of placement "
                             "'%s'",
                             path, line, p->ndevs, p->name);
            continue;
        }
        rc = ts_pt_row(path, line, buf, a->nrows, p, m, a, e);
        a->nrows++;
    }
    free(buf);
    fclose(f);
    if (rc == TS_OK && a->len == 0)
        rc = ts_fail(e, TS_EINPUT, "%s: no actions", path);
    return rc;
}

/* Every instance exactly once. */
static int ts_pt_complete(const char *path, const ts_placement *p, const ts_pytorch_map *m,
                          const ts_pt_actions *a, int n, ts_err *e)
{
    char *seen = calloc((size_t)p->nblocks * (size_t)n + 1, 1);
    if (!seen)
        return ts_fail(e, TS_ESYS, "%s: out of memory", path);
    int rc = TS_OK;
    for (int i = 0; i < a->len && rc == TS_OK; i++) {
        const ts_pt_action *x = &a->v[i];
        if (seen[(long)x->block * n + x->micro]++)
            rc = ts_fail(e, TS_EINPUT, "%s: %d%c%d appears twice", path, m->stage[x->block],
                         m->kind[x->block], x->micro);
    }
    for (long i = 0; i < (long)p->nblocks * n && rc == TS_OK; i++)
        if (!seen[i])
            rc = ts_fail(e, TS_EINPUT, "%s: %d%c%d (block %s, micro-batch %ld) is missing", path,
                         m->stage[i / n], m->kind[i / n], (int)(i % n), p->blocks[i / n].id, i % n);
    free(seen);
    return rc;
}

int ts_pytorch_load(const char *path, const ts_placement *p, ts_schedule **out, ts_err *e)
{
    *out = NULL;
    ts_pytorch_map m;
    int rc = ts_pytorch_map_make(p, &m, e);
    if (rc != TS_OK)
        return rc;
    ts_pt_actions a = {0};
    rc = ts_pt_read(path, p, &m, &a, e);
    int n = a.max_micro + 1;
    if (rc == TS_OK)
        rc = ts_pt_complete(path, p, &m, &a, n, e);
    ts_schedule *s = rc == TS_OK ? ts_schedule_new(p, n) : NULL;
    if (rc == TS_OK && !s)
        rc = ts_fail(e, TS_ESYS, "%s: out of memory", path);
    /* Positions stand in for steps: each device's order is the file's, and tightening gives
     * every action the earliest start that order and the dependencies allow. */
    for (int i = 0; i < a.len && rc == TS_OK; i++)
        if (ts_schedule_add(s, a.v[i].block, a.v[i].micro, a.v[i].pos) != 0)
            rc = ts_fail(e, TS_ESYS, "%s: out of memory", path);
    ts_err why = {0};
    if (rc == TS_OK && ts_schedule_tighten(s, &why) != TS_OK)
        rc = ts_fail(e, TS_EINPUT, "%s: the ranks' orders cannot run: %s", path, why.msg);
    ts_validate_opts vo = {.monotone = false, .ignore_memory = true};
    if (rc == TS_OK && ts_schedule_validate(s, &vo, &why) != TS_OK)
        rc = ts_fail(e, TS_EINPUT, "%s: invalid schedule: %s", path, why.msg);
    free(a.v);
    ts_pytorch_map_free(&m);
    if (rc != TS_OK)
        ts_schedule_free(s);
    else
        *out = s;
    return rc;
}
