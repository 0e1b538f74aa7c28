/* libFuzzer target: the import of schedules written by the Python Tessel (ts_pyimport_read), against
 * the built-in vshape on 4 devices (the placement of the seed tests/fixtures/pytessel_vshape4.json).
 * Invariant: what the import accepts, the validator accepts too. */
#include "fuzz_util.h"
#include "ts_pytessel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ts_builtin_opts bo = {.ndevs = 4};
    ts_placement *p = NULL;
    ts_err e = {0};
    if (ts_builtin_make("vshape", &bo, &p, &e))
        abort();
    char path[4096];
    if (fz_write_temp(data, size, path, sizeof path)) {
        ts_placement_free(p);
        return 0;
    }
    ts_schedule *s = NULL;
    ts_pyimport_opts po = {0};
    int rc = ts_pyimport_read(path, p, &po, &s, &e);
    unlink(path);
    fz_check_message(&e);
    if (rc == TS_OK) {
        ts_err_clear(&e);
        if (ts_schedule_validate(s, NULL, &e) != TS_OK) {
            fprintf(stderr, "fuzz invariant: an imported schedule is invalid: %s\n", e.msg);
            abort();
        }
        ts_schedule_free(s);
    }
    ts_placement_free(p);
    return 0;
}
