/* The PyTorch pipelining CSV (ts_pytorch.h): the stage map of a placement and the writer. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "baseline_internal.h"
#include "ts_pytorch.h"

void ts_pytorch_map_free(ts_pytorch_map *m)
{
    free(m->stage);
    free(m->kind);
    memset(m, 0, sizeof *m);
}

/* Fills the map from the pipeline view of the placement, checking what the format needs. */
static int ts_map_fill(const ts_placement *p, const ts_bl_pipe *pp, ts_pytorch_map *m, ts_err *e)
{
    m->nstages = pp->nstages;
    for (int s = 0; s < pp->nstages; s++) {
        int f = pp->fwd[s], b = pp->bwd[s];
        if (f < 0)
            return ts_fail(e, TS_EINPUT,
                           "placement '%s': backward block %s has no forward "
                           "block of its own: PyTorch's stages pair them",
                           p->name, p->blocks[b].id);
        m->stage[f] = s;
        m->kind[f] = 'F';
        if (b < 0)
            continue;
        if (!ts_block_same_devices(&p->blocks[f], &p->blocks[b]))
            return ts_fail(e, TS_EINPUT,
                           "placement '%s': stage %d runs its forward %s and its "
                           "backward %s on different devices; PyTorch runs a "
                           "stage on one rank",
                           p->name, s, p->blocks[f].id, p->blocks[b].id);
        int w = pp->att[b];
        m->stage[b] = s;
        m->kind[b] = w >= 0 ? 'I' : 'B';
        if (w >= 0) {
            m->stage[w] = s;
            m->kind[w] = 'W';
        }
    }
    return TS_OK;
}

int ts_pytorch_map_make(const ts_placement *p, ts_pytorch_map *m, ts_err *e)
{
    memset(m, 0, sizeof *m);
    for (int b = 0; b < p->nblocks; b++)
        if (p->blocks[b].ndevices != 1)
            return ts_fail(e, TS_EINPUT,
                           "placement '%s': block %s runs on %d devices; PyTorch's "
                           "CSV gives every action to one rank",
                           p->name, p->blocks[b].id, p->blocks[b].ndevices);
    bool *in = malloc((size_t)p->nblocks * sizeof(bool) + 1);
    m->stage = malloc((size_t)p->nblocks * sizeof(int) + 1);
    m->kind = calloc((size_t)p->nblocks + 1, 1);
    if (!in || !m->stage || !m->kind) {
        free(in);
        ts_pytorch_map_free(m);
        return ts_fail(e, TS_ESYS, "out of memory");
    }
    for (int b = 0; b < p->nblocks; b++)
        in[b] = true;
    ts_bl_pipe pp;
    char why[256] = "";
    int rc = ts_bl_pipe_make(p, in, &pp, why, sizeof why);
    free(in);
    if (rc == TS_ESYS)
        rc = ts_fail(e, TS_ESYS, "out of memory");
    else if (rc != TS_OK)
        rc = ts_fail(e, TS_EINPUT,
                     "placement '%s' is not one pipeline of stages that PyTorch's "
                     "CSV can express: %s",
                     p->name, why);
    else {
        rc = ts_map_fill(p, &pp, m, e);
        ts_bl_pipe_free(&pp);
    }
    if (rc != TS_OK)
        ts_pytorch_map_free(m);
    return rc;
}

/* PyTorch's runtime keeps the losses in the order the last stage computes them and looks the
 * loss of micro-batch i up at index i, so the last stage's forwards must run in micro-batch
 * order. Micro-batches are interchangeable: label[m] is the position of micro-batch m among the
 * last stage's forwards, which renames every instance of m alike and keeps the schedule. */
static int *ts_micro_labels(const ts_schedule *s, const ts_pytorch_map *m, const int *off,
                            const int *order)
{
    int *label = malloc(((size_t)s->nmicros + 1) * sizeof(int));
    if (!label)
        return NULL;
    for (int i = 0; i < s->nmicros; i++)
        label[i] = i;
    int next = 0;
    for (int i = 0; i < off[s->placement->ndevs]; i++) {
        const ts_entry *x = &s->entries[order[i]];
        if (m->kind[x->block] == 'F' && m->stage[x->block] == m->nstages - 1)
            label[x->micro] = next++;
    }
    return label;
}

/* One row per device: its instances in start order. */
static int ts_write_rows(const ts_schedule *s, const ts_pytorch_map *m, FILE *f)
{
    int *off, *order;
    if (ts_schedule_device_orders(s, &off, &order) != 0)
        return -1;
    int *label = ts_micro_labels(s, m, off, order);
    if (!label) {
        free(off);
        free(order);
        return -1;
    }
    for (int d = 0; d < s->placement->ndevs; d++) {
        for (int i = off[d]; i < off[d + 1]; i++) {
            const ts_entry *x = &s->entries[order[i]];
            fprintf(f, "%s%d%c%d", i > off[d] ? "," : "", m->stage[x->block], m->kind[x->block],
                    label[x->micro]);
        }
        fputc('\n', f);
    }
    free(label);
    free(off);
    free(order);
    return 0;
}

int ts_pytorch_save(const ts_schedule *s, const char *path, ts_err *e)
{
    ts_pytorch_map m;
    int rc = ts_pytorch_map_make(s->placement, &m, e);
    if (rc != TS_OK)
        return rc;
    bool to_stdout = !strcmp(path, "-");
    FILE *f = to_stdout ? stdout : fopen(path, "w");
    if (!f) {
        ts_pytorch_map_free(&m);
        return ts_fail(e, TS_ESYS, "%s: cannot write: %s", path, strerror(errno));
    }
    if (ts_write_rows(s, &m, f) != 0)
        rc = ts_fail(e, TS_ESYS, "%s: out of memory", path);
    if (fflush(f) != 0 || ferror(f))
        rc = rc ? rc : ts_fail(e, TS_ESYS, "%s: write failed", path);
    if (!to_stdout && fclose(f) != 0)
        rc = rc ? rc : ts_fail(e, TS_ESYS, "%s: write failed", path);
    ts_pytorch_map_free(&m);
    return rc;
}
