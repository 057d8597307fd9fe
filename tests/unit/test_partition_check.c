/* models/partition.c, the tiling check: random valid tilings are accepted and every kind of
 * mutation of them refused with a reason (an overlap names both ranks), and known cases. */
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "partition_util.h"
#include "suites.h"

/* Ranks of the non-empty blocks in row order. */
static int nonempty_in_order(int n, const int *c, const int *d, int *ord)
{
    int m = 0;
    for (int i = 0; i < n; i++)
        if (c[i] > 0) ord[m++] = i;
    for (int i = 1; i < m; i++)
        for (int j = i; j > 0 && d[ord[j - 1]] > d[ord[j]]; j--) {
            int t = ord[j];
            ord[j] = ord[j - 1];
            ord[j - 1] = t;
        }
    return m;
}

/* The mutated copy mc/md must be rejected with a reason; returns that reason. */
static const char *expect_reject(int size, int n, const int *mc, const int *md, const char *what,
                                 int t)
{
    static char why[256];
    why[0] = '\0';
    int rc = xmpi_part_check(size, n, mc, md, why, sizeof why);
    REQUIRE(rc == -1, "tiling %d (size %d, nprocs %d) with %s: returned %d", t, size, n,
                  what, rc);
    REQUIRE(why[0] != '\0', "tiling %d with %s: no reason given", t, what);
    return why;
}

START_TEST(test_check_random_tilings)
{
    uint64_t seed = 7400;
    int c[MAXT], d[MAXT], mc[MAXT], md[MAXT], ord[MAXT];
    char why[256];
    int overlaps = 0;
    for (int t = 0; t < 3000; t++) {
        int size = rnd(&seed, 4) ? rnd(&seed, 61) : rnd(&seed, 4);
        int n = 1 + rnd(&seed, MAXT);
        random_tiling(&seed, size, n, c, d);
        why[0] = '\0';
        int rc = xmpi_part_check(size, n, c, d, why, sizeof why);
        REQUIRE(rc == 0, "valid tiling %d (size %d, nprocs %d) rejected: %s", t, size, n,
                      why);
        int m = nonempty_in_order(n, c, d, ord);
#define COPY() (memcpy(mc, c, sizeof c), memcpy(md, d, sizeof d))
        int r = rnd(&seed, n);
        /* A negative count, on an empty block or not. */
        COPY();
        mc[r] = -1 - rnd(&seed, 3);
        expect_reject(size, n, mc, md, "a negative count", t);
        /* displ < 0. */
        COPY();
        md[r] = -1 - rnd(&seed, 3);
        expect_reject(size, n, mc, md, "displ < 0", t);
        /* An empty block past the end. */
        COPY();
        mc[r] = 0;
        md[r] = size + 1 + rnd(&seed, 3);
        if (c[r] == 0) expect_reject(size, n, mc, md, "an empty block past size", t);
        if (m == 0) continue;
        int x = ord[rnd(&seed, m)];
        /* A block poking out past size. */
        COPY();
        md[x] = size - c[x] + 1 + rnd(&seed, 3);
        expect_reject(size, n, mc, md, "a block past size", t);
        /* The last block with a count that overflows displ + count in int. */
        COPY();
        mc[ord[m - 1]] = INT_MAX - rnd(&seed, 3);
        expect_reject(size, n, mc, md, "a huge count", t);
        /* A row left out. */
        COPY();
        mc[x]--;
        expect_reject(size, n, mc, md, "a missing row", t);
        /* An empty block given one row someone else has. */
        for (int e = 0; e < n; e++)
            if (c[e] == 0) {
                COPY();
                mc[e] = 1;
                md[e] = rnd(&seed, size);
                expect_reject(size, n, mc, md, "a duplicated row", t);
                break;
            }
        if (m < 2) continue;
        int k = rnd(&seed, m - 1), a = ord[k], b = ord[k + 1];
        /* A block grown into the next one: a duplicated row. */
        COPY();
        mc[a]++;
        expect_reject(size, n, mc, md, "a block grown into the next", t);
        /* A block shifted one row into the previous one: the total is still size, so only
         * the overlap itself can give it away, and the reason must name both ranks. */
        COPY();
        md[b]--;
        const char *msg = expect_reject(size, n, mc, md, "two overlapping blocks", t);
        REQUIRE(names_rank(msg, a) && names_rank(msg, b),
                      "tiling %d: ranks %d and %d overlap, but the reason is '%s'", t, a, b, msg);
        overlaps++;
#undef COPY
    }
    REQUIRE(overlaps >= 1000, "only %d overlap mutations", overlaps);
}
END_TEST

START_TEST(test_check_known)
{
    char why[256] = "";
    int c0[1] = {0}, d0[1] = {0};
    REQUIRE_EQ(xmpi_part_check(0, 1, c0, d0, why, sizeof why), 0);
    REQUIRE_EQ(xmpi_part_check(0, 0, c0, d0, why, sizeof why), 0);
    REQUIRE_EQ(xmpi_part_check(5, 0, c0, d0, why, sizeof why), -1);
    /* Empty blocks at size, and one at 0 between the others. */
    int c1[4] = {3, 0, 2, 0}, d1[4] = {2, 5, 0, 0};
    REQUIRE_EQ(xmpi_part_check(5, 4, c1, d1, why, sizeof why), 0);
    /* Rank 3 overlaps rank 0 while rank 1 and rank 2 are fine. */
    int c2[4] = {3, 2, 0, 3}, d2[4] = {0, 6, 8, 2};
    why[0] = '\0';
    REQUIRE_EQ(xmpi_part_check(8, 4, c2, d2, why, sizeof why), -1);
    REQUIRE(names_rank(why, 0) && names_rank(why, 3) && !names_rank(why, 1),
                  "overlap of ranks 0 and 3 reported as '%s'", why);
    /* Rank 12 overlaps rank 10: "rank 1" alone must not count. */
    int c3[13] = {0}, d3[13] = {0};
    c3[10] = 4;
    c3[12] = 3;
    d3[12] = 3;
    c3[11] = 3;
    d3[11] = 7;
    why[0] = '\0';
    REQUIRE_EQ(xmpi_part_check(10, 13, c3, d3, why, sizeof why), -1);
    REQUIRE(names_rank(why, 10) && names_rank(why, 12), "'%s'", why);
}
END_TEST

Suite *partition_check_suite(void)
{
    Suite *s = suite_create("partition_check");
    TCase *tc = tcase_create("check");
    tcase_add_test(tc, test_check_random_tilings);
    tcase_add_test(tc, test_check_known);
    suite_add_tcase(s, tc);
    return s;
}
