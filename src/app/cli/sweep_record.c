/* Sweep records: results.jsonl (one JSON object per finished point, the file of truth) and
 * results.csv (the same records flattened for spreadsheets, rebuilt from the JSONL when needed). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sweep.h"

int ts_sweep_records_add(ts_sweep_records *r, json_t *rec)
{
    if (r->n == r->cap) {
        int cap = r->cap ? 2 * r->cap : 64;
        json_t **n = realloc(r->rec, (size_t)cap * sizeof *n);
        if (!n) {
            json_decref(rec);
            return -1;
        }
        r->rec = n;
        r->cap = cap;
    }
    r->rec[r->n++] = rec;
    return 0;
}

void ts_sweep_records_free(ts_sweep_records *r)
{
    for (int i = 0; i < r->n; i++)
        json_decref(r->rec[i]);
    free(r->rec);
    memset(r, 0, sizeof *r);
}

int ts_sweep_records_load(const char *jsonl, ts_sweep_records *r, long *dropped, ts_err *e)
{
    memset(r, 0, sizeof *r);
    *dropped = 0;
    FILE *f = fopen(jsonl, "rb");
    if (!f) {
        if (errno == ENOENT)
            return TS_OK;
        return ts_fail(e, TS_ESYS, "%s: cannot read: %s", jsonl, strerror(errno));
    }
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 65536 > cap) {
            cap = cap ? 2 * cap : 131072;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return ts_fail(e, TS_ESYS, "%s: out of memory", jsonl);
            }
            buf = nb;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    bool failed = ferror(f);
    fclose(f);
    if (failed) {
        free(buf);
        return ts_fail(e, TS_ESYS, "%s: read error", jsonl);
    }
    /* Whatever follows the last newline is a line whose write was cut short. */
    size_t complete = len;
    while (complete > 0 && buf[complete - 1] != '\n')
        complete--;
    if (complete < len) {
        *dropped = (long)(len - complete);
        if (truncate(jsonl, (off_t)complete)) {
            free(buf);
            return ts_fail(e, TS_ESYS, "%s: cannot cut the torn last line: %s", jsonl,
                           strerror(errno));
        }
    }
    size_t lineno = 0;
    for (size_t a = 0; a < complete;) {
        size_t b = a;
        while (buf[b] != '\n')
            b++;
        lineno++;
        if (b > a) {
            json_error_t je;
            json_t *rec = json_loadb(buf + a, b - a, 0, &je);
            if (!json_is_object(rec) || !json_is_string(json_object_get(rec, "id"))) {
                fprintf(stderr, "tessel sweep: %s:%zu: not a record, skipped\n", jsonl, lineno);
                json_decref(rec);
            } else if (ts_sweep_records_add(r, rec)) {
                free(buf);
                ts_sweep_records_free(r);
                return ts_fail(e, TS_ESYS, "%s: out of memory", jsonl);
            }
        }
        a = b + 1;
    }
    free(buf);
    return TS_OK;
}

int ts_sweep_append_line(int fd, const char *path, const char *line, size_t len, ts_err *e)
{
    off_t before = lseek(fd, 0, SEEK_END);
    ssize_t w = write(fd, line, len);
    if (w != (ssize_t)len) {
        int err = w < 0 ? errno : ENOSPC;
        /* Take a partial line back so later lines do not get glued to it. */
        if (w > 0 && before >= 0 && ftruncate(fd, before)) {
            /* nothing more to do: the loader drops the torn tail */
        }
        return ts_fail(e, TS_ESYS, "%s: cannot append a record: %s", path, strerror(err));
    }
    if (fsync(fd))
        return ts_fail(e, TS_ESYS, "%s: fsync: %s", path, strerror(errno));
    return TS_OK;
}

int ts_sweep_append_json(int fd, const char *path, json_t *rec, ts_err *e)
{
    char *s = json_dumps(rec, JSON_COMPACT);
    if (!s)
        return ts_fail(e, TS_ESYS, "%s: cannot encode a record", path);
    size_t n = strlen(s);
    char *line = realloc(s, n + 2);
    if (!line) {
        free(s);
        return ts_fail(e, TS_ESYS, "%s: out of memory", path);
    }
    line[n] = '\n';
    line[n + 1] = '\0';
    int rc = ts_sweep_append_line(fd, path, line, n + 1, e);
    free(line);
    return rc;
}

/* ---- CSV --------------------------------------------------------------------------------- */

/* Columns: the point, then the command's summary (nested under "result" in the JSONL). */
static const char *const csv_point_cols[] = {
    "id", "status", "placement", "ndevs", "infer", "memory", "nmicros", "method", "micro_batches"};
static const char *const csv_result_cols[] = {
    "k",           "period", "bubbles_per_repetend", "makespan", "bubble_rate", "lower_bound",
    "peak_memory", "load",   "search_seconds",       "optimal",  "timed_out"};
static const char *const csv_tail_cols[] = {"wall_seconds", "exit_code", "message"};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

const char *ts_sweep_csv_header(void)
{
    return "id,status,placement,ndevs,infer,memory,nmicros,method,micro_batches,k,period,"
           "bubbles_per_repetend,makespan,bubble_rate,lower_bound,peak_memory,load,"
           "search_seconds,optimal,timed_out,wall_seconds,exit_code,message\n";
}

typedef struct {
    char *s;
    size_t n, cap;
    bool oom;
} ts_sweep_sbuf;

static void ts_sweep_sb_add(ts_sweep_sbuf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + n + 1)
            cap *= 2;
        char *ns = realloc(b->s, cap);
        if (!ns) {
            b->oom = true;
            return;
        }
        b->s = ns;
        b->cap = cap;
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = '\0';
}

static void ts_sweep_sb_str(ts_sweep_sbuf *b, const char *s)
{
    ts_sweep_sb_add(b, s, strlen(s));
}

/* A scalar as text; arrays become space-separated values, null and absent become nothing. */
static void ts_sweep_sb_value(ts_sweep_sbuf *b, json_t *v)
{
    char num[64];
    if (json_is_integer(v)) {
        snprintf(num, sizeof num, "%lld", (long long)json_integer_value(v));
        ts_sweep_sb_str(b, num);
    } else if (json_is_real(v)) {
        snprintf(num, sizeof num, "%.6g", json_real_value(v));
        ts_sweep_sb_str(b, num);
    } else if (json_is_boolean(v)) {
        ts_sweep_sb_str(b, json_is_true(v) ? "true" : "false");
    } else if (json_is_string(v)) {
        ts_sweep_sb_str(b, json_string_value(v));
    } else if (json_is_array(v)) {
        for (size_t i = 0; i < json_array_size(v); i++) {
            if (i)
                ts_sweep_sb_str(b, " ");
            ts_sweep_sb_value(b, json_array_get(v, i));
        }
    } else if (json_is_object(v)) {
        /* search_seconds {total, ...}: the total is the figure of the table */
        ts_sweep_sb_value(b, json_object_get(v, "total"));
    }
}

/* A field, quoted when it holds a comma, a quote or a line break. */
static void ts_sweep_sb_field(ts_sweep_sbuf *b, json_t *v, bool first)
{
    if (!first)
        ts_sweep_sb_str(b, ",");
    ts_sweep_sbuf t = {0};
    ts_sweep_sb_value(&t, v);
    if (t.oom) {
        b->oom = true;
        free(t.s);
        return;
    }
    const char *s = t.s ? t.s : "";
    if (strpbrk(s, ",\"\n\r")) {
        ts_sweep_sb_str(b, "\"");
        for (const char *c = s; *c; c++) {
            if (*c == '"')
                ts_sweep_sb_str(b, "\"\"");
            else if (*c == '\n' || *c == '\r')
                ts_sweep_sb_str(b, " ");
            else
                ts_sweep_sb_add(b, c, 1);
        }
        ts_sweep_sb_str(b, "\"");
    } else {
        ts_sweep_sb_str(b, s);
    }
    free(t.s);
}

char *ts_sweep_csv_row(json_t *rec)
{
    ts_sweep_sbuf b = {0};
    json_t *res = json_object_get(rec, "result");
    for (size_t i = 0; i < NELEM(csv_point_cols); i++)
        ts_sweep_sb_field(&b, json_object_get(rec, csv_point_cols[i]), i == 0);
    for (size_t i = 0; i < NELEM(csv_result_cols); i++)
        ts_sweep_sb_field(&b, json_is_object(res) ? json_object_get(res, csv_result_cols[i]) : NULL,
                          false);
    for (size_t i = 0; i < NELEM(csv_tail_cols); i++)
        ts_sweep_sb_field(&b, json_object_get(rec, csv_tail_cols[i]), false);
    ts_sweep_sb_str(&b, "\n");
    if (b.oom) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

int ts_sweep_csv_rewrite(const char *csv, const ts_sweep_records *r, ts_err *e)
{
    size_t n = strlen(csv);
    char *tmp = malloc(n + 5);
    if (!tmp)
        return ts_fail(e, TS_ESYS, "%s: out of memory", csv);
    snprintf(tmp, n + 5, "%s.tmp", csv);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        ts_fail(e, TS_ESYS, "%s: cannot write: %s", tmp, strerror(errno));
        free(tmp);
        return TS_ESYS;
    }
    fputs(ts_sweep_csv_header(), f);
    bool oom = false;
    for (int i = 0; i < r->n; i++) {
        char *row = ts_sweep_csv_row(r->rec[i]);
        if (!row) {
            oom = true;
            break;
        }
        fputs(row, f);
        free(row);
    }
    bool bad = ferror(f) != 0;
    bad |= fflush(f) != 0 || fsync(fileno(f)) != 0;
    bad |= fclose(f) != 0;
    if (oom || bad || rename(tmp, csv)) {
        ts_fail(e, TS_ESYS, "%s: cannot write %s", csv, oom ? "(out of memory)" : strerror(errno));
        unlink(tmp);
        free(tmp);
        return TS_ESYS;
    }
    free(tmp);
    return TS_OK;
}
