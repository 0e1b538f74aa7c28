/* Internal to the solver library: the exact search's own model of an instance set
 * (exact_model.c), filled into a ts_imodel so that exact.c's bounded search runs on it. */
#ifndef TS_EXACT_MODEL_H
#define TS_EXACT_MODEL_H

#include "ts_imodel.h"
#include "ts_iset.h"

/* The model of s within ms (capacity fixed) for a proof: ts_imodel_starts' starts and arcs, one
 * order literal per free pair sharing a device, memory as pseudo-Boolean sums over the order
 * literals, and, where a device's memory falls into pairs (an allocating block and the one that
 * frees it), the orders its capacity forces. No load sums and no transitivity clauses (both cost
 * more Z3 units on the small-N set); every arithmetic atom is a difference, for Z3's
 * difference-logic solver. m->H is the makespan term (m->hb bounds it); m->C is m->H, unused.
 * Free with ts_imodel_free. */
int ts_exact_model_build(ts_imodel *m, const ts_iset *s, const ts_memspec *ms, ts_err *e);

#endif
