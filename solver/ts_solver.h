/* Schedule search over Z3. This public header exposes no Z3 type. */
#ifndef TS_SOLVER_H
#define TS_SOLVER_H

#include <stdbool.h>
#include "ts_schedule.h"

typedef enum { TS_METHOD_LAZY = 0, TS_METHOD_FAST, TS_METHOD_FULL, TS_METHOD_MODULO } ts_method;

const char *ts_method_name(ts_method m);
int ts_method_parse(const char *s, ts_method *out); /* 0 on success */

typedef struct {
    const char *phase;  /* e.g. "repetend", "warmup", "cooldown", "period" */
    long tried, total;  /* candidates tried / to try (total 0 when unknown) */
    long best_bubbles;  /* -1 while none found */
    double elapsed;     /* seconds since the search began */
} ts_search_progress;

typedef struct {
    ts_method method;
    bool has_memory;   /* false: unconstrained */
    long memory;       /* per-device capacity (uniform) */
    int nmicros;       /* k: micro-batches per repetend; 0 = search k = 1 .. K */
    int micro_batches; /* N: full's problem size, and where summaries are taken (default 128) */
    double time_limit; /* seconds for the whole search; <= 0 means no limit */
    double accept;     /* fast: accept a completion within this fraction (default 0.05) */
    void (*progress)(void *ud, const ts_search_progress *p); /* may be NULL */
    void *progress_ud;
} ts_search_opts;

void ts_search_opts_init(ts_search_opts *o);

#define TS_MAX_PHASES 8
typedef struct {
    int k;             /* micro-batches one repetend touches (0 for full) */
    long period;       /* repetend period (0 for full) */
    long bubbles;      /* period - max_d load(d); 0 = optimal steady state */
    bool optimal;      /* proven optimal for its sub-problem */
    bool timed_out;    /* a time limit cut the search */
    long candidates;   /* offset assignments / periods tried */
    double seconds;    /* wall time of the whole search */
    int nphases;
    struct {
        char name[24];
        double seconds;
    } phases[TS_MAX_PHASES];
    long min_memory;   /* smallest feasible capacity when known, -1 otherwise */
    bool completion_optimal; /* warm-up and cool-down steps proven minimal (lazy, fast) */
} ts_search_stats;

/* Finds a schedule of p. On TS_OK *out is a schedule (with its repetend when the method makes
 * one) for stats->k or opts->micro_batches micro-batches; it carries its search info. Returns
 * TS_ENOANSWER when no schedule exists within the limits (message says why), TS_EINPUT for a
 * request the method cannot take. */
int ts_search(const ts_placement *p, const ts_search_opts *o, ts_schedule **out,
              ts_search_stats *st, ts_err *e);

/* The methods behind ts_search, same contract (st may be NULL; it is reset first). */
int ts_search_lazy(const ts_placement *p, const ts_search_opts *o, ts_schedule **out,
                   ts_search_stats *st, ts_err *e);
int ts_search_fast(const ts_placement *p, const ts_search_opts *o, ts_schedule **out,
                   ts_search_stats *st, ts_err *e);
int ts_search_full(const ts_placement *p, const ts_search_opts *o, ts_schedule **out,
                   ts_search_stats *st, ts_err *e);
int ts_search_modulo(const ts_placement *p, const ts_search_opts *o, ts_schedule **out,
                     ts_search_stats *st, ts_err *e);

#endif
