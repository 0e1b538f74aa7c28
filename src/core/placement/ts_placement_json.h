/* A placement as JSON (tessel-placement/1), for layers that embed placements in their own files. */
#ifndef TS_PLACEMENT_JSON_H
#define TS_PLACEMENT_JSON_H

#include <jansson.h>
#include "ts_jsonutil.h"
#include "ts_placement.h"

/* `where` names the file (and the object inside it) in messages. */
int ts_placement_from_json(json_t *j, const char *where, ts_placement **out, ts_err *e);
json_t *ts_placement_to_json(const ts_placement *p);

#endif
