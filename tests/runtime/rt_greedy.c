/* Test helper: a greedy list scheduler that writes valid schedules for built-in placements, to
 * make the runtime's fixtures. At every step each device takes the ready instance of highest
 * priority (backward before forward, then lower micro-batch, then earlier in the chain) whose
 * devices are all free and whose memory fits. With per-device capacities D-d on vshape this is
 * exactly 1F1B. The result is checked with ts_schedule_validate before it is written.
 *
 * When a window of one period (the largest device load, or up to two steps more) holds exactly
 * one instance of every block and unrolling it still validates, it is recorded as the repetend,
 * so that tessel-run --micro-batches can replay the schedule for more micro-batches.
 *
 * usage: rt_greedy SHAPE NDEVS NMICROS OUT.json [CAPS]
 * (CAPS: "4" or "4,3,2,1"; none = unbounded) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ts_placement.h"
#include "ts_schedule.h"

/* Tries windows [w, w + P) in order; keeps the first whose unrolled schedules validate. */
static void ts_rt_find_repetend(ts_schedule *s, const long *start, int N)
{
    const ts_placement *p = s->placement;
    int nb = p->nblocks;
    long first, last, P0 = ts_placement_max_load(p);
    ts_schedule_span(s, &first, &last);
    int *mids = malloc(sizeof(int) * (size_t)nb);
    for (long P = P0; P <= P0 + 2; P++)
        for (long w = first; w + P <= last; w++) {
            int ok = 1;
            for (int b = 0; b < nb && ok; b++) {
                int count = 0;
                for (int m = 0; m < N; m++)
                    if (start[b * N + m] >= w && start[b * N + m] < w + P) {
                        count++;
                        mids[b] = m;
                    }
                ok = count == 1;
            }
            if (!ok || ts_schedule_set_repetend(s, w, w + P, mids) != 0)
                continue;
            ts_validate_opts vo = {0};
            for (int extra = 1; extra <= 5 && ok; extra += 4) {
                ts_schedule *u = NULL;
                ts_err e = {0};
                ok = ts_schedule_unroll(s, N + extra, &u, &e) == TS_OK &&
                     ts_schedule_validate(u, &vo, &e) == TS_OK;
                ts_schedule_free(u);
            }
            if (ok) {
                free(mids);
                return;
            }
            ts_schedule_clear_repetend(s);
        }
    free(mids);
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: rt_greedy SHAPE NDEVS NMICROS OUT.json [CAPS]\n");
        return 2;
    }
    ts_err e = {0};
    ts_builtin_opts bo = {0};
    bo.ndevs = atoi(argv[2]);
    int N = atoi(argv[3]);
    ts_placement *p = NULL;
    if (ts_builtin_make(argv[1], &bo, &p, &e) != TS_OK) {
        fprintf(stderr, "rt_greedy: %s\n", e.msg);
        return 2;
    }
    int D = p->ndevs, nb = p->nblocks, n = nb * N;
    long *cap = NULL;
    if (argc > 5) {
        cap = calloc((size_t)D, sizeof(long));
        const char *s = argv[5];
        for (int d = 0; d < D; d++) {
            cap[d] = strtol(s, (char **)&s, 10);
            if (*s == ',')
                s++;
            /* one value: uniform */
            else if (d + 1 < D && !*s) {
                for (int k = d + 1; k < D; k++)
                    cap[k] = cap[d];
                break;
            }
        }
    }
    int *chain = malloc(sizeof(int) * (size_t)nb), *rank_of = malloc(sizeof(int) * (size_t)nb);
    ts_placement_chain_order(p, chain);
    for (int i = 0; i < nb; i++)
        rank_of[chain[i]] = i;
    long *start = malloc(sizeof(long) * (size_t)n), *busy = calloc((size_t)D, sizeof(long));
    long *mem = calloc((size_t)D, sizeof(long));
    int *cand = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++)
        start[i] = -1;
    int done = 0;
    for (long t = 0; done < n; t++) {
        if (t > 1000000) {
            fprintf(stderr, "rt_greedy: no progress (memory capacities too small?)\n");
            return 1;
        }
        int nc = 0;
        for (int i = 0; i < n; i++) {
            int b = i / N, m = i % N, ok = start[i] < 0;
            for (int k = 0; k < p->nedges && ok; k++) {
                const ts_edge *ed = &p->edges[k];
                if (ed->dst != b || m - ed->distance < 0)
                    continue;
                int src = ed->src * N + m - ed->distance;
                ok = start[src] >= 0 && start[src] + p->blocks[ed->src].span + ed->delay <= t;
            }
            if (ok)
                cand[nc++] = i;
        }
        /* insertion sort by priority */
        for (int a = 1; a < nc; a++)
            for (int c = a; c > 0; c--) {
                int x = cand[c - 1], y = cand[c];
                int bx = p->blocks[x / N].kind == TS_KIND_BACKWARD,
                    by = p->blocks[y / N].kind == TS_KIND_BACKWARD;
                int before = by != bx           ? by > bx
                             : (y % N != x % N) ? (y % N < x % N)
                                                : rank_of[y / N] < rank_of[x / N];
                if (!before)
                    break;
                cand[c - 1] = y;
                cand[c] = x;
            }
        for (int c = 0; c < nc; c++) {
            int i = cand[c];
            const ts_block *blk = &p->blocks[i / N];
            int ok = 1;
            for (int j = 0; j < blk->ndevices && ok; j++) {
                int d = blk->devices[j];
                ok = busy[d] <= t && (!cap || blk->memory <= 0 || mem[d] + blk->memory <= cap[d]);
            }
            if (!ok)
                continue;
            start[i] = t;
            done++;
            for (int j = 0; j < blk->ndevices; j++) {
                busy[blk->devices[j]] = t + blk->span;
                mem[blk->devices[j]] += blk->memory;
            }
        }
    }
    ts_schedule *s = ts_schedule_new(p, N);
    for (int i = 0; i < n; i++)
        ts_schedule_add(s, i / N, i % N, start[i]);
    if (cap)
        ts_schedule_set_memory(s, cap);
    ts_schedule_sort(s);
    ts_validate_opts vo = {0};
    int rc = ts_schedule_validate(s, &vo, &e);
    ts_rt_find_repetend(s, start, N);
    if (rc == TS_OK)
        rc = ts_schedule_save(s, argv[4], &e);
    if (rc != TS_OK)
        fprintf(stderr, "rt_greedy: %s\n", e.msg);
    ts_schedule_free(s);
    ts_placement_free(p);
    free(cap);
    free(chain);
    free(rank_of);
    free(start);
    free(busy);
    free(mem);
    free(cand);
    return rc;
}
