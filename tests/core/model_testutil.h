/* Helpers shared by the tests of the cost model: a model and a hardware profile of the shipped
 * models folder, loaded or the test fails with the library's message. Include after cmocka.h. */
#ifndef MODEL_TESTUTIL_H
#define MODEL_TESTUTIL_H

#include "ts_model.h"

#define MODELS TS_TEST_DATA "/../models"

static inline ts_model *tu_model_load(const char *name)
{
    char path[512];
    ts_err e = {0};
    ts_model *m = NULL;
    assert_int_equal(ts_model_path(MODELS, name, false, path, sizeof path, &e), TS_OK);
    if (ts_model_load(path, 0, &m, &e))
        fail_msg("%s", e.msg);
    return m;
}

static inline void tu_hw_load(const char *name, ts_hardware *h)
{
    char path[512];
    ts_err e = {0};
    assert_int_equal(ts_model_path(MODELS, name, true, path, sizeof path, &e), TS_OK);
    if (ts_hardware_load(path, h, &e))
        fail_msg("%s", e.msg);
}

#endif
