/* Error reporting shared by every layer: a code and one human-readable message. */
#ifndef TS_ERROR_H
#define TS_ERROR_H

#define TS_ERRLEN 768

/* Exit-code aligned categories: the command line returns these as they are. */
enum {
    TS_OK = 0,
    /* the question has no answer: invalid schedule, infeasible request */
    TS_ENOANSWER = 1,
    /* bad usage or bad input */
    TS_EINPUT = 2,
    /* I/O or allocation failure */
    TS_ESYS = 3
};

typedef struct ts_err {
    int code;
    char msg[TS_ERRLEN];
} ts_err;

/* Records the first failure only: later calls keep the original, more specific message.
 * Returns code so that callers can write `return ts_fail(e, TS_EINPUT, ...)`. e may be NULL. */
int ts_fail(ts_err *e, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void ts_err_clear(ts_err *e);

#endif
