/* libFuzzer target: the sweep-spec reader and checker of `tessel sweep` (ts_sweep_spec_load), which
 * must turn any file into either a list of uniquely named points or one clear message. */
#include "fuzz_util.h"
#include "sweep.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[4096];
    if (fz_write_temp(data, size, path, sizeof path))
        return 0;
    ts_sweep_spec *sp = NULL;
    ts_err e = {0};
    int rc = ts_sweep_spec_load(path, &sp, &e);
    unlink(path);
    fz_check_message(&e);
    if (rc == TS_OK) {
        for (int i = 0; i < sp->npoints && sp->npoints <= 4096; i++)
            for (int j = 0; j < i; j++)
                if (!strcmp(sp->points[i].id, sp->points[j].id)) {
                    fprintf(stderr, "fuzz invariant: two sweep points named %s\n",
                            sp->points[i].id);
                    abort();
                }
        ts_sweep_spec_free(sp);
    }
    return 0;
}
