/* PyTorch's torch.distributed.pipelining runs a custom multi-stage schedule from a CSV of compute
 * actions ("compute_only" format): row r lists rank r's actions in the order it runs them, each
 * written [stage index][kind][micro-batch] with kind F (forward), I (backward for the input), W
 * (backward for the weights) or B (full backward), e.g. 0F0,1F0,1I0,1W0,0B0. A placement maps to
 * stages as the pipeline it forms: forward block s of its one chain is stage s; the backward
 * block mirroring it is B, or I when a weight-gradient block hangs off it (that block is W). The
 * rank of a stage is the device its blocks run on. */
#ifndef TS_PYTORCH_H
#define TS_PYTORCH_H

#include "ts_schedule.h"

/* What each block is in PyTorch's terms: stage[b] and kind[b] ('F', 'I', 'W' or 'B'). */
typedef struct {
    int nstages;
    /* per block */
    int *stage;
    /* per block */
    char *kind;
} ts_pytorch_map;

/* TS_EINPUT, naming the block and why, when the format cannot express p: a block on several
 * devices, blocks that do not form one forward-then-backward chain (two chains, as in xshape),
 * or a stage whose forward and backward run on different devices. */
int ts_pytorch_map_make(const ts_placement *p, ts_pytorch_map *m, ts_err *e);
void ts_pytorch_map_free(ts_pytorch_map *m);

/* Writes s as the CSV to path ("-": stdout). Micro-batches are renamed so that the last stage
 * runs its forwards in micro-batch order, as PyTorch's runtime needs (it indexes the losses by
 * the order they were computed in); every instance of a micro-batch gets the same new name. */
int ts_pytorch_save(const ts_schedule *s, const char *path, ts_err *e);

/* Reads the CSV at path for placement p (one row per device): the schedule runs each rank's
 * actions in the file's order, every action as early as that order and its inputs allow. Its
 * micro-batch count is the largest index + 1; every instance must appear exactly once. A full
 * backward B of a stage the placement splits into I and W stands for its I followed by its W. */
int ts_pytorch_load(const char *path, const ts_placement *p, ts_schedule **out, ts_err *e);

#endif
