/* JSON conversion of the core types (placements and schedules), and the JSON file plumbing, for
 * layers that embed them in their own files. */
#ifndef TS_JSON_H
#define TS_JSON_H

#include <jansson.h>
#include "ts_jsonutil.h"
#include "ts_placement_json.h"
#include "ts_schedule.h"

/* `where` names the file (and the object inside it) in messages. */
int ts_schedule_from_json(json_t *j, const char *where, ts_schedule **out, ts_err *e);
json_t *ts_schedule_to_json(const ts_schedule *s);

#endif
