/* The start-up and shutdown watchdog of tessel-run: a thread, armed before MPI_Init, that ends
 * this rank with one message naming the rank and the phase when a phase outlasts its deadline.
 * MPI_Init, the set-up collectives and MPI_Finalize wait for every rank, and no MPI call there
 * can be polled against --timeout, so a rank stopped or lost at that time would otherwise leave
 * the others waiting for ever. Between phases (the replay itself, whose waits are polled) it is
 * paused. */
#ifndef TS_RT_WATCHDOG_H
#define TS_RT_WATCHDOG_H

#include "ts_error.h"

typedef struct ts_rt_watchdog ts_rt_watchdog;

/* The rank as the launcher tells it before MPI_Init (Open MPI, PMIx, PMI or Slurm variables),
 * or -1 when none says. */
int ts_rt_launcher_rank(void);
/* Starts the watchdog thread with phase `phase` (a string that outlives the watchdog) due within
 * `timeout` seconds from now; rank -1 means unknown yet. */
int ts_rt_watchdog_start(double timeout, int rank, const char *phase, ts_rt_watchdog **out,
                         ts_err *e);
/* Enters a new phase, due within the timeout from now; NULL pauses the watchdog. rank < 0 keeps
 * the rank already known. */
void ts_rt_watchdog_phase(ts_rt_watchdog *w, int rank, const char *phase);
/* Stops and joins the thread and frees the watchdog (NULL is a no-op). */
void ts_rt_watchdog_stop(ts_rt_watchdog *w);

#endif
