/* Text timeline: one row per device, one cell per step; an instance's first cell carries its kind
 * letter and micro-batch, the rest of its span is drawn with '-', idle steps with '.'. Long
 * schedules wrap into segments so that rows stay readable in a terminal. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ts_schedule.h"

static char ts_kind_letter(ts_kind k)
{
    return k == TS_KIND_FORWARD ? 'F' : k == TS_KIND_BACKWARD ? 'B' : 'O';
}

void ts_show_text(const ts_schedule *s, FILE *out, int width)
{
    const ts_placement *p = s->placement;
    long first, last;
    ts_schedule_span(s, &first, &last);
    int digits = 1;
    for (int m = s->nmicros - 1; m >= 10; m /= 10)
        digits++;
    int cw = digits + 1; /* cell width */
    long nsteps = last - first;
    if (width < 20)
        width = 20;
    long per = (width - 8) / cw; /* steps per segment */
    if (per < 1)
        per = 1;
    size_t rowlen = (size_t)nsteps * (size_t)cw + 1;
    char *grid = malloc((size_t)p->ndevs * rowlen);
    if (!grid) {
        fprintf(out, "(timeline too large to draw)\n");
        return;
    }
    memset(grid, '.', (size_t)p->ndevs * rowlen);
    for (int i = 0; i < s->nentries; i++) {
        const ts_entry *x = &s->entries[i];
        const ts_block *b = &p->blocks[x->block];
        char label[32];
        snprintf(label, sizeof label, "%c%0*d", ts_kind_letter(b->kind), digits, x->micro);
        for (int k = 0; k < b->ndevices; k++) {
            char *row = grid + (size_t)b->devices[k] * rowlen;
            long c0 = (x->step - first) * cw;
            memcpy(row + c0, label, (size_t)cw);
            for (long c = c0 + cw; c < (x->step - first + b->span) * cw; c++)
                row[c] = '-';
        }
    }
    for (long seg = 0; seg < nsteps; seg += per) {
        long end = seg + per < nsteps ? seg + per : nsteps;
        size_t alen = (size_t)((end - seg) * cw);
        char *axis = malloc(alen + 32);
        if (axis) {
            memset(axis, ' ', alen + 32);
            for (long t = seg; t < end; t++)
                if ((t + first) % 10 == 0) {
                    char num[32];
                    int n = snprintf(num, sizeof num, "%ld", t + first);
                    memcpy(axis + (t - seg) * cw, num, (size_t)n);
                }
            fprintf(out, "%-7s %.*s\n", "step", (int)alen, axis);
            free(axis);
        }
        if (s->has_repetend && s->rep.start - first < end && s->rep.end - first > seg) {
            fprintf(out, "%-7s ", "repeat");
            for (long t = seg; t < end; t++) {
                long abs_t = t + first;
                char c = (abs_t >= s->rep.start && abs_t < s->rep.end) ? '=' : ' ';
                for (int k = 0; k < cw; k++)
                    fputc(c, out);
            }
            fputc('\n', out);
        }
        for (int d = 0; d < p->ndevs; d++) {
            fprintf(out, "dev %-3d ", d);
            fwrite(grid + (size_t)d * rowlen + seg * cw, 1, (size_t)((end - seg) * cw), out);
            fputc('\n', out);
        }
        if (end < nsteps)
            fputc('\n', out);
    }
    free(grid);
}
