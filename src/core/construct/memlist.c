/* The memory-aware list schedule (ts_memlist.h). The solver's greedy start (models/iset.c) picks,
 * among all ready instances, the one that can start first; with the weight-gradient passes as eager
 * as the input-gradient ones, and every instance a candidate, it grows quadratic and loses the
 * critical path where memory binds (34,192 against a bound of 28,054 on GPT-3 175B's zero-bubble
 * placement on 128 GPUs, N 1024, where this gives 29,242). Here time moves step by step and each
 * block offers only its next micro-batch, so a step costs O(blocks). Placements with sharded blocks
 * beside single-device stages are refused (ts_ml_mixed). */
#include <stdlib.h>
#include <string.h>
#include "ts_memlist.h"
#include "ts_construct_caps.h"

/* The priority classes of the header's rule. */
enum { TS_ML_BACKWARD, TS_ML_FORWARD, TS_ML_WEIGHT, TS_ML_CLASSES };

typedef struct {
    const ts_placement *p;
    int n;
    const long *cap;
    int *cls; /* per block: its class */
    int *out_delay; /* per block: the longest delay on its outgoing edges */
    int *in_off, *in_edge; /* incoming edges of block b: in_edge[in_off[b] .. in_off[b+1]) */
    int *next; /* per block: its next micro-batch */
    long *end; /* per instance b * n + m: its end, -1 before it starts */
    long *free_at; /* per device */
    long *lvl; /* per device: running memory */
    int *cand; /* scratch: the blocks startable at this step */
} ts_ml;

static void ts_ml_free(ts_ml *s)
{
    free(s->cls);
    free(s->out_delay);
    free(s->in_off);
    free(s->in_edge);
    free(s->next);
    free(s->end);
    free(s->free_at);
    free(s->lvl);
    free(s->cand);
}

static int ts_ml_init(ts_ml *s, const ts_placement *p, int n, const long *cap)
{
    int nb = p->nblocks, D = p->ndevs;
    memset(s, 0, sizeof *s);
    s->p = p;
    s->n = n;
    s->cap = cap;
    s->cls = malloc((size_t)nb * sizeof(int));
    s->out_delay = calloc((size_t)nb, sizeof(int));
    s->in_off = calloc((size_t)nb + 1, sizeof(int));
    s->in_edge = malloc(((size_t)p->nedges + 1) * sizeof(int));
    s->next = calloc((size_t)nb, sizeof(int));
    s->end = malloc((size_t)nb * (size_t)n * sizeof(long));
    s->free_at = calloc((size_t)D, sizeof(long));
    s->lvl = calloc((size_t)D, sizeof(long));
    s->cand = malloc((size_t)nb * sizeof(int));
    int *fill = malloc(((size_t)nb + 1) * sizeof(int));
    bool *waited = calloc((size_t)nb, sizeof(bool));
    if (!s->cls || !s->out_delay || !s->in_off || !s->in_edge || !s->next || !s->end ||
        !s->free_at || !s->lvl || !s->cand || !fill || !waited) {
        free(fill);
        free(waited);
        return -1;
    }
    for (long i = 0; i < (long)nb * n; i++)
        s->end[i] = -1;
    for (int i = 0; i < p->nedges; i++) {
        s->in_off[p->edges[i].dst + 1]++;
        waited[p->edges[i].src] = true;
        if (p->edges[i].delay > s->out_delay[p->edges[i].src])
            s->out_delay[p->edges[i].src] = p->edges[i].delay;
    }
    for (int b = 0; b < nb; b++)
        s->in_off[b + 1] += s->in_off[b];
    memcpy(fill, s->in_off, ((size_t)nb + 1) * sizeof(int));
    for (int i = 0; i < p->nedges; i++)
        s->in_edge[fill[p->edges[i].dst]++] = i;
    for (int b = 0; b < nb; b++)
        s->cls[b] = p->blocks[b].kind != TS_KIND_BACKWARD ? TS_ML_FORWARD
                    : waited[b]                           ? TS_ML_BACKWARD
                                                          : TS_ML_WEIGHT;
    free(fill);
    free(waited);
    return 0;
}

/* Whether block b's next instance may start at step t: inputs ended (with their delays), its
 * devices free and, when it allocates, room on each of them. */
static bool ts_ml_startable(const ts_ml *s, int b, long t)
{
    const ts_placement *p = s->p;
    const ts_block *blk = &p->blocks[b];
    int m = s->next[b];
    if (m >= s->n)
        return false;
    for (int i = 0; i < blk->ndevices; i++) {
        int d = blk->devices[i];
        if (s->free_at[d] > t)
            return false;
        if (s->cap && blk->memory > 0 && s->lvl[d] + blk->memory > s->cap[d])
            return false;
    }
    for (int k = s->in_off[b]; k < s->in_off[b + 1]; k++) {
        const ts_edge *g = &p->edges[s->in_edge[k]];
        int src_m = m - g->distance;
        if (src_m < 0)
            continue;
        long e = s->end[(long)g->src * s->n + src_m];
        if (e < 0 || e + g->delay > t)
            return false;
    }
    return true;
}

/* Whether some device runs blocks on different sets of devices (a sharded block on every device
 * beside single-device stages). There the rule starves the sharded block: the older
 * micro-batches' single-device passes, first by priority, never leave all its devices free at
 * once, and the micro-batches run one after the other (nnshape: 4,608 against a bound of 1,052).
 * Tensor-parallel stages, whose blocks all share one set, are fine. -1 on allocation failure. */
static int ts_ml_mixed(const ts_placement *p)
{
    int *first = malloc((size_t)p->ndevs * sizeof(int));
    if (!first)
        return -1;
    for (int d = 0; d < p->ndevs; d++)
        first[d] = -1;
    int mixed = 0;
    for (int b = 0; b < p->nblocks && !mixed; b++)
        for (int i = 0; i < p->blocks[b].ndevices && !mixed; i++) {
            int d = p->blocks[b].devices[i];
            if (first[d] < 0)
                first[d] = b;
            else
                mixed = !ts_block_same_devices(&p->blocks[first[d]], &p->blocks[b]);
        }
    free(first);
    return mixed;
}

static int ts_ml_cmp_next(const int *next, int a, int b)
{
    if (next[a] != next[b])
        return next[a] < next[b] ? -1 : 1;
    return (a > b) - (a < b);
}

/* Sorts the first k candidates by (next micro-batch, block): insertion sort, since a step has
 * few of them. */
static void ts_ml_sort(const ts_ml *s, int k)
{
    for (int i = 1; i < k; i++)
        for (int j = i; j > 0 && ts_ml_cmp_next(s->next, s->cand[j - 1], s->cand[j]) > 0; j--) {
            int x = s->cand[j];
            s->cand[j] = s->cand[j - 1];
            s->cand[j - 1] = x;
        }
}

/* Starts what the rule starts at step t; returns how many instances it started, and raises
 * *horizon to the latest end (plus outgoing delay) of what it started. */
static long ts_ml_step(ts_ml *s, long t, long *horizon, long *start)
{
    const ts_placement *p = s->p;
    long started = 0;
    for (int c = 0; c < TS_ML_CLASSES; c++) {
        int k = 0;
        for (int b = 0; b < p->nblocks; b++)
            if (s->cls[b] == c && ts_ml_startable(s, b, t))
                s->cand[k++] = b;
        ts_ml_sort(s, k);
        for (int i = 0; i < k; i++) {
            int b = s->cand[i];
            /* an earlier start this step may have taken a device or the room */
            if (!ts_ml_startable(s, b, t))
                continue;
            const ts_block *blk = &p->blocks[b];
            long id = (long)b * s->n + s->next[b];
            start[id] = t;
            s->end[id] = t + blk->span;
            s->next[b]++;
            for (int j = 0; j < blk->ndevices; j++) {
                s->free_at[blk->devices[j]] = t + blk->span;
                s->lvl[blk->devices[j]] += blk->memory;
            }
            long h = t + blk->span + s->out_delay[b];
            if (h > *horizon)
                *horizon = h;
            started++;
        }
    }
    return started;
}

int ts_memlist_schedule(const ts_placement *p, int n, const long *cap, ts_schedule **out, ts_err *e)
{
    *out = NULL;
    int nb = p->nblocks;
    if (n < 1 || nb < 1)
        return ts_fail(e, TS_EINPUT, "memlist: nothing to schedule");
    int mixed = ts_ml_mixed(p);
    if (mixed < 0)
        return ts_fail(e, TS_ESYS, "memlist: out of memory");
    if (mixed)
        return ts_fail(e, TS_EINPUT,
                       "memlist: '%s' has a device running blocks on different device sets",
                       p->name);
    long total = (long)nb * n;
    ts_ml s;
    long *start = malloc((size_t)total * sizeof(long));
    int rc = TS_OK;
    if (!start || ts_ml_init(&s, p, n, cap) != 0) {
        rc = ts_fail(e, TS_ESYS, "memlist: out of memory");
        goto out;
    }
    long placed = 0, horizon = 0;
    for (long t = 0; placed < total; t++) {
        if (t * (long)nb > TS_MEMLIST_MAX_WORK) {
            rc = ts_fail(e, TS_ENOANSWER, "memlist: %ld steps of %d blocks is too long to time", t,
                         nb);
            goto out;
        }
        long k = ts_ml_step(&s, t, &horizon, start);
        placed += k;
        /* nothing started, nothing running and nothing in flight: no later step differs */
        if (!k && t >= horizon && placed < total) {
            rc = ts_fail(e, TS_ENOANSWER,
                         "memlist: stalled at step %ld: the next forward passes do not fit the "
                         "memory and nothing is left to free it",
                         t);
            goto out;
        }
    }
    ts_schedule *sc = ts_schedule_new(p, n);
    if (!sc) {
        rc = ts_fail(e, TS_ESYS, "memlist: out of memory");
        goto out;
    }
    if (cap)
        ts_schedule_set_memory(sc, cap);
    for (int b = 0; b < nb && rc == TS_OK; b++)
        for (int m = 0; m < n && rc == TS_OK; m++)
            if (ts_schedule_add(sc, b, m, start[(long)b * n + m]))
                rc = ts_fail(e, TS_ESYS, "memlist: out of memory");
    if (rc != TS_OK) {
        ts_schedule_free(sc);
        goto out;
    }
    ts_schedule_sort(sc);
    ts_schedule_normalize(sc);
    *out = sc;
out:
    if (start)
        ts_ml_free(&s);
    free(start);
    return rc;
}
