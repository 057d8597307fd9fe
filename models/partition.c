/* Row partitions for redistribution and load balancing: block boundaries placed on the
 * cumulative row weight, then clamped so that no row is lost and no process is starved. */
#include "partition.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void xmpi_part_even_block(int rank, int nprocs, int size, int *count, int *displ)
{
    int q = size / nprocs, r = size % nprocs;
    *count = q + (rank < r);
    *displ = rank * q + (rank < r ? rank : r);
}

void xmpi_part_even(int size, int nprocs, int *count, int *displ)
{
    for (int i = 0; i < nprocs; i++) xmpi_part_even_block(i, nprocs, size, &count[i], &displ[i]);
}

static int bad_values(const double *v, int n, const char *what, char *why, size_t len)
{
    for (int i = 0; v && i < n; i++)
        if (!isfinite(v[i]) || v[i] < 0) {
            snprintf(why, len, "%s[%d] is %g; expected a finite value >= 0", what, i, v[i]);
            return 1;
        }
    return 0;
}

/* The boundary in [0, size] whose cumulative weight cum[] is nearest to target (the lower
 * one on a tie); cum is non-decreasing with cum[0] = 0. */
static int nearest(const double *cum, int size, double target)
{
    int lo = 0, hi = size;
    while (lo < hi) {                  /* first i with cum[i] >= target */
        int mid = lo + (hi - lo) / 2;
        if (cum[mid] >= target) hi = mid;
        else lo = mid + 1;
    }
    if (lo > 0 && target - cum[lo - 1] <= cum[lo] - target) lo--;
    return lo;
}

int xmpi_part_weighted(int size, int nprocs, const double *rowweight, const double *power,
                       int *count, int *displ, char *why, size_t len)
{
    if (size < 0 || nprocs < 1 || !count || !displ) {
        snprintf(why, len, "size %d, nprocs %d: expected size >= 0, nprocs >= 1 and output arrays",
                 size, nprocs);
        return -1;
    }
    if (bad_values(power, nprocs, "power", why, len) ||
        bad_values(rowweight, size, "row weight", why, len))
        return -1;
    double ptotal = 0;
    int positive = 0;
    /* Powers and weights are scaled by their largest value, so that sums of values near
     * DBL_MAX stay finite (only ratios matter). */
    double pmax = 0, wmax = 0;
    for (int i = 0; power && i < nprocs; i++) pmax = power[i] > pmax ? power[i] : pmax;
    for (int i = 0; rowweight && i < size; i++) wmax = rowweight[i] > wmax ? rowweight[i] : wmax;
    if (pmax == 0) pmax = 1;
    if (wmax == 0) wmax = 1;
    for (int i = 0; i < nprocs; i++) {
        double pw = power ? power[i] / pmax : 1.0;
        ptotal += pw;
        positive += pw > 0;
    }
    if (size > 0 && positive == 0) {
        snprintf(why, len, "every power is 0: no process can take the %d rows", size);
        return -1;
    }
    int *b = malloc(sizeof *b * ((size_t)nprocs + 1));
    double *cum = NULL;
    double wtotal = 0;
    if (rowweight && size > 0) {
        if ((cum = malloc(sizeof *cum * ((size_t)size + 1)))) {
            cum[0] = 0;
            for (int i = 0; i < size; i++) cum[i + 1] = cum[i] + rowweight[i] / wmax;
            wtotal = cum[size];
        } else {
            free(b);
            snprintf(why, len, "out of memory");
            return -2;
        }
    }
    if (!b) {
        free(cum);
        snprintf(why, len, "out of memory");
        return -2;
    }
    /* Processes that must keep a row, counted from the right, bound each boundary above. */
    int must = size >= positive;
    int after = positive;             /* processes of power > 0 after index i */
    int lastpos = -1;                 /* the last process of power > 0 takes the tail */
    for (int i = 0; i < nprocs; i++)
        if (!power || power[i] > 0) lastpos = i;
    double pcum = 0;
    b[0] = 0;
    for (int i = 0; i < nprocs; i++) {
        double pw = power ? power[i] / pmax : 1.0;
        pcum += pw;
        int need = must && pw > 0;
        after -= pw > 0;
        int at;
        if (pw == 0) at = b[i];
        else if (i == lastpos) at = size;
        else if (cum && wtotal > 0) at = nearest(cum, size, wtotal * (pcum / ptotal));
        else at = (int)llround((double)size * (pcum / ptotal));
        if (at < b[i] + need) at = b[i] + need;
        int upper = size - (must ? after : 0);
        if (at > upper) at = upper;
        if (at > size) at = size;
        b[i + 1] = at;
    }
    for (int i = 0; i < nprocs; i++) {
        count[i] = b[i + 1] - b[i];
        displ[i] = b[i];
    }
    free(b);
    free(cum);
    return 0;
}

int xmpi_part_nnz(int size, int nprocs, const int *rownnz, const double *power,
                  int *count, int *displ, char *why, size_t len)
{
    if (size < 0 || (size > 0 && !rownnz)) {
        snprintf(why, len, "size %d with %s row lengths", size, rownnz ? "given" : "no");
        return -1;
    }
    double *w = malloc(sizeof *w * ((size_t)size + 1));
    if (!w) {
        snprintf(why, len, "out of memory");
        return -2;
    }
    int rc = 0;
    for (int i = 0; i < size && !rc; i++) {
        if (rownnz[i] < 0) {
            snprintf(why, len, "row %d has %d nonzeros; expected >= 0", i, rownnz[i]);
            rc = -1;
        }
        w[i] = rownnz[i];
    }
    if (!rc) rc = xmpi_part_weighted(size, nprocs, w, power, count, displ, why, len);
    free(w);
    return rc;
}

struct block { int displ, count, rank; };

static int by_displ(const void *a, const void *b)
{
    const struct block *x = a, *y = b;
    if (x->displ != y->displ) return x->displ < y->displ ? -1 : 1;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

int xmpi_part_check(int size, int nprocs, const int *count, const int *displ,
                    char *why, size_t len)
{
    long long total = 0;
    int nonempty = 0;
    for (int i = 0; i < nprocs; i++) {
        if (count[i] < 0) {
            snprintf(why, len, "rank %d has %d rows; expected >= 0", i, count[i]);
            return -1;
        }
        if (displ[i] < 0 || (long long)displ[i] + count[i] > size) {
            snprintf(why, len, "rank %d's rows [%d, %lld) are not inside [0, %d)", i, displ[i],
                     (long long)displ[i] + count[i], size);
            return -1;
        }
        total += count[i];
        nonempty += count[i] > 0;
    }
    struct block *order = malloc(sizeof *order * ((size_t)nonempty + 1));
    if (!order) {
        snprintf(why, len, "out of memory");
        return -1;
    }
    for (int i = 0, k = 0; i < nprocs; i++)
        if (count[i] > 0) order[k++] = (struct block){displ[i], count[i], i};
    qsort(order, (size_t)nonempty, sizeof *order, by_displ);
    int rc = 0;
    for (int k = 1; k < nonempty && !rc; k++) {
        const struct block *a = &order[k - 1], *c = &order[k];
        if (a->displ + a->count > c->displ) {
            snprintf(why, len, "rank %d's rows [%d, %d) and rank %d's rows [%d, %d) overlap",
                     a->rank, a->displ, a->displ + a->count, c->rank, c->displ,
                     c->displ + c->count);
            rc = -1;
        }
    }
    free(order);
    if (!rc && total != size) {
        snprintf(why, len, "the blocks hold %lld rows in all; expected %d (every row once)",
                 total, size);
        rc = -1;
    }
    return rc;
}

int xmpi_part_fill(int size, int nprocs, const int *fill, int *count, int *displ,
                   char *why, size_t len)
{
    struct block *b = malloc(sizeof *b * ((size_t)nprocs + 1));
    int *fc = malloc(sizeof *fc * ((size_t)nprocs + 1) * 2);
    if (!b || !fc) {
        free(b);
        free(fc);
        snprintf(why, len, "out of memory");
        return -1;
    }
    int *fd = fc + nprocs + 1;
    int nb = 0, nfill = 0, rc = 0;
    long long covered = 0;
    for (int i = 0; i < nprocs && !rc; i++) {
        if (fill[i]) {
            nfill++;
            continue;
        }
        if (count[i] < 0 || displ[i] < 0 || (long long)displ[i] + count[i] > size) {
            snprintf(why, len, "rank %d's rows [%d, %lld) are not inside [0, %d)", i, displ[i],
                     (long long)displ[i] + count[i], size);
            rc = -1;
        } else if (count[i] > 0) {
            b[nb++] = (struct block){displ[i], count[i], i};
            covered += count[i];
        }
    }
    if (!rc) qsort(b, (size_t)nb, sizeof *b, by_displ);
    for (int k = 1; k < nb && !rc; k++)
        if (b[k - 1].displ + b[k - 1].count > b[k].displ) {
            snprintf(why, len, "rank %d's rows [%d, %d) and rank %d's rows [%d, %d) overlap",
                     b[k - 1].rank, b[k - 1].displ, b[k - 1].displ + b[k - 1].count, b[k].rank,
                     b[k].displ, b[k].displ + b[k].count);
            rc = -1;
        }
    if (!rc && nfill > 0) {
        long long left = size - covered;
        long long q = left / nfill, r = left % nfill;
        int at = 0, next = 0;      /* the cursor, and the next covered block after it */
        for (int i = 0, k = 0; i < nprocs && !rc; i++) {
            if (!fill[i]) continue;
            int share = (int)(q + (k++ < r));
            /* Skip covered blocks at the cursor: a share starts in a gap. */
            while (share > 0 && next < nb && b[next].displ <= at) {
                at = b[next].displ + b[next].count;
                next++;
            }
            int gap_end = next < nb ? b[next].displ : size;
            if (share > gap_end - at) {
                snprintf(why, len, "the rows no other block covers are not contiguous enough to "
                         "give rank %d its %d rows in one block", i, share);
                rc = -1;
                break;
            }
            fc[i] = share;
            fd[i] = at;
            at += share;
        }
    }
    for (int i = 0; i < nprocs && !rc; i++)
        if (fill[i]) {
            count[i] = fc[i];
            displ[i] = fd[i];
        }
    free(b);
    free(fc);
    return rc;
}

int xmpi_part_overlap(int ac, int ad, int bc, int bd, int *lo)
{
    long long s = ad > bd ? ad : bd;
    long long e1 = (long long)ad + ac, e2 = (long long)bd + bc;
    long long e = e1 < e2 ? e1 : e2;
    if (e <= s) return 0;
    *lo = (int)s;
    return (int)(e - s);
}

int xmpi_part_handoff(int size, int nprocs, const int *ocount, const int *leaving,
                      int nleaving, int *count, int *displ, char *why, size_t len)
{
    if (nprocs < 1 || !ocount || (nleaving > 0 && !leaving) || nleaving < 0) {
        snprintf(why, len, "bad arguments");
        return -1;
    }
    double *power = malloc(sizeof *power * (size_t)nprocs);
    if (!power) {
        snprintf(why, len, "out of memory");
        return -2;
    }
    double held = 0;
    int holders = 0;
    for (int i = 0; i < nprocs; i++) power[i] = ocount[i];
    for (int k = 0; k < nleaving; k++) {
        if (leaving[k] < 0 || leaving[k] >= nprocs) {
            free(power);
            snprintf(why, len, "leaving rank %d is not in [0, %d)", leaving[k], nprocs);
            return -1;
        }
        power[leaving[k]] = -1;
    }
    for (int i = 0; i < nprocs; i++)
        if (power[i] > 0) held += power[i], holders++;
    for (int i = 0; i < nprocs; i++) {
        if (power[i] < 0) power[i] = 0;
        else if (power[i] == 0) power[i] = holders ? held / holders : 1;
    }
    int rc = xmpi_part_weighted(size, nprocs, NULL, power, count, displ, why, len);
    free(power);
    return rc;
}
