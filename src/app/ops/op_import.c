/* The import operation: its option table, its request and its run (ts_op_export.h), so that
 * `tessel import` and tessel.import_schedule read a schedule another tool wrote the same way. */
#include <string.h>
#include "ts_op_export.h"
#include "ts_pytessel.h"
#include "ts_pytorch.h"

#define TS_OP_IMPORT_NO_SERVE                                                                      \
    "the explorer has no import route: `tessel import` writes a tessel-schedule/1 file, which "    \
    "the page loads"

static const ts_op_option ts_op_import_opts[] = {
    {"input", "path", NULL, 0, TS_OPV_TEXT, 0, 0, "FILE",
     "the schedule another tool wrote (the Python Tessel's saved schedule, or PyTorch's CSV)",
     TS_FRONT_PY,
     "the command line takes it as its first argument, PY_SCHED; " TS_OP_IMPORT_NO_SERVE},
    {"format", NULL, "format", 0, TS_OPV_TEXT, 0, 0, "FORMAT",
     "python (the default: {ndevs, blocks: [{mid, span, memory, btype, gid, step, device}], "
     "repetend}) or pytorch (torch.distributed.pipelining's compute-only CSV, as `tessel export "
     "--pytorch` writes it: each rank's actions in the file's order, each as early as its inputs "
     "allow)",
     TS_FRONT_CLI | TS_FRONT_PY, TS_OP_IMPORT_NO_SERVE},
    {"pytorch", NULL, "pytorch", 0, TS_OPV_FLAG, 0, 0, NULL, "--format pytorch", TS_FRONT_CLI,
     "the command line's shorthand; Python says format=\"pytorch\"; " TS_OP_IMPORT_NO_SERVE},
    {"placement_file", NULL, "placement-file", 0, TS_OPV_TEXT, 0, 0, "FILE",
     "the placement file (as the PLACEMENT argument)", TS_FRONT_CLI,
     "Python passes a Placement; " TS_OP_IMPORT_NO_SERVE},
    {"memory", NULL, "memory", 0, TS_OPV_INT, 0, TS_MAX_MEMORY, "M",
     "record (and check) a per-device capacity M", TS_FRONT_CLI | TS_FRONT_PY,
     TS_OP_IMPORT_NO_SERVE},
    {"micro_batches", "n", "micro-batches", 'n', TS_OPV_INT, 1, 1000000, "N",
     "the reference's unroll at exactly N micro-batches (python only: a CSV's micro-batch "
     "indices set it)",
     TS_FRONT_CLI | TS_FRONT_PY, TS_OP_IMPORT_NO_SERVE},
    {"output", NULL, "output", 'o', TS_OPV_TEXT, 0, 0, "SCHED", "write to SCHED instead of stdout",
     TS_FRONT_CLI,
     "Python returns a Schedule (its save() writes the file); " TS_OP_IMPORT_NO_SERVE},
};

const ts_op ts_op_import = {"import",
                            "a schedule another tool wrote (the Python Tessel, PyTorch "
                            "pipelining), matched to a placement and validated",
                            TS_OP_ON_PLACEMENT,
                            "import",
                            "import_schedule",
                            NULL,
                            NULL,
                            ts_op_import_opts,
                            (int)(sizeof ts_op_import_opts / sizeof ts_op_import_opts[0])};

int ts_op_import_read(json_t *req, ts_front f, ts_op_import_req *r, ts_err *e)
{
    const ts_op_option *fo = ts_op_option_find(&ts_op_import, "format");
    bool given, pytorch = false;
    double memory = 0;
    memset(r, 0, sizeof *r);
    if (ts_op_read_text(&ts_op_import, "input", req, f, &r->file, &given, e) ||
        ts_op_read_text(&ts_op_import, "format", req, f, &r->format, &given, e) ||
        ts_op_read_flag(&ts_op_import, "pytorch", req, f, &pytorch, e) ||
        ts_op_read_text(&ts_op_import, "placement_file", req, f, &r->placement_file, &given, e) ||
        ts_op_read_num(&ts_op_import, "memory", req, f, &memory, &r->has_memory, e) ||
        ts_op_read_int(&ts_op_import, "micro_batches", req, f, &r->n, e) ||
        ts_op_read_text(&ts_op_import, "output", req, f, &r->output, &given, e))
        return TS_EINPUT;
    r->memory = (long)memory;
    if (pytorch && r->format && strcmp(r->format, "pytorch"))
        return ts_op_refuse(fo, f, e, "and --pytorch: choose one format");
    if (pytorch)
        r->format = "pytorch";
    if (!r->format)
        r->format = "python";
    if (strcmp(r->format, "python") && strcmp(r->format, "pytorch"))
        return ts_op_refuse(fo, f, e, "'%s' is not a format: python or pytorch", r->format);
    if (!strcmp(r->format, "pytorch") && r->n)
        return ts_op_refuse(ts_op_option_find(&ts_op_import, "micro_batches"), f, e,
                            "does not apply to the pytorch format (the file's micro-batch "
                            "indices set it)");
    return TS_OK;
}

int ts_op_import_run(const ts_op_import_req *r, const ts_placement *p, ts_schedule **out, ts_err *e)
{
    *out = NULL;
    if (!r->file)
        return ts_fail(e, TS_EINPUT, "import: missing the file to read");
    if (!strcmp(r->format, "pytorch")) {
        int rc = ts_pytorch_load(r->file, p, out, e);
        if (rc == TS_OK && r->has_memory)
            ts_schedule_set_uniform_memory(*out, r->memory);
        return rc;
    }
    ts_pyimport_opts io = {.nmicros = r->n, .has_memory = r->has_memory, .memory = r->memory};
    return ts_pyimport_read(r->file, p, &io, out, e);
}
