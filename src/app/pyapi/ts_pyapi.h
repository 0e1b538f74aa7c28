/* The flat C interface of libtessel, the shared library the Python package `tessel` loads with
 * ctypes: one call takes an operation name and a JSON request and gives back a JSON reply, so
 * that the package needs no C type but a string, an int and two hooks. Each operation calls the
 * same library functions as the command's subcommand of that name and answers with the same
 * figures (the keys of its --json output); a failure gives the command line's one-line message.
 * Nothing here is global: every call owns what it allocates, and its hooks are its own. */
#ifndef TS_PYAPI_H
#define TS_PYAPI_H

/* The library is built with hidden symbols; these are its interface. */
#define TS_PY_API __attribute__((visibility("default")))

/* Per call; every member may be NULL. */
typedef struct {
    /* A search's progress (phase name, candidates tried and to try (0: unknown), best bubbles
     * (-1: none yet), seconds so far), at most every 0.2 s, on the calling thread. */
    void (*progress)(void *ud, const char *phase, long tried, long total, long best_bubbles,
                     double elapsed);
    void *progress_ud;
    /* Another thread sets *cancel to non-zero to stop a search: it returns at its next check of
     * the time limit, and the call answers TS_PY_CANCELLED. */
    const volatile int *cancel;
} ts_py_hooks;

/* The status of a call that was cancelled (the others are the command line's exit codes: 0
 * success, 1 no answer, 2 bad usage or input, 3 a system failure). */
#define TS_PY_CANCELLED 4

/* Runs operation op (see ts_py_ops in pyapi.c: "placement", "bound", "search", ...) on request, a
 * JSON object. Returns the status; *out gets a string for ts_py_free: the reply (a JSON object)
 * when the status is 0, else the one-line message "tessel CMD: ..." of the command line. */
TS_PY_API int ts_py_call(const char *op, const char *request, const ts_py_hooks *hooks, char **out);
TS_PY_API void ts_py_free(char *s);
/* The library's version, e.g. "0.1.0". */
TS_PY_API const char *ts_py_version(void);

#endif
