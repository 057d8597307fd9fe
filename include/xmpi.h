/* libxmpi public API: everything a program needs to become adaptive at run time.
 * Include after <mpi.h>; link with the library (pkg-config xmpi) so its PMPI wrappers apply. */
#ifndef XMPI_H
#define XMPI_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

#define XMPI_VERSION_MAJOR 0
#define XMPI_VERSION_MINOR 1
#define XMPI_VERSION_STRING "0.1.0"

/* The library exports only what this header declares, the MPI_ wrappers, the xmpi_f08_
 * helpers the Fortran module (include/xmpi_f08.f90) binds to and, when built with PAPI's
 * libsde, papi_sde_hook_list_events (the hook PAPI looks up in the program). */
#if defined(__GNUC__)
#define XMPI_PUBLIC __attribute__((visibility("default")))
#else
#define XMPI_PUBLIC
#endif

/* Return codes. Every XMPI_ call returns one of these; on an error nothing the
 * call would have changed has changed. */
enum {
    XMPI_SUCCESS = 0,     /* the call did what it says */
    XMPI_ERR_ARG,         /* an argument is invalid (NULL, out of range, inconsistent) */
    XMPI_ERR_STATE,       /* wrong moment: before MPI_Init, after MPI_Finalize, or out of order */
    XMPI_ERR_NOMEM,       /* the library could not allocate memory */
    XMPI_ERR_MPI,         /* an MPI call made by the library failed */
    XMPI_ERR_PAPI,        /* reserved: when PAPI refuses the events, monitoring goes on
                           * without them, rank 0 says so once and the calls succeed */
    XMPI_ERR_NOT_FOUND,   /* the program to spawn does not exist or is not executable */
    XMPI_ERR_CLASS,       /* a node class that the resource pool does not have */
    XMPI_ERR_RESOURCES,   /* no free PE of a class, or fewer removable processes than asked */
    XMPI_ERR_SPAWN,       /* MPI_Comm_spawn failed */
    XMPI_ERR_RMS,         /* the resource manager's file could not be read or written, or it
                           * did not make room for a spawn (Slurm refused an expansion) */
    XMPI_ERR_CHECKPOINT,  /* a checkpoint could not be written, or the one to restart from has
                           * a missing or damaged file or does not match the registered
                           * structures (a checkpoint that is not there at all stops the job
                           * at MPI_Init) */
    XMPI_ERR_LAST         /* one past the last code; not returned */
};

/* A sentence describing `code`; never NULL. */
XMPI_PUBLIC const char *XMPI_Error_string(int code);

/* The effective value of libxmpi option `name` ("si", "spawn", ...: the NAME of --xmpi-NAME)
 * as text, after the command line, the environment and the defaults (an empty string for an
 * unset file name). XMPI_ERR_ARG for an unknown name or a value longer than len - 1. */
XMPI_PUBLIC int XMPI_Get_option(const char *name, char *value, int len);

/* The communicator programs use instead of MPI_COMM_WORLD. Valid between MPI_Init
 * and MPI_Finalize (MPI_COMM_NULL outside). */
XMPI_PUBLIC extern MPI_Comm XMPI_COMM_WORLD;

/* Process status: XMPI_RUNNING for a process mpirun started, and for a spawned one once it
 * began its first monitored iteration; XMPI_NEWLY_SPAWNED from MPI_Init of a spawned process
 * until it begins its first monitored iteration; XMPI_REMOVED once XMPI_Remove chose it (it
 * should leave its loop and call MPI_Finalize); -1 outside MPI_Init..MPI_Finalize. */
enum { XMPI_RUNNING = 0, XMPI_NEWLY_SPAWNED, XMPI_REMOVED };
XMPI_PUBLIC int XMPI_Get_process_status(void);

/* ---- Dynamic processes ----------------------------------------------------
 * Both calls are collective over XMPI_COMM_WORLD; their arguments are significant only
 * on rank 0, which decides and tells the others. On an error every process gets the same
 * code, rank 0 prints one line saying why, and XMPI_COMM_WORLD is unchanged.
 * XMPI_COMM_WORLD is a new communicator after each successful call: do not keep copies
 * of the handle across them.
 *
 * XMPI_Spawn: starts nprocs processes of `command` (PATH is searched) with `argv`
 * (MPI_ARGV_NULL allowed), placed by the scheduler on hosts of node_class[i] (NULL: any
 * class) and merged into XMPI_COMM_WORLD after the existing ranks, which keep their
 * numbers. --xmpi-spawn=single (default) spawns them one by one, so that each can be
 * removed alone; group spawns them at once. `info` (MPI_INFO_NULL allowed) is passed on
 * with the "host" key set by the scheduler. Both calls change the job between iterations:
 * inside an iteration XMPI_Monitor_iter_begin opened they return XMPI_ERR_STATE; an iteration
 * XMPI_Monitor_si_init opened ends at the call, also when the call is then refused for its
 * arguments or resources (the iteration's work is over either way). */
XMPI_PUBLIC int XMPI_Spawn(const char *command, char *argv[], int nprocs, MPI_Info info,
                           char *node_class[]);
/* XMPI_Remove: nprocs spawned processes leave: on hosts of node_class[i] when given (the
 * scheduling policy picks the host), else the most recently spawned. Those processes get
 * XMPI_REMOVED and XMPI_COMM_WORLD == MPI_COMM_NULL; the others go on with a smaller
 * XMPI_COMM_WORLD. Processes started by mpirun are never removed. When structures are
 * registered (see XMPI_Register_vector), the leaving processes first hand their rows to
 * the processes that stay: the stayers' new blocks follow rank order, in proportion to
 * the rows each held, and XMPI_Get_wsize returns them. If that hand-off fails (for the
 * reasons XMPI_Redistribute_data gives), no process leaves and the call returns its code. */
XMPI_PUBLIC int XMPI_Remove(int nprocs, char *node_class[]);

/* What the resource manager (--xmpi-rms) asks of the job now: nothing, spawn nprocs
 * processes of node_class (PEs were offered), or shrink by nprocs processes of node_class
 * (PEs are reclaimed). Collective over XMPI_COMM_WORLD; the same answer on every rank.
 * Without --xmpi-rms the answer is always XMPI_SYSTEM_NONE. */
enum { XMPI_SYSTEM_NONE = 0, XMPI_SYSTEM_SPAWN, XMPI_SYSTEM_SHRINK };
typedef struct {
    int action;            /* XMPI_SYSTEM_NONE, XMPI_SYSTEM_SPAWN or XMPI_SYSTEM_SHRINK */
    int nprocs;
    char node_class[64];
} XMPI_System_status;
XMPI_PUBLIC int XMPI_Get_system_status(XMPI_System_status *status);

/* ---- Distributed data ------------------------------------------------------
 * Programs register their distributed arrays once; XMPI_Redistribute_data then moves
 * every registered structure from the old to the new partition in one collective call.
 *
 * Rows [0, size) are split into one contiguous block per process: `count` rows starting
 * at row `displ`. The blocks need not be in rank order, and may be empty.
 *
 * XMPI_Get_wsize: process `rank`'s block of the current partition when nprocs and size
 * describe it (the partition the last XMPI_Redistribute_data, XMPI_Get_data or
 * XMPI_Remove set up), else its block of even blocks (the first size % nprocs ranks get
 * one row more). Local; usable at any time. XMPI_ERR_ARG for NULL outputs, nprocs < 1,
 * rank outside [0, nprocs) or size < 0. */
XMPI_PUBLIC int XMPI_Get_wsize(int rank, int nprocs, int size, int *count, int *displ);

/* XMPI_DISTRIBUTED: each process holds only the rows of its block.
 * XMPI_REPLICATED: each process holds all rows; after a redistribution every copy holds
 * the values of the rows' owners (the processes whose old block has them). */
typedef enum { XMPI_DISTRIBUTED, XMPI_REPLICATED } XMPI_Scheme;

/* Registration (local, after MPI_Init). `address` is the address of the program's pointer
 * variable (&x for double *x), not the buffer: the buffer must come from malloc, and after
 * a move the library frees it and stores the new buffer through `address`. A process
 * that holds no rows yet (a spawned process) registers with the pointer set to NULL.
 * `type` is the element type: any predefined MPI datatype, or a derived one without gaps
 * (it must stay valid while registered). Every process registers the same structures in
 * the same order with the same sizes and element sizes. All structures have `size` rows.
 *   vector: `size` elements, one per row;
 *   dense:  a size x size row-major matrix distributed by rows;
 *   sparse: CSR with rows distributed: *address_ia has count + 1 int entries starting at
 *           0, *address_ja the int (global) column indices and *address_a the values;
 *           CSC is registered the same way (column pointers, row indices, values) and is
 *           distributed by columns. A replicated sparse matrix holds all size + 1 row
 *           pointers. Local nonzeros are limited to INT_MAX by the int row pointers.
 * XMPI_ERR_ARG for a NULL address, an address already registered, size < 0, a size other
 * than the structures already registered have, MPI_DATATYPE_NULL or a type with gaps, or
 * an unknown scheme; XMPI_ERR_STATE outside MPI_Init..MPI_Finalize or after removal.
 * The library keeps `address` (the pointer variable itself): a structure registered with the
 * address of a variable local to a function must be unregistered before that function
 * returns. The processes mpirun started hold even blocks (XMPI_Get_wsize's) at the first
 * registration, whatever their buffers hold: a program whose rows start in other blocks
 * registers them as they are and calls XMPI_Redistribute_data with its block as the old one
 * (and as the new one to keep it) before anything else uses the partition. */
XMPI_PUBLIC int XMPI_Register_vector(void *address, int size, MPI_Datatype type,
                                     XMPI_Scheme scheme);
XMPI_PUBLIC int XMPI_Register_dense(void *address, int size, MPI_Datatype type,
                                    XMPI_Scheme scheme);
XMPI_PUBLIC int XMPI_Register_sparse(void *address_ia, void *address_ja, void *address_a,
                                     int size, MPI_Datatype type, XMPI_Scheme scheme);

/* Forgets the structure registered at `address` (the first address for a sparse one); its
 * buffers stay the program's. Local. XMPI_ERR_ARG when nothing is registered there, or for
 * a sparse matrix while a vector registered with XMPI_Register_halo_vector uses its halo. */
XMPI_PUBLIC int XMPI_Unregister(void *address);

/* ---- Halos: neighbours' rows beside the block ---------------------------------------
 * XMPI_Register_ghost: a distributed array of `size` rows of `type` (a row of a grid: any
 * contiguous datatype, e.g. MPI_Type_contiguous of a line's points) with `ghost` rows above
 * and below its block. The buffer behind *address holds ghost + count + ghost rows: the
 * rows [displ - ghost, displ) of the neighbours, the block [displ, displ + count), then
 * [displ + count, displ + count + ghost); ghost rows outside [0, size) stay as the program
 * leaves them. The buffer must come from malloc. After a move the library lays the new block
 * out the same way, its ghost rows zero until the next XMPI_Exchange (a process whose block
 * is empty has no ghost rows to fill). XMPI_ERR_ARG for
 * ghost < 0 or ghost > size, and as XMPI_Register_vector.
 *
 * XMPI_Get_halo: the local view of the registered distributed sparse matrix `address_ia`
 * (CSR, global column indices): *local_ja (owned by the library, one entry per local
 * nonzero) holds local column indices, the block's columns first (column displ + k is k),
 * then the *nhalo halo columns, ascending and so grouped by owner, from *nowned on. Collective
 * over XMPI_COMM_WORLD: the first call for a matrix builds the view and its exchange plan;
 * after that the library rebuilds both after every move, spawn, removal and restart, and
 * the call returns at once (its pointer may differ after a change of the partition). A
 * process that joins later (XMPI_Spawn or a policy started it) receives the view with
 * XMPI_Get_data when the others had built theirs, and its call returns at once too.
 * XMPI_ERR_ARG for an address that is no distributed sparse matrix, or a column index
 * outside [0, size) on some process (rank 0 says which); nothing is built then.
 * XMPI_ERR_STATE while the partition is not known: on a process that joins, before its
 * XMPI_Get_data, and on every process from XMPI_Spawn to the XMPI_Redistribute_data after it.
 *
 * XMPI_Register_halo_vector: a distributed vector laid out like the matrix's columns: its
 * block, then room for the matrix's halo (*nhalo of XMPI_Get_halo) after it. Call
 * XMPI_Get_halo first on a process that holds rows (else XMPI_ERR_STATE); a spawned process
 * registers it with a NULL pointer as any other array.
 *
 * XMPI_Exchange: fills the ghost rows of an array of XMPI_Register_ghost, or the halo part
 * of a vector of XMPI_Register_halo_vector, with the owners' values. Collective over
 * XMPI_COMM_WORLD; each process exchanges with its neighbours only. XMPI_ERR_ARG for an
 * address registered by neither call; XMPI_ERR_STATE as XMPI_Get_halo. */
XMPI_PUBLIC int XMPI_Register_ghost(void *address, int size, MPI_Datatype type, int ghost);
XMPI_PUBLIC int XMPI_Get_halo(void *address_ia, int **local_ja, int *nowned, int *nhalo);
XMPI_PUBLIC int XMPI_Register_halo_vector(void *address, void *address_ia, MPI_Datatype type);
XMPI_PUBLIC int XMPI_Exchange(void *address);

/* XMPI_Get_partition: every process's block of the current partition (counts and displs:
 * XMPI_COMM_WORLD's size entries each, NULL allowed) and its epoch, a number that changes
 * with every move, spawn, removal and restart: a program compares it with the one it saw
 * to learn cheaply that its blocks may have changed. Local. XMPI_ERR_STATE for counts or
 * displs before anything is registered (the epoch alone is always available). */
XMPI_PUBLIC int XMPI_Get_partition(int *epoch, int *counts, int *displs);

/* XMPI_Set_rebuild: fn(arg) runs on every process after every change of the partition (a
 * move, a spawn, a removal, a restart), when the new blocks and halo views are in place,
 * before the library call that changed them returns; it rebuilds what the program derives
 * from its blocks (XMPI_Get_partition and XMPI_Get_wsize tell it the new ones; it must not
 * call other XMPI_ functions). Its time is part of the move's cost: a move that does not pay
 * for it is not made by the balancer. NULL fn: none. Local. Inside fn XMPI_COMM_WORLD is
 * the communicator of the new partition: in a removal (XMPI_Remove's or a policy's) fn runs
 * on every process with the old XMPI_COMM_WORLD, the leaving processes' blocks empty (their
 * only run), then again on the processes that stay, with the smaller one. */
XMPI_PUBLIC int XMPI_Set_rebuild(void (*fn)(void *arg), void *arg);

/* ---- Data for processes that join -------------------------------------------------
 * XMPI_Set_app_data: a copy of `bytes` bytes (0 to 1 MiB) of the program's own data (sizes,
 * scalars, solver state) that processes joining the job receive before they register
 * anything: those XMPI_Spawn or a policy starts (inside their MPI_Init), and every process
 * of a job restarted with --xmpi-restart (it travels in each checkpoint). Rank 0's copy is
 * what travels; set it again whenever it changes. What a policy's spawn, an automatic
 * checkpoint or the join of an asynchronous spawn hands on is rank 0's copy at that interval
 * end: set it before the call that ends the iteration. Local. XMPI_ERR_ARG (rank 0 says why,
 * nothing changed) for bytes < 0, more than 1 MiB, or a NULL buffer for bytes > 0.
 * XMPI_Get_app_data: copies the job's data into `data` (room for `bytes`) and sets *got
 * (NULL allowed) to its size: on a joining process the data it received, elsewhere the last
 * copy this process set or received; 0 bytes when none was set. XMPI_ERR_ARG, with *got set
 * and nothing copied, when bytes is smaller than that. Local. */
XMPI_PUBLIC int XMPI_Set_app_data(const void *data, int bytes);
XMPI_PUBLIC int XMPI_Get_app_data(void *data, int bytes, int *got);

/* Moves every registered structure from the old partition (this process held rows
 * [sdispl, sdispl + scount)) to the new one (it will hold [rdispl, rdispl + rcount)).
 * Collective over XMPI_COMM_WORLD: MPI_Alltoallv for distributed structures,
 * MPI_Allgatherv for replicated ones, one structure at a time, so that no process ever
 * holds more than its old blocks plus its new blocks. After XMPI_Spawn the new processes
 * call XMPI_Get_data instead; they receive the rows that no other process's new block
 * covers, split evenly among them in rank order.
 * On an error every process gets the same code, rank 0 prints one line saying why, and
 * no data has moved and no pointer has changed: XMPI_ERR_STATE when nothing is
 * registered; XMPI_ERR_ARG when the old or the new blocks do not tile [0, size), a
 * process holding rows has a NULL buffer or bad row pointers, or the processes
 * registered different structures; XMPI_ERR_NOMEM when a new buffer cannot be had.
 * XMPI_ERR_MPI (an MPI call failed during the move) leaves the data undefined. */
XMPI_PUBLIC int XMPI_Redistribute_data(int scount, int sdispl, int rcount, int rdispl);

/* For a process that XMPI_Spawn started: receives its rows of every registered structure
 * (collective with the other processes' XMPI_Redistribute_data) and sets *it (NULL
 * allowed) to the iteration to resume at: the number of monitored iterations the job has
 * completed, i.e. the index of the next iteration of a loop counting from 0. Afterwards
 * XMPI_Get_wsize(rank, nprocs, size, ...) returns the process's block.
 * XMPI_ERR_STATE, at once and without communication, on a process that was not spawned
 * or has already received its data; otherwise as XMPI_Redistribute_data. */
XMPI_PUBLIC int XMPI_Get_data(int *it);

/* ---- Checkpoint and restart (docs/checkpoint.md) ----------------------------------
 * XMPI_Checkpoint: writes every registered structure, in global row order (so that any
 * number of processes can restart from it), with collective MPI-IO into a directory `name`
 * (relative to --xmpi-checkpoint=DIR when set; NULL: the automatic name ckpt-ITERATION in
 * DIR), with a manifest and a CRC-32 per file. The checkpoint is written under a temporary
 * name and published by a rename, and LATEST in its directory names it: a crash during the
 * write leaves the previous checkpoint whole. It records the monitored iterations completed,
 * and a restart resumes at that number: call it between iterations, after XMPI_Monitor_iter_end
 * or an XMPI_Eval_* call; an iteration XMPI_Monitor_si_init opened ends at the call (it counts
 * as completed, also when the call is then refused); inside an iteration
 * XMPI_Monitor_iter_begin opened it returns XMPI_ERR_STATE and writes nothing. Collective over
 * XMPI_COMM_WORLD; `name` is significant on rank 0.
 * The same code on every process: XMPI_ERR_STATE when nothing is registered, XMPI_ERR_ARG for
 * an empty or too long name, inconsistent registrations or a NULL buffer,
 * XMPI_ERR_CHECKPOINT when a file cannot be written (rank 0 says why; the previous checkpoint
 * stays the latest).
 * With --xmpi-restart every process starts as XMPI_NEWLY_SPAWNED: it registers its structures
 * with NULL pointers, and XMPI_Get_data fills them from the checkpoint for the current number
 * of processes (even blocks) and returns the iteration to resume at. */
XMPI_PUBLIC int XMPI_Checkpoint(const char *name);

/* ---- Load balancing ---------------------------------------------------------
 * XMPI_Eval_lbalance: call it at the end of every iteration (after the monitoring call); it
 * ends an iteration XMPI_Monitor_si_init opened. Between interval ends it returns at once
 * without checking its arguments (what the policy needs is checked at the first call).
 * At the end of each sampling interval it runs FLEX-MPI's balancer over the interval's
 * measurements and, when it decides so, moves the registered data to new blocks
 * proportional to each process's measured power, then returns the new block in
 * count and displ (INOUT: this process's current block). Between interval ends it returns
 * at once. Collective over XMPI_COMM_WORLD at interval ends.
 *   rank, nprocs: this process's rank and XMPI_COMM_WORLD's size;
 *   it, maxit:    the current iteration and the last one (maxit <= 0: unknown); a move is
 *                 made only when it saves more than the last move cost before the run ends;
 *   weight:       --xmpi-lb=weight: the work of each of this process's rows (count values);
 *                 ignored otherwise (NULL allowed).
 * Decisions (thesis Algorithm 5, made robust to other jobs' load): imbalance is
 * (max - min) / max of the processes' median compute times (wall time outside MPI calls)
 * over the intervals since the last move, above --xmpi-lb-th1; a process is non-dedicated
 * when (wall - CPU) / wall exceeds --xmpi-lb-th2, and its time then counts as if it had its
 * CPU to itself until that share has held for --xmpi-lb-k intervals; a move needs two
 * intervals of evidence that it would have been faster, and a move that made the slowest
 * process slower is undone. The policy (--xmpi-lb) says
 * what a row weighs: rows (all equal), nnz (its nonzeros in the first registered
 * distributed sparse matrix) or weight (the program's array).
 * Errors (the same on every process, nothing moved): XMPI_ERR_STATE when nothing is
 * registered; XMPI_ERR_ARG for NULL count/displ, a rank or nprocs not the caller's, blocks
 * that do not tile the rows, or a missing weight array or sparse matrix for the policy. */
XMPI_PUBLIC int XMPI_Eval_lbalance(int rank, int nprocs, int it, int maxit, int *count,
                                   int *displ, double *weight);

/* ---- Malleability ------------------------------------------------------------
 * XMPI_Eval_reconfig: call it at the end of every iteration instead of XMPI_Eval_lbalance.
 * It ends the monitored iteration begun by XMPI_Monitor_si_init and, at the end of each
 * sampling interval, runs the malleability policy of --xmpi-policy (thesis Algorithms 6-7):
 *   static: no process changes; the load balancer only (as XMPI_Eval_lbalance);
 *   smp:    spawns on the PEs the resource manager (--xmpi-rms) offers, up to
 *           --xmpi-max-procs, and removes what it reclaims;
 *   hpmp:   of an offer, spawns the number of processes the prediction model says finishes
 *           the run soonest (spawn and redistribution included; possibly none); obeys
 *           reclaims.
 * When the policy spawns, the new processes start `command` (NULL: this program) with argv
 * (the arguments only, without the program's name, as MPI_Comm_spawn takes them; NULL: the
 * arguments mpirun gave, without --xmpi- options; they inherit the options) and
 * every registered structure is spread over all processes in proportion to their measured
 * power (new processes take their class's); the new processes see XMPI_NEWLY_SPAWNED,
 * register their structures with NULL pointers and call XMPI_Get_data. When it removes, the
 * leaving processes (only spawned ones, never mpirun's) hand their rows over, see
 * XMPI_REMOVED and must leave their loop. When nothing changes, the load balancer runs.
 * count/displ (INOUT) return this process's block. Refresh rank and size from
 * XMPI_COMM_WORLD after the call. Collective over XMPI_COMM_WORLD at interval ends; between
 * them it returns at once. maxit <= 0: HPMP weighs only the next interval. Errors as
 * XMPI_Eval_lbalance; a failed spawn leaves the job as it was and says why. */
XMPI_PUBLIC int XMPI_Eval_reconfig(int rank, int nprocs, int it, int maxit, int *count,
                                   int *displ, double *weight, char *argv[],
                                   const char *command);

/* ---- Monitoring ------------------------------------------------------------
 * Bracket each iteration of the main loop with XMPI_Monitor_iter_begin/end, or
 * call XMPI_Monitor_si_init once at the top of each iteration. The iterations
 * completed (what a checkpoint records, XMPI_Get_data returns and the trace's
 * iteration column counts) are those ended: by XMPI_Monitor_iter_end, or, for an
 * iteration XMPI_Monitor_si_init opened, by the next XMPI_Monitor_si_init, the
 * XMPI_Eval_* call, XMPI_Checkpoint, XMPI_Spawn or XMPI_Remove (an
 * XMPI_Monitor_iter_end after such a call finds it ended and returns
 * XMPI_SUCCESS). Every
 * --xmpi-si iterations the per-rank records are gathered (collectively, inside
 * the iteration-ending call) into one interval summary.
 *
 * events: NULL-terminated array of PAPI event names, or NULL for the default
 * (--xmpi-events, else PAPI_DP_OPS, else PAPI_FP_OPS). The list is fixed by the
 * first call; a later call naming different events returns XMPI_ERR_ARG.
 * When the events cannot be counted (no hardware counters, unknown name) the
 * work source falls back to the work declared with XMPI_Monitor_add_work and
 * the call still returns XMPI_SUCCESS; XMPI_Monitor_work_source() tells which.
 *
 * counts: NULL, or room for one long long per requested event (one for the
 * default). It receives this iteration's count of each event, or -1 for an
 * event that is not being counted. */
XMPI_PUBLIC int XMPI_Monitor_iter_begin(char *events[]);
XMPI_PUBLIC int XMPI_Monitor_iter_end(long long *counts);

/* High-level form: ends the iteration begun by the previous call, if any, and
 * begins the next one with the default events. */
XMPI_PUBLIC int XMPI_Monitor_si_init(void);

/* Declares `flop` units of work done by this rank in the current iteration. Used
 * as the work measure when PAPI cannot count (the usual case in VMs). */
XMPI_PUBLIC int XMPI_Monitor_add_work(double flop);

/* "papi:EVENT[+EVENT...]" when PAPI counts the work, "declared" when it cannot (the work is
 * then what XMPI_Monitor_add_work declared, 0 when nothing was), or "none" (no monitored
 * iteration yet). Never NULL. */
XMPI_PUBLIC const char *XMPI_Monitor_work_source(void);

#ifdef __cplusplus
}
#endif
#endif
