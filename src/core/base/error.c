/* ts_err: failing with a formatted message (control characters escaped), and clearing one. */
#include <stdarg.h>
#include <stdio.h>
#include "ts_error.h"

/* Messages quote user strings (block ids, the token near a JSON error); a control character in one
 * would break the one-line message or the terminal, so each is written as \xNN instead. */
static void ts_escape_controls(const char *src, char *dst, size_t cap)
{
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)src; *p && o + 1 < cap; p++) {
        if (*p < 0x20 || *p == 0x7f) {
            if (o + 5 >= cap)
                break;
            o += (size_t)snprintf(dst + o, cap - o, "\\x%02x", *p);
        } else {
            dst[o++] = (char)*p;
        }
    }
    dst[o] = '\0';
}

int ts_fail(ts_err *e, int code, const char *fmt, ...)
{
    if (!e || e->code != TS_OK)
        return code;
    e->code = code;
    char raw[TS_ERRLEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    ts_escape_controls(raw, e->msg, sizeof e->msg);
    return code;
}

void ts_err_clear(ts_err *e)
{
    if (!e)
        return;
    e->code = TS_OK;
    e->msg[0] = '\0';
}
