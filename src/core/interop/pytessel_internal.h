/* What the Python Tessel reader's steps share: the file as read, before gids become blocks. */
#ifndef TS_PYTESSEL_INTERNAL_H
#define TS_PYTESSEL_INTERNAL_H

#include <stdbool.h>
#include "ts_pytessel.h"

/* One distinct gid: what the file says about it, and the placement block it is matched to. */
typedef struct {
    long gid;
    ts_kind kind;
    long span, memory;
    int ndev;
    /* sorted ascending */
    int *devs;
    /* -1 until matched */
    int block;
} ts_pygid;

/* One saved instance: gids[g] for micro-batch mid, starting at step. */
typedef struct {
    int g;
    int mid;
    long step;
} ts_pyinst;

typedef struct {
    const char *path;
    int ndevs, nmids;
    int ngids, ninst;
    /* sorted by gid */
    ts_pygid *gids;
    ts_pyinst *inst;
    bool has_rep;
    /* the repetend window [rs, re) */
    long rs, re;
} ts_pyplan;

/* Parses the file: fields, types, one signature per gid, one instance per (gid, mid), micro-batches
 * 0 .. nmids-1 all present, ndevs equal to p's. */
int ts_pyplan_read(const char *path, const ts_placement *p, ts_pyplan *pl, ts_err *e);
void ts_pyplan_free(ts_pyplan *pl);

/* Sets gids[*].block: each gid to a placement block of the same devices, kind, span and memory,
 * choosing among look-alikes the assignment under which the saved steps keep every dependency. */
int ts_py_match(ts_pyplan *pl, const ts_placement *p, ts_err *e);

/* The reference's unroll of a matched plan (see ts_pyimport_opts), not yet validated. */
int ts_pyplan_schedule(const ts_pyplan *pl, const ts_placement *p, const ts_pyimport_opts *o,
                       ts_schedule **out, ts_err *e);

#endif
