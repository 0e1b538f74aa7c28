/* Writing a schedule in the Python Tessel's format (see ts_pytessel.h). The reference names blocks
 * by gid (its chain order) and unrolls its repetend window with a shift it derives from the
 * window itself, so the window to write is one whose reference unroll is ours: each candidate
 * window is read back with the import's own rules, and the first that gives the schedule back
 * unchanged is written, block by block (ts_pyexport_stream). Above TS_PYEXPORT_MAX_INSTANCES the
 * export is refused: the window check holds several copies of the schedule. */
#include <stdlib.h>
#include <string.h>
#include "pytessel_internal.h"
#include "ts_json.h"

/* s as the reference would hold it in memory, with the window [t, t + period). */
static int ts_pyexport_plan(const ts_schedule *s, const int *gid_of, long t, ts_pyplan *pl)
{
    const ts_placement *p = s->placement;
    memset(pl, 0, sizeof *pl);
    pl->path = "export";
    pl->ndevs = p->ndevs;
    pl->nmids = s->nmicros;
    pl->gids = calloc((size_t)p->nblocks, sizeof *pl->gids);
    pl->inst = malloc((size_t)(s->nentries ? s->nentries : 1) * sizeof *pl->inst);
    if (!pl->gids || !pl->inst)
        return -1;
    pl->ngids = p->nblocks;
    for (int b = 0; b < p->nblocks; b++)
        pl->gids[gid_of[b]] = (ts_pygid){.gid = gid_of[b], .block = b};
    for (int i = 0; i < s->nentries; i++)
        pl->inst[i] =
            (ts_pyinst){gid_of[s->entries[i].block], s->entries[i].micro, s->entries[i].step};
    pl->ninst = s->nentries;
    pl->has_rep = true;
    pl->rs = t;
    pl->re = t + s->rep.period;
    return 0;
}

static int ts_same_entries(const ts_schedule *a, const ts_schedule *b)
{
    return a->nmicros == b->nmicros && a->nentries == b->nentries &&
           !memcmp(a->entries, b->entries, (size_t)a->nentries * sizeof *a->entries);
}

/* The shift of window [t, t + period) as the reference computes it for a plan it loads from a
 * file, where blocks carry no dependencies; -1 when the window does not hold every block once. */
static long ts_pyexport_loaded_period(const ts_schedule *s, long t)
{
    const ts_placement *p = s->placement;
    int *mid = malloc((size_t)p->nblocks * sizeof(int));
    int *count = calloc((size_t)p->nblocks, sizeof(int));
    long *step = malloc((size_t)p->nblocks * sizeof(long)), P = -1;
    if (mid && count && step) {
        for (int i = 0; i < s->nentries; i++) {
            const ts_entry *x = &s->entries[i];
            if (x->step >= t && x->step < t + s->rep.period) {
                count[x->block]++;
                mid[x->block] = x->micro;
                step[x->block] = x->step;
            }
        }
        P = 0;
        for (int b = 0; b < p->nblocks && P == 0; b++)
            P = count[b] == 1 ? 0 : -1;
        if (P == 0)
            P = ts_py_period(p, mid, step, false);
    }
    free(mid);
    free(count);
    free(step);
    return P;
}

/* Does the reference's unroll of window t give s back, and the same schedule a few repetitions on?
 * 1 yes, 0 no, -1 out of memory. */
static int ts_pyexport_window_ok(const ts_schedule *s, const int *gid_of, long t)
{
    ts_pyplan pl;
    ts_schedule *back = NULL, *u = NULL, *v = NULL;
    ts_err e = {0};
    int ok = -1;
    if (ts_pyexport_plan(s, gid_of, t, &pl))
        goto out;
    ok = 0;
    if (ts_pyexport_loaded_period(s, t) != s->rep.period ||
        ts_pyplan_schedule(&pl, s->placement, NULL, &back, &e) || !back->has_repetend ||
        back->rep.period != s->rep.period || !ts_same_entries(s, back))
        goto out;
    int n = s->nmicros + s->rep.k + 1;
    if (ts_schedule_unroll(s, n, &u, &e) || ts_schedule_unroll(back, n, &v, &e))
        goto out;
    ok = ts_same_entries(u, v);
out:
    if (e.code == TS_ESYS)
        ok = -1;
    ts_schedule_free(back);
    ts_schedule_free(u);
    ts_schedule_free(v);
    ts_pyplan_free(&pl);
    return ok;
}

typedef struct {
    const ts_schedule *s;
    const int *gid_of;
    long t;
} ts_pyexport_job;

/* Writes the file block by block, so that it is never held in memory whole. */
static int ts_pyexport_stream(FILE *f, const void *ud)
{
    const ts_pyexport_job *job = ud;
    const ts_schedule *s = job->s;
    const ts_placement *p = s->placement;
    if (fprintf(f, "{\"ndevs\": %d,\n \"blocks\": [", p->ndevs) < 0)
        return -1;
    for (int i = 0; i < s->nentries; i++) {
        const ts_entry *x = &s->entries[i];
        const ts_block *b = &p->blocks[x->block];
        json_t *dev = json_array();
        for (int k = 0; dev && k < b->ndevices; k++)
            json_array_append_new(dev, json_integer(b->devices[k]));
        json_t *j = json_pack("{si si si ss si sI so}", "mid", x->micro, "span", b->span, "memory",
                              b->memory, "btype", ts_kind_name(b->kind), "gid",
                              job->gid_of[x->block], "step", (json_int_t)x->step, "device", dev);
        int bad = !j || fputs(i ? ",\n  " : "\n  ", f) == EOF ||
                  json_dumpf(j, f, JSON_COMPACT | JSON_PRESERVE_ORDER) != 0;
        json_decref(j);
        if (bad)
            return -1;
    }
    return fprintf(f, "],\n \"repetend\": [%ld, %ld]}\n", job->t, job->t + s->rep.period) < 0;
}

/* Our own window first, then the nearest others of one period within the schedule. */
static int ts_pyexport_window(const ts_schedule *s, const int *gid_of, const char *path, long *t,
                              ts_err *e)
{
    long P = s->rep.period;
    for (long d = 0; d < P; d++)
        for (int sign = 1; sign >= -1; sign -= 2) {
            long c = s->rep.start + sign * d;
            int ok = (d || sign > 0) ? ts_pyexport_window_ok(s, gid_of, c) : 0;
            if (ok < 0)
                return ts_fail(e, TS_ESYS, "out of memory");
            if (ok > 0) {
                *t = c;
                return TS_OK;
            }
        }
    return ts_fail(e, TS_ENOANSWER,
                   "%s: no repetend window of this schedule unrolls the same way in the Python "
                   "Tessel's convention (it shifts each micro-batch by the largest per-device "
                   "extent of the window, not by the period %ld)",
                   path, P);
}

int ts_pyexport_save(const ts_schedule *orig, const char *path, ts_err *e)
{
    const ts_placement *p = orig->placement;
    if (orig->nentries > TS_PYEXPORT_MAX_INSTANCES)
        return ts_fail(e, TS_EINPUT,
                       "%s: %d instances, more than the limit of %ld (2^22) for the Python "
                       "Tessel's format: ask for fewer micro-batches",
                       path, orig->nentries, (long)TS_PYEXPORT_MAX_INSTANCES);
    if (!orig->has_repetend)
        return ts_fail(e, TS_EINPUT,
                       "%s: the schedule has no repetend; the Python Tessel's format "
                       "needs one",
                       path);
    if (orig->rep.per > 1)
        return ts_fail(e, TS_EINPUT,
                       "%s: the repetend runs %d micro-batches per period %ld; the Python "
                       "Tessel's format holds one per repetend",
                       path, orig->rep.per, orig->rep.period);
    for (int b = 0; b < p->nblocks; b++)
        if (p->blocks[b].kind == TS_KIND_OTHER)
            return ts_fail(e, TS_EINPUT,
                           "%s: block '%s' is of kind 'other'; the Python Tessel "
                           "knows only forward and backward blocks",
                           path, p->blocks[b].id);
    int *gid_of = malloc((size_t)(p->nblocks ? p->nblocks : 1) * sizeof(int));
    ts_schedule *s = ts_schedule_clone(orig); /* in the canonical order, as the import makes it */
    long t = 0;
    int rc = TS_OK;
    if (!gid_of || !s) {
        free(gid_of);
        ts_schedule_free(s);
        return ts_fail(e, TS_ESYS, "out of memory");
    }
    ts_schedule_sort(s);
    if (ts_py_gids(p, gid_of))
        rc = ts_fail(e, TS_EINPUT, "placement '%s': a cycle among its blocks", p->name);
    if (!rc)
        rc = ts_pyexport_window(s, gid_of, path, &t, e);
    if (!rc) {
        ts_pyexport_job job = {s, gid_of, t};
        rc = ts_write_file(path, ts_pyexport_stream, &job, e);
    }
    free(gid_of);
    ts_schedule_free(s);
    return rc;
}
