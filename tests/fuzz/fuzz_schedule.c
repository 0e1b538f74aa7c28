/* libFuzzer target: the schedule loader, validator, unroll and simulator, and the text and SVG
 * views. Invariant: a schedule that loads and validates replays (simulates) into a timeline that
 * validates too — same device orders, so no overlap, no broken dependency and no memory above
 * the capacities. */
#include <math.h>
#include "fuzz_util.h"
#include "ts_render.h"
#include "ts_schedule.h"

static void fz_check_replay(const ts_schedule *s)
{
    ts_sim_result r;
    ts_err e = {0};
    if (ts_simulate(s, NULL, &r, &e)) {
        fprintf(stderr, "fuzz invariant: a valid schedule does not simulate: %s\n", e.msg);
        abort();
    }
    ts_schedule *t = ts_schedule_clone(s);
    if (!t) {
        ts_sim_result_free(&r);
        return;
    }
    for (int i = 0; i < t->nentries; i++)
        t->entries[i].step = lround(r.start[i]);
    ts_schedule_clear_repetend(t);
    ts_err_clear(&e);
    if (ts_schedule_validate(t, NULL, &e)) {
        fprintf(stderr, "fuzz invariant: the replay of a valid schedule is invalid: %s\n", e.msg);
        abort();
    }
    ts_schedule_free(t);
    ts_sim_result_free(&r);
}

static void fz_views(const ts_schedule *s)
{
    FILE *sink = fopen("/dev/null", "w");
    if (!sink)
        return;
    ts_err e = {0};
    ts_show_text(s, sink, 100, &e);
    fz_check_message(&e);
    ts_err_clear(&e);
    ts_render_svg(s, NULL, sink, &e);
    fz_check_message(&e);
    fclose(sink);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[4096];
    if (fz_write_temp(data, size, path, sizeof path))
        return 0;
    ts_schedule *s = NULL;
    ts_err e = {0};
    int rc = ts_schedule_load(path, &s, &e);
    unlink(path);
    fz_check_message(&e);
    if (rc)
        return 0;
    ts_err_clear(&e);
    int valid = ts_schedule_validate(s, NULL, &e) == TS_OK;
    fz_check_message(&e);
    if (valid)
        fz_check_replay(s);
    fz_views(s);
    if (s->has_repetend) {
        ts_schedule *u = NULL;
        ts_err_clear(&e);
        if (ts_schedule_unroll(s, s->nmicros + 2, &u, &e) == TS_OK) {
            ts_err_clear(&e);
            ts_schedule_validate(u, NULL, &e);
            ts_schedule_free(u);
        }
        fz_check_message(&e);
    }
    ts_schedule_free(s);
    return 0;
}
