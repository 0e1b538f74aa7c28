/* ts_clock_now: the monotonic clock behind every time limit and timing report. */
#include "ts_clock.h"

#include <time.h>

double ts_clock_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
