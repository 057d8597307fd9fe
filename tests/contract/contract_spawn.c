/* Contract: XMPI_Spawn, XMPI_Get_data and XMPI_Remove called by the program, with a registered
 * vector whose rows depend on the iteration index. The same binary runs as parent and child.
 *
 *   iterations 0-2   XMPI_Monitor_iter_begin/end             then XMPI_Spawn(1) ("A", argv given)
 *   iterations 3-5   iter_begin/end; 6-7 XMPI_Monitor_si_init, then XMPI_Spawn(2) ("B", no argv,
 *                    by its bare name: PATH must hold this program) ends iteration 7
 *   iterations 8-9   si_init, then XMPI_Remove(1) ends iteration 9: the last process leaves
 *   iterations 10-11 iter_begin/end, then XMPI_Remove(2): every spawned process has left
 *
 * A new process must get the number of monitored iterations completed (3, then 8) and its
 * rows after them; the data must be the serial computation's, bit for bit, at the end.
 * usage: contract_spawn   (on 1-2 processes, with --xmpi-oversubscribe; --xmpi-si and
 *                          --xmpi-trace optional: the trace is checked after MPI_Finalize) */
#include "contract.h"

enum { M = 13, N = 12 };

static MPI_Comm W;
static int rank, nprocs, joined;   /* joined: 0 started by mpirun, 1 spawned at A, 2 at B */
static double *x;
static int count, displ;
static int instep = 1;

static int rows_at(int k)
{
    int ok = count == 0 || x != NULL;
    for (int l = 0; ok && l < count; l++) ok = dbits(x[l]) == dbits(row_after(row_init(displ + l), displ + l, k));
    return ok;
}
static void world(void)
{
    W = XMPI_COMM_WORLD;
    MPI_Comm_rank(W, &rank);
    MPI_Comm_size(W, &nprocs);
}

/* One iteration k: `ib` brackets it; otherwise XMPI_Monitor_si_init opens it and it stays open. */
static void iteration(int k, int ib)
{
    if (ib) X(XMPI_Monitor_iter_begin(NULL));
    else X(XMPI_Monitor_si_init());
    for (int l = 0; l < count; l++) x[l] = row_step(x[l], displ + l, k);
    X(XMPI_Monitor_add_work(1.0 + count));
    int v[2] = {k, -k}, r[2];
    MPI_Allreduce(v, r, 2, MPI_INT, MPI_MIN, W);
    instep &= r[0] == -r[1];
    if (ib) X(XMPI_Monitor_iter_end(NULL));
}

/* A process that a removal took out: what it sees, printed by itself. */
static int removed_here(int old_rank, int old_size, int must_be_last)
{
    if (XMPI_Get_process_status() != XMPI_REMOVED) return 0;
    char t[64];
    snprintf(t, sizeof t, "removed (joined at %c)", joined == 1 ? 'A' : 'B');
    contract_start("contract_spawn", t);
    PROMISE("Those processes get XMPI_REMOVED and XMPI_COMM_WORLD == MPI_COMM_NULL;");
    check_self(XMPI_COMM_WORLD == MPI_COMM_NULL, "a removed process has XMPI_COMM_WORLD == "
                                                 "MPI_COMM_NULL and XMPI_REMOVED");
    PROMISE("XMPI_REMOVED once XMPI_Remove chose it (it should leave its loop and call MPI_Finalize);");
    check_self(XMPI_Get_process_status() == XMPI_REMOVED, "a removed process's status is XMPI_REMOVED "
                                                         "until it calls MPI_Finalize");
    if (must_be_last) {
        PROMISE("XMPI_Remove: nprocs spawned processes leave: on hosts of node_class[i] when given (the "
                "scheduling policy picks the host), else the most recently spawned.");
        check_self(old_rank == old_size - 1, "XMPI_Remove(1) took the most recently spawned process "
                                             "(rank %d of %d)", old_rank, old_size);
    }
    PROMISE("XMPI_ERR_STATE outside MPI_Init..MPI_Finalize or after removal.");
    double *y = NULL;
    int rc = X(XMPI_Register_vector(&y, M, MPI_DOUBLE, XMPI_DISTRIBUTED));
    check_self(rc == XMPI_ERR_STATE, "XMPI_Register_vector after removal returns XMPI_ERR_STATE (got "
                                     "%d)", rc);
    free(x);
    MPI_Finalize();
    contract_end();
    return 1;
}

/* After a removal: the stayers' blocks follow rank order, in proportion to the rows each held,
 * XMPI_Get_wsize returns them, and the rows are right. */
static void after_removal(int held, int old_rank, int old_size, int k, const char *what)
{
    int *h = malloc(sizeof *h * nprocs), *c = malloc(sizeof *c * nprocs), *d = malloc(sizeof *d * nprocs);
    PMPI_Allgather(&held, 1, MPI_INT, h, 1, MPI_INT, W);
    PROMISE("the others go on with a smaller XMPI_COMM_WORLD.");
    check_all(W, rank == old_rank && nprocs < old_size, "%s: the stayers keep their ranks in a smaller "
                                                        "XMPI_COMM_WORLD of %d", what, nprocs);
    long sum = 0;
    for (int r = 0; r < nprocs; r++) sum += h[r];
    int ok = 1, at = 0, same = 1;
    for (int r = 0; r < nprocs; r++) {
        X(XMPI_Get_wsize(r, nprocs, M, &c[r], &d[r]));
        double exact = sum ? (double)M * h[r] / sum : (double)M / nprocs;
        if (d[r] != at || c[r] < exact - 1.0 + 1e-9 || c[r] > exact + 1.0 - 1e-9) ok = 0;
        at += c[r];
    }
    same = c[rank] == count && d[rank] == displ;
    PROMISE("When structures are registered (see XMPI_Register_vector), the leaving processes first "
            "hand their rows to the processes that stay: the stayers' new blocks follow rank order, in "
            "proportion to the rows each held, and XMPI_Get_wsize returns them.");
    check_all(W, ok && at == M, "%s: XMPI_Get_wsize gives blocks in rank order from row 0, each within "
                                "one row of M x held / sum held", what);
    (void)same;
    count = c[rank], displ = d[rank];
    check_all(W, rows_at(k), "%s: the stayers hold their new blocks' rows after %d iterations, bit for "
                             "bit", what, k);
    free(h), free(c), free(d);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    world();
    int status0 = XMPI_Get_process_status();
    int phase = 0, rc, it = -1;
    char trace[512] = "", si_s[32] = "";
    X(XMPI_Get_option("trace", trace, sizeof trace));
    X(XMPI_Get_option("si", si_s, sizeof si_s));
    /* after each spawn rank 0 tells every process the phase and mpirun's process count */
    int pb[2] = {0, nprocs};
    if (status0 == XMPI_NEWLY_SPAWNED) {
        PMPI_Bcast(pb, 2, MPI_INT, 0, W);
        joined = phase = pb[0];
    }
    char tag[32];
    snprintf(tag, sizeof tag, "np%d", pb[1]);
    contract_start("contract_spawn", tag);

    /* ---- started by mpirun: iterations 0-2, then spawn A ---- */
    int old_size = nprocs, old_rank = rank;
    if (joined == 0) {
        X(XMPI_Get_wsize(rank, nprocs, M, &count, &displ));
        x = malloc(sizeof *x * count + 1);
        for (int l = 0; l < count; l++) x[l] = row_init(displ + l);
        X(XMPI_Register_vector(&x, M, MPI_DOUBLE, XMPI_DISTRIBUTED));
        for (int k = 0; k < 3; k++) iteration(k, 1);
        char *cargs[] = {"child", "A", NULL};
        MPI_Comm before = XMPI_COMM_WORLD;
        rc = X(XMPI_Spawn(argv[0], cargs, 1, MPI_INFO_NULL, NULL));
        if (rc != XMPI_SUCCESS) {
            check_code(before, rc, XMPI_SUCCESS, "XMPI_Spawn(argv[0], 1)");
            MPI_Finalize();
            if (rank == 0) contract_end();
            return 1;
        }
        world();
        pb[0] = phase = 1;
        PMPI_Bcast(pb, 2, MPI_INT, 0, W);
    }

    /* ---- join A: everyone ---- */
    if (joined <= 1) {
        int cond;
        if (joined == 0)
            cond = nprocs == old_size + 1 && rank == old_rank;
        else
            cond = rank == nprocs - 1 && argc == 3 && !strcmp(argv[1], "child") && !strcmp(argv[2], "A");
        PROMISE("XMPI_Spawn: starts nprocs processes of `command` (PATH is searched) with `argv` "
                "(MPI_ARGV_NULL allowed), placed by the scheduler on hosts of node_class[i] (NULL: any "
                "class) and merged into XMPI_COMM_WORLD after the existing ranks, which keep their "
                "numbers.");
        check_all(W, cond, "A: XMPI_Spawn(1) merged one process after the existing ranks, which keep "
                           "their numbers; it got the argv given");
        PROMISE("XMPI_COMM_WORLD is a new communicator after each successful call: do not keep copies of "
                "the handle across them.");
        check_all(W, nprocs == old_size + (joined == 0), "A: XMPI_COMM_WORLD, read again, is the grown "
                                                         "communicator");
        PROMISE("XMPI_NEWLY_SPAWNED from MPI_Init of a spawned process until it begins its first "
            "monitored iteration;");
        check_all(W, joined == 0 || status0 == XMPI_NEWLY_SPAWNED, "A: the new process starts "
                                                                   "XMPI_NEWLY_SPAWNED");

        /* first with a registration that does not match: refused everywhere, nothing moves */
        int nc, nd;
        X(XMPI_Get_wsize(rank, nprocs, M, &nc, &nd));
        double *keep = x;
        unsigned long long sum_before = 0;
        for (int l = 0; l < count; l++) sum_before += dbits(x[l]) * (l + 1);
        if (joined == 1) {
            x = NULL;
            X(XMPI_Register_vector(&x, M + 1, MPI_DOUBLE, XMPI_DISTRIBUTED));
            it = -5;
            rc = X(XMPI_Get_data(&it));
        } else
            rc = X(XMPI_Redistribute_data(count, displ, nc, nd));
        PROMISE("XMPI_ERR_STATE, at once and without communication, on a process that was not spawned "
                "or has already received its data; otherwise as XMPI_Redistribute_data.");
        check_code(W, rc, XMPI_ERR_ARG, "A: XMPI_Get_data beside XMPI_Redistribute_data when the new "
                                        "process registered a vector of M + 1 rows");
        unsigned long long sum_after = 0;
        for (int l = 0; joined == 0 && l < count; l++) sum_after += dbits(x[l]) * (l + 1);
        PROMISE("On an error every process gets the same code, rank 0 prints one line saying why, and no "
                "data has moved and no pointer has changed:");
        check_all(W, joined == 1 ? x == NULL && it == -5 : x == keep && sum_after == sum_before,
                  "A: after the refusal no data has moved, no pointer has changed, *it is untouched");
        if (joined == 1) {
            X(XMPI_Unregister(&x));
            X(XMPI_Register_vector(&x, M, MPI_DOUBLE, XMPI_DISTRIBUTED));
            rc = X(XMPI_Get_data(&it));
        } else
            rc = X(XMPI_Redistribute_data(count, displ, nc, nd));
        check_code(W, rc, XMPI_SUCCESS, "A: XMPI_Get_data beside XMPI_Redistribute_data to even blocks");
        count = nc, displ = nd;
        if (joined == 1) X(XMPI_Get_wsize(rank, nprocs, M, &count, &displ));
        PROMISE("For a process that XMPI_Spawn started: receives its rows of every registered structure "
                "(collective with the other processes' XMPI_Redistribute_data) and sets *it (NULL "
                "allowed) to the iteration to resume at: the number of monitored iterations the job has "
                "completed, i.e. the index of the next iteration of a loop counting from 0.");
        check_all(W, joined == 0 || it == 3, "A: after 3 iterations bracketed by iter_begin/end the new "
                                             "process resumes at 3 (got %d)", joined ? it : 3);
        PROMISE("Afterwards XMPI_Get_wsize(rank, nprocs, size, ...) returns the process's block.");
        check_all(W, count == nc && displ == nd && rows_at(3),
                  "A: the new process's XMPI_Get_wsize gives its even block, and every process holds "
                  "its rows after 3 iterations, bit for bit");
        PROMISE("XMPI_ERR_STATE, at once and without communication, on a process that was not spawned "
                "or has already received its data;");
        int again = joined == 1 ? X(XMPI_Get_data(&it)) : XMPI_ERR_STATE;
        check_all(W, again == XMPI_ERR_STATE, "A: a second XMPI_Get_data in the new process alone "
                                              "returns XMPI_ERR_STATE at once");
        PROMISE("XMPI_NEWLY_SPAWNED from MPI_Init of a spawned process until it begins its first "
            "monitored iteration;");
        int st = XMPI_Get_process_status();
        check_all(W, joined == 0 || st == XMPI_NEWLY_SPAWNED, "A: until its first monitored iteration "
                                                              "the new process stays XMPI_NEWLY_SPAWNED");
        iteration(3, 1);
        st = XMPI_Get_process_status();
        PROMISE("Process status: XMPI_RUNNING for a process mpirun started, and for a spawned one once it "
                "began its first monitored iteration;");
        check_all(W, st == XMPI_RUNNING, "A: once its first monitored iteration began the new process is "
                                         "XMPI_RUNNING");
        for (int k = 4; k < 6; k++) iteration(k, 1);
        for (int k = 6; k < 8; k++) iteration(k, 0);

        /* spawn B: by the bare name, without argv, with an info object; ends iteration 7 */
        old_size = nprocs, old_rank = rank;
        MPI_Info info;
        MPI_Info_create(&info);
        const char *base = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
        rc = X(XMPI_Spawn(base, MPI_ARGV_NULL, 2, info, NULL));
        MPI_Info_free(&info);
        if (rc != XMPI_SUCCESS) {
            check_code(W, rc, XMPI_SUCCESS, "B: XMPI_Spawn(bare name, 2)");
            MPI_Finalize();
            if (rank == 0) contract_end();
            return 1;
        }
        world();
        pb[0] = phase = 2;
        PMPI_Bcast(pb, 2, MPI_INT, 0, W);
    }

    /* ---- join B: the old processes keep rows [0, 7) (even over themselves), the two new ones
     * receive the rest, split evenly in rank order ---- */
    {
        int cond = joined == 2 ? rank >= nprocs - 2 && status0 == XMPI_NEWLY_SPAWNED && argc == 1
                               : nprocs == old_size + 2 && rank == old_rank;
        PROMISE("XMPI_Spawn: starts nprocs processes of `command` (PATH is searched) with `argv` "
                "(MPI_ARGV_NULL allowed), placed by the scheduler on hosts of node_class[i] (NULL: any "
                "class) and merged into XMPI_COMM_WORLD after the existing ranks, which keep their "
                "numbers.");
        check_all(W, cond, "B: XMPI_Spawn(2) of the program's bare name (PATH), MPI_ARGV_NULL: two "
                           "processes after the existing ranks, which keep their numbers");
        int nold = nprocs - 2, pc = 0, pd = 0;
        if (joined == 2) {
            x = NULL;
            X(XMPI_Register_vector(&x, M, MPI_DOUBLE, XMPI_DISTRIBUTED));
            it = -5;
            rc = X(XMPI_Get_data(&it));
            X(XMPI_Get_wsize(rank, nprocs, M, &count, &displ));
        } else {
            X(XMPI_Get_wsize(rank, nold, 7, &pc, &pd));
            rc = X(XMPI_Redistribute_data(count, displ, pc, pd));
            count = pc, displ = pd;
        }
        check_code(W, rc, XMPI_SUCCESS, "B: XMPI_Get_data beside XMPI_Redistribute_data");
        PROMISE("sets *it (NULL allowed) to the iteration to resume at: the number of monitored "
                "iterations the job has completed, i.e. the index of the next iteration of a loop "
                "counting from 0.");
        check_all(W, joined < 2 || it == 8, "B: after XMPI_Spawn ended the iteration si_init opened, the "
                                            "new processes resume at 8 (got %d)", joined == 2 ? it : 8);
        PROMISE("an iteration XMPI_Monitor_si_init opened ends at the call, also when the call is then "
                "refused for its arguments or resources (the iteration's work is over either way).");
        check_all(W, joined < 2 || it == 8, "B: the iteration si_init opened counted once, at the spawn");
        PROMISE("After XMPI_Spawn the new processes call XMPI_Get_data instead; they receive the rows that "
                "no other process's new block covers, split evenly among them in rank order.");
        int want_c = joined == 2 ? 3 : count;
        int want_d = joined == 2 ? (rank == nprocs - 2 ? 7 : 10) : displ;
        check_all(W, count == want_c && displ == want_d && rows_at(8),
                  "B: the new processes hold rows [7, 10) and [10, 13), every process its rows after 8 "
                  "iterations, bit for bit");
    }
    for (int k = 8; k < 10; k++) iteration(k, 0);

    /* ---- removal 1: ends iteration 9; the most recently spawned process leaves ---- */
    old_size = nprocs, old_rank = rank;
    int held = count;
    rc = X(XMPI_Remove(1, NULL));
    if (removed_here(old_rank, old_size, 1)) return 0;
    world();
    check_code(W, rc, XMPI_SUCCESS, "XMPI_Remove(1)");
    PROMISE("--xmpi-spawn=single (default) spawns them one by one, so that each can be removed alone;");
    check_all(W, rc == XMPI_SUCCESS && nprocs == old_size - 1, "one of the two processes spawned "
                                                               "together left alone");
    PROMISE("an iteration XMPI_Monitor_si_init opened ends at the call, also when the call is then "
            "refused for its arguments or resources (the iteration's work is over either way).");
    after_removal(held, old_rank, old_size, 10, "XMPI_Remove(1)");

    /* a hand-off that cannot be made: rank 0 registered one structure more; nobody leaves */
    {
        double *extra = NULL;
        if (rank == 0) {
            extra = malloc(sizeof *extra * M);
            for (int i = 0; i < M; i++) extra[i] = i;
            X(XMPI_Register_vector(&extra, M, MPI_DOUBLE, XMPI_REPLICATED));
        }
        MPI_Comm w0 = XMPI_COMM_WORLD;
        int s0 = nprocs;
        rc = X(XMPI_Remove(1, NULL));
        if (removed_here(rank, s0, 0)) return 0;   /* (a failure: nobody may leave) */
        PROMISE("If that hand-off fails (for the reasons XMPI_Redistribute_data gives), no process leaves "
                "and the call returns its code.");
        check_code(W, rc, XMPI_ERR_ARG, "XMPI_Remove(1) when rank 0 registered one structure more");
        int size = -1;
        MPI_Comm_size(XMPI_COMM_WORLD, &size);
        check_all(W, XMPI_COMM_WORLD == w0 && size == s0 && rows_at(10), "no process left, the rows are "
                                                                        "in place");
        if (rank == 0) X(XMPI_Unregister(&extra));
        free(extra);
    }

    /* refusals with spawned processes present: nothing changes */
    struct { int n; char **cls; int want; const char *what, *promise; } bad[] = {
        {1, (char *[]){"contract-no-such-class"}, XMPI_ERR_CLASS, "XMPI_Remove(1) of an unknown class",
         "a node class that the resource pool does not have"},
        {nprocs + 5, NULL, XMPI_ERR_RESOURCES, "XMPI_Remove of more processes than were spawned",
         "no free PE of a class, or fewer removable processes than asked"},
    };
    for (unsigned i = 0; i < sizeof bad / sizeof *bad; i++) {
        MPI_Comm w0 = XMPI_COMM_WORLD;
        int c0 = count, d0 = displ, s0 = nprocs;
        double *x0 = x;
        capture_begin();
        rc = X(XMPI_Remove(bad[i].n, bad[i].cls));
        int lines = capture_end();
        contract_promise(bad[i].promise);
        check_code(W, rc, bad[i].want, bad[i].what);
        int size = -1, c, d;
        if (XMPI_COMM_WORLD != MPI_COMM_NULL) MPI_Comm_size(XMPI_COMM_WORLD, &size);
        X(XMPI_Get_wsize(rank, s0, M, &c, &d));
        PROMISE("On an error every process gets the same code, rank 0 prints one line saying why, and "
                "XMPI_COMM_WORLD is unchanged.");
        check_all(W, XMPI_COMM_WORLD == w0 && size == s0 && c == c0 && d == d0 && x == x0 && rows_at(10) &&
                         XMPI_Get_process_status() == XMPI_RUNNING,
                  "%s: XMPI_COMM_WORLD, the blocks and the rows are unchanged, nobody left", bad[i].what);
        check_one_line(W, lines, bad[i].what);
    }

    for (int k = 10; k < 12; k++) iteration(k, 1);

    /* ---- removal 2: every spawned process left leaves ---- */
    old_size = nprocs, old_rank = rank;
    held = count;
    int mine = joined != 0, nsp;
    PMPI_Allreduce(&mine, &nsp, 1, MPI_INT, MPI_SUM, W);
    rc = X(XMPI_Remove(nsp, NULL));
    if (removed_here(old_rank, old_size, 0)) return 0;
    world();
    check_code(W, rc, XMPI_SUCCESS, "XMPI_Remove of every spawned process");
    PROMISE("Processes started by mpirun are never removed.");
    check_all(W, joined == 0 && nprocs == old_size - nsp, "only the %d processes mpirun started remain",
              nprocs);
    after_removal(held, old_rank, old_size, 12, "XMPI_Remove(every spawned process)");

    DOC_PROMISE("docs/api.md", "The iterations so ended are the *iterations completed*, one count for "
                               "everything that records an iteration:");
    check_all(W, instep, "every process ran every iteration with the same index");
    PROMISE("Every XMPI_ call returns one of these;");
    check_all(W, contract_bad_codes == 0, "every XMPI_ call returned one of the header's codes");
    X(XMPI_Unregister(&x));
    free(x);
    MPI_Finalize();
    if (rank == 0 && trace[0]) {
        /* the trace counts the iterations completed across the spawns and removals */
        int si = atoi(si_s), seen[32], n = 0, col = -1, row = 0;
        char line[8192], got[256] = "";
        FILE *f = fopen(trace, "r");
        while (f && fgets(line, sizeof line, f)) {
            char *save = NULL;
            int c = 0;
            for (char *t = strtok_r(line, ",\n", &save); t; t = strtok_r(NULL, ",\n", &save), c++) {
                if (row == 0 && !strcmp(t, "iteration")) col = c;
                if (row > 0 && c == col && n < 32) {
                    seen[n++] = atoi(t);
                    size_t L = strlen(got);
                    snprintf(got + L, sizeof got - L, "%s%s", L ? "," : "", t);
                }
            }
            row++;
        }
        if (f) fclose(f);
        int ok = si > 0 && col >= 0, k = 0;
        for (int e = si; ok && e < N + si; e += si, k++) ok = k < n && seen[k] == (e < N ? e : N);
        PROMISE("The iterations completed (what a checkpoint records, XMPI_Get_data returns and the "
                "trace's iteration column counts) are those ended: by XMPI_Monitor_iter_end, or, for an "
                "iteration XMPI_Monitor_si_init opened, by the next XMPI_Monitor_si_init, the XMPI_Eval_* "
                "call, XMPI_Checkpoint, XMPI_Spawn or XMPI_Remove (an XMPI_Monitor_iter_end after such a "
                "call finds it ended and returns XMPI_SUCCESS).");
        check_self(ok && k == n, "the trace's iteration column is every %d iterations up to %d across the "
                                 "spawns and removals: %s", si, N, got);
    }
    if (rank == 0) contract_end();
    return 0;
}
