/* Hand-made schedules by their published rules. Each rule yields a per-device order of instances;
 * the timetable is then the earliest start that order and the dependencies allow (the way a real
 * pipeline runs: a device works through its list, waiting for inputs).
 *
 * Placements with sharded blocks (mshape, nnshape, mllm, ...) are handled by a "virtual pipeline":
 * every stage (a forward block paired with its mirror backward block) gets a device of its own,
 * the rule orders each stage, the virtual pipeline is timed, and each real device then runs its
 * instances in their virtual start order. Since virtual start times respect every dependency, all
 * devices sort by one common key and the real orders can never deadlock; on a plain vshape the
 * virtual pipeline is the real one, so the orders are exactly GPipe's and 1F1B's.
 *
 * This file: the entry points (ts_baseline_make, ts_baseline_fits) and the look-up by name; the
 * rows themselves are in baseline_kinds.c. */
#include <stdlib.h>
#include <string.h>
#include "baseline_internal.h"

const ts_baseline_info *ts_baseline_find(const char *kind)
{
    for (int i = 0; kind && i < ts_baseline_count(); i++)
        if (!strcmp(ts_baseline_at(i)->name, kind))
            return ts_baseline_at(i);
    return NULL;
}

/* Wraps starts into a schedule and checks it; an invalid result is a bug in the rule. */
static int ts_finish(const ts_placement *p, int n, const long *start, const char *kind,
                     ts_schedule **out, ts_err *e)
{
    ts_schedule *s = ts_schedule_new(p, n);
    if (!s)
        return ts_fail(e, TS_ESYS, "baseline %s: out of memory", kind);
    for (int b = 0; b < p->nblocks; b++)
        for (int m = 0; m < n; m++) {
            long st = start[(long)b * n + m];
            if (st < 0) {
                ts_schedule_free(s);
                return ts_fail(e, TS_ESYS,
                               "baseline %s: internal error: %s micro-batch %d has no "
                               "start",
                               kind, p->blocks[b].id, m);
            }
            if (ts_schedule_add(s, b, m, st) != 0) {
                ts_schedule_free(s);
                return ts_fail(e, TS_ESYS, "baseline %s: out of memory", kind);
            }
        }
    ts_schedule_sort(s);
    ts_schedule_set_search_info(s, json_pack("{s:s, s:s}", "method", "baseline", "baseline", kind));
    ts_validate_opts vo = {.monotone = false, .ignore_memory = true};
    ts_err ve = {0};
    if (ts_schedule_validate(s, &vo, &ve) != TS_OK) {
        ts_schedule_free(s);
        return ts_fail(e, TS_ESYS, "baseline %s: internal error: invalid schedule: %s", kind,
                       ve.msg);
    }
    *out = s;
    return TS_OK;
}
/* Common refusals: micro-batch distance edges (token-level pipelines) have no hand-made rule. */
static int ts_check_common(const ts_baseline_info *info, const ts_placement *p, ts_err *e)
{
    if (ts_placement_has_distance_edges(p))
        return ts_bl_refuse(e, info, p, "it has dependencies between micro-batches");
    for (int i = 0; i < p->nedges; i++)
        if (p->blocks[p->edges[i].src].kind == TS_KIND_BACKWARD &&
            p->blocks[p->edges[i].dst].kind != TS_KIND_BACKWARD)
            return ts_bl_refuse(e, info, p, "a backward block feeds a forward one");
    return TS_OK;
}

/* ---------------------------------------------------------------- entry points */

void ts_baseline_names(char *buf, size_t size)
{
    if (size == 0)
        return;
    buf[0] = '\0';
    for (int i = 0; i < ts_baseline_count(); i++) {
        strncat(buf, i ? ", " : "", size - strlen(buf) - 1);
        strncat(buf, ts_baseline_at(i)->name, size - strlen(buf) - 1);
    }
}

static int ts_baseline_run(const char *kind, const ts_placement *p, int n, ts_schedule **out,
                           ts_err *e)
{
    const ts_baseline_info *k = ts_baseline_find(kind);
    if (!k) {
        char names[256];
        ts_baseline_names(names, sizeof names);
        return ts_fail(e, TS_EINPUT, "unknown baseline '%s' (kinds: %s)", kind ? kind : "", names);
    }
    if (n < 1)
        return ts_fail(e, TS_EINPUT, "baseline %s: needs at least 1 micro-batch, got %d", kind, n);
    if ((long)p->nblocks * n > 50000000L)
        return ts_fail(e, TS_EINPUT, "baseline %s: %d blocks x %d micro-batches is too large", kind,
                       p->nblocks, n);
    if (n < k->min_n_per_dev * p->ndevs)
        return ts_fail(e, TS_EINPUT,
                       "baseline '%s' needs at least %d micro-batches (%d x the device count), "
                       "got %d",
                       kind, k->min_n_per_dev * p->ndevs, k->min_n_per_dev, n);
    int rc = ts_check_common(k, p, e);
    if (rc != TS_OK)
        return rc;
    long *start = malloc((size_t)p->nblocks * (size_t)n * sizeof(long) + 1);
    if (!start)
        return ts_fail(e, TS_ESYS, "baseline %s: out of memory", kind);
    rc = k->rule(k, p, n, start, e);
    if (rc == TS_OK && out)
        rc = ts_finish(p, n, start, kind, out, e);
    free(start);
    return rc;
}

int ts_baseline_fits(const char *kind, const ts_placement *p, int n, ts_err *e)
{
    const ts_baseline_info *info = ts_baseline_find(kind);
    /* The structural checks are cheap on a small run: the fewest micro-batches the kind takes
     * (a multiple of D where it needs one); its rule for the real n is checked below. */
    bool mult = info && info->n_multiple_of_devs;
    int least = info && info->min_n_per_dev > 0 ? info->min_n_per_dev * p->ndevs : 1;
    if (mult && least < p->ndevs)
        least = p->ndevs;
    int rc = ts_baseline_run(kind, p, least > 0 ? least : 1, NULL, e);
    if (rc == TS_OK && n > 0 && n < least)
        return ts_fail(e, TS_EINPUT,
                       "baseline '%s' needs at least %d micro-batches (%d x the device count), "
                       "got %d",
                       info->name, least, info->min_n_per_dev, n);
    if (rc == TS_OK && mult && n > 0 && n % p->ndevs != 0)
        return ts_fail(e, TS_EINPUT,
                       "baseline '%s' needs a number of micro-batches that is a multiple of the "
                       "device count (%d), got %d",
                       info->name, p->ndevs, n);
    return rc;
}

int ts_baseline_make(const char *kind, const ts_placement *p, int n, ts_schedule **out, ts_err *e)
{
    *out = NULL;
    return ts_baseline_run(kind, p, n, out, e);
}
