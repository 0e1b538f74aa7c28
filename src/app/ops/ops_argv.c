/* A request as command-line arguments (the inverse of the command line's parse): what a front end
 * that runs `tessel` as a worker (a sweep's points) sends, from the operation's own table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ts_ops.h"

/* One field's value as the command line writes it (buf holds numbers; a text is borrowed). */
static const char *ts_op_arg_text(const ts_op_option *o, json_t *v, char *buf, size_t len)
{
    if (json_is_string(v))
        return json_string_value(v);
    if (json_is_integer(v))
        snprintf(buf, len, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v) && o->type == TS_OPV_INT)
        snprintf(buf, len, "%.0f", json_real_value(v));
    else if (json_is_real(v))
        snprintf(buf, len, "%.17g", json_real_value(v));
    else if (json_is_array(v)) {
        /* names or capacities, separated by commas */
        size_t at = 0, i;
        json_t *x;
        buf[0] = '\0';
        json_array_foreach(v, i, x)
        {
            char one[64];
            const char *t = ts_op_arg_text(o, x, one, sizeof one);
            at += (size_t)snprintf(buf + at, at < len ? len - at : 0, "%s%s", i ? "," : "",
                                   t ? t : "");
        }
        if (at >= len)
            return NULL;
    } else
        return NULL;
    return buf;
}

int ts_op_argv(const ts_op *op, json_t *req, char ***out, ts_err *e)
{
    size_t n = json_object_size(req), k = 0;
    char **argv = calloc(2 * n + 1, sizeof *argv);
    const char *key;
    json_t *v;
    *out = NULL;
    if (!argv)
        return ts_fail(e, TS_ESYS, "out of memory");
    json_object_foreach(req, key, v)
    {
        const ts_op_option *o = ts_op_option_find(op, key);
        char buf[4096], flag[96];
        if (!o || !o->flag || !(o->fronts & TS_FRONT_CLI) || o->type == TS_OPV_HOOK) {
            ts_op_argv_free(argv);
            return ts_fail(e, TS_EINPUT, "'%s' is not an option of `tessel %s`", key, op->cli);
        }
        if (o->type == TS_OPV_FLAG && !json_is_true(v))
            continue;
        snprintf(flag, sizeof flag, "--%s", o->flag);
        const char *text = o->type == TS_OPV_FLAG ? "" : ts_op_arg_text(o, v, buf, sizeof buf);
        if (!text || !(argv[k++] = strdup(flag)) ||
            (o->type != TS_OPV_FLAG && !(argv[k++] = strdup(text)))) {
            ts_op_argv_free(argv);
            return ts_fail(e, text ? TS_ESYS : TS_EINPUT, "%s: %s", key,
                           text ? "out of memory" : "not a value the command line takes");
        }
    }
    *out = argv;
    return TS_OK;
}

void ts_op_argv_free(char **argv)
{
    for (size_t i = 0; argv && argv[i]; i++)
        free(argv[i]);
    free(argv);
}
