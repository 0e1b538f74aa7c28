/* Internal to the solver library: the repetend model (repetend.c), the second of the two problem
 * shapes: one instance of every block starting inside a window [0, P) (it may run past the end:
 * exclusivity is on a circle of length P) with micro-batch offsets (mids), for lazy and fast. It
 * encodes as the instance model does (ts_imodel.h); its Z3 types stay inside repetend.c. */
#ifndef TS_RMODEL_H
#define TS_RMODEL_H

#include <stdbool.h>
#include "ts_placement.h"
#include "ts_search_ctx.h"

/* One incremental Z3 model of the repetend problem for every candidate of a placement: starts
 * s[b] in the window [0, P), circular exclusivity, no fully idle step, and, behind assumption
 * literals, each candidate's dependencies (s_dst + (m_src + dist - m_dst) * P >= s_src + span +
 * delay) and memory (the level its offsets leave, plus the running sum, within the capacity). */
typedef struct ts_rmodel ts_rmodel;

typedef struct {
    /* start and period filled */
    bool found;
    long period;
    /* period minimal for the candidate, or no period <= hi exists */
    bool proven;
    bool timed_out;
} ts_rres;

/* cap: ndevs capacities, NULL: unconstrained */
int ts_rmodel_new(const ts_placement *p, const long *cap, ts_rmodel **out, ts_err *e);
/* May a search with this time limit (<= 0: none) build p's repetend model at all? Its size is
 * quadratic in the blocks (TS_RMODEL_MAX_PAIRS, and TS_RMODEL_MAX_PAIRS_TIMED with a limit). */
static inline bool ts_rmodel_affordable(const ts_placement *p, double time_limit)
{
    long pairs = (long)p->nblocks * p->nblocks;
    return pairs <= (time_limit > 0 ? TS_RMODEL_MAX_PAIRS_TIMED : TS_RMODEL_MAX_PAIRS);
}
void ts_rmodel_free(ts_rmodel *m);
/* Smallest period in [lo, hi] (hi < 0: no upper bound) of the repetend with offsets mids. */
int ts_rmodel_solve(ts_rmodel *m, const int *mids, long lo, long hi, const ts_budget *b,
                    double call_cap, long *start, ts_rres *r, ts_err *e);
/* Z3 checks so far */
long ts_rmodel_calls(const ts_rmodel *m);

#endif
