/* Internals of the hand-made baselines, shared by baseline.c (entry points), baseline_kinds.c
 * (the registry's rows), baseline_engine.c (timing of device orders, the pipeline view of a
 * placement, the virtual pipeline and its merge), baseline_rules.c, baseline_rules_v.c and
 * baseline_cm.c (one function per published rule). Instance ids are block * n + micro
 * throughout. */
#ifndef TS_BASELINE_INTERNAL_H
#define TS_BASELINE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include "ts_baseline.h"

/* Growable list of instance ids: one device's order. */
typedef struct {
    int *v;
    int len, cap;
} ts_bl_seq;

/* Incoming same-micro-batch edges of each block: edge indices in[off[b] .. off[b+1]). */
typedef struct {
    int *off, *in;
} ts_bl_preds;

/* A V-shaped chain seen as stages: stage s pairs forward block fwd[s] with its mirror backward
 * block bwd[s] (either may be -1 where the chain is lopsided). att[b] is a block run right after b
 * on the same devices (a weight-gradient pass hanging off its backward block), or -1. */
typedef struct {
    int nstages;
    /* forward blocks: the pipeline depth that sets 1F1B's warm-up */
    int nfwd;
    int *fwd, *bwd;
    /* per block */
    int *att;
    /* per block, -1 outside the pipeline */
    int *stage;
    /* per block: position in the chain, for tie-breaks */
    int *rank;
} ts_bl_pipe;

/* Sort key of the merge: virtual start; on a tie the deeper stage first (Chimera's middle
 * stages alternate the two directions' forwards this way, which is what lets its basic unit run
 * without the collision a fixed direction priority would cause); then pipe, chain rank, micro. */
typedef struct {
    long vstart;
    int stage, pipe, rank, micro, id;
} ts_bl_mkey;

/* Refusal naming the placement, the reason and what the kind fits (TS_EINPUT). */
int ts_bl_refuse(ts_err *e, const ts_baseline_info *info, const ts_placement *p, const char *why);

/* 0, or -1 on allocation failure */
int ts_bl_seq_push(ts_bl_seq *q, int x);
ts_bl_seq *ts_bl_seqs_new(int n);
void ts_bl_seqs_free(ts_bl_seq *q, int n);
int ts_bl_preds_make(const ts_placement *p, ts_bl_preds *pr);
void ts_bl_preds_free(ts_bl_preds *pr);

/* Earliest start of every listed instance given each device's order (unlisted: -1); fails when
 * the orders deadlock. */
int ts_bl_asap(const ts_placement *p, int n, const ts_bl_seq *ord, long *start, const char *kind,
               ts_err *e);
/* Whether every listed predecessor of (b, m) has ended by step t. */
bool ts_bl_inputs_ready(const ts_placement *p, const ts_bl_preds *pr, int n, const long *start,
                        int b, int m, long t);
/* Peak running memory over all devices (-1 on allocation failure). */
long ts_bl_peak_memory(const ts_placement *p, int n, const long *start);

/* The blocks with in[b] set as a V-shaped pipeline; TS_EINPUT with why[] when they are not. */
int ts_bl_pipe_make(const ts_placement *p, const bool *in, ts_bl_pipe *q, char *why, size_t nwhy);
/* Same, reporting a refusal of info's kind through e. */
int ts_bl_pipe_of(const ts_baseline_info *info, const ts_placement *p, const bool *in,
                  ts_bl_pipe *q, ts_err *e);
void ts_bl_pipe_free(ts_bl_pipe *q);
/* 1F1B order of stage s over micro-batches m0 .. m0+cnt-1 with `warm` warm-up forwards. */
int ts_bl_stage_order(ts_bl_seq *q, const ts_bl_pipe *pp, int s, int m0, int cnt, int warm, int n);
/* The virtual placement: pipe k's blocks on virtual devices base(k) + stage. */
ts_placement *ts_bl_virtual(const ts_placement *p, const ts_bl_pipe *pipes, int npipes,
                            const int *pipe_of, int ndevs);
int ts_bl_cmp_mkey(const void *a, const void *b);
/* Appends each real device's timed instances in merge-key order. */
int ts_bl_merge(const ts_placement *p, int n, const long *vstart, const ts_bl_pipe *pipes,
                const int *pipe_of, bool deep_first, ts_bl_seq *real);
/* Times 1F1B on the virtual pipeline(s) for one group of micro-batches. */
int ts_bl_virtual_round(const ts_placement *v, int n, const ts_bl_pipe *pipes, int npipes, int m0,
                        int cnt, long *vstart, const char *kind, ts_err *e);

/* Times per-device orders fb[d] of forward and input-gradient passes; the block att[b] attached
 * to a listed block b (its weight gradient W) is queued when b runs and fills idle steps, or runs
 * first when the next listed pass would lift device d's memory above cap[d] (baseline_zb.c). */
int ts_bl_wfill(const ts_placement *p, int n, const ts_bl_seq *fb, const int *att, const long *cap,
                long *start, const char *kind, ts_err *e);
/* 1F1B order of forward block f and backward block b over micro-batches 0..n-1, `warm` warm-up
 * forwards. */
int ts_bl_fb_1f1b(ts_bl_seq *q, int f, int b, int n, int warm);
/* Zero bubble on the flat placement (F, B, W of stage s on device s): device s runs
 * (D-s-1)*(1+extra_warm) warm-up forwards, W fills within memory cap. */
int ts_bl_zb_flat(const ts_baseline_info *info, const ts_placement *p, int n, int extra_warm,
                  long cap, long *start, ts_err *e);

/* The two connected components of p, each read as a pipeline (pipe_of[b] = 0 or 1). */
int ts_bl_two_pipes(const ts_baseline_info *info, const ts_placement *p, ts_bl_pipe *pipes,
                    int *pipe_of, ts_err *e);

/* The V placement as one pipe of 2D stages, stage s on device s (s < D) or 2D-1-s; refuses
 * others (baseline_rules_v.c). */
int ts_bl_v_pipe(const ts_baseline_info *info, const ts_placement *p, ts_bl_pipe *pp, ts_err *e);

/* The rules: each fills start (nblocks * n) or refuses. */
int ts_bl_gpipe(const ts_baseline_info *info, const ts_placement *p, int n, long *start, ts_err *e);
int ts_bl_1f1b(const ts_baseline_info *info, const ts_placement *p, int n, long *start, ts_err *e);
int ts_bl_interleaved(const ts_baseline_info *info, const ts_placement *p, int n, long *start,
                      ts_err *e);
int ts_bl_chimera(const ts_baseline_info *info, const ts_placement *p, int n, long *start,
                  ts_err *e);
int ts_bl_zbh1(const ts_baseline_info *info, const ts_placement *p, int n, long *start, ts_err *e);
int ts_bl_zbh2(const ts_baseline_info *info, const ts_placement *p, int n, long *start, ts_err *e);
int ts_bl_zbv(const ts_baseline_info *info, const ts_placement *p, int n, long *start, ts_err *e);
int ts_bl_zbv_defer(const ts_baseline_info *info, const ts_placement *p, int n, long *start,
                    ts_err *e);
int ts_bl_vhalf(const ts_baseline_info *info, const ts_placement *p, int n, long *start, ts_err *e);
int ts_bl_vmin(const ts_baseline_info *info, const ts_placement *p, int n, long *start, ts_err *e);
int ts_bl_dualpipev(const ts_baseline_info *info, const ts_placement *p, int n, long *start,
                    ts_err *e);
int ts_bl_dualpipe(const ts_baseline_info *info, const ts_placement *p, int n, long *start,
                   ts_err *e);
int ts_bl_looped_bfs(const ts_baseline_info *info, const ts_placement *p, int n, long *start,
                     ts_err *e);

#endif
