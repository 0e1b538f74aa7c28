/* ts_schedule_find_repetend: the repetend of a schedule at N that repeats in its steady state,
 * so that a schedule found at N (auto's improved one, a baseline, a greedy list schedule) still
 * unrolls to any N. */
#include <stdlib.h>
#include "ts_schedule.h"

/* Schedules larger than this are not checked (each check validates the schedule unrolled to
 * 2N): the time would go to a file that is already complete at N. */
#define TS_FIND_REPETEND_MAX_ENTRIES 2000000

/* Whether every block's instances m - 1, m, m + 1, m + 2 start exactly P apart. */
static bool ts_steady_at(const ts_schedule *s, const int *idx, int m, long P)
{
    int n = s->nmicros, nb = s->placement->nblocks;
    for (int b = 0; b < nb; b++)
        for (int j = m - 1; j <= m + 1; j++) {
            int x = idx[(size_t)b * (size_t)n + (size_t)j];
            int y = idx[(size_t)b * (size_t)n + (size_t)j + 1];
            if (x < 0 || y < 0 || s->entries[y].step - s->entries[x].step != P)
                return false;
        }
    return true;
}

/* The window [W, W + P) when it holds exactly one instance of every block (their micro-batches
 * in mids); false otherwise. */
static bool ts_window_mids(const ts_schedule *s, long W, long P, int *mids)
{
    int nb = s->placement->nblocks;
    for (int b = 0; b < nb; b++)
        mids[b] = -1;
    for (int i = 0; i < s->nentries; i++) {
        const ts_entry *x = &s->entries[i];
        if (x->step < W || x->step >= W + P)
            continue;
        if (mids[x->block] >= 0)
            return false;
        mids[x->block] = x->micro;
    }
    for (int b = 0; b < nb; b++)
        if (mids[b] < 0)
            return false;
    return true;
}

/* The schedule with its repetend, unrolled to N + 1, N + 2, N + 3 and 2N, validates. */
static bool ts_unrolls_valid(const ts_schedule *s)
{
    int n = s->nmicros, more[4] = {n + 1, n + 2, n + 3, 2 * n};
    ts_validate_opts vo = {0};
    for (int i = 0; i < 4; i++) {
        ts_schedule *u = NULL;
        ts_err e = {0};
        bool ok = ts_schedule_unroll(s, more[i], &u, &e) == TS_OK &&
                  ts_schedule_validate(u, &vo, &e) == TS_OK;
        ts_schedule_free(u);
        if (!ok)
            return false;
    }
    return true;
}

int ts_schedule_find_repetend(ts_schedule *s)
{
    int n = s->nmicros, nb = s->placement->nblocks;
    if (s->has_repetend || n < 5 || nb == 0 || s->nentries > TS_FIND_REPETEND_MAX_ENTRIES)
        return 0;
    int *idx = ts_schedule_index(s);
    int *mids = malloc((size_t)nb * sizeof *mids);
    if (!idx || !mids) {
        free(idx);
        free(mids);
        return -1;
    }
    /* middle micro-batches first: the steady state, far from the fill and the drain */
    int tries[] = {n / 2, n / 3, 2 * n / 3, n / 4, 3 * n / 4}, found = 0;
    for (int t = 0; t < 5 && !found; t++) {
        int m = tries[t];
        if (m < 1 || m + 2 >= n)
            continue;
        int x = idx[m], y = idx[m + 1];
        long P = x >= 0 && y >= 0 ? s->entries[y].step - s->entries[x].step : 0;
        if (P <= 0 || !ts_steady_at(s, idx, m, P))
            continue;
        long W = s->entries[x].step;
        if (!ts_window_mids(s, W, P, mids) || ts_schedule_set_repetend(s, W, W + P, mids))
            continue;
        found = ts_unrolls_valid(s);
        if (!found)
            ts_schedule_clear_repetend(s);
    }
    free(idx);
    free(mids);
    return found;
}
