/* Internal to the solver library: the exact search's own model of an instance set
 * (exact_model.c), filled into a ts_imodel so that exact.c's bounded search runs on it. */
#ifndef TS_EXACT_MODEL_H
#define TS_EXACT_MODEL_H

#include "ts_encode.h"

/* The model of s within ms (capacity fixed) for a proof: memory as pseudo-Boolean sums over the
 * order literals, each device's orders transitive as clauses, and ts_imodel_build's load sums.
 * m->H is the makespan term (m->hb bounds it); m->C is unused. Free with ts_imodel_free. */
int ts_exact_model_build(ts_imodel *m, const ts_iset *s, const ts_memspec *ms, ts_err *e);

#endif
