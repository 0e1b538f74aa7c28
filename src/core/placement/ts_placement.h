/* Placements: the blocks of one micro-batch, the devices they run on, and their dependency DAG. */
#ifndef TS_PLACEMENT_H
#define TS_PLACEMENT_H

#include <stdbool.h>
#include "ts_error.h"

/* Limits that keep every derived quantity (steps of 256+ micro-batches, memory sums) far from
 * overflow; inputs beyond them are rejected as bad input rather than silently wrapped. */
#define TS_MAX_SPAN 1000000
#define TS_MAX_MEMORY 1000000000
#define TS_MAX_DEVS 4096
#define TS_MAX_BLOCKS 100000
#define TS_MAX_DELAY 1000000
#define TS_MAX_DISTANCE 1024

typedef enum { TS_KIND_FORWARD = 0, TS_KIND_BACKWARD = 1, TS_KIND_OTHER = 2 } ts_kind;

typedef struct {
    char *id;
    ts_kind kind;
    /* > 0 time units */
    int span;
    /* signed units, applied when the block starts */
    int memory;
    /* >= 1 */
    int ndevices;
    /* sorted ascending, unique, each in [0, ndevs) */
    int *devices;
} ts_block;

/* start(dst, m) >= start(src, m - distance) + span(src) + delay, for every m >= distance. */
typedef struct {
    int src, dst;
    /* communication delay, >= 0 */
    int delay;
    /* micro-batch distance, >= 0 (0 = same micro-batch) */
    int distance;
} ts_edge;

typedef struct {
    char *name;
    int ndevs;
    int nblocks, cap_blocks;
    ts_block *blocks;
    int nedges, cap_edges;
    ts_edge *edges;
    /* Stated by derived placements (placement_units.c): the per-device memory capacity in the
     * file's units, which `tessel search` takes when no --memory is given, and the units. */
    bool has_capacity;
    /* the capacity of every device; with capacity_per_device, the largest of them */
    long capacity;
    /* NULL: every device holds `capacity`; else one per device (ndevs entries, owned) */
    long *capacity_per_device;
    /* seconds per span step, 0 when not stated */
    double time_unit_s;
    /* bytes per memory unit on each device, or NULL */
    double *memory_unit_bytes;
} ts_placement;

const char *ts_kind_name(ts_kind k);
/* 0 on success */
int ts_kind_parse(const char *s, ts_kind *out);

ts_placement *ts_placement_new(const char *name, int ndevs);
void ts_placement_free(ts_placement *p);
ts_placement *ts_placement_clone(const ts_placement *p);
/* Returns the new block's index, or -1 (allocation failure). devices need not be sorted. */
int ts_placement_add_block(ts_placement *p, const char *id, ts_kind kind, int span, int memory,
                           int ndevices, const int *devices);
int ts_placement_add_edge(ts_placement *p, int src, int dst, int delay, int distance);
/* index or -1 */
int ts_placement_find(const ts_placement *p, const char *id);
bool ts_block_on(const ts_block *b, int dev);
/* Whether a and b run on the very same devices (device lists are sorted). */
bool ts_block_same_devices(const ts_block *a, const ts_block *b);
bool ts_placement_has_distance_edges(const ts_placement *p);

/* Structural check: unique ids, spans, devices, edges in range, no self-loop, and no cycle among
 * same-micro-batch (distance 0) edges. `where` names the file in messages. */
int ts_placement_check(const ts_placement *p, const char *where, ts_err *e);
/* TS_EINPUT when a device's blocks free more memory than they allocate in one micro-batch (its
 * level would sink without bound as micro-batches go by): most likely a typo in a file. Kept out
 * of ts_placement_check, since running sums stay well defined; the command line warns. */
int ts_placement_check_memory(const ts_placement *p, const char *where, ts_err *e);

/* Kahn's peeling over distance-0 edges: order receives the blocks that can be placed, indeg keeps
 * a positive count for blocks on or behind a cycle. Returns how many blocks were placed. */
int ts_placement_peel(const ts_placement *p, int *order, int *indeg);
/* Every edge's index grouped by its source block, in edge order: the edges leaving b are
 * list[off[b] .. off[b+1]). Caller frees both. Returns -1 on allocation failure. */
int ts_placement_out_edges(const ts_placement *p, int **off, int **list);
/* Topological order over distance-0 edges (order has nblocks entries). -1 on a cycle. */
int ts_placement_topo(const ts_placement *p, int *order);
/* Earliest start of each block in an unbounded-resource run of one micro-batch (longest path
 * from a source, counting spans and delays). */
void ts_placement_earliest(const ts_placement *p, long *est);
/* Longest path from the end of each block to the end of the micro-batch (0 for sinks). */
void ts_placement_tail(const ts_placement *p, long *tail);
/* The chain order of the search: topological by earliest start, ties by lowest device, then
 * index. */
int ts_placement_chain_order(const ts_placement *p, int *order);
/* Sum of spans of the blocks that occupy each device, for one micro-batch (ndevs entries). */
void ts_placement_device_load(const ts_placement *p, long *load);
long ts_placement_max_load(const ts_placement *p);

/* The optional "capacity" and "units" keys (placement_units.c); j is the placement's object. */
struct json_t;
int ts_placement_units_from_json(ts_placement *p, struct json_t *j, const char *where, ts_err *e);
void ts_placement_units_to_json(const ts_placement *p, struct json_t *j);
/* -1: out of memory */
int ts_placement_units_copy(ts_placement *q, const ts_placement *p);

/* JSON files (format "tessel-placement/1"). path "-" means stdin/stdout. */
int ts_placement_load(const char *path, ts_placement **out, ts_err *e);
int ts_placement_save(const ts_placement *p, const char *path, ts_err *e);

/* A built-in being built (private to builtins.c). */
typedef struct ts_bld ts_bld;

/* Built-in placements of the paper (and baseline-specific ones): one row of the registry in
 * builtins.c per placement, with its builder. */
typedef struct {
    const char *name;
    const char *description;
    /* smallest device count */
    int min_devs;
    /* largest device count (TS_MAX_DEVS when unbounded) */
    int max_devs;
    /* device count must be a multiple of this (1 or 2) */
    int step_devs;
    /* adds the blocks and edges for D devices (and chunks per device, where it takes --chunks) */
    void (*build)(ts_bld *b, int D, int chunks);
    /* it takes --chunks */
    bool chunks;
} ts_builtin_info;

typedef struct {
    int ndevs;
    /* inference variant: no backward blocks, memory 0 */
    bool infer;
    /* model chunks per device where the shape has them (0 = TS_BUILTIN_CHUNKS) */
    int chunks;
} ts_builtin_opts;

/* The chunks per device of a built-in that takes --chunks when none is given (the explorer
 * shows it as the field's value, so that it never reads 0). */
#define TS_BUILTIN_CHUNKS 2

int ts_builtin_count(void);
const ts_builtin_info *ts_builtin_at(int i);
const ts_builtin_info *ts_builtin_find(const char *name);
/* Builds built-in name; an unknown name, a device count out of its range or --chunks for a
 * built-in without chunks is TS_EINPUT with a message naming it. */
int ts_builtin_make(const char *name, const ts_builtin_opts *o, ts_placement **out, ts_err *e);

#endif
