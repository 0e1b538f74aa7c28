/* Zero-bubble timing of the rules that split a backward pass into an input-gradient pass B and a
 * weight-gradient pass W and leave W out of their orders (ZB-H1, ZB-H2, zb-v-defer; ZB-V and
 * DualPipe place W in each rank's program and are timed as early as it allows): each device works
 * through its own order of forward and B passes; the W attached to a B (which nothing waits
 * for) is queued when that B runs and fills the steps where the next pass is not ready yet, or
 * runs first when the next pass would lift the device's memory above its cap. Timed step by step,
 * since which W runs when depends on the timing. */
#include <stdlib.h>
#include "baseline_internal.h"

/* Per-device state of the step-by-step run. */
typedef struct {
    int *pos; /* next entry of fb[d] */
    long *free_at; /* step the device is free again */
    long *mem; /* running memory */
    int *wh; /* head of the W queue */
    ts_bl_seq *wq; /* queued W instances, in the order their B ran */
    ts_bl_preds pr; /* incoming edges, for readiness */
} ts_wfill_state;

static void ts_wfill_free(ts_wfill_state *st, int D)
{
    free(st->pos);
    free(st->free_at);
    free(st->mem);
    free(st->wh);
    ts_bl_seqs_free(st->wq, D);
    ts_bl_preds_free(&st->pr);
}

static int ts_wfill_alloc(ts_wfill_state *st, const ts_placement *p)
{
    int D = p->ndevs;
    st->pos = calloc((size_t)D, sizeof(int));
    st->free_at = calloc((size_t)D, sizeof(long));
    st->mem = calloc((size_t)D, sizeof(long));
    st->wh = calloc((size_t)D, sizeof(int));
    st->wq = ts_bl_seqs_new(D);
    if (!st->pos || !st->free_at || !st->mem || !st->wh || !st->wq)
        return -1;
    return ts_bl_preds_make(p, &st->pr);
}

/* What device d starts at step t: its next F/B pass when ready (and, with a W waiting, within
 * the cap), else its oldest queued W; -1 when idle, -2 on allocation failure. */
static long ts_wfill_pick(const ts_placement *p, int n, const ts_bl_seq *fb, const int *att,
                          const long *cap, const long *start, ts_wfill_state *st, int d, long t)
{
    int x = st->pos[d] < fb[d].len ? fb[d].v[st->pos[d]] : -1;
    bool ready = x >= 0 && ts_bl_inputs_ready(p, &st->pr, n, start, x / n, x % n, t);
    bool has_w = st->wh[d] < st->wq[d].len;
    if (ready && (!has_w || st->mem[d] + p->blocks[x / n].memory <= cap[d])) {
        st->pos[d]++;
        if (att[x / n] >= 0 && ts_bl_seq_push(&st->wq[d], att[x / n] * n + x % n) != 0)
            return -2;
        return x;
    }
    return has_w ? st->wq[d].v[st->wh[d]++] : -1;
}

int ts_bl_wfill(const ts_placement *p, int n, const ts_bl_seq *fb, const int *att, const long *cap,
                long *start, const char *kind, ts_err *e)
{
    int D = p->ndevs;
    long total = 0, busy = 0;
    for (int d = 0; d < D; d++)
        for (int i = 0; i < fb[d].len; i++) {
            int b = fb[d].v[i] / n;
            total += 1 + (att[b] >= 0);
            busy += p->blocks[b].span + (att[b] >= 0 ? p->blocks[att[b]].span : 0);
        }
    for (long i = 0; i < (long)p->nblocks * n; i++)
        start[i] = -1;
    ts_wfill_state st = {0};
    int rc = TS_OK;
    if (ts_wfill_alloc(&st, p) != 0) {
        rc = ts_fail(e, TS_ESYS, "baseline %s: out of memory", kind);
        goto out;
    }
    long placed = 0, limit = 2 * busy + 2 * total + 16;
    for (long t = 0; placed < total && rc == TS_OK; t++) {
        if (t > limit) {
            rc = ts_fail(e, TS_ESYS, "baseline %s: internal error: no progress at step %ld", kind,
                         t);
            break;
        }
        for (int d = 0; d < D && rc == TS_OK; d++) {
            if (st.free_at[d] > t)
                continue;
            long run = ts_wfill_pick(p, n, fb, att, cap, start, &st, d, t);
            if (run == -2)
                rc = ts_fail(e, TS_ESYS, "baseline %s: out of memory", kind);
            if (run < 0)
                continue;
            start[run] = t;
            st.free_at[d] = t + p->blocks[run / n].span;
            st.mem[d] += p->blocks[run / n].memory;
            placed++;
        }
    }
out:
    ts_wfill_free(&st, D);
    return rc;
}
