/* MPI property test of data redistribution: thousands of random cases (kinds, datatypes,
 * schemes, sizes, old and new partitions), each checked bit for bit against a reference
 * every rank regenerates from the case's seed; plus the error paths, which change nothing.
 * usage: test_redist [CASES [SEED]] */
#include <limits.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpicheck.h"
#include "xmpi.h"

static int ncases = 1000;
static uint64_t seed0 = 20261121;
static int rank, nprocs;

/* ---- deterministic generators, shared by every rank ------------------------------ */

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static uint64_t h4(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    return mix(a ^ mix(b ^ mix(c ^ mix(d))));
}

struct rng { uint64_t s; };
static uint64_t next(struct rng *r) { return mix(r->s++); }
static int below(struct rng *r, int n) { return n > 0 ? (int)(next(r) % (uint64_t)n) : 0; }

enum { T_DOUBLE, T_FLOAT, T_INT, T_LONG, T_CHAR, NTYPES };
static MPI_Datatype mpi_type(int t)
{
    MPI_Datatype ts[NTYPES] = {MPI_DOUBLE, MPI_FLOAT, MPI_INT, MPI_LONG, MPI_CHAR};
    return ts[t];
}
static const size_t type_size[NTYPES] = {sizeof(double), sizeof(float), sizeof(int),
                                          sizeof(long), sizeof(char)};

static void value(int t, uint64_t h, void *out)
{
    switch (t) {
    case T_DOUBLE: { double v = (double)(int64_t)(h >> 11) / 1024.0; memcpy(out, &v, sizeof v); break; }
    case T_FLOAT: { float v = (float)(h >> 40) / 8.0f; memcpy(out, &v, sizeof v); break; }
    case T_INT: { int v = (int)(uint32_t)h; memcpy(out, &v, sizeof v); break; }
    case T_LONG: { long v = (long)h; memcpy(out, &v, sizeof v); break; }
    default: { char v = (char)(h & 0x7f); memcpy(out, &v, sizeof v); break; }
    }
}

enum { K_VECTOR, K_DENSE, K_CSR, K_CSC, NKINDS };
static const char *const kind_names[] = {"vector", "dense", "csr", "csc"};

/* One structure of a case: what it is and the salt of its values. A different salt gives
 * the stale values non-owners hold in replicated copies. */
struct spec { int kind, type, scheme; uint64_t salt; };

static int row_nnz(const struct spec *s, int row, int size, uint64_t salt)
{
    (void)size;
    return (int)(h4(salt, (uint64_t)s->kind, (uint64_t)row, 77) % 6);   /* 0..5, some empty */
}

/* Builds rows [from, from + n) of structure s. Distributed: only those rows; replicated
 * (full = 1): all size rows, those outside [from, from + n) from the stale salt. */
static void build(const struct spec *s, int size, int from, int n, int full, void **data,
                  void **ja, void **a)
{
    size_t es = type_size[s->type];
    int lo = full ? 0 : from, hi = full ? size : from + n;
    if (s->kind == K_VECTOR || s->kind == K_DENSE) {
        size_t rl = s->kind == K_DENSE ? (size_t)size : 1;
        char *buf = malloc(es * rl * (size_t)(hi - lo) + 1);
        for (int r = lo; r < hi; r++) {
            uint64_t salt = (r >= from && r < from + n) ? s->salt : s->salt ^ 0xdead;
            for (size_t c = 0; c < rl; c++)
                value(s->type, h4(salt, (uint64_t)r, c, 1), buf + es * (rl * (size_t)(r - lo) + c));
        }
        *data = buf;
        return;
    }
    int *ia = malloc(sizeof *ia * (size_t)(hi - lo + 1));
    ia[0] = 0;
    for (int r = lo; r < hi; r++) {
        uint64_t salt = (r >= from && r < from + n) ? s->salt : s->salt ^ 0xdead;
        ia[r - lo + 1] = ia[r - lo] + row_nnz(s, r, size, salt);
    }
    int nnz = ia[hi - lo];
    int *cols = malloc(sizeof *cols * (size_t)nnz + 1);
    char *vals = malloc(es * (size_t)nnz + 1);
    for (int r = lo; r < hi; r++) {
        uint64_t salt = (r >= from && r < from + n) ? s->salt : s->salt ^ 0xdead;
        for (int k = ia[r - lo]; k < ia[r - lo + 1]; k++) {
            uint64_t e = (uint64_t)(k - ia[r - lo]);   /* the entry's place in its row */
            cols[k] = (int)(h4(salt, (uint64_t)r, e, 2) % (uint64_t)(size ? size : 1));
            value(s->type, h4(salt, (uint64_t)r, e, 3), vals + es * (size_t)k);
        }
    }
    *data = ia;
    *ja = cols;
    *a = vals;
}

static void release(void **data, void **ja, void **a)
{
    free(*data);
    free(*ja);
    free(*a);
    *data = *ja = *a = NULL;
}

/* 1 when the structure holds exactly the rows [from, from + n) (all rows when full). */
static int matches(const struct spec *s, int size, int from, int n, int full, void *data,
                   void *ja, void *a)
{
    void *rd = NULL, *rja = NULL, *ra = NULL;
    struct spec ref = *s;
    int lo = full ? 0 : from, cnt = full ? size : n;
    build(&ref, size, lo, cnt, 0, &rd, &rja, &ra);
    int ok = data != NULL;
    size_t es = type_size[s->type];
    if (ok && (s->kind == K_VECTOR || s->kind == K_DENSE)) {
        size_t rl = s->kind == K_DENSE ? (size_t)size : 1;
        ok = memcmp(data, rd, es * rl * (size_t)cnt) == 0;
    } else if (ok) {
        const int *ia = data, *ria = rd;
        ok = memcmp(ia, ria, sizeof(int) * (size_t)(cnt + 1)) == 0;
        int nnz = ria[cnt];
        if (ok && nnz > 0)
            ok = ja && a && memcmp(ja, rja, sizeof(int) * (size_t)nnz) == 0 &&
                 memcmp(a, ra, es * (size_t)nnz) == 0;
    }
    release(&rd, &rja, &ra);
    return ok;
}

/* A random partition of [0, size): random cut points, blocks dealt to ranks in a random
 * order, so that blocks are not in rank order and some are empty. */
static void random_partition(struct rng *g, int size, int *count, int *displ)
{
    int style = below(g, 4);
    if (style == 0) {   /* even blocks, as XMPI_Get_wsize gives them */
        for (int i = 0; i < nprocs; i++) XMPI_Get_wsize(i, nprocs, size, &count[i], &displ[i]);
        return;
    }
    int cut[64], perm[64];
    for (int i = 0; i < nprocs - 1; i++) cut[i] = below(g, size + 1);
    for (int i = 1; i < nprocs - 1; i++)   /* insertion sort */
        for (int k = i; k > 0 && cut[k - 1] > cut[k]; k--) {
            int t = cut[k]; cut[k] = cut[k - 1]; cut[k - 1] = t;
        }
    for (int i = 0; i < nprocs; i++) perm[i] = i;
    if (style >= 2)
        for (int i = nprocs - 1; i > 0; i--) {
            int k = below(g, i + 1), t = perm[i]; perm[i] = perm[k]; perm[k] = t;
        }
    for (int b = 0; b < nprocs; b++) {
        int lo = b == 0 ? 0 : cut[b - 1], hi = b == nprocs - 1 ? size : cut[b];
        count[perm[b]] = hi - lo;
        displ[perm[b]] = lo;
    }
}

/* Agreed over all ranks (PMPI: not part of what is tested). */
static int all_ok(int ok)
{
    int all = 0;
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all;
}

/* ---- the property test -------------------------------------------------------------- */

START_TEST(random_cases)
{
    int oc[64], od[64], nc[64], nd[64];
    long moved = 0, cases_by_kind[NKINDS] = {0};
    for (int c = 0; c < ncases; c++) {
        struct rng g = {h4(seed0, (uint64_t)c, 0, 0)};
        int size = below(&g, 8) == 0 ? 0 : below(&g, 40);
        int nstruct = 1 + below(&g, 3);
        struct spec sp[3];
        void *data[3] = {0}, *ja[3] = {0}, *a[3] = {0};
        random_partition(&g, size, oc, od);
        random_partition(&g, size, nc, nd);
        for (int s = 0; s < nstruct; s++) {
            sp[s] = (struct spec){below(&g, NKINDS), below(&g, NTYPES),
                                  below(&g, 3) == 0 ? XMPI_REPLICATED : XMPI_DISTRIBUTED,
                                  h4(seed0, (uint64_t)c, (uint64_t)s, 9)};
            cases_by_kind[sp[s].kind]++;
            int full = sp[s].scheme == XMPI_REPLICATED;
            /* Processes without rows sometimes register NULL, as spawned processes do. */
            int coin = below(&g, 2);   /* drawn on every rank: the streams stay equal */
            int empty_null = oc[rank] == 0 && coin;
            if (!empty_null) build(&sp[s], size, od[rank], oc[rank], full, &data[s], &ja[s], &a[s]);
            int rc = sp[s].kind == K_CSR || sp[s].kind == K_CSC
                         ? XMPI_Register_sparse(&data[s], &ja[s], &a[s], size, mpi_type(sp[s].type),
                                                (XMPI_Scheme)sp[s].scheme)
                         : (sp[s].kind == K_DENSE ? XMPI_Register_dense : XMPI_Register_vector)(
                               &data[s], size, mpi_type(sp[s].type), (XMPI_Scheme)sp[s].scheme);
            ck_assert_int_eq(rc, XMPI_SUCCESS);
        }
        int rc = XMPI_Redistribute_data(oc[rank], od[rank], nc[rank], nd[rank]);
        int ok = rc == XMPI_SUCCESS;
        int bad = -1;
        for (int s = 0; s < nstruct && ok; s++) {
            int full = sp[s].scheme == XMPI_REPLICATED;
            if (!matches(&sp[s], size, nd[rank], nc[rank], full, data[s], ja[s], a[s])) {
                ok = 0;
                bad = s;
            }
        }
        /* The library now reports the new blocks. */
        for (int i = 0; i < nprocs && ok; i++) {
            int cnt = -1, dsp = -1;
            ok = XMPI_Get_wsize(i, nprocs, size, &cnt, &dsp) == XMPI_SUCCESS && cnt == nc[i] &&
                 (cnt == 0 || dsp == nd[i]);
        }
        int agreed = all_ok(ok);
        if (!agreed && !ok)
            fprintf(stderr, "rank %d: case %d (seed %llu, size %d): rc %d, structure %d (%s, type %d, "
                    "%s) wrong; old [%d,+%d) new [%d,+%d)\n", rank, c, (unsigned long long)seed0,
                    size, rc, bad, bad >= 0 ? kind_names[sp[bad].kind] : "-",
                    bad >= 0 ? sp[bad].type : -1,
                    bad >= 0 && sp[bad].scheme == XMPI_REPLICATED ? "replicated" : "distributed",
                    od[rank], oc[rank], nd[rank], nc[rank]);
        int unreg = 1;
        for (int s = 0; s < nstruct; s++) {
            unreg &= XMPI_Unregister(&data[s]) == XMPI_SUCCESS;
            release(&data[s], &ja[s], &a[s]);
        }
        ck_assert_msg(agreed, "case %d of seed %llu failed (see stderr)", c,
                      (unsigned long long)seed0);
        ck_assert(unreg);
        moved++;
    }
    if (rank == 0)
        printf("# %ld cases on %d ranks: %ld vector, %ld dense, %ld csr, %ld csc structures\n",
               moved, nprocs, cases_by_kind[0], cases_by_kind[1], cases_by_kind[2],
               cases_by_kind[3]);
}
END_TEST

/* A program may put another buffer behind a registered pointer between moves: swap two
 * registered arrays (double buffering), or replace one with its own copy of exactly its block.
 * The library must then not take the buffer for larger than it is: the moves keep their spare
 * buffers (--xmpi-redist-spare) and take one of up to twice the size needed, so a stale size
 * would later hand out a buffer shorter than its block. A chain of random moves on two dense
 * matrices with the same layout; after every move the values are checked, and each buffer must
 * be at least its block (malloc_usable_size: glibc's own record of the allocation). */
START_TEST(program_replaces_buffers)
{
    struct rng g = {h4(seed0, 4242, 0, 0)};
    int size = 24 * nprocs, oc[64], od[64], nc[64], nd[64], ok = 1;
    struct spec sp[2] = {{K_DENSE, 0, XMPI_DISTRIBUTED, h4(seed0, 1, 2, 3)},
                         {K_DENSE, 0, XMPI_DISTRIBUTED, h4(seed0, 4, 5, 6)}};
    void *data[2] = {0}, *none[2][2] = {{0}};
    size_t row = sizeof(double) * (size_t)size;
    for (int i = 0; i < nprocs; i++) XMPI_Get_wsize(i, nprocs, size, &oc[i], &od[i]);
    for (int s = 0; s < 2; s++) {
        build(&sp[s], size, od[rank], oc[rank], 0, &data[s], &none[s][0], &none[s][1]);
        ck_assert_int_eq(XMPI_Register_dense(&data[s], size, MPI_DOUBLE, XMPI_DISTRIBUTED), XMPI_SUCCESS);
    }
    int step;
    for (step = 0; step < 300 && ok; step++) {
        int what = below(&g, 3);   /* drawn on every rank: the streams stay equal */
        if (what == 0) {
            /* Swap the two arrays: the values follow their pointers. */
            void *t = data[0]; data[0] = data[1]; data[1] = t;
            struct spec ts = sp[0]; sp[0] = sp[1]; sp[1] = ts;
        } else if (what == 1) {
            /* Replace each with an exact copy of its block. */
            for (int s = 0; s < 2; s++) {
                void *copy = malloc(row * (size_t)oc[rank] + 1);
                if (oc[rank]) memcpy(copy, data[s], row * (size_t)oc[rank]);
                free(data[s]);
                data[s] = copy;
            }
        }
        random_partition(&g, size, nc, nd);
        int rc = XMPI_Redistribute_data(oc[rank], od[rank], nc[rank], nd[rank]);
        ok = rc == XMPI_SUCCESS;
        for (int s = 0; s < 2 && ok; s++)
            ok = matches(&sp[s], size, nd[rank], nc[rank], 0, data[s], NULL, NULL) &&
                 (nc[rank] == 0 || malloc_usable_size(data[s]) >= row * (size_t)nc[rank]);
        ok = all_ok(ok);
        memcpy(oc, nc, sizeof oc);
        memcpy(od, nd, sizeof od);
    }
    for (int s = 0; s < 2; s++) {
        ck_assert_int_eq(XMPI_Unregister(&data[s]), XMPI_SUCCESS);
        free(data[s]);
    }
    ck_assert_msg(ok, "move %d after the program replaced its buffers: wrong values or a buffer "
                  "shorter than its block", step);
}
END_TEST

/* ---- error paths: the same code everywhere, nothing moved, pointers unchanged ------- */

struct fixture {
    int size;
    struct spec sp[3];
    void *data[3], *ja[3], *a[3];
    void *saved[3][3];     /* pointer values before the call */
    void *copy[3][3];      /* and the bytes they pointed to */
    size_t bytes[3][3];
    int oc[64], od[64];
};

/* A dense, a replicated vector and a CSR matrix on even blocks. */
static void setup(struct fixture *f, int size)
{
    memset(f, 0, sizeof *f);
    f->size = size;
    f->sp[0] = (struct spec){K_DENSE, T_DOUBLE, XMPI_DISTRIBUTED, 101};
    f->sp[1] = (struct spec){K_VECTOR, T_INT, XMPI_REPLICATED, 102};
    f->sp[2] = (struct spec){K_CSR, T_FLOAT, XMPI_DISTRIBUTED, 103};
    for (int i = 0; i < nprocs; i++) XMPI_Get_wsize(i, nprocs, size, &f->oc[i], &f->od[i]);
    for (int s = 0; s < 3; s++)
        build(&f->sp[s], size, f->od[rank], f->oc[rank], f->sp[s].scheme == XMPI_REPLICATED,
              &f->data[s], &f->ja[s], &f->a[s]);
    ck_assert_int_eq(XMPI_Register_dense(&f->data[0], size, MPI_DOUBLE, XMPI_DISTRIBUTED), 0);
    ck_assert_int_eq(XMPI_Register_vector(&f->data[1], size, MPI_INT, XMPI_REPLICATED), 0);
    ck_assert_int_eq(XMPI_Register_sparse(&f->data[2], &f->ja[2], &f->a[2], size, MPI_FLOAT,
                                          XMPI_DISTRIBUTED), 0);
    int nnz = ((int *)f->data[2])[f->oc[rank]];
    f->bytes[0][0] = sizeof(double) * (size_t)size * (size_t)f->oc[rank];
    f->bytes[1][0] = sizeof(int) * (size_t)size;
    f->bytes[2][0] = sizeof(int) * (size_t)(f->oc[rank] + 1);
    f->bytes[2][1] = sizeof(int) * (size_t)nnz;
    f->bytes[2][2] = sizeof(float) * (size_t)nnz;
    for (int s = 0; s < 3; s++) {
        void *p[3] = {f->data[s], f->ja[s], f->a[s]};
        for (int k = 0; k < 3; k++) {
            f->saved[s][k] = p[k];
            f->copy[s][k] = malloc(f->bytes[s][k] + 1);
            if (p[k]) memcpy(f->copy[s][k], p[k], f->bytes[s][k]);
        }
    }
}

/* Pointers unchanged and every byte as before. */
static int unchanged(const struct fixture *f)
{
    int ok = 1;
    for (int s = 0; s < 3; s++) {
        void *p[3] = {f->data[s], f->ja[s], f->a[s]};
        for (int k = 0; k < 3; k++)
            ok &= p[k] == f->saved[s][k] &&
                  (!p[k] || memcmp(p[k], f->copy[s][k], f->bytes[s][k]) == 0);
    }
    return ok;
}

static void teardown(struct fixture *f)
{
    for (int s = 0; s < 3; s++) {
        XMPI_Unregister(&f->data[s]);
        release(&f->data[s], &f->ja[s], &f->a[s]);
        for (int k = 0; k < 3; k++) free(f->copy[s][k]);
    }
}

/* Runs one bad call; every rank must get `want` and keep its data. */
static void expect_refused(struct fixture *f, int sc, int sd, int rc_, int rd, int want,
                           const char *what)
{
    int rc = XMPI_Redistribute_data(sc, sd, rc_, rd);
    int ok = rc == want && unchanged(f);
    ck_assert_msg(all_ok(ok), "%s: rank %d got %d (%s), expected %d; data unchanged: %d", what,
                  rank, rc, XMPI_Error_string(rc), want, unchanged(f));
}

START_TEST(bad_partitions)
{
    struct fixture f;
    setup(&f, 23);
    int c = f.oc[rank], d = f.od[rank];
    /* Old blocks overlap: the last rank claims one row of its neighbour too. */
    expect_refused(&f, rank == nprocs - 1 ? c + 1 : c, rank == nprocs - 1 ? d - 1 : d, c, d,
                   XMPI_ERR_ARG, "overlapping old blocks");
    /* A new block leaves a row out. */
    expect_refused(&f, c, d, rank == 0 ? c - 1 : c, d, XMPI_ERR_ARG, "a row missing in the new blocks");
    /* A block outside [0, size). */
    expect_refused(&f, c, d, c, rank == nprocs - 1 ? d + 1 : d, XMPI_ERR_ARG, "a block past the end");
    expect_refused(&f, c, d, rank == 0 ? -1 : c, d, XMPI_ERR_ARG, "a negative count");
    /* After all that, a good call still works: swap the first and last blocks. */
    int nc = c, nd = d;
    if (rank == 0) { nc = f.oc[nprocs - 1]; nd = f.od[nprocs - 1]; }
    if (rank == nprocs - 1) { nc = f.oc[0]; nd = f.od[0]; }
    ck_assert_int_eq(XMPI_Redistribute_data(c, d, nc, nd), XMPI_SUCCESS);
    for (int s = 0; s < 3; s++)
        ck_assert(matches(&f.sp[s], f.size, nd, nc, f.sp[s].scheme == XMPI_REPLICATED, f.data[s],
                          f.ja[s], f.a[s]));
    teardown(&f);
}
END_TEST

START_TEST(null_where_data_expected)
{
    struct fixture f;
    setup(&f, 17);
    int c = f.oc[rank], d = f.od[rank];
    /* The last rank lost its dense block pointer (it holds rows). */
    void *keep = f.data[0];
    if (rank == nprocs - 1) f.data[0] = NULL, f.saved[0][0] = NULL;
    int rc = XMPI_Redistribute_data(c, d, c, d);
    int still = unchanged(&f);   /* before the pointer is put back: nothing stored there */
    if (rank == nprocs - 1) f.data[0] = f.saved[0][0] = keep;
    ck_assert_msg(all_ok(rc == XMPI_ERR_ARG && still && unchanged(&f)),
                  "NULL dense block: rank %d got %d", rank, rc);
    /* Row pointers that decrease. */
    int *ia = f.data[2];
    int saved = 0;
    if (rank == 0 && c > 1) { saved = ia[1]; ia[1] = ia[2] + 1; }
    rc = XMPI_Redistribute_data(c, d, c, d);
    if (rank == 0 && c > 1) ia[1] = saved;
    ck_assert_msg(all_ok(rc == XMPI_ERR_ARG && unchanged(&f)), "bad row pointers: rank %d got %d", rank, rc);
    teardown(&f);
}
END_TEST

START_TEST(registries_disagree)
{
    struct fixture f;
    setup(&f, 12);
    int c = f.oc[rank], d = f.od[rank];
    /* Rank 1 has one structure more. */
    double *extra = malloc(sizeof *extra * 12);
    if (rank == 1) ck_assert_int_eq(XMPI_Register_vector(&extra, 12, MPI_DOUBLE, XMPI_REPLICATED), 0);
    expect_refused(&f, c, d, c, d, XMPI_ERR_ARG, "a structure more on rank 1");
    if (rank == 1) ck_assert_int_eq(XMPI_Unregister(&extra), 0);
    free(extra);
    /* Same count, but the last rank's CSR values are doubles, not floats. */
    ck_assert_int_eq(XMPI_Unregister(&f.data[2]), 0);
    MPI_Datatype t = rank == nprocs - 1 ? MPI_DOUBLE : MPI_FLOAT;
    ck_assert_int_eq(XMPI_Register_sparse(&f.data[2], &f.ja[2], &f.a[2], 12, t, XMPI_DISTRIBUTED), 0);
    expect_refused(&f, c, d, c, d, XMPI_ERR_ARG, "an element size that differs");
    teardown(&f);
    /* Sizes that differ between processes. */
    int n = rank == 0 ? 10 : 11, cnt, dsp;
    XMPI_Get_wsize(rank, nprocs, n, &cnt, &dsp);
    double *v = calloc((size_t)n, sizeof *v), *keep = v;
    ck_assert_int_eq(XMPI_Register_vector(&v, n, MPI_DOUBLE, XMPI_DISTRIBUTED), 0);
    int rc = XMPI_Redistribute_data(cnt, dsp, cnt, dsp);
    ck_assert_msg(all_ok(rc == XMPI_ERR_ARG && v == keep), "sizes differ: rank %d got %d", rank, rc);
    XMPI_Unregister(&v);
    free(v);
}
END_TEST

START_TEST(nothing_registered)
{
    int rc = XMPI_Redistribute_data(0, 0, 0, 0);
    ck_assert_msg(all_ok(rc == XMPI_ERR_STATE), "rank %d got %d", rank, rc);
    /* Not a spawned process: refused at once, without communication. */
    int it = -7;
    ck_assert_int_eq(XMPI_Get_data(&it), XMPI_ERR_STATE);
    ck_assert_int_eq(it, -7);
}
END_TEST

START_TEST(register_errors)
{
    double *x = malloc(8 * sizeof *x);
    int *ia = NULL, *ja = NULL;
    double *a = NULL;
    ck_assert_int_eq(XMPI_Register_vector(NULL, 8, MPI_DOUBLE, XMPI_DISTRIBUTED), XMPI_ERR_ARG);
    ck_assert_int_eq(XMPI_Register_vector(&x, -1, MPI_DOUBLE, XMPI_DISTRIBUTED), XMPI_ERR_ARG);
    ck_assert_int_eq(XMPI_Register_vector(&x, 8, MPI_DATATYPE_NULL, XMPI_DISTRIBUTED), XMPI_ERR_ARG);
    ck_assert_int_eq(XMPI_Register_vector(&x, 8, MPI_DOUBLE, (XMPI_Scheme)7), XMPI_ERR_ARG);
    MPI_Datatype gappy;
    MPI_Type_vector(2, 1, 2, MPI_INT, &gappy);
    MPI_Type_commit(&gappy);
    ck_assert_int_eq(XMPI_Register_vector(&x, 8, gappy, XMPI_DISTRIBUTED), XMPI_ERR_ARG);
    MPI_Type_free(&gappy);
    ck_assert_int_eq(XMPI_Register_sparse(&ia, &ia, &a, 8, MPI_DOUBLE, XMPI_DISTRIBUTED), XMPI_ERR_ARG);
    ck_assert_int_eq(XMPI_Register_sparse(&ia, &ja, NULL, 8, MPI_DOUBLE, XMPI_DISTRIBUTED), XMPI_ERR_ARG);
    ck_assert_int_eq(XMPI_Register_vector(&x, 8, MPI_DOUBLE, XMPI_DISTRIBUTED), XMPI_SUCCESS);
    ck_assert_int_eq(XMPI_Register_vector(&x, 8, MPI_DOUBLE, XMPI_DISTRIBUTED), XMPI_ERR_ARG);
    ck_assert_int_eq(XMPI_Register_sparse(&ia, &ja, &x, 8, MPI_DOUBLE, XMPI_DISTRIBUTED), XMPI_ERR_ARG);
    ck_assert_int_eq(XMPI_Register_sparse(&ia, &ja, &a, 9, MPI_DOUBLE, XMPI_DISTRIBUTED), XMPI_ERR_ARG);
    ck_assert_int_eq(XMPI_Unregister(&ia), XMPI_ERR_ARG);
    ck_assert_int_eq(XMPI_Unregister(&x), XMPI_SUCCESS);
    ck_assert_int_eq(XMPI_Unregister(&x), XMPI_ERR_ARG);
    free(x);
    int cnt = 5, dsp = 5;
    ck_assert_int_eq(XMPI_Get_wsize(0, 0, 10, &cnt, &dsp), XMPI_ERR_ARG);
    ck_assert_int_eq(XMPI_Get_wsize(3, 3, 10, &cnt, &dsp), XMPI_ERR_ARG);
    ck_assert_int_eq(XMPI_Get_wsize(-1, 3, 10, &cnt, &dsp), XMPI_ERR_ARG);
    ck_assert_int_eq(XMPI_Get_wsize(0, 3, -1, &cnt, &dsp), XMPI_ERR_ARG);
    ck_assert_int_eq(XMPI_Get_wsize(0, 3, 10, NULL, &dsp), XMPI_ERR_ARG);
    ck_assert_int_eq(cnt, 5);
    /* Even blocks for a partition the library does not hold: 10 rows on 3 ranks = 4, 3, 3. */
    ck_assert_int_eq(XMPI_Get_wsize(2, 3, 10, &cnt, &dsp), XMPI_SUCCESS);
    ck_assert_int_eq(cnt, 3);
    ck_assert_int_eq(dsp, 7);
}
END_TEST

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc > 1) ncases = atoi(argv[1]);
    if (argc > 2) seed0 = strtoull(argv[2], NULL, 10);
    MPI_Comm_rank(XMPI_COMM_WORLD, &rank);
    MPI_Comm_size(XMPI_COMM_WORLD, &nprocs);
    Suite *s = suite_create("redistribution");
    TCase *tc = tcase_create("redistribution");
    tcase_set_timeout(tc, 0);
    tcase_add_test(tc, register_errors);
    tcase_add_test(tc, nothing_registered);
    tcase_add_test(tc, random_cases);
    tcase_add_test(tc, program_replaces_buffers);
    tcase_add_test(tc, bad_partitions);
    tcase_add_test(tc, null_where_data_expected);
    tcase_add_test(tc, registries_disagree);
    suite_add_tcase(s, tc);
    int failed = mpicheck_run(s);
    MPI_Finalize();
    return failed ? 1 : 0;
}
