/* Rank 0's view of an iteration. The prediction replays the schedule's per-device orders with the
 * block durations this run measured, so efficiency isolates what the replay itself loses
 * (waiting, messages, scheduling noise) from how fast the compute happens to be. */
#include "rt_report.h"

#include <stdio.h>
#include <stdlib.h>

#include "ts_trace.h"

int ts_rt_report_iteration(const ts_rt_plan *p, const ts_rt_timings *t, double unit_s,
                           double *block_seconds, ts_rt_iter_stats *st, ts_err *e)
{
    const ts_schedule *s = p->s;
    int ne = s->nentries;
    double *dur = malloc(sizeof(double) * (size_t)(ne + 1));
    double *sum = calloc((size_t)p->nblocks + 1, sizeof(double));
    int *cnt = calloc((size_t)p->nblocks + 1, sizeof(int));
    if (!dur || !sum || !cnt) {
        free(dur);
        free(sum);
        free(cnt);
        return ts_fail(e, TS_ESYS, "report: out of memory");
    }
    for (int i = 0; i < ne; i++)
        dur[i] = -1;
    st->wall = 0;
    for (int r = 0; r < t->nranks; r++) {
        if (t->finish[r] > st->wall)
            st->wall = t->finish[r];
        const ts_rt_stream *stm = &p->streams[r];
        for (int i = 0; i < stm->nops; i++) {
            double d = t->end[r][i] - t->start[r][i];
            int en = stm->ops[i].entry;
            if (dur[en] < 0 || d < dur[en])
                dur[en] = d;
        }
    }
    for (int i = 0; i < ne; i++) {
        sum[s->entries[i].block] += dur[i] > 0 ? dur[i] : 0;
        cnt[s->entries[i].block]++;
    }
    for (int b = 0; b < p->nblocks; b++)
        block_seconds[b] = cnt[b] ? sum[b] / cnt[b] : 0;
    /* Delays in seconds: the timing workload waits them out (delay x unit); the others do not
     * emulate them, their messages take what they take. */
    const ts_placement *pl = s->placement;
    double *delay = calloc((size_t)pl->nedges + 1, sizeof(double));
    if (!delay) {
        free(dur);
        free(sum);
        free(cnt);
        return ts_fail(e, TS_ESYS, "report: out of memory");
    }
    for (int i = 0; i < pl->nedges; i++)
        delay[i] = pl->edges[i].delay * unit_s;
    ts_sim_opts so = {0};
    so.duration = block_seconds;
    so.edge_delay = delay;
    ts_sim_result r;
    int rc = ts_simulate(s, &so, &r, e);
    free(delay);
    if (rc == TS_OK) {
        st->predicted = r.makespan;
        ts_sim_result_free(&r);
    }
    st->planned = 0;
    if (rc == TS_OK && unit_s > 0 && (rc = ts_simulate(s, NULL, &r, e)) == TS_OK) {
        st->planned = r.makespan * unit_s;
        ts_sim_result_free(&r);
    }
    st->efficiency = st->wall > 0 ? st->predicted / st->wall : 0;
    st->throughput = st->wall > 0 ? p->nmicros / st->wall : 0;
    free(dur);
    free(sum);
    free(cnt);
    return rc;
}

int ts_rt_report_trace(const ts_rt_plan *p, const ts_rt_timings *t, const char *path, ts_err *e)
{
    const ts_schedule *s = p->s;
    const ts_placement *pl = s->placement;
    ts_trace *tr = ts_trace_new("tessel-run");
    /* pos[r * nentries + entry]: op index of the instance on rank r, -1 when it is not there */
    int *pos = malloc(sizeof(int) * (size_t)t->nranks * (size_t)(s->nentries + 1));
    if (!tr || !pos) {
        ts_trace_free(tr);
        free(pos);
        return ts_fail(e, TS_ESYS, "trace: out of memory");
    }
    double base0 = t->base[0];
    for (int r = 1; r < t->nranks; r++)
        if (t->base[r] < base0)
            base0 = t->base[r];
    int rc = TS_OK;
    char name[160];
    for (int r = 0; r < t->nranks && rc == TS_OK; r++) {
        for (int i = 0; i < s->nentries; i++)
            pos[(size_t)r * s->nentries + i] = -1;
        snprintf(name, sizeof name, "rank %d", r);
        if (ts_trace_track(tr, r, name) != 0)
            rc = TS_ESYS;
        const ts_rt_stream *stm = &p->streams[r];
        double shift = (t->base[r] - base0) * 1e6;
        for (int i = 0; i < stm->nops && rc == TS_OK; i++) {
            const ts_rt_op *op = &stm->ops[i];
            pos[(size_t)r * s->nentries + op->entry] = i;
            const ts_block *b = &pl->blocks[op->block];
            snprintf(name, sizeof name, "%s/%d", b->id, op->micro);
            json_t *args =
                json_pack("{s:s, s:i, s:f}", "block", b->id, "micro", op->micro, "input_wait_us",
                          (t->ready[r][i] - (i ? t->end[r][i - 1] : 0)) * 1e6);
            if (ts_trace_slice(tr, r, name, ts_kind_name(b->kind), shift + t->start[r][i] * 1e6,
                               (t->end[r][i] - t->start[r][i]) * 1e6, args) != 0)
                rc = TS_ESYS;
        }
    }
    long flow = 1;
    for (int r = 0; r < t->nranks && rc == TS_OK; r++) {
        const ts_rt_stream *stm = &p->streams[r];
        for (int i = 0; i < stm->nops && rc == TS_OK; i++) {
            const ts_rt_op *op = &stm->ops[i];
            for (int k = 0; k < op->ninputs; k++) {
                const ts_rt_input *in = &op->inputs[k];
                if (in->local)
                    continue;
                int from = in->from, j = pos[(size_t)from * s->nentries + in->src_entry];
                if (j < 0)
                    continue;
                double fs = (t->base[from] - base0) * 1e6 + t->end[from][j] * 1e6;
                double ts = (t->base[r] - base0) * 1e6 + t->start[r][i] * 1e6;
                /* a flow arrow must end inside the consumer's slice: take its first microsecond */
                snprintf(name, sizeof name, "%s -> %s", pl->blocks[pl->edges[in->edge].src].id,
                         pl->blocks[op->block].id);
                if (ts_trace_flow(tr, flow++, name, from, fs - 0.5, r, ts + 0.5) != 0)
                    rc = TS_ESYS;
            }
        }
    }
    if (rc != TS_OK)
        ts_fail(e, TS_ESYS, "trace: out of memory");
    else
        rc = ts_trace_write(tr, path, e);
    ts_trace_free(tr);
    free(pos);
    return rc;
}
