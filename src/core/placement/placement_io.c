/* Placement files (tessel-placement/1): reading with a message naming the file and the place,
 * the memory check per device, and writing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ts_placement_json.h"
#include "ts_jsonutil.h"

#define TS_PLACEMENT_FORMAT "tessel-placement/1"

/* Block ids are looked up in a Jansson object used as a hash map (id -> index), so that a
 * placement of n blocks and m edges loads in O(n + m) rather than O(n (n + m)). */
static int ts_id_lookup(json_t *ids, const char *id)
{
    json_t *v = json_object_get(ids, id);
    return v ? (int)json_integer_value(v) : -1;
}

static int ts_block_ref(json_t *ids, json_t *v, const char *where, const char *what, int *out,
                        ts_err *e)
{
    if (!json_is_string(v))
        return ts_fail(e, TS_EINPUT, "%s: %s must be a block id (string), got %s", where, what,
                       ts_jtype(v));
    int b = ts_id_lookup(ids, json_string_value(v));
    if (b < 0)
        return ts_fail(e, TS_EINPUT, "%s: %s refers to unknown block '%s'", where, what,
                       json_string_value(v));
    *out = b;
    return TS_OK;
}

static int ts_read_block(ts_placement *p, json_t *ids, json_t *jb, const char *where, int i,
                         ts_err *e)
{
    static const char *const keys[] = {"id", "kind", "span", "memory", "devices", NULL};
    char ctx[512];
    snprintf(ctx, sizeof ctx, "%s: blocks[%d]", where, i);
    if (!json_is_object(jb))
        return ts_fail(e, TS_EINPUT, "%s: expected an object, got %s", ctx, ts_jtype(jb));
    const char *id, *kind_s;
    if (ts_jstr(jb, "id", ctx, &id, e))
        return TS_EINPUT;
    snprintf(ctx, sizeof ctx, "%s: block '%s'", where, id);
    int other = ts_id_lookup(ids, id);
    if (other >= 0)
        return ts_fail(e, TS_EINPUT, "%s: duplicate block id '%s' (blocks[%d] and blocks[%d])",
                       where, id, other, i);
    long span, memory;
    ts_kind kind;
    json_t *devs;
    if (ts_jkeys(jb, ctx, keys, e) || ts_jstr(jb, "kind", ctx, &kind_s, e))
        return TS_EINPUT;
    if (ts_kind_parse(kind_s, &kind))
        return ts_fail(e, TS_EINPUT,
                       "%s: field 'kind' is '%s', expected 'forward', 'backward' or 'other'", ctx,
                       kind_s);
    if (ts_jint(jb, "span", ctx, 1, TS_MAX_SPAN, &span, e) ||
        ts_jint(jb, "memory", ctx, -TS_MAX_MEMORY, TS_MAX_MEMORY, &memory, e) ||
        ts_jarray(jb, "devices", ctx, false, &devs, e))
        return TS_EINPUT;
    size_t nd = json_array_size(devs);
    if (nd > (size_t)p->ndevs)
        return ts_fail(e, TS_EINPUT, "%s: %zu devices listed but ndevs is %d", ctx, nd, p->ndevs);
    int *d = malloc(nd * sizeof(int));
    if (!d)
        return ts_fail(e, TS_ESYS, "%s: out of memory", ctx);
    for (size_t k = 0; k < nd; k++) {
        long v;
        char what[64];
        snprintf(what, sizeof what, "devices[%zu]", k);
        if (ts_jint_value(json_array_get(devs, k), ctx, what, 0, p->ndevs - 1, &v, e)) {
            free(d);
            return TS_EINPUT;
        }
        d[k] = (int)v;
    }
    int rc = ts_placement_add_block(p, id, kind, (int)span, (int)memory, (int)nd, d);
    free(d);
    if (rc < 0 || json_object_set_new(ids, id, json_integer(p->nblocks - 1)))
        return ts_fail(e, TS_ESYS, "%s: out of memory", ctx);
    return TS_OK;
}

static int ts_read_edge(ts_placement *p, json_t *ids, json_t *je, const char *where, size_t i,
                        ts_err *e)
{
    char ctx[512];
    snprintf(ctx, sizeof ctx, "%s: edges[%zu]", where, i);
    int src = -1, dst = -1;
    long delay = 0, distance = 0;
    if (json_is_array(je)) {
        if (json_array_size(je) != 2)
            return ts_fail(e, TS_EINPUT, "%s: expected a pair [from, to], got %zu items", ctx,
                           json_array_size(je));
        if (ts_block_ref(ids, json_array_get(je, 0), ctx, "'from'", &src, e) ||
            ts_block_ref(ids, json_array_get(je, 1), ctx, "'to'", &dst, e))
            return TS_EINPUT;
    } else if (json_is_object(je)) {
        static const char *const keys[] = {"from", "to", "delay", "distance", NULL};
        json_t *f = json_object_get(je, "from"), *t = json_object_get(je, "to");
        if (ts_jkeys(je, ctx, keys, e))
            return TS_EINPUT;
        if (!f || !t)
            return ts_fail(e, TS_EINPUT, "%s: missing field '%s'", ctx, f ? "to" : "from");
        if (ts_block_ref(ids, f, ctx, "'from'", &src, e) ||
            ts_block_ref(ids, t, ctx, "'to'", &dst, e) ||
            ts_jint_opt(je, "delay", ctx, 0, TS_MAX_DELAY, 0, &delay, e) ||
            ts_jint_opt(je, "distance", ctx, 0, TS_MAX_DISTANCE, 0, &distance, e))
            return TS_EINPUT;
    } else {
        return ts_fail(e, TS_EINPUT,
                       "%s: expected [from, to] or {from, to, delay, distance}, got %s", ctx,
                       ts_jtype(je));
    }
    if (ts_placement_add_edge(p, src, dst, (int)delay, (int)distance) < 0)
        return ts_fail(e, TS_ESYS, "%s: out of memory", ctx);
    return TS_OK;
}

static int ts_read_chain(ts_placement *p, json_t *ids, json_t *jc, const char *where, size_t i,
                         ts_err *e)
{
    char ctx[512];
    snprintf(ctx, sizeof ctx, "%s: chains[%zu]", where, i);
    if (!json_is_array(jc))
        return ts_fail(e, TS_EINPUT, "%s: expected a list of block ids, got %s", ctx, ts_jtype(jc));
    int prev = -1;
    for (size_t k = 0; k < json_array_size(jc); k++) {
        int b = -1;
        char what[64];
        snprintf(what, sizeof what, "item %zu", k);
        if (ts_block_ref(ids, json_array_get(jc, k), ctx, what, &b, e))
            return TS_EINPUT;
        if (prev >= 0 && ts_placement_add_edge(p, prev, b, 0, 0) < 0)
            return ts_fail(e, TS_ESYS, "%s: out of memory", ctx);
        prev = b;
    }
    return TS_OK;
}

int ts_placement_check_memory(const ts_placement *p, const char *where, ts_err *e)
{
    long *net = calloc((size_t)p->ndevs, sizeof *net);
    if (!net)
        return ts_fail(e, TS_ESYS, "%s: out of memory", where);
    for (int b = 0; b < p->nblocks; b++)
        for (int i = 0; i < p->blocks[b].ndevices; i++)
            net[p->blocks[b].devices[i]] += p->blocks[b].memory;
    int rc = TS_OK;
    for (int d = 0; d < p->ndevs && !rc; d++)
        if (net[d] < 0)
            rc = ts_fail(e, TS_EINPUT,
                         "%s: device %d: the memory of one micro-batch's blocks sums to %ld; the "
                         "blocks on a device must free no more than they allocate",
                         where, d, net[d]);
    free(net);
    return rc;
}

int ts_placement_from_json(json_t *j, const char *where, ts_placement **out, ts_err *e)
{
    static const char *const keys[] = {"format", "name",     "ndevs", "blocks", "edges",
                                       "chains", "capacity", "units", NULL};
    const char *name = "placement";
    long ndevs;
    json_t *blocks;
    *out = NULL;
    if (ts_jformat(j, where, TS_PLACEMENT_FORMAT, e) || ts_jkeys(j, where, keys, e))
        return TS_EINPUT;
    if (json_object_get(j, "name") && ts_jstr(j, "name", where, &name, e))
        return TS_EINPUT;
    if (ts_jint(j, "ndevs", where, 1, TS_MAX_DEVS, &ndevs, e) ||
        ts_jarray(j, "blocks", where, false, &blocks, e))
        return TS_EINPUT;
    ts_placement *p = ts_placement_new(name, (int)ndevs);
    json_t *ids = json_object();
    if (!p || !ids) {
        ts_placement_free(p);
        json_decref(ids);
        return ts_fail(e, TS_ESYS, "%s: out of memory", where);
    }
    if (json_array_size(blocks) > TS_MAX_BLOCKS) {
        ts_fail(e, TS_EINPUT, "%s: more than %d blocks", where, TS_MAX_BLOCKS);
        goto fail;
    }
    for (size_t i = 0; i < json_array_size(blocks); i++)
        if (ts_read_block(p, ids, json_array_get(blocks, i), where, (int)i, e))
            goto fail;
    json_t *edges = json_object_get(j, "edges"), *chains = json_object_get(j, "chains");
    if (edges) {
        if (ts_jarray(j, "edges", where, true, &edges, e))
            goto fail;
        for (size_t i = 0; i < json_array_size(edges); i++)
            if (ts_read_edge(p, ids, json_array_get(edges, i), where, i, e))
                goto fail;
    }
    if (chains) {
        if (ts_jarray(j, "chains", where, true, &chains, e))
            goto fail;
        for (size_t i = 0; i < json_array_size(chains); i++)
            if (ts_read_chain(p, ids, json_array_get(chains, i), where, i, e))
                goto fail;
    }
    if (ts_placement_units_from_json(p, j, where, e))
        goto fail;
    if (ts_placement_check(p, where, e))
        goto fail;
    json_decref(ids);
    *out = p;
    return TS_OK;
fail:
    json_decref(ids);
    ts_placement_free(p);
    return e ? e->code : TS_EINPUT;
}

json_t *ts_placement_to_json(const ts_placement *p)
{
    json_t *j = json_object(), *blocks = json_array(), *edges = json_array();
    json_object_set_new(j, "format", json_string(TS_PLACEMENT_FORMAT));
    json_object_set_new(j, "name", json_string(p->name));
    json_object_set_new(j, "ndevs", json_integer(p->ndevs));
    for (int i = 0; i < p->nblocks; i++) {
        const ts_block *b = &p->blocks[i];
        json_t *jb = json_object(), *devs = json_array();
        for (int k = 0; k < b->ndevices; k++)
            json_array_append_new(devs, json_integer(b->devices[k]));
        json_object_set_new(jb, "id", json_string(b->id));
        json_object_set_new(jb, "kind", json_string(ts_kind_name(b->kind)));
        json_object_set_new(jb, "span", json_integer(b->span));
        json_object_set_new(jb, "memory", json_integer(b->memory));
        json_object_set_new(jb, "devices", devs);
        json_array_append_new(blocks, jb);
    }
    for (int i = 0; i < p->nedges; i++) {
        const ts_edge *x = &p->edges[i];
        if (!x->delay && !x->distance) {
            json_array_append_new(edges,
                                  json_pack("[ss]", p->blocks[x->src].id, p->blocks[x->dst].id));
            continue;
        }
        json_t *je = json_pack("{ss ss}", "from", p->blocks[x->src].id, "to", p->blocks[x->dst].id);
        if (x->delay)
            json_object_set_new(je, "delay", json_integer(x->delay));
        if (x->distance)
            json_object_set_new(je, "distance", json_integer(x->distance));
        json_array_append_new(edges, je);
    }
    json_object_set_new(j, "blocks", blocks);
    json_object_set_new(j, "edges", edges);
    ts_placement_units_to_json(p, j);
    return j;
}

int ts_placement_load(const char *path, ts_placement **out, ts_err *e)
{
    json_t *j;
    *out = NULL;
    if (ts_json_read_file(path, &j, e))
        return e ? e->code : TS_EINPUT;
    int rc = ts_placement_from_json(j, path, out, e);
    json_decref(j);
    return rc;
}

int ts_placement_save(const ts_placement *p, const char *path, ts_err *e)
{
    json_t *j = ts_placement_to_json(p);
    if (!j)
        return ts_fail(e, TS_ESYS, "%s: out of memory", path);
    int rc = ts_json_write_file(j, path, e);
    json_decref(j);
    return rc;
}
