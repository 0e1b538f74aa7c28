/* JSON plumbing for every reader and writer: files in and out (atomic writes), and typed field
 * access in which every failure names the file, the object and the field. */
#ifndef TS_JSONUTIL_H
#define TS_JSONUTIL_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include "ts_error.h"

/* Required integer field in [lo, hi]. */
int ts_jint(json_t *obj, const char *key, const char *where, long lo, long hi, long *out,
            ts_err *e);
/* Optional integer field: *out keeps def when absent. */
int ts_jint_opt(json_t *obj, const char *key, const char *where, long lo, long hi, long def,
                long *out, ts_err *e);
/* Integer value (not a field) in [lo, hi]; what names it in messages. */
int ts_jint_value(json_t *v, const char *where, const char *what, long lo, long hi, long *out,
                  ts_err *e);
/* Required non-empty string field; *out is borrowed from obj. */
int ts_jstr(json_t *obj, const char *key, const char *where, const char **out, ts_err *e);
/* Required array field (may be empty when allow_empty). */
int ts_jarray(json_t *obj, const char *key, const char *where, bool allow_empty, json_t **out,
              ts_err *e);
/* Fails when obj has a key outside allowed (NULL-terminated): catches typos and wrong formats. */
int ts_jkeys(json_t *obj, const char *where, const char *const *allowed, ts_err *e);
/* Checks the "format" field against expected ("tessel-placement/1" ...). */
int ts_jformat(json_t *obj, const char *where, const char *expected, ts_err *e);
const char *ts_jtype(json_t *v);

/* Reads a whole file (or stdin for "-") as JSON with a message naming file, line and column. */
int ts_json_read_file(const char *path, json_t **out, ts_err *e);
/* Parses len bytes as one JSON document (NUL bytes refused); where names it in messages. */
int ts_json_parse(const char *buf, size_t len, const char *where, json_t **out, ts_err *e);
int ts_json_write_file(json_t *j, const char *path, ts_err *e);
/* Writes a file through write(f, ud) (non-zero: failed): to stdout for "-", else to a temporary
 * name renamed over path, so that a crash never leaves a half-written file. */
int ts_write_file(const char *path, int (*write)(FILE *f, const void *ud), const void *ud,
                  ts_err *e);

#endif
