/* Deterministic values for weights, data and targets: a counter-based hash (splitmix64), so that
 * any rank and the single-process reference produce the same number for the same coordinates
 * without sharing a generator state. */
#ifndef TS_RT_RNG_H
#define TS_RT_RNG_H

#include <stdint.h>

static inline uint64_t ts_rt_mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform in [-1, 1) for coordinates (stream, a, b, i). */
static inline float ts_rt_uniform(uint64_t stream, uint64_t a, uint64_t b, uint64_t i)
{
    uint64_t h = ts_rt_mix64(ts_rt_mix64(ts_rt_mix64(ts_rt_mix64(stream) ^ a) ^ b) ^ i);
    return (float)((double)(h >> 40) / (double)(1ULL << 23) - 1.0);
}

#endif
