/* JSON conversion of core types, for layers that embed placements or schedules in their own files. */
#ifndef TS_JSON_H
#define TS_JSON_H

#include <jansson.h>
#include "ts_schedule.h"

/* `where` names the file (and the object inside it) in messages. */
int ts_placement_from_json(json_t *j, const char *where, ts_placement **out, ts_err *e);
json_t *ts_placement_to_json(const ts_placement *p);
int ts_schedule_from_json(json_t *j, const char *where, ts_schedule **out, ts_err *e);
json_t *ts_schedule_to_json(const ts_schedule *s);
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
