/* What every rank must share before it sizes a buffer: the options that shape the messages and
 * the collectives, and the schedule it replays. rt_main.c broadcasts rank 0's record and every
 * rank compares its own with it, so that a rank started with another --size, --workload or
 * schedule is refused before it posts a receive sized differently from its peers' sends. --trace,
 * --json and --timeout are left out: they change what a rank reports or how long it waits, not
 * what it sends. Pure: no MPI. */
#ifndef TS_RT_AGREE_H
#define TS_RT_AGREE_H

#include <stdint.h>

#include "rt_options.h"
#include "ts_schedule.h"

/* Fixed size and made of plain numbers and bytes, so that it travels as MPI_BYTE. */
typedef struct {
    int help;
    int workload, size, micro_batches, iterations, check, backend, inject;
    double unit_us;
    /* ts_rt_schedule_digest of the unrolled schedule; 0 with --help */
    uint64_t schedule_digest;
    /* --schedule as given, cut to fit: only for the message */
    char schedule[128];
} ts_rt_agreement;

/* A 64-bit FNV-1a hash of what the replay reads from s: the placement (blocks, devices, spans,
 * memory, edges), the micro-batches, the memory capacities and every entry, not the file's
 * layout nor its search notes. Schedules with the same digest (a collision aside) give every rank
 * the same plan. *out is never 0. */
int ts_rt_schedule_digest(const ts_schedule *s, uint64_t *out, ts_err *e);

/* This rank's record: the options o (after parsing) and, unless --help, the schedule s. */
int ts_rt_agreement_make(const ts_rt_options *o, const ts_schedule *s, ts_rt_agreement *a,
                         ts_err *e);

/* TS_OK when mine (rank `rank`) agrees with root's (rank 0); else TS_EINPUT and a message naming
 * the first option that differs and both values, or the two schedule files. */
int ts_rt_agreement_compare(const ts_rt_agreement *mine, int rank, const ts_rt_agreement *root,
                            ts_err *e);

#endif
