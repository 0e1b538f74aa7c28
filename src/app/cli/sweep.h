/* `tessel sweep`: a grid of search (and baseline) runs executed by worker processes, each finished
 * point appended as one line to OUTDIR/results.jsonl so that a killed sweep resumes where it was.
 * Internal to the command line, in layers that call only downwards: spec parsing (sweep_spec.c,
 * with the id index of sweep_index.c) and the point statuses (sweep_status.c) at the bottom; records (sweep_record.c), workers
 * (sweep_exec.c, supervised by the results module's watchdog) and the progress display
 * (sweep_progress.c) on them; the run's one writer (sweep_writer.c) over records and progress;
 * the local scheduler of workers (sweep_local.c) and the MPI coordinator and worker ranks
 * (sweep_mpi*.c) over those; and the command itself (cmd_sweep.c) on top. */
#ifndef TS_SWEEP_H
#define TS_SWEEP_H

#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <sys/types.h>
#include <jansson.h>
#include "ts_error.h"
#include "ts_results.h"

#define TS_SWEEP_FORMAT "tessel-sweep/1"

/* ---- spec (sweep_spec.c) ---------------------------------------------------------------- */

/* One run: a search method, or a hand-made baseline replayed by `tessel simulate`. */
typedef struct {
    char *id; /* file-name safe and unique in the spec, e.g. vshape-d4-train-m4-k2-lazy-n128 */
    char *placement; /* built-in name, or a file path (resolved against the spec's folder) */
    bool is_file;
    int ndevs;
    bool infer;
    long memory; /* per-device capacity (with memory_list: the largest); -1 = none */
    char *memory_list; /* one capacity per device, "9,4,4,4" (owned), or NULL */
    int nmicros; /* k; 0 = let the search choose */
    char *method; /* lazy | fast | full | modulo | gpipe | 1f1b | interleaved | chimera | zb-h1 */
    long micro_batches; /* N; 0 = the command's default */
    /* the search's other options (owned; NULL: none), and the flags that give them (owned) */
    json_t *options;
    char **options_argv;
} ts_sweep_point;

typedef struct {
    char *path; /* the spec file, as given */
    char *name; /* spec "name", or the file's base name */
    double time_limit; /* seconds per point; 0 = none */
    int npoints, cap;
    ts_sweep_point *points;
    /* the id index (sweep_index.c): nslots slots (a power of two), each a point index or -1 */
    int *slots;
    size_t nslots;
} ts_sweep_spec;

/* Reads and validates a whole spec; every problem is TS_EINPUT with a message naming the file and
 * the place (e.g. "spec.json: grid[1].memory[2]: ..."). Nothing runs before this succeeds. */
int ts_sweep_spec_load(const char *path, ts_sweep_spec **out, ts_err *e);
void ts_sweep_spec_free(ts_sweep_spec *s);
bool ts_sweep_method_is_baseline(const char *method);
/* The index of the point with this id, or -1 (sweep_index.c; a hash look-up). */
int ts_sweep_spec_find(const ts_sweep_spec *s, const char *id);
/* Puts points[point] (the last one added) into the id index. Returns -1 on allocation failure. */
int ts_sweep_index_add(ts_sweep_spec *s, int point);
/* The point's parameters as a JSON object (placement, ndevs, infer, memory, nmicros, method,
 * micro_batches), the same keys results.jsonl carries. */
json_t *ts_sweep_point_params(const ts_sweep_point *p);

/* ---- a point's search options (sweep_options.c) ------------------------------------------- */

/* Checks a grid's or point's "options" (where: "spec.json: grid[0]"). */
int ts_sweep_options_check(json_t *options, const char *where, ts_err *e);
/* p takes options (may be NULL) and the flags that give them. */
int ts_sweep_options_apply(json_t *options, ts_sweep_point *p, const char *where, ts_err *e);
/* "-oHHHHHHHH", a hash of p's options ("" without), the tail of its id. */
void ts_sweep_options_id(const ts_sweep_point *p, char *buf, size_t len);
bool ts_sweep_options_same(const ts_sweep_point *a, const ts_sweep_point *b);
void ts_sweep_options_free(ts_sweep_point *p);

/* ---- records (sweep_record.c) ----------------------------------------------------------- */

typedef enum {
    TS_SWEEP_OK = 0,
    TS_SWEEP_INFEASIBLE,
    TS_SWEEP_TIMEOUT,
    TS_SWEEP_ERROR
} ts_sweep_status;
#define TS_SWEEP_NSTATUS 4
/* "ok", "infeasible", "timeout", "error" (sweep_status.c). */
const char *ts_sweep_status_name(ts_sweep_status s);

/* The records already in results.jsonl: complete lines only. */
typedef struct {
    int n, cap;
    json_t **rec; /* owned */
} ts_sweep_records;

/* Reads OUTDIR/results.jsonl (missing file = no records). A torn last line (no final newline, as
 * left by a kill in the middle of a write) is dropped and cut off the file so that the next append
 * starts on a line of its own; *dropped tells how many bytes went. Lines that are not JSON
 * objects with an "id" are skipped with a warning on stderr. */
int ts_sweep_records_load(const char *jsonl, ts_sweep_records *r, long *dropped, ts_err *e);
void ts_sweep_records_free(ts_sweep_records *r);
/* Takes ownership of rec. Returns -1 on allocation failure. */
int ts_sweep_records_add(ts_sweep_records *r, json_t *rec);

/* Appends one record as one line with a single write() on an O_APPEND descriptor, then fsync: a
 * crash leaves either the whole line or a torn tail that the loader drops. */
int ts_sweep_append_line(int fd, const char *path, const char *line, size_t len, ts_err *e);
int ts_sweep_append_json(int fd, const char *path, json_t *rec, ts_err *e);
/* One CSV row for a record (no newline handling needed by the caller: it ends with '\n').
 * Caller frees. */
char *ts_sweep_csv_row(json_t *rec);
const char *ts_sweep_csv_header(void);
/* Rewrites the CSV file from records (temporary file + rename). */
int ts_sweep_csv_rewrite(const char *csv, const ts_sweep_records *r, ts_err *e);

/* ---- workers (sweep_exec.c) ------------------------------------------------------------- */

typedef struct {
    const ts_sweep_point *point;
    pid_t pid; /* process group leader of the worker; 0 = free slot */
    /* Its start, the time limit given to the command (0: none), its deadline and whether the
     * watchdog stopped it. */
    ts_watch watch;
    char *out_path; /* worker's stdout (the JSON summary) */
    char *log_path; /* worker's stderr */
    char *tmp_schedule; /* where the worker writes its schedule */
    char *schedule; /* where it goes once the point is ok */
} ts_sweep_job;

typedef struct {
    const char *exe; /* the tessel binary the workers run */
    const char *outdir;
    double time_limit; /* seconds passed to the search; 0 = none */
} ts_sweep_exec_opts;

/* Starts the worker of a point in its own process group (it dies with the sweep). */
int ts_sweep_job_start(ts_sweep_job *j, const ts_sweep_point *p, const ts_sweep_exec_opts *o,
                       ts_err *e);
/* Builds the record of a finished worker from its wait status and output files, moves its
 * schedule into place and removes its scratch files. Returns TS_OK with *rec; -1 on allocation
 * failure; 1 (no record, e says why) when the point failed because its output could not be
 * written (a full or read-only output folder): that is no result of the point's, so it must not
 * be recorded, and --resume runs it again. */
int ts_sweep_job_finish(ts_sweep_job *j, int wstatus, json_t **rec, ts_err *e);
/* The record of a point that never ran to an answer of its own (status error, no schedule). */
json_t *ts_sweep_error_record(const ts_sweep_point *p, const char *message, double wall);
/* Kills a running worker's whole process group (SIGKILL) without reaping it. */
void ts_sweep_job_kill(ts_sweep_job *j);
void ts_sweep_job_clear(ts_sweep_job *j);
/* The first of n jobs whose worker has ended, reaped (its whole group killed first, so that a
 * baseline's leftover step dies too): returns its index and *wstatus, or -1 when none has. */
int ts_sweep_jobs_reap(ts_sweep_job *jobs, int n, int *wstatus);
/* Kills the workers past their deadline (the watchdog marks them overdue; reaped later as
 * timeouts). */
void ts_sweep_jobs_kill_late(ts_sweep_job *jobs, int n, double now);
/* Kills and reaps every running worker and removes its scratch files; nothing is recorded.
 * Returns how many were running. */
int ts_sweep_jobs_stop(ts_sweep_job *jobs, int n);

/* ---- progress (sweep_progress.c) -------------------------------------------------------- */

typedef struct {
    FILE *out;
    bool bar; /* redraw one line in place (a terminal) rather than print a line per point */
    bool quiet; /* print nothing per point */
    int total; /* points of the spec */
    int skipped; /* already recorded before this run */
    int done; /* finished in this run */
    int counts[TS_SWEEP_NSTATUS];
    double started;
    double last_draw;
} ts_sweep_progress;

void ts_sweep_progress_init(ts_sweep_progress *p, FILE *out, bool bar, bool quiet, int total,
                            int skipped);
/* One finished point: a plain line, or a redraw of the bar. */
void ts_sweep_progress_point(ts_sweep_progress *p, json_t *rec, int running);
/* Periodic redraw of the bar (no-op without a bar or within 0.5 s of the last one). */
void ts_sweep_progress_tick(ts_sweep_progress *p, int running);
/* Ends the bar's line. */
void ts_sweep_progress_end(ts_sweep_progress *p);

/* ---- one run of the command (cmd_sweep.c; sweep_writer.c, sweep_local.c, sweep_mpi_coord.c) */

typedef struct {
    const ts_sweep_spec *spec;
    ts_sweep_exec_opts exec;
    int jobs; /* -j: points at a time per machine */
    ts_sweep_records rec; /* what results.jsonl holds */
    char *jsonl, *csv;
    int jfd, cfd; /* both opened O_APPEND */
    int running; /* points in flight, for the progress display */
    ts_sweep_progress prog;
    volatile sig_atomic_t *stop; /* set by SIGINT/SIGTERM/SIGHUP */
} ts_sweep_run;

/* Appends a finished point to results.jsonl and results.csv, shows it and keeps it in s->rec
 * (sweep_writer.c). Takes ownership of rec. */
int ts_sweep_record(ts_sweep_run *s, json_t *rec, ts_err *e);
/* Runs the points todo[0..ntodo) on this machine, s->jobs at a time. Returns TS_OK, an error, or
 * -1 when a stop signal ended it (nothing of the stopped points is recorded). */
int ts_sweep_run_local(ts_sweep_run *s, const int *todo, int ntodo, ts_err *e);

/* ---- MPI (sweep_mpi.c, sweep_mpi_coord.c, sweep_mpi_worker.c) ----------------------------- */

/* MPI is initialised only under --mpi, so the same binary runs without mpirun. */
typedef struct {
    bool active; /* MPI_Init was called */
    bool lost; /* a rank was lost: MPI_Finalize would wait for it forever, so it is skipped */
    int rank, size;
    int *ids; /* rank 0: the point indices that ASSIGN messages send; a send to a rank that
                  * died may stay pending until MPI_Finalize, so this outlives the coordination */
} ts_sweep_mpi;

/* MPI_Init and this process's place in MPI_COMM_WORLD; TS_EINPUT when built without MPI. */
int ts_sweep_mpi_init(int *argc, char ***argv, ts_sweep_mpi *m, ts_err *e);
/* MPI_Finalize (unless a rank was lost), then frees m->ids. */
void ts_sweep_mpi_finalize(ts_sweep_mpi *m);
/* Rank 0, on a path that coordinates nothing (bad spec, folder in use, dry run): tells every
 * worker rank to end. */
void ts_sweep_mpi_release(const ts_sweep_mpi *m);
/* Rank 0: hands the points todo[0..ntodo) to the worker ranks as their slots free up, records
 * what comes back, and puts the points of a rank silent for `timeout` seconds back in the queue
 * (once; a point whose second rank dies too is recorded as an error). Returns as
 * ts_sweep_run_local does. */
int ts_sweep_mpi_coordinate(ts_sweep_run *s, ts_sweep_mpi *m, const int *todo, int ntodo,
                            double timeout, ts_err *e);
/* A worker rank: runs what rank 0 assigns, `jobs` points at a time, in a scratch folder of its
 * own, and sends each record back with its schedule and log. spec is NULL when this rank could not
 * load it (spec_error says why, and rank 0 gives it no work). Returns 0, or 1 when rank 0 fell
 * silent for `timeout` seconds or a stop signal came (m->lost tells whether some rank was lost). */
int ts_sweep_mpi_work(ts_sweep_mpi *m, const ts_sweep_spec *spec, const char *spec_error,
                      const char *exe, double time_limit, int jobs, double timeout,
                      volatile sig_atomic_t *stop);

#endif
