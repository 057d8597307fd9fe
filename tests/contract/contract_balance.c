/* Contract: XMPI_Eval_lbalance and XMPI_Eval_reconfig (policy static): their refusals at an
 * interval end (the same code everywhere, nothing moved), what they return between interval
 * ends, and that the block they return is the current partition with its rows in place. Whether
 * the balancer moves rows depends on measured times: no verdict here depends on it.
 * usage: contract_balance [lb=rows|time|weight|nnz] [call=lb|rc]   (run with --xmpi-si=1 and
 *        --xmpi-lb=... as given; with an emulated slow class rows are likely to move) */
#include "contract.h"

enum { M = 24, N = 12 };

static MPI_Comm W;
static int rank, nprocs, use_rc;
static double *x;
static int count, displ, moves;

static int rows_at(int k)
{
    int ok = count == 0 || x != NULL;
    for (int l = 0; ok && l < count; l++) ok = dbits(x[l]) == dbits(row_after(row_init(displ + l), displ + l, k));
    return ok;
}

static int eval(int r, int p, int k, int maxit, int *c, int *d, double *w)
{
    if (use_rc) return X(XMPI_Eval_reconfig(r, p, k, maxit, c, d, w, NULL, NULL));
    return X(XMPI_Eval_lbalance(r, p, k, maxit, c, d, w));
}

/* One iteration k of the si_init form, without its ending call. */
static void compute(int k)
{
    X(XMPI_Monitor_si_init());
    for (int l = 0; l < count; l++) x[l] = row_step(x[l], displ + l, k);
    /* the work of a row grows with its index: rows are uneven, as under --xmpi-lb=weight */
    double w = 0;
    for (int l = 0; l < count; l++) w += 1 + (displ + l) % 5;
    X(XMPI_Monitor_add_work(w));
    double v = k, s;
    MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, W);
}

static double *weights(void)
{
    double *w = malloc(sizeof *w * (count + 1));
    for (int l = 0; l < count; l++) w[l] = 1 + (displ + l) % 5;
    return w;
}

int main(int argc, char **argv)
{
    const char *lb = "rows";
    MPI_Init(&argc, &argv);
    for (int a = 1; a < argc; a++) {
        if (!strncmp(argv[a], "lb=", 3)) lb = argv[a] + 3;
        if (!strcmp(argv[a], "call=rc")) use_rc = 1;
    }
    W = XMPI_COMM_WORLD;
    MPI_Comm_rank(W, &rank);
    MPI_Comm_size(W, &nprocs);
    const char *call = use_rc ? "XMPI_Eval_reconfig" : "XMPI_Eval_lbalance";
    char tag[64], si_s[16] = "";
    X(XMPI_Get_option("si", si_s, sizeof si_s));
    snprintf(tag, sizeof tag, "np%d %s lb=%s", nprocs, use_rc ? "rc" : "lb", lb);
    contract_start("contract_balance", tag);
    int rc, k = 0;
    char what[160];

    X(XMPI_Get_wsize(rank, nprocs, M, &count, &displ));
    int c0 = count, d0 = displ;
    if (atoi(si_s) == 1 && strcmp(lb, "nnz") != 0) {
        /* at an interval end (between them the call returns at once); under nnz the missing
         * matrix would be a second error */
        PROMISE("Errors (the same on every process, nothing moved): XMPI_ERR_STATE when nothing is "
                "registered;");
        X(XMPI_Monitor_si_init());
        double *w = malloc(sizeof *w * (count + 1));
        for (int l = 0; l < count; l++) w[l] = 1;
        rc = eval(rank, nprocs, 0, N, &count, &displ, w);
        free(w);
        snprintf(what, sizeof what, "%s at an interval end with nothing registered", call);
        check_code(W, rc, XMPI_ERR_STATE, what);
        check_all(W, count == c0 && displ == d0, "%s: count and displ are unchanged", what);
    }

    x = malloc(sizeof *x * (count + 1));
    for (int l = 0; l < count; l++) x[l] = row_init(displ + l);
    X(XMPI_Register_vector(&x, M, MPI_DOUBLE, XMPI_DISTRIBUTED));
    if (!strcmp(lb, "nnz")) {
        /* the policy's data is missing: no sparse matrix registered */
        compute(k);
        PROMISE("XMPI_ERR_ARG for NULL count/displ, a rank or nprocs not the caller's, blocks that do "
                "not tile the rows, or a missing weight array or sparse matrix for the policy.");
        rc = eval(rank, nprocs, k, N, &count, &displ, NULL);
        snprintf(what, sizeof what, "%s under --xmpi-lb=nnz without a registered sparse matrix", call);
        check_code(W, rc, XMPI_ERR_ARG, what);
        check_all(W, count == c0 && displ == d0 && rows_at(1), "%s: nothing moved", what);
        MPI_Finalize();
        if (rank == 0) contract_end();
        return 0;
    }
    int use_w = !strcmp(lb, "weight");
    if (use_w) {
        compute(k);
        PROMISE("XMPI_ERR_ARG for NULL count/displ, a rank or nprocs not the caller's, blocks that do "
                "not tile the rows, or a missing weight array or sparse matrix for the policy.");
        rc = eval(rank, nprocs, k, N, &count, &displ, NULL);
        snprintf(what, sizeof what, "%s under --xmpi-lb=weight with weight NULL", call);
        check_code(W, rc, XMPI_ERR_ARG, what);
        check_all(W, count == c0 && displ == d0 && rows_at(k + 1), "%s: nothing moved", what);
        if (atoi(si_s) > 1) {
            /* not an interval end: the first call checks what the policy needs all the same */
            PROMISE("Between interval ends it returns at once without checking its arguments (what the "
                    "policy needs is checked at the first call).");
            check_code(W, rc, XMPI_ERR_ARG, "the first call, between interval ends, with weight NULL "
                                            "under --xmpi-lb=weight");
        }
        k++;
    }

    /* ---- Refusals at interval ends (--xmpi-si=1: every iteration ends one). The bad argument is
     * given by one process only; every process must refuse. ---- */
    if (atoi(si_s) == 1) {
        int last = nprocs - 1;
        struct { const char *what; int who, nullc, nulld, r, p, dc; const char *promise; } bad[] = {
            {"NULL count on rank 0", 0, 1, 0, 0, 0, 0, NULL},
            {"NULL displ on the last rank", last, 0, 1, 0, 0, 0, NULL},
            {"a rank not the caller's on the last rank", last, 0, 0, 1, 0, 0,
             QUOTED_PROMISE("rank, nprocs: this process's rank and XMPI_COMM_WORLD's size;")},
            {"nprocs not the caller's on rank 0", 0, 0, 0, 0, 1, 0,
             QUOTED_PROMISE("rank, nprocs: this process's rank and XMPI_COMM_WORLD's size;")},
            {"blocks that do not tile (rank 0 claims one row more)", 0, 0, 0, 0, 0, 1, NULL},
        };
        for (unsigned i = 0; i < sizeof bad / sizeof *bad; i++) {
            compute(k);
            int me = rank == bad[i].who;
            int c = count + (me && bad[i].dc), d = displ;
            int r = me && bad[i].r ? (rank + 1) % (nprocs + 1) : rank;
            if (me && bad[i].r && r == rank) r = rank + 1;
            int p = me && bad[i].p ? nprocs + 1 : nprocs;
            double *xb = x, *w = use_w ? weights() : NULL;
            capture_begin();
            rc = eval(r, p, k, N, me && bad[i].nullc ? NULL : &c, me && bad[i].nulld ? NULL : &d, w);
            int lines = capture_end();
            free(w);
            snprintf(what, sizeof what, "%s at an interval end with %s", call, bad[i].what);
            PROMISE("XMPI_ERR_ARG for NULL count/displ, a rank or nprocs not the caller's, blocks that "
                    "do not tile the rows, or a missing weight array or sparse matrix for the policy.");
            check_code(W, rc, XMPI_ERR_ARG, what);
            if (bad[i].promise) {
                contract_promise(bad[i].promise);
                check_all(W, rc == XMPI_ERR_ARG, "%s: refused as not the caller's", what);
            }
            if (use_rc) {
                PROMISE("Errors as XMPI_Eval_lbalance;");
                check_all(W, rc == XMPI_ERR_ARG, "%s: XMPI_Eval_reconfig refuses as XMPI_Eval_lbalance",
                          what);
            }
            PROMISE("Errors (the same on every process, nothing moved): XMPI_ERR_STATE when nothing is "
                    "registered;");
            check_all(W, x == xb && c == count + (me && bad[i].dc) && d == displ && rows_at(k + 1),
                      "%s: nothing moved, count and displ unchanged", what);
            DOC_PROMISE("docs/api.md", "Errors come back the same on every process, and nothing moves:");
            check_one_line(W, lines, what);
            k++;
        }
    }

    /* ---- Between interval ends: rank 0 alone calls, so a call that communicated would hang ---- */
    char big[16] = "";
    X(XMPI_Get_option("si", big, sizeof big));
    if (atoi(big) > 1000) {
        compute(k);
        if (use_rc)
            PROMISE("Collective over XMPI_COMM_WORLD at interval ends; between them it returns at once.");
        else
            PROMISE("Between interval ends it returns at once. Collective over XMPI_COMM_WORLD at "
                    "interval ends.");
        int c = count, d = displ;
        double *w = use_w ? weights() : NULL;
        /* the others' iteration k ends at their next XMPI_Monitor_si_init */
        rc = rank == 0 ? eval(rank, nprocs, k, N, &c, &d, w) : XMPI_SUCCESS;
        free(w);
        k++;
        check_all(W, rc == XMPI_SUCCESS && c == count && d == displ && rows_at(k),
                  "%s on rank 0 alone between interval ends returns XMPI_SUCCESS at once, the block "
                  "and the rows unchanged (got %d)", call, rc);
        /* again, with arguments that an interval end would refuse */
        PROMISE("Between interval ends it returns at once without checking its arguments (what the "
                "policy needs is checked at the first call).");
        rc = rank == 0 ? eval(-7, 0, k, N, NULL, NULL, NULL) : XMPI_SUCCESS;
        check_all(W, rc == XMPI_SUCCESS, "%s on rank 0 alone between interval ends with rank -7, nprocs "
                                         "0, NULL count, displ and weight returns XMPI_SUCCESS (got %d)",
                  call, rc);
    }

    /* ---- The loop: after every call count/displ are the current partition and the rows are in
     * place ---- */
    int inv = 1, same_w = 1, nprocs0 = nprocs;
    for (; k < N; k++) {
        compute(k);
        int oc = count, od = displ;
        double *w = use_w ? weights() : NULL;
        rc = eval(rank, nprocs, k, k % 3 == 0 ? 0 : N, &count, &displ, w);
        free(w);
        if (rc != XMPI_SUCCESS) inv = 0;
        if (use_rc) {
            MPI_Comm_rank(XMPI_COMM_WORLD, &rank);
            MPI_Comm_size(XMPI_COMM_WORLD, &nprocs);
        }
        int c, d, tile = 1, at = 0;
        X(XMPI_Get_wsize(rank, nprocs, M, &c, &d));
        if (c != count || d != displ) inv = 0;
        /* every process's block, from every process, tiles [0, M) */
        int *cs = malloc(sizeof *cs * nprocs), *ds = malloc(sizeof *ds * nprocs);
        PMPI_Allgather(&count, 1, MPI_INT, cs, 1, MPI_INT, W);
        PMPI_Allgather(&displ, 1, MPI_INT, ds, 1, MPI_INT, W);
        char *hit = calloc(M, 1);
        for (int r = 0; r < nprocs; r++) {
            for (int i = ds[r]; i < ds[r] + cs[r] && tile; i++)
                if (i < 0 || i >= M || hit[i]++) tile = 0;
            at += cs[r];
        }
        if (!tile || at != M) inv = 0;
        free(hit), free(cs), free(ds);
        if (!rows_at(k + 1)) inv = 0;
        if (oc != count || od != displ) moves++;
    }
    if (use_rc)
        PROMISE("When nothing changes, the load balancer runs. count/displ (INOUT) return this process's "
                "block.");
    else
        PROMISE("At the end of each sampling interval it runs FLEX-MPI's balancer over the interval's "
                "measurements and, when it decides so, moves the registered data to new blocks "
                "proportional to each process's measured power, then returns the new block in count and "
                "displ (INOUT: this process's current block).");
    check_all(W, inv, "after every %s call (maxit %d or unknown): XMPI_SUCCESS, count/displ are the "
                      "block XMPI_Get_wsize gives, the blocks tile the rows, every row in place bit for "
                      "bit (%d moves seen)", call, N, moves);
    PROMISE("it, maxit: the current iteration and the last one (maxit <= 0: unknown);");
    check_all(W, inv, "every third call passed maxit 0 (unknown) and was accepted");
    if (use_w)
        PROMISE("weight: --xmpi-lb=weight: the work of each of this process's rows (count values);");
    else
        PROMISE("ignored otherwise (NULL allowed).");
    check_all(W, inv, use_w ? "under --xmpi-lb=weight every call passed count weights and was accepted"
                            : "without --xmpi-lb=weight every call passed weight NULL and was accepted");
    if (use_rc) {
        PROMISE("It ends the monitored iteration begun by XMPI_Monitor_si_init and, at the end of each "
                "sampling interval, runs the malleability policy of --xmpi-policy (thesis Algorithms 6-7): "
                "static: no process changes; the load balancer only (as XMPI_Eval_lbalance);");
        check_all(W, nprocs == nprocs0, "under --xmpi-policy=static XMPI_Eval_reconfig never changed the "
                                        "number of processes");
    }
    (void)same_w;
    PROMISE("Every XMPI_ call returns one of these;");
    check_all(W, contract_bad_codes == 0, "every XMPI_ call returned one of the header's codes");
    X(XMPI_Unregister(&x));
    free(x);
    MPI_Finalize();
    if (rank == 0) contract_end();
    return 0;
}
