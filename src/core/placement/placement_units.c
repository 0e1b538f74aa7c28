/* What a derived placement states about its units: the per-device memory capacity (in the file's
 * memory units) that `tessel search` takes when no --memory is given, the time of one span step
 * and the bytes of one memory unit on each device. Optional keys "capacity" and "units". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ts_placement_json.h"
#include "ts_jsonutil.h"

static int ts_units_number(json_t *v, const char *where, const char *what, double *out, ts_err *e)
{
    if (!json_is_number(v) || !(json_number_value(v) > 0))
        return ts_fail(e, TS_EINPUT, "%s: %s must be a positive number", where, what);
    *out = json_number_value(v);
    return TS_OK;
}

/* "capacity": one for every device, or a list of one per device. */
static int ts_units_capacity(ts_placement *p, json_t *v, const char *where, ts_err *e)
{
    long cap;
    if (!json_is_array(v)) {
        if (ts_jint_value(v, where, "field 'capacity'", 0, TS_MAX_MEMORY, &cap, e))
            return TS_EINPUT;
        p->has_capacity = true;
        p->capacity = cap;
        return TS_OK;
    }
    if (json_array_size(v) != (size_t)p->ndevs)
        return ts_fail(e, TS_EINPUT,
                       "%s: field 'capacity' lists %zu capacities for %d devices (give one for "
                       "all, or one per device)",
                       where, json_array_size(v), p->ndevs);
    free(p->capacity_per_device);
    if (!(p->capacity_per_device = calloc((size_t)p->ndevs, sizeof(long))))
        return ts_fail(e, TS_ESYS, "%s: out of memory", where);
    p->capacity = 0;
    bool uniform = true;
    for (int d = 0; d < p->ndevs; d++) {
        char what[48];
        snprintf(what, sizeof what, "field 'capacity[%d]'", d);
        if (ts_jint_value(json_array_get(v, (size_t)d), where, what, 0, TS_MAX_MEMORY, &cap, e))
            return TS_EINPUT;
        p->capacity_per_device[d] = cap;
        p->capacity = cap > p->capacity ? cap : p->capacity;
        uniform = uniform && cap == p->capacity_per_device[0];
    }
    if (uniform) { /* the same for all: one number, as a uniform capacity is written */
        free(p->capacity_per_device);
        p->capacity_per_device = NULL;
    }
    p->has_capacity = true;
    return TS_OK;
}

int ts_placement_units_from_json(ts_placement *p, json_t *j, const char *where, ts_err *e)
{
    static const char *const keys[] = {"time_s", "memory_bytes", NULL};
    json_t *c = json_object_get(j, "capacity");
    if (c && ts_units_capacity(p, c, where, e))
        return TS_EINPUT;
    json_t *u = json_object_get(j, "units"), *t, *m;
    if (!u)
        return TS_OK;
    if (!json_is_object(u))
        return ts_fail(e, TS_EINPUT, "%s: field 'units' must be an object, got %s", where,
                       ts_jtype(u));
    if (ts_jkeys(u, where, keys, e))
        return TS_EINPUT;
    if ((t = json_object_get(u, "time_s")) &&
        ts_units_number(t, where, "units.time_s", &p->time_unit_s, e))
        return TS_EINPUT;
    if (!(m = json_object_get(u, "memory_bytes")))
        return TS_OK;
    if (!json_is_array(m) || json_array_size(m) != (size_t)p->ndevs)
        return ts_fail(e, TS_EINPUT,
                       "%s: units.memory_bytes must be an array of %d numbers "
                       "(one per device)",
                       where, p->ndevs);
    free(p->memory_unit_bytes);
    if (!(p->memory_unit_bytes = calloc((size_t)p->ndevs, sizeof(double))))
        return ts_fail(e, TS_ESYS, "%s: out of memory", where);
    for (int d = 0; d < p->ndevs; d++)
        if (ts_units_number(json_array_get(m, (size_t)d), where, "units.memory_bytes[]",
                            &p->memory_unit_bytes[d], e))
            return TS_EINPUT;
    return TS_OK;
}

void ts_placement_units_to_json(const ts_placement *p, json_t *j)
{
    if (p->has_capacity && p->capacity_per_device) {
        json_t *c = json_array();
        for (int d = 0; d < p->ndevs; d++)
            json_array_append_new(c, json_integer(p->capacity_per_device[d]));
        json_object_set_new(j, "capacity", c);
    } else if (p->has_capacity) {
        json_object_set_new(j, "capacity", json_integer(p->capacity));
    }
    if (!p->time_unit_s && !p->memory_unit_bytes)
        return;
    json_t *u = json_object();
    if (p->time_unit_s)
        json_object_set_new(u, "time_s", json_real(p->time_unit_s));
    if (p->memory_unit_bytes) {
        json_t *m = json_array();
        for (int d = 0; d < p->ndevs; d++)
            json_array_append_new(m, json_real(p->memory_unit_bytes[d]));
        json_object_set_new(u, "memory_bytes", m);
    }
    json_object_set_new(j, "units", u);
}

int ts_placement_units_copy(ts_placement *q, const ts_placement *p)
{
    /* per-device capacities hold only on as many devices */
    q->has_capacity = p->has_capacity && (!p->capacity_per_device || q->ndevs == p->ndevs);
    q->capacity = p->capacity;
    q->time_unit_s = p->time_unit_s;
    if (q->has_capacity && p->capacity_per_device) {
        if (!(q->capacity_per_device = malloc((size_t)p->ndevs * sizeof(long))))
            return -1;
        memcpy(q->capacity_per_device, p->capacity_per_device, (size_t)p->ndevs * sizeof(long));
    }
    if (!p->memory_unit_bytes || q->ndevs != p->ndevs)
        return 0;
    q->memory_unit_bytes = malloc((size_t)p->ndevs * sizeof(double));
    if (!q->memory_unit_bytes)
        return -1;
    memcpy(q->memory_unit_bytes, p->memory_unit_bytes, (size_t)p->ndevs * sizeof(double));
    return 0;
}
