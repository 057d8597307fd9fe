/* Contract: registering and unregistering structures. Every refused registration leaves the
 * pointer, the buffer and the set of registered structures as they were.
 * usage: contract_register   (on 1-3 processes) */
#include "contract.h"

enum { N = 12 };

static MPI_Comm W;

/* A refused registration changed nothing: the program's pointer and buffer are as before and
 * nothing is registered at that address. */
static void refused(int rc, int want, const char *what, void *addr, const void *ptr_before,
                    const void *ptr_now, const void *copy, const void *buf, size_t bytes)
{
    check_code(W, rc, want, what);
    PROMISE("on an error nothing the call would have changed has changed.");
    int same = ptr_now == ptr_before && (bytes == 0 || memcmp(copy, buf, bytes) == 0);
    int unreg = addr ? X(XMPI_Unregister(addr)) : XMPI_ERR_ARG;
    check_all(W, same && unreg == XMPI_ERR_ARG,
              "%s: the pointer and its buffer are unchanged and nothing is registered there "
              "(XMPI_Unregister gave %d)", what, unreg);
}

/* A structure registered through a variable local to a function, unregistered before the
 * function returns. */
static int local_registration(int count)
{
    double *local = malloc(sizeof *local * (count > 0 ? count : 1));
    int a = X(XMPI_Register_vector(&local, N, MPI_DOUBLE, XMPI_DISTRIBUTED));
    int b = X(XMPI_Unregister(&local));
    free(local);
    return a == XMPI_SUCCESS && b == XMPI_SUCCESS;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    W = XMPI_COMM_WORLD;
    int rank, nprocs;
    MPI_Comm_rank(W, &rank);
    MPI_Comm_size(W, &nprocs);
    char tag[16];
    snprintf(tag, sizeof tag, "np%d", nprocs);
    contract_start("contract_register", tag);

    int count, displ;
    X(XMPI_Get_wsize(rank, nprocs, N, &count, &displ));
    double *x = malloc(sizeof *x * (count + 1)), copy[N + 1];
    for (int i = 0; i < count; i++) x[i] = row_init(displ + i);
    memcpy(copy, x, sizeof *x * count);
    double *const x0 = x;
    int rc;

    /* ---- Arguments refused before anything is registered ---- */
    PROMISE("XMPI_ERR_ARG for a NULL address, an address already registered, size < 0, a size other "
            "than the structures already registered have, MPI_DATATYPE_NULL or a type with gaps, or "
            "an unknown scheme;");
    rc = X(XMPI_Register_vector(NULL, N, MPI_DOUBLE, XMPI_DISTRIBUTED));
    refused(rc, XMPI_ERR_ARG, "XMPI_Register_vector(NULL address)", NULL, x0, x, copy, x,
            sizeof *x * count);
    rc = X(XMPI_Register_dense(NULL, N, MPI_DOUBLE, XMPI_DISTRIBUTED));
    refused(rc, XMPI_ERR_ARG, "XMPI_Register_dense(NULL address)", NULL, x0, x, copy, x,
            sizeof *x * count);
    int *ia = NULL, *ja = NULL;
    double *va = NULL;
    rc = X(XMPI_Register_sparse(&ia, NULL, &va, N, MPI_DOUBLE, XMPI_DISTRIBUTED));
    refused(rc, XMPI_ERR_ARG, "XMPI_Register_sparse with a NULL address_ja", &ia, NULL, ia, NULL,
            NULL, 0);
    rc = X(XMPI_Register_sparse(NULL, &ja, &va, N, MPI_DOUBLE, XMPI_DISTRIBUTED));
    refused(rc, XMPI_ERR_ARG, "XMPI_Register_sparse with a NULL address_ia", &ja, NULL, ja, NULL,
            NULL, 0);
    rc = X(XMPI_Register_sparse(&ia, &ja, NULL, N, MPI_DOUBLE, XMPI_DISTRIBUTED));
    refused(rc, XMPI_ERR_ARG, "XMPI_Register_sparse with a NULL address_a", &ia, NULL, ia, NULL,
            NULL, 0);
    rc = X(XMPI_Register_vector(&x, -1, MPI_DOUBLE, XMPI_DISTRIBUTED));
    refused(rc, XMPI_ERR_ARG, "XMPI_Register_vector with size -1", &x, x0, x, copy, x,
            sizeof *x * count);
    rc = X(XMPI_Register_vector(&x, N, MPI_DATATYPE_NULL, XMPI_DISTRIBUTED));
    refused(rc, XMPI_ERR_ARG, "XMPI_Register_vector with MPI_DATATYPE_NULL", &x, x0, x, copy, x,
            sizeof *x * count);
    MPI_Datatype strided, padded;
    MPI_Type_vector(2, 1, 2, MPI_DOUBLE, &strided);   /* 2 doubles with a hole between them */
    MPI_Type_commit(&strided);
    MPI_Type_create_resized(MPI_DOUBLE, 0, 16, &padded);   /* a double then 8 bytes of nothing */
    MPI_Type_commit(&padded);
    rc = X(XMPI_Register_vector(&x, N, strided, XMPI_DISTRIBUTED));
    refused(rc, XMPI_ERR_ARG, "XMPI_Register_vector with a strided type (a gap inside)", &x, x0, x,
            copy, x, sizeof *x * count);
    rc = X(XMPI_Register_vector(&x, N, padded, XMPI_DISTRIBUTED));
    refused(rc, XMPI_ERR_ARG, "XMPI_Register_vector with a resized type (a gap at the end)", &x, x0,
            x, copy, x, sizeof *x * count);
    rc = X(XMPI_Register_vector(&x, N, MPI_DOUBLE, (XMPI_Scheme)7));
    refused(rc, XMPI_ERR_ARG, "XMPI_Register_vector with scheme 7", &x, x0, x, copy, x,
            sizeof *x * count);
    rc = X(XMPI_Register_dense(&x, N, MPI_DOUBLE, (XMPI_Scheme)-1));
    refused(rc, XMPI_ERR_ARG, "XMPI_Register_dense with scheme -1", &x, x0, x, copy, x,
            sizeof *x * count);

    /* ---- Unregister of nothing ---- */
    PROMISE("XMPI_ERR_ARG when nothing is registered there,");
    rc = X(XMPI_Unregister(&x));
    check_code(W, rc, XMPI_ERR_ARG, "XMPI_Unregister of an address never registered");
    rc = X(XMPI_Unregister(NULL));
    check_code(W, rc, XMPI_ERR_ARG, "XMPI_Unregister(NULL)");

    /* ---- A good registration, then the ones it makes refused ---- */
    PROMISE("Registration (local, after MPI_Init).");
    rc = X(XMPI_Register_vector(&x, N, MPI_DOUBLE, XMPI_DISTRIBUTED));
    check_code(W, rc, XMPI_SUCCESS, "XMPI_Register_vector(&x, N, MPI_DOUBLE, XMPI_DISTRIBUTED)");
    check_all(W, x == x0 && memcmp(copy, x, sizeof *x * count) == 0,
              "registering leaves the pointer and the buffer as they were");
    PROMISE("XMPI_ERR_ARG for a NULL address, an address already registered, size < 0, a size other "
            "than the structures already registered have, MPI_DATATYPE_NULL or a type with gaps, or "
            "an unknown scheme;");
    rc = X(XMPI_Register_dense(&x, N, MPI_DOUBLE, XMPI_DISTRIBUTED));
    check_code(W, rc, XMPI_ERR_ARG, "XMPI_Register_dense of an address already registered");
    check_all(W, x == x0 && memcmp(copy, x, sizeof *x * count) == 0,
              "the refused second registration left x and its buffer alone");
    double *y = malloc(sizeof *y * (count + 2)), ycopy[N + 2];
    for (int i = 0; i < count + 1; i++) y[i] = -row_init(i);
    memcpy(ycopy, y, sizeof *y * (count + 1));
    double *const y0 = y;
    rc = X(XMPI_Register_vector(&y, N + 1, MPI_DOUBLE, XMPI_DISTRIBUTED));
    refused(rc, XMPI_ERR_ARG, "XMPI_Register_vector with N + 1 rows beside one of N", &y, y0, y, ycopy,
            y, sizeof *y * (count + 1));

    PROMISE("Forgets the structure registered at `address` (the first address for a sparse one); its "
            "buffers stay the program's.");
    rc = X(XMPI_Unregister(&x));
    check_code(W, rc, XMPI_SUCCESS, "XMPI_Unregister(&x)");
    check_all(W, x == x0 && memcmp(copy, x, sizeof *x * count) == 0,
              "XMPI_Unregister leaves x and its buffer as they were");

    /* ---- A derived type without gaps, and a process with no rows registering NULL ---- */
    PROMISE("`type` is the element type: any predefined MPI datatype, or a derived one without gaps "
            "(it must stay valid while registered).");
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_DOUBLE, &pair);
    MPI_Type_commit(&pair);
    /* The last process holds no rows of z at first; the others share them in rank order. */
    int zc = nprocs == 1 ? N : (rank == nprocs - 1 ? 0 : N / (nprocs - 1) + (rank < N % (nprocs - 1)));
    int zd = 0;
    PMPI_Exscan(&zc, &zd, 1, MPI_INT, MPI_SUM, W);
    if (rank == 0) zd = 0;
    double *z = NULL;
    if (zc > 0) {
        z = malloc(sizeof *z * 2 * zc);
        for (int i = 0; i < zc; i++) z[2 * i] = row_init(zd + i), z[2 * i + 1] = -row_init(zd + i);
    }
    PROMISE("A process that holds no rows yet (a spawned process) registers with the pointer set to "
            "NULL.");
    rc = X(XMPI_Register_vector(&z, N, pair, XMPI_DISTRIBUTED));
    check_code(W, rc, XMPI_SUCCESS, "XMPI_Register_vector of pairs of doubles (MPI_Type_contiguous), "
                                    "NULL where a process holds no rows");
    /* z is the only structure registered: move it to even blocks. */
    rc = X(XMPI_Redistribute_data(zc, zd, count, displ));
    PROMISE("`type` is the element type: any predefined MPI datatype, or a derived one without gaps "
            "(it must stay valid while registered).");
    int zok = rc == XMPI_SUCCESS && (count == 0 || z != NULL);
    for (int i = 0; zok && i < count; i++)
        zok = dbits(z[2 * i]) == dbits(row_init(displ + i)) &&
              dbits(z[2 * i + 1]) == dbits(-row_init(displ + i));
    check_all(W, zok, "the contiguous-type vector moved whole elements to their new rows (rc %d)", rc);
    PROMISE("`address` is the address of the program's pointer variable (&x for double *x), not the "
            "buffer: the buffer must come from malloc, and after a move the library frees it and "
            "stores the new buffer through `address`.");
    check_all(W, zok, "after the move z (registered by &z) points to a buffer holding its new rows");

    /* ---- Unregister: the buffers stay the program's ---- */
    PROMISE("Forgets the structure registered at `address` (the first address for a sparse one); its "
            "buffers stay the program's.");
    double *zb = z;
    rc = X(XMPI_Unregister(&z));
    check_code(W, rc, XMPI_SUCCESS, "XMPI_Unregister(&z)");
    check_all(W, z == zb, "XMPI_Unregister leaves the pointer as it was");
    free(z);   /* ours again: a library that had freed it would crash here */
    z = NULL;
    PROMISE("XMPI_ERR_ARG when nothing is registered there,");
    rc = X(XMPI_Unregister(&z));
    check_code(W, rc, XMPI_ERR_ARG, "a second XMPI_Unregister(&z)");

    /* sparse: unregistered by its first address */
    PROMISE("Forgets the structure registered at `address` (the first address for a sparse one); its "
            "buffers stay the program's.");
    ia = malloc(sizeof *ia * (count + 1));
    ja = malloc(sizeof *ja * (count > 0 ? count : 1));
    va = malloc(sizeof *va * (count > 0 ? count : 1));
    ia[0] = 0;
    for (int i = 0; i < count; i++) ia[i + 1] = i + 1, ja[i] = displ + i, va[i] = row_init(displ + i);
    rc = X(XMPI_Register_sparse(&ia, &ja, &va, N, MPI_DOUBLE, XMPI_DISTRIBUTED));
    check_code(W, rc, XMPI_SUCCESS, "XMPI_Register_sparse of a diagonal CSR block");
    rc = X(XMPI_Unregister(&ia));
    check_code(W, rc, XMPI_SUCCESS, "XMPI_Unregister(&ia) forgets the sparse structure");
    rc = X(XMPI_Unregister(&ia));
    check_code(W, rc, XMPI_ERR_ARG, "a second XMPI_Unregister(&ia)");
    free(ia), free(ja), free(va);

    PROMISE("The library keeps `address` (the pointer variable itself): a structure registered with "
            "the address of a variable local to a function must be unregistered before that function "
            "returns.");
    check_all(W, local_registration(count), "a structure registered through a local variable is "
                                            "unregistered before its function returns");

    PROMISE("XMPI_ERR_STATE when nothing is registered;");
    rc = X(XMPI_Redistribute_data(count, displ, count, displ));
    check_code(W, rc, XMPI_ERR_STATE, "XMPI_Redistribute_data once everything is unregistered");

    PROMISE("Every XMPI_ call returns one of these;");
    check_all(W, contract_bad_codes == 0, "every XMPI_ call returned one of the header's codes");
    free(x);
    free(y);
    MPI_Type_free(&strided);
    MPI_Type_free(&padded);
    MPI_Type_free(&pair);
    MPI_Finalize();
    if (rank == 0) contract_end();
    return 0;
}
