/* Sweep progress: a bar redrawn in place on a terminal (done/total, failures, ETA), or one plain
 * line per finished point when the output goes to a file or a pipe. */
#include <string.h>
#include "sweep.h"
#include "ts_clock.h"

void ts_sweep_progress_init(ts_sweep_progress *p, FILE *out, bool bar, bool quiet, int total,
                            int skipped)
{
    memset(p, 0, sizeof *p);
    p->out = out;
    p->bar = bar && !quiet;
    p->quiet = quiet;
    p->total = total;
    p->skipped = skipped;
    p->started = ts_clock_now();
}

static void ts_sweep_fmt_duration(char *buf, size_t cap, double s)
{
    if (s < 0)
        s = 0;
    long t = (long)(s + 0.5);
    if (t >= 3600)
        snprintf(buf, cap, "%ldh%02ldm", t / 3600, (t / 60) % 60);
    else if (t >= 60)
        snprintf(buf, cap, "%ldm%02lds", t / 60, t % 60);
    else
        snprintf(buf, cap, "%lds", t);
}

static void ts_sweep_draw(ts_sweep_progress *p, int running)
{
    double now = ts_clock_now(), el = now - p->started;
    int done = p->skipped + p->done, todo = p->total - done;
    char eta[32], elapsed[32];
    ts_sweep_fmt_duration(elapsed, sizeof elapsed, el);
    /* The rate of this run so far; points recorded by an earlier run took no time here. */
    if (p->done > 0)
        ts_sweep_fmt_duration(eta, sizeof eta, el / p->done * todo);
    else
        snprintf(eta, sizeof eta, "?");
    enum { W = 30 };
    char bar[W + 1];
    int fill = p->total ? (int)((long)W * done / p->total) : W;
    for (int i = 0; i < W; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[W] = '\0';
    int failed =
        p->counts[TS_SWEEP_INFEASIBLE] + p->counts[TS_SWEEP_TIMEOUT] + p->counts[TS_SWEEP_ERROR];
    fprintf(p->out, "\r[%s] %d/%d  failed %d  running %d  elapsed %s  ETA %s\033[K", bar, done,
            p->total, failed, running, elapsed, eta);
    fflush(p->out);
    p->last_draw = now;
}

void ts_sweep_progress_point(ts_sweep_progress *p, json_t *rec, int running)
{
    const char *st = json_string_value(json_object_get(rec, "status"));
    for (int s = 0; s < TS_SWEEP_NSTATUS; s++)
        if (st && !strcmp(st, ts_sweep_status_name((ts_sweep_status)s)))
            p->counts[s]++;
    p->done++;
    if (p->quiet)
        return;
    if (p->bar) {
        ts_sweep_draw(p, running);
        return;
    }
    const char *id = json_string_value(json_object_get(rec, "id"));
    const char *msg = json_string_value(json_object_get(rec, "message"));
    fprintf(p->out, "sweep: %d/%d %-10s %s (%.1f s)%s%s\n", p->skipped + p->done, p->total,
            st ? st : "?", id ? id : "?", json_number_value(json_object_get(rec, "wall_seconds")),
            msg && strcmp(st ? st : "", "ok") ? ": " : "",
            msg && strcmp(st ? st : "", "ok") ? msg : "");
    fflush(p->out);
}

void ts_sweep_progress_tick(ts_sweep_progress *p, int running)
{
    if (p->bar && ts_clock_now() - p->last_draw >= 0.5)
        ts_sweep_draw(p, running);
}

void ts_sweep_progress_end(ts_sweep_progress *p)
{
    if (p->bar) {
        fputc('\n', p->out);
        fflush(p->out);
    }
}
