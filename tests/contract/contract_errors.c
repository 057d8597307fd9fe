/* Contract: return codes, error strings, the moments a call may be made, and the calls that
 * change the job refusing what they must without changing anything.
 * usage: contract_errors            (on 1-3 processes; it spawns nothing when the library keeps
 *                                     the header's promises) */
#include "contract.h"

/* What the calls did before MPI_Init, checked once MPI can carry the verdict. */
struct phase {
    int world_null, status, reg, begin, si, work, redist, ckpt, spawn, remove, getdata, sys,
        lb, rc, unreg, wsize, wcount, wdispl, it_kept, sys_kept, strings;
};

static int strings_ok(void)
{
    for (int c = XMPI_SUCCESS; c < XMPI_ERR_LAST; c++) {
        const char *s = XMPI_Error_string(c);
        if (!s || !*s) return 0;
    }
    int odd[] = {-1, XMPI_ERR_LAST, 12345, -99999};
    for (unsigned i = 0; i < sizeof odd / sizeof *odd; i++)
        if (!XMPI_Error_string(odd[i])) return 0;
    return 1;
}

/* Every call that needs the library running, made outside MPI_Init..MPI_Finalize. */
static void outside(struct phase *p)
{
    double *x = NULL;
    int count = -7, displ = -7, it = -7;
    XMPI_System_status st;
    memset(&st, 0x5a, sizeof st);
    p->world_null = XMPI_COMM_WORLD == MPI_COMM_NULL;
    p->status = XMPI_Get_process_status();
    p->reg = X(XMPI_Register_vector(&x, 4, MPI_DOUBLE, XMPI_DISTRIBUTED));
    p->begin = X(XMPI_Monitor_iter_begin(NULL));
    p->si = X(XMPI_Monitor_si_init());
    p->work = X(XMPI_Monitor_add_work(1.0));
    p->redist = X(XMPI_Redistribute_data(0, 0, 0, 0));
    p->ckpt = X(XMPI_Checkpoint("contract-outside"));
    p->spawn = X(XMPI_Spawn("contract_errors", MPI_ARGV_NULL, 1, MPI_INFO_NULL, NULL));
    p->remove = X(XMPI_Remove(1, NULL));
    p->getdata = X(XMPI_Get_data(&it));
    p->it_kept = it == -7;
    p->sys = X(XMPI_Get_system_status(&st));
    unsigned char *b = (unsigned char *)&st;
    p->sys_kept = 1;
    for (size_t i = 0; i < sizeof st; i++) p->sys_kept &= b[i] == 0x5a;
    p->lb = X(XMPI_Eval_lbalance(0, 1, 0, 10, &count, &displ, NULL));
    p->rc = X(XMPI_Eval_reconfig(0, 1, 0, 10, &count, &displ, NULL, NULL, NULL));
    p->unreg = X(XMPI_Unregister(&x));
    p->wsize = X(XMPI_Get_wsize(1, 3, 10, &p->wcount, &p->wdispl));
    p->strings = strings_ok();
    (void)count;
    (void)displ;
}

static void report_outside(MPI_Comm comm, const struct phase *p, const char *when, int mine)
{
    /* after MPI_Finalize each process reports alone: rank 0 every line, the others failures */
#define REPORT(cond, ...)                                                                           \
    do {                                                                                        \
        if (comm != MPI_COMM_NULL) check_all(comm, (cond), __VA_ARGS__);                        \
        else if (mine == 0 || !(cond)) check_self((cond), __VA_ARGS__);                           \
    } while (0)
    PROMISE("Valid between MPI_Init and MPI_Finalize (MPI_COMM_NULL outside).");
    REPORT(p->world_null, "%s: XMPI_COMM_WORLD == MPI_COMM_NULL", when);
    PROMISE("-1 outside MPI_Init..MPI_Finalize.");
    REPORT(p->status == -1, "%s: XMPI_Get_process_status() is -1 (got %d)", when, p->status);
    PROMISE("XMPI_ERR_STATE outside MPI_Init..MPI_Finalize or after removal.");
    REPORT(p->reg == XMPI_ERR_STATE, "%s: XMPI_Register_vector returns XMPI_ERR_STATE (got %d)", when,
           p->reg);
    PROMISE("wrong moment: before MPI_Init, after MPI_Finalize, or out of order");
    REPORT(p->begin == XMPI_ERR_STATE, "%s: XMPI_Monitor_iter_begin returns XMPI_ERR_STATE (got %d)",
           when, p->begin);
    REPORT(p->si == XMPI_ERR_STATE, "%s: XMPI_Monitor_si_init returns XMPI_ERR_STATE (got %d)", when,
           p->si);
    REPORT(p->work == XMPI_ERR_STATE, "%s: XMPI_Monitor_add_work returns XMPI_ERR_STATE (got %d)",
           when, p->work);
    REPORT(p->redist == XMPI_ERR_STATE, "%s: XMPI_Redistribute_data returns XMPI_ERR_STATE (got %d)",
           when, p->redist);
    REPORT(p->ckpt == XMPI_ERR_STATE, "%s: XMPI_Checkpoint returns XMPI_ERR_STATE (got %d)", when,
           p->ckpt);
    REPORT(p->spawn == XMPI_ERR_STATE, "%s: XMPI_Spawn returns XMPI_ERR_STATE (got %d)", when,
           p->spawn);
    REPORT(p->remove == XMPI_ERR_STATE, "%s: XMPI_Remove returns XMPI_ERR_STATE (got %d)", when,
           p->remove);
    REPORT(p->getdata == XMPI_ERR_STATE && p->it_kept,
           "%s: XMPI_Get_data returns XMPI_ERR_STATE (got %d) and leaves *it alone", when, p->getdata);
    REPORT(p->sys == XMPI_ERR_STATE && p->sys_kept,
           "%s: XMPI_Get_system_status returns XMPI_ERR_STATE (got %d) and leaves *status alone",
           when, p->sys);
    REPORT(p->lb == XMPI_ERR_STATE, "%s: XMPI_Eval_lbalance returns XMPI_ERR_STATE (got %d)", when,
           p->lb);
    REPORT(p->rc == XMPI_ERR_STATE, "%s: XMPI_Eval_reconfig returns XMPI_ERR_STATE (got %d)", when,
           p->rc);
    PROMISE("XMPI_ERR_ARG when nothing is registered there,");
    REPORT(p->unreg == XMPI_ERR_STATE || p->unreg == XMPI_ERR_ARG,
           "%s: XMPI_Unregister refuses (XMPI_ERR_STATE or XMPI_ERR_ARG; got %d)", when, p->unreg);
    PROMISE("Local; usable at any time.");
    REPORT(p->wsize == XMPI_SUCCESS && p->wcount == 3 && p->wdispl == 4,
           "%s: XMPI_Get_wsize(1, 3, 10) succeeds with count 3 displ 4 (got %d: %d %d)", when,
           p->wsize, p->wcount, p->wdispl);
    PROMISE("A sentence describing `code`; never NULL.");
    REPORT(p->strings, "%s: XMPI_Error_string is never NULL nor empty", when);
#undef REPORT
}

int main(int argc, char **argv)
{
    struct phase pre, post;
    outside(&pre);

    MPI_Init(&argc, &argv);
    int rank, nprocs;
    MPI_Comm_rank(XMPI_COMM_WORLD, &rank);
    MPI_Comm_size(XMPI_COMM_WORLD, &nprocs);
    if (XMPI_Get_process_status() == XMPI_NEWLY_SPAWNED) {
        /* Only a broken refusal below starts one of these: say so and leave. */
        fprintf(stderr, "contract_errors: spawned although every spawn was to be refused\n");
        MPI_Finalize();
        return 1;
    }
    char tag[16];
    snprintf(tag, sizeof tag, "np%d", nprocs);
    contract_start("contract_errors", tag);
    MPI_Comm W = XMPI_COMM_WORLD;

    if (argc > 1 && strcmp(argv[1], "notexec") == 0) {
        /* Alone in its run (with --xmpi-oversubscribe, so that no PE is missing): a library
         * that starts the file anyway may bring the job down. */
        snprintf(tag, sizeof tag, "np%d notexec", nprocs);
        PROMISE("the program to spawn does not exist or is not executable");
        /* a regular file without execute permission (mkstemp makes it 0600) */
        char file[64] = "/tmp/xmpi-contract-notexec-XXXXXX";
        int fd = rank == 0 ? mkstemp(file) : -1;
        if (fd >= 0) {
            if (write(fd, "echo\n", 5) != 5) perror("write");
            close(fd);
        }
        check_all(W, rank != 0 || (fd >= 0 && access(file, X_OK) != 0),
                  "precondition: %s exists and is not executable", rank == 0 ? file : "");
        capture_begin();
        int rc = X(XMPI_Spawn(file, MPI_ARGV_NULL, 1, MPI_INFO_NULL, NULL));
        int lines = capture_end();
        check_code(W, rc, XMPI_ERR_NOT_FOUND, "XMPI_Spawn of a file that is not executable");
        PROMISE("On an error every process gets the same code, rank 0 prints one line saying why, and "
                "XMPI_COMM_WORLD is unchanged.");
        check_one_line(W, lines, "XMPI_Spawn of a file that is not executable");
        if (rank == 0) unlink(file);
        MPI_Finalize();
        if (rank == 0) contract_end();
        return 0;
    }

    if (argc > 1 && strcmp(argv[1], "spawnfail") == 0) {
        /* Run under LIBXMPI_FAULT=spawn-refuse (docs/checkpoint.md: rank 0's MPI_Comm_spawn
         * fails as on an MPI that cannot spawn), with --xmpi-oversubscribe. */
        snprintf(tag, sizeof tag, "np%d spawnfail", nprocs);
        PROMISE("MPI_Comm_spawn failed");
        MPI_Comm before = XMPI_COMM_WORLD;
        capture_begin();
        int rc = X(XMPI_Spawn(argv[0], MPI_ARGV_NULL, 1, MPI_INFO_NULL, NULL));
        int lines = capture_end();
        check_code(W, rc, XMPI_ERR_SPAWN, "XMPI_Spawn when MPI_Comm_spawn fails");
        PROMISE("On an error every process gets the same code, rank 0 prints one line saying why, and "
                "XMPI_COMM_WORLD is unchanged.");
        int size = -1;
        MPI_Comm_size(XMPI_COMM_WORLD, &size);
        check_all(W, XMPI_COMM_WORLD == before && size == nprocs, "the failed XMPI_Spawn left "
                                                                 "XMPI_COMM_WORLD as it was");
        check_one_line(W, lines, "XMPI_Spawn when MPI_Comm_spawn fails");
        MPI_Finalize();
        if (rank == 0) contract_end();
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "rms") == 0) {
        /* Run with --xmpi-rms=schedule:FILE, FILE holding "2 spawn 1 local". */
        snprintf(tag, sizeof tag, "np%d rms", nprocs);
        XMPI_System_status st[4];
        int rcs[4] = {0}, ok = 1;
        for (int k = 0; k < 4; k++) {
            memset(&st[k], 0, sizeof st[k]);
            rcs[k] = X(XMPI_Get_system_status(&st[k]));
            X(XMPI_Monitor_iter_begin(NULL));
            X(XMPI_Monitor_iter_end(NULL));
        }
        /* the same answers on every rank */
        for (int k = 0; k < 4; k++) {
            int v[3] = {st[k].action, st[k].nprocs, rcs[k]}, lo[3], hi[3];
            PMPI_Allreduce(v, lo, 3, MPI_INT, MPI_MIN, W);
            PMPI_Allreduce(v, hi, 3, MPI_INT, MPI_MAX, W);
            for (int j = 0; j < 3; j++) ok &= lo[j] == hi[j];
        }
        PROMISE("Collective over XMPI_COMM_WORLD; the same answer on every rank.");
        check_all(W, ok, "XMPI_Get_system_status gives the same answer on every rank, every time");
        PROMISE("What the resource manager (--xmpi-rms) asks of the job now: nothing, spawn nprocs "
                "processes of node_class (PEs were offered), or shrink by nprocs processes of node_class "
                "(PEs are reclaimed).");
        check_all(W, rcs[0] == XMPI_SUCCESS && st[0].action == XMPI_SYSTEM_NONE && st[1].action ==
                                                                                   XMPI_SYSTEM_NONE,
                  "before 2 monitored iterations the answer is XMPI_SYSTEM_NONE");
        check_all(W, rcs[2] == XMPI_SUCCESS && st[2].action == XMPI_SYSTEM_SPAWN && st[2].nprocs == 1 &&
                         strcmp(st[2].node_class, "local") == 0,
                  "after 2 the schedule's '2 spawn 1 local' is asked: XMPI_SYSTEM_SPAWN, 1, 'local' (got "
                  "%d, %d, '%.20s')", st[2].action, st[2].nprocs, st[2].node_class);
        PROMISE("XMPI_SYSTEM_NONE, XMPI_SYSTEM_SPAWN or XMPI_SYSTEM_SHRINK");
        check_all(W, st[3].action >= XMPI_SYSTEM_NONE && st[3].action <= XMPI_SYSTEM_SHRINK,
                  "the action is one of the three");
        MPI_Finalize();
        if (rank == 0) contract_end();
        return 0;
    }

    report_outside(W, &pre, "before MPI_Init", rank);

    /* ---- Return codes and their strings ---- */
    PROMISE("A sentence describing `code`; never NULL.");
    int distinct = 1;
    for (int a = XMPI_SUCCESS; a < XMPI_ERR_LAST; a++)
        for (int b = a + 1; b < XMPI_ERR_LAST; b++)
            if (strcmp(XMPI_Error_string(a), XMPI_Error_string(b)) == 0) distinct = 0;
    check_all(W, distinct, "every code from XMPI_SUCCESS to XMPI_ERR_LAST - 1 has its own sentence");
    check_all(W, strings_ok(), "XMPI_Error_string of every code, and of -1, XMPI_ERR_LAST and 12345, "
                               "is a non-empty string");
    PROMISE("one past the last code; not returned");
    check_all(W, XMPI_SUCCESS == 0 && XMPI_ERR_LAST > XMPI_ERR_CHECKPOINT,
              "XMPI_SUCCESS is 0 and XMPI_ERR_LAST follows every code");

    /* ---- Status and world inside MPI_Init..MPI_Finalize ---- */
    PROMISE("The communicator programs use instead of MPI_COMM_WORLD.");
    DOC_PROMISE("docs/api.md", "At `MPI_Init` a duplicate of `MPI_COMM_WORLD`");
    int cmp = MPI_UNEQUAL;
    if (W != MPI_COMM_NULL) MPI_Comm_compare(W, MPI_COMM_WORLD, &cmp);
    check_all(MPI_COMM_WORLD, W != MPI_COMM_NULL && (cmp == MPI_CONGRUENT || cmp == MPI_IDENT),
              "after MPI_Init XMPI_COMM_WORLD holds the processes mpirun started, in their order");
    DOC_PROMISE("docs/api.md", "`XMPI_RUNNING`; `XMPI_NEWLY_SPAWNED` in a spawned process until its "
                               "first monitored iteration");
    PROMISE("Process status: XMPI_RUNNING for a process mpirun started, and for a spawned one once it "
            "began its first monitored iteration;");
    int status = XMPI_Get_process_status();
    check_all(W, status == XMPI_RUNNING, "a process mpirun started is XMPI_RUNNING (got %d)", status);

    /* ---- Monitoring out of order ---- */
    PROMISE("wrong moment: before MPI_Init, after MPI_Finalize, or out of order");
    int rc = X(XMPI_Monitor_iter_end(NULL));
    check_code(W, rc, XMPI_ERR_STATE, "XMPI_Monitor_iter_end with no iteration begun");

    /* ---- XMPI_Get_data on a process that was not spawned: rank 0 alone calls it, so a call
     * that communicated would hang (and the run's timeout fail it) ---- */
    PROMISE("XMPI_ERR_STATE, at once and without communication, on a process that was not spawned "
            "or has already received its data;");
    int it = -7;
    rc = XMPI_ERR_STATE;
    if (rank == 0) rc = X(XMPI_Get_data(&it));
    check_all(W, rc == XMPI_ERR_STATE && it == -7,
              "XMPI_Get_data on rank 0 alone (not spawned) returns XMPI_ERR_STATE at once, *it kept "
              "(got %d)", rc);
    rc = X(XMPI_Get_data(NULL));
    check_code(W, rc, XMPI_ERR_STATE, "XMPI_Get_data(NULL) on processes mpirun started");

    /* ---- The resource manager without --xmpi-rms ---- */
    PROMISE("Without --xmpi-rms the answer is always XMPI_SYSTEM_NONE.");
    XMPI_System_status st;
    memset(&st, 0x5a, sizeof st);
    rc = X(XMPI_Get_system_status(&st));
    int acts[2] = {st.action, -st.action}, all[2];
    PMPI_Allreduce(acts, all, 2, MPI_INT, MPI_MIN, W);
    check_all(W, rc == XMPI_SUCCESS && all[0] == XMPI_SYSTEM_NONE && all[1] == -XMPI_SYSTEM_NONE,
              "XMPI_Get_system_status without --xmpi-rms: XMPI_SUCCESS, XMPI_SYSTEM_NONE everywhere "
              "(rc %d, action %d)", rc, st.action);
    PROMISE("an argument is invalid (NULL, out of range, inconsistent)");
    rc = X(XMPI_Get_system_status(NULL));
    check_code(W, rc, XMPI_ERR_ARG, "XMPI_Get_system_status(NULL)");

    /* ---- XMPI_Spawn and XMPI_Remove refusing: the same code everywhere, one line on rank 0,
     * XMPI_COMM_WORLD unchanged. The arguments count on rank 0 only: the others pass junk. ---- */
    struct {
        const char *what, *cmd;
        int n, want;
        char **cls;
        const char *promise;
    } bad[] = {
        {"XMPI_Spawn of a program that does not exist", "./contract-no-such-program", 1,
         XMPI_ERR_NOT_FOUND, NULL,
         QUOTED_PROMISE("the program to spawn does not exist or is not executable")},
        {"XMPI_Spawn of -1 processes", argv[0], -1, XMPI_ERR_ARG, NULL,
         QUOTED_PROMISE("an argument is invalid (NULL, out of range, inconsistent)")},
        {"XMPI_Spawn of a NULL command", NULL, 1, XMPI_ERR_ARG, NULL,
         QUOTED_PROMISE("an argument is invalid (NULL, out of range, inconsistent)")},
        {"XMPI_Spawn onto a class the pool does not have", argv[0], 1, XMPI_ERR_CLASS,
         (char *[]){"contract-no-such-class"},
         QUOTED_PROMISE("a node class that the resource pool does not have")},
    };
    for (unsigned i = 0; i < sizeof bad / sizeof *bad; i++) {
        MPI_Comm before = XMPI_COMM_WORLD;
        contract_promise(bad[i].promise);
        capture_begin();
        rc = X(rank == 0 ? XMPI_Spawn(bad[i].cmd, MPI_ARGV_NULL, bad[i].n, MPI_INFO_NULL, bad[i].cls)
                         : XMPI_Spawn(NULL, NULL, -5, MPI_INFO_NULL, NULL));
        int lines = capture_end();
        check_code(W, rc, bad[i].want, bad[i].what);
        PROMISE("On an error every process gets the same code, rank 0 prints one line saying why, and "
                "XMPI_COMM_WORLD is unchanged.");
        int size = -1;
        if (XMPI_COMM_WORLD != MPI_COMM_NULL) MPI_Comm_size(XMPI_COMM_WORLD, &size);
        check_all(W, XMPI_COMM_WORLD == before && size == nprocs,
                  "%s: XMPI_COMM_WORLD is the same handle with the same size", bad[i].what);
        check_one_line(W, lines, bad[i].what);
        PROMISE("Both calls are collective over XMPI_COMM_WORLD; their arguments are significant only "
                "on rank 0, which decides and tells the others.");
        check_all(W, rc == bad[i].want, "%s: the other ranks' junk arguments did not change the "
                                        "answer", bad[i].what);
    }

    struct {
        const char *what;
        int n, want;
        char **cls;
        const char *promise;
    } badrm[] = {
        {"XMPI_Remove(1) with no spawned process", 1, XMPI_ERR_RESOURCES, NULL,
         QUOTED_PROMISE("no free PE of a class, or fewer removable processes than asked")},
        {"XMPI_Remove(-1)", -1, XMPI_ERR_ARG, NULL,
         QUOTED_PROMISE("an argument is invalid (NULL, out of range, inconsistent)")},
    };
    for (unsigned i = 0; i < sizeof badrm / sizeof *badrm; i++) {
        MPI_Comm before = XMPI_COMM_WORLD;
        contract_promise(badrm[i].promise);
        capture_begin();
        rc = X(rank == 0 ? XMPI_Remove(badrm[i].n, badrm[i].cls) : XMPI_Remove(-3, NULL));
        int lines = capture_end();
        check_code(W, rc, badrm[i].want, badrm[i].what);
        PROMISE("On an error every process gets the same code, rank 0 prints one line saying why, and "
                "XMPI_COMM_WORLD is unchanged.");
        int size = -1;
        if (XMPI_COMM_WORLD != MPI_COMM_NULL) MPI_Comm_size(XMPI_COMM_WORLD, &size);
        check_all(W, XMPI_COMM_WORLD == before && size == nprocs && XMPI_Get_process_status() ==
                                                                    XMPI_RUNNING,
                  "%s: XMPI_COMM_WORLD is the same handle with the same size, nobody removed",
                  badrm[i].what);
        check_one_line(W, lines, badrm[i].what);
    }
    PROMISE("Processes started by mpirun are never removed.");
    check_all(W, XMPI_Get_process_status() == XMPI_RUNNING,
              "after every refused XMPI_Remove the processes mpirun started still run");

    /* ---- Changing the job inside an iteration XMPI_Monitor_iter_begin opened ---- */
    PROMISE("the call did what it says");
    rc = X(XMPI_Monitor_iter_begin(NULL));
    check_code(W, rc, XMPI_SUCCESS, "XMPI_Monitor_iter_begin(NULL)");
    PROMISE("Both calls change the job between iterations: inside an iteration "
            "XMPI_Monitor_iter_begin opened they return XMPI_ERR_STATE;");
    MPI_Comm before = XMPI_COMM_WORLD;
    rc = X(XMPI_Spawn(argv[0], MPI_ARGV_NULL, 1, MPI_INFO_NULL, NULL));
    check_code(W, rc, XMPI_ERR_STATE, "XMPI_Spawn inside an iteration XMPI_Monitor_iter_begin opened");
    int size = -1;
    MPI_Comm_size(XMPI_COMM_WORLD, &size);
    check_all(W, XMPI_COMM_WORLD == before && size == nprocs,
              "the refused XMPI_Spawn left XMPI_COMM_WORLD as it was");
    rc = X(XMPI_Remove(1, NULL));
    check_code(W, rc, XMPI_ERR_STATE, "XMPI_Remove inside an iteration XMPI_Monitor_iter_begin opened");
    PROMISE("inside an iteration XMPI_Monitor_iter_begin opened it returns XMPI_ERR_STATE and writes "
            "nothing.");
    rc = X(XMPI_Checkpoint("contract-errors-inside"));
    check_code(W, rc, XMPI_ERR_STATE, "XMPI_Checkpoint inside an iteration XMPI_Monitor_iter_begin "
                                      "opened (nothing registered either)");
    check_all(W, access("contract-errors-inside", F_OK) != 0,
              "the refused XMPI_Checkpoint wrote no directory contract-errors-inside");
    rc = X(XMPI_Monitor_iter_end(NULL));
    check_code(W, rc, XMPI_SUCCESS, "XMPI_Monitor_iter_end after the refusals");

    /* ---- Every code seen so far was one of the header's ---- */
    PROMISE("Every XMPI_ call returns one of these;");
    int bad_codes = contract_bad_codes;
    check_all(W, bad_codes == 0, "every XMPI_ call returned a code in [XMPI_SUCCESS, XMPI_ERR_LAST) "
                                 "(%d did not)", bad_codes);

    MPI_Finalize();
    outside(&post);
    report_outside(MPI_COMM_NULL, &post, "after MPI_Finalize", rank);
    PROMISE("Every XMPI_ call returns one of these;");
    if (rank == 0 || contract_bad_codes)
        check_self(contract_bad_codes == 0, "after MPI_Finalize too, every code was one of the "
                                            "header's");
    if (rank == 0) contract_end();
    return 0;
}
