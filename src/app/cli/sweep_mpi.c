/* MPI for `tessel sweep --mpi`: start and end, and the wire between ranks (see sweep_mpi.h).
 * Nothing here runs without --mpi, so the binary works without mpirun; built without MPI, --mpi
 * is refused with a message. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "sweep.h"
#include "ts_clock.h"

#ifdef TS_HAVE_MPI
#include "sweep_mpi.h"

int ts_sweep_mpi_init(int *argc, char ***argv, ts_sweep_mpi *m, ts_err *e)
{
    memset(m, 0, sizeof *m);
    if (MPI_Init(argc, argv) != MPI_SUCCESS)
        return ts_fail(e, TS_ESYS, "--mpi: MPI_Init failed");
    m->active = true;
    /* A failed peer must come back as an error code to poll, not abort this rank. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &m->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &m->size);
    return TS_OK;
}

void ts_sweep_mpi_finalize(ts_sweep_mpi *m)
{
    /* Open MPI 4's MPI_Finalize ends with a fence over every rank of the job, a lost one
     * included, and then never returns (seen with mpirun --enable-recovery). Under that option
     * mpirun accepts ranks that end without it. */
    if (m->active && !m->lost)
        MPI_Finalize();
    m->active = false;
    free(m->ids);
    m->ids = NULL;
}

void ts_sweep_mpi_release(const ts_sweep_mpi *m)
{
    if (!m->active || m->rank != 0)
        return;
    for (int r = 1; r < m->size; r++)
        ts_sweep_mpi_stop(r, false);
}

void ts_sweep_mpi_stop(int rank, bool lost)
{
    static const char flags[2] = {0, 1};
    ts_sweep_mpi_post(&flags[lost], 1, rank, TS_TAG_STOP);
}

void ts_sweep_mpi_post(const void *buf, int len, int dest, int tag)
{
    MPI_Request req;
    if (MPI_Isend(buf, len, MPI_BYTE, dest, tag, MPI_COMM_WORLD, &req) == MPI_SUCCESS)
        MPI_Request_free(&req);
}

int ts_sweep_mpi_send_wait(const void *buf, int len, int dest, int tag, double timeout)
{
    MPI_Request req;
    if (MPI_Isend(buf, len, MPI_BYTE, dest, tag, MPI_COMM_WORLD, &req) != MPI_SUCCESS)
        return -1;
    double end = ts_clock_now() + timeout;
    struct timespec nap = {0, 1000 * 1000};
    for (;;) {
        int done = 0;
        if (MPI_Test(&req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return -1;
        if (done)
            return 0;
        if (ts_clock_now() > end)
            return -1; /* the request stays pending: the caller gives the peer up */
        nanosleep(&nap, NULL);
    }
}

int ts_sweep_mpi_poll(int *src, int *tag, char **buf, int *len, double timeout)
{
    int flag = 0;
    MPI_Message msg;
    MPI_Status st;
    *buf = NULL;
    *len = 0;
    if (MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st) != MPI_SUCCESS)
        return -1;
    if (!flag)
        return 0;
    *src = st.MPI_SOURCE;
    *tag = st.MPI_TAG;
    int n = 0;
    MPI_Get_count(&st, MPI_BYTE, &n);
    char *b = malloc((size_t)n + 1);
    MPI_Request req;
    if (!b || MPI_Imrecv(b, n, MPI_BYTE, &msg, &req) != MPI_SUCCESS) {
        free(b);
        return -1;
    }
    /* A large message comes in pieces; a sender that dies midway must not hang this rank. */
    double end = ts_clock_now() + timeout;
    struct timespec nap = {0, 1000 * 1000};
    for (;;) {
        int done = 0;
        if (MPI_Test(&req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return -1; /* b stays: MPI may still write into it */
        if (done)
            break;
        if (ts_clock_now() > end)
            return -2;
        nanosleep(&nap, NULL);
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return 1;
}

static void ts_sweep_put64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t ts_sweep_get64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

char *ts_sweep_frame_pack(const ts_sweep_frame *f, size_t *len)
{
    *len = 32 + f->nrec + f->nschedule + f->nlog;
    if (*len > (size_t)INT_MAX)
        return NULL;
    unsigned char *b = malloc(*len);
    if (!b)
        return NULL;
    ts_sweep_put64(b, (uint64_t)f->point);
    ts_sweep_put64(b + 8, f->nrec);
    ts_sweep_put64(b + 16, f->nschedule);
    ts_sweep_put64(b + 24, f->nlog);
    unsigned char *p = b + 32;
    if (f->nrec)
        memcpy(p, f->rec, f->nrec);
    p += f->nrec;
    if (f->nschedule)
        memcpy(p, f->schedule, f->nschedule);
    p += f->nschedule;
    if (f->nlog)
        memcpy(p, f->log, f->nlog);
    return (char *)b;
}

int ts_sweep_frame_unpack(const char *buf, size_t len, ts_sweep_frame *f)
{
    const unsigned char *b = (const unsigned char *)buf;
    if (len < 32)
        return -1;
    uint64_t point = ts_sweep_get64(b), n1 = ts_sweep_get64(b + 8), n2 = ts_sweep_get64(b + 16),
             n3 = ts_sweep_get64(b + 24);
    if (point > INT_MAX || n1 > len || n2 > len || n3 > len || 32 + n1 + n2 + n3 != len)
        return -1;
    f->point = (int)point;
    f->rec = buf + 32;
    f->nrec = n1;
    f->schedule = f->rec + n1;
    f->nschedule = n2;
    f->log = f->schedule + n2;
    f->nlog = n3;
    return 0;
}

#else /* built without MPI */

int ts_sweep_mpi_init(int *argc, char ***argv, ts_sweep_mpi *m, ts_err *e)
{
    (void)argc;
    (void)argv;
    memset(m, 0, sizeof *m);
    return ts_fail(e, TS_EINPUT, "--mpi: this tessel was built without MPI");
}

void ts_sweep_mpi_finalize(ts_sweep_mpi *m)
{
    m->active = false;
}

void ts_sweep_mpi_release(const ts_sweep_mpi *m)
{
    (void)m;
}

int ts_sweep_mpi_coordinate(ts_sweep_run *s, ts_sweep_mpi *m, const int *todo, int ntodo,
                            double timeout, ts_err *e)
{
    (void)m;
    (void)timeout;
    return ts_sweep_run_local(s, todo, ntodo, e);
}

int ts_sweep_mpi_work(ts_sweep_mpi *m, const ts_sweep_spec *spec, const char *spec_error,
                      const char *exe, double time_limit, int jobs, double timeout,
                      volatile sig_atomic_t *stop)
{
    (void)m;
    (void)spec;
    (void)spec_error;
    (void)exe;
    (void)time_limit;
    (void)jobs;
    (void)timeout;
    (void)stop;
    return 1;
}

#endif
