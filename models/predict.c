/* The computational prediction model: work extrapolation or profile, class powers,
 * communication replay with the lambda correction, reconfiguration and redistribution
 * costs, and the entry point that adds them up (Eq. 5.2). Pure functions. */
#include "predict.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../io/textfile.h"
#include "partition.h"

void xmpi_predict_init(struct xmpi_predict_model *m, const struct xmpi_calibration *cal, int spawn_group)
{
    memset(m, 0, sizeof *m);
    if (cal) m->cal = *cal;
    else xmpi_calibration_defaults(&m->cal);
    m->spawn_group = spawn_group != 0;
}

int xmpi_predict_add_class(struct xmpi_predict_model *m, const char *name, double speed)
{
    if (!m || !name || !xmpi_text_name_ok(name) || !isfinite(speed) || speed < 0 ||
        m->nclasses >= XMPIR_MODEL_CLASSES_MAX)
        return XMPIR_MODEL_EARG;
    for (int i = 0; i < m->nclasses; i++)
        if (!strcmp(m->cls[i].name, name)) return XMPIR_MODEL_EARG;
    struct xmpi_predict_class *c = &m->cls[m->nclasses];
    snprintf(c->name, sizeof c->name, "%s", name);
    c->speed = speed;
    c->power = xmpi_calibration_power(&m->cal, name);
    return m->nclasses++;
}

int xmpi_predict_set_profile(struct xmpi_predict_model *m, const double *work_per_iter, int n)
{
    if (!m || n < 0 || (n > 0 && !work_per_iter)) return XMPIR_MODEL_EARG;
    for (int i = 0; i < n; i++)
        if (!isfinite(work_per_iter[i]) || work_per_iter[i] < 0) return XMPIR_MODEL_EARG;
    m->profile = n ? work_per_iter : NULL;
    m->nprofile = n;
    return XMPIR_MODEL_OK;
}

static void history_push(struct xmpi_predict_model *m, double index, double work)
{
    /* An interval seen again replaces its point; an older index means a new run. */
    if (m->nhist && m->hist_index[m->nhist - 1] == index) {
        m->hist_work[m->nhist - 1] = work;
        return;
    }
    if (m->nhist && m->hist_index[m->nhist - 1] > index) m->nhist = 0;
    if (m->nhist == XMPIR_MODEL_HISTORY) {
        memmove(m->hist_index, m->hist_index + 1, (XMPIR_MODEL_HISTORY - 1) * sizeof(double));
        memmove(m->hist_work, m->hist_work + 1, (XMPIR_MODEL_HISTORY - 1) * sizeof(double));
        m->nhist--;
    }
    m->hist_index[m->nhist] = index;
    m->hist_work[m->nhist] = work;
    m->nhist++;
}

int xmpi_predict_observe(struct xmpi_predict_model *m, const struct xmpi_interval *s,
                       const int *rank_class)
{
    if (!m || !s || s->nprocs < 1 || !(s->iterations > 0) || !isfinite(s->work_sum) ||
        s->work_sum < 0)
        return XMPIR_MODEL_EARG;
    if (rank_class)
        for (int r = 0; r < s->nprocs; r++)
            if (rank_class[r] < 0 || rank_class[r] >= m->nclasses) return XMPIR_MODEL_EARG;
    history_push(m, s->index, s->work_sum / s->iterations);
    if (!rank_class || !s->ranks) return XMPIR_MODEL_OK;

    /* A class's power is that of its processes in the last interval only: speeds change
     * (shared nodes, emulated quotas), and the next interval resembles the last one. The
     * compute time excludes the time in MPI, which includes waiting for slower ranks. */
    double sum[XMPIR_MODEL_CLASSES_MAX] = {0};
    int n[XMPIR_MODEL_CLASSES_MAX] = {0};
    for (int r = 0; r < s->nprocs; r++) {
        const struct xmpi_rank_record *x = &s->ranks[r];
        double busy = x->t_real - x->comm_time;
        if (!(busy > 0) || !(x->work > 0)) continue;
        sum[rank_class[r]] += x->work / busy;
        n[rank_class[r]]++;
    }
    for (int c = 0; c < m->nclasses; c++)
        if (n[c]) m->cls[c].power = sum[c] / n[c];
    return XMPIR_MODEL_OK;
}

double xmpi_interval_comm_time(const struct xmpi_interval *s)
{
    if (!s || s->nprocs < 1) return 0;
    double t = 0;
    for (int i = 0; i < XMPIR_OP_COUNT; i++) t += s->op[i].time;
    return t / s->nprocs;
}

/* Operations whose per-rank bytes are a share of a fixed whole (a distributed array
 * gathered, scattered or transposed): on q' processes each rank's share is q/q' of
 * today's. The others (point-to-point halos, broadcast and reduced buffers) keep their
 * size whatever the number of processes. */
static int is_share(int op)
{
    switch (op) {
    case XMPIR_OP_GATHER:
    case XMPIR_OP_GATHERV:
    case XMPIR_OP_SCATTER:
    case XMPIR_OP_SCATTERV:
    case XMPIR_OP_ALLGATHER:
    case XMPIR_OP_ALLGATHERV:
    case XMPIR_OP_ALLTOALL:
    case XMPIR_OP_ALLTOALLV: return 1;
    }
    return 0;
}

/* The interval's op[] is summed over ranks: calls / nprocs is what one rank calls, bytes /
 * calls the mean message and procs / calls the mean communicator size. Each rank keeps
 * its number of calls on p processes (one per collective, the same halo neighbours), and a
 * communicator keeps its share of the world (q' = q p / nprocs: the world stays the world,
 * a half stays a half). */
int xmpi_predict_comm(const struct xmpi_interval *s, const struct xmpi_hockney *h, int p,
                      double *t)
{
    if (!s || !h || !t || p < 1 || s->nprocs < 1) return XMPIR_MODEL_EARG;
    double sum = 0;
    for (int op = 0; op < XMPIR_OP_COUNT; op++) {
        const struct xmpi_opstat *o = &s->op[op];
        if (!(o->calls > 0)) continue;
        double per_rank = o->calls / s->nprocs, n = o->bytes / o->calls;
        double q = o->procs / o->calls;
        int q2 = 2;   /* point to point: the communicator does not matter */
        if (op >= XMPIR_OP_BARRIER) {
            double scaled = q * p / s->nprocs;
            q2 = scaled < 1 ? 1 : scaled > 1e9 ? 1000000000 : (int)lround(scaled);
            if (is_share(op) && q >= 1) n = n * q / q2;
        }
        double c;
        if (xmpi_hockney_op(h, op, n, q2, &c)) return XMPIR_MODEL_EARG;
        sum += per_rank * c;
    }
    *t = sum;
    return XMPIR_MODEL_OK;
}

/* The thesis defines lambda = estimated / measured for the last interval (Eq. 5.4) and
 * then writes T_est * lambda (Eq. 5.5). Multiplying goes the wrong way: a model that
 * overestimates by 2 gets lambda = 2 and its next estimate doubled again. Dividing makes
 * a model that is right up to a constant factor reproduce the measured time exactly for
 * the last configuration (T_est / lambda = T_est * measured / estimated), and carries the
 * same factor to the others. lambda keeps the thesis's definition so that traces compare. */
double xmpi_predict_lambda(double estimated, double measured)
{
    if (!(estimated > 0) || !(measured > 0) || !isfinite(estimated) || !isfinite(measured))
        return 1;
    return estimated / measured;
}

/* K = 4 intervals for the line: one noisy interval moves the fit by a fraction instead
 * of the whole error, while a change of trend (a new phase, a different partition) is
 * followed within four intervals; with one interval the work stays as it was. */
static double extrapolate(const struct xmpi_predict_model *m, double next)
{
    int n = m->nhist;
    if (n == 1) return m->hist_work[0];
    double xm = 0, ym = 0;
    for (int i = 0; i < n; i++) xm += m->hist_index[i], ym += m->hist_work[i];
    xm /= n;
    ym /= n;
    double sxx = 0, sxy = 0;
    for (int i = 0; i < n; i++) {
        sxx += (m->hist_index[i] - xm) * (m->hist_index[i] - xm);
        sxy += (m->hist_index[i] - xm) * (m->hist_work[i] - ym);
    }
    double w = sxx > 0 ? ym + sxy / sxx * (next - xm) : ym;
    return w > 0 ? w : 0;   /* a falling trend cannot predict negative work */
}

int xmpi_predict_work(const struct xmpi_predict_model *m, int next, double *work_per_iter)
{
    if (!m || !work_per_iter || next < 1) return XMPIR_MODEL_EARG;
    if (m->nhist == 0) return XMPIR_MODEL_ENODATA;
    int last = (int)m->hist_index[m->nhist - 1];
    if (m->profile && next <= m->nprofile) {
        /* The profile gives the shape, the last interval the scale: this run's input or
         * machine may do more or less work than the profiled one at the same point. */
        double corr = 1;
        if (last >= 1 && last <= m->nprofile && m->profile[last - 1] > 0)
            corr = m->hist_work[m->nhist - 1] / m->profile[last - 1];
        *work_per_iter = m->profile[next - 1] * corr;
        return XMPIR_MODEL_OK;
    }
    *work_per_iter = extrapolate(m, next);
    return XMPIR_MODEL_OK;
}

int xmpi_predict_class_power(const struct xmpi_predict_model *m, int c, double *power)
{
    if (!m || !power || c < 0 || c >= m->nclasses) return XMPIR_MODEL_EARG;
    if (m->cls[c].power > 0) {
        *power = m->cls[c].power;
        return XMPIR_MODEL_OK;
    }
    double sum = 0, per_speed = 0;
    int n = 0, nspeed = 0;
    for (int i = 0; i < m->nclasses; i++) {
        if (!(m->cls[i].power > 0)) continue;
        sum += m->cls[i].power;
        n++;
        if (m->cls[i].speed > 0) {
            per_speed += m->cls[i].power / m->cls[i].speed;
            nspeed++;
        }
    }
    if (!n) return XMPIR_MODEL_ENODATA;
    *power = m->cls[c].speed > 0 && nspeed ? m->cls[c].speed * per_speed / nspeed : sum / n;
    return XMPIR_MODEL_OK;
}

static int counts_ok(const struct xmpi_predict_model *m, const int *counts, int *total)
{
    if (!counts) return 0;
    long t = 0;
    for (int c = 0; c < m->nclasses; c++) {
        if (counts[c] < 0) return 0;
        t += counts[c];
    }
    if (t > 1000000000L) return 0;
    *total = (int)t;
    return 1;
}

int xmpi_predict_comp(const struct xmpi_predict_model *m, double work, const int *counts, double *t)
{
    int total;
    if (!m || !t || !isfinite(work) || work < 0 || !counts_ok(m, counts, &total) || total < 1)
        return XMPIR_MODEL_EARG;
    double sum = 0;
    for (int c = 0; c < m->nclasses; c++) {
        if (!counts[c]) continue;
        double pw;
        int rc = xmpi_predict_class_power(m, c, &pw);
        if (rc) return rc;
        sum += counts[c] * pw;
    }
    *t = work / sum;
    return XMPIR_MODEL_OK;
}

int xmpi_predict_reconfig(const struct xmpi_predict_model *m, const int *current, const int *candidate,
                          struct xmpi_reconfig *out)
{
    int a, b;
    if (!m || !out || !counts_ok(m, current, &a) || !counts_ok(m, candidate, &b))
        return XMPIR_MODEL_EARG;
    int ns = 0, nr = 0;
    for (int c = 0; c < m->nclasses; c++) {
        if (candidate[c] > current[c]) ns += candidate[c] - current[c];
        else nr += current[c] - candidate[c];
    }
    out->nspawn = ns;
    out->nremove = nr;
    /* An asynchronous spawn costs the job its join; what it learns is that join too. */
    double spawn = m->learned.nspawn ? m->learned.spawn
                   : m->spawn_async  ? m->cal.spawn_join
                   : m->spawn_group  ? m->cal.spawn_group : m->cal.spawn_single;
    out->t_spawn = ns * spawn;
    /* A removal grows with the job, not with the processes removed (every process of the job
     * takes part: a new communicator, the leavers' disconnection): 0.6 ms from 2 processes to
     * 1, 1.2-1.3 ms from 3 to 2, 2.0-2.6 ms (medians) from 4 to 2 or to 3 (make bench-model).
     * So it is priced per process of the job beyond the first: the job's own mean, else the
     * calibration's removal scaled from the size it was timed on, else (that size unknown)
     * the calibration's per process removed. */
    if (!nr) out->t_remove = 0;
    else if (m->learned.nremove) out->t_remove = m->learned.remove * (a - 1);
    else if (m->cal.remove_procs >= 2)
        out->t_remove = m->cal.remove * (a - 1) / (m->cal.remove_procs - 1);
    else out->t_remove = nr * m->cal.remove;
    out->t_lag = ns ? (m->learned.nlag ? m->learned.lag : m->cal.spawn_lag) : 0;
    return XMPIR_MODEL_OK;
}

/* ---- redistribution */

static void rows_of(const struct xmpi_partition *p, int i, long *count, long *displ)
{
    *count = i < p->nprocs ? p->count[i] : 0;
    *displ = i < p->nprocs ? p->displ[i] : 0;
}

static long overlap(long d0, long n0, long d1, long n1)
{
    long lo = d0 > d1 ? d0 : d1, hi = d0 + n0 < d1 + n1 ? d0 + n0 : d1 + n1;
    return hi > lo ? hi - lo : 0;
}

static int partition_ok(const struct xmpi_partition *p, long *total)
{
    if (!p || p->nprocs < 0 || (p->nprocs && (!p->count || !p->displ))) return 0;
    long t = 0;
    for (int i = 0; i < p->nprocs; i++) {
        if (p->count[i] < 0 || p->displ[i] < 0) return 0;
        t += p->count[i];
    }
    *total = t;
    return 1;
}

static int desc_ok(const struct xmpi_struct_desc *d, long total)
{
    if (d->kind < XMPIR_STRUCT_VECTOR || d->kind > XMPIR_STRUCT_SPARSE) return 0;
    if (d->replicated != 0 && d->replicated != 1) return 0;
    if (!isfinite(d->elem_size) || !(d->elem_size > 0) || d->rows != (double)total) return 0;
    if (d->kind == XMPIR_STRUCT_DENSE && (!isfinite(d->row_len) || d->row_len < 0)) return 0;
    if (d->kind == XMPIR_STRUCT_SPARSE &&
        (!isfinite(d->nnz) || d->nnz < 0 || !isfinite(d->index_size) || !(d->index_size > 0)))
        return 0;
    return 1;
}

/* What one repartition looks like from the busiest process, the same for every array. */
struct moves {
    int changed;
    int nid;             /* processes taking part: old and new */
    long max_moved;      /* rows the busiest process sends or receives */
    long max_recv;       /* rows the process receiving most receives */
    int max_peers;       /* processes the busiest exchanges rows with */
    long max_new;        /* largest new block */
    long received;       /* rows that arrive at a new owner */
    long replicas;       /* rows an Allgatherv of the whole delivers: sum of total - own */
    int fillers;         /* processes with a new block (a replicated array's fillers) */
};

/* One non-empty block of a partition, for the peer count's sorted walk. */
struct span { long lo, hi; int id; };

static int by_lo(const void *a, const void *b)
{
    const struct span *x = a, *y = b;
    return (x->lo > y->lo) - (x->lo < y->lo);
}

/* The non-empty blocks of p among processes 0..nid-1, sorted by where they start, in *n;
 * NULL when two of them overlap (a partition the model is given need not tile) or without
 * memory: the caller then counts pair by pair. */
static struct span *spans_of(const struct xmpi_partition *p, int nid, int *n)
{
    struct span *s = malloc(sizeof *s * (size_t)(nid > 0 ? nid : 1));
    if (!s) return NULL;
    int k = 0;
    for (int i = 0; i < nid; i++) {
        long c, d;
        rows_of(p, i, &c, &d);
        if (c > 0) s[k++] = (struct span){d, d + c, i};
    }
    qsort(s, (size_t)k, sizeof *s, by_lo);
    for (int j = 1; j < k; j++)
        if (s[j - 1].hi > s[j].lo) {
            free(s);
            return NULL;
        }
    *n = k;
    return s;
}

/* The first of n disjoint sorted spans that ends after `lo`. */
static int first_after(const struct span *s, int n, long lo)
{
    int a = 0, b = n;
    while (a < b) {
        int mid = a + (b - a) / 2;
        if (s[mid].hi > lo) b = mid;
        else a = mid + 1;
    }
    return a;
}

/* The processes process i exchanges rows with: those whose new block meets its old one, and
 * those whose old block meets its new one (each counted once). Pair by pair when a partition's
 * blocks overlap (sn or so NULL): O(nid); else by walking the sorted spans that meet i's
 * blocks, so that all processes together cost O(nid log nid) (issue 42: the pairwise count
 * was O(nid^2) per prediction, 0.04 s at 4096 processes in xmpi-scalerank0). */
static int peers_of(const struct xmpi_partition *from, const struct xmpi_partition *to, int nid,
                    int i, const struct span *so, int no, const struct span *sn, int nn)
{
    long oc, od, nc, nd;
    rows_of(from, i, &oc, &od);
    rows_of(to, i, &nc, &nd);
    int peers = 0;
    if (!so || !sn) {
        for (int j = 0; j < nid; j++) {
            if (j == i) continue;
            long ojc, ojd, njc, njd;
            rows_of(from, j, &ojc, &ojd);
            rows_of(to, j, &njc, &njd);
            if (overlap(od, oc, njd, njc) || overlap(nd, nc, ojd, ojc)) peers++;
        }
        return peers;
    }
    for (int k = oc > 0 ? first_after(sn, nn, od) : nn; k < nn && sn[k].lo < od + oc; k++)
        peers += sn[k].id != i;
    for (int k = nc > 0 ? first_after(so, no, nd) : no; k < no && so[k].lo < nd + nc; k++) {
        long njc, njd;
        if (so[k].id == i) continue;
        rows_of(to, so[k].id, &njc, &njd);
        peers += !overlap(od, oc, njd, njc);   /* not counted above */
    }
    return peers;
}

static void moves_of(const struct xmpi_partition *from, const struct xmpi_partition *to,
                     long total, struct moves *mv)
{
    memset(mv, 0, sizeof *mv);
    int nid = from->nprocs > to->nprocs ? from->nprocs : to->nprocs, no = 0, nn = 0;
    mv->nid = nid;
    mv->changed = from->nprocs != to->nprocs;
    struct span *so = spans_of(from, nid, &no), *sn = so ? spans_of(to, nid, &nn) : NULL;
    for (int i = 0; i < nid; i++) {
        long oc, od, nc, nd;
        rows_of(from, i, &oc, &od);
        rows_of(to, i, &nc, &nd);
        if (oc != nc || (oc && od != nd)) mv->changed = 1;
        long keep = overlap(od, oc, nd, nc), sent = oc - keep, recv = nc - keep;
        long most = sent > recv ? sent : recv;
        if (most > mv->max_moved) mv->max_moved = most;
        if (recv > mv->max_recv) mv->max_recv = recv;
        if (nc > mv->max_new) mv->max_new = nc;
        if (nc > 0) mv->fillers++;
        mv->received += recv;
        mv->replicas += total - nc;
        int peers = peers_of(from, to, nid, i, so, no, sn, nn);
        if (peers > mv->max_peers) mv->max_peers = peers;
    }
    free(so);
    free(sn);
}

/* take_buffer of libxmpi/registry.c on one process's spares (XMPIR_SPARE_SLOTS, NULL: none):
 * the smallest of at least `bytes` and not more than twice as large is taken (its slot
 * emptied); 1 when one was. */
static int take_spare(double *slots, double bytes)
{
    int best = -1;
    for (int i = 0; slots && i < XMPIR_SPARE_SLOTS; i++)
        if (slots[i] > 0 && slots[i] >= bytes && floor(slots[i] / 2) <= bytes &&
            (best < 0 || slots[i] < slots[best]))
            best = i;
    if (best < 0) return 0;
    slots[best] = 0;
    return 1;
}

/* The fresh memory of one distributed array (row_bytes per row) in rows, as the registry
 * allocates it (prepare in libxmpi/registry.c): the most rows a process copies from its own
 * old block into a fresh new one (*self), the most it receives into fresh memory (*recv), and
 * the number of processes filling any (*fillers). A block that keeps no rows in place is received whole
 * into a new buffer; one that keeps all it had grows by the rows that arrive, received in
 * place; one that keeps some receives the arrivals into a buffer and copies them into its
 * own, grown if it is larger; a sparse part (whole) always moves into a new buffer, of
 * `extra` bytes beyond its rows (IA's one more entry). A new buffer a spare serves (pool:
 * XMPIR_SPARE_SLOTS per process, NULL: none) is memory already mapped, not fresh; the spares
 * it takes are gone for the arrays after it. A block that grows is counted fresh by its new
 * rows although its buffer may already have room for them (one taken from a larger spare):
 * the records do not say how much room each block has. */
static void fresh_of(const struct xmpi_partition *from, const struct xmpi_partition *to, int nid,
                     double *pool, double row_bytes, double extra, int whole, long *self,
                     long *recv, int *fillers)
{
    *self = *recv = 0;
    *fillers = 0;
    for (int i = 0; i < nid; i++) {
        long oc, od, nc, nd;
        rows_of(from, i, &oc, &od);
        rows_of(to, i, &nc, &nd);
        if (nc == 0) continue;
        double *slots = pool ? pool + (size_t)i * XMPIR_SPARE_SLOTS : NULL;
        long keep = whole ? 0 : overlap(od, oc, nd, nc), fresh, own = 0;
        if (keep == 0) {
            fresh = take_spare(slots, (double)nc * row_bytes + extra) ? 0 : nc;
            /* A new buffer for the whole block: the rows it had are copied into it by the
             * exchange's part to itself, which MPI makes before any send. */
            if (fresh) own = overlap(od, oc, nd, nc);
        } else if (keep == oc) {
            fresh = nc - oc;
        } else {
            fresh = (nc > oc ? nc - oc : 0) +
                    (take_spare(slots, (double)(nc - keep) * row_bytes) ? 0 : nc - keep);
        }
        if (own > *self) *self = own;
        if (fresh - own > *recv) *recv = fresh - own;
        if (fresh > 0) ++*fillers;
    }
}

/* Eq. 5.9 for one array of row_bytes per row, plus what the thesis leaves out and this
 * library's move costs: filling fresh memory, page faults and all (h->copy per byte), its own
 * rows and then what arrives (fresh_of; a replicated array: every process the whole array),
 * all processes at once: where page faults contend (two processes faulting 34 MiB each took
 * 0.14-0.16 s, one alone 0.12 s: xmpi-calibrate), each other filler adds h->copy_contention x copy.
 * What a process receives it then reads once in the move (registry.c touch_pages: the first
 * read of pages a receive wrote, h->touch per byte), the process receiving most. */
static double array_cost(const struct xmpi_hockney *h, const struct moves *mv, double row_bytes,
                         double extra, int replicated, int whole, long total,
                         const struct xmpi_partition *from, const struct xmpi_partition *to,
                         double *pool, double *bytes)
{
    if (replicated) {
        double copy = h->copy * (1 + h->copy_contention * (mv->fillers > 1 ? mv->fillers - 1 : 0));
        *bytes += mv->replicas * row_bytes;
        /* More processes than cores: the whole's bytes one transfer after another, not the
         * largest block's (hockney.c, crowded). */
        double ag = xmpi_hockney_crowded_gather(h, (double)total * row_bytes, mv->nid);
        if (!(ag > 0)) ag = xmpi_hockney_allgatherv(h, mv->max_new * row_bytes, mv->nid);
        return ag + (double)total * row_bytes * (copy + h->touch);
    }
    /* whole: the array always moves into new buffers, every block whole (a sparse one). */
    long self, recv;
    int f;
    fresh_of(from, to, mv->nid, pool, row_bytes, extra, whole, &self, &recv, &f);
    double copy = h->copy * (1 + h->copy_contention * (f > 1 ? f - 1 : 0));
    *bytes += mv->received * row_bytes;
    /* The fills in sequence: a process copying its own rows into a fresh buffer sends only
     * after that copy, and its receivers fill theirs as the rows arrive (a CG spawn 1 -> 2
     * moved its matrix in 5.3 ms with the parent's new buffer fresh, 3.7 ms with it taken
     * from the spares, the new process filling fresh memory in both). The most rows any
     * process copies into a fresh buffer of its own, then the most any receives into one:
     * at least what the process filling most fills, which does both on its own time. */
    return xmpi_hockney_alltoallv(h, mv->max_moved * row_bytes, mv->max_peers) +
           (double)(self + recv) * row_bytes * copy + (double)mv->max_recv * row_bytes * h->touch;
}

int xmpi_predict_redist(const struct xmpi_hockney *h, const struct xmpi_struct_desc *d, int nd,
                        const struct xmpi_partition *from, const struct xmpi_partition *to,
                        double *bytes, double *t)
{
    long tf, tt;
    if (!h || !bytes || !t || nd < 0 || (nd && !d) || !partition_ok(from, &tf) ||
        !partition_ok(to, &tt) || tf != tt)
        return XMPIR_MODEL_EARG;
    for (int i = 0; i < nd; i++)
        if (!desc_ok(&d[i], tf)) return XMPIR_MODEL_EARG;
    if (xmpi_hockney_p2p(h, 0) < 0) return XMPIR_MODEL_EARG;
    struct moves mv;
    moves_of(from, to, tf, &mv);
    /* Every process's spares, taken array by array in the registry's order. */
    double *pool = NULL;
    if (from->spare && mv.changed) {
        pool = calloc((size_t)mv.nid * XMPIR_SPARE_SLOTS, sizeof *pool);
        if (!pool) return XMPIR_MODEL_ENOMEM;
        memcpy(pool, from->spare, (size_t)from->nprocs * XMPIR_SPARE_SLOTS * sizeof *pool);
    }
    double b = 0, sum = 0;
    for (int i = 0; mv.changed && i < nd; i++) {
        const struct xmpi_struct_desc *s = &d[i];
        switch (s->kind) {
        case XMPIR_STRUCT_VECTOR:
            sum += array_cost(h, &mv, s->elem_size, 0, s->replicated, 0, tf, from, to, pool, &b);
            break;
        case XMPIR_STRUCT_DENSE:
            sum += array_cost(h, &mv, s->elem_size * s->row_len, 0, s->replicated, 0, tf, from,
                              to, pool, &b);
            break;
        default: {
            /* Eq. 5.10: IA is always distributed; JA and A follow the scheme. Rows carry
             * the mean nonzeros per row: the description has no per-row counts. */
            double per_row = s->rows > 0 ? s->nnz / s->rows : 0;
            if (!s->replicated) {
                sum += array_cost(h, &mv, s->index_size, s->index_size, 0, 1, tf, from, to, pool,
                                  &b);
                sum += array_cost(h, &mv, per_row * s->index_size, 0, 0, 1, tf, from, to, pool,
                                  &b);
                sum += array_cost(h, &mv, per_row * s->elem_size, 0, 0, 1, tf, from, to, pool,
                                  &b);
                break;
            }
            /* Replicated: priced as fresh memory, as before the spares were known; the
             * registry's three whole-matrix buffers on every process still take spares. */
            sum += array_cost(h, &mv, s->index_size, s->index_size, 0, 1, tf, from, to, NULL, &b);
            sum += array_cost(h, &mv, per_row * s->index_size, 0, 1, 1, tf, from, to, NULL, &b);
            sum += array_cost(h, &mv, per_row * s->elem_size, 0, 1, 1, tf, from, to, NULL, &b);
            for (int p = 0; pool && p < mv.nid; p++) {
                double *slots = pool + (size_t)p * XMPIR_SPARE_SLOTS;
                take_spare(slots, (double)(tf + 1) * s->index_size);
                take_spare(slots, s->nnz * s->index_size);
                take_spare(slots, s->nnz * s->elem_size);
            }
        }
        }
    }
    free(pool);
    *bytes = b;
    *t = sum;
    return XMPIR_MODEL_OK;
}

/* The new partition when the caller has none, as the library would make it: removed
 * processes are the most recently spawned of their class (the scheduler's choice; they
 * hold the highest ranks), spawned ones join at the end in class order, and the load
 * balancer gives each process rows in proportion to its class's power. */
static int layout(const struct xmpi_predict_model *m, const struct xmpi_predict_request *rq, long rows,
                  long **count_out, long **displ_out, int *nid_out)
{
    int nold = rq->part.nprocs, nspawn = 0;
    for (int c = 0; c < m->nclasses; c++)
        if (rq->candidate[c] > rq->current[c]) nspawn += rq->candidate[c] - rq->current[c];
    int nid = nold + nspawn;
    int *keep = malloc((size_t)nid * sizeof *keep), *cls = malloc((size_t)nid * sizeof *cls);
    int *order = malloc((size_t)nid * sizeof *order);
    double *w = calloc((size_t)nid, sizeof *w);
    int *cnt = malloc((size_t)nid * sizeof *cnt), *dsp = malloc((size_t)nid * sizeof *dsp);
    long *icnt = calloc((size_t)nid, sizeof *icnt), *idsp = calloc((size_t)nid, sizeof *idsp);
    int rc = XMPIR_MODEL_ENOMEM;
    if (!keep || !cls || !order || !w || !cnt || !dsp || !icnt || !idsp) goto out;
    for (int r = 0; r < nold; r++) keep[r] = 1, cls[r] = rq->rank_class[r];
    for (int c = 0; c < m->nclasses; c++) {
        int drop = rq->current[c] - rq->candidate[c];
        for (int r = nold - 1; r >= 0 && drop > 0; r--)
            if (cls[r] == c) keep[r] = 0, drop--;
    }
    int id = nold;
    for (int c = 0; c < m->nclasses; c++)
        for (int k = rq->current[c]; k < rq->candidate[c]; k++) keep[id] = 1, cls[id++] = c;
    int n = 0;
    for (int i = 0; i < nid; i++) {
        if (!keep[i]) continue;
        if ((rc = xmpi_predict_class_power(m, cls[i], &w[n]))) goto out;
        order[n++] = i;
    }
    /* The split the library itself makes (models/partition.c), so the prediction prices
     * the move that would really happen. */
    char why[200];
    rc = rows > INT_MAX ? XMPIR_MODEL_EARG
                        : xmpi_part_weighted((int)rows, n, NULL, w, cnt, dsp, why, sizeof why);
    if (rc) {
        rc = rc == -2 ? XMPIR_MODEL_ENOMEM : XMPIR_MODEL_EARG;
        goto out;
    }
    for (int j = 0; j < n; j++) icnt[order[j]] = cnt[j], idsp[order[j]] = dsp[j];
    *count_out = icnt;
    *displ_out = idsp;
    *nid_out = nid;
    icnt = idsp = NULL;
out:
    free(keep);
    free(cls);
    free(order);
    free(w);
    free(cnt);
    free(dsp);
    free(icnt);
    free(idsp);
    return rc;
}

static int same_counts(const struct xmpi_predict_model *m, const int *a, const int *b)
{
    for (int c = 0; c < m->nclasses; c++)
        if (a[c] != b[c]) return 0;
    return 1;
}

/* The current partition must describe the current configuration rank by rank. */
static int request_part_ok(const struct xmpi_predict_model *m, const struct xmpi_predict_request *rq,
                           int ncur)
{
    if (rq->part.nprocs != ncur || !rq->rank_class) return 0;
    int seen[XMPIR_MODEL_CLASSES_MAX] = {0};
    for (int r = 0; r < ncur; r++) {
        if (rq->rank_class[r] < 0 || rq->rank_class[r] >= m->nclasses) return 0;
        seen[rq->rank_class[r]]++;
    }
    for (int c = 0; c < m->nclasses; c++)
        if (seen[c] != rq->current[c]) return 0;
    return 1;
}

static int predict_redist(const struct xmpi_predict_model *m, const struct xmpi_predict_request *rq,
                          const struct xmpi_hockney *net, int ncur, double *bytes, double *t)
{
    *bytes = *t = 0;
    if (rq->nstructs == 0 || !rq->part.count) return XMPIR_MODEL_OK;
    long total;
    if (!rq->structs || rq->nstructs < 0 || !partition_ok(&rq->part, &total))
        return XMPIR_MODEL_EARG;
    /* The spares the current processes reported in the interval's records, where the caller
     * gave none (one rank's record per process of the current partition). */
    struct xmpi_partition from = rq->part;
    double *spare = NULL;
    const struct xmpi_interval *s = rq->interval;
    if (!from.spare && s->ranks && s->nprocs == from.nprocs) {
        spare = malloc((size_t)from.nprocs * XMPIR_SPARE_SLOTS * sizeof *spare);
        if (!spare) return XMPIR_MODEL_ENOMEM;
        for (int r = 0; r < from.nprocs; r++)
            memcpy(spare + (size_t)r * XMPIR_SPARE_SLOTS, s->ranks[r].spare,
                   sizeof s->ranks[r].spare);
        from.spare = spare;
    }
    int rc = XMPIR_MODEL_OK;
    long *count = NULL, *displ = NULL;
    if (rq->next) {
        rc = xmpi_predict_redist(net, rq->structs, rq->nstructs, &from, rq->next, bytes, t);
    } else if (same_counts(m, rq->current, rq->candidate)) {
        /* Keeping the configuration moves nothing: rebalancing is the load balancer's
         * decision, not a consequence of this candidate. */
    } else if (!request_part_ok(m, rq, ncur)) {
        rc = XMPIR_MODEL_EARG;
    } else {
        int nid;
        if (!(rc = layout(m, rq, total, &count, &displ, &nid))) {
            struct xmpi_partition next = {nid, count, displ, NULL};
            rc = xmpi_predict_redist(net, rq->structs, rq->nstructs, &from, &next, bytes, t);
        }
    }
    free(count);
    free(displ);
    free(spare);
    return rc;
}

/* p's t_comm and lambda: the job's own time at that size and link, else the last one replayed. */
static int predict_candidate_comm(const struct xmpi_predict_model *m,
                                  const struct xmpi_predict_request *rq, struct xmpi_prediction *p)
{
    const struct xmpi_interval *s = rq->interval;
    int ncand = p->nprocs, rc;
    const struct xmpi_hockney *now = rq->mixed_now ? &m->cal.spawned : &m->cal.net;
    const struct xmpi_hockney *next = rq->mixed_next ? &m->cal.spawned : &m->cal.net;
    double est_last, raw;
    if ((rc = xmpi_predict_comm(s, now, s->nprocs, &est_last))) return rc;
    if ((rc = xmpi_predict_comm(s, next, ncand, &raw))) return rc;
    double meas = xmpi_interval_comm_time(s);
    p->lambda = xmpi_predict_lambda(est_last, meas);
    int to = rq->mixed_next != 0;
    if (ncand != s->nprocs && ncand < XMPIR_MODEL_SIZES && m->size_comm[to][ncand] > 0) {
        /* A size the job ran at over this link: what it took there. The replay scaled by
         * today's lambda prices transfers, and most of what a call measures here is waiting
         * (a Jacobi on 1 process spends 3 us per iteration in its calls, on 2 processes 500),
         * which does not scale with them (make bench-model). */
        p->t_comm = m->size_comm[to][ncand] * s->iterations;
    } else if (to == (rq->mixed_now != 0)) {
        p->t_comm = raw / p->lambda;
    } else if (m->link_seen[to]) {
        p->lambda = m->link_lambda[to];
        p->t_comm = raw / p->lambda;
    } else {
        /* A link never measured: the measured communication is mostly waiting (a Jacobi on
         * 2 processes of one spawn spent 40 times its transfers' price in its calls), and
         * that factor carried over to the slower link predicted 3 times what 4 processes of
         * two spawns then took, so AMP never tried them. The waiting is carried as seconds
         * instead, the new link's transfers priced as they are: a guess on the low side that
         * the next interval corrects (observe_link). */
        double wait = meas - est_last;
        /* From 1 process, which waits for nobody: the balancer's tolerance. It rebalances
         * beyond an imbalance of lb_tolerance, so a spread of up to that share of the slowest
         * process's compute time stays; spread evenly, a process waits for half of it, and
         * the spread is anywhere from 0 to the tolerance: lb_tolerance / 4 of the computation
         * on average. A Jacobi of 2 processes on whole cores (-n 3000, started by mpirun),
         * which the balancer left alone, spent 0.5-1.3 ms per 40 iterations in
         * its calls on one rank and 2.5-8 ms on the other, of 108 ms of computation each;
         * after a spawn 1 -> 2, 3.4-19.6 ms on average over the two (make bench-model). */
        if (s->nprocs == 1 && ncand > 1 && m->lb_tolerance > 0)
            wait = m->lb_tolerance / 4 * p->t_comp;
        p->lambda = 1;
        p->t_comm = raw + (wait > 0 ? wait : 0);
    }
    return XMPIR_MODEL_OK;
}

int xmpi_predict_interval(const struct xmpi_predict_model *m, const struct xmpi_predict_request *rq,
                       struct xmpi_prediction *out)
{
    int ncur, ncand;
    if (!m || !rq || !out || !rq->interval || rq->interval->nprocs < 1 ||
        !(rq->interval->iterations > 0) || !counts_ok(m, rq->current, &ncur) ||
        !counts_ok(m, rq->candidate, &ncand) || ncand < 1)
        return XMPIR_MODEL_EARG;
    const struct xmpi_interval *s = rq->interval;
    if (!m->nhist || m->hist_index[m->nhist - 1] != s->index) return XMPIR_MODEL_ESTATE;

    struct xmpi_prediction p;
    memset(&p, 0, sizeof p);
    p.nprocs = ncand;
    p.iterations = s->iterations;
    double wpi;
    int rc = xmpi_predict_work(m, s->index + 1, &wpi);
    if (rc) return rc;
    p.work = wpi * s->iterations;
    if ((rc = xmpi_predict_comp(m, p.work, rq->candidate, &p.t_comp))) return rc;
    p.comp_scale = m->learned.ncomp && ncand != ncur ? exp(m->learned.comp_k * (ncand - ncur)) : 1;
    p.t_comp *= p.comp_scale;

    if ((rc = predict_candidate_comm(m, rq, &p))) return rc;

    struct xmpi_reconfig rc_cost;
    if ((rc = xmpi_predict_reconfig(m, rq->current, rq->candidate, &rc_cost))) return rc;
    p.nspawn = rc_cost.nspawn;
    p.nremove = rc_cost.nremove;
    p.t_spawn = rc_cost.t_spawn;
    p.t_remove = rc_cost.t_remove;
    p.t_lag = rc_cost.t_lag;

    /* Eq. 5.8 carries lambda as well, and the thesis's lambda corrects for other jobs'
     * traffic on the network. Here the measured communication also holds the time ranks wait
     * for slower ones inside MPI calls (an Allgatherv after uneven compute), often 100 times
     * the transfer itself; a bulk move has no such wait, and dividing by that lambda predicted
     * seconds for moves of milliseconds (make bench-model). The move is priced as it is. */
    /* The move crosses the spawned link when either side of it has processes of two spawns. */
    if ((rc = predict_redist(m, rq, rq->mixed_now || rq->mixed_next ? &m->cal.spawned : &m->cal.net,
                             ncur, &p.redist_bytes, &p.t_redist)))
        return rc;

    /* The first interval's warm-up, from the job's earlier actions of the kind. */
    p.warm_comp = 1;
    int wk = p.nspawn ? 0 : p.nremove ? 1 : -1;
    if (wk >= 0 && m->learned.nwarm_comp[wk]) p.warm_comp = exp(m->learned.warm_comp[wk]);
    if (wk >= 0 && m->learned.nwarm_comm[wk]) {
        p.warm_comm = m->learned.warm_comm[wk] * p.iterations;
        if (p.t_comm + p.warm_comm < 0) p.warm_comm = -p.t_comm;
    }
    p.t_warm = p.t_comp * (p.warm_comp - 1) + p.warm_comm;

    int kind = p.nspawn ? 0 : p.nremove ? 1 : 2;
    if (m->learned.nredist[kind] && (p.redist_bytes > 0 || p.nspawn || p.nremove)) {
        p.redist_fixed = m->learned.redist_fixed[kind];
        p.t_redist += p.redist_fixed;
    }

    p.t_total = p.t_comp + p.t_comm + p.t_spawn + p.t_remove + p.t_lag + p.t_redist +
                (p.nspawn ? 0 : p.t_warm);
    *out = p;
    return XMPIR_MODEL_OK;
}

int xmpi_predict_observe_link(struct xmpi_predict_model *m, const struct xmpi_interval *s, int mixed)
{
    if (!m || !s || s->nprocs < 1 || !(s->iterations > 0)) return XMPIR_MODEL_EARG;
    int k = mixed != 0;
    double est;
    int rc = xmpi_predict_comm(s, k ? &m->cal.spawned : &m->cal.net, s->nprocs, &est);
    if (rc) return rc;
    m->link_lambda[k] = xmpi_predict_lambda(est, xmpi_interval_comm_time(s));
    m->link_seen[k] = 1;
    if (s->nprocs < XMPIR_MODEL_SIZES)
        m->size_comm[k][s->nprocs] = xmpi_interval_comm_time(s) / s->iterations;
    return XMPIR_MODEL_OK;
}

static void running_mean(double *mean, int *n, double x)
{
    *n += 1;
    *mean += (x - *mean) / *n;
}

int xmpi_predict_learn(struct xmpi_predict_model *m, const struct xmpi_prediction *p, double meas_reconf,
                     double meas_redist)
{
    if (!m || !p || !isfinite(meas_reconf) || !isfinite(meas_redist) || meas_reconf < 0 ||
        meas_redist < 0 || p->nspawn < 0 || p->nremove < 0)
        return XMPIR_MODEL_EARG;
    /* One action is a spawn or a removal; a mixed one is not split. */
    if (p->nspawn > 0 && !p->nremove)
        running_mean(&m->learned.spawn, &m->learned.nspawn, meas_reconf / p->nspawn);
    else if (p->nremove > 0 && !p->nspawn && p->nprocs >= 1)   /* per process beyond the first */
        running_mean(&m->learned.remove, &m->learned.nremove,
                     meas_reconf / (p->nprocs + p->nremove - 1));
    if (p->redist_bytes > 0 || p->nspawn || p->nremove) {
        double fixed = meas_redist - (p->t_redist - p->redist_fixed);
        int kind = p->nspawn ? 0 : p->nremove ? 1 : 2;
        running_mean(&m->learned.redist_fixed[kind], &m->learned.nredist[kind],
                     fixed > 0 ? fixed : 0);
    }
    return XMPIR_MODEL_OK;
}

int xmpi_predict_learn_lag(struct xmpi_predict_model *m, double seconds)
{
    if (!m || !isfinite(seconds)) return XMPIR_MODEL_EARG;
    running_mean(&m->learned.lag, &m->learned.nlag, seconds > 0 ? seconds : 0);
    return XMPIR_MODEL_OK;
}

int xmpi_predict_learn_comp(struct xmpi_predict_model *m, const struct xmpi_prediction *p, int delta,
                          double measured)
{
    if (!m || !p || delta == 0 || !isfinite(measured) || !(measured > 0) || !isfinite(p->t_comp) ||
        !(p->t_comp > 0))
        return XMPIR_MODEL_EARG;
    double scale = isfinite(p->comp_scale) && p->comp_scale > 0 ? p->comp_scale : 1;
    double k = log(measured / (p->t_comp / scale)) / delta;
    if (k > 0.5) k = 0.5;
    if (k < -0.5) k = -0.5;
    running_mean(&m->learned.comp_k, &m->learned.ncomp, k);
    return XMPIR_MODEL_OK;
}

int xmpi_predict_learn_warmup(struct xmpi_predict_model *m, int kind, double comp_first, double comm_first,
                            double comp_next, double comm_next)
{
    double v[4] = {comp_first, comm_first, comp_next, comm_next};
    if (!m || (kind != 0 && kind != 1) || !(comp_next > 0)) return XMPIR_MODEL_EARG;
    for (int i = 0; i < 4; i++)
        if (!isfinite(v[i]) || v[i] < 0) return XMPIR_MODEL_EARG;
    if (comp_first > 0) {
        double k = log(comp_first / comp_next);
        running_mean(&m->learned.warm_comp[kind], &m->learned.nwarm_comp[kind],
                     k > 1 ? 1 : k < -1 ? -1 : k);
    }
    running_mean(&m->learned.warm_comm[kind], &m->learned.nwarm_comm[kind],
                 comm_first - comm_next);
    return XMPIR_MODEL_OK;
}
