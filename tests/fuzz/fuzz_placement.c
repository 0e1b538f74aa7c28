/* libFuzzer target: the placement loader and structural checker, then the analyses every command
 * runs on a loaded placement (topological order, lower bound). */
#include "fuzz_util.h"
#include "ts_bound.h"
#include "ts_placement.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[4096];
    if (fz_write_temp(data, size, path, sizeof path))
        return 0;
    ts_placement *p = NULL;
    ts_err e = {0};
    int rc = ts_placement_load(path, &p, &e);
    unlink(path);
    fz_check_message(&e);
    if (rc)
        return 0;
    ts_err_clear(&e);
    if (ts_placement_check(p, "fuzz", &e) == TS_OK) {
        int *order = malloc((size_t)p->nblocks * sizeof *order);
        if (order && ts_placement_topo(p, order) < 0) {
            fprintf(stderr, "fuzz invariant: a checked placement has a cycle\n");
            abort();
        }
        free(order);
        if (ts_lower_bound(p, 128) < 0) {
            fprintf(stderr, "fuzz invariant: negative lower bound\n");
            abort();
        }
    }
    fz_check_message(&e);
    ts_placement_free(p);
    return 0;
}
