/* models/partition.c, filling new processes' blocks: the rows no fixed block covers shared out
 * in rank order, against a brute-force reference on random cases (fixed seeds) and known
 * ones; an error leaves every block as it was. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "partition_util.h"
#include "suites.h"

/* Reference for xmpi_part_fill: -1 when a fixed block is outside [0, size), two overlap,
 * or a share of the uncovered rows (taken in row order) is not contiguous; otherwise the
 * shares in wc/wd (wd -1 for an empty share, which may sit anywhere in [0, size]). */
static int fill_reference(int size, int n, const int *fill, const int *c, const int *d, int *wc,
                          int *wd)
{
    static char cov[64];
    static int un[64];
    memset(cov, 0, sizeof cov);
    for (int i = 0; i < n; i++) {
        if (fill[i]) continue;
        if (c[i] < 0 || d[i] < 0 || (long long)d[i] + c[i] > size) return -1;
        for (int r = d[i]; r < d[i] + c[i]; r++) {
            if (cov[r]) return -1;
            cov[r] = 1;
        }
    }
    int nu = 0, nfill = 0;
    for (int r = 0; r < size; r++)
        if (!cov[r]) un[nu++] = r;
    for (int i = 0; i < n; i++) nfill += fill[i] != 0;
    int at = 0, k = 0;
    for (int i = 0; i < n; i++) {
        if (!fill[i]) continue;
        int share = nu / nfill + (k++ < nu % nfill);
        wc[i] = share;
        wd[i] = share ? un[at] : -1;
        for (int j = 1; j < share; j++)
            if (un[at + j] != un[at] + j) return -1;
        at += share;
    }
    return 0;
}

/* Runs xmpi_part_fill on copies and compares with the reference; returns its rc. */
static int check_fill(int size, int n, const int *fill, const int *c, const int *d,
                      const char *tag)
{
    int gc[MAXT + 1], gd[MAXT + 1], wc[MAXT], wd[MAXT];
    memcpy(gc, c, sizeof *c * (size_t)n);
    memcpy(gd, d, sizeof *d * (size_t)n);
    gc[n] = gd[n] = SENT;
    char why[256] = "";
    int want = fill_reference(size, n, fill, c, d, wc, wd);
    int rc = xmpi_part_fill(size, n, fill, gc, gd, why, sizeof why);
    REQUIRE(rc == want, "%s: returned %d (%s), want %d", tag, rc, why, want);
    REQUIRE(gc[n] == SENT && gd[n] == SENT, "%s: wrote past nprocs", tag);
    if (rc != 0) {
        REQUIRE(why[0] != '\0', "%s: no reason given", tag);
        for (int i = 0; i < n; i++)
            REQUIRE(gc[i] == c[i] && gd[i] == d[i],
                          "%s: rank %d changed from [%d,+%d) to [%d,+%d) on an error", tag, i,
                          d[i], c[i], gd[i], gc[i]);
        return rc;
    }
    int nfill = 0, covered = 0;
    for (int i = 0; i < n; i++) {
        if (!fill[i]) {
            REQUIRE(gc[i] == c[i] && gd[i] == d[i], "%s: fixed rank %d moved", tag, i);
            covered += c[i];
            continue;
        }
        nfill++;
        REQUIRE(gc[i] == wc[i], "%s: fill rank %d got %d rows, want %d", tag, i, gc[i],
                      wc[i]);
        if (wc[i] > 0)
            REQUIRE(gd[i] == wd[i], "%s: fill rank %d starts at %d, want %d", tag, i,
                          gd[i], wd[i]);
        else
            REQUIRE(gd[i] >= 0 && gd[i] <= size, "%s: empty fill rank %d at %d", tag, i,
                          gd[i]);
    }
    if (nfill > 0 || covered == size) {
        REQUIRE(xmpi_part_check(size, n, gc, gd, why, sizeof why) == 0,
                      "%s: the result is no tiling: %s", tag, why);
    }
    return rc;
}

/* Tiles [a, b) with the k ranks in r[] (empty blocks allowed). */
static void tile_range(uint64_t *s, int a, int b, const int *r, int k, int *c, int *d)
{
    int cut[MAXT + 1];
    cut[0] = a;
    cut[k] = b;
    for (int i = 1; i < k; i++) cut[i] = a + rnd(s, b - a + 1);
    sort_ints(cut + 1, k - 1);
    for (int i = 0; i < k; i++) {
        c[r[i]] = cut[i + 1] - cut[i];
        d[r[i]] = cut[i];
    }
}

/* The fixed ranks tile all but one contiguous head, tail or middle gap: always fits. */
START_TEST(test_fill_one_gap)
{
    uint64_t seed = 7500;
    int fill[MAXT], c[MAXT], d[MAXT], fixed[MAXT];
    int shapes[3] = {0, 0, 0};
    for (int t = 0; t < 3000; t++) {
        int size = rnd(&seed, 41), n = 1 + rnd(&seed, 10), nf = 0;
        for (int i = 0; i < n; i++) {
            fill[i] = rnd(&seed, 3) == 0;
            c[i] = -3 - i;           /* the fill ranks' inputs are ignored */
            d[i] = size + 7 + i;
            if (!fill[i]) fixed[nf++] = i;
        }
        if (nf == n) fill[fixed[--nf]] = 1;
        shuffle(&seed, fixed, nf);
        int shape = rnd(&seed, 3), g0, g1;
        if (nf == 0) shape = 3;
        if (shape == 2 && nf < 2) shape = rnd(&seed, 2);
        switch (shape) {
        case 0: /* uncovered head */
            g0 = 0;
            g1 = rnd(&seed, size + 1);
            tile_range(&seed, g1, size, fixed, nf, c, d);
            break;
        case 1: /* uncovered tail */
            g1 = size;
            g0 = rnd(&seed, size + 1);
            tile_range(&seed, 0, g0, fixed, nf, c, d);
            break;
        case 2: { /* uncovered middle, fixed blocks on both sides */
            g0 = rnd(&seed, size + 1);
            g1 = g0 + rnd(&seed, size - g0 + 1);
            int h = 1 + rnd(&seed, nf - 1);
            tile_range(&seed, 0, g0, fixed, h, c, d);
            tile_range(&seed, g1, size, fixed + h, nf - h, c, d);
            break;
        }
        default: /* nothing fixed: everything uncovered */
            g0 = 0;
            g1 = size;
            break;
        }
        if (shape < 3) shapes[shape]++;
        /* Some empty fixed blocks move anywhere in [0, size]. */
        for (int i = 0; i < nf; i++)
            if (c[fixed[i]] == 0 && rnd(&seed, 2)) d[fixed[i]] = rnd(&seed, size + 1);
        char tag[96];
        snprintf(tag, sizeof tag, "one-gap case %d (size %d, nprocs %d, gap [%d,%d))", t, size,
                 n, g0, g1);
        REQUIRE(check_fill(size, n, fill, c, d, tag) == 0, "%s: rejected", tag);
        /* Independently of the reference: the k-th fill rank starts at g0 + earlier shares. */
        int nfill = n - nf, left = g1 - g0, at = g0, k = 0;
        int gc[MAXT], gd[MAXT];
        memcpy(gc, c, sizeof gc);
        memcpy(gd, d, sizeof gd);
        char why[256];
        REQUIRE_EQ(xmpi_part_fill(size, n, fill, gc, gd, why, sizeof why), 0);
        for (int i = 0; i < n; i++)
            if (fill[i]) {
                int share = left / nfill + (k++ < left % nfill);
                REQUIRE(gc[i] == share && (share == 0 || gd[i] == at),
                              "%s: fill rank %d got [%d,+%d), want [%d,+%d)", tag, i, gd[i],
                              gc[i], at, share);
                at += share;
            }
    }
    ck_assert(shapes[0] > 100 && shapes[1] > 100 && shapes[2] > 100);
}
END_TEST

/* Random fixed blocks leaving several gaps, sometimes invalid ones: against the reference. */
START_TEST(test_fill_random)
{
    uint64_t seed = 7600;
    int fill[MAXT], c[MAXT], d[MAXT], fixed[MAXT];
    int ok = 0, bad = 0;
    for (int t = 0; t < 5000; t++) {
        int size = rnd(&seed, 41), n = 1 + rnd(&seed, 10), nf = 0;
        for (int i = 0; i < n; i++) {
            fill[i] = rnd(&seed, 3) == 0;
            c[i] = rnd(&seed, 5) - 2;
            d[i] = rnd(&seed, size + 5) - 2;
            if (!fill[i]) fixed[nf++] = i;
        }
        shuffle(&seed, fixed, nf);
        int m = 1 + rnd(&seed, 8), cut[10], used = 0;
        cut[0] = 0;
        cut[m] = size;
        for (int i = 1; i < m; i++) cut[i] = rnd(&seed, size + 1);
        sort_ints(cut + 1, m - 1);
        for (int k = 0; k < m && used < nf; k++)
            if (rnd(&seed, 3)) {
                c[fixed[used]] = cut[k + 1] - cut[k];
                d[fixed[used++]] = cut[k];
            }
        for (; used < nf; used++) {
            c[fixed[used]] = 0;
            d[fixed[used]] = rnd(&seed, size + 1);
        }
        if (nf > 0 && rnd(&seed, 10) == 0) { /* corrupt one fixed block */
            int r = fixed[rnd(&seed, nf)];
            c[r] = rnd(&seed, size + 3) - 2;
            d[r] = rnd(&seed, size + 5) - 2;
        }
        char tag[64];
        snprintf(tag, sizeof tag, "random fill case %d (size %d, nprocs %d)", t, size, n);
        if (check_fill(size, n, fill, c, d, tag) == 0) ok++;
        else bad++;
    }
    REQUIRE(ok >= 1000 && bad >= 500, "%d accepted, %d rejected cases", ok, bad);
}
END_TEST

START_TEST(test_fill_known)
{
    char why[256];
    /* Gaps [3,5) and [8,10), two fill ranks of 2 rows each: fits. */
    int fill1[4] = {0, 1, 0, 1}, c1[4] = {3, 9, 3, 9}, d1[4] = {0, 9, 5, 9};
    REQUIRE_EQ(xmpi_part_fill(10, 4, fill1, c1, d1, why, sizeof why), 0);
    ck_assert(c1[1] == 2 && d1[1] == 3 && c1[3] == 2 && d1[3] == 8);
    /* Gaps [3,4) and [7,10): 4 rows, shares 2 + 2, the first gap holds only 1. */
    int fill2[4] = {0, 1, 0, 1}, c2[4] = {3, 1, 3, 1}, d2[4] = {0, 1, 4, 1};
    check_fill(10, 4, fill2, c2, d2, "gaps 1 and 3");
    why[0] = '\0';
    REQUIRE_EQ(xmpi_part_fill(10, 4, fill2, c2, d2, why, sizeof why), -1);
    ck_assert(why[0] != '\0');
    ck_assert(c2[1] == 1 && d2[1] == 1 && c2[3] == 1 && d2[3] == 1);
    /* Gaps [0,3) and [7,8): the second share would straddle rank 0's block. */
    int fill3[3] = {1, 0, 1}, c3[3] = {5, 4, 5}, d3[3] = {5, 3, 5};
    REQUIRE_EQ(check_fill(8, 3, fill3, c3, d3, "gaps 3 and 1"), -1);
    /* Uneven shares in rank order: 7 rows over 3 fill ranks -> 3, 2, 2. */
    int fill4[4] = {1, 0, 1, 1}, c4[4] = {0, 3, 0, 0}, d4[4] = {0, 0, 0, 0};
    REQUIRE_EQ(xmpi_part_fill(10, 4, fill4, c4, d4, why, sizeof why), 0);
    ck_assert(c4[0] == 3 && d4[0] == 3 && c4[2] == 2 && d4[2] == 6 && c4[3] == 2 && d4[3] == 8);
    /* Errors, each leaving the blocks as they were. */
    int fill5[3] = {0, 0, 1};
    int ov_c[3] = {4, 4, 7}, ov_d[3] = {0, 3, 7};
    REQUIRE_EQ(check_fill(10, 3, fill5, ov_c, ov_d, "overlapping fixed blocks"), -1);
    int out_c[3] = {4, 4, 7}, out_d[3] = {0, 7, 7};
    REQUIRE_EQ(check_fill(10, 3, fill5, out_c, out_d, "fixed block past size"), -1);
    int neg_c[3] = {4, 4, 7}, neg_d[3] = {-1, 4, 7};
    REQUIRE_EQ(check_fill(10, 3, fill5, neg_c, neg_d, "fixed block before 0"), -1);
    int cnt_c[3] = {4, -1, 7}, cnt_d[3] = {0, 4, 7};
    REQUIRE_EQ(check_fill(10, 3, fill5, cnt_c, cnt_d, "negative fixed count"), -1);
    int big_c[3] = {4, INT_MAX, 7}, big_d[3] = {0, 4, 7};
    REQUIRE_EQ(check_fill(10, 3, fill5, big_c, big_d, "fixed count INT_MAX"), -1);
}
END_TEST

/* No rank to fill: the blocks come back as they were. */
START_TEST(test_fill_none)
{
    uint64_t seed = 7700;
    int fill[MAXT] = {0}, c[MAXT], d[MAXT], gc[MAXT], gd[MAXT];
    char why[256];
    for (int t = 0; t < 500; t++) {
        int size = rnd(&seed, 41), n = 1 + rnd(&seed, MAXT);
        random_tiling(&seed, size, n, c, d);
        if (rnd(&seed, 2)) { /* drop a block: a valid subset with rows left over */
            int r = rnd(&seed, n);
            c[r] = 0;
        }
        memcpy(gc, c, sizeof gc);
        memcpy(gd, d, sizeof gd);
        REQUIRE_EQ(xmpi_part_fill(size, n, fill, gc, gd, why, sizeof why), 0);
        ck_assert(memcmp(gc, c, sizeof c) == 0 && memcmp(gd, d, sizeof d) == 0);
    }
}
END_TEST

Suite *partition_fill_suite(void)
{
    Suite *s = suite_create("partition_fill");
    TCase *tc = tcase_create("fill");
    tcase_add_test(tc, test_fill_one_gap);
    tcase_add_test(tc, test_fill_random);
    tcase_add_test(tc, test_fill_known);
    tcase_add_test(tc, test_fill_none);
    suite_add_tcase(s, tc);
    return s;
}
