/* The model operations: `model` (a model description's per-layer table: `tessel model NAME`,
 * tessel.model) and `model_placement` (a placement derived from a model on GPUs: `tessel
 * placement --model`, tessel.placement_from_model, the explorer's POST /api/model-placement):
 * their option tables, requests and runs, and where the models come from. */
#ifndef TS_OP_MODEL_H
#define TS_OP_MODEL_H

#include <stddef.h>
#include "ts_model.h"
#include "ts_ops.h"
#include "ts_paths.h"

extern const ts_op ts_op_model;
extern const ts_op ts_op_model_placement;

/* The folder of model descriptions: dir when given, else $TESSEL_MODELS, else the installed one
 * (ts_models_dir: beside the binary or library, written into buf of cap bytes). */
const char *ts_op_models_dir(const char *dir, char *buf, size_t cap);

/* Where a front end keeps its models, when not in a folder (the explorer's are compiled in):
 * loads the model `name` (with seq tokens when seq > 0) into *m, or, when hardware is set, the
 * GPU profile `name` into *h. TS_EINPUT for a name it does not know. */
typedef int (*ts_op_model_loader)(void *ud, const char *name, bool hardware, int seq, ts_model **m,
                                  ts_hardware *h, ts_err *e);

/* Loads model `name` (seq > 0 overrides its sequence length) and, when hw is not NULL, the GPU
 * profile hw, from the folder dir (NULL: ts_op_models_dir's) or through load (when not NULL).
 * On failure nothing is left to free. */
int ts_op_models_load(const char *dir, ts_op_model_loader load, void *ud, const char *name, int seq,
                      const char *hw, ts_model **m, ts_hardware *h, ts_err *e);

/* ---- model: the per-layer table ----------------------------------------------------------- */

typedef struct {
    /* owned: the model's name or file (the subject), the folder (NULL: the default), the GPU
     * profile whose times and memory the table adds (NULL: none) */
    char *name, *dir, *hardware;
    int seq;
    ts_cost_opts co;
} ts_op_model_req;

/* Reads a model request for the model `name`, sent by front f (keys outside the table are the
 * caller's to refuse with ts_op_check_keys). */
int ts_op_model_read(json_t *req, ts_front f, const char *name, ts_op_model_req *r, ts_err *e);
void ts_op_model_req_free(ts_op_model_req *r);

typedef struct {
    /* owned: the model and, when the request names one, the GPU profile */
    ts_model *m;
    ts_hardware h;
    bool has_hw;
    /* owned: `tessel model --json`'s object (ts_results_model_json) */
    json_t *json;
} ts_op_model_res;

int ts_op_model_run(const ts_op_model_req *r, ts_op_model_res *res, ts_err *e);
void ts_op_model_res_free(ts_op_model_res *res);

/* ---- model_placement: a placement derived from a model ------------------------------------- */

typedef struct ts_op_model_placement_req {
    /* owned: the model, the GPU profile, the strategy (o.strategy points at it), the folder */
    char *model, *hardware, *strategy, *dir;
    int seq;
    /* the profile's achievable fraction of peak and workspace, when given (< 0: the profile's) */
    double efficiency, workspace_gb;
    ts_derive_opts o;
    /* the front end that sent it, whose names the run's messages use */
    ts_front front;
    /* the front end's own models (NULL: the folder's) */
    ts_op_model_loader load;
    void *load_ud;
} ts_op_model_placement_req;

/* Reads a model placement request sent by front f: model, hardware, gpus and strategy are
 * required; every other field is checked by its row. */
int ts_op_model_placement_read(json_t *req, ts_front f, ts_op_model_placement_req *r, ts_err *e);
void ts_op_model_placement_req_free(ts_op_model_placement_req *r);

typedef struct {
    /* owned */
    ts_model *m;
    ts_hardware h;
    ts_placement *p;
    ts_derive_info in;
    /* owned: the derivation's summary, what `tessel placement --model -o FILE --json` prints */
    json_t *summary;
} ts_op_model_placement_res;

/* Loads the model and the GPU profile (amended by efficiency and workspace_gb) and derives the
 * placement on r->o.gpus GPUs. Otherwise e says why (TS_ENOANSWER: it does not fit). */
int ts_op_model_placement_run(const ts_op_model_placement_req *r, ts_op_model_placement_res *res,
                              ts_err *e);
void ts_op_model_placement_res_free(ts_op_model_placement_res *res);

#endif
