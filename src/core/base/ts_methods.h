/* The search methods' registry and the default micro-batch count. Header only, no solver type:
 * the command line (search, compare, the sweep spec) reads the names even in a build without
 * Z3, and the solver (solver/search.c) builds its dispatch table from the same list.
 *
 * To add a method: one X(...) line below and a function ts_search_<name> in the solver with the
 * contract of ts_search (solver/ts_solver.h). Nothing else lists method names. */
#ifndef TS_METHODS_H
#define TS_METHODS_H

#include <stddef.h>
#include <string.h>

/* N, the micro-batch count a schedule is summarised at (and full's problem size) unless the
 * caller says otherwise. */
#define TS_DEFAULT_MICRO_BATCHES 128

/* X(ID, name, one-line description). The order is the --help order and the enum order. */
#define TS_SEARCH_METHODS(X)                                                                       \
    X(LAZY, lazy, "offset enumeration, minimum bubbles")                                           \
    X(FAST, fast, "constructed repetend")                                                          \
    X(FULL, full, "all N micro-batches in one problem, minimum makespan")                          \
    X(MODULO, modulo, "modulo schedule: smallest period, then shortest fill and drain")            \
    X(AUTO, auto, "portfolio for the makespan at N: baselines, searches, improvement (default)")

typedef enum {
#define TS_X_METHOD_ID(id, name, doc) TS_METHOD_##id,
    TS_SEARCH_METHODS(TS_X_METHOD_ID)
#undef TS_X_METHOD_ID
        TS_METHOD_COUNT
} ts_method;

static const char *const ts_method_names[TS_METHOD_COUNT] = {
#define TS_X_METHOD_NAME(id, name, doc) #name,
    TS_SEARCH_METHODS(TS_X_METHOD_NAME)
#undef TS_X_METHOD_NAME
};

static const char *const ts_method_docs[TS_METHOD_COUNT] = {
#define TS_X_METHOD_DOC(id, name, doc) doc,
    TS_SEARCH_METHODS(TS_X_METHOD_DOC)
#undef TS_X_METHOD_DOC
};

static inline const char *ts_method_name(ts_method m)
{
    return (int)m >= 0 && m < TS_METHOD_COUNT ? ts_method_names[m] : "unknown";
}

/* 0 and *out set when s names a method, -1 otherwise. */
static inline int ts_method_parse(const char *s, ts_method *out)
{
    for (int i = 0; s && i < TS_METHOD_COUNT; i++)
        if (!strcmp(s, ts_method_names[i])) {
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
        size_t n = strlen(ts_method_names[i]);
        const char *sep = i ? ", " : "";
        if (at + strlen(sep) + n + 1 > len)
            break;
        strcpy(buf + at, sep);
        at += strlen(sep);
        strcpy(buf + at, ts_method_names[i]);
        at += n;
    }
    return buf;
}

#endif
