/* Per-rank instruction streams derived from an unrolled, validated schedule. Pure data: no MPI
 * here, so that the plan can be built and checked by unit tests without a launcher. */
#ifndef TS_RT_PLAN_H
#define TS_RT_PLAN_H

#include "ts_schedule.h"

/* One input of an instance: the output of instance (src_block, src_micro) travelling along
 * placement edge `edge`. Either it is already on this rank (local) or it arrives from rank
 * `from` with tag `tag`. */
typedef struct {
    int edge;
    /* entry index of the producing instance in the schedule */
    int src_entry;
    /* 1: the producer also ran on this rank */
    int local;
    /* sending rank when not local */
    int from;
    int tag;
} ts_rt_input;

/* One message this rank sends after computing an instance. */
typedef struct {
    int edge;
    int to;
    int tag;
} ts_rt_output;

typedef struct {
    /* entry index in the schedule */
    int entry;
    int block, micro;
    int ninputs;
    ts_rt_input *inputs;
    int noutputs;
    ts_rt_output *outputs;
    /* how many later instances on this rank read this output locally */
    int nlocal_uses;
} ts_rt_op;

typedef struct {
    int nops;
    ts_rt_op *ops;
} ts_rt_stream;

typedef struct {
    /* borrowed: the unrolled schedule */
    const ts_schedule *s;
    int ndevs, nblocks, nmicros;
    /* index[block * nmicros + micro] -> entry */
    int *index;
    /* ndevs */
    ts_rt_stream *streams;
    /* Device sets of multi-device blocks: group g holds group_devs[group_off[g] .. off[g+1]).
     * block_group[b] is the group of block b, or -1 for a single-device block. */
    int ngroups;
    int *group_off, *group_devs;
    int *block_group;
    /* largest tag used */
    long max_tag;
} ts_rt_plan;

/* Builds the streams. s must be complete (validated). */
int ts_rt_plan_build(const ts_schedule *s, ts_rt_plan **out, ts_err *e);
void ts_rt_plan_free(ts_rt_plan *p);

/* The rank that sends a block's output to devices outside the block: its lowest device. */
int ts_rt_plan_sender(const ts_block *b);
/* Tag of the message carrying edge `edge` for consumer micro-batch `micro`. */
long ts_rt_plan_tag(const ts_rt_plan *p, int edge, int micro);
/* Position of rank in block b's device list, or -1. */
int ts_rt_block_member(const ts_block *b, int rank);

#endif
