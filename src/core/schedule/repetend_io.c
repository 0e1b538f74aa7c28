/* The repetend object of a schedule file: {start, end, period, k, mids}, and per_period with a
 * list of micro-batches per block in mids when the window holds more than one of each
 * (tessel-schedule/2). */
#include <stdlib.h>
#include <string.h>
#include "ts_jsonutil.h"
#include "ts_repetend_io.h"

#define TS_MAX_STEP 1000000000000L

/* The window must hold each block exactly per times, at the micro-batches mids says: otherwise
 * unrolling would silently produce a wrong schedule. */
static int ts_check_window(const ts_schedule *s, const char *where, ts_err *e)
{
    const ts_placement *p = s->placement;
    int per = s->rep.per;
    int *count = calloc((size_t)p->nblocks + 1, sizeof(int));
    if (!count)
        return ts_fail(e, TS_ESYS, "out of memory");
    int rc = TS_OK;
    for (int i = 0; i < s->nentries && !rc; i++) {
        const ts_entry *x = &s->entries[i];
        if (x->step < s->rep.start || x->step >= s->rep.end)
            continue;
        const int *m = s->rep.mids + (size_t)x->block * (size_t)per;
        int j = 0;
        while (j < per && m[j] != x->micro)
            j++;
        if (++count[x->block] > per)
            rc = ts_fail(e, TS_EINPUT, "%s: repetend [%ld, %ld) holds block '%s' more than %s",
                         where, s->rep.start, s->rep.end, p->blocks[x->block].id,
                         per == 1 ? "once" : "per_period times");
        else if (j == per)
            rc = ts_fail(e, TS_EINPUT,
                         "%s: repetend: block '%s' runs micro-batch %d in the window but mids "
                         "says %d%s",
                         where, p->blocks[x->block].id, x->micro, m[0], per > 1 ? ", ..." : "");
    }
    for (int b = 0; b < p->nblocks && !rc; b++)
        if (count[b] < per)
            rc = ts_fail(e, TS_EINPUT, "%s: repetend [%ld, %ld) holds block '%s' %d times, not %d",
                         where, s->rep.start, s->rep.end, p->blocks[b].id, count[b], per);
    free(count);
    return rc;
}

/* Block b's micro-batches in mids: an integer (per 1) or a list of per distinct ones, one of
 * each residue mod per, so that the unrolled copies never meet. */
static int ts_read_mids_of(const ts_schedule *s, json_t *x, const char *ctx, int b, int per,
                           int *out, ts_err *e)
{
    const char *id = s->placement->blocks[b].id;
    char what[160];
    snprintf(what, sizeof what, "mids of block '%s'", id);
    if (per == 1 && !json_is_array(x)) {
        long m;
        if (ts_jint_value(x, ctx, what, 0, s->nmicros - 1, &m, e))
            return TS_EINPUT;
        out[0] = (int)m;
        return TS_OK;
    }
    if (!json_is_array(x) || (int)json_array_size(x) != per)
        return ts_fail(e, TS_EINPUT, "%s: %s must be a list of %d micro-batches (per_period)", ctx,
                       what, per);
    for (int j = 0; j < per; j++) {
        long m;
        if (ts_jint_value(json_array_get(x, (size_t)j), ctx, what, 0, s->nmicros - 1, &m, e))
            return TS_EINPUT;
        out[j] = (int)m;
        for (int i = 0; i < j; i++)
            if (out[i] % per == out[j] % per)
                return ts_fail(e, TS_EINPUT,
                               "%s: %s lists %d and %d, the same micro-batch mod per_period %d",
                               ctx, what, out[i], out[j], per);
    }
    return TS_OK;
}

static int ts_read_mids(ts_schedule *s, json_t *jm, const char *ctx, int per, int *mids, ts_err *e)
{
    const char *key;
    json_t *v;
    if (!json_is_object(jm))
        return ts_fail(e, TS_EINPUT, "%s: field 'mids' must be an object {block id: micro-batch}",
                       ctx);
    json_object_foreach(jm, key, v)
    {
        if (ts_placement_find(s->placement, key) < 0)
            return ts_fail(e, TS_EINPUT, "%s: 'mids' names unknown block '%s'", ctx, key);
    }
    for (int b = 0; b < s->placement->nblocks; b++) {
        json_t *x = json_object_get(jm, s->placement->blocks[b].id);
        if (!x)
            return ts_fail(e, TS_EINPUT, "%s: 'mids' lacks block '%s'", ctx,
                           s->placement->blocks[b].id);
        if (ts_read_mids_of(s, x, ctx, b, per, mids + (size_t)b * (size_t)per, e))
            return TS_EINPUT;
    }
    return TS_OK;
}

int ts_repetend_from_json(ts_schedule *s, json_t *jr, const char *where, bool wide, ts_err *e)
{
    static const char *const keys[] = {"start", "end", "period", "k", "per_period", "mids", NULL};
    char ctx[512];
    long start, end, period, k, per;
    snprintf(ctx, sizeof ctx, "%s: repetend", where);
    if (!json_is_object(jr))
        return ts_fail(e, TS_EINPUT, "%s: expected an object, got %s", ctx, ts_jtype(jr));
    if (ts_jkeys(jr, ctx, keys, e) || ts_jint(jr, "start", ctx, 0, TS_MAX_STEP, &start, e) ||
        ts_jint(jr, "end", ctx, start + 1, TS_MAX_STEP, &end, e) ||
        ts_jint_opt(jr, "period", ctx, 1, TS_MAX_STEP, end - start, &period, e) ||
        ts_jint_opt(jr, "k", ctx, 1, s->nmicros, 0, &k, e) ||
        ts_jint_opt(jr, "per_period", ctx, 1, TS_REPETEND_MAX_PER, 1, &per, e))
        return TS_EINPUT;
    if (per > 1 && !wide)
        return ts_fail(e, TS_EINPUT, "%s: 'per_period' %ld needs format '%s'", ctx, per,
                       TS_SCHEDULE_FORMAT_2);
    if (period != end - start)
        return ts_fail(e, TS_EINPUT, "%s: 'period' %ld differs from end - start = %ld", ctx, period,
                       end - start);
    if (per > s->nmicros)
        return ts_fail(e, TS_EINPUT, "%s: 'per_period' %ld exceeds the %d micro-batches", ctx, per,
                       s->nmicros);
    size_t n = (size_t)s->placement->nblocks * (size_t)per;
    int *mids = malloc(n ? n * sizeof(int) : 1);
    if (!mids)
        return ts_fail(e, TS_ESYS, "out of memory");
    int rc = ts_read_mids(s, json_object_get(jr, "mids"), ctx, (int)per, mids, e);
    if (!rc && ts_schedule_set_repetend_per(s, start, end, (int)per, mids))
        rc = ts_fail(e, TS_ESYS, "out of memory");
    free(mids);
    if (rc)
        return rc;
    if (k && k != s->rep.k)
        return ts_fail(e, TS_EINPUT, "%s: 'k' is %ld but the mids span %d micro-batches", ctx, k,
                       s->rep.k);
    return ts_check_window(s, ctx, e);
}

json_t *ts_repetend_to_json(const ts_schedule *s)
{
    const ts_placement *p = s->placement;
    int per = s->rep.per;
    json_t *mids = json_object();
    for (int b = 0; mids && b < p->nblocks; b++) {
        const int *m = s->rep.mids + (size_t)b * (size_t)per;
        json_t *v = per == 1 ? json_integer(m[0]) : json_array();
        for (int j = 0; per > 1 && v && j < per; j++)
            json_array_append_new(v, json_integer(m[j]));
        json_object_set_new(mids, p->blocks[b].id, v);
    }
    if (per == 1)
        return json_pack("{sI sI sI si so}", "start", (json_int_t)s->rep.start, "end",
                         (json_int_t)s->rep.end, "period", (json_int_t)s->rep.period, "k", s->rep.k,
                         "mids", mids);
    return json_pack("{sI sI sI si si so}", "start", (json_int_t)s->rep.start, "end",
                     (json_int_t)s->rep.end, "period", (json_int_t)s->rep.period, "k", s->rep.k,
                     "per_period", per, "mids", mids);
}
