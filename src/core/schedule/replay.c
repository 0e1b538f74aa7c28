/* The one replay: each device's order as early as possible (see ts_replay.h). */
#include <stdlib.h>
#include <string.h>
#include "ts_replay.h"

typedef struct {
    int *head; /* per node: first arc index, -1 */
    int *next; /* per arc */
    int *to; /* per arc */
    double *w; /* per arc: extra wait after the source finishes */
    int narcs, cap;
} ts_graph;

static int ts_graph_arc(ts_graph *g, int from, int to, double w)
{
    if (g->narcs == g->cap) {
        int cap = g->cap ? 2 * g->cap : 256;
        int *nn = realloc(g->next, (size_t)cap * sizeof(int));
        if (!nn)
            return -1;
        g->next = nn;
        int *nt = realloc(g->to, (size_t)cap * sizeof(int));
        if (!nt)
            return -1;
        g->to = nt;
        double *nw = realloc(g->w, (size_t)cap * sizeof(double));
        if (!nw)
            return -1;
        g->w = nw;
        g->cap = cap;
    }
    g->next[g->narcs] = g->head[from];
    g->to[g->narcs] = to;
    g->w[g->narcs] = w;
    g->head[from] = g->narcs++;
    return 0;
}

static void ts_graph_free(ts_graph *g)
{
    free(g->head);
    free(g->next);
    free(g->to);
    free(g->w);
}

/* Device-order arcs, then one arc per edge between present instances. */
static int ts_replay_arcs(const ts_replay_in *in, ts_graph *g)
{
    const ts_placement *p = in->p;
    int n = in->nmicros;
    for (int d = 0; d < p->ndevs; d++)
        for (int k = in->dev_off[d] + 1; k < in->dev_off[d + 1]; k++)
            if (ts_graph_arc(g, in->dev_order[k - 1], in->dev_order[k], 0.0))
                return -1;
    for (int i = 0; i < p->nedges; i++) {
        const ts_edge *x = &p->edges[i];
        double w = in->edge_wait ? in->edge_wait[i] : (double)x->delay;
        for (int m = x->distance; m < n; m++) {
            int a = in->inst[(size_t)x->src * (size_t)n + (size_t)(m - x->distance)];
            int b = in->inst[(size_t)x->dst * (size_t)n + (size_t)m];
            if (a >= 0 && b >= 0 && ts_graph_arc(g, a, b, w))
                return -1;
        }
    }
    return 0;
}

/* Kahn's walk: longest paths from the sources. Returns the number of instances reached. */
static int ts_replay_walk(const ts_replay_in *in, const ts_graph *g, int *indeg, int *queue,
                          double *start)
{
    int n = in->ninst, qh = 0, qt = 0;
    for (int a = 0; a < g->narcs; a++)
        indeg[g->to[a]]++;
    for (int i = 0; i < n; i++)
        if (!indeg[i])
            queue[qt++] = i;
    while (qh < qt) {
        int u = queue[qh++];
        double fin = start[u] + in->duration[u];
        for (int a = g->head[u]; a >= 0; a = g->next[a]) {
            int v = g->to[a];
            if (fin + g->w[a] > start[v])
                start[v] = fin + g->w[a];
            if (--indeg[v] == 0)
                queue[qt++] = v;
        }
    }
    return qt;
}

int ts_replay(const ts_replay_in *in, double *start, int *stuck, ts_err *e)
{
    size_t n = (size_t)(in->ninst > 0 ? in->ninst : 1);
    ts_graph g = {0};
    g.head = malloc(n * sizeof(int));
    int *indeg = calloc(n, sizeof(int)), *queue = malloc(n * sizeof(int));
    int rc = TS_OK;
    if (!g.head || !indeg || !queue) {
        rc = ts_fail(e, TS_ESYS, "replay: out of memory");
        goto out;
    }
    for (int i = 0; i < in->ninst; i++) {
        g.head[i] = -1;
        start[i] = 0;
    }
    if (ts_replay_arcs(in, &g)) {
        rc = ts_fail(e, TS_ESYS, "replay: out of memory");
        goto out;
    }
    if (ts_replay_walk(in, &g, indeg, queue, start) < in->ninst) {
        for (int i = 0; i < in->ninst; i++)
            if (indeg[i] > 0) {
                *stuck = i;
                break;
            }
        rc = TS_ENOANSWER;
    }
out:
    ts_graph_free(&g);
    free(indeg);
    free(queue);
    return rc;
}
