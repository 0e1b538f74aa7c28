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

/* Whether two placements have the same devices and blocks: a schedule file's must be the
 * compared one. */
static bool ts_op_compare_same(const ts_placement *q, const ts_placement *p)
{
    bool same = q->ndevs == p->ndevs && q->nblocks == p->nblocks;
    for (int b = 0; same && b < p->nblocks; b++)
        same = !strcmp(q->blocks[b].id, p->blocks[b].id);
    return same;
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
        if (!ts_op_compare_same(q, p))
            rc = ts_fail(e, TS_EINPUT,
                         "%s: its placement '%s' (%d devices, %d blocks) is not the compared "
                         "placement '%s' (%d devices, %d blocks)",
                         path, q->name, q->ndevs, q->nblocks, p->name, p->ndevs, p->nblocks);
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
