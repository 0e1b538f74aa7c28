/* Local search on the instance sequence of a complete schedule (see ts_improve.h). */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "ts_improve.h"

typedef struct {
    const ts_placement *p;
    const long *cap; /* per device, or NULL */
    int n, nb, ni; /* instance id = micro * nb + block */
    int *poff, *pred;
    long *pw; /* per predecessor arc: span of the predecessor + delay */
    int *soff, *succ;
    int *seq, *pos; /* the sequence and each instance's place in it */
    long *start;
    int *why; /* the instance whose end fixed the start (-1: none) */
    char *why_dev; /* whether that was the device (1) or a dependency (0) */
    long *dev_free, *dev_mem;
    int *dev_last;
    int *chain; /* scratch: the critical chain */
    long *ck_free, *ck_mem, *ck_mk; /* checkpoints of the replay (see ts_imp_save) */
    int *ck_last, *ck_at;
    /* A trial replay keeps what it overwrites, so that a rejected move is undone by copying
     * back (ts_imp_undo) rather than by a second replay: positions [t_k0, t_k1) (by instance:
     * bk_*) and checkpoints (t_c0, t_c1] (bck_*). */
    bool trial;
    int t_k0, t_k1, t_c0, t_c1;
    int *bk_id, *bk_why;
    long *bk_start;
    char *bk_dev;
    long *bck_free, *bck_mem, *bck_mk;
    int *bck_last, *bck_at;
    uint64_t rng;
} ts_imp;

static uint64_t ts_imp_rand(ts_imp *q)
{
    uint64_t z = (q->rng += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static int ts_imp_below(ts_imp *q, int k) /* uniform in [0, k) */
{
    return k > 0 ? (int)(ts_imp_rand(q) % (uint64_t)k) : 0;
}

static void ts_imp_free(ts_imp *q)
{
    free(q->poff);
    free(q->pred);
    free(q->pw);
    free(q->soff);
    free(q->succ);
    free(q->seq);
    free(q->pos);
    free(q->start);
    free(q->why);
    free(q->why_dev);
    free(q->dev_free);
    free(q->dev_mem);
    free(q->dev_last);
    free(q->chain);
    free(q->ck_free);
    free(q->ck_mem);
    free(q->ck_mk);
    free(q->ck_last);
    free(q->ck_at);
    free(q->bk_id);
    free(q->bk_why);
    free(q->bk_start);
    free(q->bk_dev);
    free(q->bck_free);
    free(q->bck_mem);
    free(q->bck_mk);
    free(q->bck_last);
    free(q->bck_at);
}

/* Predecessor and successor arcs of every instance, from the placement's edges. */
static int ts_imp_arcs(ts_imp *q)
{
    const ts_placement *p = q->p;
    q->poff = calloc((size_t)q->ni + 1, sizeof(int));
    q->soff = calloc((size_t)q->ni + 1, sizeof(int));
    if (!q->poff || !q->soff)
        return -1;
    for (int pass = 0; pass < 2; pass++) {
        int *pfill = NULL, *sfill = NULL;
        if (pass == 1) {
            for (int i = 0; i < q->ni; i++) {
                q->poff[i + 1] += q->poff[i];
                q->soff[i + 1] += q->soff[i];
            }
            int na = q->poff[q->ni];
            q->pred = malloc((size_t)(na ? na : 1) * sizeof(int));
            q->pw = malloc((size_t)(na ? na : 1) * sizeof(long));
            q->succ = malloc((size_t)(na ? na : 1) * sizeof(int));
            pfill = malloc((size_t)q->ni * sizeof(int));
            sfill = malloc((size_t)q->ni * sizeof(int));
            if (!q->pred || !q->pw || !q->succ || !pfill || !sfill) {
                free(pfill);
                free(sfill);
                return -1;
            }
            memcpy(pfill, q->poff, (size_t)q->ni * sizeof(int));
            memcpy(sfill, q->soff, (size_t)q->ni * sizeof(int));
        }
        for (int m = 0; m < q->n; m++)
            for (int j = 0; j < p->nedges; j++) {
                const ts_edge *x = &p->edges[j];
                if (m - x->distance < 0)
                    continue;
                int a = (m - x->distance) * q->nb + x->src, b = m * q->nb + x->dst;
                if (pass == 0) {
                    q->poff[b + 1]++;
                    q->soff[a + 1]++;
                } else {
                    q->pred[pfill[b]] = a;
                    q->pw[pfill[b]++] = p->blocks[x->src].span + x->delay;
                    q->succ[sfill[a]++] = b;
                }
            }
        free(pfill);
        free(sfill);
    }
    return 0;
}

/* Device state every TS_IMP_CHECK positions, so that a replay can start from the checkpoint
 * before the first position a move changed (the prefix keeps its starts). */
#define TS_IMP_CHECK 64

static void ts_imp_save(ts_imp *q, int c, long mk, int last)
{
    int nd = q->p->ndevs;
    if (q->trial && c > q->t_c0) {
        size_t at = (size_t)c * nd, n = (size_t)nd;
        memcpy(q->bck_free + at, q->ck_free + at, n * sizeof(long));
        memcpy(q->bck_mem + at, q->ck_mem + at, n * sizeof(long));
        memcpy(q->bck_last + at, q->ck_last + at, n * sizeof(int));
        q->bck_mk[c] = q->ck_mk[c];
        q->bck_at[c] = q->ck_at[c];
        q->t_c1 = c;
    }
    memcpy(q->ck_free + (size_t)c * nd, q->dev_free, (size_t)nd * sizeof(long));
    memcpy(q->ck_mem + (size_t)c * nd, q->dev_mem, (size_t)nd * sizeof(long));
    memcpy(q->ck_last + (size_t)c * nd, q->dev_last, (size_t)nd * sizeof(int));
    q->ck_mk[c] = mk;
    q->ck_at[c] = last;
}

static void ts_imp_restore(ts_imp *q, int c, long *mk, int *last)
{
    int nd = q->p->ndevs;
    memcpy(q->dev_free, q->ck_free + (size_t)c * nd, (size_t)nd * sizeof(long));
    memcpy(q->dev_mem, q->ck_mem + (size_t)c * nd, (size_t)nd * sizeof(long));
    memcpy(q->dev_last, q->ck_last + (size_t)c * nd, (size_t)nd * sizeof(int));
    *mk = q->ck_mk[c];
    *last = q->ck_at[c];
}

/* Starts the instance x as early as its devices and inputs allow. 0, or -1 when a device's
 * memory overflows its capacity. */
static int ts_imp_place(ts_imp *q, int x)
{
    const ts_block *b = &q->p->blocks[x % q->nb];
    long s = 0;
    int why = -1;
    char dev = 0;
    for (int i = 0; i < b->ndevices; i++) {
        int d = b->devices[i];
        if (q->dev_free[d] > s) {
            s = q->dev_free[d];
            why = q->dev_last[d];
            dev = 1;
        }
    }
    for (int a = q->poff[x]; a < q->poff[x + 1]; a++) {
        long t = q->start[q->pred[a]] + q->pw[a];
        if (t > s) {
            s = t;
            why = q->pred[a];
            dev = 0;
        }
    }
    q->start[x] = s;
    q->why[x] = why;
    q->why_dev[x] = dev;
    int rc = 0;
    for (int i = 0; i < b->ndevices; i++) {
        int d = b->devices[i];
        q->dev_free[d] = s + b->span;
        q->dev_last[d] = x;
        q->dev_mem[d] += b->memory;
        if (q->cap && q->dev_mem[d] > q->cap[d])
            rc = -1;
    }
    return rc;
}

/* Replays the sequence from position `from` on (0: all of it). Returns the makespan, -1 when
 * memory overflows somewhere, or -2 as soon as an instance ends after `limit` (the replay then
 * stops there). In trial mode what it overwrites is kept for ts_imp_undo. */
static long ts_imp_replay(ts_imp *q, int from, long limit, int *last)
{
    long mk = 0;
    *last = -1;
    int c = from / TS_IMP_CHECK;
    if (c == 0) {
        for (int d = 0; d < q->p->ndevs; d++) {
            q->dev_free[d] = 0;
            q->dev_mem[d] = 0;
            q->dev_last[d] = -1;
        }
    } else {
        ts_imp_restore(q, c, &mk, last);
    }
    q->t_k0 = q->t_k1 = c * TS_IMP_CHECK;
    q->t_c0 = q->t_c1 = c;
    for (int k = c * TS_IMP_CHECK; k < q->ni; k++) {
        if (k % TS_IMP_CHECK == 0)
            ts_imp_save(q, k / TS_IMP_CHECK, mk, *last);
        int x = q->seq[k];
        if (q->trial) {
            q->bk_id[k] = x;
            q->bk_start[k] = q->start[x];
            q->bk_why[k] = q->why[x];
            q->bk_dev[k] = q->why_dev[x];
            q->t_k1 = k + 1;
        }
        if (ts_imp_place(q, x))
            return -1;
        long end = q->start[x] + q->p->blocks[x % q->nb].span;
        if (end > mk) {
            mk = end;
            *last = x;
            if (mk > limit)
                return -2;
        }
    }
    return mk;
}

/* Copies back what the last trial replay overwrote (the sequence must be restored first). */
static void ts_imp_undo(ts_imp *q)
{
    for (int k = q->t_k0; k < q->t_k1; k++) {
        int x = q->bk_id[k];
        q->start[x] = q->bk_start[k];
        q->why[x] = q->bk_why[k];
        q->why_dev[x] = q->bk_dev[k];
    }
    int nd = q->p->ndevs;
    for (int c = q->t_c0 + 1; c <= q->t_c1; c++) {
        size_t at = (size_t)c * nd, n = (size_t)nd;
        memcpy(q->ck_free + at, q->bck_free + at, n * sizeof(long));
        memcpy(q->ck_mem + at, q->bck_mem + at, n * sizeof(long));
        memcpy(q->ck_last + at, q->bck_last + at, n * sizeof(int));
        q->ck_mk[c] = q->bck_mk[c];
        q->ck_at[c] = q->bck_at[c];
    }
}

/* Moves the instance at sequence position from to position to. */
static void ts_imp_move(ts_imp *q, int from, int to)
{
    int x = q->seq[from];
    if (from < to)
        for (int k = from; k < to; k++) {
            q->seq[k] = q->seq[k + 1];
            q->pos[q->seq[k]] = k;
        }
    else
        for (int k = from; k > to; k--) {
            q->seq[k] = q->seq[k - 1];
            q->pos[q->seq[k]] = k;
        }
    q->seq[to] = x;
    q->pos[x] = to;
}

/* The window of final positions x may take (as ts_imp_move's `to`): after its last
 * predecessor, before its first successor, counted in the sequence without x. */
static void ts_imp_window(const ts_imp *q, int x, int *lo, int *hi)
{
    *lo = 0;
    *hi = q->ni - 1;
    for (int a = q->poff[x]; a < q->poff[x + 1]; a++)
        if (q->pos[q->pred[a]] + 1 > *lo)
            *lo = q->pos[q->pred[a]] + 1;
    for (int a = q->soff[x]; a < q->soff[x + 1]; a++)
        if (q->pos[q->succ[a]] - 1 < *hi)
            *hi = q->pos[q->succ[a]] - 1;
}

/* Picks a move: mostly an instance on the critical chain that waited for its device, moved to
 * before (part of) what it waited for; otherwise any instance, anywhere in its window. Returns
 * 0 and the positions, or -1 when there is nothing to move. */
static int ts_imp_pick(ts_imp *q, int last, int *from, int *to)
{
    int len = 0;
    for (int x = last; x >= 0 && len < q->ni; x = q->why[x])
        if (q->why_dev[x])
            q->chain[len++] = x;
    int x;
    if (len > 0 && ts_imp_below(q, 4) != 0)
        x = q->chain[ts_imp_below(q, len)];
    else
        x = ts_imp_below(q, q->ni);
    int lo, hi;
    ts_imp_window(q, x, &lo, &hi);
    *from = q->pos[x];
    if (q->why_dev[x] && q->why[x] >= 0 && ts_imp_below(q, 2) == 0) {
        /* before the instance it waited for, or a little further */
        int w = q->pos[q->why[x]];
        if (w < lo)
            return -1;
        int room = w - lo + 1;
        *to = w - ts_imp_below(q, room < 9 ? room : 9);
    } else {
        if (hi < lo)
            return -1;
        *to = lo + ts_imp_below(q, hi - lo + 1);
    }
    return *to == *from ? -1 : 0;
}

static int ts_imp_cmp_key(const void *a, const void *b)
{
    const long *x = a, *y = b;
    return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : (x[1] < y[1] ? -1 : x[1] > y[1]);
}

static int ts_imp_make(ts_imp *q, const ts_schedule *s)
{
    const ts_placement *p = s->placement;
    q->p = p;
    q->cap = s->has_memory ? s->memory : NULL;
    q->n = s->nmicros;
    q->nb = p->nblocks;
    q->ni = q->n * q->nb;
    size_t ni = (size_t)(q->ni ? q->ni : 1), nd = (size_t)(p->ndevs ? p->ndevs : 1);
    q->seq = malloc(ni * sizeof(int));
    q->pos = malloc(ni * sizeof(int));
    q->start = malloc(ni * sizeof(long));
    q->why = malloc(ni * sizeof(int));
    q->why_dev = malloc(ni);
    q->chain = malloc(ni * sizeof(int));
    q->dev_free = malloc(nd * sizeof(long));
    q->dev_mem = malloc(nd * sizeof(long));
    q->dev_last = malloc(nd * sizeof(int));
    size_t nc = (size_t)q->ni / TS_IMP_CHECK + 1;
    q->ck_free = malloc(nc * nd * sizeof(long));
    q->ck_mem = malloc(nc * nd * sizeof(long));
    q->ck_last = malloc(nc * nd * sizeof(int));
    q->ck_mk = malloc(nc * sizeof(long));
    q->ck_at = malloc(nc * sizeof(int));
    q->bk_id = malloc(ni * sizeof(int));
    q->bk_why = malloc(ni * sizeof(int));
    q->bk_start = malloc(ni * sizeof(long));
    q->bk_dev = malloc(ni);
    q->bck_free = malloc(nc * nd * sizeof(long));
    q->bck_mem = malloc(nc * nd * sizeof(long));
    q->bck_last = malloc(nc * nd * sizeof(int));
    q->bck_mk = malloc(nc * sizeof(long));
    q->bck_at = malloc(nc * sizeof(int));
    if (!q->seq || !q->pos || !q->start || !q->why || !q->why_dev || !q->chain || !q->dev_free ||
        !q->dev_mem || !q->dev_last || !q->ck_free || !q->ck_mem || !q->ck_last || !q->ck_mk ||
        !q->ck_at || !q->bk_id || !q->bk_why || !q->bk_start || !q->bk_dev || !q->bck_free ||
        !q->bck_mem || !q->bck_last || !q->bck_mk || !q->bck_at || ts_imp_arcs(q))
        return -1;
    return 0;
}

/* The schedule's instances by start step: a sequence that respects every dependency. */
static int ts_imp_seed(ts_imp *q, const ts_schedule *s, ts_err *e)
{
    for (int i = 0; i < q->ni; i++)
        q->pos[i] = -1;
    for (int i = 0; i < s->nentries; i++) {
        const ts_entry *x = &s->entries[i];
        int id = x->micro * q->nb + x->block;
        if (x->micro < 0 || x->micro >= q->n || q->pos[id] >= 0)
            return ts_fail(e, TS_EINPUT, "improve: instance %s/%d is out of range or repeated",
                           q->p->blocks[x->block].id, x->micro);
        q->pos[id] = i;
        q->start[id] = x->step;
    }
    if (s->nentries != q->ni)
        return ts_fail(e, TS_EINPUT, "improve: the schedule has %d of %d instances", s->nentries,
                       q->ni);
    /* ids by start step, ties by id */
    long(*key)[2] = malloc((size_t)q->ni * sizeof *key);
    if (!key)
        return ts_fail(e, TS_ESYS, "improve: out of memory");
    for (int i = 0; i < q->ni; i++) {
        key[i][0] = q->start[i];
        key[i][1] = i;
    }
    qsort(key, (size_t)q->ni, sizeof *key, ts_imp_cmp_key);
    for (int i = 0; i < q->ni; i++) {
        q->seq[i] = (int)key[i][1];
        q->pos[q->seq[i]] = i;
    }
    free(key);
    return TS_OK;
}

static int ts_imp_result(const ts_imp *q, const ts_schedule *s, ts_schedule **out, ts_err *e)
{
    ts_schedule *r = ts_schedule_clone(s);
    if (!r)
        return ts_fail(e, TS_ESYS, "improve: out of memory");
    for (int i = 0; i < r->nentries; i++) {
        ts_entry *x = &r->entries[i];
        x->step = q->start[x->micro * q->nb + x->block];
    }
    if (r->has_repetend)
        ts_schedule_clear_repetend(r);
    ts_schedule_sort(r);
    *out = r;
    return TS_OK;
}

int ts_improve(const ts_schedule *s, const ts_improve_opts *o, ts_schedule **out,
               ts_improve_stats *st, ts_err *e)
{
    ts_improve_stats local;
    if (!st)
        st = &local;
    memset(st, 0, sizeof *st);
    *out = NULL;
    double t0 = ts_clock_now();
    ts_imp q = {0};
    q.rng = o->seed ? o->seed : 0x5EEDULL;
    int rc = TS_OK, last;
    if (ts_imp_make(&q, s)) {
        rc = ts_fail(e, TS_ESYS, "improve: out of memory");
        goto out;
    }
    if ((rc = ts_imp_seed(&q, s, e)))
        goto out;
    long best = ts_imp_replay(&q, 0, LONG_MAX, &last);
    if (best < 0) {
        rc = ts_fail(e, TS_EINPUT, "improve: the schedule does not fit its memory");
        goto out;
    }
    st->before = best;
    long since = 0; /* moves since the last strict improvement */
    while (best > o->target && (o->max_moves <= 0 || st->moves < o->max_moves)) {
        if ((st->moves & 63) == 0 && o->deadline > 0 && ts_clock_now() >= o->deadline)
            break;
        if (o->stall > 0 && since >= o->stall) {
            st->stalled = true;
            break;
        }
        int from, to, nlast;
        st->moves++;
        since++;
        if (ts_imp_pick(&q, last, &from, &to))
            continue;
        ts_imp_move(&q, from, to);
        int low = from < to ? from : to;
        q.trial = true;
        long mk = ts_imp_replay(&q, low, best, &nlast);
        q.trial = false;
        if (mk >= 0 && mk <= best) {
            st->kept++;
            if (mk < best)
                since = 0;
            best = mk;
            last = nlast;
            continue;
        }
        ts_imp_move(&q, to, from);
        ts_imp_undo(&q); /* the starts, the chain and the checkpoints of the kept sequence */
    }
    st->after = best;
    rc = ts_imp_result(&q, s, out, e);
out:
    ts_imp_free(&q);
    st->seconds = ts_clock_now() - t0;
    return rc;
}
