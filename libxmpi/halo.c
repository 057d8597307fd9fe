/* Halos (halo.h): the local view of a registered row-distributed CSR matrix and its exchange
 * plan, the ghost rows of row-block arrays, and XMPI_Exchange, XMPI_Get_halo,
 * XMPI_Get_partition and XMPI_Set_rebuild. The exchange goes through the profiled MPI_Isend,
 * MPI_Irecv and MPI_Waitall on the library's communicator: it is the program's communication,
 * measured and priced (per neighbour, by the prediction model) as its own would be. */
#include "halo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "xmpi.h"

/* Tag of the exchange's messages on the library's communicator; between two processes they
 * go in ascending rows, which both sides post in the same order. */
#define XMPIR_TAG_HALO 7411

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static const struct xmpi_registry *sort_R;   /* qsort's view of the blocks (by_displ) */

static int cmp_displ(const void *a, const void *b)
{
    int x = sort_R->displ[*(const int *)a], y = sort_R->displ[*(const int *)b];
    return (x > y) - (x < y);
}

/* The ranks with rows, in the order of their blocks (blocks need not be in rank order):
 * malloc'ed, *n of them. */
static int *by_displ(const struct xmpi_registry *R, int *n)
{
    int *o = malloc(sizeof *o * (size_t)(R->part_n ? R->part_n : 1));
    if (!o) return NULL;
    *n = 0;
    for (int j = 0; j < R->part_n; j++)
        if (R->count[j] > 0) o[(*n)++] = j;
    sort_R = R;
    qsort(o, (size_t)*n, sizeof *o, cmp_displ);
    return o;
}

static struct xmpi_halo_view *view_of(struct xmpi_halo *H, void **ia)
{
    for (int i = 0; i < H->nv; i++)
        if (H->v[i].ia == ia) return &H->v[i];
    return NULL;
}

static void view_clear(struct xmpi_halo_view *v)
{
    free(v->local_ja);
    free(v->halo);
    free(v->recv_rank);
    free(v->send_rank);
    free(v->send_idx);
    void **ia = v->ia;
    memset(v, 0, sizeof *v);
    v->ia = ia;
    v->epoch = -1;
}

/* The halo columns of this process's rows (ascending, distinct) into *halo, the local column
 * indices into *local (owned columns first, then the halo in that order). 0, -1 for a column
 * outside [0, size) (*bad: the first), -2 out of memory. */
static int local_columns(const int *ia, const int *ja, int count, int displ, int size, int **halo,
                         int *nhalo, int **local, int *bad)
{
    int nnz = count > 0 ? ia[count] - ia[0] : 0;
    int *h = malloc(sizeof *h * (size_t)(nnz ? nnz : 1)), *l = malloc(sizeof *l * (size_t)(nnz ? nnz : 1));
    if (!h || !l) {
        free(h);
        free(l);
        return -2;
    }
    int n = 0;
    for (int k = 0; k < nnz; k++) {
        int col = ja[ia[0] + k];
        if (col < 0 || col >= size) {
            *bad = col;
            free(h);
            free(l);
            return -1;
        }
        if (col < displ || col >= displ + count) h[n++] = col;
    }
    qsort(h, (size_t)n, sizeof *h, cmp_int);
    int u = 0;
    for (int i = 0; i < n; i++)
        if (u == 0 || h[i] != h[u - 1]) h[u++] = h[i];
    for (int k = 0; k < nnz; k++) {
        int col = ja[ia[0] + k];
        if (col >= displ && col < displ + count) {
            l[k] = col - displ;
        } else {
            const int *at = bsearch(&col, h, (size_t)u, sizeof *h, cmp_int);
            l[k] = count + (int)(at - h);
        }
    }
    *halo = h;
    *nhalo = u;
    *local = l;
    return 0;
}

/* Collective: who sends what to whom. Each process counts what it needs from each owner, the
 * owners learn it (one MPI_Alltoall of counts, one MPI_Alltoallv of global rows), and keep the
 * local rows to send. */
static int plan_exchange(struct xmpi_ctx *cx, struct xmpi_halo_view *v, int displ)
{
    const struct xmpi_registry *R = &cx->reg;
    int p = cx->size;
    int *need = calloc((size_t)p * 4, sizeof *need), nb = 0, *order = by_displ(R, &nb);
    if (!need || !order) {
        free(need), free(order);
        return -2;
    }
    int *give = need + p, *noff = need + 2 * p, *goff = need + 3 * p;
    /* The halo ascends and the blocks do: one walk finds every entry's owner. */
    for (int i = 0, b = 0; i < v->nhalo; i++) {
        while (b < nb && v->halo[i] >= R->displ[order[b]] + R->count[order[b]]) b++;
        if (b < nb) need[order[b]]++;
    }
    /* Each owner's entries are one run of the halo, the runs in the order of the blocks, which
     * need not be the ranks'. */
    for (int b = 0, off = 0; b < nb; off += need[order[b]], b++) noff[order[b]] = off;
    free(order);
    PMPI_Alltoall(need, 1, MPI_INT, give, 1, MPI_INT, cx->comm);
    int ngive = 0;
    for (int j = 0; j < p; j++) {
        goff[j] = ngive;
        ngive += give[j];
    }
    int *idx = malloc(sizeof *idx * (size_t)(ngive ? ngive : 1));
    int nr = 0, ns = 0;
    for (int j = 0; j < p; j++) nr += need[j] > 0, ns += give[j] > 0;
    int *rr = malloc(sizeof *rr * 3 * (size_t)(nr ? nr : 1));
    int *sr = malloc(sizeof *sr * 3 * (size_t)(ns ? ns : 1));
    if (!idx || !rr || !sr) {
        free(need), free(idx), free(rr), free(sr);
        return -2;
    }
    PMPI_Alltoallv(v->halo, need, noff, MPI_INT, idx, give, goff, MPI_INT, cx->comm);
    for (int k = 0; k < ngive; k++) idx[k] -= displ;
    v->nrecv = v->nsend = 0;
    v->recv_rank = rr, v->recv_count = rr + nr, v->recv_off = rr + 2 * nr;
    v->send_rank = sr, v->send_count = sr + ns, v->send_off = sr + 2 * ns;
    for (int j = 0; j < p; j++) {
        if (need[j] > 0) {
            v->recv_rank[v->nrecv] = j, v->recv_count[v->nrecv] = need[j];
            v->recv_off[v->nrecv++] = noff[j];
        }
        if (give[j] > 0) {
            v->send_rank[v->nsend] = j, v->send_count[v->nsend] = give[j];
            v->send_off[v->nsend++] = goff[j];
        }
    }
    v->send_idx = idx;
    free(need);
    return 0;
}

int xmpi_halo_build(struct xmpi_ctx *cx, struct xmpi_reg *m)
{
    struct xmpi_halo *H = &cx->halo;
    const struct xmpi_registry *R = &cx->reg;
    struct xmpi_halo_view *v = view_of(H, m->data);
    if (!v) {
        if (H->nv == H->capv) {
            int cap = H->capv ? 2 * H->capv : 4;
            struct xmpi_halo_view *n = realloc(H->v, sizeof *n * (size_t)cap);
            if (!n) xmpi_die_nomem(cx, "a halo view");
            H->v = n;
            H->capv = cap;
        }
        v = &H->v[H->nv++];
        memset(v, 0, sizeof *v);
        v->ia = m->data;
        v->epoch = -1;
    }
    int count = 0, displ = 0;
    if (xmpi_registry_own_block(cx, &count, &displ)) count = displ = 0;
    const int *ia = *m->data, *ja = *m->ja;
    int *halo = NULL, *local = NULL, nhalo = 0, bad = 0;
    int rc = count > 0 && (!ia || !ja) ? -1 : 0;
    if (!rc) rc = local_columns(ia, ja, count, displ, m->size, &halo, &nhalo, &local, &bad);
    if (rc == -2) xmpi_die_nomem(cx, "a halo view");
    /* Rank 0 says which process and column, whichever process found it (the highest rank). */
    struct { int rank1, col; } mine = {rc ? cx->rank + 1 : 0, bad}, worst = {0, 0};
    PMPI_Allreduce(&mine, &worst, 1, MPI_2INT, MPI_MAXLOC, cx->comm);
    if (worst.rank1) {
        xmpi_note(cx, 0, "XMPI_Get_halo: rank %d: the sparse matrix has a column index %d "
                  "outside [0, %d) (or no column indices); no halo view", worst.rank1 - 1,
                  worst.col, m->size);
        free(halo);
        free(local);
        return XMPI_ERR_ARG;
    }
    m->want_halo = 1;
    view_clear(v);
    v->nowned = count;
    v->nhalo = nhalo;
    v->halo = halo;
    v->local_ja = local;
    if (plan_exchange(cx, v, displ)) xmpi_die_nomem(cx, "a halo view");
    v->epoch = R->epoch;
    return XMPI_SUCCESS;
}

int xmpi_halo_current(struct xmpi_ctx *cx, const struct xmpi_reg *m)
{
    const struct xmpi_halo_view *v = view_of(&cx->halo, m->data);
    return v && v->epoch == cx->reg.epoch;
}

int xmpi_halo_size(struct xmpi_ctx *cx, void **ia)
{
    const struct xmpi_halo_view *v = view_of(&cx->halo, ia);
    return v && v->epoch >= 0 ? v->nhalo : 0;
}

void xmpi_halo_forget(struct xmpi_ctx *cx, const struct xmpi_reg *m)
{
    struct xmpi_halo *H = &cx->halo;
    struct xmpi_halo_view *v = view_of(H, m->data);
    if (!v) return;
    view_clear(v);
    *v = H->v[--H->nv];
}

void xmpi_halo_free(struct xmpi_ctx *cx)
{
    struct xmpi_halo *H = &cx->halo;
    for (int i = 0; i < H->nv; i++) view_clear(&H->v[i]);
    for (int i = 0; i < H->ng; i++) free(H->g[i].range);
    free(H->v);
    free(H->g);
    free(H->sendbuf);
    free(H->req);
    memset(H, 0, sizeof *H);
}

/* ---- ghost rows ------------------------------------------------------------------------ */

/* The rows of [lo, hi) that lie in [a, b), as one range; 0 rows when none. */
static int overlap(int lo, int hi, int a, int b, int *first)
{
    int s = lo > a ? lo : a, e = hi < b ? hi : b;
    *first = s;
    return e > s ? e - s : 0;
}

static int add_range(struct xmpi_ghost_plan *g, int *cap, int rank, int first, int rows, int recv)
{
    if (g->n == *cap) {
        int c = *cap ? 2 * *cap : 8;
        void *n = realloc(g->range, sizeof *g->range * (size_t)c);
        if (!n) return -1;
        g->range = n;
        *cap = c;
    }
    g->range[g->n].rank = rank, g->range[g->n].first = first, g->range[g->n].rows = rows;
    g->range[g->n++].recv = recv;
    return 0;
}

/* The ranges of one array's ghost exchange for the current partition: from each process, the
 * rows of its block inside this process's ghost rows above and below; to each process, the
 * rows of this block inside its ghost rows. In ascending rows, the order both sides post. */
static struct xmpi_ghost_plan *ghost_plan(struct xmpi_ctx *cx, struct xmpi_reg *r)
{
    struct xmpi_halo *H = &cx->halo;
    const struct xmpi_registry *R = &cx->reg;
    struct xmpi_ghost_plan *g = NULL;
    for (int i = 0; i < H->ng && !g; i++)
        if (H->g[i].user == r->user) g = &H->g[i];
    if (g && g->epoch == R->epoch && g->ghost == r->ghost) return g;
    if (!g) {
        if (H->ng == H->capg) {
            int cap = H->capg ? 2 * H->capg : 4;
            struct xmpi_ghost_plan *n = realloc(H->g, sizeof *n * (size_t)cap);
            if (!n) xmpi_die_nomem(cx, "XMPI_Exchange");
            H->g = n;
            H->capg = cap;
        }
        g = &H->g[H->ng++];
        memset(g, 0, sizeof *g);
        g->user = r->user;
    }
    free(g->range);
    g->range = NULL;
    g->n = 0;
    int cap = 0, G = r->ghost, me = cx->rank, c = R->count[me], d = R->displ[me];
    for (int j = 0; j < R->part_n && c > 0; j++) {
        int cj = R->count[j], dj = R->displ[j], f, n;
        if (j == me || cj == 0) continue;
        /* Receive: j's rows in this block's ghost rows, above then below. */
        if ((n = overlap(dj, dj + cj, d - G, d, &f)) && add_range(g, &cap, j, G + f - d, n, 1)) goto nomem;
        if ((n = overlap(dj, dj + cj, d + c, d + c + G, &f)) && add_range(g, &cap, j, G + f - d, n, 1))
            goto nomem;
        /* Send: this block's rows in j's ghost rows, above j then below it. */
        if ((n = overlap(d, d + c, dj - G, dj, &f)) && add_range(g, &cap, j, G + f - d, n, 0)) goto nomem;
        if ((n = overlap(d, d + c, dj + cj, dj + cj + G, &f)) && add_range(g, &cap, j, G + f - d, n, 0))
            goto nomem;
    }
    g->epoch = R->epoch;
    g->ghost = G;
    return g;
nomem:
    xmpi_die_nomem(cx, "XMPI_Exchange");
    return NULL;
}

/* ---- the exchange ------------------------------------------------------------------------ */

/* Room for n requests and, after them, n statuses (MPICH's MPI_STATUSES_IGNORE is a pointer
 * value GCC takes for an empty array it would write to). */
static MPI_Request *requests(struct xmpi_ctx *cx, int n, MPI_Status **st)
{
    struct xmpi_halo *H = &cx->halo;
    if (n > H->reqcap) {
        void *q = realloc(H->req, (sizeof(MPI_Request) + sizeof(MPI_Status)) * (size_t)n);
        if (!q) xmpi_die_nomem(cx, "XMPI_Exchange");
        H->req = q;
        H->reqcap = n;
    }
    *st = (MPI_Status *)((MPI_Request *)H->req + H->reqcap);
    return H->req;
}

static int exchange_ghost(struct xmpi_ctx *cx, struct xmpi_reg *r)
{
    struct xmpi_ghost_plan *g = ghost_plan(cx, r);
    size_t unit = xmpi_registry_row_len(r) * r->elsize;
    char *base = *r->user;
    if (g->n && !base) return XMPI_ERR_ARG;
    MPI_Status *st;
    MPI_Request *q = requests(cx, g->n, &st);
    int rc = MPI_SUCCESS;
    /* Receives first, so that every message finds its buffer posted. */
    for (int i = 0, k = 0; i < g->n; i++)
        if (g->range[i].recv)
            rc |= MPI_Irecv(base + (size_t)g->range[i].first * unit, (int)(g->range[i].rows * unit),
                            MPI_BYTE, g->range[i].rank, XMPIR_TAG_HALO, cx->comm, &q[k++]);
    int nr = 0;
    for (int i = 0; i < g->n; i++) nr += g->range[i].recv;
    for (int i = 0, k = nr; i < g->n; i++)
        if (!g->range[i].recv)
            rc |= MPI_Isend(base + (size_t)g->range[i].first * unit, (int)(g->range[i].rows * unit),
                            MPI_BYTE, g->range[i].rank, XMPIR_TAG_HALO, cx->comm, &q[k++]);
    if (g->n) rc |= MPI_Waitall(g->n, q, st);
    return rc == MPI_SUCCESS ? XMPI_SUCCESS : XMPI_ERR_MPI;
}

static int exchange_halo(struct xmpi_ctx *cx, struct xmpi_reg *r)
{
    struct xmpi_halo *H = &cx->halo;
    struct xmpi_halo_view *v = view_of(H, r->halo_ia);
    if (!v || v->epoch != cx->reg.epoch) return XMPI_ERR_STATE;
    size_t es = r->elsize, total = 0;
    char *x = *r->user;
    if ((v->nrecv || v->nsend) && !x) return XMPI_ERR_ARG;
    for (int i = 0; i < v->nsend; i++) total += (size_t)v->send_count[i] * es;
    if (total > H->sendcap) {
        char *b = realloc(H->sendbuf, total);
        if (!b) xmpi_die_nomem(cx, "XMPI_Exchange");
        H->sendbuf = b;
        H->sendcap = total;
    }
    MPI_Status *st;
    MPI_Request *q = requests(cx, v->nrecv + v->nsend, &st);
    int rc = MPI_SUCCESS;
    for (int i = 0; i < v->nrecv; i++)
        rc |= MPI_Irecv(x + (size_t)(v->nowned + v->recv_off[i]) * es, (int)(v->recv_count[i] * es),
                        MPI_BYTE, v->recv_rank[i], XMPIR_TAG_HALO, cx->comm, &q[i]);
    char *out = H->sendbuf;
    for (int i = 0; i < v->nsend; i++) {
        char *start = out;
        const int *idx = v->send_idx + v->send_off[i];
        for (int k = 0; k < v->send_count[i]; k++, out += es) memcpy(out, x + (size_t)idx[k] * es, es);
        rc |= MPI_Isend(start, (int)(v->send_count[i] * es), MPI_BYTE, v->send_rank[i],
                        XMPIR_TAG_HALO, cx->comm, &q[v->nrecv + i]);
    }
    if (v->nrecv + v->nsend) rc |= MPI_Waitall(v->nrecv + v->nsend, q, st);
    return rc == MPI_SUCCESS ? XMPI_SUCCESS : XMPI_ERR_MPI;
}

int XMPI_Exchange(void *address)
{
    struct xmpi_ctx *cx = xmpi_ctx;
    int rc = xmpi_member(cx);
    if (rc) return rc;
    struct xmpi_reg *r = xmpi_registry_find(cx, address);
    if (!r || !r->user || (r->ghost == 0 && !r->halo_ia)) return XMPI_ERR_ARG;
    if (!cx->reg.have_part || cx->reg.part_n != cx->size) return XMPI_ERR_STATE;
    return r->halo_ia ? exchange_halo(cx, r) : exchange_ghost(cx, r);
}

int XMPI_Get_halo(void *address_ia, int **local_ja, int *nowned, int *nhalo)
{
    struct xmpi_ctx *cx = xmpi_ctx;
    int rc = xmpi_member(cx);
    if (rc) return rc;
    struct xmpi_reg *m = xmpi_registry_find(cx, address_ia);
    if (!m || m->kind != K_SPARSE || m->scheme != XMPI_DISTRIBUTED) return XMPI_ERR_ARG;
    if (!cx->reg.have_part || cx->reg.part_n != cx->size) return XMPI_ERR_STATE;
    if (!xmpi_halo_current(cx, m) && (rc = xmpi_halo_build(cx, m))) return rc;
    const struct xmpi_halo_view *v = view_of(&cx->halo, m->data);
    if (local_ja) *local_ja = v->local_ja;
    if (nowned) *nowned = v->nowned;
    if (nhalo) *nhalo = v->nhalo;
    return XMPI_SUCCESS;
}

int XMPI_Get_partition(int *epoch, int *counts, int *displs)
{
    struct xmpi_ctx *cx = xmpi_ctx;
    int rc = xmpi_member(cx);
    if (rc) return rc;
    const struct xmpi_registry *R = &cx->reg;
    if ((counts || displs) && (!R->have_part || R->part_n != cx->size || R->n == 0))
        return XMPI_ERR_STATE;
    for (int j = 0; j < cx->size && (counts || displs); j++) {
        if (counts) counts[j] = R->count[j];
        if (displs) displs[j] = R->displ[j];
    }
    if (epoch) *epoch = (int)R->epoch;
    return XMPI_SUCCESS;
}

int XMPI_Set_rebuild(void (*fn)(void *arg), void *arg)
{
    struct xmpi_ctx *cx = xmpi_ctx;
    int rc = xmpi_member(cx);
    if (rc) return rc;
    cx->reg.rebuild = fn;
    cx->reg.rebuild_arg = arg;
    return XMPI_SUCCESS;
}
