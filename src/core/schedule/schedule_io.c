/* Schedule files (tessel-schedule/1): reading with a message naming the file and the place, the
 * repetend's window checked, and writing (whole, or streamed entry by entry). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ts_json.h"
#include "ts_jsonutil.h"

#define TS_SCHEDULE_FORMAT "tessel-schedule/1"
#define TS_MAX_MICROS 1000000
#define TS_MAX_STEP 1000000000000L

static int ts_read_memory(ts_schedule *s, json_t *jm, const char *where, ts_err *e)
{
    int nd = s->placement->ndevs;
    if (!jm || json_is_null(jm)) {
        ts_schedule_set_memory(s, NULL);
        return TS_OK;
    }
    if (json_is_integer(jm)) {
        long v;
        if (ts_jint_value(jm, where, "field 'memory'", 0, 1000L * TS_MAX_MEMORY, &v, e))
            return TS_EINPUT;
        ts_schedule_set_uniform_memory(s, v);
        return TS_OK;
    }
    if (!json_is_array(jm))
        return ts_fail(e, TS_EINPUT,
                       "%s: field 'memory' must be null, an integer or an array of %d integers, "
                       "got %s",
                       where, nd, ts_jtype(jm));
    if ((int)json_array_size(jm) != nd)
        return ts_fail(e, TS_EINPUT, "%s: field 'memory' has %zu capacities for %d devices", where,
                       json_array_size(jm), nd);
    s->has_memory = true;
    for (int d = 0; d < nd; d++) {
        char what[64];
        snprintf(what, sizeof what, "memory[%d]", d);
        if (ts_jint_value(json_array_get(jm, (size_t)d), where, what, 0, 1000L * TS_MAX_MEMORY,
                          &s->memory[d], e))
            return TS_EINPUT;
    }
    return TS_OK;
}

static int ts_read_entries(ts_schedule *s, json_t *arr, const char *where, ts_err *e)
{
    static const char *const keys[] = {"block", "micro", "step", NULL};
    for (size_t i = 0; i < json_array_size(arr); i++) {
        json_t *je = json_array_get(arr, i);
        char ctx[512];
        const char *id;
        long micro, step;
        snprintf(ctx, sizeof ctx, "%s: entries[%zu]", where, i);
        if (!json_is_object(je))
            return ts_fail(e, TS_EINPUT, "%s: expected an object, got %s", ctx, ts_jtype(je));
        if (ts_jkeys(je, ctx, keys, e) || ts_jstr(je, "block", ctx, &id, e) ||
            ts_jint(je, "micro", ctx, 0, s->nmicros - 1, &micro, e) ||
            ts_jint(je, "step", ctx, 0, TS_MAX_STEP, &step, e))
            return TS_EINPUT;
        int b = ts_placement_find(s->placement, id);
        if (b < 0)
            return ts_fail(e, TS_EINPUT, "%s: unknown block '%s'", ctx, id);
        if (ts_schedule_add(s, b, (int)micro, step))
            return ts_fail(e, TS_ESYS, "%s: out of memory", ctx);
    }
    return TS_OK;
}

/* The window must hold each block exactly once, as the micro-batch mids says: otherwise unrolling
 * would silently produce a wrong schedule. */
static int ts_check_window(const ts_schedule *s, const char *where, ts_err *e)
{
    const ts_placement *p = s->placement;
    int *count = calloc((size_t)p->nblocks, sizeof(int));
    if (!count)
        return ts_fail(e, TS_ESYS, "out of memory");
    int rc = TS_OK;
    for (int i = 0; i < s->nentries && !rc; i++) {
        const ts_entry *x = &s->entries[i];
        if (x->step < s->rep.start || x->step >= s->rep.end)
            continue;
        if (++count[x->block] > 1)
            rc = ts_fail(e, TS_EINPUT, "%s: repetend [%ld, %ld) holds block '%s' more than once",
                         where, s->rep.start, s->rep.end, p->blocks[x->block].id);
        else if (x->micro != s->rep.mids[x->block])
            rc = ts_fail(
                e, TS_EINPUT,
                "%s: repetend: block '%s' runs micro-batch %d in the window but mids says %d",
                where, p->blocks[x->block].id, x->micro, s->rep.mids[x->block]);
    }
    for (int b = 0; b < p->nblocks && !rc; b++)
        if (!count[b])
            rc = ts_fail(e, TS_EINPUT, "%s: repetend [%ld, %ld) does not hold block '%s'", where,
                         s->rep.start, s->rep.end, p->blocks[b].id);
    free(count);
    return rc;
}

static int ts_read_repetend(ts_schedule *s, json_t *jr, const char *where, ts_err *e)
{
    static const char *const keys[] = {"start", "end", "period", "k", "mids", NULL};
    char ctx[512];
    long start, end, period, k;
    snprintf(ctx, sizeof ctx, "%s: repetend", where);
    if (!json_is_object(jr))
        return ts_fail(e, TS_EINPUT, "%s: expected an object, got %s", ctx, ts_jtype(jr));
    if (ts_jkeys(jr, ctx, keys, e) || ts_jint(jr, "start", ctx, 0, TS_MAX_STEP, &start, e) ||
        ts_jint(jr, "end", ctx, start + 1, TS_MAX_STEP, &end, e) ||
        ts_jint_opt(jr, "period", ctx, 1, TS_MAX_STEP, end - start, &period, e) ||
        ts_jint_opt(jr, "k", ctx, 1, s->nmicros, 0, &k, e))
        return TS_EINPUT;
    if (period != end - start)
        return ts_fail(e, TS_EINPUT, "%s: 'period' %ld differs from end - start = %ld", ctx, period,
                       end - start);
    json_t *jm = json_object_get(jr, "mids");
    if (!json_is_object(jm))
        return ts_fail(e, TS_EINPUT, "%s: field 'mids' must be an object {block id: micro-batch}",
                       ctx);
    int nb = s->placement->nblocks;
    int *mids = malloc((size_t)nb * sizeof(int));
    if (!mids)
        return ts_fail(e, TS_ESYS, "out of memory");
    const char *key;
    json_t *v;
    json_object_foreach(jm, key, v)
    {
        if (ts_placement_find(s->placement, key) < 0) {
            free(mids);
            return ts_fail(e, TS_EINPUT, "%s: 'mids' names unknown block '%s'", ctx, key);
        }
    }
    for (int b = 0; b < nb; b++) {
        long m;
        char what[160];
        snprintf(what, sizeof what, "mids of block '%s'", s->placement->blocks[b].id);
        json_t *x = json_object_get(jm, s->placement->blocks[b].id);
        if (!x) {
            free(mids);
            return ts_fail(e, TS_EINPUT, "%s: 'mids' lacks block '%s'", ctx,
                           s->placement->blocks[b].id);
        }
        if (ts_jint_value(x, ctx, what, 0, s->nmicros - 1, &m, e)) {
            free(mids);
            return TS_EINPUT;
        }
        mids[b] = (int)m;
    }
    int rc = ts_schedule_set_repetend(s, start, end, mids);
    free(mids);
    if (rc)
        return ts_fail(e, TS_ESYS, "out of memory");
    if (k && k != s->rep.k)
        return ts_fail(e, TS_EINPUT, "%s: 'k' is %ld but the mids span %d micro-batches", ctx, k,
                       s->rep.k);
    return ts_check_window(s, ctx, e);
}

int ts_schedule_from_json(json_t *j, const char *where, ts_schedule **out, ts_err *e)
{
    static const char *const keys[] = {"format",  "placement", "memory", "nmicros",
                                       "entries", "repetend",  "search", NULL};
    ts_placement *p = NULL;
    json_t *entries;
    long nmicros;
    char ctx[512];
    *out = NULL;
    if (ts_jformat(j, where, TS_SCHEDULE_FORMAT, e) || ts_jkeys(j, where, keys, e))
        return TS_EINPUT;
    json_t *jp = json_object_get(j, "placement");
    if (!jp)
        return ts_fail(e, TS_EINPUT, "%s: missing field 'placement'", where);
    snprintf(ctx, sizeof ctx, "%s: placement", where);
    if (ts_placement_from_json(jp, ctx, &p, e))
        return TS_EINPUT;
    if (ts_jint(j, "nmicros", where, 1, TS_MAX_MICROS, &nmicros, e) ||
        ts_jarray(j, "entries", where, false, &entries, e)) {
        ts_placement_free(p);
        return TS_EINPUT;
    }
    ts_schedule *s = ts_schedule_new(p, (int)nmicros);
    ts_placement_free(p);
    if (!s)
        return ts_fail(e, TS_ESYS, "out of memory");
    json_t *jr = json_object_get(j, "repetend"), *js = json_object_get(j, "search");
    if (ts_read_memory(s, json_object_get(j, "memory"), where, e) ||
        ts_read_entries(s, entries, where, e) || (jr && ts_read_repetend(s, jr, where, e)))
        goto fail;
    if (js) {
        if (!json_is_object(js)) {
            ts_fail(e, TS_EINPUT, "%s: field 'search' must be an object, got %s", where,
                    ts_jtype(js));
            goto fail;
        }
        s->search = json_incref(js);
    }
    *out = s;
    return TS_OK;
fail:
    ts_schedule_free(s);
    return e ? e->code : TS_EINPUT;
}

/* Every field but the entries, in the order of the file. */
static json_t *ts_schedule_head_json(const ts_schedule *s)
{
    const ts_placement *p = s->placement;
    json_t *j = json_object();
    json_object_set_new(j, "format", json_string(TS_SCHEDULE_FORMAT));
    json_object_set_new(j, "placement", ts_placement_to_json(p));
    if (s->has_memory) {
        json_t *m = json_array();
        for (int d = 0; d < p->ndevs; d++)
            json_array_append_new(m, json_integer(s->memory[d]));
        json_object_set_new(j, "memory", m);
    } else {
        json_object_set_new(j, "memory", json_null());
    }
    json_object_set_new(j, "nmicros", json_integer(s->nmicros));
    if (s->has_repetend) {
        json_t *mids = json_object();
        for (int b = 0; b < p->nblocks; b++)
            json_object_set_new(mids, p->blocks[b].id, json_integer(s->rep.mids[b]));
        json_object_set_new(j, "repetend",
                            json_pack("{sI sI sI si so}", "start", (json_int_t)s->rep.start, "end",
                                      (json_int_t)s->rep.end, "period", (json_int_t)s->rep.period,
                                      "k", s->rep.k, "mids", mids));
    }
    if (s->search)
        json_object_set(j, "search", s->search);
    return j;
}

json_t *ts_schedule_to_json(const ts_schedule *s)
{
    const ts_placement *p = s->placement;
    json_t *j = ts_schedule_head_json(s);
    json_t *entries = json_array();
    for (int i = 0; i < s->nentries; i++) {
        const ts_entry *x = &s->entries[i];
        json_array_append_new(entries, json_pack("{ss si sI}", "block", p->blocks[x->block].id,
                                                 "micro", x->micro, "step", (json_int_t)x->step));
    }
    json_object_set_new(j, "entries", entries);
    return j;
}

int ts_schedule_load(const char *path, ts_schedule **out, ts_err *e)
{
    json_t *j;
    *out = NULL;
    if (ts_json_read_file(path, &j, e))
        return e ? e->code : TS_EINPUT;
    int rc = ts_schedule_from_json(j, path, out, e);
    json_decref(j);
    return rc;
}

/* The flags of ts_json_write_file: the streamed file must be the one it would write. */
#define TS_SCHEDULE_DUMP_FLAGS (JSON_INDENT(1) | JSON_PRESERVE_ORDER)

/* Writes the schedule as ts_json_write_file writes ts_schedule_to_json, byte for byte, without
 * building a tree of its entries: the other fields are dumped by Jansson with an empty entries
 * array last, and the entries are printed in Jansson's layout in its place (a million entries:
 * a tenth of the time and none of the memory of the tree). 0, or -1 on a write or allocation
 * failure. */
static int ts_schedule_stream(const ts_schedule *s, FILE *f)
{
    const ts_placement *p = s->placement;
    json_t *j = ts_schedule_head_json(s);
    json_object_set_new(j, "entries", json_array());
    char *head = json_dumps(j, TS_SCHEDULE_DUMP_FLAGS);
    json_decref(j);
    char **ids = calloc((size_t)p->nblocks + 1, sizeof *ids);
    static const char tail[] = "[]\n}"; /* how the empty entries array ends the dump */
    size_t hl = head ? strlen(head) : 0, tl = sizeof tail - 1;
    int bad = !head || !ids;
    if (!bad && (hl < tl || strcmp(head + hl - tl, tail) != 0)) {
        /* Not the layout this expects (another Jansson?): the tree, slow but the same file. */
        free(head);
        free(ids);
        json_t *whole = ts_schedule_to_json(s);
        bad = !whole || json_dumpf(whole, f, TS_SCHEDULE_DUMP_FLAGS) != 0;
        json_decref(whole);
        return bad || fputc('\n', f) == EOF ? -1 : 0;
    }
    for (int b = 0; b < p->nblocks && !bad; b++) { /* each id as Jansson escapes it */
        json_t *id = json_string(p->blocks[b].id);
        ids[b] = id ? json_dumps(id, JSON_ENCODE_ANY) : NULL;
        json_decref(id);
        bad = !ids[b];
    }
    if (!bad && s->nentries == 0) {
        bad = fputs(head, f) == EOF;
    } else if (!bad) {
        bad = fwrite(head, 1, hl - tl, f) != hl - tl || fputs("[", f) == EOF;
        for (int i = 0; i < s->nentries && !bad; i++) {
            const ts_entry *x = &s->entries[i];
            bad = fprintf(f, "%s\n  {\n   \"block\": %s,\n   \"micro\": %d,\n   \"step\": %ld\n  }",
                          i ? "," : "", ids[x->block], x->micro, x->step) < 0;
        }
        bad = bad || fputs("\n ]\n}", f) == EOF;
    }
    for (int b = 0; ids && b < p->nblocks; b++)
        free(ids[b]);
    free(ids);
    free(head);
    return bad || fputc('\n', f) == EOF ? -1 : 0;
}

static int ts_schedule_write(FILE *f, const void *s)
{
    return ts_schedule_stream(s, f);
}

int ts_schedule_save(const ts_schedule *s, const char *path, ts_err *e)
{
    return ts_write_file(path, ts_schedule_write, s, e);
}
