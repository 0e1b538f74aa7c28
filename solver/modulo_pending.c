/* Placeholder until the modulo search (solver/modulo.c) lands; that change deletes this file. */
#include "ts_solver.h"

int ts_search_modulo(const ts_placement *p, const ts_search_opts *o, ts_schedule **out,
                     ts_search_stats *st, ts_err *e)
{
    (void)p;
    (void)o;
    (void)out;
    (void)st;
    return ts_fail(e, TS_EINPUT, "modulo search is not built yet");
}
