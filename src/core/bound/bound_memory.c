/* The memory term of the lower bound (the makespan form of the memory-implied period).
 *
 * On device d, take an allocating block a and a block f that depends on it (through any path).
 * From the start of (a, m) to the start of (f, m) micro-batch m has started a and every ancestor
 * of a, and not f or any descendant of f; the blocks in between may or may not have started. So
 * it holds at least h = mem(ancestors of a, a) + the least the blocks in between can hold.
 * Any other micro-batch holds at least hold_min (the least memory a set of its blocks closed
 * under dependencies can hold, bounded below by crediting each freeing block with what its
 * allocating ancestors gave). With x windows open at once, x*h + (N - x)*hold_min <= capacity,
 * so x <= c. Windows are intervals: at most c at once means they split into c chains of
 * disjoint windows, so one chain has ceil(N / c) windows, each at least the longest path L from
 * the start of a to the start of f. The next window of a chain opens with an a that starts no
 * earlier than the f that closed the previous one, and both run on the device, so it waits for
 * that f to end. Hence
 *     makespan >= est(a) + ceil(N / c) * (L + span(f)) + tail(f).
 * Where several allocations share a device (two pipelines through it), the area form below
 * counts them together. */
#include <string.h>
#include "bound_internal.h"

/* The area form: pair every unit a block allocates with a unit a descendant frees (each freeing
 * block, in topological order, takes from its allocating ancestors). A micro-batch then holds a
 * unit from the start of its allocation to the start of its release, at least the longest path
 * between them: the memory-time it needs on the device is at least A = the sum over pairs. The
 * device never holds more than the capacity, so N micro-batches take at least N * A / capacity.
 * Only when every unit is paired (otherwise what a micro-batch holds is not bounded below). */
static long ts_device_memory_area(ts_mctx *c, int n, long cap, const int *on, int non, long *budget)
{
    const ts_block *B = c->p->blocks;
    if (cap <= 0)
        return -1;
    for (int i = 0; i < non; i++)
        budget[i] = B[on[i]].memory > 0 ? B[on[i]].memory : 0;
    long area = 0;
    for (int i = 0; i < non; i++) {
        long need = -(long)B[on[i]].memory;
        for (int j = 0; j < non && need > 0; j++) {
            if (budget[j] <= 0 || !ts_reaches(c, on[j], on[i]))
                continue;
            long g = budget[j] < need ? budget[j] : need;
            ts_mctx_dist(c, on[j]);
            area += g * c->dist[on[i]];
            budget[j] -= g;
            need -= g;
        }
        if (need > 0)
            return -1;
    }
    for (int i = 0; i < non; i++)
        if (budget[i] > 0)
            return -1;
    return ((long)n * area + cap - 1) / cap;
}

/* The bound of one device: on[] are its blocks in topological order. */
static long ts_device_memory_bound(ts_mctx *c, int n, long cap, const int *on, int non,
                                   const long *est, const long *tail, long *budget, char *in)
{
    const ts_block *B = c->p->blocks;
    memset(in, 1, (size_t)non);
    long hold_min = ts_hold_min(c, on, non, in, budget), best = -1;
    for (int i = 0; i < non; i++) {
        int a = on[i];
        if (B[a].memory <= 0)
            continue;
        long base = 0; /* a and its ancestors on the device: started */
        for (int j = 0; j < non; j++)
            if (on[j] == a || ts_reaches(c, on[j], a))
                base += B[on[j]].memory;
        ts_mctx_dist(c, a);
        for (int k = 0; k < non; k++) {
            int f = on[k];
            if (f == a || !ts_reaches(c, a, f))
                continue;
            for (int j = 0; j < non; j++) {
                int x = on[j];
                in[j] = !(x == a || x == f || ts_reaches(c, x, a) || ts_reaches(c, f, x));
            }
            long h = base + ts_hold_min(c, on, non, in, budget); /* the blocks in between */
            if (h <= 0 || h - hold_min <= 0)
                continue;
            long room = cap - (long)n * hold_min;
            if (room < h - hold_min)
                continue; /* not even one window fits: no schedule; other checks say so */
            long cw = room / (h - hold_min);
            if (cw >= n)
                continue;
            long v = est[a] + ((n + cw - 1) / cw) * (c->dist[f] + B[f].span) + tail[f];
            if (v > best)
                best = v;
        }
    }
    return best;
}

/* One device's term: the larger of the window form and the area form. */
static long ts_memory_device(const ts_mdev *m)
{
    long v = ts_device_memory_bound(m->c, m->n, m->cap, m->on, m->non, m->est, m->tail, m->budget,
                                    m->in);
    long w = ts_device_memory_area(m->c, m->n, m->cap, m->on, m->non, m->budget);
    return w > v ? w : v;
}

int ts_bound_memory_term(const ts_placement *p, int n, const long *cap, const long *est,
                         const long *tail, long *out, int *dev)
{
    return ts_bound_mem_devices(p, n, cap, est, tail, ts_memory_device, out, dev);
}
