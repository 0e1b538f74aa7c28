/* Token slicing, after TeraPipe (Li et al., ICML 2021, section 3.3): a sequence cut into slices
 * l_1..l_M goes through K pipeline stages in sum_i t_i + (K - 1) max_i t_i, where a slice's time
 * grows with the tokens before it (its attention reads them). For a bound t_max on every slice, a
 * DP over token positions minimises the sum; enumerating t_max over the slice times that can
 * occur gives the optimum. Positions are granules of g tokens, as in TeraPipe's implementation. */
#include <float.h>
#include <stdlib.h>
#include "ts_model.h"

typedef struct {
    int L, maxk;
    const double *c; /* c[j * (L + 1) + i]: time of the slice [j, i) */
    double *f; /* f[k * (L + 1) + i]: least sum covering [0, i) with k slices */
    int *from;
} ts_slice_dp;

/* Least sum with every slice within tmax; *k_out receives the best slice count. */
static double ts_slice_run(ts_slice_dp *d, double tmax, int *k_out)
{
    int w = d->L + 1;
    for (int k = 0; k <= d->maxk; k++)
        for (int i = 0; i <= d->L; i++)
            d->f[k * w + i] = (k == 0 && i == 0) ? 0 : DBL_MAX;
    for (int k = 1; k <= d->maxk; k++)
        for (int i = k; i <= d->L; i++)
            for (int j = k - 1; j < i; j++) {
                double prev = d->f[(k - 1) * w + j], t = d->c[j * w + i];
                if (prev == DBL_MAX || t > tmax)
                    continue;
                if (prev + t < d->f[k * w + i]) {
                    d->f[k * w + i] = prev + t;
                    d->from[k * w + i] = j;
                }
            }
    double best = DBL_MAX;
    for (int k = 1; k <= d->maxk; k++)
        if (d->f[k * w + d->L] < best) {
            best = d->f[k * w + d->L];
            *k_out = k;
        }
    return best;
}

static int ts_cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int ts_slice_search(ts_slice_dp *d, int K, int *len, double *objective)
{
    int w = d->L + 1, n = 0, k = 0, bestk = 0;
    double *cand = malloc((size_t)w * (size_t)w * sizeof(double));
    if (!cand)
        return 0;
    for (int j = 0; j < d->L; j++)
        for (int i = j + 1; i <= d->L; i++)
            cand[n++] = d->c[j * w + i];
    qsort(cand, (size_t)n, sizeof(double), ts_cmp_dbl);
    double lb = ts_slice_run(d, DBL_MAX, &k), best = DBL_MAX;
    int lo = 0, hi = n - 1; /* the largest candidate always admits one slice of everything */
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (ts_slice_run(d, cand[mid], &k) < DBL_MAX)
            hi = mid;
        else
            lo = mid + 1;
    }
    for (int c = lo; c < n && lb + (K - 1) * cand[c] < best; c++) {
        if (c > lo && cand[c] == cand[c - 1])
            continue;
        double sum = ts_slice_run(d, cand[c], &k);
        if (sum == DBL_MAX || sum + (K - 1) * cand[c] >= best)
            continue;
        best = sum + (K - 1) * cand[c];
        bestk = k;
        for (int s = k, i = d->L; s >= 1; s--) { /* lengths, last slice first */
            int j = d->from[s * w + i];
            len[s - 1] = i - j;
            i = j;
        }
    }
    free(cand);
    *objective = best;
    return bestk;
}

int ts_slice_tokens(int L, int g, int maxk, int K, ts_slice_cost_fn cost, void *ud, int *len,
                    double *objective)
{
    if (L < 1 || maxk < 1)
        return 0;
    if (maxk > L)
        maxk = L;
    int w = L + 1, k = 0;
    double *c = malloc((size_t)w * (size_t)w * sizeof(double));
    ts_slice_dp d = {L, maxk, c, malloc((size_t)(maxk + 1) * (size_t)w * sizeof(double)),
                     calloc((size_t)(maxk + 1) * (size_t)w, sizeof(int))};
    if (c && d.f && d.from) {
        for (int j = 0; j < L; j++)
            for (int i = j + 1; i <= L; i++)
                c[j * w + i] = cost(ud, j * g, (i - j) * g);
        k = ts_slice_search(&d, K, len, objective);
    }
    free(c);
    free(d.f);
    free(d.from);
    return k;
}

double ts_slice_objective(int nslices, const int *len, int g, int K, ts_slice_cost_fn cost,
                          void *ud)
{
    double sum = 0, mx = 0;
    for (int i = 0, p = 0; i < nslices; p += len[i++]) {
        double t = cost(ud, p * g, len[i] * g);
        sum += t;
        mx = t > mx ? t : mx;
    }
    return sum + (K - 1) * mx;
}
