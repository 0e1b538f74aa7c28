/* The search methods' registry and the default micro-batch count. Header only, no solver type:
 * the command line (search, compare, the sweep spec) reads the names even in a build without
 * Z3, and the solver (solver/dispatch.c) holds each method's function in a row of the same index.
 *
 * To add a method: an enum entry and a row below, and a function ts_search_<name> in the solver
 * with the contract of ts_search (declared in solver/ts_solver.h, its row in solver/dispatch.c).
 * Nothing else lists method names. */
#ifndef TS_METHODS_H
#define TS_METHODS_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* N, the micro-batch count a schedule is summarised at (and full's problem size) unless the
 * caller says otherwise. */
#define TS_DEFAULT_MICRO_BATCHES 128

/* The methods, in --help order. */
typedef enum {
    TS_METHOD_LAZY,
    TS_METHOD_FAST,
    TS_METHOD_FULL,
    TS_METHOD_MODULO,
    TS_METHOD_AUTO,
    TS_METHOD_COUNT
} ts_method;

/* One row of the registry: the name, the line of help, and whether the method sets k itself
 * (modulo and full: the sweep's nmicros axis does not apply). The function that runs the method
 * is the solver's row of the same index (solver/dispatch.c), since a build without Z3 lists the
 * methods too. */
typedef struct {
    const char *name;
    const char *doc;
    bool fixed_k;
} ts_method_info;

static const ts_method_info ts_methods[TS_METHOD_COUNT] = {
    [TS_METHOD_LAZY] = {"lazy", "offset enumeration, minimum bubbles", false},
    [TS_METHOD_FAST] = {"fast", "constructed repetend", false},
    [TS_METHOD_FULL] = {"full", "all N micro-batches in one problem, minimum makespan", true},
    [TS_METHOD_MODULO] = {"modulo",
                          "modulo schedule: smallest period, then shortest fill and drain", true},
    [TS_METHOD_AUTO] =
        {"auto", "portfolio for the makespan at N: baselines, searches, improvement (default)",
         false},
};

static inline const char *ts_method_name(ts_method m)
{
    return (int)m >= 0 && m < TS_METHOD_COUNT ? ts_methods[m].name : "unknown";
}

/* 0 and *out set when s names a method, -1 otherwise. */
static inline int ts_method_parse(const char *s, ts_method *out)
{
    for (int i = 0; s && i < TS_METHOD_COUNT; i++)
        if (!strcmp(s, ts_methods[i].name)) {
            *out = (ts_method)i;
            return 0;
        }
    return -1;
}

/* "lazy, fast, full, modulo": the names for a message, in buf (returned). */
static inline const char *ts_method_list(char *buf, size_t len)
{
    size_t at = 0;
    if (len)
        buf[0] = '\0';
    for (int i = 0; i < TS_METHOD_COUNT && at < len; i++) {
        size_t n = strlen(ts_methods[i].name);
        const char *sep = i ? ", " : "";
        if (at + strlen(sep) + n + 1 > len)
            break;
        strcpy(buf + at, sep);
        at += strlen(sep);
        strcpy(buf + at, ts_methods[i].name);
        at += n;
    }
    return buf;
}

#endif
