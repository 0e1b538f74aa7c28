/* The compare operation's run: the schedule files read first (a bad one stops the table before
 * any search), then every row by name (the default list leaves out the baselines that do not
 * fit), then the files' rows; one lower bound at N within the capacities, the best marked. */
#include <stdlib.h>
#include <string.h>
#include "ts_baseline.h"
#include "ts_op_compare.h"

/* The measuring options of every row. */
static ts_compare_opts ts_op_compare_opts_of(const ts_op_compare_req *r)
{
    long largest = 0;
    for (int d = 0; r->cap && d < r->p->ndevs; d++)
        largest = r->cap[d] > largest ? r->cap[d] : largest;
    return (ts_compare_opts){.p = r->p,
                             .n = r->n,
                             .has_memory = r->cap != NULL,
                             .memory = largest,
                             .cap = r->cap,
                             .ncap = r->cap ? r->p->ndevs : 0,
                             .time_limit = r->time_limit,
                             .effort = r->effort,
                             .gap = r->gap,
                             .seed = r->seed,
                             .keep = r->keep,
                             .default_rows = !r->listed,
                             .progress = r->progress,
                             .progress_ud = r->progress_ud};
}

/* Where placement q differs from p (the compared one), in words, or NULL when they are the
 * same problem: devices, every block (id, kind, span, memory, devices) and every dependency
 * (ends, delay, distance). A schedule file's must be the compared one: a file whose spans were
 * all set to 1 is a schedule of another placement. */
static const char *ts_op_compare_differs(const ts_placement *q, const ts_placement *p, char *buf,
                                         size_t len)
{
    if (q->ndevs != p->ndevs || q->nblocks != p->nblocks || q->nedges != p->nedges) {
        snprintf(buf, len, "%d devices, %d blocks and %d edges, not %d, %d and %d", q->ndevs,
                 q->nblocks, q->nedges, p->ndevs, p->nblocks, p->nedges);
        return buf;
    }
    for (int b = 0; b < p->nblocks; b++) {
        const ts_block *x = &q->blocks[b], *y = &p->blocks[b];
        if (strcmp(x->id, y->id) || x->kind != y->kind || x->span != y->span ||
            x->memory != y->memory || x->ndevices != y->ndevices ||
            memcmp(x->devices, y->devices, (size_t)y->ndevices * sizeof *y->devices)) {
            snprintf(buf, len,
                     "block %d ('%s': span %d, memory %d) is not '%s' (span %d, memory %d) "
                     "on the same devices",
                     b, x->id, x->span, x->memory, y->id, y->span, y->memory);
            return buf;
        }
    }
    for (int i = 0; i < p->nedges; i++) {
        const ts_edge *x = &q->edges[i], *y = &p->edges[i];
        if (x->src != y->src || x->dst != y->dst || x->delay != y->delay ||
            x->distance != y->distance) {
            snprintf(buf, len, "edge %d differs (its ends, delay or distance)", i);
            return buf;
        }
    }
    return NULL;
}

/* Loads every schedule file into s[]; on an error frees what it loaded. */
static int ts_op_compare_load(const ts_op_compare_req *r, ts_schedule **s, ts_err *e)
{
    int rc = TS_OK, i;
    for (i = 0; i < r->nfiles && rc == TS_OK; i++) {
        const char *path = strchr(r->files[i], '=') + 1;
        if ((rc = ts_schedule_load(path, &s[i], e)) != TS_OK)
            break;
        const ts_placement *q = s[i]->placement, *p = r->p;
        char why[192];
        if (ts_op_compare_differs(q, p, why, sizeof why))
            rc = ts_fail(e, TS_EINPUT,
                         "%s: its placement '%s' is not the compared placement '%s': %s", path,
                         q->name, p->name, why);
    }
    for (int k = 0; rc != TS_OK && k < r->nfiles; k++) {
        ts_schedule_free(s[k]);
        s[k] = NULL;
    }
    return rc;
}

int ts_op_compare_run(const ts_op_compare_req *r, ts_op_compare_res *res, ts_err *e)
{
    memset(res, 0, sizeof *res);
    res->best = -1;
    ts_schedule *files[TS_OP_COMPARE_FILES] = {0};
    if (ts_op_compare_load(r, files, e))
        return e->code ? e->code : TS_EINPUT;
    /* the rows to run: the default list leaves out the baselines that do not fit */
    int run[TS_OP_COMPARE_MAX], nrun = 0;
    for (int i = 0; i < r->nnames; i++) {
        ts_err fe = {0};
        if (r->listed || ts_compare_is_search(r->names[i]) ||
            ts_baseline_fits(r->names[i], r->p, r->n, &fe) == TS_OK)
            run[nrun++] = i;
    }
    if (!(res->rows = calloc((size_t)(nrun + r->nfiles + 1), sizeof *res->rows))) {
        for (int i = 0; i < r->nfiles; i++)
            ts_schedule_free(files[i]);
        return ts_fail(e, TS_ESYS, "compare: out of memory");
    }
    ts_compare_opts o = ts_op_compare_opts_of(r);
    for (int i = 0; i < nrun; i++) {
        const char *name = r->names[run[i]];
        if (r->row_start)
            r->row_start(r->row_ud, name, i, nrun);
        if (r->guarded)
            ts_compare_row_run_guarded(&o, name, &res->rows[res->nrows++]);
        else
            ts_compare_row_run(&o, name, &res->rows[res->nrows++]);
    }
    for (int i = 0; i < r->nfiles; i++) {
        char name[TS_COMPARE_NAME];
        snprintf(name, sizeof name, "%.*s", (int)(strchr(r->files[i], '=') - r->files[i]),
                 r->files[i]);
        ts_compare_row_schedule(&o, name, files[i], &res->rows[res->nrows++]);
    }
    ts_bound_compute(r->p, r->n, r->cap, &res->lb);
    res->best = ts_compare_finish(res->rows, res->nrows, res->lb.value);
    return TS_OK;
}

void ts_op_compare_res_free(ts_op_compare_res *res)
{
    for (int i = 0; res->rows && i < res->nrows; i++)
        ts_compare_row_clear(&res->rows[i]);
    free(res->rows);
    memset(res, 0, sizeof *res);
}
