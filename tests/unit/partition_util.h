/* Shared by the test_partition_*.c suites (models/partition.c): sizes, the check macros, seeded
 * random helpers, output sentinels, and a random tiling of the rows. */
#ifndef XMPIR_TESTS_UNIT_PARTITION_UTIL_H
#define XMPIR_TESTS_UNIT_PARTITION_UTIL_H

#include <check.h>
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../../models/partition.h"
#include "rng.h"

#define MAXT 16            /* processes in the tiling and fill cases */
#define SENT 0x5A5A5A5A    /* output sentinel: a value no partition here produces */

/* Check records every passing ck_assert with a write to its runner pipe, which is slower
 * than the partitions themselves in the long loops here: call Check only on a failure. */
#define REQUIRE(cond, ...)                                                               \
    do {                                                                                 \
        if (!(cond)) ck_abort_msg(__VA_ARGS__);                                          \
    } while (0)
#define REQUIRE_EQ(got, want)                                                            \
    do {                                                                                 \
        long long got_ = (got), want_ = (want);                                          \
        REQUIRE(got_ == want_, "%s is %lld, want %lld", #got, got_, want_);              \
    } while (0)

/* An int in [0, n). */
static inline int rnd(uint64_t *s, int n)
{
    return (int)(rng_next(s) % (uint64_t)n);
}

static inline void shuffle(uint64_t *s, int *v, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = rnd(s, i + 1), t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
}

static inline void sort_ints(int *v, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            int t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
}

/* n + 1 entries, so that a write one past nprocs shows too. */
static inline void sentinel(int *c, int *d, int n)
{
    for (int i = 0; i <= n; i++) {
        c[i] = SENT - i;
        d[i] = SENT + i;
    }
}

static inline void assert_sentinel(const int *c, const int *d, int n, const char *tag)
{
    for (int i = 0; i <= n; i++)
        REQUIRE(c[i] == SENT - i && d[i] == SENT + i,
                      "%s: output %d changed to count %d displ %d", tag, i, c[i], d[i]);
}

/* "rank R" in msg, not as the prefix of a longer number. */
static inline int names_rank(const char *msg, int r)
{
    char pat[32];
    snprintf(pat, sizeof pat, "rank %d", r);
    size_t n = strlen(pat);
    for (const char *p = strstr(msg, pat); p; p = strstr(p + 1, pat))
        if (!isdigit((unsigned char)p[n])) return 1;
    return 0;
}

/* A random tiling of [0, size) by n blocks laid out in a random rank order; empty blocks
 * either at their cut or anywhere in [0, size]. */
static inline void random_tiling(uint64_t *s, int size, int n, int *c, int *d)
{
    int cut[MAXT + 1], perm[MAXT];
    cut[0] = 0;
    cut[n] = size;
    for (int i = 1; i < n; i++) cut[i] = rnd(s, size + 1);
    sort_ints(cut + 1, n - 1);
    for (int i = 0; i < n; i++) perm[i] = i;
    shuffle(s, perm, n);
    for (int k = 0; k < n; k++) {
        int r = perm[k];
        c[r] = cut[k + 1] - cut[k];
        d[r] = cut[k];
        if (c[r] == 0 && rnd(s, 2)) d[r] = rnd(s, size + 1);
    }
}

#endif
