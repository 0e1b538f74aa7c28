/* Internal to the solver library: memory arithmetic every method needs (memory.c): the levels
 * micro-batch offsets leave, the instances of a warm-up or cool-down, one micro-batch's net
 * memory, and the memory floor of one micro-batch with the refusal it proves. Capacities are
 * one per device (ts_caps.h); NULL where a function takes it for unconstrained memory. */
#ifndef TS_MEMORY_H
#define TS_MEMORY_H

#include <stdbool.h>
#include "ts_iset.h"
#include "ts_placement.h"
#include "ts_search_ctx.h"
#include "ts_solver.h"

/* Per-device memory level left by running instances (b, m) for m < mids[b]: sum of memory *
 * mids[b] over the blocks on each device. */
void ts_mids_levels(const ts_placement *p, const int *mids, long *level);
/* Does a repetend window (start per block, offsets mids) stay within cap on every device, started
 * from the level its offsets leave (written to level)? Checked at every positive start over the
 * blocks that started no later; with strict_level, a level above cap fails by itself too. */
bool ts_window_memory_fits(const ts_placement *p, const int *mids, const long *start,
                           const long *cap, long *level, bool strict_level);
/* Per-device memory level the cool-down of a repetend starts from: ts_mids_levels plus one
 * micro-batch's net memory (the window's micro-batch is done too). */
void ts_cooldown_level(const ts_placement *p, const int *mids, long *level);
/* The instances of the warm-up (phase 0: m < mids[b]) or the cool-down (phase 1: mids[b] < m
 * < k) of a repetend. Returns the count; inst has room for nblocks * k. */
int ts_phase_instances(const ts_placement *p, const int *mids, int k, int phase, ts_inst *inst);
/* Per-device net memory of one micro-batch. */
void ts_net_memory(const ts_placement *p, long *net);
/* Smallest capacity with which one micro-batch at a time fits (min over orders of the peak).
 * With capacities cap (per device) it is the largest capacity needed with every other device
 * kept as far below it as cap says; it stops at a greedy answer within cap (then *exact is
 * false: cap is enough, the floor may be lower); otherwise it asks Z3 for the exact floor
 * (*exact false on a timeout). cap NULL: the exact floor of uniform memory. */
int ts_memory_floor(const ts_placement *p, const long *cap, const ts_budget *b, long *floor_cap,
                    bool *exact, ts_err *e);
/* ts_memory_floor that also leaves the order reaching the floor: the starts of one micro-batch
 * (nblocks entries) in start. */
int ts_memory_floor_order(const ts_placement *p, const long *cap, const ts_budget *b,
                          long *floor_cap, bool *exact, long *start, ts_err *e);
/* The refusal when the memory floor proves that nothing fits cap (floor_cap > the largest
 * capacity and exact): TS_ENOANSWER with the floor in st->min_memory. TS_OK when there is no
 * such proof. */
int ts_floor_refusal(const ts_placement *p, const long *cap, long floor_cap, bool exact,
                     ts_search_stats *st, ts_err *e);

#endif
