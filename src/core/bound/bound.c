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
 *  - pauses: blocks on every device stop all devices at once (see ts_bound_pauses below);
 *  - exclusive: windows of micro-batches on a device that the capacity keeps from overlapping
 *    lie one after another (proved in bound_exclusive.c);
 *  - cross: such windows of two devices, each holding a window of the other device that the
 *    other's windows keep away from, overlap only at their ends (proved in bound_cross.c);
 *  - warm-up: before a device's first freeing block can start, the capacity limits what it can
 *    run, and the rest of that stretch is idle; the same after its last allocating block (proved
 *    in bound_warmup.c).
 * One row per term (name and compute function) in ts_bound_terms, computed in enum order; the
 * memory term's work is in bound_memory.c, the device lists in bound_devblocks.c, both below.
 * Terms whose work would be large (instances, pairs of blocks) are skipped and reported as -1. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "bound_internal.h"
#include "ts_shard.h"

/* Work cap: instance-level paths (distance edges) up to this many instances. */
#define TS_BOUND_MAX_INSTANCES 2000000L

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

/* ---------------------------------------------------------------- the pauses term */

/* A block that runs on every device (a sharded embedding or loss) leaves no device free while
 * it runs, so in any valid schedule the N copies of such blocks fill disjoint stretches of time,
 * N x their spans in all, in which nothing else runs. Cut those stretches out of the timeline:
 * what is left is a schedule of the other blocks (the reduced placement of ts_shard.h, each path
 * through a removed block joined into one edge) that keeps every device's order and every
 * dependency, so it is at least the reduced placement's own bound. Hence
 *     makespan >= N x (sum of their spans) + bound(reduced, N).
 * Cutting time can shorten a gap below an edge's delay, so the reduced bound is taken with every
 * delay at 0; and removing the blocks' memory deltas can only lower a device's level when none
 * of them frees memory, so the capacity is kept only then. -1 in *out when no block runs on
 * every device. Returns -1 on allocation failure. */
static int ts_bound_pauses(const ts_placement *p, int n, const long *cap, long *out)
{
    *out = -1;
    ts_unshard u;
    ts_err e = {0};
    if (ts_unshard_make(p, &u, &e) != TS_OK)
        return -1;
    if (!u.reduced)
        return 0;
    long pauses = 0;
    bool frees = false;
    for (int i = 0; i < u.nremoved; i++) {
        pauses += p->blocks[u.removed[i]].span;
        frees |= p->blocks[u.removed[i]].memory < 0;
    }
    for (int i = 0; i < u.reduced->nedges; i++)
        u.reduced->edges[i].delay = 0;
    ts_bound rb;
    int rc = ts_bound_compute(u.reduced, n, frees ? NULL : cap, &rb);
    if (rc == 0)
        *out = (long)n * pauses + rb.value;
    ts_unshard_free(&u);
    return rc;
}

/* ---------------------------------------------------------------- the registry of terms */

/* What the terms of one bound share, made once: the device lists, and (for every term after
 * load) a topological order and the paths of one micro-batch. */
typedef struct {
    const ts_placement *p;
    int n;
    const long *cap;
    ts_devblocks db;
    int *topo;
    ts_bound_paths one, all;
    /* the paths the one-machine term reads: all micro-batches' when the recurrence made them */
    const ts_bound_paths *use;
} ts_bound_ctx;

/* A term: its value into *out (-1: not computed) and the device it was taken on into *dev (-1
 * for a term over all devices). Returns 0, or -1 on allocation failure. */
typedef int (*ts_bound_term_fn)(ts_bound_ctx *c, long *out, int *dev);

static int ts_term_load(ts_bound_ctx *c, long *out, int *dev)
{
    (void)dev;
    *out = ts_bound_load(c->p, c->n, &c->db);
    return 0;
}

static int ts_term_critical_path(ts_bound_ctx *c, long *out, int *dev)
{
    (void)dev;
    long cp = 0;
    for (int i = 0; i < c->p->nblocks; i++)
        if (c->one.est[i] + c->p->blocks[i].span + c->one.tail[i] > cp)
            cp = c->one.est[i] + c->p->blocks[i].span + c->one.tail[i];
    *out = cp;
    return 0;
}

/* Also makes the paths of all micro-batches for the one-machine term, which comes after it. */
static int ts_term_recurrence(ts_bound_ctx *c, long *out, int *dev)
{
    (void)dev;
    const ts_placement *p = c->p;
    int n = c->n, nb = p->nblocks;
    if (!ts_placement_has_distance_edges(p) || (long)n * nb > TS_BOUND_MAX_INSTANCES ||
        (long)n * p->nedges > 4 * TS_BOUND_MAX_INSTANCES)
        return 0;
    if (ts_bound_paths_make(p, n, c->topo, &c->all))
        return -1;
    long rec = 0;
    for (size_t i = 0; i < (size_t)n * nb; i++)
        if (c->all.est[i] + p->blocks[i % nb].span > rec)
            rec = c->all.est[i] + p->blocks[i % nb].span;
    *out = rec;
    c->use = &c->all;
    return 0;
}

static int ts_term_one_machine(ts_bound_ctx *c, long *out, int *dev)
{
    return ts_bound_one_machine(c->p, c->n, c->use, &c->db, out, dev);
}

static int ts_term_memory(ts_bound_ctx *c, long *out, int *dev)
{
    if (!c->cap)
        return 0;
    return ts_bound_memory_term(c->p, c->n, c->cap, c->one.est, c->one.tail, out, dev);
}

static int ts_term_exclusive(ts_bound_ctx *c, long *out, int *dev)
{
    if (!c->cap)
        return 0;
    return ts_bound_exclusive_term(c->p, c->n, c->cap, c->one.est, c->one.tail, out, dev);
}

static int ts_term_cross(ts_bound_ctx *c, long *out, int *dev)
{
    if (!c->cap)
        return 0;
    return ts_bound_cross_term(c->p, c->n, c->cap, c->one.est, c->one.tail, out, dev);
}

static int ts_term_warmup(ts_bound_ctx *c, long *out, int *dev)
{
    if (!c->cap)
        return 0;
    return ts_bound_warmup_term(c->p, c->n, c->cap, c->one.est, c->one.tail, &c->db, out, dev);
}

static int ts_term_pauses(ts_bound_ctx *c, long *out, int *dev)
{
    (void)dev;
    return ts_bound_pauses(c->p, c->n, c->cap, out);
}

/* One row per term, computed in this order (the one-machine term reads what the recurrence
 * made). paths: the term needs the paths of one micro-batch, which exist only for n >= 1 on an
 * acyclic placement with blocks; without them only the terms before are computed. */
static const struct {
    const char *name;
    ts_bound_term_fn compute;
    bool paths;
} ts_bound_terms[TS_BOUND_NTERMS] = {
    [TS_BOUND_LOAD] = {"load", ts_term_load, false},
    [TS_BOUND_CRITICAL_PATH] = {"critical_path", ts_term_critical_path, true},
    [TS_BOUND_RECURRENCE] = {"recurrence", ts_term_recurrence, true},
    [TS_BOUND_ONE_MACHINE] = {"one_machine", ts_term_one_machine, true},
    [TS_BOUND_MEMORY] = {"memory", ts_term_memory, true},
    [TS_BOUND_PAUSES] = {"pauses", ts_term_pauses, true},
    [TS_BOUND_EXCLUSIVE] = {"exclusive", ts_term_exclusive, true},
    [TS_BOUND_CROSS] = {"cross", ts_term_cross, true},
    [TS_BOUND_WARMUP] = {"warmup", ts_term_warmup, true},
};

const char *ts_bound_term_name(ts_bound_term t)
{
    return (int)t >= 0 && t < TS_BOUND_NTERMS ? ts_bound_terms[t].name : "unknown";
}

/* Makes c's topological order and one micro-batch's paths: 1 when made, 0 when the placement
 * has none (no micro-batch, no block, a cycle: no schedule), -1 on allocation failure. */
static int ts_bound_ctx_paths(ts_bound_ctx *c)
{
    int nb = c->p->nblocks;
    if (c->n < 1 || nb == 0)
        return 0;
    c->topo = malloc((size_t)nb * sizeof(int));
    if (!c->topo)
        return -1;
    if (ts_placement_topo(c->p, c->topo) != 0)
        return 0;
    if (ts_bound_paths_make(c->p, 1, c->topo, &c->one))
        return -1;
    c->use = &c->one;
    return 1;
}

int ts_bound_compute(const ts_placement *p, int n, const long *cap, ts_bound *b)
{
    for (int t = 0; t < TS_BOUND_NTERMS; t++) {
        b->term[t] = -1;
        b->device[t] = -1;
    }
    b->value = -1;
    b->binding = TS_BOUND_LOAD;
    ts_bound_ctx c = {.p = p, .n = n, .cap = cap};
    int rc = -1, paths = -2;
    if (ts_devblocks_make(p, NULL, &c.db))
        goto out;
    for (int t = 0; t < TS_BOUND_NTERMS; t++) {
        if (ts_bound_terms[t].paths && paths == -2)
            paths = ts_bound_ctx_paths(&c);
        if (ts_bound_terms[t].paths && paths < 0)
            goto out;
        /* without paths the load term is all we say */
        if (ts_bound_terms[t].paths && paths == 0)
            break;
        if (ts_bound_terms[t].compute(&c, &b->term[t], &b->device[t]))
            goto out;
    }
    rc = 0;
out:
    for (int t = 0; t < TS_BOUND_NTERMS; t++)
        if (b->term[t] > b->value) {
            b->value = b->term[t];
            b->binding = (ts_bound_term)t;
        }
    free(c.topo);
    ts_devblocks_free(&c.db);
    ts_bound_paths_free(&c.one);
    ts_bound_paths_free(&c.all);
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
