/* A sweep point's search options: the "options" object of a grid or point, checked by the search's
 * own table (ts_op_sweep.h) and turned into the flags `tessel search` takes (ts_op_argv), so
 * that any option of the search reaches a sweep without a line here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sweep.h"
#include "ts_op_sweep.h"

int ts_sweep_options_check(json_t *options, const char *where, ts_err *e)
{
    ts_err oe = {0};
    if (ts_op_sweep_options(options, &oe))
        return ts_fail(e, TS_EINPUT, "%s.options: %s", where, oe.msg);
    return TS_OK;
}

int ts_sweep_options_apply(json_t *options, ts_sweep_point *p, const char *where, ts_err *e)
{
    ts_err oe = {0};
    if (!options || !json_object_size(options))
        return TS_OK;
    if (ts_op_argv(ts_op_sweep_search(), options, &p->options_argv, &oe))
        return ts_fail(e, oe.code, "%s.options: %s", where, oe.msg);
    p->options = json_incref(options);
    return TS_OK;
}

void ts_sweep_options_id(const ts_sweep_point *p, char *buf, size_t len)
{
    buf[0] = '\0';
    if (!p->options)
        return;
    /* the options in one order whatever the file's, so that an id names the same search */
    char *text = json_dumps(p->options, JSON_COMPACT | JSON_SORT_KEYS);
    unsigned long h = 2166136261UL;
    for (const unsigned char *c = (const unsigned char *)(text ? text : ""); *c; c++)
        h = ((h ^ *c) * 16777619UL) & 0xffffffffUL;
    free(text);
    snprintf(buf, len, "-o%08lx", h);
}

bool ts_sweep_options_same(const ts_sweep_point *a, const ts_sweep_point *b)
{
    return (!a->options && !b->options) ||
           (a->options && b->options && json_equal(a->options, b->options));
}

void ts_sweep_options_free(ts_sweep_point *p)
{
    json_decref(p->options);
    ts_op_argv_free(p->options_argv);
    p->options = NULL;
    p->options_argv = NULL;
}
