/* XMPI_Register_*, XMPI_Unregister and XMPI_Get_wsize, and the collective move of every
 * registered structure from one partition to another (the executor behind every move). */
#include "registry.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "../models/partition.h"
#include "context.h"
#include "halo.h"
#include "xmpi.h"

static const char *const kind_name[] = {"vector", "dense", "sparse"};

/* ---- registration ------------------------------------------------------------ */

static int registered(const struct xmpi_registry *R, const void *addr)
{
    for (int i = 0; i < R->n; i++)
        if (R->r[i].data == addr || R->r[i].ja == addr || R->r[i].a == addr ||
            (R->r[i].user && R->r[i].user == addr))
            return 1;
    return 0;
}

struct xmpi_reg *xmpi_registry_find(struct xmpi_ctx *cx, const void *address)
{
    struct xmpi_registry *R = &cx->reg;
    for (int i = 0; address && i < R->n; i++)
        if ((R->r[i].user ? (const void *)R->r[i].user : (const void *)R->r[i].data) == address)
            return &R->r[i];
    return NULL;
}

static int set_part(struct xmpi_registry *R, int n, int size, const int *count, const int *displ)
{
    int *c = malloc(sizeof *c * ((size_t)n + 1) * 2);
    if (!c) return XMPI_ERR_NOMEM;
    memcpy(c, count, sizeof *c * (size_t)n);
    memcpy(c + n + 1, displ, sizeof *c * (size_t)n);
    free(R->count);
    R->count = c;
    R->displ = c + n + 1;
    R->part_n = n;
    R->part_size = size;
    R->have_part = 1;
    return XMPI_SUCCESS;
}

static int add(enum xmpi_reg_kind kind, void *data, void *ja, void *a, int size,
               MPI_Datatype type, XMPI_Scheme scheme)
{
    struct xmpi_ctx *cx = xmpi_ctx;
    struct xmpi_registry *R = &cx->reg;
    int rc = xmpi_member(cx);
    if (rc) return rc;
    if (!data || registered(R, data)) return XMPI_ERR_ARG;
    if (kind == K_SPARSE &&
        (!ja || !a || ja == data || a == data || ja == a || registered(R, ja) || registered(R, a)))
        return XMPI_ERR_ARG;
    if (size < 0 || (R->n > 0 && size != R->r[0].size)) return XMPI_ERR_ARG;
    if (scheme != XMPI_DISTRIBUTED && scheme != XMPI_REPLICATED) return XMPI_ERR_ARG;
    if (type == MPI_DATATYPE_NULL) return XMPI_ERR_ARG;
    int tsize = 0;
    MPI_Aint lb = 0, extent = 0;
    if (PMPI_Type_size(type, &tsize) != MPI_SUCCESS || tsize <= 0 ||
        PMPI_Type_get_extent(type, &lb, &extent) != MPI_SUCCESS || lb != 0 || extent != tsize)
        return XMPI_ERR_ARG;
    if (R->n == R->cap) {
        int cap = R->cap ? 2 * R->cap : 8;
        struct xmpi_reg *r = realloc(R->r, sizeof *r * (size_t)cap);
        if (!r) return XMPI_ERR_NOMEM;
        R->r = r;
        R->cap = cap;
    }
    /* Processes mpirun started hold even blocks until a move says otherwise; spawned ones
     * hold nothing until XMPI_Get_data. */
    if (R->n == 0 && cx->status == XMPI_RUNNING && (!R->have_part || R->part_size != size)) {
        int *c = malloc(sizeof *c * ((size_t)cx->size + 1) * 2);
        if (!c) return XMPI_ERR_NOMEM;
        xmpi_part_even(size, cx->size, c, c + cx->size + 1);
        rc = set_part(R, cx->size, size, c, c + cx->size + 1);
        free(c);
        if (rc) return rc;
    }
    R->r[R->n++] = (struct xmpi_reg){.kind = kind, .data = data, .ja = ja, .a = a, .size = size,
                                     .type = type, .elsize = (size_t)tsize, .scheme = scheme};
    return XMPI_SUCCESS;
}

/* ---- wrapped arrays ------------------------------------------------------------
 * An array with room around its block keeps the program's layout (lead rows, the block, tail
 * rows, one malloc'ed buffer behind the program's pointer); everything else in the registry
 * sees a plain block through a box of its own. A move works on a copy of the block (unwrap)
 * and the new block is laid out again afterwards (wrap), with the tail the new partition
 * needs. */

static size_t wrapped_unit(const struct xmpi_reg *r)
{
    return xmpi_registry_row_len(r) * r->elsize;
}

void xmpi_registry_sync(struct xmpi_ctx *cx)
{
    struct xmpi_registry *R = &cx->reg;
    for (int s = 0; s < R->n; s++) {
        struct xmpi_reg *r = &R->r[s];
        if (r->user) *r->data = *r->user ? (char *)*r->user + (size_t)r->lead * wrapped_unit(r) : NULL;
    }
}

/* Before a move: each wrapped block as a malloc'ed copy of its own (what a move may realloc
 * and free), the program's buffer untouched until the move succeeded (old_user). */
static int unwrap(struct xmpi_registry *R, int count)
{
    for (int s = 0; s < R->n; s++) {
        struct xmpi_reg *r = &R->r[s];
        if (!r->user) continue;
        r->old_user = *r->user;
        if (!*r->user) continue;
        size_t bytes = (size_t)count * wrapped_unit(r);
        void *inner = malloc(bytes ? bytes : 1);
        if (!inner) return -1;
        memcpy(inner, *r->data, bytes);
        *r->data = inner;
    }
    return 0;
}

/* After a failed move (nothing moved, no pointer changed): the copies go, the boxes point at
 * the program's blocks again. */
static void unwrap_undo(struct xmpi_ctx *cx)
{
    struct xmpi_registry *R = &cx->reg;
    for (int s = 0; s < R->n; s++) {
        struct xmpi_reg *r = &R->r[s];
        if (!r->user) continue;
        if (r->old_user) free(*r->data);
        r->old_user = NULL;
    }
    xmpi_registry_sync(cx);
}

/* After a change: each wrapped block laid out again in a buffer of lead + block + tail rows
 * (the ghost and tail rows zero until the program's exchange fills them), the block's own
 * buffer and the program's old one freed. */
static void wrap(struct xmpi_ctx *cx)
{
    struct xmpi_registry *R = &cx->reg;
    int count = R->have_part && cx->rank < R->part_n ? R->count[cx->rank] : 0;
    for (int s = 0; s < R->n; s++) {
        struct xmpi_reg *r = &R->r[s];
        if (!r->user) continue;
        size_t unit = wrapped_unit(r);
        r->lead = r->ghost;
        r->tail = r->halo_ia ? xmpi_halo_size(cx, r->halo_ia) : r->ghost;
        size_t rows = (size_t)r->lead + (size_t)count + (size_t)r->tail;
        char *ext = calloc(rows ? rows : 1, unit);
        if (!ext) xmpi_die_nomem(cx, "laying out a registered array with room around its block");
        if (count > 0 && *r->data) memcpy(ext + (size_t)r->lead * unit, *r->data, (size_t)count * unit);
        free(*r->data);   /* the block's own buffer: a move's or a restart's */
        free(r->old_user);
        r->old_user = NULL;
        r->held_at = NULL;
        r->held = 0;
        *r->user = ext;
        *r->data = ext + (size_t)r->lead * unit;
    }
}

double xmpi_registry_changed(struct xmpi_ctx *cx, int relayout)
{
    struct xmpi_registry *R = &cx->reg;
    double t0 = PMPI_Wtime(), mark[2];
    xmpi_step_begin(cx, mark);
    R->epoch++;
    for (int s = 0; s < R->n; s++)
        if (R->r[s].kind == K_SPARSE && R->r[s].want_halo) xmpi_halo_build(cx, &R->r[s]);
    if (relayout) wrap(cx);
    double t1 = PMPI_Wtime();
    if (R->rebuild) R->rebuild(R->rebuild_arg);
    R->rebuild_seconds = R->rebuild ? PMPI_Wtime() - t1 : 0;
    xmpi_step_end(cx, XMPIR_STEP_VIEWS, mark);
    return PMPI_Wtime() - t0;
}

/* Registers an array with room around its block (ghost rows, or the halo of the registered
 * sparse matrix halo_ia); see xmpi.h. */
static int add_wrapped(void *address, int size, MPI_Datatype type, int ghost, void *halo_ia)
{
    struct xmpi_ctx *cx = xmpi_ctx;
    struct xmpi_registry *R = &cx->reg;
    int rc = xmpi_member(cx);
    if (rc) return rc;
    if (!address || registered(R, address) || ghost < 0 || (size > 0 && ghost > size))
        return XMPI_ERR_ARG;
    struct xmpi_reg *m = halo_ia ? xmpi_registry_find(cx, halo_ia) : NULL;
    if (halo_ia && (!m || m->kind != K_SPARSE || m->scheme != XMPI_DISTRIBUTED)) return XMPI_ERR_ARG;
    int count = 0, displ = 0;
    int holds = !xmpi_registry_own_block(cx, &count, &displ) && count > 0 && *(void **)address;
    /* The tail of a halo vector is the matrix's halo: known once the view is built. */
    if (m && holds && !xmpi_halo_current(cx, m)) return XMPI_ERR_STATE;
    void **box = malloc(sizeof *box);
    if (!box) return XMPI_ERR_NOMEM;
    *box = NULL;
    if ((rc = add(K_VECTOR, box, NULL, NULL, size, type, XMPI_DISTRIBUTED))) {
        free(box);
        return rc;
    }
    struct xmpi_reg *r = &R->r[R->n - 1];
    r->user = address;
    r->ghost = r->lead = ghost;
    r->halo_ia = halo_ia;
    r->tail = m ? (holds ? xmpi_halo_size(cx, halo_ia) : 0) : ghost;
    if (m) xmpi_registry_find(cx, halo_ia)->want_halo = 1;
    xmpi_registry_sync(cx);
    return XMPI_SUCCESS;
}

int XMPI_Register_ghost(void *address, int size, MPI_Datatype type, int ghost)
{
    return add_wrapped(address, size, type, ghost, NULL);
}

int XMPI_Register_halo_vector(void *address, void *address_ia, MPI_Datatype type)
{
    int rc = xmpi_member(xmpi_ctx);
    if (rc) return rc;
    struct xmpi_reg *m = address_ia ? xmpi_registry_find(xmpi_ctx, address_ia) : NULL;
    if (!m) return XMPI_ERR_ARG;
    return add_wrapped(address, m->size, type, 0, address_ia);
}

int XMPI_Register_vector(void *address, int size, MPI_Datatype type, XMPI_Scheme scheme)
{
    return add(K_VECTOR, address, NULL, NULL, size, type, scheme);
}

int XMPI_Register_dense(void *address, int size, MPI_Datatype type, XMPI_Scheme scheme)
{
    return add(K_DENSE, address, NULL, NULL, size, type, scheme);
}

int XMPI_Register_sparse(void *address_ia, void *address_ja, void *address_a, int size,
                         MPI_Datatype type, XMPI_Scheme scheme)
{
    return add(K_SPARSE, address_ia, address_ja, address_a, size, type, scheme);
}

int XMPI_Unregister(void *address)
{
    struct xmpi_registry *R = &xmpi_ctx->reg;
    int rc = xmpi_ready(xmpi_ctx);
    if (rc) return rc;
    for (int i = 0; address && i < R->n; i++)
        if (R->r[i].user ? R->r[i].user == address : R->r[i].data == address) {
            /* A matrix whose halo sizes a registered vector stays while that vector does. */
            for (int k = 0; R->r[i].kind == K_SPARSE && k < R->n; k++)
                if (R->r[k].halo_ia == address) return XMPI_ERR_ARG;
            if (R->r[i].user) free(R->r[i].data);
            if (R->r[i].kind == K_SPARSE) xmpi_halo_forget(xmpi_ctx, &R->r[i]);
            memmove(&R->r[i], &R->r[i + 1], sizeof *R->r * (size_t)(R->n - i - 1));
            R->n--;
            return XMPI_SUCCESS;
        }
    return XMPI_ERR_ARG;
}

int XMPI_Get_wsize(int rank, int nprocs, int size, int *count, int *displ)
{
    if (!count || !displ || nprocs < 1 || rank < 0 || rank >= nprocs || size < 0)
        return XMPI_ERR_ARG;
    const struct xmpi_registry *R = &xmpi_ctx->reg;
    if (R->have_part && R->part_n == nprocs && R->part_size == size) {
        *count = R->count[rank];
        *displ = R->displ[rank];
        return XMPI_SUCCESS;
    }
    xmpi_part_even_block(rank, nprocs, size, count, displ);
    return XMPI_SUCCESS;
}

/* ---- the move ---------------------------------------------------------------- */

/* What each process tells the others before anything moves. */
struct desc {
    long long scount, sdispl, rcount, rdispl;
    long long joining;      /* XMPI_Get_data: takes rows no other new block covers */
    long long nreg, fingerprint;
    long long iteration;    /* where a joining process resumes */
    long long bad, problem; /* structure index + 1 with a local problem, and which */
    long long halo_mask;    /* bit s: this process uses the halo view of sparse structure s */
};
#define DESC_LL ((int)(sizeof(struct desc) / sizeof(long long)))

enum { P_NONE, P_NULL, P_IA, P_NNZ, P_NOMEM, P_MPI };
static const char *const problem_text[] = {
    "", "holds rows but its buffer is NULL",
    "its row pointers do not start at 0 or decrease",
    "would hold more nonzeros than int row pointers can index (INT_MAX)",
    "cannot allocate its new buffer",
    "could not exchange its nonzero counts (MPI error)",
};

size_t xmpi_registry_row_len(const struct xmpi_reg *r)
{
    return r->kind == K_DENSE ? (size_t)r->size : 1;
}

static long long fingerprint(const struct xmpi_registry *R)
{
    uint64_t h = 1469598103934665603ull;   /* FNV-1a */
    for (int i = 0; i < R->n; i++) {
        long long v[6] = {R->r[i].kind, R->r[i].size, (long long)R->r[i].elsize, R->r[i].scheme,
                          R->r[i].ghost, R->r[i].halo_ia != NULL};
        const unsigned char *p = (const unsigned char *)v;
        for (size_t k = 0; k < sizeof v; k++) h = (h ^ p[k]) * 1099511628211ull;
    }
    return (long long)(h >> 1);
}

/* Checks what this process is about to read of structure r: its old rows. The row
 * pointers are read only once the blocks are known to lie inside [0, size) (check_ia). */
static int local_problem(const struct xmpi_reg *r, int scount, int sdispl, int check_ia)
{
    if (scount <= 0 || sdispl < 0 || (long long)sdispl + scount > r->size)
        return P_NONE;   /* nothing to read, or a bad block the global check reports */
    const void *data = *r->data;
    if (!data) return P_NULL;
    if (r->kind != K_SPARSE || !check_ia) return P_NONE;
    const int *ia = data;
    int from = r->scheme == XMPI_REPLICATED ? sdispl : 0;
    if (ia[0] != 0) return P_IA;
    for (int k = from; k < from + scount; k++)
        if (ia[k + 1] < ia[k] || ia[k] < 0) return P_IA;
    if (ia[from + scount] > ia[from] && (!*r->ja || !*r->a)) return P_NULL;
    return P_NONE;
}

struct seg { int pos, peer; };   /* a sender's rows start at pos of the new block */

/* Everything one move needs, sized by the number of processes. */
struct plan {
    struct xmpi_ctx *cx;
    struct xmpi_registry *R;
    int p, me, N;
    struct desc *d;
    int *oc, *od, *nc, *nd;          /* old and new blocks of every rank */
    int *sc, *sd, *rc, *rd;          /* per-peer counts and displacements of one call */
    int *order;                      /* flags of the processes that join */
    struct seg *segs;                /* peers by the position of their rows in the new block */
    long long *snnz, *rnnz;          /* per peer and sparse structure */
    long long *newnnz;               /* per sparse structure */
    void **fresh;                    /* 3 new buffers per structure */
    unsigned char *inplace;          /* per structure: the block keeps its rows in its own
                                      * buffer, fresh holds only the rows that arrive (1), or
                                      * it keeps all it had and they arrive in place (2) */
    size_t *fbytes;                  /* per dense structure: the size of its fresh buffer */
    int nsparse;
};

static void plan_free(struct plan *pl)
{
    free(pl->d);
    free(pl->oc);
    free(pl->sc);
    free(pl->order);
    free(pl->segs);
    free(pl->snnz);
    free(pl->newnnz);
    free(pl->fresh);
    free(pl->inplace);
    free(pl->fbytes);
}

static int plan_alloc(struct plan *pl)
{
    struct xmpi_registry *R = pl->R;
    size_t p = (size_t)pl->p, ns = (size_t)pl->nsparse + 1;
    pl->d = calloc(p, sizeof *pl->d);
    pl->oc = malloc(sizeof *pl->oc * p * 4);
    pl->sc = malloc(sizeof *pl->sc * p * 4);
    pl->order = malloc(sizeof *pl->order * p);
    pl->segs = malloc(sizeof *pl->segs * p);
    pl->snnz = calloc(p * ns * 2, sizeof *pl->snnz);
    pl->newnnz = calloc(ns, sizeof *pl->newnnz);
    pl->fresh = calloc((size_t)R->n * 3 + 1, sizeof *pl->fresh);
    pl->inplace = calloc((size_t)R->n + 1, 1);
    pl->fbytes = calloc((size_t)R->n + 1, sizeof *pl->fbytes);
    if (!pl->d || !pl->oc || !pl->sc || !pl->order || !pl->segs || !pl->snnz || !pl->newnnz ||
        !pl->fresh || !pl->inplace || !pl->fbytes)
        return -1;
    pl->od = pl->oc + p;
    pl->nc = pl->oc + 2 * p;
    pl->nd = pl->oc + 3 * p;
    pl->sd = pl->sc + p;
    pl->rc = pl->sc + 2 * p;
    pl->rd = pl->sc + 3 * p;
    pl->rnnz = pl->snnz + p * ns;
    return 0;
}

/* The verdict on the gathered descriptions, identical on every process. -1: nothing is
 * registered anywhere. `leaving` (n ranks, may be NULL) makes the new partition the
 * hand-off of XMPI_Remove. */
static int check_descriptions(struct plan *pl, const int *leaving, int nleaving, char *why, size_t len)
{
    const struct xmpi_registry *R = pl->R;
    const struct desc *d = pl->d;
    int p = pl->p, any = 0;
    for (int i = 0; i < p; i++) any |= d[i].nreg > 0;
    if (!any) {
        snprintf(why, len, "nothing is registered (call XMPI_Register_* first)");
        return -1;
    }
    for (int i = 0; i < p; i++) {
        if (d[i].nreg != d[0].nreg) {
            snprintf(why, len, "rank %d registered %lld structure(s) but rank 0 %lld; every "
                     "process must register the same structures", i, d[i].nreg, d[0].nreg);
            return XMPI_ERR_ARG;
        }
        if (d[i].fingerprint != d[0].fingerprint) {
            snprintf(why, len, "the kind, size, element size or scheme of the registered "
                     "structures differs between rank 0 and rank %d", i);
            return XMPI_ERR_ARG;
        }
    }
    for (int i = 0; i < p; i++) {
        if (d[i].bad) {
            int s = (int)d[i].bad - 1;
            snprintf(why, len, "rank %d: structure %d (%s) %s", i, s, kind_name[R->r[s].kind],
                     problem_text[d[i].problem]);
            return XMPI_ERR_ARG;
        }
        if (d[i].joining && d[i].scount != 0) {
            snprintf(why, len, "rank %d takes its rows with XMPI_Get_data but holds %lld rows",
                     i, d[i].scount);
            return XMPI_ERR_ARG;
        }
    }
    for (int i = 0; i < p; i++) {
        /* Values outside int cannot come from the int arguments; clamp for the check. */
        pl->oc[i] = (int)d[i].scount;
        pl->od[i] = (int)d[i].sdispl;
        pl->nc[i] = (int)d[i].rcount;
        pl->nd[i] = (int)d[i].rdispl;
    }
    char sub[512];
    if (xmpi_part_check(pl->N, p, pl->oc, pl->od, sub, sizeof sub)) {
        snprintf(why, len, "the old blocks do not tile [0, %d): %s", pl->N, sub);
        return XMPI_ERR_ARG;
    }
    if (leaving) {
        int rc = xmpi_part_handoff(pl->N, p, pl->oc, leaving, nleaving, pl->nc, pl->nd, sub,
                                   sizeof sub);
        if (rc) {
            snprintf(why, len, "no partition for the processes that stay: %s", sub);
            return rc == -2 ? XMPI_ERR_NOMEM : XMPI_ERR_ARG;
        }
        return XMPI_SUCCESS;
    }
    int joining = 0;
    for (int i = 0; i < p; i++) {
        pl->order[i] = (int)d[i].joining;
        joining |= pl->order[i];
    }
    if (joining && xmpi_part_fill(pl->N, p, pl->order, pl->nc, pl->nd, sub, sizeof sub)) {
        snprintf(why, len, "the new blocks leave no valid rows for the new processes: %s", sub);
        return XMPI_ERR_ARG;
    }
    if (xmpi_part_check(pl->N, p, pl->nc, pl->nd, sub, sizeof sub)) {
        snprintf(why, len, "the new blocks do not tile [0, %d): %s", pl->N, sub);
        return XMPI_ERR_ARG;
    }
    return XMPI_SUCCESS;
}

/* Nonzeros of this process's old rows [lo, lo + n) (global numbers) of sparse r. */
static long long old_nnz(const struct plan *pl, const struct xmpi_reg *r, int lo, int n)
{
    if (n <= 0) return 0;
    const int *ia = *r->data;
    int base = r->scheme == XMPI_REPLICATED ? 0 : pl->od[pl->me];
    return (long long)ia[lo - base + n] - ia[lo - base];
}

/* Bytes of the buffer behind a dense or vector registration, as far as the library knows: what
 * a move installed, or 0 (its block, no more) once the program has put another buffer behind
 * the pointer: swapped two registered arrays, replaced one with its own copy, or freed the
 * library's and got a smaller one at the same address (which glibc's record tells). A stale
 * size would give the spare pool a buffer shorter than it says. */
static size_t held_bytes(const struct xmpi_reg *r)
{
    if (!*r->data || *r->data != r->held_at) return 0;
#ifdef __GLIBC__
    if (malloc_usable_size(*r->data) < r->held) return 0;
#endif
    return r->held;
}

static void set_held(struct xmpi_reg *r, size_t bytes)
{
    r->held = bytes;
    r->held_at = *r->data;
}

/* --xmpi-redist-spare: a buffer of at least `bytes` that is already mapped (the smallest kept
 * from earlier moves that is not more than twice as large), else a new one. *got is its
 * size. */
static void *take_buffer(struct xmpi_registry *R, size_t bytes, size_t *got)
{
    int best = -1;
    for (int i = 0; i < R->nspare; i++)
        if (R->spare[i].bytes >= bytes && R->spare[i].bytes / 2 <= bytes &&
            (best < 0 || R->spare[i].bytes < R->spare[best].bytes))
            best = i;
    if (best >= 0) {
        void *b = R->spare[best].b;
        *got = R->spare[best].bytes;
        R->spare[best] = R->spare[--R->nspare];
        return b;
    }
    *got = bytes;
    return malloc(bytes ? bytes : 1);
}

/* A buffer a move no longer needs (at least `bytes` long): kept for the next move; then the
 * smallest kept ones (it among them) are freed until at most XMPIR_SPARES buffers of together
 * at most --xmpi-redist-spare MiB remain. */
static void give_buffer(struct xmpi_ctx *cx, void *b, size_t bytes)
{
    struct xmpi_registry *R = &cx->reg;
    size_t cap = (size_t)cx->opts.redist_spare << 20, total = 0;
    if (!b) return;
    if (bytes == 0 || bytes > cap) {
        free(b);
        return;
    }
    R->spare[R->nspare].b = b;   /* room for one more than XMPIR_SPARES */
    R->spare[R->nspare++].bytes = bytes;
    for (int i = 0; i < R->nspare; i++) total += R->spare[i].bytes;
    while (total > cap || R->nspare > XMPIR_SPARES) {
        int small = 0;
        for (int i = 1; i < R->nspare; i++)
            if (R->spare[i].bytes < R->spare[small].bytes) small = i;
        total -= R->spare[small].bytes;
        free(R->spare[small].b);
        R->spare[small] = R->spare[--R->nspare];
    }
}

/* Sparse structures: who sends how many nonzeros to whom, then every new buffer. The
 * returned problem is this process's; the caller agrees on it with the others. */
static int plan_buffers(struct plan *pl, int *bad)
{
    struct xmpi_registry *R = pl->R;
    int p = pl->p, me = pl->me, ns = pl->nsparse + 1, problem = P_NONE;
    for (int s = 0; s < R->n && !problem; s++)
        if (R->r[s].kind == K_SPARSE &&
            (problem = local_problem(&R->r[s], pl->oc[me], pl->od[me], 1)))
            *bad = s + 1;
    for (int s = 0, k = 0; s < R->n && !problem; s++) {
        const struct xmpi_reg *r = &R->r[s];
        if (r->kind != K_SPARSE) continue;
        for (int j = 0; j < p; j++) {
            int lo = 0, n;
            if (r->scheme == XMPI_DISTRIBUTED)
                n = xmpi_part_overlap(pl->oc[me], pl->od[me], pl->nc[j], pl->nd[j], &lo);
            else
                n = pl->oc[me], lo = pl->od[me];
            pl->snnz[(size_t)j * ns + k] = old_nnz(pl, r, lo, n);
        }
        k++;
    }
    if (pl->nsparse &&
        PMPI_Alltoall(pl->snnz, ns, MPI_LONG_LONG, pl->rnnz, ns, MPI_LONG_LONG, pl->cx->comm))
        return P_MPI;
    if (problem) return problem;
    for (int s = 0, k = 0; s < R->n; s++) {
        struct xmpi_reg *r = &R->r[s];
        void **f = &pl->fresh[3 * s];
        size_t rows = r->scheme == XMPI_REPLICATED ? (size_t)pl->N : (size_t)pl->nc[me];
        if (r->kind != K_SPARSE) {
            size_t unit = xmpi_registry_row_len(r) * r->elsize;
            int lo, kept = r->scheme == XMPI_DISTRIBUTED && *r->data
                               ? xmpi_part_overlap(pl->oc[me], pl->od[me], pl->nc[me], pl->nd[me], &lo)
                               : 0;
            if (kept > 0) {
                /* The block keeps rows: it stays in its buffer, grown here if the new block is
                 * larger (realloc keeps the rows where they are), and only the rows that
                 * arrive get fresh memory: a move costs what it moves, not the block size. */
                size_t have = (size_t)pl->oc[me] * unit, need = rows * unit;
                size_t held = held_bytes(r);
                if (held > have) have = held;
                void *grown = need > have ? realloc(*r->data, need) : *r->data;
                size_t in = ((size_t)pl->nc[me] - (size_t)kept) * unit;
                if (grown) {
                    *r->data = grown;
                    if (need > have) set_held(r, need);
                }
                /* A block that keeps every row it had sends none: what arrives can land in the
                 * block itself, in memory faulted once, with no buffer between. */
                int direct = kept == pl->oc[me];
                if (!grown || (!direct && !(f[0] = take_buffer(pl->R, in, &pl->fbytes[s]))))
                    *bad = s + 1;
                pl->inplace[s] = direct ? 2 : 1;
            } else if (r->scheme == XMPI_DISTRIBUTED || !*r->data) {
                /* Replicated copies are refreshed in place; only a process without one needs
                 * it. A block that keeps nothing is received whole into a new buffer. */
                if (!(f[0] = take_buffer(pl->R, rows * unit, &pl->fbytes[s]))) *bad = s + 1;
            }
            continue;
        }
        long long nnz = 0;
        for (int j = 0; j < p; j++) nnz += pl->rnnz[(size_t)j * ns + k];
        pl->newnnz[k++] = nnz;
        if (nnz > INT_MAX) {
            *bad = s + 1;
            return P_NNZ;
        }
        size_t got;
        f[0] = take_buffer(pl->R, sizeof(int) * (rows + 1), &got);
        f[1] = take_buffer(pl->R, sizeof(int) * (size_t)(nnz ? nnz : 1), &got);
        f[2] = take_buffer(pl->R, r->elsize * (size_t)(nnz ? nnz : 1), &got);
        if (!f[0] || !f[1] || !f[2]) *bad = s + 1;
    }
    return *bad ? P_NOMEM : P_NONE;
}

static void free_fresh(struct plan *pl)
{
    struct xmpi_registry *R = pl->R;
    for (int i = 0; i < 3 * R->n; i++) {
        free(pl->fresh[i]);
        pl->fresh[i] = NULL;
    }
}

static const char dummy[16];   /* a send buffer for processes that send nothing (never written) */

/* Reads one byte of every page of a buffer an MPI call just filled. Under shadow paging (virtual
 * machines without nested page tables) a page the kernel wrote for this process (a receive of Open MPI's shared
 * memory by process_vm_readv) costs a fault at the program's first access: 20-28 ms for a
 * fresh 24 MB buffer, 1.8 ms for the program's next pass over it. Paid here, it is part of
 * the move that the model prices (touch in the calibration), not a slower first interval of
 * the program's computation. Elsewhere it costs one load per page. */
static void touch_pages(const void *buf, size_t bytes)
{
    static size_t page;
    if (!page) {
        long sz = sysconf(_SC_PAGESIZE);
        page = sz > 0 ? (size_t)sz : 4096;
    }
    const volatile char *c = buf;
    for (size_t i = 0; buf && i < bytes; i += page) (void)c[i];
}

static int by_pos(const void *a, const void *b)
{
    const struct seg *x = a, *y = b;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* New row pointers: each sender's slice of its own row pointers arrived at pos[j]; make
 * them offsets into the new column array, where sender j's nonzeros start at jstart[j]. */
static void rebase(int *ia, int rows, const int *count, const int *pos, const int *jstart,
                   int p, long long total)
{
    for (int j = 0; j < p; j++) {
        if (count[j] <= 0) continue;
        int first = ia[pos[j]];
        for (int i = pos[j]; i < pos[j] + count[j]; i++) ia[i] = ia[i] - first + jstart[j];
    }
    ia[rows] = (int)total;
}

/* Where sender j's nonzeros start in the new column array: after those of the senders
 * whose rows come first. `pos` and `count` are the senders' rows in the new block. */
static void nnz_starts(const struct plan *pl, const int *count, const int *pos, int k,
                       int *jstart)
{
    int p = pl->p, ns = pl->nsparse + 1, m = 0;
    for (int j = 0; j < p; j++) {
        jstart[j] = 0;
        if (count[j] > 0) pl->segs[m++] = (struct seg){pos[j], j};
    }
    qsort(pl->segs, (size_t)m, sizeof *pl->segs, by_pos);
    long long at = 0;
    for (int t = 0; t < m; t++) {
        jstart[pl->segs[t].peer] = (int)at;
        at += pl->rnnz[(size_t)pl->segs[t].peer * ns + k];
    }
}

MPI_Datatype xmpi_registry_row_type(const struct xmpi_reg *r, size_t len)
{
    MPI_Datatype t;
    PMPI_Type_contiguous((int)len, r->type, &t);
    PMPI_Type_commit(&t);
    return t;
}

static void count_bytes(struct plan *pl, size_t unit)
{
    struct xmpi_registry *R = pl->R;
    for (int j = 0; j < pl->p; j++) {
        if (j == pl->me) continue;
        R->stats.bytes_sent += (double)pl->sc[j] * (double)unit;
        R->stats.bytes_recv += (double)pl->rc[j] * (double)unit;
    }
}

/* A distributed block that keeps rows [lo, lo + kept): the others' rows arrive in f (those
 * before the kept ones, then those after), the kept rows slide to their new place in the
 * block's own buffer (grown in prepare), the arrivals are copied around them, and a smaller
 * block gives back the end of its buffer. A block that keeps all it had (inplace 2) sends
 * nothing: its rows slide first and the others' arrive straight in their place. */
static int move_dense_inplace(struct plan *pl, struct xmpi_reg *r, void **f, MPI_Datatype t,
                              size_t unit)
{
    int p = pl->p, me = pl->me, lo = 0, direct = pl->inplace[r - pl->R->r] == 2;
    int kept = xmpi_part_overlap(pl->oc[me], pl->od[me], pl->nc[me], pl->nd[me], &lo);
    int front = lo - pl->nd[me], back = pl->nc[me] - front - kept;
    for (int j = 0; j < p; j++) {
        int at = 0;
        pl->sc[j] = j == me ? 0 : xmpi_part_overlap(pl->oc[me], pl->od[me], pl->nc[j], pl->nd[j], &at);
        pl->sd[j] = pl->sc[j] ? at - pl->od[me] : 0;
        pl->rc[j] = j == me ? 0 : xmpi_part_overlap(pl->oc[j], pl->od[j], pl->nc[me], pl->nd[me], &at);
        at -= pl->nd[me];
        pl->rd[j] = pl->rc[j] ? (direct ? at : at < front ? at : at - kept) : 0;
    }
    char *data = *r->data, *in = f[0];
    if (direct) {
        /* lo is the old block's first row: all of it stays. */
        memmove(data + (size_t)front * unit, data, (size_t)kept * unit);
        int rc = PMPI_Alltoallv(dummy, pl->sc, pl->sd, t, data, pl->rc, pl->rd, t, pl->cx->comm);
        count_bytes(pl, unit);
        if (rc == MPI_SUCCESS) {
            touch_pages(data, (size_t)front * unit);
            touch_pages(data + (size_t)(front + kept) * unit, (size_t)back * unit);
        } else {
            memmove(data, data + (size_t)front * unit, (size_t)kept * unit);   /* as it was */
        }
        return rc;
    }
    int rc = PMPI_Alltoallv(data, pl->sc, pl->sd, t, in, pl->rc, pl->rd, t, pl->cx->comm);
    count_bytes(pl, unit);
    if (rc == MPI_SUCCESS) {
        memmove(data + (size_t)front * unit, data + (size_t)(lo - pl->od[me]) * unit,
                (size_t)kept * unit);
        memcpy(data, in, (size_t)front * unit);
        memcpy(data + (size_t)(front + kept) * unit, in + (size_t)front * unit, (size_t)back * unit);
        if (pl->nc[me] < pl->oc[me]) {
            void *less = realloc(data, (size_t)pl->nc[me] * unit);
            if (less) {
                *r->data = less;
                set_held(r, (size_t)pl->nc[me] * unit);
            }
        }
    }
    give_buffer(pl->cx, f[0], pl->fbytes[r - pl->R->r]);
    f[0] = NULL;
    return rc;
}

static int move_dense(struct plan *pl, struct xmpi_reg *r, void **f)
{
    int p = pl->p, me = pl->me, rc;
    MPI_Datatype t = xmpi_registry_row_type(r, xmpi_registry_row_len(r));
    size_t unit = xmpi_registry_row_len(r) * r->elsize;
    if (pl->inplace[r - pl->R->r]) {
        rc = move_dense_inplace(pl, r, f, t, unit);
    } else if (r->scheme == XMPI_DISTRIBUTED) {
        for (int j = 0; j < p; j++) {
            int lo = 0;
            pl->sc[j] = xmpi_part_overlap(pl->oc[me], pl->od[me], pl->nc[j], pl->nd[j], &lo);
            pl->sd[j] = pl->sc[j] ? lo - pl->od[me] : 0;
            pl->rc[j] = xmpi_part_overlap(pl->oc[j], pl->od[j], pl->nc[me], pl->nd[me], &lo);
            pl->rd[j] = pl->rc[j] ? lo - pl->nd[me] : 0;
        }
        void *old = *r->data;
        size_t old_bytes = (size_t)pl->oc[me] * unit;
        size_t held = held_bytes(r);
        if (held > old_bytes) old_bytes = held;
        rc = PMPI_Alltoallv(old ? old : dummy, pl->sc, pl->sd, t, f[0], pl->rc, pl->rd, t,
                            pl->cx->comm);
        count_bytes(pl, unit);
        if (rc == MPI_SUCCESS) touch_pages(f[0], (size_t)pl->nc[me] * unit);
        give_buffer(pl->cx, old, old ? old_bytes : 0);
        *r->data = f[0];
        set_held(r, pl->fbytes[r - pl->R->r]);
        f[0] = NULL;
    } else {
        void *buf = f[0] ? f[0] : *r->data;
        for (int j = 0; j < p; j++) {
            pl->sc[j] = j == me ? 0 : pl->oc[me];
            pl->rc[j] = j == me ? 0 : pl->oc[j];
        }
        count_bytes(pl, unit);
        rc = PMPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, pl->oc, pl->od, t,
                             pl->cx->comm);
        if (f[0]) {
            if (rc == MPI_SUCCESS) touch_pages(f[0], (size_t)pl->N * unit);
            free(*r->data);
            *r->data = f[0];
            f[0] = NULL;
        }
    }
    PMPI_Type_free(&t);
    return rc == MPI_SUCCESS ? XMPI_SUCCESS : XMPI_ERR_MPI;
}

static int move_sparse(struct plan *pl, struct xmpi_reg *r, void **f, int k, int *jstart)
{
    int p = pl->p, me = pl->me, ns = pl->nsparse + 1, rc = MPI_SUCCESS;
    int *oldia = *r->data, *newia = f[0];
    void *oldja = *r->ja, *olda = *r->a;
    MPI_Datatype t = xmpi_registry_row_type(r, 1);
    int rows;
    if (r->scheme == XMPI_DISTRIBUTED) {
        rows = pl->nc[me];
        int *pos = pl->rd;
        for (int j = 0; j < p; j++) {
            int lo = 0;
            pl->sc[j] = xmpi_part_overlap(pl->oc[me], pl->od[me], pl->nc[j], pl->nd[j], &lo);
            pl->sd[j] = pl->sc[j] ? lo - pl->od[me] : 0;
            pl->rc[j] = xmpi_part_overlap(pl->oc[j], pl->od[j], pl->nc[me], pl->nd[me], &lo);
            pos[j] = pl->rc[j] ? lo - pl->nd[me] : 0;
        }
        nnz_starts(pl, pl->rc, pos, k, jstart);
        count_bytes(pl, sizeof(int));
        rc |= PMPI_Alltoallv(oldia ? (void *)oldia : dummy, pl->sc, pl->sd, MPI_INT, newia,
                             pl->rc, pos, MPI_INT, pl->cx->comm);
        rebase(newia, rows, pl->rc, pos, jstart, p, pl->newnnz[k]);
        /* The nonzeros: counts per peer from the exchange, offsets from the old pointers. */
        for (int j = 0; j < p; j++) {
            int srows = pl->sc[j], sfirst = pl->sd[j];
            pl->sd[j] = srows ? oldia[sfirst] : 0;
            pl->sc[j] = (int)pl->snnz[(size_t)j * ns + k];
            pl->rc[j] = (int)pl->rnnz[(size_t)j * ns + k];
            pl->rd[j] = jstart[j];
        }
        count_bytes(pl, sizeof(int) + r->elsize);
        rc |= PMPI_Alltoallv(oldja ? oldja : dummy, pl->sc, pl->sd, MPI_INT, f[1], pl->rc,
                             pl->rd, MPI_INT, pl->cx->comm);
        rc |= PMPI_Alltoallv(olda ? olda : dummy, pl->sc, pl->sd, t, f[2], pl->rc, pl->rd, t,
                             pl->cx->comm);
    } else {
        rows = pl->N;
        nnz_starts(pl, pl->oc, pl->od, k, jstart);
        for (int j = 0; j < p; j++) {
            pl->sc[j] = j == me ? 0 : pl->oc[me];
            pl->rc[j] = j == me ? 0 : pl->oc[j];
        }
        count_bytes(pl, sizeof(int));
        int mine = pl->oc[me], from = pl->od[me];
        rc |= PMPI_Allgatherv(mine ? (void *)(oldia + from) : dummy, mine, MPI_INT, newia,
                              pl->oc, pl->od, MPI_INT, pl->cx->comm);
        rebase(newia, rows, pl->oc, pl->od, jstart, p, pl->newnnz[k]);
        /* Each owner's nonzeros, as many as its rows hold, after those of earlier rows. */
        int nnz = (int)pl->snnz[(size_t)me * ns + k], at = mine ? oldia[from] : 0;
        for (int j = 0; j < p; j++) {
            pl->rc[j] = (int)pl->rnnz[(size_t)j * ns + k];
            pl->sc[j] = j == me ? 0 : nnz;
        }
        count_bytes(pl, sizeof(int) + r->elsize);
        pl->rc[me] = nnz;
        rc |= PMPI_Allgatherv(nnz ? (char *)oldja + sizeof(int) * (size_t)at : dummy, nnz,
                              MPI_INT, f[1], pl->rc, jstart, MPI_INT, pl->cx->comm);
        rc |= PMPI_Allgatherv(nnz ? (char *)olda + r->elsize * (size_t)at : dummy, nnz, t,
                              f[2], pl->rc, jstart, t, pl->cx->comm);
    }
    PMPI_Type_free(&t);
    if (rc == MPI_SUCCESS) {
        touch_pages(f[1], sizeof(int) * (size_t)pl->newnnz[k]);
        touch_pages(f[2], r->elsize * (size_t)pl->newnnz[k]);
    }
    /* The old arrays go to the spare buffers, at the sizes their pointers tell (at least what
     * they hold: a buffer taken from the spares may be larger). */
    int old_rows = r->scheme == XMPI_DISTRIBUTED ? pl->oc[me] : pl->N;
    size_t old_nnz = oldia && old_rows >= 0 && oldia[old_rows] > 0 ? (size_t)oldia[old_rows] : 0;
    give_buffer(pl->cx, oldia, oldia ? sizeof(int) * ((size_t)old_rows + 1) : 0);
    give_buffer(pl->cx, oldja, sizeof(int) * old_nnz);
    give_buffer(pl->cx, olda, r->elsize * old_nnz);
    *r->data = f[0];
    *r->ja = f[1];
    *r->a = f[2];
    f[0] = f[1] = f[2] = NULL;
    return rc == MPI_SUCCESS ? XMPI_SUCCESS : XMPI_ERR_MPI;
}

/* Every new buffer exists on every process before any data moves, or all say why (in why). */
static int agree_on_buffers(struct plan *pl, const char *call, char *why, size_t len)
{
    struct xmpi_ctx *cx = pl->cx;
    int rc = XMPI_SUCCESS, bad = 0, problem = plan_buffers(pl, &bad);
    int st[2] = {problem, bad}, *all = malloc(sizeof *all * 2 * (size_t)pl->p);
    if (!all || PMPI_Allgather(st, 2, MPI_INT, all, 2, MPI_INT, cx->comm)) {
        fprintf(stderr, "xmpi: rank %d: %s could not agree on buffers\n", cx->rank, call);
        xmpi_abort_said(3);
    }
    /* A bad argument explains a failed allocation elsewhere: report it first. */
    for (int pass = 0; pass < 2 && rc == XMPI_SUCCESS; pass++) {
        for (int i = 0; i < pl->p && rc == XMPI_SUCCESS; i++) {
            int pr = all[2 * i], s = all[2 * i + 1] - 1;
            if (!pr || (!pass && pr == P_NOMEM)) continue;
            snprintf(why, len, "rank %d: structure %d (%s) %s", i, s,
                     kind_name[pl->R->r[s].kind], problem_text[pr]);
            rc = pr == P_NOMEM ? XMPI_ERR_NOMEM : pr == P_MPI ? XMPI_ERR_MPI : XMPI_ERR_ARG;
        }
    }
    free(all);
    if (rc) free_fresh(pl);
    return rc;
}

/* The collective move. joining: this process takes the rows nobody else's new block covers
 * (XMPI_Get_data). leaving: the hand-off of XMPI_Remove (the new blocks are computed).
 * Returns an XMPI code (the same on every process), or -1 when nothing is registered. */
/* Once the move is judged possible: the halo views every process will rebuild, the wrapped
 * arrays' blocks as buffers of their own, and every new buffer agreed on (agree_on_buffers). */
static int ready_to_move(struct plan *pl, int scount, const char *call, char *why, size_t len)
{
    struct xmpi_registry *R = pl->R;
    /* A halo view any process uses is built on every process (a spawned one learns it here),
     * so that the collective rebuild after the move is everyone's. */
    long long mask = 0;
    for (int i = 0; i < pl->p; i++) mask |= pl->d[i].halo_mask;
    for (int s = 0; s < R->n && s < 64; s++)
        if (mask >> s & 1) R->r[s].want_halo = 1;
    if (unwrap(R, scount)) xmpi_die_nomem(pl->cx, call);
    return agree_on_buffers(pl, call, why, len);
}

static int move(struct xmpi_ctx *cx, struct xmpi_move *mv)
{
    struct xmpi_registry *R = &cx->reg;
    int scount = mv->scount, sdispl = mv->sdispl, rcount = mv->rcount, rdispl = mv->rdispl;
    const char *call = mv->call;
    double t0 = PMPI_Wtime(), mark[2];
    xmpi_step_begin(cx, mark);
    struct plan pl = {.cx = cx, .R = R, .p = cx->size, .me = cx->rank,
                      .N = R->n ? R->r[0].size : 0};
    for (int s = 0; s < R->n; s++) pl.nsparse += R->r[s].kind == K_SPARSE;
    if (plan_alloc(&pl)) {
        /* Bookkeeping of a few words per process is missing: the others would wait. */
        xmpi_die_nomem(cx, call);
    }
    xmpi_registry_sync(cx);
    struct desc mine = {scount, sdispl, rcount, rdispl, mv->joining, R->n, fingerprint(R),
                        mv->iterations, 0, 0, 0};
    for (int s = 0; s < R->n && s < 64; s++)
        if (R->r[s].kind == K_SPARSE && R->r[s].want_halo) mine.halo_mask |= 1LL << s;
    for (int s = 0; s < R->n && !mine.bad; s++) {
        int pr = local_problem(&R->r[s], scount, sdispl, 0);
        if (pr) {
            mine.bad = s + 1;
            mine.problem = pr;
        }
    }
    char why[768] = "";
    int rc = XMPI_ERR_MPI;
    char what[160];
    snprintf(what, sizeof what, "%s (moving the registered data)", call);
    xmpi_watchdog_arm(&cx->watch, (int)cx->opts.wait_timeout, cx->rank, what);
    if (PMPI_Allgather(&mine, DESC_LL, MPI_LONG_LONG, pl.d, DESC_LL, MPI_LONG_LONG,
                       cx->comm) == MPI_SUCCESS)
        rc = check_descriptions(&pl, mv->leaving, mv->nleaving, why, sizeof why);
    /* Every process is in the call from here: what came before was waiting for the last one
     * to arrive (in XMPI_Remove, the leaving processes: part of removing them). */
    double t_all = PMPI_Wtime();
    int unwrapped = rc == XMPI_SUCCESS;
    if (rc == XMPI_SUCCESS) rc = ready_to_move(&pl, scount, call, why, sizeof why);
    xmpi_step_end(cx, XMPIR_STEP_PLAN, mark);
    if (rc == XMPI_SUCCESS) {
        int *jstart = malloc(sizeof *jstart * (size_t)pl.p);
        if (!jstart) xmpi_die_nomem(cx, call);
        R->stats.bytes_sent = R->stats.bytes_recv = 0;
        if (mv->joining) xmpi_fault("move");
        xmpi_step_begin(cx, mark);
        for (int s = 0, k = 0; s < R->n; s++) {
            int m = R->r[s].kind == K_SPARSE
                        ? move_sparse(&pl, &R->r[s], &pl.fresh[3 * s], k++, jstart)
                        : move_dense(&pl, &R->r[s], &pl.fresh[3 * s]);
            if (m) rc = m;
        }
        xmpi_step_end(cx, XMPIR_STEP_MOVE, mark);
        free(jstart);
        if (set_part(R, pl.p, pl.N, pl.nc, pl.nd) && rc == XMPI_SUCCESS) rc = XMPI_ERR_NOMEM;
        if (mv->joining) R->got_data = 1;
        /* Views, wrapped arrays and the program's rebuild: part of what the move costs. */
        double t_views = xmpi_registry_changed(cx, 1);
        R->stats.moves++;
        R->stats.seconds = PMPI_Wtime() - t0;
        R->stats.seconds_total += R->stats.seconds;
        R->stats.bytes_sent_total += R->stats.bytes_sent;
        R->stats.bytes_recv_total += R->stats.bytes_recv;
        if (cx->rank == 0) xmpi_journal_moved(&cx->journal, PMPI_Wtime() - t_all);
        mv->resume = 0;
        for (int i = 0; i < pl.p; i++)
            if (!pl.d[i].joining) {
                mv->resume = (long)pl.d[i].iteration;
                break;
            }
        xmpi_note(cx, 2, "%s: moved %d structure(s) in %.3f s (rank 0 sent %.3g MB, received %.3g MB; "
                  "halo views, layouts and the program's rebuild %.3f s of it, the rebuild %.3f s)",
                  call, R->n, R->stats.seconds, R->stats.bytes_sent / 1e6, R->stats.bytes_recv / 1e6,
                  t_views, R->rebuild_seconds);
    } else {
        if (unwrapped) unwrap_undo(cx);
        if ((rc > 0 || !mv->leaving) && cx->rank == 0) xmpi_note(cx, 0, "%s: %s", call, why);
    }
    xmpi_watchdog_disarm(&cx->watch);
    plan_free(&pl);
    return rc;
}

/* --xmpi-otf2: every move is a region of the library's own work. */
int xmpi_registry_move(struct xmpi_ctx *cx, struct xmpi_move *mv)
{
    xmpi_otf2_enter(cx, XMPIR_OTF2_MOVE);
    int rc = move(cx, mv);
    xmpi_otf2_leave(cx, XMPIR_OTF2_MOVE, mv->call);
    return rc;
}

int xmpi_registry_size(const struct xmpi_ctx *cx)
{
    const struct xmpi_registry *R = &cx->reg;
    return R->n ? R->r[0].size : -1;
}

int xmpi_registry_row_nnz(const struct xmpi_ctx *cx, int *len, int count)
{
    const struct xmpi_registry *R = &cx->reg;
    for (int s = 0; s < R->n; s++) {
        const struct xmpi_reg *r = &R->r[s];
        if (r->kind != K_SPARSE || r->scheme != XMPI_DISTRIBUTED) continue;
        const int *ia = *r->data;
        if (!ia && count > 0) return -1;
        for (int i = 0; i < count; i++) len[i] = ia[i + 1] - ia[i];
        return 0;
    }
    return -1;
}

int xmpi_registry_own_block(const struct xmpi_ctx *cx, int *count, int *displ)
{
    const struct xmpi_registry *R = &cx->reg;
    *count = *displ = 0;
    if (!R->have_part || cx->rank >= R->part_n || R->n == 0 || R->part_size != R->r[0].size)
        return -1;
    *count = R->count[cx->rank];
    *displ = R->displ[cx->rank];
    return 0;
}

void xmpi_registry_after_remove(struct xmpi_ctx *cx, const int *leaving, int n)
{
    struct xmpi_registry *R = &cx->reg;
    if (!R->have_part) return;
    int k = 0;
    for (int i = 0; i < R->part_n; i++) {
        int gone = 0;
        for (int j = 0; j < n; j++) gone |= leaving[j] == i;
        if (gone) continue;
        R->count[k] = R->count[i];
        R->displ[k] = R->displ[i];
        k++;
    }
    R->part_n = k;
    /* The processes that stay hold the same blocks under new ranks. */
    if (cx->status != XMPI_REMOVED) xmpi_registry_changed(cx, 0);
}

#define DESCRIBE_SPARSE_MAX 8

int xmpi_registry_describe(struct xmpi_ctx *cx, struct xmpi_struct_desc *d, int max, long *count,
                           long *displ)
{
    const struct xmpi_registry *R = &cx->reg;
    /* The nonzeros of each sparse structure: a fixed-size sum, so that the call is collective
     * with the same count everywhere even before a move has checked the registries agree. */
    double mine[DESCRIBE_SPARSE_MAX] = {0}, all[DESCRIBE_SPARSE_MAX] = {0};
    int usable_part = R->n > 0 && R->have_part && R->part_n == cx->size &&
                      R->part_size == R->r[0].size;
    for (int s = 0, k = 0; s < R->n && k < DESCRIBE_SPARSE_MAX; s++) {
        const struct xmpi_reg *r = &R->r[s];
        if (r->kind != K_SPARSE) continue;
        const int *ia = *r->data;
        int rows = r->scheme == XMPI_REPLICATED ? r->size
                   : usable_part                ? R->count[cx->rank] : 0;
        /* Replicated rows are on every process: rank 0's copy alone is the whole. */
        if (ia && rows > 0 && (r->scheme == XMPI_DISTRIBUTED || cx->rank == 0))
            mine[k] = (double)ia[rows] - ia[0];
        k++;
    }
    PMPI_Reduce(mine, all, DESCRIBE_SPARSE_MAX, MPI_DOUBLE, MPI_SUM, 0, cx->comm);
    if (cx->rank != 0 || !usable_part || !d || !count || !displ) return 0;
    int n = 0;
    for (int s = 0, k = 0; s < R->n && n < max; s++) {
        const struct xmpi_reg *r = &R->r[s];
        struct xmpi_struct_desc *x = &d[n++];
        memset(x, 0, sizeof *x);
        x->kind = r->kind == K_SPARSE  ? XMPIR_STRUCT_SPARSE
                  : r->kind == K_DENSE ? XMPIR_STRUCT_DENSE
                                       : XMPIR_STRUCT_VECTOR;
        x->replicated = r->scheme == XMPI_REPLICATED;
        x->elem_size = (double)r->elsize;
        x->rows = r->size;
        x->row_len = (double)xmpi_registry_row_len(r);
        if (r->kind == K_SPARSE) {
            x->nnz = k < DESCRIBE_SPARSE_MAX ? all[k] : 0;
            x->index_size = sizeof(int);
            k++;
        }
    }
    for (int i = 0; i < R->part_n; i++) {
        count[i] = R->count[i];
        displ[i] = R->displ[i];
    }
    return n;
}

const struct xmpi_redist_stats *xmpi_registry_stats(const struct xmpi_ctx *cx)
{
    return &cx->reg.stats;
}

void xmpi_registry_install(struct xmpi_ctx *cx, void **fresh, int n, const int *count,
                           const int *displ)
{
    struct xmpi_registry *R = &cx->reg;
    /* A few words of bookkeeping: without them this process would hold other data than the
     * others, which install theirs (as plan_alloc, it ends the job instead). */
    if (set_part(R, n, R->n ? R->r[0].size : 0, count, displ)) xmpi_die_nomem(cx, "XMPI_Get_data");
    for (int s = 0; s < R->n; s++) {
        struct xmpi_reg *r = &R->r[s];
        /* A wrapped array's block is laid out again after (xmpi_registry_changed). */
        if (r->user) r->old_user = *r->user;
        else free(*r->data);
        *r->data = fresh[3 * s];
        set_held(r, 0);
        if (r->kind == K_SPARSE) {
            free(*r->ja);
            free(*r->a);
            *r->ja = fresh[3 * s + 1];
            *r->a = fresh[3 * s + 2];
        }
        fresh[3 * s] = fresh[3 * s + 1] = fresh[3 * s + 2] = NULL;
    }
    R->got_data = 1;
    xmpi_registry_changed(cx, 1);
}

void xmpi_registry_spares(const struct xmpi_ctx *cx, double *bytes)
{
    for (int i = 0; i < XMPIR_SPARE_SLOTS; i++)
        bytes[i] = i < cx->reg.nspare ? (double)cx->reg.spare[i].bytes : 0;
}

void xmpi_registry_free(struct xmpi_ctx *cx)
{
    for (int s = 0; s < cx->reg.n; s++)
        if (cx->reg.r[s].user) free(cx->reg.r[s].data);
    xmpi_halo_free(cx);
    free(cx->reg.r);
    free(cx->reg.count);
    for (int i = 0; i < cx->reg.nspare; i++) free(cx->reg.spare[i].b);
    cx->reg.nspare = 0;
    memset(&cx->reg, 0, sizeof cx->reg);
}
