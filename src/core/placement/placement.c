/* ts_placement: building (blocks, edges), cloning, lookups by id, topological and chain orders,
 * earliest starts, tails and per-device loads. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "ts_placement.h"

static const char *const ts_kind_names[] = {"forward", "backward", "other"};

const char *ts_kind_name(ts_kind k)
{
    return (k >= TS_KIND_FORWARD && k <= TS_KIND_OTHER) ? ts_kind_names[k] : "?";
}

int ts_kind_parse(const char *s, ts_kind *out)
{
    for (int i = 0; i <= TS_KIND_OTHER; i++)
        if (!strcmp(s, ts_kind_names[i])) {
            *out = (ts_kind)i;
            return 0;
        }
    return -1;
}

ts_placement *ts_placement_new(const char *name, int ndevs)
{
    ts_placement *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->name = strdup(name ? name : "placement");
    if (!p->name) {
        free(p);
        return NULL;
    }
    p->ndevs = ndevs;
    return p;
}

void ts_placement_free(ts_placement *p)
{
    if (!p)
        return;
    for (int i = 0; i < p->nblocks; i++) {
        free(p->blocks[i].id);
        free(p->blocks[i].devices);
    }
    free(p->blocks);
    free(p->edges);
    free(p->memory_unit_bytes);
    free(p->capacity_per_device);
    free(p->name);
    free(p);
}

ts_placement *ts_placement_clone(const ts_placement *p)
{
    ts_placement *q = ts_placement_new(p->name, p->ndevs);
    if (!q)
        return NULL;
    for (int i = 0; i < p->nblocks; i++) {
        const ts_block *b = &p->blocks[i];
        if (ts_placement_add_block(q, b->id, b->kind, b->span, b->memory, b->ndevices, b->devices) <
            0)
            goto fail;
    }
    for (int i = 0; i < p->nedges; i++) {
        const ts_edge *x = &p->edges[i];
        if (ts_placement_add_edge(q, x->src, x->dst, x->delay, x->distance) < 0)
            goto fail;
    }
    if (ts_placement_units_copy(q, p))
        goto fail;
    return q;
fail:
    ts_placement_free(q);
    return NULL;
}

static int ts_cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int ts_placement_add_block(ts_placement *p, const char *id, ts_kind kind, int span, int memory,
                           int ndevices, const int *devices)
{
    if (p->nblocks == p->cap_blocks) {
        int cap = p->cap_blocks ? 2 * p->cap_blocks : 16;
        ts_block *nb = realloc(p->blocks, (size_t)cap * sizeof *nb);
        if (!nb)
            return -1;
        p->blocks = nb;
        p->cap_blocks = cap;
    }
    ts_block *b = &p->blocks[p->nblocks];
    memset(b, 0, sizeof *b);
    b->id = strdup(id);
    b->devices = malloc((size_t)(ndevices > 0 ? ndevices : 1) * sizeof(int));
    if (!b->id || !b->devices) {
        free(b->id);
        free(b->devices);
        return -1;
    }
    if (ndevices > 0)
        memcpy(b->devices, devices, (size_t)ndevices * sizeof(int));
    qsort(b->devices, (size_t)(ndevices > 0 ? ndevices : 0), sizeof(int), ts_cmp_int);
    b->kind = kind;
    b->span = span;
    b->memory = memory;
    b->ndevices = ndevices;
    return p->nblocks++;
}

int ts_placement_add_edge(ts_placement *p, int src, int dst, int delay, int distance)
{
    if (p->nedges == p->cap_edges) {
        int cap = p->cap_edges ? 2 * p->cap_edges : 16;
        ts_edge *ne = realloc(p->edges, (size_t)cap * sizeof *ne);
        if (!ne)
            return -1;
        p->edges = ne;
        p->cap_edges = cap;
    }
    p->edges[p->nedges] = (ts_edge){src, dst, delay, distance};
    return p->nedges++;
}

int ts_placement_find(const ts_placement *p, const char *id)
{
    for (int i = 0; i < p->nblocks; i++)
        if (!strcmp(p->blocks[i].id, id))
            return i;
    return -1;
}

bool ts_block_on(const ts_block *b, int dev)
{
    for (int i = 0; i < b->ndevices; i++)
        if (b->devices[i] == dev)
            return true;
    return false;
}

bool ts_block_same_devices(const ts_block *a, const ts_block *b)
{
    if (a->ndevices != b->ndevices)
        return false;
    for (int i = 0; i < a->ndevices; i++)
        if (a->devices[i] != b->devices[i])
            return false;
    return true;
}

bool ts_placement_has_distance_edges(const ts_placement *p)
{
    for (int i = 0; i < p->nedges; i++)
        if (p->edges[i].distance > 0)
            return true;
    return false;
}

int ts_placement_out_edges(const ts_placement *p, int **off, int **list)
{
    int nb = p->nblocks;
    *off = calloc((size_t)nb + 1, sizeof(int));
    *list = malloc((size_t)(p->nedges ? p->nedges : 1) * sizeof(int));
    if (!*off || !*list) {
        free(*off);
        free(*list);
        *off = *list = NULL;
        return -1;
    }
    for (int j = 0; j < p->nedges; j++)
        (*off)[p->edges[j].src + 1]++;
    for (int b = 0; b < nb; b++)
        (*off)[b + 1] += (*off)[b];
    int *fill = malloc((size_t)nb * sizeof(int) + 1);
    if (!fill) {
        free(*off);
        free(*list);
        *off = *list = NULL;
        return -1;
    }
    memcpy(fill, *off, (size_t)nb * sizeof(int));
    for (int j = 0; j < p->nedges; j++)
        (*list)[fill[p->edges[j].src]++] = j;
    free(fill);
    return 0;
}

int ts_placement_peel(const ts_placement *p, int *order, int *indeg)
{
    int n = p->nblocks, *off = NULL, *list = NULL;
    bool indexed = ts_placement_out_edges(p, &off, &list) == 0;
    for (int b = 0; b < n; b++)
        indeg[b] = 0;
    for (int i = 0; i < p->nedges; i++)
        if (p->edges[i].distance == 0)
            indeg[p->edges[i].dst]++;
    int head = 0, tail = 0;
    for (int b = 0; b < n; b++)
        if (!indeg[b])
            order[tail++] = b;
    /* Without the index (out of memory) every edge is scanned per block: slower, same order. */
    while (head < tail) {
        int b = order[head++];
        int lo = indexed ? off[b] : 0, hi = indexed ? off[b + 1] : p->nedges;
        for (int k = lo; k < hi; k++) {
            const ts_edge *x = &p->edges[indexed ? list[k] : k];
            if (x->distance == 0 && x->src == b && --indeg[x->dst] == 0)
                order[tail++] = x->dst;
        }
    }
    free(off);
    free(list);
    return tail;
}

int ts_placement_topo(const ts_placement *p, int *order)
{
    int *indeg = malloc((size_t)(p->nblocks ? p->nblocks : 1) * sizeof(int));
    if (!indeg)
        return -1;
    int placed = ts_placement_peel(p, order, indeg);
    free(indeg);
    return placed == p->nblocks ? 0 : -1;
}

void ts_placement_earliest(const ts_placement *p, long *est)
{
    int n = p->nblocks;
    int *order = malloc((size_t)(n ? n : 1) * sizeof(int));
    for (int b = 0; b < n; b++)
        est[b] = 0;
    if (!order || ts_placement_topo(p, order) != 0) {
        free(order);
        return;
    }
    int *off = NULL, *list = NULL;
    bool indexed = ts_placement_out_edges(p, &off, &list) == 0;
    for (int i = 0; i < n; i++) {
        int b = order[i];
        int lo = indexed ? off[b] : 0, hi = indexed ? off[b + 1] : p->nedges;
        for (int k = lo; k < hi; k++) {
            const ts_edge *x = &p->edges[indexed ? list[k] : k];
            if (x->distance == 0 && x->src == b) {
                long t = est[b] + p->blocks[b].span + x->delay;
                if (t > est[x->dst])
                    est[x->dst] = t;
            }
        }
    }
    free(off);
    free(list);
    free(order);
}

void ts_placement_tail(const ts_placement *p, long *tail)
{
    int n = p->nblocks;
    int *order = malloc((size_t)(n ? n : 1) * sizeof(int));
    for (int b = 0; b < n; b++)
        tail[b] = 0;
    if (!order || ts_placement_topo(p, order) != 0) {
        free(order);
        return;
    }
    int *off = NULL, *list = NULL;
    bool indexed = ts_placement_out_edges(p, &off, &list) == 0;
    for (int i = n - 1; i >= 0; i--) {
        int b = order[i];
        int lo = indexed ? off[b] : 0, hi = indexed ? off[b + 1] : p->nedges;
        for (int k = lo; k < hi; k++) {
            const ts_edge *x = &p->edges[indexed ? list[k] : k];
            if (x->distance == 0 && x->src == b) {
                long t = x->delay + p->blocks[x->dst].span + tail[x->dst];
                if (t > tail[b])
                    tail[b] = t;
            }
        }
    }
    free(off);
    free(list);
    free(order);
}

typedef struct {
    long est;
    int dev, index;
} ts_chain_key;

static int ts_chain_cmp(const void *a, const void *b)
{
    const ts_chain_key *x = a, *y = b;
    if (x->est != y->est)
        return x->est < y->est ? -1 : 1;
    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

/* The blocks sorted by (earliest start, lowest device, index). With positive spans a successor
 * always starts later than its predecessor, so the sorted order is topological, zero-delay ties
 * included: it is the order that repeatedly taking the smallest ready block gives. */
int ts_placement_chain_order(const ts_placement *p, int *order)
{
    int n = p->nblocks;
    long *est = malloc((size_t)(n ? n : 1) * sizeof(long));
    int *topo = malloc((size_t)(n ? n : 1) * sizeof(int));
    ts_chain_key *key = malloc((size_t)(n ? n : 1) * sizeof *key);
    int rc = -1;
    if (!est || !topo || !key || ts_placement_topo(p, topo) != 0)
        goto out;
    ts_placement_earliest(p, est);
    for (int b = 0; b < n; b++)
        key[b] = (ts_chain_key){est[b], p->blocks[b].devices[0], b};
    qsort(key, (size_t)n, sizeof *key, ts_chain_cmp);
    for (int k = 0; k < n; k++)
        order[k] = key[k].index;
    rc = 0;
out:
    free(est);
    free(topo);
    free(key);
    return rc;
}

void ts_placement_device_load(const ts_placement *p, long *load)
{
    for (int d = 0; d < p->ndevs; d++)
        load[d] = 0;
    for (int b = 0; b < p->nblocks; b++)
        for (int i = 0; i < p->blocks[b].ndevices; i++)
            load[p->blocks[b].devices[i]] += p->blocks[b].span;
}

long ts_placement_max_load(const ts_placement *p)
{
    long *load = malloc((size_t)(p->ndevs > 0 ? p->ndevs : 1) * sizeof(long));
    long m = 0;
    if (!load)
        return -1;
    ts_placement_device_load(p, load);
    for (int d = 0; d < p->ndevs; d++)
        if (load[d] > m)
            m = load[d];
    free(load);
    return m;
}
