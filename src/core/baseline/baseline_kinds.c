/* The registry of baseline kinds: one row per kind with its name, description, rule and the
 * placements it fits (ts_baseline_info in ts_baseline.h). The one list that `tessel baseline`,
 * `compare`, the sweep spec and auto read; the order is the --list order.
 *
 * To add a kind: its rule in a file of its own (declared in baseline_internal.h) and one row
 * here. */
#include "baseline_internal.h"

static const ts_baseline_info ts_bl_kinds[] = {
    {.name = "gpipe",
     .description = "GPipe: all forward passes in micro-batch order, then all backward passes",
     .rule = ts_bl_gpipe,
     .fits = (const char *const[]){"vshape", "xshape", "mshape", "nnshape", "nnshape_eager",
                                   "kshape", "mllm", "finetune", "alphafold", "vshape_interleaved",
                                   "vshape_zb", NULL},
     .inference = true,
     .family = "any placement whose edges never lead from a backward block to a forward one"},
    {.name = "1f1b",
     .description = "1F1B (PipeDream-Flush / Megatron): stage s of S runs S-s-1 warm-up forwards, "
                    "then alternates one forward and one backward",
     .rule = ts_bl_1f1b,
     .fits =
         (const char *const[]){"vshape", "mshape", "nnshape", "nnshape_eager", "mllm", "finetune",
                               "alphafold", "vshape_interleaved", "vshape_zb", NULL},
     .inference = true,
     .family = "vshape-like placements: one chain of forward blocks then backward blocks, sharded "
               "blocks counting as extra stages run by every device"},
    {.name = "interleaved",
     .description = "interleaved 1F1B (Megatron virtual pipeline): v model chunks per device, "
                    "warm-up (D-d-1)*2 + (v-1)*D forwards, then one forward one backward",
     .rule = ts_bl_interleaved,
     .fits = (const char *const[]){"vshape_interleaved", NULL},
     .needs = " with --chunks v >= 2 (stage s on device s mod D), micro-batches a multiple of the "
              "device count",
     .n_multiple_of_devs = true},
    {.name = "chimera",
     .description = "Chimera: two opposite 1F1B pipelines over the same devices, merged, in units "
                    "of D/2 micro-batches per direction",
     .rule = ts_bl_chimera,
     .fits = (const char *const[]){"xshape", NULL},
     .needs = " (two opposite V chains over the same devices, an even device count)"},
    {.name = "zb-h1",
     .description = "ZB-H1 (zero bubble): 1F1B order of F and B; weight-gradient passes W fill the "
                    "idle slots, forced earlier only to stay within 1F1B's peak memory",
     .rule = ts_bl_zbh1,
     .fits = (const char *const[]){"vshape_zb", NULL},
     .needs = " (each device's backward split into input gradient B and weight gradient W)"},
    {.name = "zb-h2",
     .description = "ZB-H2 (zero bubble): as ZB-H1 with 2(D-d-1) warm-up forwards on device d, so "
                    "W fills the warm-up and tail bubbles; memory up to 2D-1 micro-batches",
     .rule = ts_bl_zbh2,
     .fits = (const char *const[]){"vshape_zb", NULL},
     .needs = " (each device's backward split into input gradient B and weight gradient W)"},
    {.name = "zb-v",
     .description = "ZB-V (zero bubble, V-shape; PyTorch's ZBVZeroBubble order): two chunks per "
                    "device in a V, 2(D-d)-1 warm-up forwards, W deferred in the cool-down",
     .rule = ts_bl_zbv,
     .fits = (const char *const[]){"vshape_v_zb", NULL},
     .unsplit = "vshape_v",
     .needs = ": device d holds stages d and 2D-1-d"},
    {.name = "dualpipev",
     .description = "DualPipeV (DeepSeek, cut-in-half DualPipe): DualPipe's eight phases on the V "
                    "placement; F&B pairs run one after the other (no overlap in this model)",
     .rule = ts_bl_dualpipev,
     .fits = (const char *const[]){"vshape_v_zb", NULL},
     .unsplit = "vshape_v",
     .needs = ", at least 2D micro-batches",
     .min_n_per_dev = 2},
    {.name = "dualpipe",
     .description = "DualPipe (DeepSeek-V3): two opposite pipelines fed from both ends, eight "
                    "phases per rank; F&B pairs run one after the other (no overlap in this model)",
     .rule = ts_bl_dualpipe,
     .fits = (const char *const[]){"xshape_zb", NULL},
     .unsplit = "xshape",
     .needs = ": an even device count, N >= D micro-batches per direction",
     .min_n_per_dev = 1},
    {.name = "looped-bfs",
     .description = "Looped BFS (breadth-first; PyTorch's ScheduleLoopedBFS): each device runs "
                    "all micro-batches of one chunk before the next, backwards in reverse",
     .rule = ts_bl_looped_bfs,
     .fits = (const char *const[]){"vshape_interleaved", NULL},
     .needs = " (stage s on device s mod D, any --chunks)"},
    {.name = "zb-v-defer",
     .description = "ZB-V with W deferred: ZB-V's order of F and B, every W put off while the "
                    "device holds at most D micro-batches (2D chunks), filling idle steps",
     .rule = ts_bl_zbv_defer,
     .fits = (const char *const[]){"vshape_v_zb", NULL},
     .unsplit = "vshape_v",
     .needs = ": device d holds stages d and 2D-1-d"},
    {.name = "v-half",
     .description = "V-Half (controllable memory): a 6-slot V-shape building block repeated with "
                    "offsets, (D+2)/2 micro-batches of activations; warm-up and cool-down "
                    "squeezed within that peak",
     .rule = ts_bl_vhalf,
     .fits = (const char *const[]){"vshape_v_zb", NULL},
     .unsplit = "vshape_v",
     .needs = ": device d holds stages d and 2D-1-d"},
    {.name = "v-min",
     .description = "V-Min (controllable memory): a 6-slot V-shape building block repeated with "
                    "offsets, (D+4)/3 micro-batches of activations; warm-up and cool-down "
                    "squeezed within that peak",
     .rule = ts_bl_vmin,
     .fits = (const char *const[]){"vshape_v_zb", NULL},
     .unsplit = "vshape_v",
     .needs = ": device d holds stages d and 2D-1-d"},
};

int ts_baseline_count(void)
{
    return (int)(sizeof ts_bl_kinds / sizeof ts_bl_kinds[0]);
}

const ts_baseline_info *ts_baseline_at(int i)
{
    return i >= 0 && i < ts_baseline_count() ? &ts_bl_kinds[i] : NULL;
}
