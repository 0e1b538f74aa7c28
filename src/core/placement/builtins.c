/* The paper's placements (reference/paper-cases.md) and the ones the hand-made baselines need:
 * one builder per shape, the registry (one row per built-in: name, description, device counts,
 * builder) and ts_builtin_make, which builds a row's placement and its inference variant. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ts_placement.h"

/* A placement being built: ok drops to 0 at the first allocation failure. */
struct ts_bld {
    ts_placement *p;
    int ok;
};

/* Adds a block on one device (dev >= 0) or on every device (dev < 0). */
static int ts_bld_block(ts_bld *b, const char *id, ts_kind kind, int span, int memory, int dev)
{
    if (!b->ok)
        return -1;
    int n = dev >= 0 ? 1 : b->p->ndevs;
    int *devs = malloc((size_t)n * sizeof(int));
    if (!devs) {
        b->ok = 0;
        return -1;
    }
    for (int i = 0; i < n; i++)
        devs[i] = dev >= 0 ? dev : i;
    int idx = ts_placement_add_block(b->p, id, kind, span, memory, n, devs);
    free(devs);
    if (idx < 0)
        b->ok = 0;
    return idx;
}

static void ts_bld_edge(ts_bld *b, int src, int dst)
{
    if (b->ok && (src < 0 || dst < 0 || ts_placement_add_edge(b->p, src, dst, 0, 0) < 0))
        b->ok = 0;
}

/* A chain of single-device blocks on devices from..to (either direction), ids from fmt and the
 * device number, each depending on the one before (and the first on prev when prev >= 0).
 * Returns the last block. */
static int ts_bld_run(ts_bld *b, const char *fmt, int from, int to, int prev, ts_kind kind,
                      int span, int memory)
{
    int step = from <= to ? 1 : -1;
    for (int d = from;; d += step) {
        char id[64];
        snprintf(id, sizeof id, fmt, d);
        int x = ts_bld_block(b, id, kind, span, memory, d);
        if (prev >= 0)
            ts_bld_edge(b, prev, x);
        prev = x;
        if (d == to)
            break;
    }
    return prev;
}

static int ts_bld_fwd(ts_bld *b, const char *fmt, int from, int to, int prev, int memory)
{
    return ts_bld_run(b, fmt, from, to, prev, TS_KIND_FORWARD, 1, memory);
}

static int ts_bld_bwd(ts_bld *b, const char *fmt, int from, int to, int prev, int span)
{
    return ts_bld_run(b, fmt, from, to, prev, TS_KIND_BACKWARD, span, -1);
}

static int ts_bld_shard(ts_bld *b, const char *id, ts_kind kind, int memory, int prev)
{
    int x = ts_bld_block(b, id, kind, 1, memory, -1);
    if (prev >= 0)
        ts_bld_edge(b, prev, x);
    return x;
}

static void ts_make_vshape(ts_bld *b, int D, int chunks)
{
    (void)chunks;
    int f = ts_bld_fwd(b, "F%d", 0, D - 1, -1, 1);
    ts_bld_bwd(b, "B%d", D - 1, 0, f, 3);
}

static void ts_make_xshape(ts_bld *b, int D, int chunks)
{
    (void)chunks;
    int f = ts_bld_fwd(b, "Fa%d", 0, D - 1, -1, 1);
    ts_bld_bwd(b, "Ba%d", D - 1, 0, f, 3);
    f = ts_bld_fwd(b, "Fb%d", D - 1, 0, -1, 1);
    ts_bld_bwd(b, "Bb%d", 0, D - 1, f, 3);
}

static void ts_make_mshape(ts_bld *b, int D, int chunks)
{
    (void)chunks;
    int x = ts_bld_shard(b, "S", TS_KIND_FORWARD, 0, -1);
    x = ts_bld_fwd(b, "F%d", 0, D - 1, x, 1);
    x = ts_bld_bwd(b, "B%d", D - 1, 0, x, 3);
    ts_bld_shard(b, "S'", TS_KIND_BACKWARD, 0, x);
}

static void ts_make_nnshape(ts_bld *b, int D, int chunks)
{
    (void)chunks;
    int h = D / 2;
    int x = ts_bld_shard(b, "S1", TS_KIND_FORWARD, 0, -1);
    x = ts_bld_fwd(b, "F%d", 0, h - 1, x, 1);
    x = ts_bld_shard(b, "S2", TS_KIND_FORWARD, 0, x);
    x = ts_bld_fwd(b, "F%d", h, D - 1, x, 1);
    x = ts_bld_bwd(b, "B%d", D - 1, h, x, 3);
    x = ts_bld_shard(b, "S2'", TS_KIND_BACKWARD, 0, x);
    x = ts_bld_bwd(b, "B%d", h - 1, 0, x, 3);
    ts_bld_shard(b, "S1'", TS_KIND_BACKWARD, 0, x);
}

static void ts_make_nnshape_eager(ts_bld *b, int D, int chunks)
{
    (void)chunks;
    (void)D; /* four devices only: S1 F0 S2 F1 F2 F3 B3 B2 B1 S2' B0 S1' */
    int x = ts_bld_shard(b, "S1", TS_KIND_FORWARD, 0, -1);
    x = ts_bld_fwd(b, "F%d", 0, 0, x, 1);
    x = ts_bld_shard(b, "S2", TS_KIND_FORWARD, 0, x);
    x = ts_bld_fwd(b, "F%d", 1, 3, x, 1);
    x = ts_bld_bwd(b, "B%d", 3, 1, x, 3);
    x = ts_bld_shard(b, "S2'", TS_KIND_BACKWARD, 0, x);
    x = ts_bld_bwd(b, "B%d", 0, 0, x, 3);
    ts_bld_shard(b, "S1'", TS_KIND_BACKWARD, 0, x);
}

static void ts_make_kshape(ts_bld *b, int D, int chunks)
{
    (void)chunks;
    int h = D / 2;
    int f1 = ts_bld_fwd(b, "F%d", 0, h - 1, -1, 1);
    int f2 = ts_bld_fwd(b, "F%d", h, D - 1, -1, 1);
    int m = ts_bld_shard(b, "M", TS_KIND_FORWARD, 1, f1);
    ts_bld_edge(b, f2, m);
    int mb = ts_bld_shard(b, "M'", TS_KIND_BACKWARD, -1, m);
    ts_bld_bwd(b, "B%d", h - 1, 0, mb, 3);
    ts_bld_bwd(b, "B%d", D - 1, h, mb, 3);
}

static void ts_make_mllm(ts_bld *b, int D, int chunks)
{
    (void)chunks;
    int x = ts_bld_shard(b, "S1", TS_KIND_FORWARD, 0, -1);
    x = ts_bld_fwd(b, "F%d", 0, D - 1, x, 1);
    x = ts_bld_shard(b, "S2", TS_KIND_FORWARD, 0, x);
    x = ts_bld_shard(b, "S2'", TS_KIND_BACKWARD, 0, x);
    x = ts_bld_bwd(b, "B%d", D - 1, 0, x, 3);
    ts_bld_shard(b, "S1'", TS_KIND_BACKWARD, 0, x);
}

static void ts_make_finetune(ts_bld *b, int D, int chunks)
{
    (void)chunks;
    int x = ts_bld_shard(b, "S", TS_KIND_FORWARD, 0, -1);
    x = ts_bld_fwd(b, "F%d", 0, D - 1, x, 1);
    ts_bld_bwd(b, "B%d", D - 1, 0, x, 2);
}

static void ts_make_alphafold(ts_bld *b, int D, int chunks)
{
    (void)chunks;
    int x = ts_bld_fwd(b, "F%dr1", 0, D - 1, -1, 0);
    x = ts_bld_fwd(b, "F%dr2", 0, D - 1, x, 0);
    x = ts_bld_fwd(b, "F%dr3", 0, D - 1, x, 1);
    ts_bld_bwd(b, "B%d", D - 1, 0, x, 1);
}

/* Interleaved 1F1B's placement: v model chunks per device; stage s = c*D + d runs on device d. */
static void ts_make_vshape_interleaved(ts_bld *b, int D, int v)
{
    int x = -1;
    for (int c = 0; c < v; c++) {
        char fmt[32];
        snprintf(fmt, sizeof fmt, "F%%dc%d", c);
        x = ts_bld_fwd(b, fmt, 0, D - 1, x, 1);
    }
    for (int c = v - 1; c >= 0; c--) {
        char fmt[32];
        snprintf(fmt, sizeof fmt, "B%%dc%d", c);
        x = ts_bld_bwd(b, fmt, D - 1, 0, x, 3);
    }
}

/* Zero-bubble placement: backward split into input gradient B and weight gradient W. */
static void ts_make_vshape_zb(ts_bld *b, int D, int chunks)
{
    (void)chunks;
    int prev = -1;
    for (int d = 0; d < D; d++) {
        char id[32];
        snprintf(id, sizeof id, "F%d", d);
        int x = ts_bld_block(b, id, TS_KIND_FORWARD, 1, 2, d);
        if (prev >= 0)
            ts_bld_edge(b, prev, x);
        prev = x;
    }
    for (int d = D - 1; d >= 0; d--) {
        char id[32];
        snprintf(id, sizeof id, "B%d", d);
        int x = ts_bld_block(b, id, TS_KIND_BACKWARD, 1, -1, d);
        ts_bld_edge(b, prev, x);
        snprintf(id, sizeof id, "W%d", d);
        int w = ts_bld_block(b, id, TS_KIND_BACKWARD, 1, -1, d);
        ts_bld_edge(b, x, w);
        prev = x;
    }
}

/* Backward blocks B on devices from..to (either direction), each followed by its weight-gradient
 * block W on the same device that nothing waits for (the zero-bubble split); ids from the formats
 * and the number the index function gives (device or stage). Returns the last B. */
static int ts_bld_bw_run(ts_bld *b, const char *fb, const char *fw, int n, const int *dev,
                         const int *num, int prev)
{
    for (int i = 0; i < n; i++) {
        char id[64];
        snprintf(id, sizeof id, fb, num[i]);
        int x = ts_bld_block(b, id, TS_KIND_BACKWARD, 1, -1, dev[i]);
        ts_bld_edge(b, prev, x);
        snprintf(id, sizeof id, fw, num[i]);
        int w = ts_bld_block(b, id, TS_KIND_BACKWARD, 1, -1, dev[i]);
        ts_bld_edge(b, x, w);
        prev = x;
    }
    return prev;
}

/* The V placement (ZB-V, DualPipeV): 2D stages, device d holds stage d and stage 2D-1-d, so a
 * micro-batch goes down the devices and back up; block ids name the stage. split: backward as
 * input gradient B then weight gradient W (span 1 each, F memory 2 as vshape_zb), else one
 * backward block of span 2 (F memory 1). */
static void ts_make_vshape_v(ts_bld *b, int D, bool split)
{
    int S = 2 * D, prev = -1;
    int *dev = malloc((size_t)S * sizeof(int)), *num = malloc((size_t)S * sizeof(int));
    if (!dev || !num) {
        b->ok = 0;
        free(dev);
        free(num);
        return;
    }
    for (int s = 0; s < S; s++) {
        char id[32];
        snprintf(id, sizeof id, "F%d", s);
        int x = ts_bld_block(b, id, TS_KIND_FORWARD, 1, split ? 2 : 1, s < D ? s : S - 1 - s);
        if (prev >= 0)
            ts_bld_edge(b, prev, x);
        prev = x;
    }
    for (int i = 0; i < S; i++) { /* backward stages 2D-1 .. 0 */
        num[i] = S - 1 - i;
        dev[i] = num[i] < D ? num[i] : S - 1 - num[i];
    }
    if (split) {
        ts_bld_bw_run(b, "B%d", "W%d", S, dev, num, prev);
    } else {
        for (int i = 0; i < S; i++) {
            char id[32];
            snprintf(id, sizeof id, "B%d", num[i]);
            int x = ts_bld_block(b, id, TS_KIND_BACKWARD, 2, -1, dev[i]);
            ts_bld_edge(b, prev, x);
            prev = x;
        }
    }
    free(dev);
    free(num);
}

/* DualPipe's bidirectional placement: xshape's two opposite chains (chain a: stage s on device
 * s, chain b: stage s on device D-1-s, so every device holds two stages' parameters) with the
 * zero-bubble split of every backward into B and W (spans 1, F memory 2 as vshape_zb). */
static void ts_make_vshape_v_unsplit(ts_bld *b, int D, int chunks)
{
    (void)chunks;
    ts_make_vshape_v(b, D, false);
}

static void ts_make_vshape_v_zb(ts_bld *b, int D, int chunks)
{
    (void)chunks;
    ts_make_vshape_v(b, D, true);
}

static void ts_make_xshape_zb(ts_bld *b, int D, int chunks)
{
    (void)chunks;
    int *dev = malloc((size_t)D * sizeof(int));
    if (!dev) {
        b->ok = 0;
        return;
    }
    for (int k = 0; k < 2; k++) {
        int prev = -1;
        for (int s = 0; s < D; s++) {
            char id[32];
            int d = k == 0 ? s : D - 1 - s;
            snprintf(id, sizeof id, k == 0 ? "Fa%d" : "Fb%d", d);
            int x = ts_bld_block(b, id, TS_KIND_FORWARD, 1, 2, d);
            if (prev >= 0)
                ts_bld_edge(b, prev, x);
            prev = x;
        }
        for (int i = 0; i < D; i++) /* backward: the chain's stages in reverse */
            dev[i] = k == 0 ? D - 1 - i : i;
        ts_bld_bw_run(b, k == 0 ? "Ba%d" : "Bb%d", k == 0 ? "Wa%d" : "Wb%d", D, dev, dev, prev);
    }
    free(dev);
}

/* The registry: one row per built-in, its name, description, device counts and builder. */
static const ts_builtin_info ts_builtins[] = {
    {.name = "vshape",
     .description = "F0..F(D-1) B(D-1)..B0: 1F1B's placement",
     .min_devs = 1,
     .max_devs = TS_MAX_DEVS,
     .step_devs = 1,
     .build = ts_make_vshape},
    {.name = "xshape",
     .description = "two opposite V chains in one micro-batch: Chimera's placement",
     .min_devs = 2,
     .max_devs = TS_MAX_DEVS,
     .step_devs = 1,
     .build = ts_make_xshape},
    {.name = "mshape",
     .description = "S F0..F(D-1) B(D-1)..B0 S': a sharded block around the V",
     .min_devs = 1,
     .max_devs = TS_MAX_DEVS,
     .step_devs = 1,
     .build = ts_make_mshape},
    {.name = "nnshape",
     .description = "S1 F.. S2 F.. B.. S2' B.. S1': a second sharded block in the middle",
     .min_devs = 2,
     .max_devs = TS_MAX_DEVS,
     .step_devs = 2,
     .build = ts_make_nnshape},
    {.name = "nnshape_eager",
     .description = "S1 F0 S2 F1 F2 F3 B3 B2 B1 S2' B0 S1' (4 devices)",
     .min_devs = 4,
     .max_devs = 4,
     .step_devs = 1,
     .build = ts_make_nnshape_eager},
    {.name = "kshape",
     .description = "two branches meeting in a sharded block M",
     .min_devs = 2,
     .max_devs = TS_MAX_DEVS,
     .step_devs = 2,
     .build = ts_make_kshape},
    {.name = "mllm",
     .description = "S1 F0..F(D-1) S2 S2' B(D-1)..B0 S1': multimodal LLM",
     .min_devs = 1,
     .max_devs = TS_MAX_DEVS,
     .step_devs = 1,
     .build = ts_make_mllm},
    {.name = "finetune",
     .description = "S F0..F(D-1) B(D-1)..B0 with backward span 2: frozen embedding",
     .min_devs = 1,
     .max_devs = TS_MAX_DEVS,
     .step_devs = 1,
     .build = ts_make_finetune},
    {.name = "alphafold",
     .description = "three forward rounds then one backward",
     .min_devs = 1,
     .max_devs = TS_MAX_DEVS,
     .step_devs = 1,
     .build = ts_make_alphafold},
    {.name = "vshape_interleaved",
     .description = "vshape with --chunks v model chunks per device (interleaved 1F1B)",
     .min_devs = 1,
     .max_devs = TS_MAX_DEVS,
     .step_devs = 1,
     .build = ts_make_vshape_interleaved,
     .chunks = true},
    {.name = "vshape_zb",
     .description = "vshape with backward split into B (input grad) and W (weight grad)",
     .min_devs = 1,
     .max_devs = TS_MAX_DEVS,
     .step_devs = 1,
     .build = ts_make_vshape_zb},
    {.name = "vshape_v",
     .description = "V placement: 2D stages, device d holds stages d and 2D-1-d (backward span 2)",
     .min_devs = 1,
     .max_devs = TS_MAX_DEVS,
     .step_devs = 1,
     .build = ts_make_vshape_v_unsplit},
    {.name = "vshape_v_zb",
     .description = "vshape_v with backward split into B and W: ZB-V's and DualPipeV's placement",
     .min_devs = 1,
     .max_devs = TS_MAX_DEVS,
     .step_devs = 1,
     .build = ts_make_vshape_v_zb},
    {.name = "xshape_zb",
     .description = "xshape with backward split into B and W: DualPipe's bidirectional placement",
     .min_devs = 2,
     .max_devs = TS_MAX_DEVS,
     .step_devs = 2,
     .build = ts_make_xshape_zb},
};

int ts_builtin_count(void)
{
    return (int)(sizeof ts_builtins / sizeof ts_builtins[0]);
}

const ts_builtin_info *ts_builtin_at(int i)
{
    return i >= 0 && i < ts_builtin_count() ? &ts_builtins[i] : NULL;
}

const ts_builtin_info *ts_builtin_find(const char *name)
{
    for (int i = 0; i < ts_builtin_count(); i++)
        if (!strcmp(ts_builtins[i].name, name))
            return &ts_builtins[i];
    return NULL;
}

/* Inference keeps the non-backward blocks and the edges between them, with memory 0. */
static ts_placement *ts_inference_variant(const ts_placement *p)
{
    char name[256];
    snprintf(name, sizeof name, "%s-infer", p->name);
    ts_placement *q = ts_placement_new(name, p->ndevs);
    int *map = malloc((size_t)p->nblocks * sizeof(int));
    if (!q || !map)
        goto fail;
    for (int i = 0; i < p->nblocks; i++) {
        const ts_block *b = &p->blocks[i];
        map[i] = -1;
        if (b->kind == TS_KIND_BACKWARD)
            continue;
        map[i] = ts_placement_add_block(q, b->id, b->kind, b->span, 0, b->ndevices, b->devices);
        if (map[i] < 0)
            goto fail;
    }
    for (int i = 0; i < p->nedges; i++) {
        const ts_edge *x = &p->edges[i];
        if (map[x->src] >= 0 && map[x->dst] >= 0 &&
            ts_placement_add_edge(q, map[x->src], map[x->dst], x->delay, x->distance) < 0)
            goto fail;
    }
    free(map);
    return q;
fail:
    free(map);
    ts_placement_free(q);
    return NULL;
}

/* The built-ins that take --chunks, for the refusal (one today: vshape_interleaved). */
static const char *ts_chunked_names(void)
{
    for (int i = 0; i < ts_builtin_count(); i++)
        if (ts_builtins[i].chunks)
            return ts_builtins[i].name;
    return "no built-in";
}

int ts_builtin_make(const char *name, const ts_builtin_opts *o, ts_placement **out, ts_err *e)
{
    const ts_builtin_info *info = ts_builtin_find(name);
    int D = o->ndevs;
    *out = NULL;
    if (!info)
        return ts_fail(e, TS_EINPUT, "unknown built-in placement '%s' (see `tessel placements`)",
                       name);
    if (D < info->min_devs || D > info->max_devs || D % info->step_devs)
        return ts_fail(e, TS_EINPUT, "built-in '%s' needs %s%d to %d devices%s, got %d", name,
                       info->step_devs == 2 ? "an even count of " : "", info->min_devs,
                       info->max_devs, "", D);
    int chunks = o->chunks > 0 ? o->chunks : TS_BUILTIN_CHUNKS;
    if (o->chunks != 0 && !info->chunks)
        return ts_fail(e, TS_EINPUT, "--chunks applies to %s only, not '%s'", ts_chunked_names(),
                       name);
    if (chunks > 64)
        return ts_fail(e, TS_EINPUT, "%s: --chunks must be between 1 and 64, got %d", name, chunks);
    ts_bld b = {ts_placement_new(name, D), 1};
    if (!b.p)
        return ts_fail(e, TS_ESYS, "out of memory");
    info->build(&b, D, chunks);
    if (!b.ok) {
        ts_placement_free(b.p);
        return ts_fail(e, TS_ESYS, "out of memory building '%s'", name);
    }
    /* what no command reads back (placement_io.c refuses it) is not handed out, written or sent:
     * refused here, before any file or answer is made of it */
    if (b.p->nblocks > TS_MAX_BLOCKS) {
        int n = b.p->nblocks;
        ts_placement_free(b.p);
        return ts_fail(e, TS_EINPUT,
                       "built-in '%s' on %d devices%s has %d blocks, more than the limit of %d "
                       "that every command reads: fewer devices%s",
                       name, D, info->chunks ? " with its chunks" : "", n, TS_MAX_BLOCKS,
                       info->chunks ? " or chunks" : "");
    }
    if (o->infer) {
        ts_placement *q = ts_inference_variant(b.p);
        ts_placement_free(b.p);
        if (!q)
            return ts_fail(e, TS_ESYS, "out of memory building '%s'", name);
        b.p = q;
    }
    *out = b.p;
    return TS_OK;
}
