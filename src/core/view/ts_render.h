/* Pictures of schedules: an SVG timeline in the style of the papers' figures. */
#ifndef TS_RENDER_H
#define TS_RENDER_H

#include <stdbool.h>
#include <stdio.h>
#include "ts_schedule.h"

/* The widest picture (the timeline's part, in px): the automatic scale shrinks steps below half a
 * pixel to stay within it, and an explicit px_per_step that exceeds it is refused, so the SVG's
 * size depends on the instance count, never on how far apart the steps are. */
#define TS_RENDER_MAX_WIDTH 100000

typedef struct {
    /* horizontal scale; <= 0 picks one that keeps the picture near 1600 px */
    double px_per_step;
    /* NULL: placement, micro-batches, devices, makespan (and method) */
    const char *title;
} ts_render_opts;

/* Writes the timeline as one SVG document: a row per device, a box per instance and device
 * (grouped per instance: <g class="inst">, each rect class="box"), coloured by kind and labelled
 * with its micro-batch where the box is wide enough, the repetend window shaded, a step axis and
 * a legend. o may be NULL. */
int ts_render_svg(const ts_schedule *s, const ts_render_opts *o, FILE *out, ts_err *e);
/* Same, to a file ("-" = stdout). */
int ts_render_svg_file(const ts_schedule *s, const ts_render_opts *o, const char *path, ts_err *e);

#endif
