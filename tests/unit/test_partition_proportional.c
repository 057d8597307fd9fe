/* models/partition.c, the proportional split: blocks in proportion to process powers over
 * weighted rows, each boundary one of the two around its ideal, on thousands of random cases
 * (fixed seeds), under scaling, and with one huge row or power. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "partition_weighted.h"
#include "suites.h"

#define WEIGHTED_LOOPS 4
#define WEIGHTED_CASES 1000

static int all_equal(const double *p, int n)
{
    for (int i = 1; p && i < n; i++)
        if (p[i] != p[0]) return 0;
    return 1;
}

/* _i picks the seed; WEIGHTED_CASES random cases per seed. */
START_TEST(test_weighted_random)
{
    static double w[MAXN], p[MAXP];
    int c[MAXP + 1], d[MAXP + 1], c2[MAXP + 1], d2[MAXP + 1];
    uint64_t seed = 7000 + (uint64_t)_i;
    int proportional = 0, balanced = 0;
    for (int t = 0; t < WEIGHTED_CASES; t++) {
        int size = rnd(&seed, 10) ? rnd(&seed, MAXN + 1) : rnd(&seed, 11);
        int n = 1 + rnd(&seed, MAXP);
        const double *pp = gen_powers(&seed, n, p);
        const double *ww = gen_weights(&seed, size, w);
        char tag[96], why[256] = "";
        snprintf(tag, sizeof tag, "seed %d case %d (size %d, nprocs %d)", _i, t, size, n);
        int pos = 0;
        for (int i = 0; i < n; i++) pos += !pp || pp[i] > 0;
        sentinel(c, d, n);
        int rc = xmpi_part_weighted(size, n, ww, pp, c, d, why, sizeof why);
        if (size > 0 && pos == 0) {
            REQUIRE(rc == -1, "%s: every power 0 gave %d", tag, rc);
            REQUIRE(why[0] != '\0', "%s: no reason given", tag);
            assert_sentinel(c, d, n, tag);
            continue;
        }
        REQUIRE(rc == 0, "%s: returned %d (%s)", tag, rc, why);
        proportional += check_weighted(size, n, ww, pp, c, d, tag);

        int equal_rows = 1;
        for (int k = 0; ww && k < size; k++)
            if (ww[k] != 0) equal_rows = 0;
        if (ww && equal_rows) {
            /* All weights 0 count as equal rows: the same as no weights at all. */
            sentinel(c2, d2, n);
            REQUIRE_EQ(xmpi_part_weighted(size, n, NULL, pp, c2, d2, why, sizeof why), 0);
            for (int i = 0; i < n; i++)
                REQUIRE(c[i] == c2[i] && d[i] == d2[i],
                              "%s: all-zero weights give rank %d [%d,+%d), no weights [%d,+%d)",
                              tag, i, d[i], c[i], d2[i], c2[i]);
        }
        if (equal_rows && all_equal(pp, n) && size >= n) {
            /* Equal powers over equal rows: as even as it gets. */
            int mn = INT_MAX, mx = 0;
            for (int i = 0; i < n; i++) {
                if (c[i] < mn) mn = c[i];
                if (c[i] > mx) mx = c[i];
            }
            REQUIRE(mx - mn <= 1, "%s: equal powers and rows give counts %d to %d", tag,
                          mn, mx);
            balanced++;
        }
    }
    /* The generators must keep the strong checks from going vacuous. */
    REQUIRE(proportional >= WEIGHTED_CASES / 5, "only %d cases checked for proportionality",
                  proportional);
    REQUIRE(balanced >= WEIGHTED_CASES / 50, "only %d cases checked for balance", balanced);
}
END_TEST

/* Powers are relative and only the weight shares matter: scaling either by a power of two
 * (exact in binary floating point) must not move a single boundary. */
START_TEST(test_weighted_scale_invariant)
{
    static double w[MAXN], p[MAXP], ws[MAXN], ps[MAXP];
    int c[MAXP + 1], d[MAXP + 1], c2[MAXP + 1], d2[MAXP + 1];
    uint64_t seed = 7100;
    char why[256] = "";
    for (int t = 0; t < 400; t++) {
        int size = rnd(&seed, 500), n = 1 + rnd(&seed, 32);
        const double *pp = gen_powers(&seed, n, p);
        const double *ww = gen_weights(&seed, size, w);
        int e = rnd(&seed, 2) ? 600 : -600, ew = e;
        for (int k = 0; ww && k < size; k++)
            if (ww[k] > 1e200) ew = -600;   /* 1e300 * 2^600 would overflow */
        for (int i = 0; i < n; i++) ps[i] = pp ? ldexp(pp[i], e) : ldexp(1.0, e);
        for (int k = 0; ww && k < size; k++) ws[k] = ldexp(ww[k], ew);
        sentinel(c, d, n);
        sentinel(c2, d2, n);
        int rc = xmpi_part_weighted(size, n, ww, pp, c, d, why, sizeof why);
        int rc2 = xmpi_part_weighted(size, n, ww ? ws : NULL, ps, c2, d2, why, sizeof why);
        REQUIRE(rc == rc2, "case %d: rc %d unscaled, %d scaled by 2^%d", t, rc, rc2, e);
        for (int i = 0; i < n; i++)
            REQUIRE(c[i] == c2[i] && d[i] == d2[i],
                          "case %d (size %d, nprocs %d): rank %d [%d,+%d) unscaled, [%d,+%d) "
                          "scaled by 2^%d", t, size, n, i, d[i], c[i], d2[i], c2[i], e);
    }
}
END_TEST

/* A row of weight 1e300 (or 1e12) among rows of about 1: with three equal powers both
 * ideal boundaries fall inside that row, so the middle process gets exactly that row. */
START_TEST(test_weighted_huge_row)
{
    static double w[MAXN];
    int c[MAXP + 1], d[MAXP + 1];
    char why[256] = "";
    const double huge[] = {1e300, 1e12};
    for (size_t h = 0; h < 2; h++)
        for (int size = 3; size <= 60; size++)
            for (int k = 0; k < size; k++) {
                for (int j = 0; j < size; j++) w[j] = j == k ? huge[h] : 1;
                char tag[64];
                snprintf(tag, sizeof tag, "row %d of %d weighs %g", k, size, huge[h]);
                /* Two processes: the one boundary sits on either side of the heavy row. */
                sentinel(c, d, 2);
                REQUIRE_EQ(xmpi_part_weighted(size, 2, w, NULL, c, d, why, sizeof why), 0);
                check_weighted(size, 2, w, NULL, c, d, tag);
                REQUIRE(c[0] == k || c[0] == k + 1, "%s, 2 procs: boundary at %d", tag,
                              c[0]);
                sentinel(c, d, 3);
                REQUIRE_EQ(xmpi_part_weighted(size, 3, w, NULL, c, d, why, sizeof why), 0);
                check_weighted(size, 3, w, NULL, c, d, tag);
                if (k >= 1 && k <= size - 2)
                    REQUIRE(c[0] == k && c[1] == 1 && d[1] == k,
                                  "%s, 3 procs: blocks %d, %d, %d rows", tag, c[0], c[1], c[2]);
            }
}
END_TEST

/* One process of power 1e300 (or DBL_MAX) among powers of 1: the others' ideal shares
 * are about 0 rows, so they get the least they may, one row each. */
START_TEST(test_weighted_huge_power)
{
    double p[8];
    int c[9], d[9];
    char why[256] = "";
    const double huge[] = {1e300, DBL_MAX, 1e20};
    for (size_t h = 0; h < 3; h++)
        for (int n = 1; n <= 8; n++)
            for (int j = 0; j < n; j++) {
                for (int i = 0; i < n; i++) p[i] = i == j ? huge[h] : 1;
                int size = 1000;
                sentinel(c, d, n);
                REQUIRE_EQ(xmpi_part_weighted(size, n, NULL, p, c, d, why, sizeof why), 0);
                char tag[64];
                snprintf(tag, sizeof tag, "power %g at rank %d of %d", huge[h], j, n);
                check_weighted(size, n, NULL, p, c, d, tag);
                for (int i = 0; i < n; i++)
                    REQUIRE(c[i] == (i == j ? size - (n - 1) : 1), "%s: rank %d got %d rows",
                                  tag, i, c[i]);
            }
}
END_TEST

/* Equal powers near the top of the double range are valid (finite, >= 0) and relative:
 * they must split like equal powers of 1. */
START_TEST(test_weighted_huge_equal_powers)
{
    double p[8];
    int c[9], d[9];
    char why[256] = "";
    const double huge[] = {1e308, DBL_MAX, 0x1p1020};
    for (size_t h = 0; h < 3; h++)
        for (int n = 2; n <= 8; n++) {
            for (int i = 0; i < n; i++) p[i] = huge[h];
            int size = 100;
            sentinel(c, d, n);
            int rc = xmpi_part_weighted(size, n, NULL, p, c, d, why, sizeof why);
            REQUIRE(rc == 0, "powers %g x %d: returned %d (%s)", huge[h], n, rc, why);
            char tag[64];
            snprintf(tag, sizeof tag, "powers %g x %d, size %d", huge[h], n, size);
            check_weighted(size, n, NULL, p, c, d, tag);
            for (int i = 0; i < n; i++)
                REQUIRE(c[i] == size / n || c[i] == size / n + 1,
                              "%s: rank %d got %d rows [%d, %d), want %d or %d", tag, i, c[i],
                              d[i], d[i] + c[i], size / n, size / n + 1);
        }
}
END_TEST

/* Row weights near the top of the double range are valid (finite, >= 0) even when their
 * sum is not representable: equal huge rows must split like equal rows. */
START_TEST(test_weighted_huge_weight_sum)
{
    double w[10];
    int c[3], d[3];
    char why[256] = "";
    for (int k = 0; k < 10; k++) w[k] = 1e308;
    sentinel(c, d, 2);
    int rc = xmpi_part_weighted(10, 2, w, NULL, c, d, why, sizeof why);
    REQUIRE(rc == 0, "10 rows of weight 1e308, 2 procs: returned %d (%s)", rc, why);
    check_weighted(10, 2, w, NULL, c, d, "10 rows of 1e308");
    REQUIRE(c[0] == 5 && c[1] == 5, "10 rows of 1e308: %d + %d rows", c[0], c[1]);
}
END_TEST

Suite *partition_proportional_suite(void)
{
    Suite *s = suite_create("partition_proportional");
    TCase *tc = tcase_create("weighted");
    tcase_add_loop_test(tc, test_weighted_random, 0, WEIGHTED_LOOPS);
    tcase_add_test(tc, test_weighted_scale_invariant);
    tcase_add_test(tc, test_weighted_huge_row);
    tcase_add_test(tc, test_weighted_huge_power);
    tcase_add_test(tc, test_weighted_huge_equal_powers);
    tcase_add_test(tc, test_weighted_huge_weight_sum);
    suite_add_tcase(s, tc);
    return s;
}
