/* The views of a schedule: show (a text timeline), render (an SVG timeline; the explorer's view)
 * and trace (a Chrome trace): their option tables, their requests, and the schedule at N that
 * each draws, valid or not. The schedule at N is the step every operation on a schedule shares. */
#include <stdlib.h>
#include <string.h>
#include "ts_op_views.h"
#include "ts_trace.h"

#define TS_OP_N_HELP "unroll the repetend to N micro-batches first (below its count: its first N)"
#define TS_OP_TIMELINE_HELP                                                                        \
    "planned (the default: the steps as written) or replayed (each instance as early as its "      \
    "device's order allows)"

static const ts_op_option ts_op_show_opts[] = {
    {"micro_batches", "n", "micro-batches", 'n', TS_OPV_INT, 1, 100000, "N", TS_OP_N_HELP,
     TS_FRONT_CLI | TS_FRONT_PY, "the explorer draws its own timeline (its view: /api/view)"},
    {"timeline", NULL, "timeline", 0, TS_OPV_TEXT, 0, 0, "KIND", TS_OP_TIMELINE_HELP,
     TS_FRONT_CLI | TS_FRONT_PY, "the explorer draws its own timeline (its view: /api/view)"},
    {"width", NULL, "width", 'w', TS_OPV_INT, 20, 100000, "W",
     "characters per row before wrapping (default 120)", TS_FRONT_CLI | TS_FRONT_PY,
     "the explorer draws its own timeline (its view: /api/view)"},
};

static const ts_op_option ts_op_render_opts[] = {
    {"micro_batches", "n", "micro-batches", 'n', TS_OPV_INT, 1, 1000000, "N",
     TS_OP_N_HELP "; the explorer: 128 when the page gives none", TS_FRONT_ALL, NULL},
    {"timeline", NULL, "timeline", 0, TS_OPV_TEXT, 0, 0, "KIND", TS_OP_TIMELINE_HELP, TS_FRONT_ALL,
     NULL},
    {"scale", NULL, "scale", 0, TS_OPV_NUM, 0.01, 1000, "PX",
     "pixels per time step (default: about 1600 px in all)", TS_FRONT_ALL, NULL},
    {"title", NULL, "title", 0, TS_OPV_TEXT, 0, 0, "TEXT",
     "title line (default: placement, method, sizes)", TS_FRONT_ALL, NULL},
    {"output", NULL, "output", 'o', TS_OPV_TEXT, 0, 0, "FILE",
     "the SVG file (default stdout; required with --png)", TS_FRONT_CLI,
     "Python returns the SVG as text; the explorer returns it in its answer"},
    {"png", NULL, "png", 0, TS_OPV_FLAG, 0, 0, NULL,
     "also write FILE.png through rsvg-convert, inkscape or ImageMagick, whichever is installed",
     TS_FRONT_CLI, "Python and the explorer return the SVG; a PNG needs a converter program"},
    {"svg", NULL, NULL, 0, TS_OPV_FLAG, 0, 0, NULL,
     "false leaves the SVG out of the answer (the page draws from its entries)", TS_FRONT_SERVE,
     "the command line and Python are asked for the SVG itself"},
};

static const ts_op_option ts_op_trace_opts[] = {
    {"micro_batches", "n", "micro-batches", 'n', TS_OPV_INT, 1, 1000000, "N",
     TS_OP_N_HELP "; the explorer: 128 when the page gives none", TS_FRONT_ALL, NULL},
    {"timeline", NULL, "timeline", 0, TS_OPV_TEXT, 0, 0, "KIND", TS_OP_TIMELINE_HELP, TS_FRONT_ALL,
     NULL},
    {"unit_us", NULL, "unit-us", 'u', TS_OPV_NUM, 1e-6, 1e12, "U",
     "microseconds per time unit (default 1000; the explorer's: 1)", TS_FRONT_ALL, NULL},
    {"output", NULL, "output", 'o', TS_OPV_TEXT, 0, 0, "FILE", "where to write (default stdout)",
     TS_FRONT_CLI, "Python and the explorer return the trace as an object"},
};

#define TS_OP_ROWS(t) t, (int)(sizeof t / sizeof t[0])

const ts_op ts_op_show = {"show",
                          "a schedule as a text timeline, one row per device, with its makespan, "
                          "bubbles and peak memory",
                          TS_OP_ON_SCHEDULE,
                          "show",
                          "Schedule.show",
                          NULL,
                          NULL,
                          TS_OP_ROWS(ts_op_show_opts)};

const ts_op ts_op_render = {"render",
                            "a schedule as an SVG timeline (the explorer's view: with its "
                            "figures, validity and memory over time)",
                            TS_OP_ON_SCHEDULE,
                            "render",
                            "Schedule.svg",
                            "/api/view",
                            NULL,
                            TS_OP_ROWS(ts_op_render_opts)};

const ts_op ts_op_trace = {"trace",
                           "a schedule's timeline as a Chrome trace (Perfetto, chrome://tracing)",
                           TS_OP_ON_SCHEDULE,
                           "trace",
                           "Schedule.trace",
                           "/api/trace",
                           NULL,
                           TS_OP_ROWS(ts_op_trace_opts)};

int ts_op_schedule_at(const ts_schedule *s, int n, bool replayed, const char *where,
                      ts_schedule **out, ts_err *e)
{
    ts_schedule *u = NULL;
    ts_err ue = {0};
    *out = NULL;
    int rc = n > 0 && n != s->nmicros     ? ts_schedule_unroll(s, n, &u, &ue)
             : (u = ts_schedule_clone(s)) ? TS_OK
                                          : ts_fail(&ue, TS_ESYS, "out of memory");
    if (rc)
        return ts_fail(e, rc, "%s: %s", where, ue.msg);
    /* a tightening that deadlocks keeps the planned steps, which are valid too */
    ts_err te = {0};
    if (replayed)
        ts_schedule_tighten(u, &te);
    *out = u;
    return TS_OK;
}

int ts_op_read_at(const ts_op *op, json_t *req, ts_front f, int *n, bool *replayed, ts_err *e)
{
    double v = 0;
    bool given;
    const char *tl;
    char name[96];
    *n = 0;
    *replayed = false;
    if (ts_op_read_num(op, "micro_batches", req, f, &v, &given, e) ||
        ts_op_read_text(op, "timeline", req, f, &tl, &given, e))
        return TS_EINPUT;
    *n = (int)v;
    if (!given)
        return TS_OK;
    if (strcmp(tl, "planned") && strcmp(tl, "replayed"))
        return ts_fail(e, TS_EINPUT, "%s must be planned or replayed",
                       ts_op_field(ts_op_option_find(op, "timeline"), f, name, sizeof name));
    *replayed = !strcmp(tl, "replayed");
    return TS_OK;
}

int ts_op_view_read(const ts_op *op, json_t *req, ts_front f, ts_op_view_req *r, ts_err *e)
{
    double v;
    bool given;
    memset(r, 0, sizeof *r);
    r->width = 120;
    r->unit_us = 1000.0;
    if (ts_op_read_at(op, req, f, &r->n, &r->replayed, e))
        return TS_EINPUT;
    if (ts_op_read_num(op, "width", req, f, &v, &given, e))
        return TS_EINPUT;
    if (given)
        r->width = (int)v;
    if (ts_op_read_num(op, "scale", req, f, &r->ro.px_per_step, &given, e) ||
        ts_op_read_text(op, "title", req, f, &r->ro.title, &given, e) ||
        ts_op_read_num(op, "unit_us", req, f, &v, &given, e))
        return TS_EINPUT;
    if (given)
        r->unit_us = v;
    return TS_OK;
}

int ts_op_view_run(const ts_op *op, const ts_schedule *s, const char *where,
                   const ts_op_view_req *r, ts_op_view_res *res, ts_err *e)
{
    memset(res, 0, sizeof *res);
    long n = r->n > 0 ? r->n : s->nmicros;
    /* checked before unrolling, so that a huge N costs nothing */
    long slices = op == &ts_op_trace ? ts_trace_schedule_slices(s->placement, n) : 0;
    if (slices > TS_TRACE_MAX_SLICES)
        return ts_fail(e, TS_EINPUT,
                       "%s: %ld micro-batches make %ld slices, more than the limit of %ld "
                       "(2^24): ask for fewer micro-batches",
                       where, n, slices, (long)TS_TRACE_MAX_SLICES);
    if (ts_op_schedule_at(s, r->n, r->replayed, where, &res->at, e))
        return e->code;
    ts_err ve = {0};
    res->valid = ts_schedule_validate(res->at, NULL, &ve) == TS_OK;
    snprintf(res->why, sizeof res->why, "%s", res->valid ? "" : ve.msg);
    return TS_OK;
}

void ts_op_view_res_free(ts_op_view_res *res)
{
    ts_schedule_free(res->at);
    memset(res, 0, sizeof *res);
}

/* show's header: what, the figures, the repetend, each device's peak and capacity. */
static void ts_op_show_header(const ts_op_view_res *res, FILE *out)
{
    const ts_schedule *s = res->at;
    const ts_placement *p = s->placement;
    ts_metrics m;
    fprintf(out, "schedule of '%s': %d devices, %d blocks, %d micro-batches%s\n", p->name, p->ndevs,
            p->nblocks, s->nmicros, res->valid ? "" : " (INVALID)");
    if (ts_schedule_metrics(s, &m))
        return;
    fprintf(out, "makespan %ld (lower bound %ld), bubble rate %.1f%%", m.makespan, m.lower_bound,
            100.0 * m.bubble_rate);
    if (s->has_repetend)
        fprintf(out, ", repetend [%ld, %ld) period %ld k %d", s->rep.start, s->rep.end,
                s->rep.period, s->rep.k);
    if (s->has_repetend && s->rep.per > 1)
        fprintf(out, ", %d micro-batches per period", s->rep.per);
    fprintf(out, "\npeak memory:");
    for (int d = 0; d < p->ndevs; d++)
        fprintf(out, " %ld", m.peak[d]);
    if (s->has_memory) {
        fprintf(out, " (capacity");
        for (int d = 0; d < p->ndevs; d++)
            fprintf(out, " %ld", s->memory[d]);
        fprintf(out, ")");
    }
    fprintf(out, "\n\n");
    ts_metrics_free(&m);
}

int ts_op_show_write(const ts_op_view_res *res, const ts_op_view_req *r, FILE *out, ts_err *e)
{
    ts_op_show_header(res, out);
    return ts_show_text(res->at, out, r->width, e);
}

char *ts_op_render_svg(const ts_op_view_res *res, const ts_op_view_req *r, ts_err *e)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) {
        ts_fail(e, TS_ESYS, "render: out of memory");
        return NULL;
    }
    int rc = ts_render_svg(res->at, &r->ro, f, e);
    if (fclose(f) && rc == TS_OK)
        rc = ts_fail(e, TS_ESYS, "render: out of memory");
    if (rc) {
        free(buf);
        return NULL;
    }
    return buf;
}
