/* ts_schedule_find_repetend: the repetend of a schedule at N that repeats in its steady state,
 * one or a few micro-batches per period, so that a schedule found at N (auto's improved one, a
 * baseline, a greedy list schedule, a --per-period result) still unrolls to any N. */
#include <stdlib.h>
#include "ts_schedule.h"

/* Schedules larger than this are not checked (each check validates the schedule unrolled to
 * 2N): the time would go to a file that is already complete at N. */
#define TS_FIND_REPETEND_MAX_ENTRIES 2000000

/* Whether every block's instances j and j + R start exactly P apart for j = m - R .. m + R. */
static bool ts_steady_at(const ts_schedule *s, const int *idx, int m, int R, long P)
{
    int n = s->nmicros, nb = s->placement->nblocks;
    for (int b = 0; b < nb; b++)
        for (int j = m - R; j <= m + R; j++) {
            int x = idx[(size_t)b * (size_t)n + (size_t)j];
            int y = idx[(size_t)b * (size_t)n + (size_t)(j + R)];
            if (x < 0 || y < 0 || s->entries[y].step - s->entries[x].step != P)
                return false;
        }
    return true;
}

/* The window [W, W + P) when it holds exactly R instances of every block, one of each residue
 * mod R (their micro-batches in mids[b * R ..]); false otherwise. */
static bool ts_window_mids(const ts_schedule *s, long W, long P, int R, int *mids, int *count)
{
    int nb = s->placement->nblocks;
    for (int b = 0; b < nb; b++)
        count[b] = 0;
    for (int i = 0; i < s->nentries; i++) {
        const ts_entry *x = &s->entries[i];
        if (x->step < W || x->step >= W + P)
            continue;
        int *m = mids + (size_t)x->block * (size_t)R;
        if (count[x->block] == R)
            return false;
        for (int j = 0; j < count[x->block]; j++)
            if (m[j] % R == x->micro % R)
                return false;
        m[count[x->block]++] = x->micro;
    }
    for (int b = 0; b < nb; b++)
        if (count[b] < R)
            return false;
    return true;
}

/* The schedule with its repetend validates unrolled to N + 1 .. N + R + 2 (every count the
 * window reaches and every one cut from the next, twice over), N + 2R and 2N. */
static bool ts_unrolls_valid(const ts_schedule *s, int R)
{
    int n = s->nmicros, more[TS_FIND_REPETEND_MAX_PER + 4], nm = 0;
    for (int i = 1; i <= R + 2; i++)
        more[nm++] = n + i;
    if (2 * R > R + 2)
        more[nm++] = n + 2 * R;
    if (n > R + 2 && n != 2 * R)
        more[nm++] = 2 * n;
    ts_validate_opts vo = {0};
    for (int i = 0; i < nm; i++) {
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

/* Tries R micro-batches per period around the middle micro-batches: 1 when declared. */
static int ts_find_per(ts_schedule *s, const int *idx, int R, int *mids, int *count)
{
    int n = s->nmicros;
    /* middle micro-batches first: the steady state, far from the fill and the drain */
    int tries[] = {n / 2, n / 3, 2 * n / 3, n / 4, 3 * n / 4};
    for (int t = 0; t < 5; t++) {
        int m = tries[t];
        if (m - R < 0 || m + 2 * R >= n)
            continue;
        int x = idx[m], y = idx[m + R];
        long P = x >= 0 && y >= 0 ? s->entries[y].step - s->entries[x].step : 0;
        if (P <= 0 || !ts_steady_at(s, idx, m, R, P))
            continue;
        long W = s->entries[x].step;
        if (!ts_window_mids(s, W, P, R, mids, count) ||
            ts_schedule_set_repetend_per(s, W, W + P, R, mids))
            continue;
        if (ts_unrolls_valid(s, R))
            return 1;
        ts_schedule_clear_repetend(s);
    }
    return 0;
}

int ts_schedule_find_repetend(ts_schedule *s)
{
    int n = s->nmicros, nb = s->placement->nblocks;
    if (s->has_repetend || n < 5 || nb == 0 || s->nentries > TS_FIND_REPETEND_MAX_ENTRIES)
        return 0;
    int *idx = ts_schedule_index(s);
    int *mids = malloc((size_t)nb * TS_FIND_REPETEND_MAX_PER * sizeof *mids);
    int *count = malloc((size_t)nb * sizeof *count);
    int found = 0;
    ts_validate_opts vo = {0};
    ts_err e = {0};
    if (!idx || !mids || !count)
        found = -1;
    /* an invalid schedule gets none: its unrolls could pass where it fails (a device whose
     * memory falls every period), and the file would then claim more than it holds */
    else if (ts_schedule_validate(s, &vo, &e) != TS_OK)
        found = 2;
    /* the fewest micro-batches per period first: a steady state of one per period P also
     * repeats two per 2P, and the shorter window is the one to keep */
    for (int R = 1; R <= TS_FIND_REPETEND_MAX_PER && !found; R++)
        found = ts_find_per(s, idx, R, mids, count);
    free(idx);
    free(mids);
    free(count);
    return found == 2 ? 0 : found;
}
