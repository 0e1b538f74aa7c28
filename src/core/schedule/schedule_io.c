/* Schedule files (tessel-schedule/1, and /2 for a repetend of several micro-batches per period):
 * reading with a message naming the file and the place, the repetend's window checked
 * (repetend_io.c), and writing (whole, or streamed entry by entry). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ts_json.h"
#include "ts_jsonutil.h"
#include "ts_repetend_io.h"

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

int ts_schedule_from_json(json_t *j, const char *where, ts_schedule **out, ts_err *e)
{
    static const char *const keys[] = {"format",  "placement", "memory", "nmicros",
                                       "entries", "repetend",  "search", NULL};
    ts_placement *p = NULL;
    json_t *entries;
    long nmicros;
    char ctx[512];
    *out = NULL;
    json_t *jf = json_object_get(j, "format");
    bool wide = json_is_object(j) && json_is_string(jf) &&
                !strcmp(json_string_value(jf), TS_SCHEDULE_FORMAT_2);
    if ((!wide && ts_jformat(j, where, TS_SCHEDULE_FORMAT, e)) || ts_jkeys(j, where, keys, e))
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
        ts_read_entries(s, entries, where, e) ||
        (jr && ts_repetend_from_json(s, jr, where, wide, e)))
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
    bool wide = s->has_repetend && s->rep.per > 1;
    json_object_set_new(j, "format", json_string(wide ? TS_SCHEDULE_FORMAT_2 : TS_SCHEDULE_FORMAT));
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
    if (s->has_repetend)
        json_object_set_new(j, "repetend", ts_repetend_to_json(s));
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
