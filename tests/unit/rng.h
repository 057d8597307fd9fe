/* A fixed-seed generator shared by the suites: reproducible random inputs on every
 * platform, unlike rand(), so a failure seen once can be replayed exactly. */
#ifndef XMPIR_TESTS_UNIT_RNG_H
#define XMPIR_TESTS_UNIT_RNG_H

#include <stdint.h>

#include "../../io/interval.h"

/* splitmix64 */
static inline uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1) with all 53 bits random, so sums exercise rounding. */
static inline double rng_unit(uint64_t *s)
{
    return (double)(rng_next(s) >> 11) * 0x1.0p-53;
}

/* A whole number in [0, n), stored exactly in a double. */
static inline double rng_count(uint64_t *s, uint64_t n)
{
    return (double)(rng_next(s) % n);
}

/* Plausible magnitudes: counts as whole numbers, times as fractions. */
static inline void rng_record(uint64_t *s, struct xmpi_rank_record *r)
{
    r->iterations = 1 + rng_count(s, 1000);
    r->t_real = rng_unit(s) * 50;
    r->t_cpu = rng_unit(s) * 50;
    r->work = rng_count(s, 1000000000000ULL);
    r->work_papi = (double)(rng_next(s) & 1);
    r->comm_time = rng_unit(s) * 10;
    r->comm_bytes = rng_count(s, 1ULL << 40);
    r->elapsed = rng_unit(s) * 3600;
    for (int i = 0; i < XMPIR_OP_COUNT; i++) {
        r->op[i].calls = rng_count(s, 100000);
        r->op[i].bytes = rng_count(s, 1ULL << 36);
        r->op[i].time = rng_unit(s);
        r->op[i].procs = rng_count(s, 1000000);
    }
    for (int i = 0; i < XMPIR_SPARE_SLOTS; i++) r->spare[i] = rng_count(s, 1ULL << 30);
}

#endif
