/* Contract: the iterations completed, as a checkpoint records them and a restart (or a process
 * a policy spawns) resumes at them, under every monitoring style and evaluation call; the
 * checkpoint's refusals.
 *
 * usage: contract_checkpoint [KEY=VALUE...]
 *   style=ib|si       the loop brackets iterations with XMPI_Monitor_iter_begin/end, or opens
 *                     each with XMPI_Monitor_si_init                          (default si)
 *   eval=lb|rc|none   XMPI_Eval_lbalance, XMPI_Eval_reconfig or nothing ends each iteration
 *   n=N               iterations of the run                                   (default 10)
 *   ckpt=K1,K2,...    XMPI_Checkpoint("kK") once K iterations are completed
 *   final=NAME        XMPI_Checkpoint(NAME) after the loop
 *   expect=K          a restarted run (--xmpi-restart): XMPI_Get_data must return K
 *   refuse=1          a restarted run whose checkpoint is damaged or missing a file: XMPI_Get_data
 *                     must refuse it with XMPI_ERR_CHECKPOINT and load nothing
 *   rows=M            rows registered (default 11; a restart with another M must be refused)
 *   tailend=1         (style si) XMPI_Monitor_iter_end(NULL) after the evaluation call as well
 *   out=FILE          rank 0 writes the final vector, one hexadecimal double per line
 *   ref=FILE          the final vector must be FILE's (an uninterrupted run's out=), bit for bit
 *   mode=errors       XMPI_Checkpoint's refusals (with --xmpi-checkpoint=DIR)
 *   crash=1           (with expect=) the checkpoint after the one restarted from was killed while
 *                     it was written (LIBXMPI_FAULT=checkpoint-kill, docs/checkpoint.md)
 *   grew=1            (eval=rc under a policy that spawns and removes, the spawn waited for) a
 *                     process must have joined and one must have been removed
 *   nospawn=cap|fail  (eval=rc under a policy asked to spawn) the job must never grow: the cap
 *                     --xmpi-max-procs forbids it, or the spawn fails (LIBXMPI_FAULT=spawn-refuse)
 *
 * The update x_i <- row_step(x_i, i, k) depends on the row and the iteration index k, so a
 * repeated or skipped iteration changes the bits. Every run ends by comparing its data with a
 * serial computation of all N iterations, bit for bit; a restart compares what it loaded with
 * the data after K iterations. With --xmpi-trace, rank 0 reads the trace back after
 * MPI_Finalize and checks its rows' iteration column. */
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "contract.h"

static MPI_Comm W;
static int rank, nprocs;
static char tag[96];

static const char *style = "si", *eval = "none", *final_name = NULL, *out_file = NULL,
                  *ref_file = NULL, *mode = "run";
static int n_iter = 10, expect = -1, refuse = 0, M = 11, tailend = 0, ckpts[16], n_ckpts = 0;
static int crash = 0, grew = 0, argv_ok = 1;
static const char *nospawn = NULL;

static double *x, *D;   /* a distributed vector and a distributed M x M matrix */
static int count, displ;

static double ref_x(int i, int k) { return row_after(row_init(i), i, k); }
static double ref_d(int i, int j, int k)
{
    return row_after(row_init((long)i * M + j) - 3.0, (long)i * M + j, k);
}

static void args(int argc, char **argv)
{
    for (int a = 1; a < argc; a++) {
        char *v = strchr(argv[a], '=');
        if (!v) continue;
        *v++ = '\0';
        const char *k = argv[a];
        if (!strcmp(k, "style")) style = v;
        else if (!strcmp(k, "eval")) eval = v;
        else if (!strcmp(k, "n")) n_iter = atoi(v);
        else if (!strcmp(k, "final")) final_name = v;
        else if (!strcmp(k, "expect")) expect = atoi(v);
        else if (!strcmp(k, "refuse")) refuse = atoi(v);
        else if (!strcmp(k, "rows")) M = atoi(v);
        else if (!strcmp(k, "tailend")) tailend = atoi(v);
        else if (!strcmp(k, "out")) out_file = v;
        else if (!strcmp(k, "ref")) ref_file = v;
        else if (!strcmp(k, "mode")) mode = v;
        else if (!strcmp(k, "crash")) crash = atoi(v);
        else if (!strcmp(k, "grew")) grew = atoi(v);
        else if (!strcmp(k, "nospawn")) nospawn = v;
        else if (!strcmp(k, "ckpt"))
            for (char *t = strtok(v, ","); t && n_ckpts < 16; t = strtok(NULL, ",")) ckpts[n_ckpts++] = atoi(t);
    }
}

/* This process's rows hold the state after k iterations, bit for bit. */
static int rows_at(int k)
{
    int ok = count == 0 || (x && D);
    for (int l = 0; ok && l < count; l++) {
        ok = dbits(x[l]) == dbits(ref_x(displ + l, k));
        for (int j = 0; ok && j < M; j++) ok = dbits(D[(size_t)l * M + j]) == dbits(ref_d(displ + l, j, k));
    }
    return ok;
}

static int register_data(void)
{
    int a = X(XMPI_Register_vector(&x, M, MPI_DOUBLE, XMPI_DISTRIBUTED));
    int b = X(XMPI_Register_dense(&D, M, MPI_DOUBLE, XMPI_DISTRIBUTED));
    return a == XMPI_SUCCESS && b == XMPI_SUCCESS;
}

/* The contents of DIR/LATEST, without the line end ("" when it cannot be read). */
static void read_latest(const char *dir, char *buf, int len)
{
    char path[600];
    snprintf(path, sizeof path, "%s/LATEST", dir);
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f) return;
    if (!fgets(buf, len, f)) buf[0] = '\0';
    fclose(f);
    buf[strcspn(buf, "\r\n")] = '\0';
}

/* One checkpoint the loop asked for: published under its name and named by LATEST. */
static void checkpoint(const char *name, int completed)
{
    char dir[512] = "", latest[256];
    X(XMPI_Get_option("checkpoint", dir, sizeof dir));
    int rc = X(XMPI_Checkpoint(name));
    PROMISE("It records the monitored iterations completed, and a restart resumes at that number: "
            "call it between iterations, after XMPI_Monitor_iter_end or an XMPI_Eval_* call;");
    check_code(W, rc, XMPI_SUCCESS, name);
    if (rank == 0) read_latest(dir[0] ? dir : ".", latest, sizeof latest);
    PROMISE("The checkpoint is written under a temporary name and published by a rename, and LATEST in "
            "its directory names it: a crash during the write leaves the previous checkpoint whole.");
    char path[800];
    struct stat sb;
    snprintf(path, sizeof path, "%s/%s", dir[0] ? dir : ".", name);
    int ok = rank != 0 || (strcmp(latest, name) == 0 && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode));
    check_all(W, ok, "after %d iterations XMPI_Checkpoint(\"%s\") made the directory %s and LATEST "
                     "names it (LATEST: '%s')", completed, name, name, rank == 0 ? latest : "");
}

/* Rank 0, after MPI_Finalize: the trace's iteration column. */
static void check_trace(const char *file, int si, int resumed)
{
    FILE *f = fopen(file, "r");
    check_self(f != NULL, "the trace %s exists after MPI_Finalize", file);
    if (!f) return;
    char line[8192];
    int col_it = -1, col_iv = -1, col_n = -1, rows = 0, ok = 1, last = -1, seen[64], nseen = 0;
    char got[512] = "";
    while (fgets(line, sizeof line, f)) {
        int c = 0;
        char *save = NULL;
        int it = -1, iv = -1, nn = -1;
        for (char *t = strtok_r(line, ",\n", &save); t; t = strtok_r(NULL, ",\n", &save), c++) {
            if (rows == 0 && col_it < 0 && !strcmp(t, "iteration")) col_it = c;
            if (rows == 0 && !strcmp(t, "interval")) col_iv = c;
            if (rows == 0 && !strcmp(t, "iterations")) col_n = c;
            if (rows > 0 && c == col_it) it = atoi(t);
            if (rows > 0 && c == col_iv) iv = atoi(t);
            if (rows > 0 && c == col_n) nn = atoi(t);
        }
        if (rows > 0) {
            if (nseen < 64) seen[nseen++] = it;
            size_t L = strlen(got);
            snprintf(got + L, sizeof got - L, "%s%d", L ? "," : "", it);
            if (resumed < 0 && iv != rows) ok = 0;   /* intervals count from 1 */
            if (nn >= 0 && last >= 0 && nn != it - last) ok = 0;
            last = it;
        }
        rows++;
    }
    fclose(f);
    rows--;
    if (resumed < 0) {
        /* a run from the start: rows at si, 2 si, ... and the last, partial one at N */
        int want = 0, k = 0;
        for (int e = si; e < n_iter + si; e += si, k++) {
            int at = e < n_iter ? e : n_iter;
            if (k >= nseen || seen[k] != at) want = 1;
        }
        PROMISE("Every --xmpi-si iterations the per-rank records are gathered (collectively, inside the "
                "iteration-ending call) into one interval summary.");
        DOC_PROMISE("docs/formats.md", "If the iteration count is not a multiple of `si`, `MPI_Finalize` "
                                       "adds a last, partial interval.");
        check_self(col_it >= 0 && !want && k == rows && ok,
                   "the trace has one row per %d iterations and a last one at %d: iteration column "
                   "%s",
                   si, n_iter, got);
    } else {
        PROMISE("The iterations completed (what a checkpoint records, XMPI_Get_data returns and the "
                "trace's iteration column counts) are those ended:");
        int inc = rows > 0 && seen[0] > resumed && last == n_iter;
        for (int k = 1; k < nseen; k++) inc &= seen[k] > seen[k - 1];
        check_self(inc, "the restarted run's trace counts on from %d to %d: iteration column %s",
                   resumed, n_iter, got);
    }
}

/* ---- The refusals of XMPI_Checkpoint ---- */
static void errors(void)
{
    char dir[512] = "", latest[256] = "";
    X(XMPI_Get_option("checkpoint", dir, sizeof dir));
    int rc;
    PROMISE("The same code on every process: XMPI_ERR_STATE when nothing is registered, XMPI_ERR_ARG for "
            "an empty or too long name, inconsistent registrations or a NULL buffer, "
            "XMPI_ERR_CHECKPOINT when a file cannot be written (rank 0 says why; the previous checkpoint "
            "stays the latest).");
    rc = X(XMPI_Checkpoint("nothing"));
    check_code(W, rc, XMPI_ERR_STATE, "XMPI_Checkpoint with nothing registered");

    count = M / nprocs + (rank < M % nprocs);
    displ = rank * (M / nprocs) + (rank < M % nprocs ? rank : M % nprocs);
    x = malloc(sizeof *x * (count + 1));
    D = malloc(sizeof *D * (count * M + 1));
    for (int l = 0; l < count; l++) {
        x[l] = ref_x(displ + l, 0);
        for (int j = 0; j < M; j++) D[(size_t)l * M + j] = ref_d(displ + l, j, 0);
    }
    register_data();

    PROMISE("inside an iteration XMPI_Monitor_iter_begin opened it returns XMPI_ERR_STATE and writes "
            "nothing.");
    X(XMPI_Monitor_iter_begin(NULL));
    rc = X(XMPI_Checkpoint("inside"));
    X(XMPI_Monitor_iter_end(NULL));
    check_code(W, rc, XMPI_ERR_STATE, "XMPI_Checkpoint inside an iteration XMPI_Monitor_iter_begin "
                                      "opened");
    char path[800];
    snprintf(path, sizeof path, "%s/inside", dir);
    check_all(W, access(path, F_OK) != 0, "the refused checkpoint wrote no directory 'inside'");

    /* a good one first: what a failed one must leave the latest */
    PROMISE("XMPI_Checkpoint: writes every registered structure, in global row order (so that any number "
            "of processes can restart from it), with collective MPI-IO into a directory `name` "
            "(relative to --xmpi-checkpoint=DIR when set; NULL: the automatic name ckpt-ITERATION in "
            "DIR), with a manifest and a CRC-32 per file.");
    rc = X(XMPI_Checkpoint("good"));
    check_code(W, rc, XMPI_SUCCESS, "XMPI_Checkpoint(\"good\")");
    snprintf(path, sizeof path, "%s/good/manifest", dir);
    PROMISE("XMPI_Checkpoint: writes every registered structure, in global row order (so that any number "
            "of processes can restart from it), with collective MPI-IO into a directory `name` "
            "(relative to --xmpi-checkpoint=DIR when set; NULL: the automatic name ckpt-ITERATION in "
            "DIR), with a manifest and a CRC-32 per file.");
    check_all(W, rank != 0 || access(path, R_OK) == 0, "the checkpoint is the directory DIR/good, "
                                                       "with a manifest");

    PROMISE("Collective over XMPI_COMM_WORLD; `name` is significant on rank 0.");
    rc = X(XMPI_Checkpoint(rank == 0 ? "named-by-rank0" : rank == 1 ? NULL : "named-by-another"));
    char p2[800];
    snprintf(path, sizeof path, "%s/named-by-rank0", dir);
    snprintf(p2, sizeof p2, "%s/named-by-another", dir);
    check_all(W, rc == XMPI_SUCCESS && (rank != 0 || (access(path, F_OK) == 0 && access(p2, F_OK) != 0)),
              "the checkpoint takes rank 0's name whatever the others pass (rc %d)", rc);

    PROMISE("The same code on every process: XMPI_ERR_STATE when nothing is registered, XMPI_ERR_ARG for "
            "an empty or too long name, inconsistent registrations or a NULL buffer, "
            "XMPI_ERR_CHECKPOINT when a file cannot be written (rank 0 says why; the previous checkpoint "
            "stays the latest).");
    rc = X(XMPI_Checkpoint(""));
    check_code(W, rc, XMPI_ERR_ARG, "XMPI_Checkpoint(\"\") (an empty name)");
    /* a name longer than any path: 64 KiB of 'k' */
    char *longname = malloc(65537);
    memset(longname, 'k', 65536);
    longname[65536] = '\0';
    rc = X(XMPI_Checkpoint(longname));
    free(longname);
    check_code(W, rc, XMPI_ERR_ARG, "XMPI_Checkpoint of a name of 65536 characters (too long)");

    /* a NULL buffer on the process with the most rows (rank 0 has at least as many as any) */
    double *keep = x;
    if (rank == 0) x = NULL;
    rc = X(XMPI_Checkpoint("nullbuf"));
    x = keep;
    check_code(W, rc, XMPI_ERR_ARG, "XMPI_Checkpoint with a NULL buffer on rank 0, which holds rows");

    if (nprocs > 1) {
        double *extra = NULL;
        if (rank == 1) {
            extra = malloc(sizeof *extra * M);
            for (int i = 0; i < M; i++) extra[i] = i;
            X(XMPI_Register_vector(&extra, M, MPI_DOUBLE, XMPI_REPLICATED));
        }
        rc = X(XMPI_Checkpoint("inconsistent"));
        check_code(W, rc, XMPI_ERR_ARG, "XMPI_Checkpoint with one structure more on rank 1");
        if (rank == 1) X(XMPI_Unregister(&extra));
        free(extra);
    }

    /* a file that cannot be written: every file is limited to 512 bytes (RLIMIT_FSIZE), and the
     * data is larger */
    double *big = malloc(sizeof *big * (size_t)count * 64 + 1);
    for (long i = 0; i < (long)count * 64; i++) big[i] = (double)i;
    MPI_Datatype row64;
    MPI_Type_contiguous(64, MPI_DOUBLE, &row64);
    MPI_Type_commit(&row64);
    X(XMPI_Register_vector(&big, M, row64, XMPI_DISTRIBUTED));
    char before[256] = "";
    if (rank == 0) read_latest(dir, before, sizeof before);
    struct rlimit old, lim;
    getrlimit(RLIMIT_FSIZE, &old);
    lim = old;
    lim.rlim_cur = 512;
    signal(SIGXFSZ, SIG_IGN);
    PMPI_Barrier(W);
    setrlimit(RLIMIT_FSIZE, &lim);
    capture_begin();
    rc = X(XMPI_Checkpoint("toobig"));
    int lines = capture_end();
    setrlimit(RLIMIT_FSIZE, &old);
    check_code(W, rc, XMPI_ERR_CHECKPOINT, "XMPI_Checkpoint when no file may exceed 512 bytes");
    check_one_line(W, lines, "XMPI_Checkpoint when no file may exceed 512 bytes");
    PROMISE("The same code on every process: XMPI_ERR_STATE when nothing is registered, XMPI_ERR_ARG for "
            "an empty or too long name, inconsistent registrations or a NULL buffer, "
            "XMPI_ERR_CHECKPOINT when a file cannot be written (rank 0 says why; the previous checkpoint "
            "stays the latest).");
    if (rank == 0) read_latest(dir, latest, sizeof latest);
    check_all(W, rank != 0 || strcmp(latest, before) == 0, "after the failed checkpoint LATEST still "
                                                           "names '%s' (got '%s')",
              rank == 0 ? before : "", rank == 0 ? latest : "");
    X(XMPI_Unregister(&big));
    free(big);
    MPI_Type_free(&row64);

    /* the automatic name */
    PROMISE("XMPI_Checkpoint: writes every registered structure, in global row order (so that any number "
            "of processes can restart from it), with collective MPI-IO into a directory `name` "
            "(relative to --xmpi-checkpoint=DIR when set; NULL: the automatic name ckpt-ITERATION in "
            "DIR), with a manifest and a CRC-32 per file.");
    for (int k = 0; k < 3; k++) {
        X(XMPI_Monitor_iter_begin(NULL));
        X(XMPI_Monitor_iter_end(NULL));
    }
    rc = X(XMPI_Checkpoint(NULL));
    check_code(W, rc, XMPI_SUCCESS, "XMPI_Checkpoint(NULL) after 4 monitored iterations");
    if (rank == 0) read_latest(dir, latest, sizeof latest);
    int ok = rank != 0 || (strncmp(latest, "ckpt-", 5) == 0 && atoi(latest + 5) == 4 &&
                           strspn(latest + 5, "0123456789") == strlen(latest + 5));
    check_all(W, ok, "the automatic name is ckpt-ITERATION with the 4 iterations completed (LATEST: "
                     "'%s')", rank == 0 ? latest : "");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    /* what a process the policy spawns was given: mpirun's arguments without --xmpi- ones */
    int has_eval = 0;
    for (int a = 1; a < argc; a++) {
        if (!strncmp(argv[a], "--xmpi-", 7)) argv_ok = 0;
        if (!strcmp(argv[a], "eval=rc")) has_eval = 1;
    }
    argv_ok &= has_eval;
    args(argc, argv);
    W = XMPI_COMM_WORLD;
    MPI_Comm_rank(W, &rank);
    MPI_Comm_size(W, &nprocs);
    int status = XMPI_Get_process_status();
    int restarted = expect >= 0 || refuse;
    int spawned = status == XMPI_NEWLY_SPAWNED && !restarted;
    if (!strcmp(mode, "errors")) snprintf(tag, sizeof tag, "np%d errors", nprocs);
    else
        snprintf(tag, sizeof tag, "np%d %s %s%s%s", nprocs, style, eval, tailend ? " tailend" : "",
                 refuse ? " refuse" : expect >= 0 ? " restart" : spawned ? " spawned" : "");
    if (expect >= 0) {
        size_t L = strlen(tag);
        snprintf(tag + L, sizeof tag - L, " from %d", expect);
    }
    contract_start("contract_checkpoint", tag);

    if (!strcmp(mode, "errors")) {
        errors();
        PROMISE("Every XMPI_ call returns one of these;");
        check_all(W, contract_bad_codes == 0, "every XMPI_ call returned one of the header's codes");
        MPI_Finalize();
        if (rank == 0) contract_end();
        return 0;
    }

    char trace[512] = "", si_s[32] = "";
    X(XMPI_Get_option("trace", trace, sizeof trace));
    X(XMPI_Get_option("si", si_s, sizeof si_s));
    int it = 0;
    if (restarted) {
        PROMISE("With --xmpi-restart every process starts as XMPI_NEWLY_SPAWNED: it registers its "
                "structures with NULL pointers, and XMPI_Get_data fills them from the checkpoint for "
                "the current number of processes (even blocks) and returns the iteration to resume "
                "at.");
        check_all(W, status == XMPI_NEWLY_SPAWNED, "with --xmpi-restart the process starts as "
                                                   "XMPI_NEWLY_SPAWNED (got %d)", status);
        x = NULL, D = NULL;
        register_data();
        it = -5;
        capture_begin();
        int rc = X(XMPI_Get_data(&it));
        int lines = capture_end();
        if (refuse) {
            PROMISE("a checkpoint could not be written, or the one to restart from has a missing or "
                    "damaged file or does not match the registered structures (a checkpoint that is not "
                    "there at all stops the job at MPI_Init)");
            check_code(W, rc, XMPI_ERR_CHECKPOINT, "XMPI_Get_data from a checkpoint that is damaged, "
                                                   "incomplete or of other structures");
            DOC_PROMISE("docs/checkpoint.md", "Refused, with one message on rank 0, nothing loaded and "
                                              "`XMPI_ERR_CHECKPOINT` from `XMPI_Get_data`");
            check_all(W, x == NULL && D == NULL && it == -5,
                      "nothing was loaded: the pointers are still NULL and *it is untouched");
            PROMISE("XMPI_ERR_STATE, at once and without communication, on a process that was not "
                    "spawned or has already received its data; otherwise as XMPI_Redistribute_data.");
            check_one_line(W, lines, "XMPI_Get_data from a bad checkpoint (as XMPI_Redistribute_data's "
                                     "errors)");
            MPI_Finalize();
            if (rank == 0) contract_end();
            return 0;
        }
        check_code(W, rc, XMPI_SUCCESS, "XMPI_Get_data after --xmpi-restart");
        /* the sentence that says where this loop's checkpoint was taken */
        if (crash)
            PROMISE("The checkpoint is written under a temporary name and published by a rename, and "
                    "LATEST in its directory names it: a crash during the write leaves the previous "
                    "checkpoint whole.");
        else if (!strcmp(eval, "lb"))
            PROMISE("XMPI_Eval_lbalance: call it at the end of every iteration (after the monitoring "
                    "call); it ends an iteration XMPI_Monitor_si_init opened.");
        else if (!strcmp(eval, "rc"))
            PROMISE("XMPI_Eval_reconfig: call it at the end of every iteration instead of "
                    "XMPI_Eval_lbalance.");
        else if (!strcmp(style, "si"))
            PROMISE("It records the monitored iterations completed, and a restart resumes at that "
                    "number: call it between iterations, after XMPI_Monitor_iter_end or an XMPI_Eval_* "
                    "call; an iteration XMPI_Monitor_si_init opened ends at the call (it counts as "
                    "completed, also when the call is then refused);");
        else
            PROMISE("It records the monitored iterations completed, and a restart resumes at that "
                    "number: call it between iterations, after XMPI_Monitor_iter_end or an XMPI_Eval_* "
                    "call;");
        check_all(W, it == expect, "XMPI_Get_data returns the iteration the checkpoint recorded: %d "
                                   "(got %d)", expect, it);
        int c, d;
        X(XMPI_Get_wsize(rank, nprocs, M, &c, &d));
        count = c, displ = d;
        check_all(W, c == M / nprocs + (rank < M % nprocs), "the restarted process holds its even "
                                                            "block of %d rows", M);
        check_all(W, rows_at(it), "the loaded rows are the data after %d iterations, bit for bit", it);
    } else if (spawned) {
        /* started by the policy (XMPI_Eval_reconfig): the same collective sequence as the
         * processes already running make when they see the job grow (below) */
        x = NULL, D = NULL;
        register_data();
        int rc = X(XMPI_Get_data(&it));
        X(XMPI_Get_wsize(rank, nprocs, M, &count, &displ));
        int v[2] = {it, -it}, r[2];
        PMPI_Allreduce(v, r, 2, MPI_INT, MPI_MIN, W);
        PROMISE("sets *it (NULL allowed) to the iteration to resume at: the number of monitored "
                "iterations the job has completed, i.e. the index of the next iteration of a loop "
                "counting from 0.");
        check_all(W, rc == XMPI_SUCCESS && r[0] == -r[1],
                  "the spawned process resumes at the others' next iteration (%d)", r[0]);
        PROMISE("When the policy spawns, the new processes start `command` (NULL: this program) with argv "
                "(the arguments only, without the program's name, as MPI_Comm_spawn takes them; NULL: the "
                "arguments mpirun gave, without --xmpi- options; they inherit the options) and every "
                "registered structure is spread over all processes in proportion to their measured power "
                "(new processes take their class's);");
        check_all(W, argv_ok, "the spawned process runs this program with mpirun's arguments, without "
                              "--xmpi- ones");
        PROMISE("the new processes see XMPI_NEWLY_SPAWNED, register their structures with NULL pointers "
                "and call XMPI_Get_data.");
        check_all(W, rows_at(it), "the spawned process received its rows after %d iterations, bit for "
                                  "bit", it);
    } else {
        X(XMPI_Get_wsize(rank, nprocs, M, &count, &displ));
        x = malloc(sizeof *x * (count + 1));
        D = malloc(sizeof *D * ((size_t)count * M + 1));
        for (int l = 0; l < count; l++) {
            x[l] = ref_x(displ + l, 0);
            for (int j = 0; j < M; j++) D[(size_t)l * M + j] = ref_d(displ + l, j, 0);
        }
        register_data();
    }

    int instep = 1, first = 1, removed = 0, codes = 1, was_running = 1, joins = 0, shrinks = 0,
        grown = 0;
    for (int k = it; k < n_iter; k++) {
        int rc;
        if (!strcmp(style, "ib")) rc = X(XMPI_Monitor_iter_begin(NULL));
        else rc = X(XMPI_Monitor_si_init());
        codes &= rc == XMPI_SUCCESS;
        if (first && (restarted || spawned)) was_running = XMPI_Get_process_status() == XMPI_RUNNING;
        first = 0;
        for (int l = 0; l < count; l++) {
            x[l] = row_step(x[l], displ + l, k);
            for (int j = 0; j < M; j++)
                D[(size_t)l * M + j] = row_step(D[(size_t)l * M + j], (long)(displ + l) * M + j, k);
        }
        X(XMPI_Monitor_add_work(1.0 + count * (M + 1)));
        int v[2] = {k, -k}, r[2];
        MPI_Allreduce(v, r, 2, MPI_INT, MPI_MIN, W);
        instep &= r[0] == -r[1];
        if (!strcmp(style, "ib")) codes &= X(XMPI_Monitor_iter_end(NULL)) == XMPI_SUCCESS;
        int before = nprocs;
        if (!strcmp(eval, "lb"))
            codes &= X(XMPI_Eval_lbalance(rank, nprocs, k, n_iter, &count, &displ, NULL)) == XMPI_SUCCESS;
        else if (!strcmp(eval, "rc")) {
            codes &= X(XMPI_Eval_reconfig(rank, nprocs, k, n_iter, &count, &displ, NULL, NULL, NULL)) ==
                     XMPI_SUCCESS;
            if (XMPI_Get_process_status() == XMPI_REMOVED) {
                removed = 1;
                break;
            }
            W = XMPI_COMM_WORLD;
            MPI_Comm_rank(W, &rank);
            MPI_Comm_size(W, &nprocs);
            if (nprocs < before) shrinks++;
            if (nprocs > before) grown = 1;
            if (nprocs > before) {
                /* processes joined: they resume at our next iteration */
                int nv[2] = {k + 1, -(k + 1)}, nr[2];
                PMPI_Allreduce(nv, nr, 2, MPI_INT, MPI_MIN, W);
                PROMISE("sets *it (NULL allowed) to the iteration to resume at: the number of monitored "
                        "iterations the job has completed, i.e. the index of the next iteration of a "
                        "loop counting from 0.");
                check_all(W, nr[0] == -nr[1], "the spawned process resumes at the others' next "
                                              "iteration (%d)", nr[0]);
                PROMISE("When the policy spawns, the new processes start `command` (NULL: this program) "
                        "with argv (the arguments only, without the program's name, as MPI_Comm_spawn "
                        "takes them; NULL: the arguments mpirun gave, without --xmpi- options; they "
                        "inherit the options) and every registered structure is spread over all "
                        "processes in proportion to their measured power (new processes take their "
                        "class's);");
                check_all(W, 1, "the spawned process runs this program with mpirun's arguments, "
                                "without --xmpi- ones");
                joins++;
                PROMISE("the new processes see XMPI_NEWLY_SPAWNED, register their structures with NULL "
                        "pointers and call XMPI_Get_data.");
                check_all(W, rows_at(k + 1), "the spawned process received its rows after %d "
                                             "iterations, bit for bit", k + 1);
            }
        }
        if (tailend) {
            PROMISE("(an XMPI_Monitor_iter_end after such a call finds it ended and returns "
                    "XMPI_SUCCESS).");
            int e = X(XMPI_Monitor_iter_end(NULL));
            codes &= e == XMPI_SUCCESS;
        }
        for (int c = 0; c < n_ckpts; c++)
            if (ckpts[c] == k + 1) {
                char name[32];
                snprintf(name, sizeof name, "k%d", k + 1);
                checkpoint(name, k + 1);
            }
    }
    if (removed) {
        PROMISE("When it removes, the leaving processes (only spawned ones, never mpirun's) hand their rows "
                "over, see XMPI_REMOVED and must leave their loop.");
        check_self(XMPI_COMM_WORLD == MPI_COMM_NULL && XMPI_Get_process_status() == XMPI_REMOVED,
                   "the process the policy removed has "
                                                     "XMPI_COMM_WORLD == MPI_COMM_NULL");
        MPI_Finalize();
        return 0;
    }
    PROMISE("XMPI_NEWLY_SPAWNED from MPI_Init of a spawned process until it begins its first "
            "monitored iteration;");
    check_all(W, was_running || it >= n_iter, "every process that started XMPI_NEWLY_SPAWNED is "
                                              "XMPI_RUNNING once its first monitored iteration began");
    if (final_name) checkpoint(final_name, n_iter);
    if (grew) {
        /* processes that joined count their own join: the first rank alone counts what it saw */
        PROMISE("smp: spawns on the PEs the resource manager (--xmpi-rms) offers, up to "
                "--xmpi-max-procs, and removes what it reclaims;");
        check_all(W, rank != 0 || (joins >= 1 && shrinks >= 1), "under smp the schedule's spawn and "
                                                                "removal happened (%d joins, %d "
                                                                "removals seen by rank 0)", joins, shrinks);
        PROMISE("When it removes, the leaving processes (only spawned ones, never mpirun's) hand their rows "
                "over, see XMPI_REMOVED and must leave their loop.");
        check_all(W, rows_at(n_iter), "after the removal the stayers hold their rows bit for bit");
        PROMISE("Refresh rank and size from XMPI_COMM_WORLD after the call.");
        int size = -1;
        MPI_Comm_size(XMPI_COMM_WORLD, &size);
        check_all(W, size == nprocs && nprocs >= 1, "rank and size read again after each call describe "
                                                    "the job (%d processes at the end)", nprocs);
    }
    if (nospawn && !strcmp(nospawn, "cap")) {
        PROMISE("smp: spawns on the PEs the resource manager (--xmpi-rms) offers, up to "
                "--xmpi-max-procs, and removes what it reclaims;");
        check_all(W, !grown, "with --xmpi-max-procs at the job's size the offer is not taken");
    }
    if (nospawn && !strcmp(nospawn, "fail")) {
        PROMISE("a failed spawn leaves the job as it was and says why.");
        check_all(W, !grown && rows_at(n_iter), "when MPI_Comm_spawn fails the job goes on as it was, "
                                                "its rows in place");
    }

    PROMISE("Every XMPI_ call returns one of these;");
    check_all(W, codes, "every monitoring and evaluation call of the loop returned XMPI_SUCCESS");
    DOC_PROMISE("docs/api.md", "The iterations so ended are the *iterations completed*, one count for "
                               "everything that records an iteration:");
    check_all(W, instep, "every process ran every iteration with the same index");

    /* the final data, gathered in global row order, against the serial computation */
    PROMISE("It records the monitored iterations completed, and a restart resumes at that number: "
            "call it between iterations, after XMPI_Monitor_iter_end or an XMPI_Eval_* call;");
    int ok = rows_at(n_iter);
    check_all(W, ok, "after %d iterations every row is the serial computation's, bit for bit", n_iter);
    int *cnts = malloc(sizeof *cnts * nprocs), *dsps = malloc(sizeof *dsps * nprocs);
    PMPI_Gather(&count, 1, MPI_INT, cnts, 1, MPI_INT, 0, W);
    PMPI_Gather(&displ, 1, MPI_INT, dsps, 1, MPI_INT, 0, W);
    double *all = malloc(sizeof *all * (M + 1));
    PMPI_Gatherv(x, count, MPI_DOUBLE, all, cnts, dsps, MPI_DOUBLE, 0, W);
    if (rank == 0 && out_file) {
        FILE *f = fopen(out_file, "w");
        for (int i = 0; f && i < M; i++) fprintf(f, "%016llx\n", dbits(all[i]));
        if (f) fclose(f);
    }
    if (ref_file) {
        int same = 1;
        if (rank == 0) {
            FILE *f = fopen(ref_file, "r");
            char line[64];
            for (int i = 0; i < M; i++) {
                char mine[32];
                snprintf(mine, sizeof mine, "%016llx\n", dbits(all[i]));
                if (!f || !fgets(line, sizeof line, f) || strcmp(line, mine) != 0) same = 0;
            }
            if (f) fclose(f);
        }
        PROMISE("It records the monitored iterations completed, and a restart resumes at that number: "
                "call it between iterations, after XMPI_Monitor_iter_end or an XMPI_Eval_* call;");
        check_all(W, same, "the final vector is the uninterrupted run's, bit for bit");
    }
    PROMISE("Every XMPI_ call returns one of these;");
    check_all(W, contract_bad_codes == 0, "every XMPI_ call returned one of the header's codes");
    X(XMPI_Unregister(&x));
    X(XMPI_Unregister(&D));
    free(x), free(D), free(all), free(cnts), free(dsps);
    MPI_Finalize();
    if (rank == 0 && trace[0]) check_trace(trace, atoi(si_s), restarted ? it : -1);
    if (rank == 0) contract_end();
    return 0;
}
