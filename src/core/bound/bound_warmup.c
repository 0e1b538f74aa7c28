/* The warm-up term of the lower bound: idle time the capacity forces on a device before its
 * first block that frees memory can start, and after its last allocating block.
 *
 * On device d, every block starts no earlier than head = the least earliest start of d's
 * blocks and ends no later than makespan - tl, tl = the least tail of d's blocks; so the
 * N x load(d) of work and any idle time of d inside [head, makespan - tl) fit in that stretch.
 * Let R = the least earliest start of d's blocks whose memory is <= 0 (they exist: none, no
 * term). Before R only allocating blocks (memory > 0) start on d, so the memory level there is
 * the sum of what they allocated, at most the capacity: the instances that start before R
 * allocate at most cap(d) in all. An allocating block b starts no earlier than est(b), so one
 * instance of it is busy at most v(b) = min(span(b), R - est(b)) inside [head, R) (0 when
 * est(b) >= R). The busy time of d in [head, R) is therefore at most W, the best value of a
 * knapsack of capacity cap(d) over N copies of each allocating block (value v(b), weight
 * memory(b)); the fractional knapsack bounds W from above. A block with memory <= 0 runs on d
 * after R and ends by makespan - tl, so R < makespan - tl and [head, R) lies in the stretch:
 *     makespan >= head + ((R - head) - W) + N x load(d) + tl.
 * xshape on 4 devices, capacity 4: on device 1 head = 1 (Fa1), R = 7 (Bb1 after Fb3 Fb2 Fb1
 * Fb0 Bb0), Fa1 and Fb1 (1 step, 1 unit each) fill at most 4 of the 6 steps before it: 2 idle
 * steps, 1 + 2 + 8N + 3 (Ba1's tail).
 *
 * The cool-down, the same at the other end: an allocating block a ends by makespan - tail(a),
 * so after La = makespan - amin (amin: the least tail of d's allocating blocks) none runs on d.
 * Let t0 be the start of the last allocating instance on d: what ran before it ended by t0 (the
 * device is exclusive), what starts after it frees or holds memory, and the level after t0 is at
 * most cap(d) while the final level is N x net(d) (net: the memory of d's blocks summed), so the
 * instances that start after t0 free at most cap(d) - N x net(d) in all. Those are the only ones
 * busy in [La, makespan - tl), a stretch of amin - tl steps, and a freeing block b is busy there
 * at most v(b) = min(span(b), amin - tail(b)) (0 when negative). The same knapsack (weight: what
 * b frees; a block of memory 0 weighs nothing, so all its N copies count) bounds that busy time,
 * and the rest is idle: makespan >= head + idle + N x load(d) + tl. When both stretches have idle
 * time they add up if they are disjoint: R <= La, which holds when R <= B - amin for B the larger
 * of the two bounds alone (the makespan is at least B). */
#include <limits.h>
#include <stdlib.h>
#include "bound_internal.h"

/* One item of a device's knapsack: value per copy, weight per copy. */
typedef struct {
    long v, w;
} ts_witem;

/* Higher value per unit of weight first. */
static int ts_witem_by_ratio(const void *a, const void *b)
{
    const ts_witem *x = a, *y = b;
    if ((x->w == 0) != (y->w == 0))
        return x->w == 0 ? -1 : 1;
    long l = x->v * y->w, r = y->v * x->w;
    return l > r ? -1 : l < r;
}

/* The fractional knapsack's value (rounded down: the integer busy time is at most it). */
static long ts_frac_knapsack(ts_witem *it, int ni, long n, long cap)
{
    qsort(it, (size_t)ni, sizeof *it, ts_witem_by_ratio);
    long value = 0, room = cap;
    for (int i = 0; i < ni && room >= 0; i++) {
        if (it[i].w == 0) { /* weighs nothing: every copy (sorted first) */
            value += n * it[i].v;
            continue;
        }
        if (room == 0)
            break;
        long copies = room / it[i].w;
        if (copies >= n) {
            value += n * it[i].v;
            room -= n * it[i].w;
            continue;
        }
        value += copies * it[i].v + (room - copies * it[i].w) * it[i].v / it[i].w;
        room = 0;
    }
    return value;
}

int ts_bound_warmup_term(const ts_placement *p, int n, const long *cap, const long *est,
                         const long *tail, const ts_devblocks *db, long *out, int *dev)
{
    *out = -1;
    *dev = -1;
    int nb = p->nblocks;
    ts_witem *it = malloc((size_t)(nb ? nb : 1) * sizeof *it);
    long *load = malloc((size_t)(p->ndevs ? p->ndevs : 1) * sizeof(long));
    if (!it || !load) {
        free(it);
        free(load);
        return -1;
    }
    ts_placement_device_load(p, load);
    for (int d = 0; d < p->ndevs; d++) {
        long head = LONG_MAX, tl = LONG_MAX, r = LONG_MAX, amin = LONG_MAX, net = 0;
        for (int k = db->off[d]; k < db->off[d + 1]; k++) {
            int b = db->list[k];
            if (est[b] < head)
                head = est[b];
            if (tail[b] < tl)
                tl = tail[b];
            if (p->blocks[b].memory <= 0 && est[b] < r)
                r = est[b];
            if (p->blocks[b].memory > 0 && tail[b] < amin)
                amin = tail[b];
            net += p->blocks[b].memory;
        }
        if (head == LONG_MAX || cap[d] < 0)
            continue;
        long base = head + (long)n * load[d] + tl;
        /* the warm-up: allocating blocks that can start before r, within the capacity */
        long warm = 0;
        if (r != LONG_MAX && r > head) {
            int ni = 0;
            for (int k = db->off[d]; k < db->off[d + 1]; k++) {
                int b = db->list[k];
                if (p->blocks[b].memory <= 0 || est[b] >= r)
                    continue;
                long v = r - est[b] < p->blocks[b].span ? r - est[b] : p->blocks[b].span;
                it[ni++] = (ts_witem){v, p->blocks[b].memory};
            }
            warm = (r - head) - ts_frac_knapsack(it, ni, n, cap[d]);
        }
        /* the cool-down: freeing blocks after the last allocating one, within what it left */
        long cool = 0, room = cap[d] - (long)n * net;
        if (amin != LONG_MAX && amin > tl && room >= 0) {
            int ni = 0;
            for (int k = db->off[d]; k < db->off[d + 1]; k++) {
                int b = db->list[k];
                if (p->blocks[b].memory > 0 || tail[b] >= amin)
                    continue;
                long v = amin - tail[b] < p->blocks[b].span ? amin - tail[b] : p->blocks[b].span;
                it[ni++] = (ts_witem){v, -(long)p->blocks[b].memory};
            }
            cool = (amin - tl) - ts_frac_knapsack(it, ni, n, room);
        }
        warm = warm > 0 ? warm : 0;
        cool = cool > 0 ? cool : 0;
        long v = base + (warm > cool ? warm : cool);
        if (warm > 0 && cool > 0 && r <= v - amin)
            v = base + warm + cool;
        if (v > base && v > *out) {
            *out = v;
            *dev = d;
        }
    }
    free(it);
    free(load);
    return 0;
}
