/* Contract: the program's data for joining processes (XMPI_Set_app_data, XMPI_Get_app_data).
 * Rank 0 sets a record naming the iteration it was set in; the others set records of their
 * own, which must never travel. A process that joins reads the record before it registers
 * anything and must find rank 0's of the iteration before the one it resumes at: the record as
 * it was at the interval end (or the call) where it joined or the checkpoint was written.
 * usage: contract_appdata mode=basic     (1-3 processes) sizes, refusals, copies
 *        contract_appdata mode=spawn     (1-2 processes) XMPI_Spawn after 3 iterations
 *        contract_appdata mode=policy    (2 processes, --xmpi-policy=smp with a schedule that
 *                                         offers one PE): the policy's spawn, waited for or
 *                                         asynchronous, joins at an interval end
 *        contract_appdata mode=write     (--xmpi-checkpoint=DIR, --xmpi-si=3) 10 iterations with
 *                                         automatic checkpoints, then XMPI_Checkpoint("final")
 *        contract_appdata mode=read      (--xmpi-restart=DIR/NAME, any number of processes) */
#include "contract.h"

#include <time.h>

enum { N = 17 };

struct record {
    char tag[12];
    int k;      /* the iteration it was set in */
    int rank;   /* the process that set it */
};

static MPI_Comm W;
static int rank, nprocs;
static double *x;
static int count, displ;

static void world(void)
{
    W = XMPI_COMM_WORLD;
    MPI_Comm_rank(W, &rank);
    MPI_Comm_size(W, &nprocs);
}

/* Every process sets its record of iteration k: rank 0's is the one that travels. */
static int set_record(int k)
{
    struct record r = {"contract", k, rank};
    if (rank != 0) snprintf(r.tag, sizeof r.tag, "other");
    return X(XMPI_Set_app_data(&r, (int)sizeof r));
}

/* This process's data: rank 0's record (its k, or -1 when it is not one). */
static int got_record(void)
{
    struct record r;
    memset(&r, 0, sizeof r);
    int got = -1, rc = X(XMPI_Get_app_data(&r, (int)sizeof r, &got));
    if (rc != XMPI_SUCCESS || got != (int)sizeof r || strcmp(r.tag, "contract") || r.rank != 0) return -1;
    return r.k;
}

static void register_x(int holds)
{
    x = NULL;
    if (holds) {
        X(XMPI_Get_wsize(rank, nprocs, N, &count, &displ));
        x = malloc(sizeof *x * (size_t)(count + 1));
        for (int l = 0; l < count; l++) x[l] = row_init(displ + l);
    }
    X(XMPI_Register_vector(&x, N, MPI_DOUBLE, XMPI_DISTRIBUTED));
}

static int rows_right(void)
{
    int ok = count == 0 || x != NULL;
    for (int l = 0; ok && l < count; l++) ok = dbits(x[l]) == dbits(row_init(displ + l));
    return ok;
}

/* ---- mode=basic ---- */
static void refused_set(const void *data, int bytes, const char *what, const char *before, int nbefore)
{
    capture_begin();
    int rc = X(XMPI_Set_app_data(data, bytes));
    int lines = capture_end();
    PROMISE("XMPI_ERR_ARG (rank 0 says why, nothing changed) for bytes < 0, more than 1 MiB, or a NULL "
            "buffer for bytes > 0.");
    check_code(W, rc, XMPI_ERR_ARG, what);
    check_one_line(W, lines, what);
    char buf[64] = "";
    int got = -1;
    rc = X(XMPI_Get_app_data(buf, sizeof buf, &got));
    check_all(W, rc == XMPI_SUCCESS && got == nbefore && !memcmp(buf, before, (size_t)nbefore),
              "%s: the data is still the %d bytes set before", what, nbefore);
}

static void basic(void)
{
    char buf[64] = "untouched";
    int got = -9, rc;
    PROMISE("0 bytes when none was set.");
    rc = X(XMPI_Get_app_data(buf, sizeof buf, &got));
    check_all(W, rc == XMPI_SUCCESS && got == 0 && !strcmp(buf, "untouched"),
              "before any XMPI_Set_app_data: XMPI_SUCCESS, 0 bytes, nothing copied (rc %d, got %d)", rc, got);
    PROMISE("XMPI_Get_app_data: copies the job's data into `data` (room for `bytes`) and sets *got (NULL "
            "allowed) to its size: on a joining process the data it received, elsewhere the last copy "
            "this process set or received;");
    rc = X(XMPI_Get_app_data(buf, sizeof buf, NULL));
    check_code(W, rc, XMPI_SUCCESS, "XMPI_Get_app_data with got NULL");

    /* each process its own data: the copy is taken at the call */
    char mine[32];
    snprintf(mine, sizeof mine, "rank %d's data", rank);
    int n = (int)strlen(mine) + 1;
    PROMISE("XMPI_Set_app_data: a copy of `bytes` bytes (0 to 1 MiB) of the program's own data (sizes, "
            "scalars, solver state) that processes joining the job receive before they register "
            "anything: those XMPI_Spawn or a policy starts (inside their MPI_Init), and every process of "
            "a job restarted with --xmpi-restart (it travels in each checkpoint).");
    rc = X(XMPI_Set_app_data(mine, n));
    check_code(W, rc, XMPI_SUCCESS, "XMPI_Set_app_data of this process's own text");
    char said[32];
    memcpy(said, mine, sizeof said);
    memset(mine, 'X', sizeof mine - 1);   /* the program's buffer changes after the call */
    memset(buf, 0, sizeof buf);
    rc = X(XMPI_Get_app_data(buf, sizeof buf, &got));
    PROMISE("XMPI_Get_app_data: copies the job's data into `data` (room for `bytes`) and sets *got (NULL "
            "allowed) to its size: on a joining process the data it received, elsewhere the last copy "
            "this process set or received;");
    check_all(W, rc == XMPI_SUCCESS && got == n && !strcmp(buf, said),
              "each process gets the copy it set, whatever its buffer holds since (got %d bytes)", got);

    PROMISE("XMPI_ERR_ARG, with *got set and nothing copied, when bytes is smaller than that.");
    char small[8] = "small";
    got = -1;
    rc = X(XMPI_Get_app_data(small, n - 1, &got));
    check_all(W, rc == XMPI_ERR_ARG && got == n && !strcmp(small, "small"),
              "room for one byte less: XMPI_ERR_ARG, *got %d (the size), nothing copied", got);

    char one = 1;
    refused_set(&one, -1, "XMPI_Set_app_data of -1 bytes", said, n);
    refused_set(NULL, 4, "XMPI_Set_app_data of 4 bytes from NULL", said, n);
    char *big = calloc((1 << 20) + 1, 1);
    refused_set(big, (1 << 20) + 1, "XMPI_Set_app_data of 1 MiB + 1 bytes", said, n);

    PROMISE("XMPI_Set_app_data: a copy of `bytes` bytes (0 to 1 MiB) of the program's own data (sizes, "
            "scalars, solver state) that processes joining the job receive before they register "
            "anything: those XMPI_Spawn or a policy starts (inside their MPI_Init), and every process of "
            "a job restarted with --xmpi-restart (it travels in each checkpoint).");
    for (int i = 0; i < 1 << 20; i++) big[i] = (char)(i * 7 + rank);
    rc = X(XMPI_Set_app_data(big, 1 << 20));
    char *back = malloc(1 << 20);
    int rc2 = X(XMPI_Get_app_data(back, 1 << 20, &got));
    check_all(W, rc == XMPI_SUCCESS && rc2 == XMPI_SUCCESS && got == 1 << 20 && !memcmp(back, big, 1 << 20),
              "1 MiB is accepted and comes back whole");
    PROMISE("set it again whenever it changes.");
    rc = X(XMPI_Set_app_data(NULL, 0));
    rc2 = X(XMPI_Get_app_data(NULL, 0, &got));
    check_all(W, rc == XMPI_SUCCESS && rc2 == XMPI_SUCCESS && got == 0, "set again with 0 bytes (NULL "
                                                                        "buffer): 0 bytes");
    free(big), free(back);
}

/* ---- mode=spawn: XMPI_Spawn after 3 iterations, rank 0's record of iteration 2 ---- */
static void spawn(const char *self, int child)
{
    int it = -1, k0 = -2;
    if (!child) {
        register_x(1);
        for (int k = 0; k < 3; k++) {
            X(XMPI_Monitor_iter_begin(NULL));
            X(XMPI_Monitor_iter_end(NULL));
            set_record(k);
        }
        char *cargs[] = {"mode=spawn", "child", NULL};
        MPI_Comm before = W;
        int rc = X(XMPI_Spawn(self, cargs, 1, MPI_INFO_NULL, NULL));
        if (rc != XMPI_SUCCESS) {
            check_code(before, rc, XMPI_SUCCESS, "XMPI_Spawn(argv[0], 1)");
            return;
        }
        world();
    } else {
        k0 = got_record();   /* before anything is registered */
    }
    int nc, nd;
    X(XMPI_Get_wsize(rank, nprocs, N, &nc, &nd));
    if (child) register_x(0);
    int rc = child ? X(XMPI_Get_data(&it)) : X(XMPI_Redistribute_data(count, displ, nc, nd));
    check_code(W, rc, XMPI_SUCCESS, "XMPI_Get_data beside XMPI_Redistribute_data");
    count = nc, displ = nd;
    PROMISE("XMPI_Set_app_data: a copy of `bytes` bytes (0 to 1 MiB) of the program's own data (sizes, "
            "scalars, solver state) that processes joining the job receive before they register "
            "anything: those XMPI_Spawn or a policy starts (inside their MPI_Init), and every process of "
            "a job restarted with --xmpi-restart (it travels in each checkpoint).");
    check_all(W, !child || (k0 == 2 && it == 3), "the process XMPI_Spawn started holds rank 0's record "
                                                 "of iteration 2 before registering (k %d), resumes at 3",
              child ? k0 : 2);
    PROMISE("Rank 0's copy is what travels;");
    check_all(W, !child || k0 == 2, "the record it holds is rank 0's, not another process's");
    check_all(W, rows_right(), "the rows are in place");
    X(XMPI_Unregister(&x));
    free(x);
}

/* ---- mode=policy: the spawn a policy makes at an interval end ---- */
static void policy(void)
{
    int child = XMPI_Get_process_status() == XMPI_NEWLY_SPAWNED, start = 0, k0 = -2, got = XMPI_SUCCESS;
    if (child) k0 = got_record();
    register_x(!child);
    if (child) {
        got = X(XMPI_Get_data(&start));
        X(XMPI_Get_wsize(rank, nprocs, N, &count, &displ));
    }
    /* until the new process joined (an asynchronous spawn joins at a later interval end); the
     * new process starts after the iteration its join ended */
    int np0 = nprocs, joined = child;
    struct timespec nap = {0, 2000000};
    for (int k = start; !joined && k < 10000; k++) {
        X(XMPI_Monitor_si_init());
        nanosleep(&nap, NULL);
        set_record(k);
        int rc = X(XMPI_Eval_reconfig(rank, nprocs, k, 0, &count, &displ, NULL, NULL, NULL));
        world();
        if (rc != XMPI_SUCCESS) break;
        joined = nprocs > np0;
    }
    int all = 0;
    PMPI_Allreduce(&joined, &all, 1, MPI_INT, MPI_LAND, W);
    PROMISE("What a policy's spawn, an automatic checkpoint or the join of an asynchronous spawn hands "
            "on is rank 0's copy at that interval end: set it before the call that ends the iteration.");
    check_all(W, all && nprocs == np0 + !child, "the policy's process joined (%d processes)", nprocs);
    int v[2] = {child ? k0 : -1000, child ? start : -1000}, seen[2];
    PMPI_Allreduce(v, seen, 2, MPI_INT, MPI_MAX, W);
    check_all(W, !child || (got == XMPI_SUCCESS && k0 == start - 1),
              "the process the policy started holds rank 0's record of the iteration its join ended "
              "(record %d, resumes at %d)", seen[0], seen[1]);
    check_all(W, rows_right(), "the rows are in place on every process");
    X(XMPI_Unregister(&x));
    free(x);
}

/* ---- mode=write and mode=read: checkpoints ---- */
static void write_ckpt(void)
{
    register_x(1);
    for (int k = 0; k < 10; k++) {
        X(XMPI_Monitor_si_init());
        set_record(k);
    }
    PROMISE("What a policy's spawn, an automatic checkpoint or the join of an asynchronous spawn hands "
            "on is rank 0's copy at that interval end: set it before the call that ends the iteration.");
    check_code(W, X(XMPI_Checkpoint("final")), XMPI_SUCCESS, "XMPI_Checkpoint(\"final\") after 10 "
                                                             "iterations");
    X(XMPI_Unregister(&x));
    free(x);
}

static int nrebuild;
static void rebuild(void *arg)
{
    (void)arg;
    nrebuild++;
}

static void read_ckpt(void)
{
    int k0 = got_record(), it = -1, e0 = -1, e1 = -1;
    register_x(0);
    X(XMPI_Set_rebuild(rebuild, NULL));
    X(XMPI_Get_partition(&e0, NULL, NULL));
    int rc = X(XMPI_Get_data(&it));
    X(XMPI_Get_partition(&e1, NULL, NULL));
    check_code(W, rc, XMPI_SUCCESS, "XMPI_Get_data after --xmpi-restart");
    X(XMPI_Get_wsize(rank, nprocs, N, &count, &displ));
    PROMISE("XMPI_Set_app_data: a copy of `bytes` bytes (0 to 1 MiB) of the program's own data (sizes, "
            "scalars, solver state) that processes joining the job receive before they register "
            "anything: those XMPI_Spawn or a policy starts (inside their MPI_Init), and every process of "
            "a job restarted with --xmpi-restart (it travels in each checkpoint).");
    check_all(W, k0 >= 0, "every restarted process holds rank 0's record before registering");
    PROMISE("What a policy's spawn, an automatic checkpoint or the join of an asynchronous spawn hands "
            "on is rank 0's copy at that interval end: set it before the call that ends the iteration.");
    check_all(W, k0 == it - 1, "the record is the one of the iteration before the one resumed at "
                               "(record %d, resumes at %d)", k0, it);
    PROMISE("XMPI_Set_rebuild: fn(arg) runs on every process after every change of the partition (a "
            "move, a spawn, a removal, a restart), when the new blocks and halo views are in place, "
            "before the library call that changed them returns;");
    check_all(W, nrebuild == 1 && rows_right(), "the restart ran the rebuild once, in XMPI_Get_data");
    PROMISE("XMPI_Get_partition: every process's block of the current partition (counts and displs: "
            "XMPI_COMM_WORLD's size entries each, NULL allowed) and its epoch, a number that changes "
            "with every move, spawn, removal and restart: a program compares it with the one it saw to "
            "learn cheaply that its blocks may have changed.");
    check_all(W, e1 != e0, "the restart changed the epoch (%d -> %d)", e0, e1);
    X(XMPI_Unregister(&x));
    free(x);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    world();
    const char *mode = "basic";
    int child = 0;
    for (int i = 1; i < argc; i++) {
        if (!strncmp(argv[i], "mode=", 5)) mode = argv[i] + 5;
        child |= !strcmp(argv[i], "child");
    }
    char tag[48];
    snprintf(tag, sizeof tag, "np%d %s%s", nprocs, mode,
             XMPI_Get_process_status() == XMPI_NEWLY_SPAWNED ? " (joined)" : "");
    contract_start("contract_appdata", tag);
    if (!strcmp(mode, "spawn")) spawn(argv[0], child);
    else if (!strcmp(mode, "policy")) policy();
    else if (!strcmp(mode, "write")) write_ckpt();
    else if (!strcmp(mode, "read")) read_ckpt();
    else basic();
    PROMISE("Every XMPI_ call returns one of these;");
    check_all(W, contract_bad_codes == 0, "every XMPI_ call returned one of the header's codes");
    MPI_Finalize();
    if (rank == 0) contract_end();
    return 0;
}
