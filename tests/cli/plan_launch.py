"""tessel plan's launch lines held to the frameworks' own argument rules (issue 45): for every
plan that fits in a few rankings (dense GQA, MoE with expert parallelism, 128K tokens with
context parallelism, each framework), its Megatron-LM arguments satisfy what Megatron-LM's
arguments.py asserts (TP x PP x CP x DP = GPUs, layers divisible by PP x VP or the uneven split,
heads and query groups divisible by TP, EP dividing the experts and EP x ETP dividing TP x DP x
CP with --expert-tensor-parallel-size always written (MoE parallel folding), the global batch by
micro-batch x DP, the sequence by 2 CP, sequence parallelism only with TP, FSDP without a
pipeline, --fp8-recipe one of its choices and only with --fp8-format, --attention-backend the
kernel asked for, and no arguments for llm-foundry's Triton kernel, which it has no backend for)
and its torchtitan [parallelism] degrees multiply to the GPUs with a schedule
torchtitan has and, for MoE models, the expert tensor parallelism it supports (1 or TP).
usage: plan_launch.py TESSEL MODELS_DIR"""
import json, subprocess, sys

tessel, models = sys.argv[1:3]
SCHEDULES = {"1F1B", "Interleaved1F1B", "GPipe", "InterleavedZeroBubble"}
runs = [
    ("llama3-70b", "h100-80gb", 64, 128, []),
    ("llama3-70b", "h100-80gb", 64, 128, ["--tp-comm-overlap", "on"]),
    ("mixtral-8x7b", "h100-80gb", 64, 256, ["--seq", "4096"]),
    ("llama3-8b", "h100-80gb", 64, 64, ["--seq", "131072"]),
    ("llama3-8b", "h100-80gb", 64, 64, ["--seq", "131072", "--cp-comm", "allgather"]),
    ("llama3-405b", "h100-80gb", 1024, 512, ["--first-stage-layers", "7", "--last-stage-layers", "7", "--pipeline", "16"]),
    ("gpt3-13b", "a100-80gb", 32, 256, ["--framework", "fsdp"]),
    ("llama3-8b", "h100-80gb", 8, 128, ["--precision", "fp8", "--fp8-scaling", "current"]),
    ("llama3-8b", "h100-80gb", 8, 128, ["--precision", "fp8"]),
    ("gpt3-13b", "h100-80gb", 16, 64, ["--framework", "fsdp", "--attention", "fa2"]),
    ("gpt3-13b", "h100-80gb", 16, 64, ["--framework", "fsdp", "--attention", "triton"]),
    ("gpt3-13b", "a100-80gb", 16, 64, ["--attention", "unfused"]),
    ("gpt3-13b", "a100-80gb", 32, 256, ["--framework", "deepspeed"]),
    # MoE parallel folding: 8 experts over T 2 x dp 4 at expert tensor parallelism 1, which
    # expert tensor parallelism T (8 dividing dp x CP) refuses; and torchtitan's FSDP at 1
    ("mixtral-8x7b", "h100-80gb", 32, 256, ["--seq", "4096", "--tensor-parallel", "2",
                                            "--pipeline", "4", "--expert-parallel", "8",
                                            "--expert-tensor-parallel", "1"]),
    ("mixtral-8x7b", "h100-80gb", 32, 256, ["--seq", "4096", "--tensor-parallel", "2",
                                            "--expert-parallel", "8",
                                            "--expert-tensor-parallel", "1", "--framework",
                                            "fsdp"]),
]
shape = {}
for name in {r[0] for r in runs}:
    m = json.loads(subprocess.run([tessel, "model", name, "--models-dir", models, "--json"],
                                  capture_output=True, text=True, check=True).stdout)
    blocks = [l for l in m["layers"] if l.get("heads", 0) > 0]
    shape[name] = blocks
checked = megatron = titan = folded = titan_etp = 0
for model, hw, gpus, batch, extra in runs:
    p = subprocess.run([tessel, "plan", "--models-dir", models, "--model", model, "--hardware",
                        hw, "--gpus", str(gpus), "--global-batch", str(batch), "--search-top",
                        "0", "--top", "20", "--json"] + extra, capture_output=True, text=True)
    assert p.returncode == 0, (model, extra, p.stderr[-400:])
    j = json.loads(p.stdout)
    plans = [x for x in j["plans"] if x["fits"]]
    assert plans, (model, extra)
    for x in plans:
        checked += 1
        L = x["launch"]
        if L["megatron"] is not None:
            megatron += 1
            a, flags = L["megatron"], {}
            i = 0
            while i < len(a):
                if i + 1 < len(a) and not a[i + 1].startswith("--"):
                    flags[a[i]] = a[i + 1]; i += 2
                else:
                    flags[a[i]] = True; i += 1
            g = lambda k, d=1: int(flags.get(k, d))
            T, P, C = g("--tensor-model-parallel-size"), g("--pipeline-model-parallel-size"), g("--context-parallel-size")
            assert gpus % (T * P * C) == 0, (x["name"], T, P, C)
            DP = gpus // (T * P * C)
            assert DP == x["replicas"], (x["name"], DP, x["replicas"])
            layers = g("--num-layers")
            first, last = g("--decoder-first-pipeline-num-layers", 0), g("--decoder-last-pipeline-num-layers", 0)
            if first or last:
                rest = layers - first - last
                assert P > 2 and rest % (P - 2) == 0, (x["name"], rest)
            elif "--num-layers-per-virtual-pipeline-stage" in flags:
                assert layers % P == 0 and (layers // P) % g("--num-layers-per-virtual-pipeline-stage") == 0, x["name"]
                assert layers // (P * g("--num-layers-per-virtual-pipeline-stage")) == x["virtual_stages"]
            elif "--account-for-embedding-in-pipeline-split" in flags:
                v = g("--num-virtual-stages-per-pipeline-rank")
                assert (layers + 2) % (P * v) == 0 and "--account-for-loss-in-pipeline-split" in flags, x["name"]
            else:
                assert layers % P == 0, (x["name"], layers, P)
            heads = shape[model][0]["heads"]
            assert heads % T == 0 and g("--num-query-groups", heads) % T == 0, x["name"]
            if "--num-experts" in flags:
                # Megatron-Core's expert groups: expert tensor x expert model parallelism
                # divides T x CP x DP (megatron/core/parallel_state.py, initialize_model_parallel);
                # the expert tensor parallelism always written, the one asked for
                E, ETP = g("--expert-model-parallel-size"), g("--expert-tensor-parallel-size", 0)
                assert ETP > 0, (x["name"], "no --expert-tensor-parallel-size")
                assert g("--num-experts") % E == 0 and (T * DP * C) % (E * ETP) == 0, (
                    x["name"], E, ETP, T, DP, C)
                want = extra[extra.index("--expert-tensor-parallel") + 1] \
                    if "--expert-tensor-parallel" in extra else T
                assert ETP == int(want) == x["expert_tensor_parallel"], (x["name"], ETP, want)
                assert ("-et%d-" % ETP in x["name"]) == (ETP != T), x["name"]
                folded += ETP != T and (DP * C) % E != 0
            assert batch % (g("--micro-batch-size") * DP) == 0, x["name"]
            assert g("--global-batch-size") == batch
            assert C == 1 or g("--seq-length") % (2 * C) == 0, x["name"]
            # Megatron-Core's --cp-comm-type choices; the one asked for
            ag = "allgather" in extra
            assert C == 1 or flags["--cp-comm-type"] == ("all_gather" if ag else "p2p"), x["name"]
            assert "--sequence-parallel" not in flags or T > 1, x["name"]
            # --tp-comm-overlap exactly where the plan costs it (asked for), and only with
            # sequence parallelism, which Megatron-LM's validate_args asserts
            tpo = "--tp-comm-overlap" in extra
            assert x["tp_comm_overlap"] == tpo and x["name"].endswith("-tpo") == tpo, x["name"]
            assert ("--tp-comm-overlap" in flags) == tpo, x["name"]
            assert not tpo or ("--sequence-parallel" in flags and T > 1), x["name"]
            # Megatron-LM's --fp8-recipe choices (tensorwise: current scaling; delayed, its
            # default, left out), only with --fp8-format
            fp8 = "fp8" in extra
            assert ("--fp8-format" in flags) == fp8, x["name"]
            want = "tensorwise" if "current" in extra else None
            assert flags.get("--fp8-recipe") == want, (x["name"], flags.get("--fp8-recipe"))
            # Megatron-Core's --attention-backend choices: the kernel asked for, else the
            # profile's (fused on Hopper, unfused on A100)
            kernel = extra[extra.index("--attention") + 1] if "--attention" in extra else None
            backend = {"fa2": "flash", "fused": "fused", "unfused": "unfused"}.get(
                kernel, "fused" if hw != "a100-80gb" else "unfused")
            assert flags["--attention-backend"] == backend, (x["name"], flags["--attention-backend"])
            assert not ("--use-torch-fsdp2" in flags and "--use-distributed-optimizer" in flags)
            assert "--use-torch-fsdp2" not in flags or P == 1, x["name"]
            if flags.get("--recompute-method") == "block":
                assert g("--recompute-num-layers") < layers // (P * x["virtual_stages"]), x["name"]
        else:
            assert L["megatron_why"], x["name"]
        # llm-foundry's Triton kernel: Megatron-LM has no backend that runs it
        assert "triton" not in extra or (L["megatron"] is None and "Triton" in L["megatron_why"]), x["name"]
        if L["torchtitan"] is not None:
            titan += 1
            par = L["torchtitan"]["parallelism"]
            prod = 1
            for k in ("data_parallel_replicate_degree", "data_parallel_shard_degree",
                      "tensor_parallel_degree", "pipeline_parallel_degree",
                      "context_parallel_degree"):
                prod *= par[k]
            assert prod == gpus, (x["name"], par)
            assert par["pipeline_parallel_schedule"] in SCHEDULES, par
            # torchtitan's expert tensor parallelism, set for every MoE model (its default is
            # 1): the plan's, and with expert parallelism 1 or T only (torchtitan/distributed/
            # parallel_dims.py, ParallelDims.__post_init__)
            if any(l.get("experts", 0) for l in shape[model]):
                etp = par["expert_tensor_parallel_degree"]
                assert etp == x["expert_tensor_parallel"], (x["name"], par)
                assert par["expert_parallel_degree"] == 1 or etp in (1, par["tensor_parallel_degree"]), par
                titan_etp += etp != par["tensor_parallel_degree"]
            else:
                assert "expert_tensor_parallel_degree" not in par, (x["name"], par)
            if par["context_parallel_degree"] > 1:
                want = "allgather" if "allgather" in extra else "alltoall"
                assert par["context_parallel_rotate_method"] == want, (x["name"], par)
            tr = L["torchtitan"]["training"]
            assert tr["local_batch_size"] % par["pipeline_parallel_microbatch_size"] == 0, x["name"]
            assert tr["global_batch_size"] == batch
        else:
            assert L["torchtitan_why"], x["name"]
        if j["framework"] == "megatron":
            assert L["megatron"] is not None, x["name"]
print("checked %d plans: %d Megatron-LM argument lists, %d torchtitan configurations; %d "
      "Megatron-LM and %d torchtitan launches with expert tensor parallelism other than T" % (
          checked, megatron, titan, folded, titan_etp))
assert megatron > 0 and titan > 0 and folded > 0 and titan_etp > 0
