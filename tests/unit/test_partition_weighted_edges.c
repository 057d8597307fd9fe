/* models/partition.c, the edges of the weighted split: all row weights zero, powers of zero,
 * fewer rows than processes, and every invalid size, count, power or weight refused with a
 * reason and the outputs untouched. */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "partition_weighted.h"
#include "suites.h"

START_TEST(test_weighted_all_zero_weights)
{
    static double w[MAXN];
    int c[MAXP + 1], d[MAXP + 1];
    char why[256] = "";
    for (int size = 1; size <= 40; size++)
        for (int n = 1; n <= 12; n++) {
            memset(w, 0, sizeof w);
            sentinel(c, d, n);
            REQUIRE_EQ(xmpi_part_weighted(size, n, w, NULL, c, d, why, sizeof why), 0);
            char tag[64];
            snprintf(tag, sizeof tag, "zero weights, size %d nprocs %d", size, n);
            check_weighted(size, n, w, NULL, c, d, tag);
            /* Equal rows, equal powers: counts within one of size / n. */
            for (int i = 0; i < n; i++)
                REQUIRE(c[i] == size / n || c[i] == size / n + 1,
                              "%s: rank %d got %d rows", tag, i, c[i]);
        }
}
END_TEST

START_TEST(test_weighted_zero_powers)
{
    double p[8] = {0};
    int c[9], d[9];
    char why[256];
    for (int n = 1; n <= 8; n++) {
        for (int size = 1; size <= 20; size += 19) {
            why[0] = '\0';
            sentinel(c, d, n);
            REQUIRE_EQ(xmpi_part_weighted(size, n, NULL, p, c, d, why, sizeof why), -1);
            REQUIRE(why[0] != '\0', "all powers 0, size %d: no reason", size);
            assert_sentinel(c, d, n, "all powers 0");
        }
        /* No rows to give: nobody needs power. */
        sentinel(c, d, n);
        REQUIRE_EQ(xmpi_part_weighted(0, n, NULL, p, c, d, why, sizeof why), 0);
        check_weighted(0, n, NULL, p, c, d, "size 0, all powers 0");
        for (int i = 0; i < n; i++) ck_assert(c[i] == 0 && d[i] == 0);
    }
    /* A single process of power > 0 takes everything, wherever it sits. */
    for (int n = 1; n <= 8; n++)
        for (int j = 0; j < n; j++) {
            for (int i = 0; i < n; i++) p[i] = i == j ? 0.5 : 0;
            sentinel(c, d, n);
            REQUIRE_EQ(xmpi_part_weighted(17, n, NULL, p, c, d, why, sizeof why), 0);
            check_weighted(17, n, NULL, p, c, d, "one positive power");
            REQUIRE_EQ(c[j], 17);
            p[j] = 0;
        }
}
END_TEST

/* Fewer rows than processes of power > 0: nobody is owed a row, so every boundary must be
 * one of the two around its ideal, for equal and for weighted rows. */
START_TEST(test_weighted_few_rows)
{
    double p[MAXP], w[MAXP];
    int c[MAXP + 1], d[MAXP + 1];
    char why[256] = "";
    uint64_t seed = 7200;
    for (int t = 0; t < 500; t++) {
        int n = 2 + rnd(&seed, 30), pos = 0;
        for (int i = 0; i < n; i++) {
            p[i] = rnd(&seed, 4) ? 0.5 + rng_unit(&seed) : 0;
            pos += p[i] > 0;
        }
        if (pos == 0) p[0] = 1, pos = 1;
        int size = rnd(&seed, pos);
        for (int k = 0; k < size; k++) w[k] = rnd(&seed, 5) ? rng_unit(&seed) : 0;
        const double *ww = rnd(&seed, 2) ? w : NULL;
        char tag[64];
        snprintf(tag, sizeof tag, "few rows, case %d (size %d, %d positive)", t, size, pos);
        sentinel(c, d, n);
        REQUIRE_EQ(xmpi_part_weighted(size, n, ww, p, c, d, why, sizeof why), 0);
        REQUIRE(check_weighted(size, n, ww, p, c, d, tag) == (size > 0), "%s: not checked",
                      tag);
    }
}
END_TEST

START_TEST(test_weighted_errors)
{
    double w[10], p[4];
    int c[9], d[9];
    char why[256];
    const double bad[] = {-1, -1e-300, -INFINITY, INFINITY, NAN};
    const int pat[] = {0, 2, 3};
    const int wat[] = {0, 5, 9};
#define EXPECT_BAD(call, tag)                                                  \
    do {                                                                       \
        why[0] = '\0';                                                         \
        sentinel(c, d, 8);                                                     \
        int rc_ = (call);                                                      \
        REQUIRE(rc_ == -1, "%s: returned %d", tag, rc_);                 \
        REQUIRE(why[0] != '\0', "%s: no reason given", tag);             \
        assert_sentinel(c, d, 8, tag);                                         \
    } while (0)
    EXPECT_BAD(xmpi_part_weighted(10, 0, NULL, NULL, c, d, why, sizeof why), "nprocs 0");
    EXPECT_BAD(xmpi_part_weighted(10, -1, NULL, NULL, c, d, why, sizeof why), "nprocs -1");
    EXPECT_BAD(xmpi_part_weighted(0, 0, NULL, NULL, c, d, why, sizeof why), "size 0 nprocs 0");
    EXPECT_BAD(xmpi_part_weighted(-1, 4, NULL, NULL, c, d, why, sizeof why), "size -1");
    EXPECT_BAD(xmpi_part_weighted(INT_MIN, 4, NULL, NULL, c, d, why, sizeof why), "size INT_MIN");
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
        char tag[64];
        for (size_t j = 0; j < 3; j++) {
            for (int i = 0; i < 4; i++) p[i] = 1;
            for (int k = 0; k < 10; k++) w[k] = 1;
            p[pat[j]] = bad[b];
            snprintf(tag, sizeof tag, "power[%d] %g", pat[j], bad[b]);
            EXPECT_BAD(xmpi_part_weighted(10, 4, w, p, c, d, why, sizeof why), tag);
            EXPECT_BAD(xmpi_part_weighted(10, 4, NULL, p, c, d, why, sizeof why), tag);
            p[pat[j]] = 1;
            w[wat[j]] = bad[b];
            snprintf(tag, sizeof tag, "weight[%d] %g", wat[j], bad[b]);
            EXPECT_BAD(xmpi_part_weighted(10, 4, w, p, c, d, why, sizeof why), tag);
            EXPECT_BAD(xmpi_part_weighted(10, 4, w, NULL, c, d, why, sizeof why), tag);
        }
    }
#undef EXPECT_BAD
}
END_TEST

Suite *partition_weighted_edges_suite(void)
{
    Suite *s = suite_create("partition_weighted_edges");
    TCase *tc = tcase_create("weighted");
    tcase_add_test(tc, test_weighted_all_zero_weights);
    tcase_add_test(tc, test_weighted_zero_powers);
    tcase_add_test(tc, test_weighted_few_rows);
    tcase_add_test(tc, test_weighted_errors);
    suite_add_tcase(s, tc);
    return s;
}
