#include <stdarg.h>
#include <stdio.h>
#include "ts_error.h"

int ts_fail(ts_err *e, int code, const char *fmt, ...)
{
    if (!e || e->code != TS_OK)
        return code;
    e->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    return code;
}

void ts_err_clear(ts_err *e)
{
    if (!e)
        return;
    e->code = TS_OK;
    e->msg[0] = '\0';
}
