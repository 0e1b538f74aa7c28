/* Text timeline: one row per device, one cell per step; an instance's first cell carries its
 * block's letter and micro-batch (its id, ':' and the micro-batch where two blocks of one device
 * share a letter), the rest of its span is drawn with '-', idle steps with '.'.
 * Long schedules wrap into segments so that rows stay readable in a terminal.
 *
 * Bounded in time and memory whatever the steps: stretches where every device idles for more than
 * TS_SHOW_GAP steps are drawn as one '~' column (one late entry no longer means billions of
 * cells), and a timeline that would still need more than TS_SHOW_MAX_CELLS cells is refused. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ts_schedule.h"

/* A run of drawn steps [from, to), starting at column col; runs are separated by one gap column. */
typedef struct {
    long from, to, col;
} ts_show_run;

typedef struct {
    const ts_schedule *s;
    int cw; /* cell width: letter (or id and ':') + micro-batch digits */
    int digits;
    /* 0: blocks are labelled by a letter; else the width of their ids, which label them because
     * two blocks on one device share a letter */
    int idw;
    ts_show_run *runs; /* ascending */
    int nruns;
    long ncols;
    long skipped; /* idle steps left out */
} ts_show_layout;

/* The letter of a block: its id's first letter (F0 -> F, S -> S, W2 -> W), lower case for a primed
 * id (S' -> s), so that blocks of one kind stay apart; the kind's letter for other ids. */
static char ts_block_letter(const ts_block *b)
{
    unsigned char c = (unsigned char)b->id[0];
    if (!isalpha(c))
        return b->kind == TS_KIND_FORWARD ? 'F' : b->kind == TS_KIND_BACKWARD ? 'B' : 'O';
    size_t n = strlen(b->id);
    return b->id[n - 1] == '\'' ? (char)tolower(c) : (char)toupper(c);
}

/* Most characters of a block id in a label: longer ids are cut (the legend-free timeline stays
 * readable; the ids of the built-ins are 2 to 5 characters) */
#define TS_SHOW_MAX_ID 8

/* 0 when no device runs two blocks with the same letter; else the longest id (at most
 * TS_SHOW_MAX_ID), so that every label tells its block apart on its device. -1: out of memory. */
static int ts_show_id_width(const ts_placement *p)
{
    int *seen = malloc((size_t)p->ndevs * 128 * sizeof *seen);
    if (!seen)
        return -1;
    for (size_t i = 0; i < (size_t)p->ndevs * 128; i++)
        seen[i] = -1;
    bool clash = false;
    int w = 0;
    for (int b = 0; b < p->nblocks; b++) {
        int len = (int)strlen(p->blocks[b].id);
        w = len > w ? len : w;
        unsigned char c = (unsigned char)ts_block_letter(&p->blocks[b]) & 127;
        for (int k = 0; k < p->blocks[b].ndevices && !clash; k++) {
            int *slot = &seen[(size_t)p->blocks[b].devices[k] * 128 + c];
            clash = *slot >= 0 && *slot != b;
            *slot = b;
        }
    }
    free(seen);
    return clash ? (w < TS_SHOW_MAX_ID ? w : TS_SHOW_MAX_ID) : 0;
}

static int ts_cmp_interval(const void *a, const void *b)
{
    const long *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Merges the busy intervals of all instances into runs, bridging idle stretches of TS_SHOW_GAP
 * steps or less. */
static int ts_show_runs(ts_show_layout *L)
{
    const ts_schedule *s = L->s;
    long *iv = malloc((size_t)(s->nentries ? s->nentries : 1) * 2 * sizeof(long));
    L->runs = malloc((size_t)(s->nentries ? s->nentries : 1) * sizeof(ts_show_run));
    if (!iv || !L->runs) {
        free(iv);
        return -1;
    }
    for (int i = 0; i < s->nentries; i++) {
        iv[2 * i] = s->entries[i].step;
        iv[2 * i + 1] = s->entries[i].step + s->placement->blocks[s->entries[i].block].span;
    }
    qsort(iv, (size_t)s->nentries, 2 * sizeof(long), ts_cmp_interval);
    for (int i = 0; i < s->nentries; i++) {
        ts_show_run *r = L->nruns ? &L->runs[L->nruns - 1] : NULL;
        if (r && iv[2 * i] - r->to <= TS_SHOW_GAP) {
            if (iv[2 * i + 1] > r->to)
                r->to = iv[2 * i + 1];
            continue;
        }
        if (r)
            L->skipped += iv[2 * i] - r->to;
        long col = r ? r->col + (r->to - r->from) + 1 : 0;
        L->runs[L->nruns++] = (ts_show_run){iv[2 * i], iv[2 * i + 1], col};
    }
    free(iv);
    const ts_show_run *last = L->nruns ? &L->runs[L->nruns - 1] : NULL;
    L->ncols = last ? last->col + (last->to - last->from) : 0;
    return 0;
}

/* The run that holds column c (or whose gap column c is). */
static const ts_show_run *ts_run_of_col(const ts_show_layout *L, long c)
{
    int lo = 0, hi = L->nruns - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (L->runs[mid].col <= c)
            lo = mid;
        else
            hi = mid - 1;
    }
    return &L->runs[lo];
}

/* The step drawn in column c, or -1 for a gap column. */
static long ts_step_of_col(const ts_show_layout *L, long c)
{
    const ts_show_run *r = ts_run_of_col(L, c);
    return c - r->col < r->to - r->from ? r->from + (c - r->col) : -1;
}

static long ts_col_of_step(const ts_show_layout *L, long t)
{
    int lo = 0, hi = L->nruns - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (L->runs[mid].from <= t)
            lo = mid;
        else
            hi = mid - 1;
    }
    return L->runs[lo].col + (t - L->runs[lo].from);
}

static void ts_show_fill(const ts_show_layout *L, char *grid)
{
    const ts_schedule *s = L->s;
    const ts_placement *p = s->placement;
    size_t rowlen = (size_t)L->ncols * (size_t)L->cw;
    memset(grid, '.', (size_t)p->ndevs * rowlen);
    for (int r = 1; r < L->nruns; r++)
        for (int d = 0; d < p->ndevs; d++)
            memset(grid + d * rowlen + (size_t)(L->runs[r].col - 1) * L->cw, '~', (size_t)L->cw);
    for (int i = 0; i < s->nentries; i++) {
        const ts_entry *x = &s->entries[i];
        const ts_block *b = &p->blocks[x->block];
        char label[48];
        if (L->idw)
            snprintf(label, sizeof label, "%-*.*s:%0*d", L->idw, L->idw, b->id, L->digits,
                     x->micro);
        else
            snprintf(label, sizeof label, "%c%0*d", ts_block_letter(b), L->digits, x->micro);
        long c0 = ts_col_of_step(L, x->step) * L->cw; /* an instance never spans a gap */
        for (int k = 0; k < b->ndevices; k++) {
            char *row = grid + (size_t)b->devices[k] * rowlen;
            memcpy(row + c0, label, (size_t)L->cw);
            memset(row + c0 + L->cw, '-', (size_t)(b->span - 1) * (size_t)L->cw);
        }
    }
}

/* The step axis and the repetend row of columns [c0, c1). */
static void ts_show_axis(const ts_show_layout *L, long c0, long c1, FILE *out)
{
    const ts_schedule *s = L->s;
    size_t alen = (size_t)((c1 - c0) * L->cw);
    char *axis = malloc(alen + 32);
    if (axis) {
        memset(axis, ' ', alen + 32);
        for (long c = c0; c < c1; c++) {
            long t = ts_step_of_col(L, c);
            if (t >= 0 && (t % 10 == 0 || (c > 0 && ts_step_of_col(L, c - 1) < 0))) {
                char num[32];
                int n = snprintf(num, sizeof num, "%ld", t);
                memcpy(axis + (c - c0) * L->cw, num, (size_t)n);
            }
        }
        fprintf(out, "%-7s %.*s\n", "step", (int)alen, axis);
        free(axis);
    }
    if (!s->has_repetend)
        return;
    int any = 0;
    for (long c = c0; c < c1 && !any; c++) {
        long t = ts_step_of_col(L, c);
        any = t >= s->rep.start && t < s->rep.end;
    }
    if (!any)
        return;
    fprintf(out, "%-7s ", "repeat");
    for (long c = c0; c < c1; c++) {
        long t = ts_step_of_col(L, c);
        for (int k = 0; k < L->cw; k++)
            fputc(t >= s->rep.start && t < s->rep.end ? '=' : ' ', out);
    }
    fputc('\n', out);
}

int ts_show_text(const ts_schedule *s, FILE *out, int width, ts_err *e)
{
    const ts_placement *p = s->placement;
    ts_show_layout L = {.s = s, .digits = 1};
    for (int m = s->nmicros - 1; m >= 10; m /= 10)
        L.digits++;
    L.idw = ts_show_id_width(p);
    L.cw = L.digits + (L.idw > 0 ? L.idw + 1 : 1);
    if (L.idw < 0 || ts_show_runs(&L)) {
        free(L.runs);
        return ts_fail(e, TS_ESYS, "out of memory");
    }
    if ((double)p->ndevs * (double)L.ncols * L.cw > (double)TS_SHOW_MAX_CELLS) {
        free(L.runs);
        return ts_fail(e, TS_EINPUT,
                       "timeline too large to draw: %d devices x %ld busy steps (at most %ld "
                       "cells; show fewer micro-batches with -n)",
                       p->ndevs, L.ncols, (long)TS_SHOW_MAX_CELLS);
    }
    char *grid = malloc((size_t)p->ndevs * (size_t)L.ncols * (size_t)L.cw + 1);
    if (!grid) {
        free(L.runs);
        return ts_fail(e, TS_ESYS, "out of memory");
    }
    ts_show_fill(&L, grid);
    long per = ((width < 20 ? 20 : width) - 8) / L.cw; /* columns per segment */
    if (per < 1)
        per = 1;
    size_t rowlen = (size_t)L.ncols * (size_t)L.cw;
    for (long c0 = 0; c0 < L.ncols; c0 += per) {
        long c1 = c0 + per < L.ncols ? c0 + per : L.ncols;
        ts_show_axis(&L, c0, c1, out);
        for (int d = 0; d < p->ndevs; d++) {
            fprintf(out, "dev %-3d ", d);
            fwrite(grid + d * rowlen + (size_t)c0 * L.cw, 1, (size_t)((c1 - c0) * L.cw), out);
            fputc('\n', out);
        }
        if (c1 < L.ncols)
            fputc('\n', out);
    }
    if (L.nruns > 1)
        fprintf(out, "(~ : %d idle stretch%s of more than %d steps left out, %ld steps in all)\n",
                L.nruns - 1, L.nruns > 2 ? "es" : "", TS_SHOW_GAP, L.skipped);
    free(grid);
    free(L.runs);
    return TS_OK;
}
