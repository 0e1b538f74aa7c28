/* Rank 0's final words. The schedule's own peak memory (in its units) is printed beside the
 * measured live-activation bytes so that a reader can see whether memory followed the plan. */
#include "rt_summary.h"

#include <jansson.h>
#include "ts_bound.h"

void ts_rt_summary_header(const ts_rt_summary *s, FILE *out)
{
    fprintf(out, "tessel-run: %s (%s, %d ranks, %d micro-batches), workload %s, backend %s\n",
            s->o->schedule, s->p->s->placement->name, s->ranks, s->p->nmicros, s->workload,
            s->backend);
    fprintf(out, "%4s %10s %12s %10s %14s%s\n", "iter", "wall_ms", "predicted_ms", "efficiency",
            "micro-batch/s", s->o->workload == TS_RT_WORK_TRAIN ? "         loss" : "");
}

void ts_rt_summary_row(const ts_rt_summary *s, int it, FILE *out)
{
    const ts_rt_iter_stats *st = &s->stats[it];
    fprintf(out, "%4d %10.3f %12.3f %10.3f %14.1f", it, st->wall * 1e3, st->predicted * 1e3,
            st->efficiency, st->throughput);
    if (s->o->workload == TS_RT_WORK_TRAIN)
        fprintf(out, " %12.6g", s->loss[it]);
    fprintf(out, "\n");
    fflush(out);
}

void ts_rt_summary_text(const ts_rt_summary *s, FILE *out)
{
    ts_metrics met;
    int have = ts_schedule_metrics(s->p->s, &met) == 0;
    fprintf(out, "peak live activation bytes per rank (schedule memory units):");
    for (int r = 0; r < s->ranks; r++)
        fprintf(out, " %d: %.0f (%ld)", r, s->peak_bytes[r], have ? met.peak[r] : 0L);
    fprintf(out, "\n");
    if (s->o->workload == TS_RT_WORK_TIMING)
        fprintf(out, "planned makespan at %g us per unit: %.3f ms\n", s->o->unit_us,
                s->stats[s->iterations - 1].planned * 1e3);
    if (s->checked) {
        const char *trend = "";
        if (s->o->workload == TS_RT_WORK_TRAIN)
            trend = s->iterations < 2 ? "; loss trend needs --iterations >= 2"
                    : s->loss_ok      ? "; loss decreased"
                                      : "; loss did NOT decrease";
        fprintf(out, "check: %s (%ld %s compared, max relative error %.3g)%s\n",
                s->failed ? "FAILED" : "passed", s->compared,
                s->o->workload == TS_RT_WORK_DATAFLOW ? "instances" : "gradient shards",
                s->max_rel_error, trend);
    }
    if (have)
        ts_metrics_free(&met);
}

void ts_rt_summary_json(const ts_rt_summary *s, FILE *out)
{
    const ts_rt_options *o = s->o;
    const ts_rt_plan *p = s->p;
    ts_metrics met;
    int have = ts_schedule_metrics(p->s, &met) == 0;
    json_t *j = json_object(), *its = json_array(), *pk = json_array(), *mu = json_array();
    json_t *blocks = json_object();
    json_object_set_new(j, "format", json_string("tessel-run/1"));
    json_object_set_new(j, "schedule", json_string(o->schedule));
    json_object_set_new(j, "placement", json_string(p->s->placement->name));
    json_object_set_new(j, "workload", json_string(s->workload));
    json_object_set_new(j, "backend", json_string(s->backend));
    json_object_set_new(j, "ranks", json_integer(s->ranks));
    json_object_set_new(j, "micro_batches", json_integer(p->nmicros));
    json_object_set_new(j, "size", json_integer(o->size));
    if (o->workload == TS_RT_WORK_TIMING)
        json_object_set_new(j, "unit_us", json_real(o->unit_us));
    for (int it = 0; it < s->iterations; it++) {
        const ts_rt_iter_stats *st = &s->stats[it];
        json_t *r = json_pack("{s:i, s:f, s:f, s:f, s:f}", "iteration", it, "wall_s", st->wall,
                              "predicted_s", st->predicted, "efficiency", st->efficiency,
                              "throughput", st->throughput);
        if (o->workload == TS_RT_WORK_TIMING)
            json_object_set_new(r, "planned_s", json_real(st->planned));
        if (o->workload == TS_RT_WORK_TRAIN)
            json_object_set_new(r, "loss", json_real(s->loss[it]));
        json_array_append_new(its, r);
    }
    json_object_set_new(j, "iterations", its);
    for (int b = 0; b < p->nblocks; b++)
        json_object_set_new(blocks, p->s->placement->blocks[b].id, json_real(s->block_seconds[b]));
    json_object_set_new(j, "block_seconds", blocks);
    for (int r = 0; r < s->ranks; r++) {
        json_array_append_new(pk, json_integer((json_int_t)s->peak_bytes[r]));
        json_array_append_new(mu, json_integer(have ? met.peak[r] : 0));
    }
    json_object_set_new(j, "peak_live_bytes", pk);
    json_object_set_new(j, "schedule_peak_memory_units", mu);
    if (s->checked)
        json_object_set_new(j, "check",
                            json_pack("{s:b, s:I, s:I, s:f, s:b}", "passed", s->passed, "compared",
                                      (json_int_t)s->compared, "failed", (json_int_t)s->failed,
                                      "max_rel_error", s->max_rel_error, "loss_decreased",
                                      s->loss_ok));
    char *txt = json_dumps(j, JSON_COMPACT);
    if (txt)
        fprintf(out, "%s\n", txt);
    free(txt);
    json_decref(j);
    if (have)
        ts_metrics_free(&met);
}
