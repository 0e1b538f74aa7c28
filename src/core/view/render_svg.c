/* SVG timeline of a schedule, drawn like the papers' pipeline figures: time runs left to right,
 * one row per device, one box per instance coloured by kind and labelled with its micro-batch.
 * Sizes adapt so that 2 to 32 devices and a few hundred micro-batches stay readable: rows get
 * thinner with more devices, the horizontal scale keeps the picture near 1600 px wide, and labels
 * are left out of boxes too small to hold them rather than overflowing. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ts_render.h"

/* Fill colours per kind; blocks on several devices (sharded) get a darker shade of their kind. */
static const char *const ts_fill[3][2] = {
    {"#4e79a7", "#1f3f66"}, /* forward */
    {"#f28e2b", "#a84f07"}, /* backward */
    {"#59a14f", "#2f6b2a"}, /* other */
};
static const char *const ts_ink[3][2] = {
    {"#ffffff", "#ffffff"},
    {"#1b1b1b", "#ffffff"},
    {"#ffffff", "#ffffff"},
};

/* Weight-gradient passes (zero-bubble placements: a backward block nothing waits for, fed by a
 * backward block on the same devices) get their own colour, as in the zero-bubble figures. */
#define TS_WGRAD_FILL "#edc948"
#define TS_WGRAD_INK "#1b1b1b"

static bool ts_is_wgrad(const ts_placement *p, int b)
{
    const ts_block *x = &p->blocks[b];
    if (x->kind != TS_KIND_BACKWARD)
        return false;
    bool fed = false;
    for (int i = 0; i < p->nedges; i++) {
        const ts_edge *ed = &p->edges[i];
        if (ed->src == b)
            return false;
        if (ed->dst != b)
            continue;
        const ts_block *a = &p->blocks[ed->src];
        if (a->kind != TS_KIND_BACKWARD || a->ndevices != x->ndevices ||
            memcmp(a->devices, x->devices, (size_t)x->ndevices * sizeof(int)) != 0)
            return false;
        fed = true;
    }
    return fed;
}

static void ts_xml_text(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default:
            /* control characters other than tab/newline are not allowed in XML 1.0 */
            if ((unsigned char)*s < 0x20 && *s != '\t' && *s != '\n')
                fputc('?', f);
            else
                fputc(*s, f);
        }
    }
}

/* A tick spacing of 1, 2 or 5 times a power of ten that leaves at least min_px between ticks. */
static long ts_tick_step(double px_per_step, double min_px)
{
    for (long p10 = 1; p10 < 1000000000L; p10 *= 10) {
        static const int mult[3] = {1, 2, 5};
        for (int i = 0; i < 3; i++)
            if ((double)(mult[i] * p10) * px_per_step >= min_px)
                return mult[i] * p10;
    }
    return 1000000000L;
}

typedef struct {
    int D;
    long first, T;
    double u; /* px per step */
    double left, top, rh, pitch, plot_h, width, height;
    double font; /* label font size */
} ts_layout;

static void ts_layout_make(const ts_schedule *s, const ts_render_opts *o, ts_layout *L)
{
    long first, last;
    ts_schedule_span(s, &first, &last);
    if (s->has_repetend) { /* keep the window in view even where it is empty at an edge */
        if (s->rep.start < first)
            first = s->rep.start;
        if (s->rep.end > last)
            last = s->rep.end;
    }
    L->D = s->placement->ndevs;
    L->first = first;
    L->T = last > first ? last - first : 1;
    if (o && o->px_per_step > 0)
        L->u = o->px_per_step;
    else {
        L->u = 1600.0 / (double)L->T;
        if (L->u > 28)
            L->u = 28;
        if (L->u < 0.5)
            L->u = 0.5;
        /* A long idle stretch (one late entry) would otherwise ask for a picture of billions of
         * pixels and grid lines: past the widest picture, steps get narrower than half a pixel. */
        if ((double)L->T * L->u > TS_RENDER_MAX_WIDTH)
            L->u = TS_RENDER_MAX_WIDTH / (double)L->T;
    }
    int D = L->D;
    L->rh = D <= 4 ? 30 : D <= 8 ? 26 : D <= 16 ? 20 : D <= 32 ? 14 : fmax(4.0, 448.0 / D);
    L->pitch = L->rh + (L->rh >= 14 ? 3 : 1);
    L->left = 64;
    L->top = 50;
    L->plot_h = D * L->pitch;
    L->width = L->left + (double)L->T * L->u + 24;
    if (L->width < 480)
        L->width = 480;
    L->height = L->top + L->plot_h + 34 + 28 + 8;
    L->font = fmin(12.0, L->rh * 0.55);
}

static void ts_draw_title(FILE *f, const ts_schedule *s, const ts_render_opts *o,
                          const ts_layout *L, long makespan)
{
    fprintf(f, "<text x=\"%.1f\" y=\"20\" font-size=\"15\" font-weight=\"bold\">", L->left);
    if (o && o->title) {
        ts_xml_text(f, o->title);
    } else {
        const char *how = NULL;
        if (s->search) {
            json_t *b = json_object_get(s->search, "baseline");
            json_t *m = json_object_get(s->search, "method");
            how = json_is_string(b)   ? json_string_value(b)
                  : json_is_string(m) ? json_string_value(m)
                                      : NULL;
        }
        ts_xml_text(f, s->placement->name);
        if (how) {
            fputs(" \xe2\x80\x94 ", f); /* em dash */
            ts_xml_text(f, how);
        }
        fprintf(f, ": %d micro-batches on %d devices, makespan %ld", s->nmicros, L->D, makespan);
    }
    fputs("</text>\n", f);
}

static void ts_draw_axis(FILE *f, const ts_layout *L)
{
    double y0 = L->top, y1 = L->top + L->plot_h;
    long tick = ts_tick_step(L->u, 48);
    long v0 = (L->first / tick) * tick; /* first multiple of tick at or after first */
    if (v0 < L->first)
        v0 += tick;
    fputs("<g class=\"grid\" stroke=\"#e4e4e4\" stroke-width=\"1\">\n", f);
    for (long v = v0; v <= L->first + L->T; v += tick) {
        double x = L->left + (double)(v - L->first) * L->u;
        fprintf(f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>\n", x, y0, x, y1);
    }
    fputs("</g>\n", f);
    fprintf(f,
            "<g class=\"axis\" font-size=\"11\" fill=\"#333\">\n"
            "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#333\"/>\n",
            L->left, y1 + 4, L->left + (double)L->T * L->u, y1 + 4);
    for (long v = v0; v <= L->first + L->T; v += tick) {
        double x = L->left + (double)(v - L->first) * L->u;
        fprintf(f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#333\"/>\n", x,
                y1 + 4, x, y1 + 8);
        fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">%ld</text>\n", x, y1 + 20,
                v);
    }
    fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\">step</text>\n", L->left - 8,
            y1 + 20);
    fputs("</g>\n", f);
    /* device names */
    double df = fmin(12.0, L->rh * 0.7);
    fprintf(f, "<g class=\"devices\" font-size=\"%.1f\" fill=\"#222\" text-anchor=\"end\">\n", df);
    for (int d = 0; d < L->D; d++)
        fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" dominant-baseline=\"central\">dev %d</text>\n",
                L->left - 8, L->top + d * L->pitch + L->rh / 2, d);
    fputs("</g>\n", f);
}

static void ts_draw_repetend(FILE *f, const ts_schedule *s, const ts_layout *L)
{
    if (!s->has_repetend)
        return;
    char per[64] = "";
    if (s->rep.per > 1)
        snprintf(per, sizeof per, ", %d micro-batches per period", s->rep.per);
    double x0 = L->left + (double)(s->rep.start - L->first) * L->u;
    double x1 = L->left + (double)(s->rep.end - L->first) * L->u;
    fprintf(f,
            "<g class=\"repetend\">\n"
            "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"#808080\" "
            "fill-opacity=\"0.13\" stroke=\"#444\" stroke-dasharray=\"5 3\"/>\n"
            "<text x=\"%.2f\" y=\"%.2f\" font-size=\"11\" fill=\"#333\">repetend: period %ld, "
            "k = %d%s</text>\n</g>\n",
            x0, L->top - 5, x1 - x0, L->plot_h + 8, x0, L->top - 9, s->rep.period, s->rep.k, per);
}

static void ts_draw_legend(FILE *f, const ts_schedule *s, const ts_layout *L, bool used[3][2],
                           bool used_wgrad)
{
    double x = L->left, y = L->top + L->plot_h + 34;
    fputs("<g class=\"legend\" font-size=\"11\" fill=\"#222\">\n", f);
    for (int k = 0; k < 3; k++)
        for (int sh = 0; sh < 2; sh++) {
            if (!used[k][sh])
                continue;
            char label[64];
            snprintf(label, sizeof label, "%s%s", ts_kind_name((ts_kind)k),
                     sh ? " (on several devices)" : "");
            fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"12\" height=\"12\" fill=\"%s\"/>\n", x,
                    y, ts_fill[k][sh]);
            fprintf(f, "<text x=\"%.2f\" y=\"%.2f\">%s</text>\n", x + 16, y + 10, label);
            x += 16 + 6.2 * (double)strlen(label) + 18;
        }
    if (used_wgrad) {
        fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"12\" height=\"12\" fill=\"%s\"/>\n", x, y,
                TS_WGRAD_FILL);
        fprintf(f, "<text x=\"%.2f\" y=\"%.2f\">backward (weight gradient)</text>\n", x + 16,
                y + 10);
        x += 16 + 6.2 * 26 + 18;
    }
    if (s->has_repetend) {
        fprintf(f,
                "<rect x=\"%.2f\" y=\"%.2f\" width=\"12\" height=\"12\" fill=\"#808080\" "
                "fill-opacity=\"0.25\" stroke=\"#444\" stroke-dasharray=\"3 2\"/>\n",
                x, y);
        fprintf(f, "<text x=\"%.2f\" y=\"%.2f\">repetend window</text>\n", x + 16, y + 10);
        x += 16 + 6.2 * 15 + 18;
    }
    fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" fill=\"#555\">box label = micro-batch</text>\n", x,
            y + 10);
    fputs("</g>\n", f);
}

int ts_render_svg(const ts_schedule *s, const ts_render_opts *o, FILE *f, ts_err *e)
{
    if (!s || !s->placement || !f)
        return ts_fail(e, TS_EINPUT, "render: no schedule");
    const ts_placement *p = s->placement;
    ts_layout L;
    ts_layout_make(s, o, &L);
    if ((double)L.T * L.u > TS_RENDER_MAX_WIDTH)
        return ts_fail(e, TS_EINPUT,
                       "%ld steps at %g px per step make a picture wider than %d px; "
                       "choose a smaller --scale",
                       L.T, L.u, TS_RENDER_MAX_WIDTH);
    long first, last;
    ts_schedule_span(s, &first, &last);
    bool used[3][2] = {{false}}, used_wgrad = false;
    bool *wgrad = calloc((size_t)p->nblocks + 1, sizeof(bool));
    if (!wgrad)
        return ts_fail(e, TS_ESYS, "render: out of memory");
    for (int b = 0; b < p->nblocks; b++)
        wgrad[b] = ts_is_wgrad(p, b);
    for (int i = 0; i < s->nentries; i++) {
        int bi = s->entries[i].block;
        const ts_block *b = &p->blocks[bi];
        if (wgrad[bi])
            used_wgrad = true;
        else
            used[b->kind][b->ndevices > 1] = true;
    }

    fprintf(f,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
            "viewBox=\"0 0 %.0f %.0f\" font-family=\"Helvetica, Arial, sans-serif\">\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n",
            ceil(L.width), ceil(L.height), ceil(L.width), ceil(L.height));
    ts_draw_title(f, s, o, &L, last - first);
    ts_draw_axis(f, &L);
    /* row backgrounds make idle time (bubbles) visible as pale gaps */
    fputs("<g class=\"rows\" fill=\"#f4f4f4\">\n", f);
    for (int d = 0; d < L.D; d++)
        fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"/>\n", L.left,
                L.top + d * L.pitch, (double)L.T * L.u, L.rh);
    fputs("</g>\n", f);

    bool stroke = L.u >= 3;
    fprintf(f, "<g class=\"instances\" font-size=\"%.1f\" text-anchor=\"middle\"%s>\n", L.font,
            stroke ? " stroke-width=\"0.6\"" : "");
    for (int i = 0; i < s->nentries; i++) {
        const ts_entry *en = &s->entries[i];
        const ts_block *b = &p->blocks[en->block];
        int k = (int)b->kind, sh = b->ndevices > 1;
        double x = L.left + (double)(en->step - L.first) * L.u;
        double w = (double)b->span * L.u;
        char label[16];
        int len = snprintf(label, sizeof label, "%d", en->micro);
        bool show = L.rh >= 9 && w >= len * L.font * 0.62 + 3;
        fputs("<g class=\"inst\" data-block=\"", f);
        ts_xml_text(f, b->id);
        fprintf(f, "\" data-micro=\"%d\"><title>", en->micro);
        ts_xml_text(f, b->id);
        fprintf(f, " micro-batch %d, steps %ld-%ld</title>", en->micro, en->step,
                en->step + b->span);
        const char *fill = wgrad[en->block] ? TS_WGRAD_FILL : ts_fill[k][sh];
        const char *ink = wgrad[en->block] ? TS_WGRAD_INK : ts_ink[k][sh];
        for (int j = 0; j < b->ndevices; j++) {
            double y = L.top + b->devices[j] * L.pitch;
            fprintf(f,
                    "<rect class=\"box\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
                    "fill=\"%s\"%s/>",
                    x, y, w, L.rh, fill, stroke ? " stroke=\"#ffffff\"" : "");
            if (show)
                fprintf(f,
                        "<text x=\"%.2f\" y=\"%.2f\" dominant-baseline=\"central\" "
                        "fill=\"%s\">%s</text>",
                        x + w / 2, y + L.rh / 2, ink, label);
        }
        fputs("</g>\n", f);
    }
    fputs("</g>\n", f);
    ts_draw_repetend(f, s, &L);
    ts_draw_legend(f, s, &L, used, used_wgrad);
    free(wgrad);
    fputs("</svg>\n", f);
    if (ferror(f))
        return ts_fail(e, TS_ESYS, "render: write failed: %s", strerror(errno));
    return TS_OK;
}

int ts_render_svg_file(const ts_schedule *s, const ts_render_opts *o, const char *path, ts_err *e)
{
    bool to_stdout = !strcmp(path, "-");
    FILE *f = to_stdout ? stdout : fopen(path, "w");
    if (!f)
        return ts_fail(e, TS_ESYS, "render %s: cannot open for writing: %s", path, strerror(errno));
    ts_err inner = {0};
    int rc = ts_render_svg(s, o, f, &inner);
    if (to_stdout) {
        if (fflush(f) != 0 && rc == TS_OK)
            rc = ts_fail(&inner, TS_ESYS, "write failed: %s", strerror(errno));
    } else if (fclose(f) != 0 && rc == TS_OK) {
        rc = ts_fail(&inner, TS_ESYS, "write failed: %s", strerror(errno));
    }
    if (rc != TS_OK)
        return ts_fail(e, rc, "render %.200s: %.500s", path, inner.msg);
    return TS_OK;
}
