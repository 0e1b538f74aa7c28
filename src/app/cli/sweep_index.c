/* The id index of a spec's points: an open-addressing hash table from id to point index, so that
 * finding a point by id (duplicate checks while a spec expands, matching records to points on
 * --resume) costs the same for the 80,000th point as for the first. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "sweep.h"

/* FNV-1a: ids are short ASCII strings, and any spread-out hash will do. */
static uint32_t ts_sweep_id_hash(const char *id)
{
    uint32_t h = 2166136261u;
    for (const unsigned char *c = (const unsigned char *)id; *c; c++)
        h = (h ^ *c) * 16777619u;
    return h;
}

/* The slot holding id, or the empty slot where it would go. */
static size_t ts_sweep_index_slot(const ts_sweep_spec *s, const char *id)
{
    size_t mask = s->nslots - 1;
    size_t i = ts_sweep_id_hash(id) & mask;
    while (s->slots[i] >= 0 && strcmp(s->points[s->slots[i]].id, id))
        i = (i + 1) & mask;
    return i;
}

int ts_sweep_spec_find(const ts_sweep_spec *s, const char *id)
{
    if (!id || !s->nslots)
        return -1;
    return s->slots[ts_sweep_index_slot(s, id)];
}

int ts_sweep_index_add(ts_sweep_spec *s, int point)
{
    /* keep the table at most half full: doubled (and refilled) before it gets fuller */
    if ((size_t)(point + 1) * 2 > s->nslots) {
        size_t n = s->nslots ? 2 * s->nslots : 128;
        while ((size_t)(point + 1) * 2 > n)
            n *= 2;
        int *slots = malloc(n * sizeof *slots);
        if (!slots)
            return -1;
        memset(slots, 0xff, n * sizeof *slots);
        free(s->slots);
        s->slots = slots;
        s->nslots = n;
        for (int i = 0; i < point; i++)
            s->slots[ts_sweep_index_slot(s, s->points[i].id)] = i;
    }
    s->slots[ts_sweep_index_slot(s, s->points[point].id)] = point;
    return 0;
}
