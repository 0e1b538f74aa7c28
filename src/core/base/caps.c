/* Capacities per device: their largest, and their text as a user writes them. */
#include "ts_caps.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

long ts_caps_max(const long *cap, int ndevs)
{
    long m = 0;
    for (int d = 0; d < ndevs; d++)
        if (cap[d] > m)
            m = cap[d];
    return m;
}

const char *ts_caps_text(const long *cap, int ndevs, char *buf, size_t len)
{
    bool uniform = true;
    for (int d = 1; cap && d < ndevs; d++)
        uniform = uniform && cap[d] == cap[0];
    if (!cap || ndevs < 1 || uniform)
        return snprintf(buf, len, cap && ndevs > 0 ? "%ld" : "none", cap ? cap[0] : 0), buf;
    size_t at = 0;
    for (int d = 0; d < ndevs; d++) {
        char item[24];
        int w = snprintf(item, sizeof item, "%s%ld", d ? "," : "", cap[d]);
        /* room for this item and, when more follow, for ",..." */
        if (at + (size_t)w + (d + 1 < ndevs ? 4 : 0) >= len) {
            snprintf(buf + at, len - at, "%s", at + 4 < len ? ",..." : "");
            break;
        }
        memcpy(buf + at, item, (size_t)w + 1);
        at += (size_t)w;
    }
    return buf;
}
