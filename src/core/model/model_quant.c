/* Quantisation of a derived placement's real-unit blocks (model_rblock.c) into spans and memory
 * units. The time unit is the smallest that keeps the total rounding error within 2 % and the
 * longest span within the allowed maximum; memory is rounded up (never under-counted), and a
 * forward block's memory is released exactly by the blocks that free it. */
#include <math.h>
#include <stdlib.h>
#include "model_internal.h"

/* Largest span allowed and the time unit: the first of a few resolutions whose total rounding
 * error is within 2 %. Units are rounded to two significant digits so that files read well. */
static double ts_time_unit(const ts_dctx *c, int max_span, double *err)
{
    double tmax = 0, unit = 0;
    for (int i = 0; i < c->nb; i++)
        tmax = c->b[i].t > tmax ? c->b[i].t : tmax;
    static const int steps[] = {4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 256, 512, 1024};
    for (size_t k = 0; k < sizeof steps / sizeof steps[0] && steps[k] <= max_span; k++) {
        double u = tmax / steps[k], p = pow(10, floor(log10(u)) - 1);
        u = ceil(u / p) * p;
        double num = 0, den = 0;
        for (int i = 0; i < c->nb; i++) {
            double s = fmax(1, round(c->b[i].t / u));
            num += fabs(s * u - c->b[i].t);
            den += c->b[i].t;
        }
        unit = u;
        *err = den > 0 ? num / den : 0;
        if (*err <= 0.02)
            break;
    }
    return unit;
}

/* Units of one block on its devices: the largest ceil(mem / unit_d), so that no GPU
 * under-counts (a multi-GPU block has one memory figure). */
static long ts_block_units(const ts_rblock *b, const double *unit)
{
    long u = 0;
    for (int d = b->first; d < b->first + b->ndev; d++) {
        long x = (long)ceil(b->mem / unit[d] - 1e-9);
        u = x > u ? x : u;
    }
    return u;
}

/* The common capacity C (units) and each GPU's unit free_d / C: the first C, doubling from 64,
 * whose rounding up stays within 2 % of the activation bytes. */
static long ts_mem_units_pick(const ts_dctx *c, const double *freeb, double *unit, double *err)
{
    long C = 64;
    for (;; C *= 2) {
        double num = 0, den = 0;
        for (int d = 0; d < c->D; d++)
            unit[d] = freeb[d] / (double)C;
        for (int i = 0; i < c->nb; i++)
            if (c->b[i].mem > 0) {
                long u = ts_block_units(&c->b[i], unit);
                for (int d = c->b[i].first; d < c->b[i].first + c->b[i].ndev; d++) {
                    num += u * unit[d] - c->b[i].mem;
                    den += c->b[i].mem;
                }
            }
        *err = den > 0 ? num / den : 0;
        if (*err <= 0.02 || C >= (1L << 24))
            return C;
    }
}

/* Memory units: positive deltas rounded up; each owner's units split over its releasers by
 * their shares, the last one taking the remainder so that a micro-batch nets to zero. */
static void ts_mem_units(const ts_dctx *c, const double *unit, long *mu)
{
    for (int i = 0; i < c->nb; i++)
        mu[i] = c->b[i].mem > 0 ? ts_block_units(&c->b[i], unit) : 0;
    for (int o = 0; o < c->nb; o++) {
        long left = mu[o];
        int last = -1;
        for (int i = 0; i < c->nb; i++)
            if (c->b[i].owner == o) {
                if (last >= 0) {
                    long x = (long)llround(c->b[last].frac * mu[o]);
                    x = x > left ? left : x;
                    mu[last] = -x;
                    left -= x;
                }
                last = i;
            }
        if (last >= 0)
            mu[last] = -left;
    }
}

static int ts_d_build(const ts_dctx *c, const char *name, double tu, const long *mu,
                      ts_placement **out, ts_err *e)
{
    ts_placement *p = ts_placement_new(name, c->D);
    int *devs = malloc((size_t)c->D * sizeof(int));
    if (!p || !devs)
        goto oom;
    for (int i = 0; i < c->nb; i++) {
        const ts_rblock *b = &c->b[i];
        for (int d = 0; d < b->ndev; d++)
            devs[d] = b->first + d;
        long span = lround(fmax(1, round(b->t / tu)));
        if (span > TS_MAX_SPAN || labs(mu[i]) > TS_MAX_MEMORY) {
            ts_fail(e, TS_ENOANSWER, "block %s: span or memory beyond the placement limits", b->id);
            goto fail;
        }
        if (ts_placement_add_block(p, b->id, b->kind, (int)span, (int)mu[i], b->ndev, devs) < 0)
            goto oom;
    }
    for (int i = 0; i < c->ne; i++) {
        long d = lround(round(c->ed[i].delay / tu));
        if (ts_placement_add_edge(p, c->ed[i].src, c->ed[i].dst,
                                  (int)(d > TS_MAX_DELAY ? TS_MAX_DELAY : d), 0) < 0)
            goto oom;
    }
    free(devs);
    *out = p;
    return TS_OK;
oom:
    ts_fail(e, TS_ESYS, "out of memory building the placement");
fail:
    free(devs);
    ts_placement_free(p);
    return e ? e->code : TS_ESYS;
}

int ts_d_quantise(ts_dctx *c, const char *name, ts_placement **out, ts_derive_info *info, ts_err *e)
{
    int max_span = c->o->max_span > 0 ? c->o->max_span : 64;
    info->time_unit_s = ts_time_unit(c, max_span, &info->time_error);
    long *mu = calloc((size_t)c->nb + 1, sizeof(long));
    double *freeb = calloc((size_t)c->D, sizeof(double));
    info->memory_unit_dev = calloc((size_t)c->D, sizeof(double));
    if (!mu || !freeb || !info->memory_unit_dev) {
        free(mu);
        free(freeb);
        return ts_fail(e, TS_ESYS, "out of memory");
    }
    double usable = (c->h->hbm_gb - c->h->workspace_gb) * 1e9;
    info->static_bytes_max = 0;
    for (int d = 0; d < c->D; d++) {
        freeb[d] = usable - c->stat[d];
        info->static_bytes_max = fmax(info->static_bytes_max, c->stat[d]);
    }
    info->capacity = ts_mem_units_pick(c, freeb, info->memory_unit_dev, &info->memory_error);
    info->capacity_bytes = usable - info->static_bytes_max;
    info->memory_unit_bytes = info->capacity_bytes / (double)info->capacity;
    ts_mem_units(c, info->memory_unit_dev, mu);
    int rc = ts_d_build(c, name, info->time_unit_s, mu, out, e);
    free(mu);
    free(freeb);
    return rc;
}
