/* ts_schedule: entries, memory capacities, the repetend and the search record; sorting,
 * normalising, unrolling and truncating to N micro-batches, and each device's order. */
#include <stdlib.h>
#include <string.h>
#include "ts_schedule.h"

ts_schedule *ts_schedule_new(const ts_placement *p, int nmicros)
{
    ts_schedule *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->placement = ts_placement_clone(p);
    s->memory = calloc((size_t)p->ndevs, sizeof(long));
    if (!s->placement || !s->memory) {
        ts_schedule_free(s);
        return NULL;
    }
    s->nmicros = nmicros;
    return s;
}

void ts_schedule_free(ts_schedule *s)
{
    if (!s)
        return;
    ts_placement_free(s->placement);
    free(s->memory);
    free(s->entries);
    free(s->rep.mids);
    json_decref(s->search);
    free(s);
}

ts_schedule *ts_schedule_clone(const ts_schedule *s)
{
    ts_schedule *c = ts_schedule_new(s->placement, s->nmicros);
    if (!c)
        return NULL;
    c->has_memory = s->has_memory;
    memcpy(c->memory, s->memory, (size_t)s->placement->ndevs * sizeof(long));
    if (s->nentries) {
        c->entries = malloc((size_t)s->nentries * sizeof(ts_entry));
        if (!c->entries)
            goto fail;
        memcpy(c->entries, s->entries, (size_t)s->nentries * sizeof(ts_entry));
        c->nentries = c->cap_entries = s->nentries;
    }
    if (s->has_repetend &&
        ts_schedule_set_repetend_per(c, s->rep.start, s->rep.end, s->rep.per, s->rep.mids))
        goto fail;
    if (s->search)
        c->search = json_deep_copy(s->search);
    return c;
fail:
    ts_schedule_free(c);
    return NULL;
}

int ts_schedule_add(ts_schedule *s, int block, int micro, long step)
{
    if (s->nentries == s->cap_entries) {
        int cap = s->cap_entries ? 2 * s->cap_entries : 64;
        ts_entry *ne = realloc(s->entries, (size_t)cap * sizeof *ne);
        if (!ne)
            return -1;
        s->entries = ne;
        s->cap_entries = cap;
    }
    s->entries[s->nentries++] = (ts_entry){block, micro, step};
    return 0;
}

void ts_schedule_set_memory(ts_schedule *s, const long *cap)
{
    s->has_memory = cap != NULL;
    for (int d = 0; d < s->placement->ndevs; d++)
        s->memory[d] = cap ? cap[d] : 0;
}

void ts_schedule_set_uniform_memory(ts_schedule *s, long cap)
{
    s->has_memory = true;
    for (int d = 0; d < s->placement->ndevs; d++)
        s->memory[d] = cap;
}

static int ts_int_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int ts_schedule_set_repetend_per(ts_schedule *s, long start, long end, int per, const int *mids)
{
    size_t n = (size_t)s->placement->nblocks * (size_t)per;
    int *m = malloc(n ? n * sizeof(int) : 1);
    if (!m)
        return -1;
    memcpy(m, mids, n * sizeof(int));
    for (int b = 0; per > 1 && b < s->placement->nblocks; b++)
        qsort(m + (size_t)b * (size_t)per, (size_t)per, sizeof(int), ts_int_cmp);
    int lo = n ? m[0] : 0, hi = lo;
    for (size_t i = 1; i < n; i++) {
        if (m[i] < lo)
            lo = m[i];
        if (m[i] > hi)
            hi = m[i];
    }
    free(s->rep.mids);
    s->rep = (ts_repetend){start, end, end - start, hi - lo + 1, per, m};
    s->has_repetend = true;
    return 0;
}

int ts_schedule_set_repetend(ts_schedule *s, long start, long end, const int *mids)
{
    return ts_schedule_set_repetend_per(s, start, end, 1, mids);
}

void ts_schedule_clear_repetend(ts_schedule *s)
{
    free(s->rep.mids);
    memset(&s->rep, 0, sizeof s->rep);
    s->has_repetend = false;
}

void ts_schedule_set_search_info(ts_schedule *s, json_t *info)
{
    json_decref(s->search);
    s->search = info;
}

static int ts_cmp_entry(const void *a, const void *b, const ts_placement *p)
{
    const ts_entry *x = a, *y = b;
    if (x->step != y->step)
        return x->step < y->step ? -1 : 1;
    int dx = p->blocks[x->block].devices[0], dy = p->blocks[y->block].devices[0];
    if (dx != dy)
        return dx < dy ? -1 : 1;
    if (x->block != y->block)
        return x->block < y->block ? -1 : 1;
    return (x->micro > y->micro) - (x->micro < y->micro);
}

/* qsort has no context argument in C11: sort an array of (entry, placement) pairs instead. */
typedef struct {
    ts_entry e;
    const ts_placement *p;
} ts_sort_item;

static int ts_cmp_item(const void *a, const void *b)
{
    const ts_sort_item *x = a, *y = b;
    return ts_cmp_entry(&x->e, &y->e, x->p);
}

/* Sorts it[0..n) by start step first, with a counting pass over the steps when they span at most
 * a few times n (every schedule a search or a baseline makes), then each step's few entries by
 * the rest of the order: the same order as one qsort, in O(n + steps) instead of O(n log n)
 * (a million entries: about a tenth of the time). false when the steps are too spread out or
 * memory is short; it is then untouched. */
static bool ts_sort_by_step(ts_sort_item *it, int n)
{
    long lo = it[0].e.step, hi = lo;
    for (int i = 1; i < n; i++) {
        lo = it[i].e.step < lo ? it[i].e.step : lo;
        hi = it[i].e.step > hi ? it[i].e.step : hi;
    }
    if (hi - lo > 4L * n + 1024)
        return false;
    size_t range = (size_t)(hi - lo) + 1;
    int *cnt = calloc(range + 1, sizeof *cnt);
    ts_sort_item *tmp = malloc((size_t)n * sizeof *tmp);
    if (!cnt || !tmp) {
        free(cnt);
        free(tmp);
        return false;
    }
    for (int i = 0; i < n; i++)
        cnt[it[i].e.step - lo + 1]++;
    for (size_t k = 0; k < range; k++)
        cnt[k + 1] += cnt[k];
    for (int i = 0; i < n; i++) /* cnt[step - lo] runs ahead while filling */
        tmp[cnt[it[i].e.step - lo]++] = it[i];
    memcpy(it, tmp, (size_t)n * sizeof *tmp);
    for (int i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && it[j].e.step == it[i].e.step;)
            j++;
        if (j - i > 16) {
            qsort(it + i, (size_t)(j - i), sizeof *it, ts_cmp_item);
            continue;
        }
        for (int k = i + 1; k < j; k++) /* a step's few entries (one per device at most) */
            for (int m = k; m > i && ts_cmp_item(&it[m - 1], &it[m]) > 0; m--) {
                ts_sort_item t = it[m];
                it[m] = it[m - 1];
                it[m - 1] = t;
            }
    }
    free(cnt);
    free(tmp);
    return true;
}

void ts_schedule_sort(ts_schedule *s)
{
    int n = s->nentries;
    int i = 1;
    while (i < n && ts_cmp_entry(&s->entries[i - 1], &s->entries[i], s->placement) <= 0)
        i++;
    if (i >= n)
        return; /* already in order (a replay or an unroll often leaves it so) */
    ts_sort_item *it = malloc((size_t)n * sizeof *it);
    if (!it)
        return; /* order is cosmetic: leave it as it is */
    for (i = 0; i < n; i++)
        it[i] = (ts_sort_item){s->entries[i], s->placement};
    if (!ts_sort_by_step(it, n))
        qsort(it, (size_t)n, sizeof *it, ts_cmp_item);
    for (i = 0; i < n; i++)
        s->entries[i] = it[i].e;
    free(it);
}

int *ts_schedule_index(const ts_schedule *s)
{
    size_t n = (size_t)s->placement->nblocks * (size_t)(s->nmicros > 0 ? s->nmicros : 1);
    int *idx = malloc(n * sizeof(int));
    if (!idx)
        return NULL;
    for (size_t i = 0; i < n; i++)
        idx[i] = -1;
    for (int i = 0; i < s->nentries; i++) {
        const ts_entry *x = &s->entries[i];
        if (x->block < 0 || x->block >= s->placement->nblocks || x->micro < 0 ||
            x->micro >= s->nmicros)
            continue;
        size_t k = (size_t)x->block * (size_t)s->nmicros + (size_t)x->micro;
        if (idx[k] < 0)
            idx[k] = i;
    }
    return idx;
}

void ts_schedule_span(const ts_schedule *s, long *first, long *last)
{
    long f = 0, l = 0;
    for (int i = 0; i < s->nentries; i++) {
        long st = s->entries[i].step, en = st + s->placement->blocks[s->entries[i].block].span;
        if (i == 0 || st < f)
            f = st;
        if (i == 0 || en > l)
            l = en;
    }
    *first = f;
    *last = l;
}

/* The first n micro-batches of a longer schedule: a run that stops early. The repetend is dropped
 * since the window may no longer hold every block; validity is for the validator to judge. */
static int ts_schedule_truncate(const ts_schedule *s, int n, ts_schedule **out, ts_err *e)
{
    ts_schedule *t = ts_schedule_new(s->placement, n);
    if (!t)
        return ts_fail(e, TS_ESYS, "out of memory");
    t->has_memory = s->has_memory;
    memcpy(t->memory, s->memory, (size_t)s->placement->ndevs * sizeof(long));
    for (int i = 0; i < s->nentries; i++) {
        const ts_entry *x = &s->entries[i];
        if (x->micro < n && ts_schedule_add(t, x->block, x->micro, x->step)) {
            ts_schedule_free(t);
            return ts_fail(e, TS_ESYS, "out of memory");
        }
    }
    if (s->search)
        t->search = json_deep_copy(s->search);
    *out = t;
    return TS_OK;
}

/* s with its repetend repeated extra / per more times (extra a multiple of per): the window's
 * entries r = 0 .. extra / per times, P steps and per micro-batches apart, those after it moved
 * by all of that. */
static int ts_schedule_repeat(const ts_schedule *s, long extra, ts_schedule **out, ts_err *e)
{
    long per = s->rep.per, reps = extra / per, P = s->rep.period;
    ts_schedule *u = ts_schedule_new(s->placement, s->nmicros + (int)extra);
    if (!u)
        return ts_fail(e, TS_ESYS, "out of memory");
    u->has_memory = s->has_memory;
    memcpy(u->memory, s->memory, (size_t)s->placement->ndevs * sizeof(long));
    for (int i = 0; i < s->nentries; i++) {
        const ts_entry *x = &s->entries[i];
        int bad = 0;
        if (x->step < s->rep.start)
            bad = ts_schedule_add(u, x->block, x->micro, x->step);
        else if (x->step >= s->rep.end)
            bad = ts_schedule_add(u, x->block, x->micro + (int)extra, x->step + reps * P);
        else
            for (long r = 0; r <= reps && !bad; r++)
                bad = ts_schedule_add(u, x->block, x->micro + (int)(r * per), x->step + r * P);
        if (bad) {
            ts_schedule_free(u);
            return ts_fail(e, TS_ESYS, "out of memory");
        }
    }
    if (ts_schedule_set_repetend_per(u, s->rep.start, s->rep.end, s->rep.per, s->rep.mids)) {
        ts_schedule_free(u);
        return ts_fail(e, TS_ESYS, "out of memory");
    }
    if (s->search)
        u->search = json_deep_copy(s->search);
    ts_schedule_sort(u);
    *out = u;
    return TS_OK;
}

int ts_schedule_unroll(const ts_schedule *s, int n, ts_schedule **out, ts_err *e)
{
    *out = NULL;
    if (n == s->nmicros) {
        *out = ts_schedule_clone(s);
        return *out ? TS_OK : ts_fail(e, TS_ESYS, "out of memory");
    }
    if (n >= 1 && n < s->nmicros)
        return ts_schedule_truncate(s, n, out, e);
    if (!s->has_repetend)
        return ts_fail(
            e, TS_EINPUT,
            "the schedule has %d micro-batches and no repetend, so it cannot be unrolled "
            "to %d",
            s->nmicros, n);
    long extra = (long)n - s->nmicros, per = s->rep.per;
    long whole = (extra + per - 1) / per * per;
    if (whole + s->nmicros > 2000000000L)
        return ts_fail(e, TS_EINPUT, "cannot unroll to %d micro-batches", n);
    if (whole == extra)
        return ts_schedule_repeat(s, extra, out, e);
    /* per micro-batches at a time: the next count that the repetend reaches, run up to n */
    ts_schedule *u = NULL;
    int rc = ts_schedule_repeat(s, whole, &u, e);
    if (rc == TS_OK)
        rc = ts_schedule_truncate(u, n, out, e);
    ts_schedule_free(u);
    return rc;
}

void ts_schedule_normalize(ts_schedule *s)
{
    long first, last;
    if (!s->nentries)
        return;
    ts_schedule_span(s, &first, &last);
    for (int i = 0; i < s->nentries; i++)
        s->entries[i].step -= first;
    if (s->has_repetend) {
        s->rep.start -= first;
        s->rep.end -= first;
    }
}

typedef struct {
    int entry;
    long step;
    int block, micro;
} ts_dev_item;

static int ts_cmp_dev_item(const void *a, const void *b)
{
    const ts_dev_item *x = a, *y = b;
    if (x->step != y->step)
        return x->step < y->step ? -1 : 1;
    if (x->block != y->block)
        return x->block < y->block ? -1 : 1;
    return (x->micro > y->micro) - (x->micro < y->micro);
}

/* The entries' indices by start step (a counting pass; ties in index order), or NULL when the
 * steps are already in order, too spread out (more than a few times the entries) or memory is
 * short: then the index order stands. *by_step: the order given is by step. */
static int *ts_entries_by_step(const ts_schedule *s, bool *by_step)
{
    int n = s->nentries, i = 1;
    while (i < n && s->entries[i - 1].step <= s->entries[i].step)
        i++;
    *by_step = i >= n;
    if (*by_step)
        return NULL;
    long lo = s->entries[0].step, hi = lo;
    for (i = 1; i < n; i++) {
        lo = s->entries[i].step < lo ? s->entries[i].step : lo;
        hi = s->entries[i].step > hi ? s->entries[i].step : hi;
    }
    if (hi - lo > 4L * n + 1024)
        return NULL;
    int *cnt = calloc((size_t)(hi - lo) + 2, sizeof *cnt), *perm = malloc((size_t)n * sizeof *perm);
    if (!cnt || !perm) {
        free(cnt);
        free(perm);
        return NULL;
    }
    for (i = 0; i < n; i++)
        cnt[s->entries[i].step - lo + 1]++;
    for (long k = 0; k <= hi - lo; k++)
        cnt[k + 1] += cnt[k];
    for (i = 0; i < n; i++) /* cnt[step - lo] runs ahead while filling */
        perm[cnt[s->entries[i].step - lo]++] = i;
    free(cnt);
    *by_step = true;
    return perm;
}

/* Sorts one device's items by (step, block, micro). Filled in step order, only the runs of one
 * step need sorting (an instance each on a valid schedule); otherwise the whole list. */
static void ts_sort_dev_items(ts_dev_item *it, int n, bool by_step)
{
    int k = 1;
    while (k < n && ts_cmp_dev_item(&it[k - 1], &it[k]) <= 0)
        k++;
    if (k >= n)
        return;
    if (!by_step) {
        qsort(it, (size_t)n, sizeof *it, ts_cmp_dev_item);
        return;
    }
    for (int i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && it[j].step == it[i].step;)
            j++;
        if (j - i > 1)
            qsort(it + i, (size_t)(j - i), sizeof *it, ts_cmp_dev_item);
    }
}

int ts_schedule_device_orders(const ts_schedule *s, int **off_out, int **order_out)
{
    const ts_placement *p = s->placement;
    int nd = p->ndevs;
    int *off = calloc((size_t)nd + 1, sizeof(int));
    size_t total = 0;
    if (!off)
        return -1;
    for (int i = 0; i < s->nentries; i++) {
        const ts_block *b = &p->blocks[s->entries[i].block];
        for (int k = 0; k < b->ndevices; k++)
            off[b->devices[k] + 1]++;
        total += (size_t)b->ndevices;
    }
    for (int d = 0; d < nd; d++)
        off[d + 1] += off[d];
    int *order = malloc((total ? total : 1) * sizeof(int));
    int *fill = malloc((size_t)nd * sizeof(int));
    ts_dev_item *items = malloc((total ? total : 1) * sizeof *items);
    if (!order || !fill || !items) {
        free(off);
        free(order);
        free(fill);
        free(items);
        return -1;
    }
    memcpy(fill, off, (size_t)nd * sizeof(int));
    /* Filled in step order, each device's list needs at most its ties sorted: O(entries) instead
     * of a sort per device (entries already in step order are taken as they are). */
    bool by_step;
    int *perm = ts_entries_by_step(s, &by_step);
    for (int r = 0; r < s->nentries; r++) {
        int i = perm ? perm[r] : r;
        const ts_entry *x = &s->entries[i];
        const ts_block *b = &p->blocks[x->block];
        for (int k = 0; k < b->ndevices; k++)
            items[fill[b->devices[k]]++] = (ts_dev_item){i, x->step, x->block, x->micro};
    }
    free(perm);
    for (int d = 0; d < nd; d++) {
        ts_sort_dev_items(items + off[d], off[d + 1] - off[d], by_step);
        for (int k = off[d]; k < off[d + 1]; k++)
            order[k] = items[k].entry;
    }
    free(fill);
    free(items);
    *off_out = off;
    *order_out = order;
    return 0;
}
