/* The properties every weighted partition must have, and the generators of powers and row
 * weights of the weighted and nnz suites (test_partition_proportional.c, _limits.c, _nnz.c). */
#ifndef XMPIR_TESTS_UNIT_PARTITION_WEIGHTED_H
#define XMPIR_TESTS_UNIT_PARTITION_WEIGHTED_H

#include <math.h>

#include "partition_util.h"

#define MAXP 64            /* processes in the weighted cases */
#define MAXN 2000          /* rows in the weighted cases */

static long double cum[MAXN + 1];

/* Whether boundary b is one of the two bracketing the ideal cumulative weight t: no
 * boundary value lies strictly between cum[b] and t (eps absorbs rounding of t). */
static inline int bracketed(int size, int b, long double t, long double eps)
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
static inline int check_weighted(int size, int n, const double *w, const double *p,
                                 const int *c, const int *d, const char *tag)
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
static inline const double *gen_powers(uint64_t *s, int n, double *p)
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
static inline const double *gen_weights(uint64_t *s, int size, double *w)
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

#endif
