/* Matching the gids of a Python Tessel schedule to the blocks of a placement. A gid carries only a
 * signature (kind, span, memory, devices), and look-alike blocks share one: the two forward blocks
 * of Chimera's placement on one device, for instance. The reference numbers gids in its chain
 * order, so that order is tried first; the saved steps decide, since a wrong assignment breaks a
 * dependency. Backtracking with a check at every assignment keeps the search small. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pytessel_internal.h"

/* Far above what look-alike groups of a real placement need; a bound keeps hostile input finite. */
#define TS_MATCH_MAX_NODES 2000000L

typedef struct {
    const ts_pyplan *pl;
    const ts_placement *p;
    long *steps; /* steps[g * nmids + m] */
    int *gid_of; /* block -> matched gid index, -1 */
    int *rank; /* block -> the reference's gid for it */
    long nodes;
    int fail_g; /* the gid whose dependency failed (see why) */
    bool keep_why; /* why already holds the failure under the reference's own numbering */
    char why[320]; /* a dependency that failed */
} ts_matcher;

int ts_py_gids(const ts_placement *p, int *gid_of)
{
    int *order = malloc((size_t)(p->nblocks ? p->nblocks : 1) * sizeof(int));
    if (!order || ts_placement_chain_order(p, order) != 0) {
        free(order);
        return -1;
    }
    for (int i = 0; i < p->nblocks; i++)
        gid_of[order[i]] = i;
    free(order);
    return 0;
}

static int ts_sig_eq(const ts_pygid *g, const ts_block *b)
{
    return g->ndev == b->ndevices && g->kind == b->kind && g->span == b->span &&
           g->memory == b->memory && !memcmp(g->devs, b->devices, (size_t)g->ndev * sizeof(int));
}

/* Edge x: does it hold between the saved instances of gids gs (source) and gd (destination)? */
static int ts_edge_holds(ts_matcher *mt, const ts_edge *x, int gs, int gd, int g)
{
    const ts_pyplan *pl = mt->pl;
    const ts_block *src = &mt->p->blocks[x->src];
    for (int m = x->distance; m < pl->nmids; m++) {
        long ss = mt->steps[gs * pl->nmids + m - x->distance], sd = mt->steps[gd * pl->nmids + m];
        if (sd >= ss + src->span + x->delay)
            continue;
        if (!mt->keep_why && g >= mt->fail_g) {
            mt->fail_g = g;
            snprintf(mt->why, sizeof mt->why,
                     "%s/%d (gid %ld, step %ld) starts before %s/%d (gid %ld, step %ld) is done",
                     mt->p->blocks[x->dst].id, m, pl->gids[gd].gid, sd, src->id, m - x->distance,
                     pl->gids[gs].gid, ss);
        }
        return 0;
    }
    return 1;
}

/* May gid g be block b, given the gids matched so far? Checks every edge between them. */
static int ts_match_ok(ts_matcher *mt, int g, int b)
{
    for (int i = 0; i < mt->p->nedges; i++) {
        const ts_edge *x = &mt->p->edges[i];
        int gs = x->src == b ? g : mt->gid_of[x->src], gd = x->dst == b ? g : mt->gid_of[x->dst];
        if ((x->src == b || x->dst == b) && gs >= 0 && gd >= 0 && !ts_edge_holds(mt, x, gs, gd, g))
            return 0;
    }
    return 1;
}

/* 1: matched gids g.. ; 0: no valid assignment; -1: search bound reached. */
static int ts_match_dfs(ts_matcher *mt, int g)
{
    ts_pyplan *pl = (ts_pyplan *)mt->pl;
    if (g == pl->ngids)
        return 1;
    if (++mt->nodes > TS_MATCH_MAX_NODES)
        return -1;
    /* Pass 0 tries the block the reference's numbering names; pass 1 its look-alikes. */
    for (int pass = 0; pass < 2; pass++)
        for (int b = 0; b < mt->p->nblocks; b++) {
            if (mt->gid_of[b] >= 0 || (mt->rank[b] == pl->gids[g].gid) != (pass == 0) ||
                !ts_sig_eq(&pl->gids[g], &mt->p->blocks[b]) || !ts_match_ok(mt, g, b))
                continue;
            mt->gid_of[b] = g;
            pl->gids[g].block = b;
            int r = ts_match_dfs(mt, g + 1);
            if (r)
                return r;
            mt->gid_of[b] = -1;
            pl->gids[g].block = -1;
        }
    return 0;
}

/* The reference's own numbering, when it fits the signatures: 1 when it keeps every dependency;
 * 0 when not, with the first broken dependency kept as the one to report (the likeliest cause is a
 * damaged file, not a different numbering); -1 when the numbering does not fit. */
static int ts_match_preferred(ts_matcher *mt)
{
    ts_pyplan *pl = (ts_pyplan *)mt->pl;
    int ok = 1;
    for (int g = 0; g < pl->ngids; g++) {
        int b = 0;
        while (b < mt->p->nblocks && mt->rank[b] != pl->gids[g].gid)
            b++;
        if (b == mt->p->nblocks || !ts_sig_eq(&pl->gids[g], &mt->p->blocks[b]))
            ok = -1;
        else
            pl->gids[g].block = b;
    }
    for (int g = 0; g < pl->ngids && ok == 1; g++) {
        if (!ts_match_ok(mt, g, pl->gids[g].block)) {
            ok = 0;
            mt->keep_why = true;
        }
        mt->gid_of[pl->gids[g].block] = g;
    }
    for (int g = 0; g < pl->ngids && ok < 1; g++)
        pl->gids[g].block = -1;
    for (int b = 0; b < mt->p->nblocks && ok < 1; b++)
        mt->gid_of[b] = -1;
    return ok;
}

/* Every gid has a look-alike block and every block a look-alike gid, in equal numbers. */
static int ts_match_counts(const ts_pyplan *pl, const ts_placement *p, ts_err *e)
{
    if (pl->ngids != p->nblocks)
        return ts_fail(e, TS_EINPUT,
                       "%s: %d distinct blocks (gids) but placement '%s' has %d blocks", pl->path,
                       pl->ngids, p->name, p->nblocks);
    for (int b = 0; b < p->nblocks; b++) {
        int nb = 0, ng = 0;
        for (int c = 0; c < p->nblocks; c++) {
            const ts_block *x = &p->blocks[c];
            ts_pygid as_gid = {.kind = x->kind,
                               .span = x->span,
                               .memory = x->memory,
                               .ndev = x->ndevices,
                               .devs = x->devices};
            nb += ts_sig_eq(&as_gid, &p->blocks[b]);
        }
        for (int g = 0; g < pl->ngids; g++)
            ng += ts_sig_eq(&pl->gids[g], &p->blocks[b]);
        if (ng != nb)
            return ts_fail(e, TS_EINPUT,
                           "%s: %d gids but %d blocks of placement '%s' look like '%s' (%s, "
                           "span %d, memory %d, %d device(s) from %d)",
                           pl->path, ng, nb, p->name, p->blocks[b].id,
                           ts_kind_name(p->blocks[b].kind), p->blocks[b].span, p->blocks[b].memory,
                           p->blocks[b].ndevices, p->blocks[b].devices[0]);
    }
    return TS_OK;
}

/* "gids 0, 7 (forward, span 1, memory 1, devices from 0)": the look-alike group of gid g. */
static void ts_match_group(const ts_pyplan *pl, int g, char *buf, size_t cap)
{
    size_t len = (size_t)snprintf(buf, cap, "gid(s)");
    for (int h = 0; h < pl->ngids && len < cap; h++) {
        const ts_pygid *a = &pl->gids[g], *b = &pl->gids[h];
        if (a->kind == b->kind && a->span == b->span && a->memory == b->memory &&
            a->ndev == b->ndev && !memcmp(a->devs, b->devs, (size_t)a->ndev * sizeof(int)))
            len += (size_t)snprintf(buf + len, cap - len, " %ld", b->gid);
    }
    if (len < cap)
        snprintf(buf + len, cap - len, " (%s, span %ld, memory %ld)",
                 ts_kind_name(pl->gids[g].kind), pl->gids[g].span, pl->gids[g].memory);
}

int ts_py_match(ts_pyplan *pl, const ts_placement *p, ts_err *e)
{
    if (ts_match_counts(pl, p, e))
        return TS_EINPUT;
    ts_matcher mt = {.pl = pl, .p = p, .fail_g = -1};
    mt.steps = malloc((size_t)pl->ninst * sizeof(long));
    mt.gid_of = malloc((size_t)p->nblocks * sizeof(int));
    mt.rank = malloc((size_t)p->nblocks * sizeof(int));
    int rc = TS_OK;
    if (!mt.steps || !mt.gid_of || !mt.rank) {
        rc = ts_fail(e, TS_ESYS, "out of memory");
        goto out;
    }
    if (ts_py_gids(p, mt.rank)) {
        rc = ts_fail(e, TS_EINPUT, "placement '%s': a cycle among its blocks", p->name);
        goto out;
    }
    for (int i = 0; i < pl->ninst; i++)
        mt.steps[pl->inst[i].g * pl->nmids + pl->inst[i].mid] = pl->inst[i].step;
    for (int b = 0; b < p->nblocks; b++)
        mt.gid_of[b] = -1;
    int r = ts_match_preferred(&mt) == 1 ? 1 : ts_match_dfs(&mt, 0);
    if (r < 0) {
        rc = ts_fail(e, TS_ENOANSWER, "%s: more than %ld tries to match look-alike gids; gave up",
                     pl->path, TS_MATCH_MAX_NODES);
    } else if (r == 0) {
        char group[256];
        ts_match_group(pl, mt.fail_g < 0 ? 0 : mt.fail_g, group, sizeof group);
        rc = ts_fail(e, TS_ENOANSWER,
                     "%s: %s cannot be matched to placement '%s' without breaking a dependency: %s",
                     pl->path, group, p->name, mt.why[0] ? mt.why : "no look-alike block left");
    }
out:
    free(mt.steps);
    free(mt.gid_of);
    free(mt.rank);
    return rc;
}
