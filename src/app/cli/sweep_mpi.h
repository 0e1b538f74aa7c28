/* The wire between the sweep's coordinator (rank 0) and its worker ranks, internal to
 * sweep_mpi*.c. Every message is polled for, never waited on without a deadline, because a peer
 * that died is noticed only by its silence: Open MPI 4 has no fault-tolerant communicator (ULFM),
 * and over shared memory a receive from a dead rank just never completes.
 *
 *   worker -> 0: HELLO ("" or why this rank cannot run points), BEAT (every second),
 *                RESULT (a frame: point index, record, schedule, log)
 *   0 -> worker: ASSIGN (a point index), BEAT (every second), STOP (one byte: 1 when a rank
 *                was lost, so that no rank waits in MPI_Finalize) */
#ifndef TS_SWEEP_MPI_H
#define TS_SWEEP_MPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <mpi.h>

enum { TS_TAG_HELLO = 1, TS_TAG_BEAT, TS_TAG_RESULT, TS_TAG_ASSIGN, TS_TAG_STOP };
#define TS_SWEEP_BEAT_SECONDS 1.0

/* Starts a send and lets it finish on its own: for empty messages, or a buffer that outlives the
 * run (a dead peer may leave it pending until MPI_Finalize). */
void ts_sweep_mpi_post(const void *buf, int len, int dest, int tag);
/* Posts STOP to a worker rank. */
void ts_sweep_mpi_stop(int rank, bool lost);
/* Sends and waits until MPI is done with buf, at most `timeout` seconds: 0, or -1 when it did not
 * finish in time (the peer is taken as gone). */
int ts_sweep_mpi_send_wait(const void *buf, int len, int dest, int tag, double timeout);
/* The next message to this rank, if any: 1 with *src, *tag and *buf (malloc'd, NUL-terminated,
 * *len bytes before the NUL; the caller frees it), 0 when none is waiting, -1 on an MPI error,
 * -2 (with *src) when a message began but did not arrive whole within `timeout` seconds. */
int ts_sweep_mpi_poll(int *src, int *tag, char **buf, int *len, double timeout);

/* A RESULT frame: four little-endian 64-bit lengths (point, record, schedule, log) then the
 * bytes. Unpacked pointers point into the frame. */
typedef struct {
    int point;
    const char *rec, *schedule, *log;
    size_t nrec, nschedule, nlog;
} ts_sweep_frame;

/* Returns NULL when out of memory or when the frame would exceed what one MPI message holds. */
char *ts_sweep_frame_pack(const ts_sweep_frame *f, size_t *len);
/* 0, or -1 when buf is not a whole frame. */
int ts_sweep_frame_unpack(const char *buf, size_t len, ts_sweep_frame *f);

#endif
