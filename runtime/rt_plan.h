/* Per-rank instruction streams derived from an unrolled, validated schedule. Pure data: no MPI
 * here, so that the plan can be built and checked by unit tests without a launcher. */
#ifndef RT_PLAN_H
#define RT_PLAN_H

#include "ts_schedule.h"

/* One input of an instance: the output of instance (src_block, src_micro) travelling along
 * placement edge `edge`. Either it is already on this rank (local) or it arrives from rank
 * `from` with tag `tag`. */
typedef struct {
    int edge;
    int src_entry; /* entry index of the producing instance in the schedule */
    int local; /* 1: the producer also ran on this rank */
    int from; /* sending rank when not local */
    int tag;
} rt_input;

/* One message this rank sends after computing an instance. */
typedef struct {
    int edge;
    int to;
    int tag;
} rt_output;

typedef struct {
    int entry; /* entry index in the schedule */
    int block, micro;
    int ninputs;
    rt_input *inputs;
    int noutputs;
    rt_output *outputs;
    int nlocal_uses; /* how many later instances on this rank read this output locally */
} rt_op;

typedef struct {
    int nops;
    rt_op *ops;
} rt_stream;

typedef struct {
    const ts_schedule *s; /* borrowed: the unrolled schedule */
    int ndevs, nblocks, nmicros;
    int *index; /* index[block * nmicros + micro] -> entry */
    rt_stream *streams; /* ndevs */
    /* Device sets of multi-device blocks: group g holds group_devs[group_off[g] .. off[g+1]).
     * block_group[b] is the group of block b, or -1 for a single-device block. */
    int ngroups;
    int *group_off, *group_devs;
    int *block_group;
    long max_tag; /* largest tag used */
} rt_plan;

/* Builds the streams. s must be complete (validated). */
int rt_plan_build(const ts_schedule *s, rt_plan **out, ts_err *e);
void rt_plan_free(rt_plan *p);

/* The rank that sends a block's output to devices outside the block: its lowest device. */
int rt_plan_sender(const ts_block *b);
/* Tag of the message carrying edge `edge` for consumer micro-batch `micro`. */
long rt_plan_tag(const rt_plan *p, int edge, int micro);
/* Position of rank in block b's device list, or -1. */
int rt_block_member(const ts_block *b, int rank);

#endif
