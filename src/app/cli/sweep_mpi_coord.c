/* Rank 0 of `tessel sweep --mpi`: hands points to the worker ranks as their slots free up (so a
 * slow point holds up nothing but its own slot), is the one writer of OUTDIR (records, schedules,
 * logs), and notices a dead rank by its silence: its points go back to the queue once, and a
 * point whose second rank dies too is recorded as an error (it may be what kills them). A result
 * that comes from a rank already given up, or for a point it no longer holds, is dropped, so no
 * point is ever recorded twice. */
#ifdef TS_HAVE_MPI
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "sweep.h"
#include "ts_clock.h"
#include "sweep_mpi.h"

#define MAX_TRIES 2

enum { RANK_WAITING, RANK_READY, RANK_GONE };

typedef struct {
    int state;
    int free; /* slots free for points */
    double heard; /* when the rank last sent anything */
} ts_sweep_rank_state;

typedef struct {
    ts_sweep_run *s;
    ts_sweep_mpi *m;
    double timeout;
    ts_sweep_rank_state *ranks;
    int *owner; /* per spec point: the rank running it, 0 = none */
    int *tries; /* per spec point: how many ranks were given it */
    const int *ids; /* per spec point: its index, the buffer of its ASSIGN message */
    int *queue, qhead, qtail;
    int inflight;
    double last_beat;
} ts_sweep_coord;

/* Writes data to path through a temporary file and a rename, so a kill leaves no half file. */
static int ts_sweep_write_whole(const char *outdir, const char *sub, const char *id,
                                const char *ext, const char *data, size_t n, ts_err *e)
{
    size_t cap = strlen(outdir) + strlen(sub) + strlen(id) + strlen(ext) + 16;
    char *path = malloc(cap), *tmp = malloc(cap);
    if (!path || !tmp) {
        free(path);
        free(tmp);
        return ts_fail(e, TS_ESYS, "out of memory");
    }
    snprintf(path, cap, "%s/%s/%s%s", outdir, sub, id, ext);
    snprintf(tmp, cap, "%s/%s/%s.part%s", outdir, sub, id, ext);
    int rc = TS_OK, fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    bool ok = fd >= 0 && write(fd, data, n) == (ssize_t)n;
    ok = ok && fsync(fd) == 0;
    if (fd >= 0)
        ok = close(fd) == 0 && ok;
    if (!ok || rename(tmp, path)) {
        rc = ts_fail(e, TS_ESYS, "%s: cannot write: %s", path, strerror(errno));
        unlink(tmp);
    }
    free(path);
    free(tmp);
    return rc;
}

static void ts_sweep_push(ts_sweep_coord *c, int point)
{
    c->queue[c->qtail++] = point;
}

static void ts_sweep_release_point(ts_sweep_coord *c, int point, int rank)
{
    c->owner[point] = 0;
    c->inflight--;
    c->s->running--;
    if (c->ranks[rank].state == RANK_READY)
        c->ranks[rank].free++;
}

/* The rank is given up: it is told to stop (it may be alive and cut off), and each of its points
 * goes back to the queue, or is recorded as an error when it has used its tries. */
static int ts_sweep_give_up(ts_sweep_coord *c, int r, const char *why, ts_err *e)
{
    c->ranks[r].state = RANK_GONE;
    c->m->lost = true;
    ts_sweep_mpi_stop(r, true);
    int back = 0, failed = 0;
    for (int p = 0; p < c->s->spec->npoints; p++) {
        if (c->owner[p] != r)
            continue;
        ts_sweep_release_point(c, p, r);
        if (c->tries[p] < MAX_TRIES) {
            ts_sweep_push(c, p);
            back++;
            continue;
        }
        char msg[256];
        snprintf(msg, sizeof msg,
                 "%d worker ranks died while running this point (the last: "
                 "rank %d, %s)",
                 c->tries[p], r, why);
        json_t *rec = ts_sweep_error_record(&c->s->spec->points[p], msg, 0);
        if (!rec)
            return ts_fail(e, TS_ESYS, "out of memory");
        if (ts_sweep_record(c->s, rec, e))
            return e->code;
        failed++;
    }
    fprintf(stderr,
            "tessel sweep: rank %d %s: taken as dead; %d of its points back in the "
            "queue, %d recorded as errors\n",
            r, why, back, failed);
    return TS_OK;
}

/* A finished point from rank r: its schedule and log into OUTDIR, then its record. */
static int ts_sweep_on_result(ts_sweep_coord *c, int r, const char *buf, int len, ts_err *e)
{
    ts_sweep_frame f;
    if (ts_sweep_frame_unpack(buf, (size_t)len, &f) || f.point >= c->s->spec->npoints ||
        c->owner[f.point] != r) {
        fprintf(stderr, "tessel sweep: rank %d: a result for no point it holds, dropped\n", r);
        return TS_OK;
    }
    const ts_sweep_point *p = &c->s->spec->points[f.point];
    json_error_t je;
    json_t *rec = json_loadb(f.rec, f.nrec, 0, &je);
    const char *id = json_string_value(json_object_get(rec, "id"));
    if (!json_is_object(rec) || !id || strcmp(id, p->id)) {
        json_decref(rec);
        fprintf(stderr, "tessel sweep: rank %d: a malformed record for %s, dropped\n", r, p->id);
        return TS_OK;
    }
    /* A worker rank whose scratch folder is full: no result of the point's, the sweep stops. */
    if (json_is_true(json_object_get(rec, "output_failed"))) {
        ts_sweep_release_point(c, f.point, r);
        const char *msg = json_string_value(json_object_get(rec, "message"));
        int rc =
            ts_fail(e, TS_ESYS, "rank %d: %s", r, msg ? msg : "a point could not write its output");
        json_decref(rec);
        return rc;
    }
    /* A record names only files that came with it. */
    if (!f.nschedule)
        json_object_set_new(rec, "schedule", json_null());
    if (!f.nlog)
        json_object_set_new(rec, "log", json_null());
    const char *outdir = c->s->exec.outdir;
    int rc = TS_OK;
    if (f.nschedule && json_is_string(json_object_get(rec, "schedule")))
        rc = ts_sweep_write_whole(outdir, "schedules", p->id, ".json", f.schedule, f.nschedule, e);
    if (!rc && f.nlog && json_is_string(json_object_get(rec, "log")))
        rc = ts_sweep_write_whole(outdir, "logs", p->id, ".log", f.log, f.nlog, e);
    ts_sweep_release_point(c, f.point, r);
    if (rc) {
        json_decref(rec);
        return rc;
    }
    return ts_sweep_record(c->s, rec, e);
}

static int ts_sweep_on_message(ts_sweep_coord *c, int r, int tag, const char *buf, int len,
                               ts_err *e)
{
    if (r <= 0 || r >= c->m->size || c->ranks[r].state == RANK_GONE)
        return TS_OK; /* a rank given up is not heard again */
    ts_sweep_rank_state *rs = &c->ranks[r];
    rs->heard = ts_clock_now();
    if (tag == TS_TAG_HELLO && rs->state == RANK_WAITING) {
        if (len > 0) {
            fprintf(stderr, "tessel sweep: rank %d cannot run points: %s\n", r, buf);
            rs->state = RANK_GONE;
            ts_sweep_mpi_stop(r, false);
            return TS_OK;
        }
        rs->state = RANK_READY;
        rs->free = c->s->jobs;
    } else if (tag == TS_TAG_RESULT) {
        return ts_sweep_on_result(c, r, buf, len, e);
    }
    return TS_OK;
}

/* Reads every message waiting. A rank that stalls in the middle of one is given up, and the
 * draining goes on, so that the others' heartbeats queued meanwhile count before any silence is
 * judged. */
static int ts_sweep_drain_messages(ts_sweep_coord *c, ts_err *e)
{
    int src = 0, tag, len, got;
    char *buf;
    while ((got = ts_sweep_mpi_poll(&src, &tag, &buf, &len, c->timeout)) != 0) {
        if (got == -1)
            return ts_fail(e, TS_ESYS, "--mpi: receiving from the worker ranks failed");
        int rc = TS_OK;
        if (got == 1) {
            rc = ts_sweep_on_message(c, src, tag, buf, len, e);
            free(buf);
        } else if (src > 0 && src < c->m->size && c->ranks[src].state != RANK_GONE) {
            rc = ts_sweep_give_up(c, src, "stopped in the middle of a message", e);
        }
        if (rc)
            return rc;
    }
    return TS_OK;
}

/* Hands queued points to ranks with free slots, the freest rank first. */
static void ts_sweep_assign(ts_sweep_coord *c)
{
    while (c->qhead < c->qtail) {
        int best = 0;
        for (int r = 1; r < c->m->size; r++)
            if (c->ranks[r].state == RANK_READY && c->ranks[r].free > 0 &&
                (!best || c->ranks[r].free > c->ranks[best].free))
                best = r;
        if (!best)
            return;
        int p = c->queue[c->qhead++];
        c->owner[p] = best;
        c->tries[p]++;
        c->ranks[best].free--;
        c->inflight++;
        c->s->running++;
        ts_sweep_mpi_post(&c->ids[p], (int)sizeof c->ids[p], best, TS_TAG_ASSIGN);
    }
}

/* Heartbeats out; ranks silent past the timeout given up. Returns the ranks still alive. */
static int ts_sweep_check_ranks(ts_sweep_coord *c, ts_err *e, int *alive)
{
    double t = ts_clock_now();
    bool beat = t - c->last_beat >= TS_SWEEP_BEAT_SECONDS;
    if (beat)
        c->last_beat = t;
    *alive = 0;
    for (int r = 1; r < c->m->size; r++) {
        if (c->ranks[r].state == RANK_GONE)
            continue;
        if (t - c->ranks[r].heard > c->timeout) {
            char why[96];
            snprintf(why, sizeof why, "silent for %.0f s", t - c->ranks[r].heard);
            if (ts_sweep_give_up(c, r, why, e))
                return e->code;
            continue;
        }
        (*alive)++;
        if (beat)
            ts_sweep_mpi_post(NULL, 0, r, TS_TAG_BEAT);
    }
    return TS_OK;
}

static int ts_sweep_coordinate(ts_sweep_coord *c, ts_err *e)
{
    struct timespec nap = {0, 5 * 1000 * 1000};
    while (c->qhead < c->qtail || c->inflight > 0) {
        if (*c->s->stop)
            return -1;
        int alive;
        if (ts_sweep_drain_messages(c, e) || ts_sweep_check_ranks(c, e, &alive))
            return e->code;
        if (!alive)
            return ts_fail(e, TS_ESYS,
                           "--mpi: no worker rank is left; %d points are not recorded (run again "
                           "with --resume)",
                           c->qtail - c->qhead + c->inflight);
        ts_sweep_assign(c);
        ts_sweep_progress_tick(&c->s->prog, c->s->running);
        nanosleep(&nap, NULL);
    }
    return TS_OK;
}

int ts_sweep_mpi_coordinate(ts_sweep_run *s, ts_sweep_mpi *m, const int *todo, int ntodo,
                            double timeout, ts_err *e)
{
    int np = s->spec->npoints;
    ts_sweep_coord c = {.s = s, .m = m, .timeout = timeout, .last_beat = ts_clock_now()};
    c.ranks = calloc((size_t)m->size, sizeof *c.ranks);
    c.owner = calloc((size_t)np, sizeof *c.owner);
    c.tries = calloc((size_t)np, sizeof *c.tries);
    c.queue = calloc((size_t)ntodo * MAX_TRIES + 1, sizeof *c.queue);
    if (!m->ids && (m->ids = calloc((size_t)np + 1, sizeof *m->ids)))
        for (int p = 0; p < np; p++)
            m->ids[p] = p;
    c.ids = m->ids;
    int rc;
    if (!c.ranks || !c.owner || !c.tries || !c.ids || !c.queue) {
        rc = ts_fail(e, TS_ESYS, "out of memory");
    } else {
        for (int r = 0; r < m->size; r++)
            c.ranks[r] = (ts_sweep_rank_state){RANK_WAITING, 0, c.last_beat};
        for (int i = 0; i < ntodo; i++)
            ts_sweep_push(&c, todo[i]);
        rc = ts_sweep_coordinate(&c, e);
    }
    /* Every rank still there stops (and kills what it runs, after an interrupt or an error). */
    for (int r = 1; r < m->size; r++)
        if (c.ranks && c.ranks[r].state != RANK_GONE)
            ts_sweep_mpi_stop(r, m->lost);
    s->running = 0;
    free(c.ranks);
    free(c.owner);
    free(c.tries);
    free(c.queue);
    return rc;
}

#else
typedef int ts_sweep_mpi_coord_unused; /* built without MPI: sweep_mpi.c has the fallback */
#endif
