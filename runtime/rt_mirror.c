/* Pairing rule: a forward block at height h (longest forward path to a forward sink) pairs with
 * the backward block at depth h (longest backward path from a backward source) on the same
 * devices. The pairing must be unique and every edge must agree with it; forward blocks left
 * unpaired are frozen (e.g. finetune's embedding) and may only precede other frozen blocks. */
#include "rt_mirror.h"

#include <stdlib.h>
#include <string.h>

void ts_rt_mirror_free(ts_rt_mirror *m)
{
    if (!m)
        return;
    free(m->partner);
    free(m->source);
    free(m->sink);
    memset(m, 0, sizeof *m);
}

static bool ts_rt_same_devices(const ts_block *a, const ts_block *b)
{
    return a->ndevices == b->ndevices &&
           memcmp(a->devices, b->devices, sizeof(int) * (size_t)a->ndevices) == 0;
}

static bool ts_rt_has_edge(const ts_placement *p, int a, int b)
{
    for (int k = 0; k < p->nedges; k++)
        if (p->edges[k].src == a && p->edges[k].dst == b)
            return true;
    return false;
}

/* Longest path lengths, in edges, within the sub-graph of one kind. forward_height: from the
 * block to a sink of that kind; otherwise from a source of that kind to the block. */
static void ts_rt_kind_depths(const ts_placement *p, const int *topo, ts_kind kind, bool height,
                              int *d)
{
    for (int i = 0; i < p->nblocks; i++)
        d[i] = 0;
    for (int step = 0; step < p->nblocks; step++) {
        int b = height ? topo[p->nblocks - 1 - step] : topo[step];
        if (p->blocks[b].kind != kind)
            continue;
        for (int k = 0; k < p->nedges; k++) {
            const ts_edge *ed = &p->edges[k];
            if (p->blocks[ed->src].kind != kind || p->blocks[ed->dst].kind != kind)
                continue;
            if (height && ed->src == b && d[ed->dst] + 1 > d[b])
                d[b] = d[ed->dst] + 1;
            if (!height && ed->dst == b && d[ed->src] + 1 > d[b])
                d[b] = d[ed->src] + 1;
        }
    }
}

/* Only forward and backward blocks, and no edges between micro-batches. */
static int ts_rt_check_kinds(const ts_placement *p, ts_err *e)
{
    for (int b = 0; b < p->nblocks; b++)
        if (p->blocks[b].kind == TS_KIND_OTHER)
            return ts_fail(e, TS_EINPUT,
                           "placement '%s' is not mirror-shaped: block %s is neither forward nor "
                           "backward, so the train workload cannot map it to a layer",
                           p->name, p->blocks[b].id);
    for (int k = 0; k < p->nedges; k++)
        if (p->edges[k].distance != 0)
            return ts_fail(e, TS_EINPUT,
                           "placement '%s': the train workload does not support edges between "
                           "micro-batches (%s -> %s)",
                           p->name, p->blocks[p->edges[k].src].id, p->blocks[p->edges[k].dst].id);
    return TS_OK;
}

/* Each backward block's one forward partner: same devices, forward height = backward depth. */
static int ts_rt_pair_blocks(const ts_placement *p, const int *hf, const int *db, ts_rt_mirror *m,
                             ts_err *e)
{
    int n = p->nblocks;
    for (int b = 0; b < n; b++)
        m->partner[b] = -1;
    for (int b = 0; b < n; b++) {
        if (p->blocks[b].kind != TS_KIND_BACKWARD)
            continue;
        int found = -1, count = 0;
        for (int f = 0; f < n; f++)
            if (p->blocks[f].kind == TS_KIND_FORWARD && hf[f] == db[b] &&
                ts_rt_same_devices(&p->blocks[f], &p->blocks[b])) {
                found = f;
                count++;
            }
        if (count != 1 || m->partner[found] >= 0)
            return ts_fail(e, TS_EINPUT,
                           "placement '%s' is not mirror-shaped: backward block %s has %s forward "
                           "block on the same devices at the mirrored position",
                           p->name, p->blocks[b].id, count == 0 ? "no" : "more than one");
        m->partner[b] = found;
        m->partner[found] = b;
    }
    return TS_OK;
}

/* Why edge a -> c breaks the mirror (NULL when it agrees); marks forward sources and sinks. */
static const char *ts_rt_edge_breaks_mirror(const ts_placement *p, ts_rt_mirror *m, int a, int c)
{
    ts_kind ka = p->blocks[a].kind, kc = p->blocks[c].kind;
    if (ka == TS_KIND_FORWARD && kc == TS_KIND_FORWARD) {
        m->sink[a] = false;
        m->source[c] = false;
        if (m->partner[a] >= 0 &&
            (m->partner[c] < 0 || !ts_rt_has_edge(p, m->partner[c], m->partner[a])))
            return "its gradient has no mirrored backward edge";
        return NULL;
    }
    if (ka == TS_KIND_BACKWARD && kc == TS_KIND_BACKWARD)
        return ts_rt_has_edge(p, m->partner[c], m->partner[a]) ? NULL
                                                               : "it mirrors no forward edge";
    if (ka == TS_KIND_FORWARD && kc == TS_KIND_BACKWARD)
        return m->partner[a] == c ? NULL : "a forward output may only feed its own backward block";
    return "a backward block feeds a forward block";
}

/* Every edge agrees with the pairing, and each last forward block feeds its own backward block. */
static int ts_rt_check_edges(const ts_placement *p, ts_rt_mirror *m, ts_err *e)
{
    for (int b = 0; b < p->nblocks; b++)
        if (p->blocks[b].kind == TS_KIND_FORWARD)
            m->source[b] = m->sink[b] = true;
    for (int k = 0; k < p->nedges; k++) {
        int a = p->edges[k].src, c = p->edges[k].dst;
        const char *why = ts_rt_edge_breaks_mirror(p, m, a, c);
        if (why)
            return ts_fail(e, TS_EINPUT, "placement '%s' is not mirror-shaped at edge %s -> %s: %s",
                           p->name, p->blocks[a].id, p->blocks[c].id, why);
    }
    for (int b = 0; b < p->nblocks; b++) {
        if (p->blocks[b].kind != TS_KIND_FORWARD || !m->sink[b])
            continue;
        if (m->partner[b] < 0 || !ts_rt_has_edge(p, b, m->partner[b]))
            return ts_fail(e, TS_EINPUT,
                           "placement '%s' is not mirror-shaped: the last forward block %s must "
                           "feed its own backward block (where the loss is taken)",
                           p->name, p->blocks[b].id);
    }
    return TS_OK;
}

int ts_rt_mirror_build(const ts_placement *p, ts_rt_mirror *m, ts_err *e)
{
    memset(m, 0, sizeof *m);
    int n = p->nblocks;
    m->nblocks = n;
    m->partner = malloc(sizeof(int) * (size_t)n);
    m->source = calloc((size_t)n, sizeof(bool));
    m->sink = calloc((size_t)n, sizeof(bool));
    int *topo = malloc(sizeof(int) * (size_t)n);
    int *hf = malloc(sizeof(int) * (size_t)n);
    int *db = malloc(sizeof(int) * (size_t)n);
    int rc = TS_OK;
    if (!m->partner || !m->source || !m->sink || !topo || !hf || !db)
        rc = ts_fail(e, TS_ESYS, "train model: out of memory");
    if (rc == TS_OK)
        rc = ts_rt_check_kinds(p, e);
    if (rc == TS_OK && ts_placement_topo(p, topo) != 0)
        rc = ts_fail(e, TS_EINPUT, "placement '%s' has a cycle", p->name);
    if (rc == TS_OK) {
        ts_rt_kind_depths(p, topo, TS_KIND_FORWARD, true, hf);
        ts_rt_kind_depths(p, topo, TS_KIND_BACKWARD, false, db);
        rc = ts_rt_pair_blocks(p, hf, db, m, e);
    }
    if (rc == TS_OK)
        rc = ts_rt_check_edges(p, m, e);
    free(topo);
    free(hf);
    free(db);
    if (rc != TS_OK)
        ts_rt_mirror_free(m);
    return rc;
}
