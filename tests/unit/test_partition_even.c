/* models/partition.c, even blocks: counts that differ by at most one, in non-increasing
 * order, add up to the size and sit back to back, on a grid of sizes and process counts and
 * near INT_MAX. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

#include "partition_util.h"
#include "suites.h"

/* Non-increasing counts that differ by at most one and add up to size determine the
 * partition; the reference sums are in long long so that size near INT_MAX is safe. */
static void check_even(int size, int nprocs)
{
    int *c = malloc(sizeof *c * ((size_t)nprocs + 1)), *d = malloc(sizeof *d * ((size_t)nprocs + 1));
    ck_assert(c && d);
    sentinel(c, d, nprocs);
    xmpi_part_even(size, nprocs, c, d);
    REQUIRE(c[nprocs] == SENT - nprocs && d[nprocs] == SENT + nprocs,
                  "size %d nprocs %d: wrote past nprocs", size, nprocs);
    long long sum = 0;
    int mn = INT_MAX, mx = INT_MIN;
    REQUIRE(d[0] == 0, "size %d nprocs %d: displ[0] %d", size, nprocs, d[0]);
    for (int i = 0; i < nprocs; i++) {
        REQUIRE(c[i] >= 0, "size %d nprocs %d: count[%d] %d", size, nprocs, i, c[i]);
        REQUIRE((long long)d[i] == sum, "size %d nprocs %d: displ[%d] %d, want %lld",
                      size, nprocs, i, d[i], sum);
        if (i > 0)
            REQUIRE(c[i] <= c[i - 1], "size %d nprocs %d: count[%d] %d > count[%d] %d",
                          size, nprocs, i, c[i], i - 1, c[i - 1]);
        sum += c[i];
        if (c[i] < mn) mn = c[i];
        if (c[i] > mx) mx = c[i];
    }
    REQUIRE(sum == size, "size %d nprocs %d: counts add up to %lld", size, nprocs, sum);
    REQUIRE((long long)mx - mn <= 1, "size %d nprocs %d: counts from %d to %d", size,
                  nprocs, mn, mx);
    free(c);
    free(d);
}

START_TEST(test_even_grid)
{
    for (int size = 0; size <= 300; size++)
        for (int nprocs = 1; nprocs <= 70; nprocs++) check_even(size, nprocs);
}
END_TEST

START_TEST(test_even_large)
{
    const int sizes[] = {INT_MAX, INT_MAX - 1, INT_MAX - 2, 1 << 30, (1 << 30) + 7};
    const int procs[] = {1, 2, 3, 7, 64, 1000, 65537};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (size_t j = 0; j < sizeof procs / sizeof procs[0]; j++) check_even(sizes[i], procs[j]);
    /* Fewer rows than processes, far apart. */
    check_even(3, 100000);
    check_even(0, 100000);
    uint64_t seed = 51;
    for (int t = 0; t < 200; t++)
        check_even((int)(rng_next(&seed) % ((uint64_t)INT_MAX + 1)), 1 + rnd(&seed, 5000));
}
END_TEST

Suite *partition_even_suite(void)
{
    Suite *s = suite_create("partition_even");
    TCase *tc = tcase_create("even");
    tcase_add_test(tc, test_even_grid);
    tcase_add_test(tc, test_even_large);
    suite_add_tcase(s, tc);
    return s;
}
