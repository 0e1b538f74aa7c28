/* The run's one writer: a finished point appended to results.jsonl and results.csv, shown by the
 * progress display and kept in the run's records. The local scheduler and the MPI coordinator
 * both record through it. */
#include <stdlib.h>
#include <string.h>
#include "sweep.h"

int ts_sweep_record(ts_sweep_run *s, json_t *rec, ts_err *e)
{
    int rc = ts_sweep_append_json(s->jfd, s->jsonl, rec, e);
    if (!rc) {
        char *row = ts_sweep_csv_row(rec);
        rc = row ? ts_sweep_append_line(s->cfd, s->csv, row, strlen(row), e)
                 : ts_fail(e, TS_ESYS, "out of memory");
        free(row);
    }
    if (rc) {
        json_decref(rec);
        return rc;
    }
    ts_sweep_progress_point(&s->prog, rec, s->running);
    if (ts_sweep_records_add(&s->rec, rec))
        return ts_fail(e, TS_ESYS, "out of memory");
    return TS_OK;
}
