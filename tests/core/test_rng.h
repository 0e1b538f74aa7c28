/* The tests' pseudo-random numbers: one 64-bit linear congruential generator, so that every test
 * drawing random cases draws them the same way (core and solver tests alike). */
#ifndef TS_TEST_RNG_H
#define TS_TEST_RNG_H

#include <stdint.h>

static inline uint64_t rnd(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

/* Uniform in [lo, hi]. */
static inline int rint_(uint64_t *s, int lo, int hi)
{
    return lo + (int)(rnd(s) % (uint64_t)(hi - lo + 1));
}

#endif
