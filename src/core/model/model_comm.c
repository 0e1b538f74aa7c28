/* The communication costs of the cost model: ring collectives inside a node (NVLink) or across
 * nodes (the network), all-to-alls, point-to-point sends, the bytes ZeRO leaves on a GPU, and
 * what communication beside compute leaves exposed (formulas and sources in models/README.md). */
#include <math.h>
#include "model_internal.h"
#include "ts_model.h"

double ts_hw_link_bw(const ts_hardware *h, int a, int b)
{
    bool same = a / h->gpus_per_node == b / h->gpus_per_node;
    return (same ? h->nvlink_gbs : h->internode_gbs) * 1e9;
}

double ts_hw_allreduce_s(const ts_hardware *h, int first, int T, double n)
{
    if (T <= 1 || n <= 0)
        return 0;
    /* A ring is as fast as its slowest link: NVLink inside one node, the network otherwise. */
    double bw = ts_hw_link_bw(h, first, first + T - 1);
    return 2.0 * (T - 1) / T * n / bw;
}

double ts_hw_group_bw(const ts_hardware *h, int stride, int k)
{
    long span = (long)(stride > 0 ? stride : 1) * (k > 0 ? k : 1);
    /* node-aligned groups: inside one node exactly when the group's span fits in it */
    bool one = span <= h->gpus_per_node;
    if (one)
        return h->nvlink_gbs * 1e9;
    /* Across nodes a ring with m members in each node runs m channels, one through each
     * member's adapter (NCCL's rings over all of a node's NICs): m x the per-GPU network
     * bandwidth crosses each node boundary, at most NVLink's */
    int m = stride < h->gpus_per_node ? h->gpus_per_node / (stride > 0 ? stride : 1) : 1;
    m = m < k ? m : k;
    double bw = m * h->internode_gbs;
    return (bw < h->nvlink_gbs ? bw : h->nvlink_gbs) * 1e9;
}

/* An all-to-all is k - 1 point-to-point exchanges, one with each other member (NCCL runs it as
 * grouped ncclSend/ncclRecv pairs, as PyTorch's all_to_all_single and nccl-tests' alltoall do):
 * every byte has its own destination, so nothing is aggregated the way a ring's channels are.
 * Of a member's n bytes, (k - m) / k go to the other nodes' members through the network, this
 * GPU's share of its node's adapters (with PXN through a rail peer's, the node's total the
 * same), and (m - 1) / k to its own node's over NVLink; both at once, the slower one bounds. */
double ts_hw_alltoall_s(const ts_hardware *h, int stride, int k, double n)
{
    if (k <= 1 || n <= 0)
        return 0;
    int gpn = h->gpus_per_node > 0 ? h->gpus_per_node : 8, st = stride > 0 ? stride : 1;
    long span = (long)st * k;
    /* members of the group in one node, as ts_hw_collective_lat_s counts them */
    int m = span <= gpn ? k : st < gpn ? gpn / st : 1;
    double local = (double)(m - 1) / k * n / (h->nvlink_gbs * 1e9);
    double remote = (double)(k - m) / k * n / (h->internode_gbs * 1e9);
    return local > remote ? local : remote;
}

double ts_hw_collective_s(const ts_hardware *h, ts_collective kind, int stride, int k, double n)
{
    if (k <= 1 || n <= 0)
        return 0;
    /* a ring all-reduce is a reduce-scatter and an all-gather, each (k - 1)/k of the bytes */
    double steps = kind == TS_COLL_ALLREDUCE ? 2.0 : 1.0;
    return steps * (k - 1) / k * n / ts_hw_group_bw(h, stride, k);
}

/* NCCL's own latency model (its tuning model, src/graph/tuning.cc, for the ring algorithm with
 * the Simple protocol that large messages take): 8.4 us per collective, and per ring step 3.4 us
 * over NVLink or 9.6 us over the network. A ring all-gather or reduce-scatter of k GPUs takes
 * k - 1 steps, an all-reduce twice as many; of them (nodes - 1) (twice for an all-reduce) cross
 * the network. */
#define TS_NCCL_BASE_US 8.4
#define TS_NCCL_NVLINK_STEP_US 3.4
#define TS_NCCL_NET_STEP_US 9.6

double ts_hw_collective_lat_s(const ts_hardware *h, ts_collective kind, int stride, int k)
{
    if (k <= 1)
        return 0;
    int gpn = h->gpus_per_node > 0 ? h->gpus_per_node : 8;
    long span = (long)(stride > 0 ? stride : 1) * k;
    /* members of the group in one node, and the nodes it spans */
    int m = span <= gpn ? k : stride < gpn ? gpn / (stride > 0 ? stride : 1) : 1;
    int nodes = (k + m - 1) / m;
    double twice = kind == TS_COLL_ALLREDUCE ? 2 : 1;
    double steps = twice * (k - 1), net = twice * (nodes - 1);
    return (TS_NCCL_BASE_US + (steps - net) * TS_NCCL_NVLINK_STEP_US + net * TS_NCCL_NET_STEP_US) *
           1e-6;
}

double ts_hw_p2p_s(const ts_hardware *h, int a, int b, double n)
{
    return a == b || n <= 0 ? 0 : n / ts_hw_link_bw(h, a, b);
}

double ts_zero_bytes_per_param(int zero, int dp)
{
    double k = dp > 1 ? dp : 1;
    switch (zero) {
    case 1: return 4 + 12 / k;
    case 2: return 2 + 14 / k;
    case 3: return 16 / k;
    default: return TS_BYTES_PER_PARAM_TRAIN;
    }
}

/* Communication c running beside compute w: what is not hidden, and the slowdown the compute
 * suffers while they share the GPU (SMs and HBM taken by the collective's kernels): 18.9 %,
 * the average Lee et al. measured on A100, H100, MI250 and MI210 for GPT and Llama layers
 * ("Characterizing Compute-Communication Overlap in GPU-Accelerated Distributed Deep Learning:
 * Performance and Power Implications", 2025, abstract and section 5), on the time they
 * overlap. */
#define TS_OVERLAP_SLOWDOWN 0.189
double ts_plan_overlap(double c, double w)
{
    return fmax(0, c - w) + TS_OVERLAP_SLOWDOWN * fmin(c, fmax(0, w));
}
