/* What the runtime's unit tests share: a schedule fixture of tests/fixtures, loaded or the test
 * fails naming why. Include after cmocka.h. */
#ifndef RT_TESTUTIL_H
#define RT_TESTUTIL_H

#include <stdio.h>
#include "ts_schedule.h"

static inline ts_schedule *rt_test_load(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/fixtures/%s", TS_TEST_DATA, name);
    ts_schedule *s = NULL;
    ts_err e = {0};
    int rc = ts_schedule_load(path, &s, &e);
    if (rc != TS_OK)
        fprintf(stderr, "%s\n", e.msg);
    assert_int_equal(rc, TS_OK);
    return s;
}

#endif
