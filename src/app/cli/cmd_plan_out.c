/* A plan's files for `tessel plan -o DIR`: the derived placement, its schedule at N, the SVG
 * timeline and the Chrome trace at real times (one time unit = the placement's unit), and the
 * plot of the plans' iteration times broken down. */
#ifdef TS_HAVE_SOLVER
#include <stdio.h>
#include "plan.h"
#include "ts_render.h"
#include "ts_trace.h"

int ts_plan_write(const ts_plan *pl, const char *dir, ts_err *e)
{
    char path[4400], name[96];
    ts_plan_name(&pl->cfg, name, sizeof name);
    snprintf(path, sizeof path, "%s/%s.placement.json", dir, name);
    if (ts_placement_save(pl->p, path, e))
        return e->code;
    snprintf(path, sizeof path, "%s/%s.schedule.json", dir, name);
    if (ts_schedule_save(pl->s, path, e))
        return e->code;
    snprintf(path, sizeof path, "%s/%s.svg", dir, name);
    if (ts_render_svg_file(pl->s, NULL, path, e))
        return e->code;
    snprintf(path, sizeof path, "%s/%s.trace.json", dir, name);
    ts_trace *t = ts_trace_from_schedule(pl->s, pl->time_unit_s * 1e6);
    if (!t)
        return ts_fail(e, TS_ESYS, "%s: out of memory", path);
    int rc = ts_trace_write(t, path, e);
    ts_trace_free(t);
    return rc;
}

/* One stacked bar: the seven parts of a plan's iteration time, scaled to width px per tmax. */
static void ts_plan_bar(FILE *f, const ts_plan *pl, int row, double tmax)
{
    static const char *const colour[] = {"#4878cf", "#d65f5f", "#ee854a", "#bbbbbb",
                                         "#6acc65", "#956cb4", "#8c613c"};
    const ts_plan_cost *c = &pl->cost;
    double part[] = {c->compute_s, c->tp_s,   c->p2p_s,      c->bubble_s,
                     c->dp_s,      c->zero_s, c->optimizer_s};
    char name[96];
    ts_plan_name(&pl->cfg, name, sizeof name);
    double y = 40 + row * 28, x = 300, w = 560;
    fprintf(f, "<text x=\"4\" y=\"%.0f\" font-size=\"11\">%s</text>\n", y + 14, name);
    for (int k = 0; k < 7; k++) {
        double len = part[k] > 0 ? part[k] / tmax * w : 0;
        fprintf(f, "<rect x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"20\" fill=\"%s\"/>\n", x,
                y, len, colour[k]);
        x += len;
    }
    fprintf(f, "<text x=\"%.2f\" y=\"%.0f\" font-size=\"11\">%.3f s</text>\n", x + 4, y + 14,
            pl->iter_s);
}

int ts_plan_breakdown_svg(const ts_plan *pl, int n, const char *path, ts_err *e)
{
    static const char *const label[] = {"compute", "tensor parallel", "p2p", "bubble",
                                        "data parallel", "ZeRO", "optimizer"};
    static const char *const colour[] = {"#4878cf", "#d65f5f", "#ee854a", "#bbbbbb",
                                         "#6acc65", "#956cb4", "#8c613c"};
    int rows = 0;
    double tmax = 0;
    for (int i = 0; i < n && rows < 10; i++)
        if (pl[i].ok) {
            rows++;
            tmax = tmax > pl[i].iter_s ? tmax : pl[i].iter_s;
        }
    FILE *f = fopen(path, "w");
    if (!f)
        return ts_fail(e, TS_ESYS, "%s: cannot write", path);
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"960\" height=\"%d\">\n",
            60 + 28 * rows);
    for (int k = 0; k < 7; k++)
        fprintf(f,
                "<rect x=\"%d\" y=\"8\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"%d\" "
                "y=\"17\" font-size=\"11\">%s</text>\n",
                4 + 130 * k, colour[k], 18 + 130 * k, label[k]);
    for (int i = 0, row = 0; i < n && row < rows; i++)
        if (pl[i].ok)
            ts_plan_bar(f, &pl[i], row++, tmax > 0 ? tmax : 1);
    fprintf(f, "</svg>\n");
    if (fclose(f))
        return ts_fail(e, TS_ESYS, "%s: cannot write", path);
    return TS_OK;
}
#endif
