/* models/partition.c, the split by nonzeros per row: the same blocks as the weighted split
 * with the row lengths as weights, and its own errors. */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "partition_weighted.h"
#include "suites.h"

START_TEST(test_nnz_matches_weighted)
{
    static int nnz[MAXN];
    static double w[MAXN], p[MAXP];
    int c[MAXP + 1], d[MAXP + 1], c2[MAXP + 1], d2[MAXP + 1];
    char why[256] = "", why2[256] = "";
    uint64_t seed = 7300;
    for (int t = 0; t < 1000; t++) {
        int size = rnd(&seed, MAXN + 1), n = 1 + rnd(&seed, MAXP), mode = rnd(&seed, 4);
        for (int k = 0; k < size; k++) {
            switch (mode) {
            case 0: nnz[k] = rnd(&seed, 50); break;
            case 1: nnz[k] = rnd(&seed, 3) ? 0 : 1 + rnd(&seed, 1000); break;
            case 2: nnz[k] = 0; break;
            default: nnz[k] = rnd(&seed, 100) ? 1 + rnd(&seed, 9) : INT_MAX - rnd(&seed, 9); break;
            }
            w[k] = (double)nnz[k];
        }
        const double *pp = gen_powers(&seed, n, p);
        sentinel(c, d, n);
        sentinel(c2, d2, n);
        int rc = xmpi_part_nnz(size, n, nnz, pp, c, d, why, sizeof why);
        int rc2 = xmpi_part_weighted(size, n, w, pp, c2, d2, why2, sizeof why2);
        char tag[80];
        snprintf(tag, sizeof tag, "nnz case %d (size %d, nprocs %d, mode %d)", t, size, n, mode);
        REQUIRE(rc == rc2, "%s: nnz returned %d, weighted %d", tag, rc, rc2);
        for (int i = 0; i <= n; i++)
            REQUIRE(c[i] == c2[i] && d[i] == d2[i],
                          "%s: rank %d [%d,+%d) from nnz, [%d,+%d) from weights", tag, i, d[i],
                          c[i], d2[i], c2[i]);
        if (rc == 0) check_weighted(size, n, w, pp, c, d, tag);
    }
}
END_TEST

START_TEST(test_nnz_errors)
{
    int nnz[10], c[5], d[5];
    double p[4] = {1, 1, 1, 1};
    char why[256];
    for (int at = 0; at < 10; at++) {
        for (int k = 0; k < 10; k++) nnz[k] = k + 1;
        nnz[at] = at % 2 ? -1 : INT_MIN;
        why[0] = '\0';
        sentinel(c, d, 4);
        REQUIRE_EQ(xmpi_part_nnz(10, 4, nnz, p, c, d, why, sizeof why), -1);
        REQUIRE(why[0] != '\0', "negative row %d: no reason", at);
        assert_sentinel(c, d, 4, "negative row length");
    }
    why[0] = '\0';
    sentinel(c, d, 4);
    REQUIRE_EQ(xmpi_part_nnz(10, 4, NULL, p, c, d, why, sizeof why), -1);
    REQUIRE(why[0] != '\0', "NULL rownnz: no reason");
    assert_sentinel(c, d, 4, "NULL rownnz");
    for (int k = 0; k < 10; k++) nnz[k] = 3;
    why[0] = '\0';
    sentinel(c, d, 4);
    REQUIRE_EQ(xmpi_part_nnz(-1, 4, nnz, p, c, d, why, sizeof why), -1);
    assert_sentinel(c, d, 4, "size -1");
    sentinel(c, d, 4);
    REQUIRE_EQ(xmpi_part_nnz(10, 0, nnz, p, c, d, why, sizeof why), -1);
    assert_sentinel(c, d, 4, "nprocs 0");
    p[2] = NAN;
    sentinel(c, d, 4);
    REQUIRE_EQ(xmpi_part_nnz(10, 4, nnz, p, c, d, why, sizeof why), -1);
    assert_sentinel(c, d, 4, "power NaN");
    /* No rows: no row lengths needed. */
    p[2] = 1;
    sentinel(c, d, 4);
    REQUIRE_EQ(xmpi_part_nnz(0, 4, NULL, p, c, d, why, sizeof why), 0);
    check_weighted(0, 4, NULL, p, c, d, "size 0, NULL rownnz");
}
END_TEST

Suite *partition_nnz_suite(void)
{
    Suite *s = suite_create("partition_nnz");
    TCase *tc = tcase_create("nnz");
    tcase_add_test(tc, test_nnz_matches_weighted);
    tcase_add_test(tc, test_nnz_errors);
    suite_add_tcase(s, tc);
    return s;
}
