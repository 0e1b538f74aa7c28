/* Every cap on a search's effort, in one table: the seconds of effort one solver call or phase
 * may spend, the sizes beyond which a step is skipped or a request refused, and the shares of the
 * portfolio. Each is a measured constant (the comment above it says where it was measured), not
 * an option: TS_SEARCH_CAPS lists them all, the constructions' too (ts_construct_caps.h), and
 * the operations layer makes each a row of the search's option table that `tessel search --help`
 * and tessel.options("search") show with its value. This header exposes no Z3 type. */
#ifndef TS_SEARCH_CAPS_H
#define TS_SEARCH_CAPS_H

#include "ts_construct_caps.h"

/* Seconds of effort (TS_EFFORT_PER_SECOND units each) one solver call may spend when the
 * search has no time limit (with one, a call gets at most what is left). A cut call keeps the
 * best answer so far, reported as not proven. */
/* one repetend check of lazy */
#define TS_LAZY_CALL_CAP 60.0
/* one check of fast's memory repair */
#define TS_FAST_CALL_CAP 30.0
/* one makespan bound of full (with a limit: a sixth of it) */
#define TS_FULL_CALL_CAP 120.0
/* one period of modulo */
#define TS_MODULO_CALL_CAP 600.0
/* one step bound of the completion */
#define TS_COMPLETE_CALL_CAP 3.0
/* Seconds of a whole step. */
/* the warm-up's or the cool-down's minimisation */
#define TS_COMPLETE_PHASE_CAP 8.0
/* modulo's latency minimisation and completion, no limit */
#define TS_MODULO_LATENCY_CAP 30.0
/* Sizes beyond which a step is skipped or refused (measured; see the file that uses each). */
/* candidates screened together */
#define TS_LAZY_BATCH 4096
/* candidates beyond which lazy is seeded by fast */
#define TS_LAZY_LARGE 200000
/* Lazy's seed and candidates get the time limit less what finishing will cost: the completion
 * or the fallback, the label and the caller's summary at N, about TS_FINISH_SECONDS per instance
 * at N and device it runs on (measured on a loaded 2-core machine: 1.5 s for the 4096-device
 * vshape's 1M, 1.2 s for a 20,000-block chain's 2.56M, 2.8 s for the 4096-device nnshape's 3.1M);
 * at least TS_LAZY_SHARE_MIN of the limit and at most TS_LAZY_SHARE of it. */
#define TS_FINISH_SECONDS 1.5e-6
#define TS_LAZY_SHARE_MIN 0.5
#define TS_LAZY_SHARE 0.95
/* N x blocks that full takes at all */
#define TS_FULL_MAX_INSTANCES 200000L
/* instance model terms: above, the greedy stands (building one costs tens of seconds and GBs) */
#define TS_IMODEL_MAX_TERMS 400000L
/* With a time limit, the completion's cap: Z3 overruns its timeout while it takes in a large
 * model. Measured at --time-limit 5 (lazy, memory 50, loaded 2-core machine): building the
 * model took 0.34 s at 66,928 terms (kshape, 32 devices; phase ended 0.23 s late), 0.9-1.1 s at
 * 229,640 (kshape, 48; 0.76 s late) and 1.8 s at 339,264 (mshape, 32). Above it the greedy
 * completion stands (not proven optimal) or the fallback answers. */
#define TS_IMODEL_MAX_TERMS_TIMED 100000L
/* blocks^2 of lazy's path table (8 bytes each): above, its screen bounds the period by the load */
#define TS_LAZY_MAX_PATHS 4000000L
/* blocks^2 of lazy's repetend model (its no-idle terms): above, only the construction answers */
#define TS_RMODEL_MAX_PAIRS 4000000L
/* With a time limit, a smaller cap: Z3 does not look at its timeout while it takes in a large
 * repetend model, so one check ran 13 s past a 5 s limit at 160 blocks (vshape at 80 devices;
 * lazy at 128 blocks ended 2.6 s late, at 96 blocks 0.1 s). Above it, fast skips its memory
 * repair and lazy its solver calls; the solver-free construction and the fallback answer. */
#define TS_RMODEL_MAX_PAIRS_TIMED 10000L
/* warm-up and cool-down instances modulo completes */
#define TS_MODULO_COMPLETE_MAX 64
/* placements of multi-device blocks in modulo's memory bound */
#define TS_BOUND_MAX_COMBOS 200000L
/* modulo greedy's reservation table */
#define TS_GREEDY_MAX_CELLS (64L * 1024 * 1024)
/* modulo's clustered construction: the blocks on several devices it splits into two clusters
 * (every split and every opening of the second: 2^(m-1) x P reservations), the periods it
 * tries, the constructions one call may make in all (a count, so the answer does not depend
 * on the machine; half of them for the delays), and the reservations nearest to fitting memory
 * that get delayed allocations. 1500 constructions: about 0.3 s on nnshape's 2-fold at 16
 * devices (2 cores), 75,000 units of effort. */
#define TS_CLUSTER_MAX_MULTI 10
#define TS_CLUSTER_MAX_PERIOD 512L
#define TS_CLUSTER_MAX_TRIES 1500L
#define TS_CLUSTER_DELAYED 4
/* k x blocks of modulo's schedule: above, refused (4096-device vshape: k = 4096, 33M
 * instances, tens of seconds and GBs to build and check) */
#define TS_MODULO_MAX_INSTANCES 2000000L
/* allocating x freeing blocks of one device in modulo's memory plan (a dense flow, quadratic
 * in memory and cubic in time): above, refused */
#define TS_MPLAN_MAX_PAIRS 100000L

/* The exact search at N (exact.c): the sizes it takes, and its effort in Z3 resource units
 * (rlimit) per second of the time limit (auto). Measured on the small-N set
 * (tests/bench/quality.sh QUALITY_SETS=small): see there for what it proves. */
#define TS_EXACT_MAX_MICROS 16
#define TS_EXACT_MAX_DEVS 8
#define TS_EXACT_MAX_INSTANCES 256
#define TS_EXACT_MAX_TERMS 200000L
#define TS_EXACT_EFFORT_PER_SECOND 300000L

/* ---- the portfolio and the methods' shares ------------------------------------------------ */

/* auto's and a compare row's time limit when the request has none: compare's default */
#define TS_AUTO_DEFAULT_LIMIT 60.0
#define TS_SEARCH_ROW_DEFAULT_LIMIT 60.0
/* Where a row is left out of compare's default table, and so out of auto's candidates (unless
 * nothing else has answered): lazy beyond these sizes. */
#define TS_SEARCH_ROW_LAZY_DEVS 8
#define TS_SEARCH_ROW_LAZY_BLOCKS 24
/* candidates kept for the improvement phase */
#define TS_AUTO_POOL 3
/* Effort units per instance that measuring a candidate at N costs (unroll, tighten, validate,
 * replay: 0.2-0.3 s for 133,000 instances, about 2 us an instance, at TS_EFFORT_PER_SECOND) */
#define TS_AUTO_MEASURE_EFFORT 0.2
/* Effort units per instance of scanning a baseline as built (its device orders, memory and
 * makespan), before any measurement */
#define TS_AUTO_SCAN_EFFORT 0.05
/* Instances (N x blocks) above which full's greedy start is skipped: its list scheduling grows
 * faster than the instances (0.1-0.25 s at 8,700-17,000 instances, 14 s at 133,000: nnshape on
 * 128 devices, N 512, where it took the whole limit from the searches) */
#define TS_AUTO_GREEDY_MAX_INSTANCES 32768L
/* The improvement row's effort per second of the time limit, in moves times instances (a
 * move's replay costs about the instance count): a count, not a clock, so that the phase does
 * the same work on a quiet machine and a busy one. Measured at 3e7 to 6e7 per second on one
 * busy core (nnshape, 8 devices, N 32 and 128), so the phase fits its share with room. */
#define TS_AUTO_IMPROVE_EFFORT 1.2e7
/* The large-neighbourhood search: this share of the limit for one window's solver calls (its
 * whole share is its row's) */
#define TS_AUTO_LNS_WINDOW 0.05
/* Effort units per schedule entry for one scan that bounds a window or composes a result (each
 * entry's edges and devices once, then the replay and validation: about what measuring a
 * candidate costs in auto, TS_AUTO_MEASURE_EFFORT). */
#define TS_LNS_SCAN_EFFORT 0.2
/* Model terms (ts_imodel_size) above which a window is left alone: building the model alone
 * would cost more than most windows' search. */
#define TS_LNS_MAX_TERMS 60000L
/* instances at N above which the label's proof at N (the bound's, the exact search's) is not
 * attempted */
#define TS_LABEL_MAX_INSTANCES 2000000L

/* X(name, value, unit, what it caps): every cap above, and the constructions'. */
#define TS_SEARCH_CAPS(X)                                                                          \
    X(lazy_call, TS_LAZY_CALL_CAP, "s of effort", "one repetend check of lazy")                    \
    X(fast_call, TS_FAST_CALL_CAP, "s of effort", "one check of fast's memory repair")             \
    X(full_call, TS_FULL_CALL_CAP, "s of effort", "one makespan bound of full")                    \
    X(modulo_call, TS_MODULO_CALL_CAP, "s of effort", "one period of modulo")                      \
    X(complete_call, TS_COMPLETE_CALL_CAP, "s of effort", "one step bound of the completion")      \
    X(complete_phase, TS_COMPLETE_PHASE_CAP, "s of effort", "the warm-up's or cool-down's")        \
    X(modulo_latency, TS_MODULO_LATENCY_CAP, "s of effort", "modulo's latency minimisation")       \
    X(lazy_batch, TS_LAZY_BATCH, "candidates", "lazy: screened together")                          \
    X(lazy_large, TS_LAZY_LARGE, "candidates", "lazy: seeded by fast above")                       \
    X(finish_per_instance, TS_FINISH_SECONDS, "s", "kept back per instance to finish at N")        \
    X(lazy_share_min, TS_LAZY_SHARE_MIN, "of the limit", "lazy's search, at least")                \
    X(lazy_share, TS_LAZY_SHARE, "of the limit", "lazy's search, at most")                         \
    X(full_instances, TS_FULL_MAX_INSTANCES, "instances", "full: refused above")                   \
    X(imodel_terms, TS_IMODEL_MAX_TERMS, "terms", "instance model: the greedy stands above")       \
    X(imodel_terms_timed, TS_IMODEL_MAX_TERMS_TIMED, "terms", "the same, with a time limit")       \
    X(lazy_paths, TS_LAZY_MAX_PATHS, "blocks^2", "lazy's path table: screen by load above")        \
    X(rmodel_pairs, TS_RMODEL_MAX_PAIRS, "blocks^2", "repetend model: construction only above")    \
    X(rmodel_pairs_timed, TS_RMODEL_MAX_PAIRS_TIMED, "blocks^2", "the same, with a time limit")    \
    X(modulo_complete, TS_MODULO_COMPLETE_MAX, "instances", "modulo: warm-up and cool-down")       \
    X(bound_combos, TS_BOUND_MAX_COMBOS, "placements", "modulo's memory bound")                    \
    X(greedy_cells, TS_GREEDY_MAX_CELLS, "cells", "modulo greedy's reservation table")             \
    X(cluster_multi, TS_CLUSTER_MAX_MULTI, "blocks", "clustered construction: split")              \
    X(cluster_period, TS_CLUSTER_MAX_PERIOD, "steps", "clustered construction: periods")           \
    X(cluster_tries, TS_CLUSTER_MAX_TRIES, "constructions", "clustered construction: per call")    \
    X(cluster_delayed, TS_CLUSTER_DELAYED, "reservations", "clustered: with delayed allocations")  \
    X(modulo_instances, TS_MODULO_MAX_INSTANCES, "instances", "modulo: refused above")             \
    X(mplan_pairs, TS_MPLAN_MAX_PAIRS, "pairs", "modulo's memory plan: refused above")             \
    X(exact_micros, TS_EXACT_MAX_MICROS, "micro-batches", "exact search: at most")                 \
    X(exact_devices, TS_EXACT_MAX_DEVS, "devices", "exact search: at most")                        \
    X(exact_instances, TS_EXACT_MAX_INSTANCES, "instances", "exact search: at most")               \
    X(exact_terms, TS_EXACT_MAX_TERMS, "terms", "exact search: at most")                           \
    X(exact_effort, TS_EXACT_EFFORT_PER_SECOND, "units/s", "exact search: effort per second")      \
    X(default_limit, TS_AUTO_DEFAULT_LIMIT, "s", "auto's and compare's, when none is given")       \
    X(row_lazy_devices, TS_SEARCH_ROW_LAZY_DEVS, "devices", "lazy in auto and compare: at most")   \
    X(row_lazy_blocks, TS_SEARCH_ROW_LAZY_BLOCKS, "blocks", "lazy in auto and compare: at most")   \
    X(auto_pool, TS_AUTO_POOL, "candidates", "auto: kept for the improvement phase")               \
    X(auto_measure, TS_AUTO_MEASURE_EFFORT, "units", "auto: per instance measured")                \
    X(auto_scan, TS_AUTO_SCAN_EFFORT, "units", "auto: per instance of a baseline scanned")         \
    X(auto_greedy, TS_AUTO_GREEDY_MAX_INSTANCES, "instances",                                      \
      "full's greedy start: skipped above")                                                        \
    X(improve_effort, TS_AUTO_IMPROVE_EFFORT, "moves x inst./s", "the improvement row")            \
    X(lns_window, TS_AUTO_LNS_WINDOW, "of the limit", "large-neighbourhood search: per window")    \
    X(lns_scan, TS_LNS_SCAN_EFFORT, "units", "large-neighbourhood search: per entry scanned")      \
    X(lns_terms, TS_LNS_MAX_TERMS, "terms", "large-neighbourhood search: window left above")       \
    X(label_instances, TS_LABEL_MAX_INSTANCES, "instances", "the label's proof at N: above, none") \
    TS_CONSTRUCT_CAPS(X)

#endif
