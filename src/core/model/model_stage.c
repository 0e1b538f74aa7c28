/* Stage partitioning, after Alpa's inter-operator pass (Zheng et al., OSDI 2022, section 5.2):
 * the iteration time of a pipeline of S stages over N micro-batches is modelled as
 * sum_s t_s + (N - 1) max_s t_s. For a fixed bound t_max on every stage, a DP over the layer
 * chain minimises the sum; enumerating t_max over the stage costs that can occur gives the
 * optimum. We find the smallest feasible t_max by bisection (feasibility grows with t_max), and
 * stop the enumeration once sum_lower_bound + (N - 1) t_max cannot beat the best found. */
#include <float.h>
#include <stdlib.h>
#include <string.h>
#include "ts_model.h"

typedef struct {
    const ts_stage_problem *p;
    double *pc, *ps, *pa; /* prefix sums of cost, stat, act */
    double *g; /* g[s * (n + 1) + i]: least sum for items [0, i) in stages 0..s */
    int *from; /* argmin j */
} ts_stage_dp;

static double ts_seg_time(const ts_stage_dp *d, int s, int j, int i)
{
    const ts_stage_problem *p = d->p;
    return d->pc[i] - d->pc[j] + (s < p->S - 1 ? p->send[i - 1] : 0);
}

static bool ts_seg_fits(const ts_stage_dp *d, int s, int j, int i)
{
    const ts_stage_problem *p = d->p;
    double mem = d->ps[i] - d->ps[j] + p->inflight[s] * (d->pa[i] - d->pa[j]);
    if (p->stat_cap && d->ps[i] - d->ps[j] > p->stat_cap[s])
        return false;
    return mem <= p->cap[s];
}

/* Least sum of stage times with every stage within tmax; DBL_MAX when none. */
static double ts_stage_run(ts_stage_dp *d, double tmax)
{
    const ts_stage_problem *p = d->p;
    int n = p->n, S = p->S, w = n + 1;
    for (int k = 0; k < S * w; k++)
        d->g[k] = DBL_MAX;
    for (int s = 0; s < S; s++)
        for (int i = s + 1; i <= n - (S - 1 - s); i++)
            for (int j = s == 0 ? 0 : s; j < i; j++) {
                if (s == 0 && j > 0)
                    break;
                double prev = s == 0 ? 0 : d->g[(s - 1) * w + j];
                if (prev == DBL_MAX)
                    continue;
                double t = ts_seg_time(d, s, j, i);
                if (t > tmax || !ts_seg_fits(d, s, j, i))
                    continue;
                if (prev + t < d->g[s * w + i]) {
                    d->g[s * w + i] = prev + t;
                    d->from[s * w + i] = j;
                }
            }
    return d->g[(S - 1) * w + n];
}

static void ts_stage_cuts(const ts_stage_dp *d, int *cut)
{
    int w = d->p->n + 1, i = d->p->n;
    for (int s = d->p->S - 1; s >= 0; s--) {
        int j = d->from[s * w + i];
        cut[s] = j;
        i = j;
    }
}

static int ts_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Every stage time that a feasible segment can have, sorted and unique. */
static double *ts_stage_candidates(const ts_stage_dp *d, int *count)
{
    const ts_stage_problem *p = d->p;
    size_t cap = (size_t)p->S * (size_t)(p->n + 1) * (size_t)(p->n + 1) / 2 + 1, k = 0;
    double *c = malloc(cap * sizeof(double));
    if (!c)
        return NULL;
    for (int s = 0; s < p->S; s++)
        for (int j = s; j < p->n; j++)
            for (int i = j + 1; i <= p->n - (p->S - 1 - s) && k < cap; i++)
                if (ts_seg_fits(d, s, j, i))
                    c[k++] = ts_seg_time(d, s, j, i);
    qsort(c, k, sizeof(double), ts_cmp_double);
    size_t u = 0;
    for (size_t i = 0; i < k; i++)
        if (u == 0 || c[i] != c[u - 1])
            c[u++] = c[i];
    *count = (int)u;
    return c;
}

static int ts_stage_search(ts_stage_dp *d, int *cut, ts_err *e)
{
    const ts_stage_problem *p = d->p;
    int nc = 0;
    double *cand = ts_stage_candidates(d, &nc);
    if (!cand)
        return ts_fail(e, TS_ESYS, "stage partition: out of memory");
    /* Bisection for the first candidate with a feasible partition. */
    int lo = 0, hi = nc;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (ts_stage_run(d, cand[mid]) < DBL_MAX)
            hi = mid;
        else
            lo = mid + 1;
    }
    if (lo == nc) {
        free(cand);
        return ts_fail(e, TS_ENOANSWER, "no partition into %d stages fits the memory", p->S);
    }
    double best = DBL_MAX;
    for (int k = lo; k < nc; k++) {
        if (d->pc[p->n] + (p->N - 1) * cand[k] >= best)
            break;
        double sum = ts_stage_run(d, cand[k]);
        if (sum < DBL_MAX && sum + (p->N - 1) * cand[k] < best) {
            best = sum + (p->N - 1) * cand[k];
            ts_stage_cuts(d, cut);
        }
    }
    free(cand);
    return TS_OK;
}

int ts_stage_partition(const ts_stage_problem *p, int *cut, double *objective, ts_err *e)
{
    if (p->S < 1 || p->n < p->S)
        return ts_fail(e, TS_EINPUT, "cannot cut %d layers into %d stages (each needs a layer)",
                       p->n, p->S);
    ts_stage_dp d = {p, NULL, NULL, NULL, NULL, NULL};
    size_t w = (size_t)p->n + 1;
    d.pc = calloc(w, sizeof(double));
    d.ps = calloc(w, sizeof(double));
    d.pa = calloc(w, sizeof(double));
    d.g = malloc((size_t)p->S * w * sizeof(double));
    d.from = calloc((size_t)p->S * w, sizeof(int));
    int rc;
    if (!d.pc || !d.ps || !d.pa || !d.g || !d.from) {
        rc = ts_fail(e, TS_ESYS, "stage partition: out of memory");
    } else {
        for (int i = 0; i < p->n; i++) {
            d.pc[i + 1] = d.pc[i] + p->cost[i];
            d.ps[i + 1] = d.ps[i] + p->stat[i];
            d.pa[i + 1] = d.pa[i] + p->act[i];
        }
        rc = ts_stage_search(&d, cut, e);
        if (!rc && objective)
            *objective = ts_stage_objective(p, cut);
    }
    free(d.pc);
    free(d.ps);
    free(d.pa);
    free(d.g);
    free(d.from);
    return rc;
}

double ts_stage_objective(const ts_stage_problem *p, const int *cut)
{
    double sum = 0, mx = 0;
    for (int s = 0; s < p->S; s++) {
        int j = cut[s], i = s + 1 < p->S ? cut[s + 1] : p->n;
        if (i <= j)
            return -1;
        double t = 0, st = 0, ac = 0;
        for (int k = j; k < i; k++) {
            t += p->cost[k];
            st += p->stat[k];
            ac += p->act[k];
        }
        if (s < p->S - 1)
            t += p->send[i - 1];
        if (st + p->inflight[s] * ac > p->cap[s] || (p->stat_cap && st > p->stat_cap[s]))
            return -1;
        sum += t;
        mx = t > mx ? t : mx;
    }
    return sum + (p->N - 1) * mx;
}
