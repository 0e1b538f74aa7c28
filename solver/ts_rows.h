/* The search rows of `tessel compare` and auto's candidates: one request per method, built here
 * for both (rows.c), so that auto is never longer than a row compare prints. */
#ifndef TS_ROWS_H
#define TS_ROWS_H

#include "ts_search_caps.h"
#include "ts_solver.h"

/* The search methods with a row besides auto's own (lazy, fast, full, modulo), in the order auto
 * runs them: i in 0 .. ts_search_row_count() - 1 (every method but auto). */
int ts_search_row_count(void);
ts_method ts_search_row_method(int i);
/* Why method m's row is not run by default on p (static text), or NULL when it is. */
const char *ts_search_row_skip(const ts_placement *p, ts_method m);
/* Method m's row for the request req: its memory (per device too), N, time limit (none: the
 * row default) and effort, every other option at its default. compare's row and auto's
 * candidate for m are this one request. */
void ts_search_row_opts(const ts_search_opts *req, ts_method m, ts_search_opts *row);
/* Runs method m's row of req as compare does: a meter of its own (*spent: its effort units),
 * capped at cap seconds of wall time from now (<= 0: the row's time limit). ts_search's
 * contract otherwise. */
int ts_search_row_run(const ts_placement *p, const ts_search_opts *req, ts_method m, double cap,
                      ts_schedule **out, ts_search_stats *st, double *spent, ts_err *e);

#endif
