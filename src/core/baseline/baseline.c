/* Hand-made schedules by their published rules. Each rule yields a per-device order of instances;
 * the timetable is then the earliest start that order and the dependencies allow (the way a real
 * pipeline runs: a device works through its list, waiting for inputs).
 *
 * Placements with sharded blocks (mshape, nnshape, mllm, ...) are handled by a "virtual pipeline":
 * every stage (a forward block paired with its mirror backward block) gets a device of its own,
 * the rule orders each stage, the virtual pipeline is timed, and each real device then runs its
 * instances in their virtual start order. Since virtual start times respect every dependency, all
 * devices sort by one common key and the real orders can never deadlock; on a plain vshape the
 * virtual pipeline is the real one, so the orders are exactly GPipe's and 1F1B's. */
#include <stdlib.h>
#include <string.h>
#include "baseline_internal.h"

/* The registry of baseline kinds: the one list that `tessel baseline`, `compare` and the sweep
 * spec read. Each entry names its rule; the dispatcher calls it through this table. */
typedef struct {
    ts_baseline_info info;
    int (*rule)(const ts_baseline_info *info, const ts_placement *p, int n, long *start, ts_err *e);
} ts_bl_kind;

static const ts_bl_kind ts_kinds[] = {
    {{"gpipe", "GPipe: all forward passes in micro-batch order, then all backward passes",
      "any placement whose edges never lead from a backward block to a forward one (vshape, "
      "xshape, mshape, nnshape, nnshape_eager, kshape, mllm, finetune, alphafold, "
      "vshape_interleaved, vshape_zb and inference variants)",
      false, 0},
     ts_bl_gpipe},
    {{"1f1b",
      "1F1B (PipeDream-Flush / Megatron): stage s of S runs S-s-1 warm-up forwards, then "
      "alternates one forward and one backward",
      "vshape-like placements: one chain of forward blocks then backward blocks, sharded blocks "
      "counting as extra stages run by every device (vshape, mshape, nnshape, nnshape_eager, "
      "mllm, finetune, alphafold, vshape_interleaved, vshape_zb and inference variants)",
      false, 0},
     ts_bl_1f1b},
    {{"interleaved",
      "interleaved 1F1B (Megatron virtual pipeline): v model chunks per device, "
      "warm-up (D-d-1)*2 + (v-1)*D forwards, then one forward one backward",
      "vshape_interleaved with --chunks v >= 2 (stage s on device s mod D), micro-batches a "
      "multiple of the device count",
      true, 0},
     ts_bl_interleaved},
    {{"chimera",
      "Chimera: two opposite 1F1B pipelines over the same devices, merged, in units "
      "of D/2 micro-batches per direction",
      "xshape (two opposite V chains over the same devices, an even device count)", false, 0},
     ts_bl_chimera},
    {{"zb-h1",
      "ZB-H1 (zero bubble): 1F1B order of F and B; weight-gradient passes W fill the "
      "idle slots, forced earlier only to stay within 1F1B's peak memory",
      "vshape_zb (each device's backward split into input gradient B and weight gradient W)", false,
      0},
     ts_bl_zbh1},
    {{"zb-h2",
      "ZB-H2 (zero bubble): as ZB-H1 with 2(D-d-1) warm-up forwards on device d, so W "
      "fills the warm-up and tail bubbles; memory up to 2D-1 micro-batches",
      "vshape_zb (each device's backward split into input gradient B and weight gradient W)", false,
      0},
     ts_bl_zbh2},
    {{"zb-v",
      "ZB-V (zero bubble, V-shape; PyTorch's ZBVZeroBubble order): two chunks per device "
      "in a V, 2(D-d)-1 warm-up forwards, W deferred in the cool-down",
      "vshape_v_zb (or vshape_v, backward unsplit): device d holds stages d and 2D-1-d", false, 0},
     ts_bl_zbv},
    {{"dualpipev",
      "DualPipeV (DeepSeek, cut-in-half DualPipe): DualPipe's eight phases on the V "
      "placement; F&B pairs run one after the other (no overlap in this model)",
      "vshape_v_zb (or vshape_v, backward unsplit), at least 2D micro-batches", false, 2},
     ts_bl_dualpipev},
    {{"dualpipe",
      "DualPipe (DeepSeek-V3): two opposite pipelines fed from both ends, eight phases "
      "per rank; F&B pairs run one after the other (no overlap in this model)",
      "xshape_zb (or xshape, backward unsplit): an even device count, N >= D micro-batches per "
      "direction",
      false, 1},
     ts_bl_dualpipe},
    {{"looped-bfs",
      "Looped BFS (breadth-first; PyTorch's ScheduleLoopedBFS): each device runs "
      "all micro-batches of one chunk before the next, backwards in reverse",
      "vshape_interleaved (stage s on device s mod D, any --chunks)", false, 0},
     ts_bl_looped_bfs},
    {{"zb-v-defer",
      "ZB-V with W deferred: ZB-V's order of F and B, every W put off while the device holds "
      "at most D micro-batches (2D chunks), filling idle steps",
      "vshape_v_zb (or vshape_v, backward unsplit): device d holds stages d and 2D-1-d", false, 0},
     ts_bl_zbv_defer},
    {{"v-half",
      "V-Half (controllable memory): a 6-slot V-shape building block repeated with offsets, "
      "(D+2)/2 micro-batches of activations; warm-up and cool-down squeezed within that peak",
      "vshape_v_zb (or vshape_v, backward unsplit): device d holds stages d and 2D-1-d", false, 0},
     ts_bl_vhalf},
    {{"v-min",
      "V-Min (controllable memory): a 6-slot V-shape building block repeated with offsets, "
      "(D+4)/3 micro-batches of activations; warm-up and cool-down squeezed within that peak",
      "vshape_v_zb (or vshape_v, backward unsplit): device d holds stages d and 2D-1-d", false, 0},
     ts_bl_vmin},
};

static const ts_bl_kind *ts_kind_find(const char *name)
{
    for (size_t i = 0; name && i < sizeof ts_kinds / sizeof ts_kinds[0]; i++)
        if (!strcmp(ts_kinds[i].info.name, name))
            return &ts_kinds[i];
    return NULL;
}

int ts_baseline_count(void)
{
    return (int)(sizeof ts_kinds / sizeof ts_kinds[0]);
}

const ts_baseline_info *ts_baseline_at(int i)
{
    return i >= 0 && i < ts_baseline_count() ? &ts_kinds[i].info : NULL;
}

const ts_baseline_info *ts_baseline_find(const char *kind)
{
    const ts_bl_kind *k = ts_kind_find(kind);
    return k ? &k->info : NULL;
}

/* Wraps starts into a schedule and checks it; an invalid result is a bug in the rule. */
static int ts_finish(const ts_placement *p, int n, const long *start, const char *kind,
                     ts_schedule **out, ts_err *e)
{
    ts_schedule *s = ts_schedule_new(p, n);
    if (!s)
        return ts_fail(e, TS_ESYS, "baseline %s: out of memory", kind);
    for (int b = 0; b < p->nblocks; b++)
        for (int m = 0; m < n; m++) {
            long st = start[(long)b * n + m];
            if (st < 0) {
                ts_schedule_free(s);
                return ts_fail(e, TS_ESYS,
                               "baseline %s: internal error: %s micro-batch %d has no "
                               "start",
                               kind, p->blocks[b].id, m);
            }
            if (ts_schedule_add(s, b, m, st) != 0) {
                ts_schedule_free(s);
                return ts_fail(e, TS_ESYS, "baseline %s: out of memory", kind);
            }
        }
    ts_schedule_sort(s);
    ts_schedule_set_search_info(s, json_pack("{s:s, s:s}", "method", "baseline", "baseline", kind));
    ts_validate_opts vo = {.monotone = false, .ignore_memory = true};
    ts_err ve = {0};
    if (ts_schedule_validate(s, &vo, &ve) != TS_OK) {
        ts_schedule_free(s);
        return ts_fail(e, TS_ESYS, "baseline %s: internal error: invalid schedule: %s", kind,
                       ve.msg);
    }
    *out = s;
    return TS_OK;
}
/* Common refusals: micro-batch distance edges (token-level pipelines) have no hand-made rule. */
static int ts_check_common(const ts_baseline_info *info, const ts_placement *p, ts_err *e)
{
    if (ts_placement_has_distance_edges(p))
        return ts_bl_refuse(e, info, p, "it has dependencies between micro-batches");
    for (int i = 0; i < p->nedges; i++)
        if (p->blocks[p->edges[i].src].kind == TS_KIND_BACKWARD &&
            p->blocks[p->edges[i].dst].kind != TS_KIND_BACKWARD)
            return ts_bl_refuse(e, info, p, "a backward block feeds a forward one");
    return TS_OK;
}

/* ---------------------------------------------------------------- entry points */

void ts_baseline_names(char *buf, size_t size)
{
    if (size == 0)
        return;
    buf[0] = '\0';
    for (int i = 0; i < ts_baseline_count(); i++) {
        strncat(buf, i ? ", " : "", size - strlen(buf) - 1);
        strncat(buf, ts_kinds[i].info.name, size - strlen(buf) - 1);
    }
}

static int ts_baseline_run(const char *kind, const ts_placement *p, int n, ts_schedule **out,
                           ts_err *e)
{
    const ts_bl_kind *k = ts_kind_find(kind);
    if (!k) {
        char names[256];
        ts_baseline_names(names, sizeof names);
        return ts_fail(e, TS_EINPUT, "unknown baseline '%s' (kinds: %s)", kind ? kind : "", names);
    }
    if (n < 1)
        return ts_fail(e, TS_EINPUT, "baseline %s: needs at least 1 micro-batch, got %d", kind, n);
    if ((long)p->nblocks * n > 50000000L)
        return ts_fail(e, TS_EINPUT, "baseline %s: %d blocks x %d micro-batches is too large", kind,
                       p->nblocks, n);
    if (n < k->info.min_n_per_dev * p->ndevs)
        return ts_fail(e, TS_EINPUT,
                       "baseline '%s' needs at least %d micro-batches (%d x the device count), "
                       "got %d",
                       kind, k->info.min_n_per_dev * p->ndevs, k->info.min_n_per_dev, n);
    int rc = ts_check_common(&k->info, p, e);
    if (rc != TS_OK)
        return rc;
    long *start = malloc((size_t)p->nblocks * (size_t)n * sizeof(long) + 1);
    if (!start)
        return ts_fail(e, TS_ESYS, "baseline %s: out of memory", kind);
    rc = k->rule(&k->info, p, n, start, e);
    if (rc == TS_OK && out)
        rc = ts_finish(p, n, start, kind, out, e);
    free(start);
    return rc;
}

int ts_baseline_fits(const char *kind, const ts_placement *p, int n, ts_err *e)
{
    const ts_baseline_info *info = ts_baseline_find(kind);
    /* The structural checks are cheap on a small run: the fewest micro-batches the kind takes
     * (a multiple of D where it needs one); its rule for the real n is checked below. */
    bool mult = info && info->n_multiple_of_devs;
    int least = info && info->min_n_per_dev > 0 ? info->min_n_per_dev * p->ndevs : 1;
    if (mult && least < p->ndevs)
        least = p->ndevs;
    int rc = ts_baseline_run(kind, p, least > 0 ? least : 1, NULL, e);
    if (rc == TS_OK && n > 0 && n < least)
        return ts_fail(e, TS_EINPUT,
                       "baseline '%s' needs at least %d micro-batches (%d x the device count), "
                       "got %d",
                       info->name, least, info->min_n_per_dev, n);
    if (rc == TS_OK && mult && n > 0 && n % p->ndevs != 0)
        return ts_fail(e, TS_EINPUT,
                       "baseline '%s' needs a number of micro-batches that is a multiple of the "
                       "device count (%d), got %d",
                       info->name, p->ndevs, n);
    return rc;
}

int ts_baseline_make(const char *kind, const ts_placement *p, int n, ts_schedule **out, ts_err *e)
{
    *out = NULL;
    return ts_baseline_run(kind, p, n, out, e);
}
