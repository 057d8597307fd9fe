/* models/partition.c: even, weighted and nnz row partitions, the tiling check, fill-in
 * of blocks and block overlaps, against properties and brute-force references (fixed seeds). */
#include <ctype.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../models/partition.h"
#include "rng.h"
#include "suites.h"

#define MAXP 64            /* processes in the weighted cases */
#define MAXN 2000          /* rows in the weighted cases */
#define MAXT 16            /* processes in the tiling and fill cases */
#define SENT 0x5A5A5A5A    /* output sentinel: a value no partition here produces */
#define WEIGHTED_LOOPS 4
#define WEIGHTED_CASES 1000

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
static int rnd(uint64_t *s, int n)
{
    return (int)(rng_next(s) % (uint64_t)n);
}

static void shuffle(uint64_t *s, int *v, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = rnd(s, i + 1), t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
}

static void sort_ints(int *v, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            int t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
}

/* n + 1 entries, so that a write one past nprocs shows too. */
static void sentinel(int *c, int *d, int n)
{
    for (int i = 0; i <= n; i++) {
        c[i] = SENT - i;
        d[i] = SENT + i;
    }
}

static void assert_sentinel(const int *c, const int *d, int n, const char *tag)
{
    for (int i = 0; i <= n; i++)
        REQUIRE(c[i] == SENT - i && d[i] == SENT + i,
                      "%s: output %d changed to count %d displ %d", tag, i, c[i], d[i]);
}

/* "rank R" in msg, not as the prefix of a longer number. */
static int names_rank(const char *msg, int r)
{
    char pat[32];
    snprintf(pat, sizeof pat, "rank %d", r);
    size_t n = strlen(pat);
    for (const char *p = strstr(msg, pat); p; p = strstr(p + 1, pat))
        if (!isdigit((unsigned char)p[n])) return 1;
    return 0;
}

/* ---------------------------------------------------------------- even */

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

/* ------------------------------------------------------------ weighted */

static long double cum[MAXN + 1];

/* Whether boundary b is one of the two bracketing the ideal cumulative weight t: no
 * boundary value lies strictly between cum[b] and t (eps absorbs rounding of t). */
static int bracketed(int size, int b, long double t, long double eps)
{
    if (cum[b] < t - eps) {
        int k = b + 1;
        while (k <= size && cum[k] <= cum[b]) k++;
        return k <= size && cum[k] >= t - eps;
    }
    if (cum[b] > t + eps) {
        int k = b - 1;
        while (k >= 0 && cum[k] >= cum[b]) k--;
        return k >= 0 && cum[k] <= t + eps;
    }
    return 1;
}

/* The properties of every successful weighted partition; returns 1 when the case also
 * qualified for the proportionality check: every positive share >= 2 heaviest rows, so
 * that the at-least-one-row rule cannot force a boundary away from its ideal, or fewer
 * rows than processes of power > 0, where that rule does not apply. */
static int check_weighted(int size, int n, const double *w, const double *p, const int *c,
                          const int *d, const char *tag)
{
    REQUIRE(c[n] == SENT - n && d[n] == SENT + n, "%s: wrote past nprocs", tag);
    REQUIRE(d[0] == 0, "%s: displ[0] is %d", tag, d[0]);
    int pos = 0;
    for (int i = 0; i < n; i++) pos += !p || p[i] > 0;
    for (int i = 0; i < n; i++) {
        REQUIRE(c[i] >= 0, "%s: count[%d] is %d", tag, i, c[i]);
        if (i + 1 < n)
            REQUIRE(d[i + 1] == d[i] + c[i], "%s: block %d [%d,+%d) then displ %d", tag,
                          i, d[i], c[i], d[i + 1]);
        if (p && p[i] == 0)
            REQUIRE(c[i] == 0, "%s: rank %d of power 0 got %d rows", tag, i, c[i]);
        else if (size >= pos)
            REQUIRE(c[i] >= 1, "%s: rank %d of power %g got no row (%d rows, %d positive)",
                          tag, i, p ? p[i] : 1.0, size, pos);
    }
    REQUIRE((long long)d[n - 1] + c[n - 1] == size, "%s: last block ends at %lld, not %d",
                  tag, (long long)d[n - 1] + c[n - 1], size);
    if (size == 0) return 0;

    int equal = 1;
    for (int k = 0; w && k < size; k++)
        if (w[k] != 0) equal = 0;
    long double maxw = 0;
    cum[0] = 0;
    for (int k = 0; k < size; k++) {
        long double wk = equal ? 1.0L : (long double)w[k];
        cum[k + 1] = cum[k] + wk;
        if (wk > maxw) maxw = wk;
    }
    long double total = cum[size], ptotal = 0;
    for (int i = 0; i < n; i++) ptotal += p ? p[i] : 1.0;
    for (int i = 0; i < n && size >= pos; i++) {
        long double pw = p ? p[i] : 1.0;
        if (pw > 0 && pw / ptotal * total < 2 * maxw) return 0;
    }
    long double pcum = 0, eps = total * 1e-9L;
    for (int i = 0; i < n; i++) {
        long double pw = p ? p[i] : 1.0;
        pcum += pw;
        if (pw == 0) continue;
        long double t = total * (pcum / ptotal);
        int b = d[i] + c[i];
        REQUIRE(fabsl(cum[b] - t) <= maxw + eps,
                      "%s: rank %d ends at cumulative weight %Lg, ideal %Lg, heaviest row %Lg",
                      tag, i, cum[b], t, maxw);
        REQUIRE(bracketed(size, b, t, eps),
                      "%s: rank %d ends at row %d (weight %Lg); a row boundary lies nearer "
                      "the ideal %Lg", tag, i, b, cum[b], t);
    }
    return 1;
}

/* Random powers in one of several shapes; NULL for equal powers. */
static const double *gen_powers(uint64_t *s, int n, double *p)
{
    int mode = rnd(s, 6);
    double v = 0.01 + 10 * rng_unit(s);
    for (int i = 0; i < n; i++) {
        switch (mode) {
        case 1: p[i] = 0.25 + rng_unit(s); break;
        case 2: p[i] = rnd(s, 4) ? 0.25 + rng_unit(s) : 0; break;
        case 3: p[i] = rnd(s, 5) ? ldexp(1 + rng_unit(s), rnd(s, 17) - 8) : 0; break;
        case 4: p[i] = v; break;
        default: p[i] = rnd(s, 5); break;   /* whole numbers 0..4, sometimes all 0 */
        }
    }
    return mode == 0 ? NULL : p;
}

/* Random row weights in one of several shapes; NULL for equal rows. */
static const double *gen_weights(uint64_t *s, int size, double *w)
{
    int mode = rnd(s, 8), at = size ? rnd(s, size) : 0;
    for (int k = 0; k < size; k++) {
        switch (mode) {
        case 1: w[k] = rng_unit(s); break;
        case 2: w[k] = rnd(s, 10) < 3 ? 0 : rng_unit(s); break;
        case 3: w[k] = rnd(s, 101); break;
        case 4: w[k] = 0; break;
        case 5: w[k] = rnd(s, 50) ? 1 + rng_unit(s) : 1000; break;
        case 6: w[k] = k == at ? 1e12 : 1; break;
        default: w[k] = k == at ? 1e300 : rng_unit(s); break;
        }
    }
    return mode == 0 ? NULL : w;
}

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

/* ----------------------------------------------------------------- nnz */

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

/* --------------------------------------------------------------- check */

/* A random tiling of [0, size) by n blocks laid out in a random rank order; empty blocks
 * either at their cut or anywhere in [0, size]. */
static void random_tiling(uint64_t *s, int size, int n, int *c, int *d)
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

/* ---------------------------------------------------------------- fill */

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

/* ------------------------------------------------------------- overlap */

START_TEST(test_overlap_exhaustive)
{
    int cases = 0, hits = 0;
    for (int ac = 0; ac <= 12; ac++)
        for (int ad = 0; ad <= 12; ad++)
            for (int bc = 0; bc <= 12; bc++)
                for (int bd = 0; bd <= 12; bd++) {
                    int want = 0, first = -1;
                    for (int r = 0; r < 25; r++)
                        if (r >= ad && r < ad + ac && r >= bd && r < bd + bc) {
                            if (!want) first = r;
                            want++;
                        }
                    int lo = SENT, got = xmpi_part_overlap(ac, ad, bc, bd, &lo);
                    REQUIRE(got == want, "[%d,+%d) and [%d,+%d): %d rows, want %d", ad, ac,
                                  bd, bc, got, want);
                    if (want)
                        REQUIRE(lo == first, "[%d,+%d) and [%d,+%d): first %d, want %d",
                                      ad, ac, bd, bc, lo, first);
                    else
                        REQUIRE(lo == SENT, "[%d,+%d) and [%d,+%d): lo set to %d", ad, ac,
                                      bd, bc, lo);
                    cases++;
                    hits += want > 0;
                }
    ck_assert(cases == 13 * 13 * 13 * 13 && hits > 1000);
}
END_TEST

START_TEST(test_overlap_large)
{
    int lo = SENT;
    REQUIRE_EQ(xmpi_part_overlap(5, INT_MAX - 5, INT_MAX - 3, 3, &lo), 5);
    REQUIRE_EQ(lo, INT_MAX - 5);
    lo = SENT;
    REQUIRE_EQ(xmpi_part_overlap(INT_MAX, 0, 1, INT_MAX - 1, &lo), 1);
    REQUIRE_EQ(lo, INT_MAX - 1);
    lo = SENT;
    REQUIRE_EQ(xmpi_part_overlap(INT_MAX, 0, INT_MAX, 0, &lo), INT_MAX);
    REQUIRE_EQ(lo, 0);
    lo = SENT;
    REQUIRE_EQ(xmpi_part_overlap(2, INT_MAX - 2, 0, INT_MAX, &lo), 0);
    REQUIRE_EQ(xmpi_part_overlap(INT_MAX - 7, 0, 7, INT_MAX - 7, &lo), 0);
    REQUIRE_EQ(lo, SENT);
}
END_TEST

Suite *partition_suite(void)
{
    Suite *s = suite_create("partition");
    TCase *tc = tcase_create("even");
    tcase_add_test(tc, test_even_grid);
    tcase_add_test(tc, test_even_large);
    suite_add_tcase(s, tc);

    tc = tcase_create("weighted");
    tcase_add_loop_test(tc, test_weighted_random, 0, WEIGHTED_LOOPS);
    tcase_add_test(tc, test_weighted_scale_invariant);
    tcase_add_test(tc, test_weighted_all_zero_weights);
    tcase_add_test(tc, test_weighted_huge_row);
    tcase_add_test(tc, test_weighted_huge_power);
    tcase_add_test(tc, test_weighted_huge_equal_powers);
    tcase_add_test(tc, test_weighted_huge_weight_sum);
    tcase_add_test(tc, test_weighted_zero_powers);
    tcase_add_test(tc, test_weighted_few_rows);
    tcase_add_test(tc, test_weighted_errors);
    suite_add_tcase(s, tc);

    tc = tcase_create("nnz");
    tcase_add_test(tc, test_nnz_matches_weighted);
    tcase_add_test(tc, test_nnz_errors);
    suite_add_tcase(s, tc);

    tc = tcase_create("check");
    tcase_add_test(tc, test_check_random_tilings);
    tcase_add_test(tc, test_check_known);
    suite_add_tcase(s, tc);

    tc = tcase_create("fill");
    tcase_add_test(tc, test_fill_one_gap);
    tcase_add_test(tc, test_fill_random);
    tcase_add_test(tc, test_fill_known);
    tcase_add_test(tc, test_fill_none);
    suite_add_tcase(s, tc);

    tc = tcase_create("overlap");
    tcase_add_test(tc, test_overlap_exhaustive);
    tcase_add_test(tc, test_overlap_large);
    suite_add_tcase(s, tc);
    return s;
}
