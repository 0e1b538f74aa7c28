/* The dispatcher of the Python interface: the table of operations (each with the subcommand
 * whose messages it speaks), the call that parses a request, runs one and writes its reply. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pyapi_internal.h"

typedef struct {
    const char *op;
    /* the subcommand whose one-line messages the operation gives: "tessel CMD: ..." */
    const char *cmd;
    ts_py_op_fn run;
} ts_py_op;

static const ts_py_op ts_py_ops[] = {
    {"placement", "placement", ts_py_op_placement},
    {"placements", "placements", ts_py_op_placements},
    {"bound", "bound", ts_py_op_bound},
    {"search", "search", ts_py_op_search},
    {"baseline", "baseline", ts_py_op_baseline},
    {"compare", "compare", ts_py_op_compare},
    {"summary", "simulate", ts_py_op_summary},
    {"validate", "validate", ts_py_op_validate},
    {"simulate", "simulate", ts_py_op_simulate},
    {"export", "export", ts_py_op_export},
    {"import_pytorch", "import", ts_py_op_import_pytorch},
    {"render", "render", ts_py_op_render},
    {"show", "show", ts_py_op_show},
    {"trace", "trace", ts_py_op_trace},
    {"model", "model", ts_py_op_model},
    {"placement_from_model", "placement", ts_py_op_placement_model},
    {"plan", "plan", ts_py_op_plan},
    {"ops", "python", ts_py_op_ops},
};
#define TS_PY_NOPS (int)(sizeof ts_py_ops / sizeof ts_py_ops[0])

/* "tessel CMD: msg" with every control character written \xNN, as the command line writes them:
 * a message that quotes the caller's value stays one line. */
static char *ts_py_message(const char *cmd, const char *msg)
{
    size_t len = strlen(cmd) + 4 * strlen(msg) + 16;
    char *out = malloc(len);
    if (!out)
        return NULL;
    size_t at = (size_t)snprintf(out, len, "tessel %s: ", cmd);
    for (const unsigned char *c = (const unsigned char *)msg; *c; c++)
        at += (size_t)(*c < 0x20 || *c == 0x7f ? snprintf(out + at, len - at, "\\x%02x", *c)
                                               : snprintf(out + at, len - at, "%c", *c));
    return out;
}

/* The reply string: the message line, or the reply object as compact JSON. */
static int ts_py_reply(int rc, const char *cmd, json_t *reply, const ts_err *e, char **out)
{
    if (rc == 0) {
        *out = json_dumps(reply, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
        json_decref(reply);
        if (*out)
            return 0;
        rc = TS_ESYS;
    }
    const char *msg = e->msg[0] ? e->msg : "failed";
    if (rc == TS_ESYS && !e->msg[0])
        msg = "out of memory";
    *out = ts_py_message(cmd, msg);
    return rc;
}

int ts_py_call(const char *op, const char *request, const ts_py_hooks *hooks, char **out)
{
    static const ts_py_hooks none = {0};
    ts_err e = {0};
    *out = NULL;
    const ts_py_op *o = NULL;
    for (int i = 0; op && i < TS_PY_NOPS; i++)
        if (!strcmp(op, ts_py_ops[i].op))
            o = &ts_py_ops[i];
    if (!o) {
        ts_py_fail(&e, TS_EINPUT, "unknown operation '%s'", op ? op : "(null)");
        return ts_py_reply(TS_EINPUT, "python", NULL, &e, out);
    }
    json_t *req = NULL;
    if (ts_json_parse(request ? request : "", request ? strlen(request) : 0, "request", &req, &e))
        return ts_py_reply(TS_EINPUT, o->cmd, NULL, &e, out);
    if (!json_is_object(req)) {
        ts_py_fail(&e, TS_EINPUT, "request: expected an object, got %s", ts_jtype(req));
        json_decref(req);
        return ts_py_reply(TS_EINPUT, o->cmd, NULL, &e, out);
    }
    json_t *reply = NULL;
    const ts_py_hooks *h = hooks ? hooks : &none;
    int rc = o->run(req, h, &reply, &e);
    json_decref(req);
    /* A cancelled search answers with what it had, or with no answer: either way, cancelled. */
    if ((rc == 0 || rc == TS_ENOANSWER) && h->cancel && *h->cancel) {
        json_decref(reply);
        rc = ts_py_fail(&e, TS_PY_CANCELLED, "cancelled");
    } else if (rc == 0 && !reply) {
        rc = ts_py_fail(&e, TS_ESYS, "out of memory");
    }
    return ts_py_reply(rc, o->cmd, rc == 0 ? reply : NULL, &e, out);
}

void ts_py_free(char *s)
{
    free(s);
}

const char *ts_py_version(void)
{
    return TS_PY_VERSION;
}
