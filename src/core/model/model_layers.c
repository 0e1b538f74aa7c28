/* Expanding a model section's hyper-parameters into layers: the per-sample formulas of
 * models/README.md (FLOPs, parameters, stored activations, bytes sent). Activation bytes follow
 * Korthikanti et al. (2022) for 16-bit training: a transformer block stores s*h*(34 + 5*a*s/h)
 * bytes per sample, of which 10*s*h stay whole under tensor parallelism and the rest is split. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "model_internal.h"

static ts_layer *ts_new_layer(const ts_section *s, const char *where, ts_model *m, long i,
                              ts_err *e)
{
    if (m->nlayers >= TS_MODEL_MAX_LAYERS) {
        ts_fail(e, TS_EINPUT, "%s: more than %d layers", where, TS_MODEL_MAX_LAYERS);
        return NULL;
    }
    ts_layer *l = &m->layers[m->nlayers++];
    memset(l, 0, sizeof *l);
    const char *base = s->name ? s->name : s->kind;
    if (s->count > 1)
        snprintf(l->name, sizeof l->name, "%s%ld", base, i);
    else
        snprintf(l->name, sizeof l->name, "%s", base);
    snprintf(l->kind, sizeof l->kind, "%s", s->kind);
    snprintf(l->branch, sizeof l->branch, "%s", s->branch ? s->branch : "");
    return l;
}

static int ts_need(const char *where, const char *kind, const char *field, double v, ts_err *e)
{
    if (v > 0)
        return TS_OK;
    return ts_fail(e, TS_EINPUT, "%s: a '%s' section needs a positive '%s'", where, kind, field);
}

/* The attention of a transformer block: the projections' parameters (lin), the core's FLOPs
 * per query-key pair (pair) and the widths the GEMM-shape model and the ring of context
 * parallelism read. Multi-head attention with kv_heads < heads shares each key/value head
 * among heads / kv_heads query heads (GQA; MQA at 1); multi-head latent attention (DeepSeek-V2,
 * section 2.1.2) projects keys and values through a kv_lora_rank latent (and queries through a
 * q_lora_rank one) with rope_head_dim positional dimensions per head. */
typedef struct {
    double lin, bias, pair, qkv, out_in, kv_tok;
    /* MLA's GEMM shapes (ts_layer's mla_* fields) */
    double down, q_rank, q_n, kv_rank, kv_n;
} ts_attn_shape;

static int ts_attention(const ts_section *s, const char *where, ts_attn_shape *x, ts_err *e)
{
    double h = s->hidden, a = s->heads, d = s->head_dim > 0 ? s->head_dim : h / a;
    double g = s->kv_heads > 0 ? s->kv_heads : a;
    if (g > a || fmod(a, g) != 0)
        return ts_fail(e, TS_EINPUT, "%s: kv_heads %g must divide heads %g", where, g, a);
    if (s->kv_lora_rank > 0) {
        double dq = d + s->rope_head_dim, dv = s->v_head_dim > 0 ? s->v_head_dim : d;
        double ql = s->q_lora_rank, kl = s->kv_lora_rank;
        double q = ql > 0 ? h * ql + ql * a * dq : h * a * dq;
        x->out_in = a * dv;
        x->lin = q + h * (kl + s->rope_head_dim) + kl * a * (d + dv) + x->out_in * h;
        x->bias = ql + kl + h;
        x->pair = 2 * a * dq + 2 * a * dv;
        x->qkv = (x->lin - x->out_in * h) / h;
        x->kv_tok = 2 * a * (dq + dv);
        x->down = (ql > 0 ? ql : 0) + kl + s->rope_head_dim;
        x->q_rank = ql > 0 ? ql : 0;
        x->q_n = a * dq;
        x->kv_rank = kl;
        x->kv_n = a * (d + dv);
        return TS_OK;
    }
    double hq = a * d, hkv = g * d;
    x->out_in = hq;
    x->lin = 2 * h * hq + 2 * h * hkv;
    x->bias = hq + 2 * hkv + h;
    x->pair = 4 * hq;
    x->qkv = hq + 2 * hkv;
    x->kv_tok = 2 * 2 * hkv;
    return TS_OK;
}

/* Transformer blocks (also encoder, decoder and vision encoder blocks). Stored activations
 * follow Korthikanti et al. with the feed-forward's own width: 18 s h + 2 m s f + 5 a s^2
 * (34 s h + 5 a s^2 at f = 4h, m = 2); GQA stores keys and values kv_heads wide. */
static int ts_transformer(const ts_section *s, const char *where, ts_layer *l, ts_err *e)
{
    double h = s->hidden, a = s->heads, S = s->seq;
    if (ts_need(where, s->kind, "hidden", h, e) || ts_need(where, s->kind, "heads", a, e) ||
        ts_need(where, s->kind, "seq", S, e))
        return TS_EINPUT;
    ts_attn_shape x = {0};
    if (ts_attention(s, where, &x, e))
        return TS_EINPUT;
    double hq = a * (s->head_dim > 0 ? s->head_dim : h / a);
    double f = s->ffn > 0 ? s->ffn : 4 * h, nm = s->ffn_matrices > 0 ? s->ffn_matrices : 2;
    l->slice_lin = 2 * (x.lin + nm * h * f);
    l->slice_attn = x.pair;
    l->fwd_flops = l->slice_lin * S + l->slice_attn * S * S;
    l->params = x.lin + x.bias + nm * h * f + f * (nm - 1) + h + 4 * h;
    l->act_bytes = 18 * S * h + 2 * nm * S * f + 5 * a * S * S - S * (4 * hq - x.kv_tok);
    if (s->kv_lora_rank > 0)
        l->act_bytes = 18 * S * h + 2 * nm * S * f + 5 * a * S * S;
    l->act_whole_bytes = 10 * S * h;
    l->act_recompute_bytes = 2 * S * h;
    l->out_bytes = 2 * S * h;
    l->allreduces = 2;
    l->ar_bytes = 2 * S * h;
    l->gemm_tokens = S;
    l->gemm_h = h;
    l->gemm_hq = x.out_in;
    l->gemm_qkv = x.qkv;
    l->gemm_f = f;
    l->gemm_nm = nm;
    l->gemm_ffn_rows = 1;
    l->mla_down = x.down;
    l->mla_q_rank = x.q_rank;
    l->mla_q_n = x.q_n;
    l->mla_kv_rank = x.kv_rank;
    l->mla_kv_n = x.kv_n;
    l->heads = (int)a;
    l->kv_heads = (int)(s->kv_heads > 0 ? s->kv_heads : a);
    l->attn_flops = l->slice_attn * S * S;
    l->kv_bytes = x.kv_tok * S;
    l->act_core_bytes = 5 * a * S * S;
    l->act_gemm_in_bytes = 2 * S * h + 2 * S * x.out_in + 2 * S * h + 2 * S * f * (nm - 1);
    if (!strcmp(s->kind, "decoder") && s->cross_seq > 0) {
        double c = s->cross_seq; /* cross-attention over the encoder's output */
        l->fwd_flops += 2 * S * 2 * h * hq + 2 * c * 2 * h * hq + 4 * S * c * hq;
        l->slice_lin += 2 * 2 * h * hq;
        l->params += 4 * h * hq + 3 * hq + h + 2 * h;
        l->act_bytes += 11 * S * h + 5 * a * S * c + 2 * c * h;
        l->act_core_bytes += 11 * S * h + 5 * a * S * c + 2 * c * h;
        l->act_whole_bytes += 2 * S * h + 2 * c * h;
        l->out_bytes += 2 * c * h;
        l->allreduces = 3;
    }
    /* Without dropout (MPT's and Llama's training: attn_pdrop and resid_pdrop 0) the two
     * 1-byte masks of Korthikanti et al.'s count, after the attention projection and after the
     * feed-forward (s h each, not split by T without sequence parallelism), are not stored */
    if (!s->dropout) {
        l->act_bytes -= 2 * S * h;
        l->act_whole_bytes -= 2 * S * h;
    }
    return TS_OK;
}

/* A mixture-of-experts feed-forward in place of the dense one (Shazeer et al. 2017; Fedus et
 * al. 2022): experts routed experts of expert_ffn width, top_k of them per token, plus
 * shared_experts every token runs (DeepSeekMoE), and a router of hidden x experts. Each token's
 * hidden state goes to its top_k experts and comes back: one all-to-all each way of
 * 2 s top_k h bytes per sample. */
static int ts_moe(const ts_section *s, const char *where, ts_layer *l, ts_err *e)
{
    double h = s->hidden, S = s->seq, E = s->experts, k = s->top_k > 0 ? s->top_k : 1;
    double fe = s->expert_ffn > 0 ? s->expert_ffn : s->ffn > 0 ? s->ffn : 4 * h;
    double nm = s->ffn_matrices > 0 ? s->ffn_matrices : 2, ns = s->shared_experts;
    double f = s->ffn > 0 ? s->ffn : 4 * h;
    if (k > E || fmod(E, 1) != 0 || fmod(k, 1) != 0)
        return ts_fail(e, TS_EINPUT, "%s: top_k %g must be a whole number up to experts %g", where,
                       k, E);
    /* take the dense feed-forward out, put the experts in */
    double dense_p = nm * h * f + f * (nm - 1) + h, dense_fl = 2 * nm * h * f;
    double rows = k + ns, expert_p = nm * h * fe;
    l->expert_params = E * expert_p;
    l->params += l->expert_params + ns * expert_p + h * E - dense_p;
    l->slice_lin += rows * 2 * expert_p + 2 * h * E - dense_fl;
    l->fwd_flops = l->slice_lin * S + l->slice_attn * S * S;
    l->act_bytes += rows * (2 * S * h + 2 * nm * S * fe) - 2 * nm * S * f;
    l->act_gemm_in_bytes +=
        rows * (2 * S * h + 2 * S * fe * (nm - 1)) - 2 * S * h - 2 * S * f * (nm - 1);
    l->gemm_f = fe;
    l->gemm_ffn_rows = rows;
    l->experts = (int)E;
    l->top_k = (int)k;
    l->a2a_bytes = 2 * S * k * h;
    return TS_OK;
}

/* Swin blocks: attention inside windows of window^2 tokens. */
static int ts_swin(const ts_section *s, const char *where, ts_layer *l, ts_err *e)
{
    double h = s->hidden, a = s->heads, S = s->seq, w = s->window;
    if (ts_need(where, "swin", "hidden", h, e) || ts_need(where, "swin", "heads", a, e) ||
        ts_need(where, "swin", "seq", S, e) || ts_need(where, "swin", "window", w, e))
        return TS_EINPUT;
    double M = w * w;
    l->fwd_flops = 24 * S * h * h + 4 * S * M * h;
    l->params = 12 * h * h + 13 * h + (2 * w - 1) * (2 * w - 1) * a;
    l->act_bytes = 34 * S * h + 5 * a * S * M;
    l->act_whole_bytes = 10 * S * h;
    l->act_recompute_bytes = 2 * S * h;
    l->out_bytes = 2 * S * h;
    l->allreduces = 2;
    l->ar_bytes = 2 * S * h;
    return TS_OK;
}

/* Swin patch merging: 2x2 neighbours concatenated (4h) and projected to 2h on seq/4 tokens. */
static int ts_merge(const ts_section *s, const char *where, ts_layer *l, ts_err *e)
{
    double h = s->hidden, S = s->seq;
    if (ts_need(where, "merge", "hidden", h, e) || ts_need(where, "merge", "seq", S, e))
        return TS_EINPUT;
    l->fwd_flops = 2 * (S / 4) * (4 * h) * (2 * h);
    l->params = 8 * h * h + 8 * h;
    l->act_bytes = 4 * S * h;
    l->act_recompute_bytes = 2 * S * h;
    l->out_bytes = S * h;
    l->allreduces = 1;
    l->ar_bytes = S * h;
    return TS_OK;
}

/* Patch embedding of an image: seq patches of patch^2 * channels pixels projected to hidden. */
static int ts_patch(const ts_section *s, const char *where, ts_layer *l, ts_err *e)
{
    double h = s->hidden, S = s->seq, p = s->patch, c = s->channels > 0 ? s->channels : 3;
    if (ts_need(where, "patch", "hidden", h, e) || ts_need(where, "patch", "seq", S, e) ||
        ts_need(where, "patch", "patch", p, e))
        return TS_EINPUT;
    l->fwd_flops = 2 * S * c * p * p * h;
    l->params = c * p * p * h + h + s->positions * h;
    l->act_bytes = 2 * S * c * p * p;
    l->act_recompute_bytes = l->act_bytes;
    l->out_bytes = 2 * S * h;
    l->allreduces = 1;
    l->ar_bytes = 2 * S * h;
    return TS_OK;
}

static int ts_embedding(const ts_section *s, const char *where, ts_layer *l, ts_err *e)
{
    double h = s->hidden, S = s->seq, V = s->vocab;
    if (ts_need(where, "embedding", "hidden", h, e) || ts_need(where, "embedding", "seq", S, e) ||
        ts_need(where, "embedding", "vocab", V, e))
        return TS_EINPUT;
    l->fwd_flops = 2 * S * h; /* the lookup is a gather; only the scale/add is arithmetic */
    l->params = V * h + s->positions * h;
    l->shared = s->tied;
    l->act_bytes = s->dropout ? S * h : 0; /* dropout mask */
    l->act_recompute_bytes = l->act_bytes;
    l->out_bytes = 2 * S * h;
    l->allreduces = 1; /* vocabulary-parallel lookup */
    l->ar_bytes = 2 * S * h;
    l->slice_lin = 2 * h;
    return TS_OK;
}

static int ts_head(const ts_section *s, const char *where, ts_layer *l, ts_err *e)
{
    double h = s->hidden, S = s->seq, V = s->vocab;
    if (ts_need(where, "head", "hidden", h, e) || ts_need(where, "head", "seq", S, e) ||
        ts_need(where, "head", "vocab", V, e))
        return TS_EINPUT;
    l->slice_lin = 2 * h * V;
    l->fwd_flops = l->slice_lin * S;
    l->params = V * h + 2 * h;
    l->shared = s->tied;
    l->act_bytes = 2 * S * h + 4 * S * V; /* fp32 logits kept for the cross-entropy */
    l->act_recompute_bytes = 2 * S * h;
    l->out_bytes = 4; /* the loss */
    return TS_OK;
}

/* AlphaFold2's Evoformer block (Jumper et al. 2021, supplement 1.6): MSA row attention with pair
 * bias (8 heads x 32), column attention, transition (x4), outer product mean (32), triangle
 * multiplication out/in (128), triangle attention start/end (4 heads x 32), pair transition. */
static int ts_evoformer(const ts_section *s, const char *where, ts_layer *l, ts_err *e)
{
    double Ns = s->msa_seq, Nr = s->residues, cm = s->msa_dim, cz = s->pair_dim;
    if (ts_need(where, "evoformer", "msa_seq", Ns, e) ||
        ts_need(where, "evoformer", "residues", Nr, e) ||
        ts_need(where, "evoformer", "msa_dim", cm, e) ||
        ts_need(where, "evoformer", "pair_dim", cz, e))
        return TS_EINPUT;
    double Em = Ns * Nr, Ez = Nr * Nr, N3 = Nr * Nr * Nr;
    double row = 2 * Em * 5 * cm * 256 + 4 * Ns * Ez * 256 + 2 * Ez * cz * 8;
    double col = 2 * Em * 5 * cm * 256 + 4 * Nr * Ns * Ns * 256;
    double mtr = 16 * Em * cm * cm;
    double opm = 2 * Em * 2 * cm * 32 + 2 * Ns * Ez * 32 * 32 + 2 * Ez * 1024 * cz;
    double tmul = 2 * (2 * Ez * (4 * cz * 128 + 128 * cz + cz * cz) + 2 * N3 * 128);
    double tatt = 2 * (2 * Ez * 5 * cz * 128 + 2 * Ez * cz * 4 + 4 * N3 * 128);
    double ptr = 16 * Ez * cz * cz;
    l->fwd_flops = row + col + mtr + opm + tmul + tatt + ptr;
    l->params = 2 * 5 * cm * 256 + cz * 8 + 8 * cm * cm + 2 * cm * 32 + 1024 * cz +
                2 * (4 * cz * 128 + 128 * cz + cz * cz) + 2 * (5 * cz * 128 + cz * 4) + 8 * cz * cz;
    l->act_bytes =
        2 * (12 * Em * cm + 20 * Ez * cz) + 2 * (8 * Ns * Ez + 8 * Nr * Ns * Ns + 2 * 4 * N3);
    l->out_bytes = 2 * (Em * cm + Ez * cz);
    l->act_recompute_bytes = l->out_bytes;
    l->allreduces = 2;
    l->ar_bytes = l->out_bytes;
    return TS_OK;
}

static int ts_explicit(const ts_section *s, const char *where, ts_layer *l, ts_err *e)
{
    if (ts_need(where, "layer", "fwd_flops", s->fwd_flops, e))
        return TS_EINPUT;
    l->fwd_flops = s->fwd_flops;
    l->params = s->params;
    l->shared = s->tied;
    l->act_bytes = s->act_bytes;
    l->act_recompute_bytes = s->out_bytes < s->act_bytes ? s->out_bytes : s->act_bytes;
    l->out_bytes = s->out_bytes;
    l->allreduces = (int)s->allreduces;
    l->ar_bytes = s->out_bytes;
    return TS_OK;
}

int ts_section_expand(const ts_section *s, const char *where, ts_model *m, ts_err *e)
{
    static const struct {
        const char *kind;
        int (*fn)(const ts_section *, const char *, ts_layer *, ts_err *);
    } kinds[] = {{"transformer", ts_transformer},
                 {"encoder", ts_transformer},
                 {"decoder", ts_transformer},
                 {"vision", ts_transformer},
                 {"swin", ts_swin},
                 {"merge", ts_merge},
                 {"patch", ts_patch},
                 {"embedding", ts_embedding},
                 {"head", ts_head},
                 {"evoformer", ts_evoformer},
                 {"layer", ts_explicit}};
    size_t k = 0, nk = sizeof kinds / sizeof kinds[0];
    while (k < nk && strcmp(kinds[k].kind, s->kind))
        k++;
    if (k == nk)
        return ts_fail(e, TS_EINPUT,
                       "%s: unknown section kind '%s' (transformer, encoder, decoder, vision, "
                       "swin, merge, patch, embedding, head, evoformer, layer)",
                       where, s->kind);
    bool moe = s->experts > 0;
    if (moe && kinds[k].fn != ts_transformer)
        return ts_fail(e, TS_EINPUT, "%s: experts apply to transformer-like sections only", where);
    for (long i = 0; i < s->count; i++) {
        ts_layer *l = ts_new_layer(s, where, m, i, e);
        if (!l || kinds[k].fn(s, where, l, e))
            return TS_EINPUT;
        /* Megatron's --moe-layer-freq k: layers 0, k, 2k, ... of the section are MoE */
        long every = s->moe_every > 0 ? (long)s->moe_every : 1;
        if (moe && i % every == 0 && ts_moe(s, where, l, e))
            return TS_EINPUT;
        if (!isfinite(l->fwd_flops) || !isfinite(l->params) || !isfinite(l->act_bytes))
            return ts_fail(e, TS_EINPUT, "%s: section '%s' gives non-finite figures", where,
                           l->name);
    }
    return TS_OK;
}
