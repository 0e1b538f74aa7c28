/* The repetend object of a schedule file (schedule_io.c): read with its window checked against
 * the entries, and written. */
#ifndef TS_REPETEND_IO_H
#define TS_REPETEND_IO_H

#include <jansson.h>
#include "ts_schedule.h"

/* Schedules of one micro-batch per period are written as tessel-schedule/1; a repetend of more
 * (its `per_period` and a list of micro-batches per block in `mids`) needs tessel-schedule/2,
 * which a reader of /1 refuses by its format line rather than by misreading the window. */
#define TS_SCHEDULE_FORMAT "tessel-schedule/1"
#define TS_SCHEDULE_FORMAT_2 "tessel-schedule/2"

/* Reads jr into s's repetend (s's entries already read); per_period > 1 only when wide (a /2
 * file). `where` names the file. */
int ts_repetend_from_json(ts_schedule *s, json_t *jr, const char *where, bool wide, ts_err *e);
/* s's repetend as a JSON object (s->has_repetend), NULL on allocation failure. */
json_t *ts_repetend_to_json(const ts_schedule *s);

#endif
