/* The CUDA backend's entry points that need MPI (device binding and NCCL communicators). Built
 * only with TS_HAVE_CUDA. */
#ifndef TS_RT_CUDA_H
#define TS_RT_CUDA_H

#include <mpi.h>
#include "rt_backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Binds this rank to GPU (local rank mod GPUs on its node). When a node has more ranks than
 * GPUs, NCCL cannot be used (it refuses two ranks on one GPU): rank 0 warns once and collectives
 * are staged through host memory and MPI. */
int ts_rt_cuda_backend_for_rank(MPI_Comm world, ts_rt_backend **out, ts_err *e);
/* Creates one NCCL communicator per device group, over the MPI communicators of the groups
 * (MPI_COMM_NULL where this rank is not a member). Collective over the world, groups in order.
 * Does nothing when the backend stages collectives through MPI. */
int ts_rt_cuda_setup_groups(ts_rt_backend *b, MPI_Comm world, int ngroups,
                            const MPI_Comm *group_comms, ts_err *e);

#ifdef __cplusplus
}
#endif

#endif
