/* The lower bound: the maximum of the terms of ts_bound.h. Each is sound on its own:
 *  - load: a device runs N copies of its blocks, after its earliest block can start and before
 *    its latest block's tail;
 *  - critical path / recurrence: the longest path of one micro-batch, and of all N micro-batches
 *    when distance edges chain them (start(b, m) >= start(a, m - dist) + span + delay);
 *  - one machine: each device alone, with every instance's earliest release and tail from those
 *    paths and preemption allowed, is a relaxation solved exactly by Jackson's rule (run the
 *    released job with the longest tail);
 *  - memory: between the start of an allocating block a and the start of a later block f of the
 *    same micro-batch, the micro-batch holds at least h units on the device; at most c = the
 *    capacity over h such windows overlap, so some c-th of the N windows lie one after another;
 *  - pauses: see bound_pauses.c.
 * Terms whose work would be large (instances, pairs of blocks) are skipped and reported as -1. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "bound_internal.h"

/* Work cap: instance-level paths (distance edges) up to this many instances. */
#define TS_BOUND_MAX_INSTANCES 2000000L

static const char *const ts_bound_names[TS_BOUND_NTERMS] = {
    "load", "critical_path", "recurrence", "one_machine", "memory", "pauses"};

const char *ts_bound_term_name(ts_bound_term t)
{
    return (int)t >= 0 && t < TS_BOUND_NTERMS ? ts_bound_names[t] : "unknown";
}

int ts_devblocks_make(const ts_placement *p, const int *order, ts_devblocks *db)
{
    int nb = p->nblocks, nd = p->ndevs;
    db->off = calloc((size_t)nd + 2, sizeof(int));
    int *last = malloc(((size_t)nd + 1) * sizeof(int));
    size_t total = 0;
    for (int b = 0; b < nb; b++)
        total += (size_t)p->blocks[b].ndevices;
    db->list = malloc((total ? total : 1) * sizeof(int));
    if (!db->off || !last || !db->list) {
        free(last);
        ts_devblocks_free(db);
        return -1;
    }
    /* Two passes (count, then fill at off[d + 1]); a device listed twice or out of range in an
     * unchecked block counts as ts_block_on does: once, or not at all. */
    for (int pass = 0; pass < 2; pass++) {
        for (int d = 0; d < nd; d++)
            last[d] = -1;
        for (int i = 0; i < nb; i++) {
            int b = order ? order[i] : i;
            const ts_block *x = &p->blocks[b];
            for (int k = 0; k < x->ndevices; k++) {
                int d = x->devices[k];
                if (d < 0 || d >= nd || last[d] == b)
                    continue;
                last[d] = b;
                if (pass == 0)
                    db->off[d + 2]++;
                else
                    db->list[db->off[d + 1]++] = b;
            }
        }
        if (pass == 0)
            for (int d = 0; d < nd; d++)
                db->off[d + 2] += db->off[d + 1];
    }
    free(last);
    return 0;
}

void ts_devblocks_free(ts_devblocks *db)
{
    free(db->off);
    free(db->list);
    db->off = NULL;
    db->list = NULL;
}

/* The load term with the device lists of db. */
static long ts_bound_load(const ts_placement *p, int n, const ts_devblocks *db)
{
    int nb = p->nblocks, nd = p->ndevs;
    long *est = malloc((size_t)(nb ? nb : 1) * sizeof(long));
    long *tail = malloc((size_t)(nb ? nb : 1) * sizeof(long));
    long *load = malloc((size_t)(nd ? nd : 1) * sizeof(long));
    long best = -1;
    if (!est || !tail || !load)
        goto out;
    ts_placement_earliest(p, est);
    ts_placement_tail(p, tail);
    ts_placement_device_load(p, load);
    best = 0;
    for (int d = 0; d < nd; d++) {
        long head = LONG_MAX, tl = LONG_MAX;
        for (int k = db->off[d]; k < db->off[d + 1]; k++) {
            int b = db->list[k];
            if (est[b] < head)
                head = est[b];
            if (tail[b] < tl)
                tl = tail[b];
        }
        if (head == LONG_MAX)
            continue; /* an idle device bounds nothing */
        long lb = head + (long)n * load[d] + tl;
        if (lb > best)
            best = lb;
    }
out:
    free(est);
    free(tail);
    free(load);
    return best;
}

long ts_lower_bound_load(const ts_placement *p, int n)
{
    ts_devblocks db;
    if (ts_devblocks_make(p, NULL, &db))
        return -1;
    long v = ts_bound_load(p, n, &db);
    ts_devblocks_free(&db);
    return v;
}

/* Earliest start and tail of every instance, index m * nblocks + b. With distance edges these
 * differ per micro-batch; without, one micro-batch stands for all (nm == 1). */
typedef struct {
    int nm;
    long *est, *tail;
} ts_bound_paths;

static int ts_bound_paths_make(const ts_placement *p, int nm, const int *topo, ts_bound_paths *q)
{
    int nb = p->nblocks;
    int *off, *list;
    if (ts_placement_out_edges(p, &off, &list))
        return -1;
    size_t ni = (size_t)nm * (size_t)nb;
    q->nm = nm;
    q->est = calloc(ni ? ni : 1, sizeof(long));
    q->tail = calloc(ni ? ni : 1, sizeof(long));
    if (!q->est || !q->tail) {
        free(off);
        free(list);
        return -1;
    }
    /* Edges are relaxed from their source in topological order; a distance edge reaches an
     * earlier-computed micro-batch's successor only forwards in m, so m ascending is enough. */
    for (int m = 0; m < nm; m++)
        for (int i = 0; i < nb; i++) {
            int b = topo[i];
            long e0 = q->est[(size_t)m * nb + b] + p->blocks[b].span;
            for (int k = off[b]; k < off[b + 1]; k++) {
                const ts_edge *x = &p->edges[list[k]];
                if (m + x->distance >= nm)
                    continue;
                long *t = &q->est[(size_t)(m + x->distance) * nb + x->dst];
                if (e0 + x->delay > *t)
                    *t = e0 + x->delay;
            }
        }
    for (int m = nm - 1; m >= 0; m--)
        for (int i = nb - 1; i >= 0; i--) {
            int b = topo[i];
            long best = 0;
            for (int k = off[b]; k < off[b + 1]; k++) {
                const ts_edge *x = &p->edges[list[k]];
                if (m + x->distance >= nm)
                    continue;
                long t = x->delay + p->blocks[x->dst].span +
                         q->tail[(size_t)(m + x->distance) * nb + x->dst];
                if (t > best)
                    best = t;
            }
            q->tail[(size_t)m * nb + b] = best;
        }
    free(off);
    free(list);
    return 0;
}

static void ts_bound_paths_free(ts_bound_paths *q)
{
    free(q->est);
    free(q->tail);
}

/* One job of Jackson's rule: release, remaining processing, tail. */
typedef struct {
    long r, p, q;
} ts_job;

static int ts_job_by_release(const void *a, const void *b)
{
    const ts_job *x = a, *y = b;
    return x->r < y->r ? -1 : x->r > y->r;
}

/* Max-heap of job indices by tail. */
static void ts_heap_push(int *h, int *len, const ts_job *j, int v)
{
    int i = (*len)++;
    h[i] = v;
    while (i > 0 && j[h[(i - 1) / 2]].q < j[h[i]].q) {
        int t = h[i];
        h[i] = h[(i - 1) / 2];
        h[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
}

static int ts_heap_pop(int *h, int *len, const ts_job *j)
{
    int top = h[0], i = 0;
    h[0] = h[--(*len)];
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        if (l < *len && j[h[l]].q > j[h[m]].q)
            m = l;
        if (r < *len && j[h[r]].q > j[h[m]].q)
            m = r;
        if (m == i)
            break;
        int t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
    return top;
}

/* Jackson's preemptive schedule: max over jobs of completion + tail, optimal for one machine
 * with releases and tails when preemption is allowed. jobs are sorted by release here. */
static long ts_jackson(ts_job *jobs, int nj, int *heap)
{
    qsort(jobs, (size_t)nj, sizeof *jobs, ts_job_by_release);
    long t = 0, best = 0;
    int next = 0, len = 0;
    while (next < nj || len > 0) {
        if (len == 0 && jobs[next].r > t)
            t = jobs[next].r;
        while (next < nj && jobs[next].r <= t)
            ts_heap_push(heap, &len, jobs, next++);
        int j = ts_heap_pop(heap, &len, jobs);
        long until = next < nj ? jobs[next].r : LONG_MAX;
        if (t + jobs[j].p <= until) {
            t += jobs[j].p;
            if (t + jobs[j].q > best)
                best = t + jobs[j].q;
        } else {
            jobs[j].p -= until - t;
            t = until;
            ts_heap_push(heap, &len, jobs, j);
        }
    }
    return best;
}

/* The one-machine term: per device, Jackson over its instances (identical instances of one
 * block merged into one job, which preemption makes equivalent). */
static int ts_bound_one_machine(const ts_placement *p, int n, const ts_bound_paths *q,
                                const ts_devblocks *db, long *out, int *dev)
{
    int nb = p->nblocks;
    size_t cap = (size_t)q->nm * (size_t)nb;
    ts_job *jobs = malloc((cap ? cap : 1) * sizeof *jobs);
    int *heap = malloc((cap ? cap : 1) * sizeof *heap);
    if (!jobs || !heap) {
        free(jobs);
        free(heap);
        return -1;
    }
    *out = 0;
    *dev = -1;
    for (int d = 0; d < p->ndevs; d++) {
        int nj = 0;
        for (int kb = db->off[d]; kb < db->off[d + 1]; kb++) {
            int b = db->list[kb];
            for (int m = 0; m < q->nm; m++) {
                size_t i = (size_t)m * nb + b;
                /* one row of paths stands for every micro-batch when nm == 1 */
                long copies = q->nm == 1 ? n : 1;
                ts_job j = {q->est[i], copies * p->blocks[b].span, q->tail[i]};
                if (nj > 0 && jobs[nj - 1].r == j.r && jobs[nj - 1].q == j.q)
                    jobs[nj - 1].p += j.p;
                else
                    jobs[nj++] = j;
            }
        }
        if (nj == 0)
            continue;
        long v = ts_jackson(jobs, nj, heap);
        if (v > *out) {
            *out = v;
            *dev = d;
        }
    }
    free(jobs);
    free(heap);
    return 0;
}

int ts_bound_compute(const ts_placement *p, int n, const long *cap, ts_bound *b)
{
    int nb = p->nblocks;
    for (int t = 0; t < TS_BOUND_NTERMS; t++) {
        b->term[t] = -1;
        b->device[t] = -1;
    }
    b->value = -1;
    b->binding = TS_BOUND_LOAD;
    ts_devblocks db = {0};
    ts_bound_paths one = {0}, all = {0};
    int *topo = NULL;
    int rc = -1;
    if (ts_devblocks_make(p, NULL, &db))
        goto out;
    b->term[TS_BOUND_LOAD] = ts_bound_load(p, n, &db);
    if (n < 1 || nb == 0) {
        rc = 0;
        goto out;
    }
    topo = malloc((size_t)nb * sizeof(int));
    if (!topo)
        goto out;
    if (ts_placement_topo(p, topo) != 0) {
        rc = 0; /* a cyclic placement has no schedule; the load term is all we say */
        goto out;
    }
    if (ts_bound_paths_make(p, 1, topo, &one))
        goto out;
    long cp = 0;
    for (int i = 0; i < nb; i++)
        if (one.est[i] + p->blocks[i].span + one.tail[i] > cp)
            cp = one.est[i] + p->blocks[i].span + one.tail[i];
    b->term[TS_BOUND_CRITICAL_PATH] = cp;
    const ts_bound_paths *use = &one;
    if (ts_placement_has_distance_edges(p) && (long)n * nb <= TS_BOUND_MAX_INSTANCES &&
        (long)n * p->nedges <= 4 * TS_BOUND_MAX_INSTANCES) {
        if (ts_bound_paths_make(p, n, topo, &all))
            goto out;
        long rec = 0;
        for (size_t i = 0; i < (size_t)n * nb; i++)
            if (all.est[i] + p->blocks[i % nb].span > rec)
                rec = all.est[i] + p->blocks[i % nb].span;
        b->term[TS_BOUND_RECURRENCE] = rec;
        use = &all;
    }
    if (ts_bound_one_machine(p, n, use, &db, &b->term[TS_BOUND_ONE_MACHINE],
                             &b->device[TS_BOUND_ONE_MACHINE]))
        goto out;
    if (cap && ts_bound_memory_term(p, n, cap, one.est, one.tail, &b->term[TS_BOUND_MEMORY],
                                    &b->device[TS_BOUND_MEMORY]))
        goto out;
    if (ts_bound_pauses_term(p, n, cap, &b->term[TS_BOUND_PAUSES]))
        goto out;
    rc = 0;
out:
    for (int t = 0; t < TS_BOUND_NTERMS; t++)
        if (b->term[t] > b->value) {
            b->value = b->term[t];
            b->binding = (ts_bound_term)t;
        }
    free(topo);
    ts_devblocks_free(&db);
    ts_bound_paths_free(&one);
    ts_bound_paths_free(&all);
    return rc;
}

long ts_bound_value(const ts_placement *p, int n, const long *cap)
{
    ts_bound b;
    ts_bound_compute(p, n, cap, &b);
    return b.value;
}

long ts_lower_bound(const ts_placement *p, int n)
{
    return ts_bound_value(p, n, NULL);
}
