#!/usr/bin/env python3
"""The triton_attention_efficiency of models/hardware/{a100-80gb,a100-40gb,h100-80gb}.json,
derived from llm-foundry's own sequence-length sweeps.

Source: mosaicml/llm-foundry, scripts/train/benchmarking/README.md at commit b2a43a147
("Update_pretrain_benchmarks (#543)"), tables 'A100 80GB with 1600 Gbps node-node interconnect
(RoCE)' and 'H100 80GB BF16', column Throughput (T/s/GPU), the MPT 1B and 3B rows on 8 GPUs
without activation checkpointing (seq 2048 rows excluded: those are the published-run fixture's).
Those runs used submit_benchmarks.py's --attn_impl default, triton: llm-foundry's
flash_attn_triton.py on the pre-MLIR Triton fork its setup.py installs (triton-pre-mlir).

At a fixed model and GPU, time per token = a + b * s. FlashAttention moves nothing through HBM
that grows with s, so the slope b is the attention core alone. Per token, causal attention with
FlashAttention's recompute executes 7 h s L FLOPs (forward 2 h s per layer for half the score
pairs, backward twice that, the recomputed scores h s), as `tessel plan` charges it at
attention_efficiency. So the kernel's rate is 7 h L / b, its efficiency that over the BF16 peak.

Per model: the mean of the slopes between consecutive sequence lengths; per GPU: the mean of the
1B and 3B models' efficiencies, rounded to 2 decimals. A least-squares slope is printed beside.
With --check MODELS_DIR, exits 1 unless each profile's triton_attention_efficiency is the
derived figure (tests/cli/published_set.sh runs it).

usage: triton_attention_slope.py [--check MODELS_DIR]"""
import json
import os
import sys


# model: (hidden h, layers L), from scripts/train/yamls/pretrain/mpt-{1b,3b}.yaml at the commit
SHAPES = {"1b": (2048, 24), "3b": (2560, 32)}

# GPU: (BF16 dense peak TFLOP/s, {model: {seq: tokens/s/GPU}})
TABLES = {
    "A100 80GB": (312, {
        "1b": {4096: 17807, 8192: 13814, 16384: 9956, 32768: 6275},
        "3b": {4096: 9457, 8192: 7695, 16384: 5529},
    }),
    "H100 80GB": (989, {
        "1b": {4096: 38535, 8192: 29157, 16384: 19649, 32768: 12025},
        "3b": {4096: 20964, 8192: 16578, 16384: 11152},
    }),
}


def lsq_slope(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def main():
    derived = {}
    for gpu, (peak, rows) in TABLES.items():
        effs = []
        print(f"{gpu} (peak {peak} TFLOP/s)")
        for model, tput in rows.items():
            h, layers = SHAPES[model]
            seqs = sorted(tput)
            us = [1e6 / tput[s] for s in seqs]  # microseconds per token
            slopes = [(us[i + 1] - us[i]) / (seqs[i + 1] - seqs[i]) for i in range(len(seqs) - 1)]
            b = sum(slopes) / len(slopes)
            flops = 7 * h * layers  # per token per unit of s
            tflops = flops / (b * 1e-6) / 1e12
            eff = tflops / peak
            lsq = lsq_slope(seqs, us)
            effs.append(eff)
            print(f"  MPT {model} (h {h}, L {layers}): us/token "
                  + ", ".join(f"s={s}: {u:.2f}" for s, u in zip(seqs, us)))
            print("    slopes (us per token of s): " + ", ".join(f"{x:.3e}" for x in slopes)
                  + f"; mean {b:.3e} (least squares {lsq:.3e})")
            print(f"    {flops} FLOP / {b * 1e-6:.3e} s = {tflops:.1f} TFLOP/s = {eff:.3f} of peak"
                  f" (least squares: {flops / (lsq * 1e-6) / 1e12 / peak:.3f})")
        mean = sum(effs) / len(effs)
        print(f"  triton_attention_efficiency {gpu}: mean {mean:.4f} -> {mean:.2f}")
        derived[gpu] = round(mean, 2)
    return derived


# the profiles each table's figure belongs to (A100 40GB: the same chip as the 80GB)
PROFILES = {"A100 80GB": ["a100-80gb", "a100-40gb"], "H100 80GB": ["h100-80gb"]}


if __name__ == "__main__":
    derived = main()
    if "--check" in sys.argv:
        models = sys.argv[sys.argv.index("--check") + 1]
        bad = 0
        for gpu, names in PROFILES.items():
            for name in names:
                with open(os.path.join(models, "hardware", name + ".json")) as f:
                    have = json.load(f).get("triton_attention_efficiency")
                if have != derived[gpu]:
                    print(f"{name}: triton_attention_efficiency {have}, derived {derived[gpu]}")
                    bad = 1
        sys.exit(bad)
