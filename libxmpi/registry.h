/* Registered distributed structures and their partition: registration, the current
 * blocks, and the collective move from one partition to another (FLEX-MPI Algorithm 4).
 * An executor: it reports each move to the context's sink and calls nothing above it. */
#ifndef XMPIR_REGISTRY_H
#define XMPIR_REGISTRY_H

#include <mpi.h>
#include <stddef.h>

#include "../models/predict.h"
#include "xmpi.h"

struct xmpi_ctx;

enum xmpi_reg_kind { K_VECTOR, K_DENSE, K_SPARSE };

struct xmpi_reg {
    enum xmpi_reg_kind kind;
    void **data;          /* vector/dense buffer, or the sparse row pointers (int) */
    void **ja, **a;       /* sparse: column indices (int) and values */
    int size;
    MPI_Datatype type;
    size_t elsize;
    XMPI_Scheme scheme;
    size_t held;          /* dense and vector: bytes of the buffer a move installed at held_at
                           * (0: the program's own, at least its block); see held_bytes() */
    void *held_at;
    /* An array with room around its block (XMPI_Register_ghost, XMPI_Register_halo_vector):
     * the program's pointer (*user) holds `lead` rows, the block, `tail` rows; `data` points
     * to a box of the library's that holds the block's first row, which is what every move
     * and checkpoint reads (registry.c: wrapped arrays). user is NULL for the others. */
    void **user;
    void *old_user;       /* during a move: the program's buffer, freed once the new one is laid */
    int lead, tail;
    int ghost;            /* XMPI_Register_ghost's rows above and below (lead = tail = ghost) */
    void **halo_ia;       /* XMPI_Register_halo_vector: the matrix whose halo is the tail */
    int want_halo;        /* sparse: the program uses its halo view (halo.c builds it) */
};

/* What the last move cost this process (for the balancer and the prediction model). */
struct xmpi_redist_stats {
    long moves;          /* completed redistributions */
    double seconds;      /* wall time of the last one on this process */
    double bytes_sent;   /* bytes this process sent to other processes in the last one */
    double bytes_recv;   /* bytes it received from other processes */
    /* Running totals of every move since the process started (exported to PAPI, sde.c). */
    double seconds_total, bytes_sent_total, bytes_recv_total;
};

#define XMPIR_SPARES 8   /* buffers kept for the next move, at most */
_Static_assert(XMPIR_SPARES <= XMPIR_SPARE_SLOTS, "the interval record reports every spare");

struct xmpi_registry {
    struct xmpi_reg *r;
    int n, cap;
    /* This process's view of the partition: set by each move, at the first registration
     * of a process mpirun started (even blocks), and shrunk by XMPI_Remove. */
    int have_part, part_n, part_size;
    int *count, *displ;
    int got_data;         /* a spawned process has received its rows */
    struct xmpi_redist_stats stats;
    /* Buffers kept from one move to receive the next one into (--xmpi-redist-spare): memory
     * already mapped, so that a large move does not page-fault its whole new block. At most
     * XMPIR_SPARES of them (a CSR matrix moves three arrays), together within the option's
     * MiB; the largest are kept. */
    struct { void *b; size_t bytes; } spare[XMPIR_SPARES + 1];   /* + 1: give_buffer's */
    int nspare;
    /* Every change of the partition (a move, a removal, a restart) counts one: the
     * program's cheap test of whether its blocks changed (XMPI_Get_partition). */
    long epoch;
    /* The program's rebuild after a change (XMPI_Set_rebuild), and what its last call cost. */
    void (*rebuild)(void *);
    void *rebuild_arg;
    double rebuild_seconds;
};

/* One collective move of every registered structure. */
struct xmpi_move {
    int scount, sdispl;   /* this process's old block */
    int rcount, rdispl;   /* its new block (ignored for joining and leaving moves) */
    int joining;          /* XMPI_Get_data: takes the rows no other new block covers */
    const int *leaving;   /* XMPI_Remove's hand-off: these ranks give up their rows */
    int nleaving;
    long iterations;      /* monitored iterations done here (a joining process learns them) */
    long resume;          /* out: the iterations done by the processes that held rows */
    const char *call;     /* the public call, for messages */
};

/* Collective over XMPI_COMM_WORLD. The same XMPI code on every process (nothing moved on
 * an error), or -1 when nothing is registered anywhere. */
int xmpi_registry_move(struct xmpi_ctx *cx, struct xmpi_move *mv);
/* This process's block of the current partition; -1 (0, 0) when none is known. */
int xmpi_registry_own_block(const struct xmpi_ctx *cx, int *count, int *displ);
/* After a shrink: the partition loses the leaving ranks' (empty) blocks. */
void xmpi_registry_after_remove(struct xmpi_ctx *cx, const int *leaving, int n);

/* Rows of the registered structures, or -1 when nothing is registered. */
int xmpi_registry_size(const struct xmpi_ctx *cx);
/* Row lengths of this process's `count` rows of the first registered distributed sparse
 * structure into len; -1 when there is none or it has no row pointers. */
int xmpi_registry_row_nnz(const struct xmpi_ctx *cx, int *len, int count);
const struct xmpi_redist_stats *xmpi_registry_stats(const struct xmpi_ctx *cx);
/* The bytes of each buffer kept for the next move into bytes[0 .. XMPIR_SPARE_SLOTS), 0 for
 * the empty slots (the interval record carries them to the prediction model). */
void xmpi_registry_spares(const struct xmpi_ctx *cx, double *bytes);

/* Collective over XMPI_COMM_WORLD: on rank 0, the registered structures as the prediction
 * model sees them (at most max into d) and the current partition (XMPI_COMM_WORLD's size
 * entries into count and displ); returns how many structures, 0 on the other ranks or when
 * nothing is registered or the partition is not known. */
int xmpi_registry_describe(struct xmpi_ctx *cx, struct xmpi_struct_desc *d, int max, long *count,
                           long *displ);

/* Restart from a checkpoint (checkpoint.c): every structure takes its new buffers (3 per
 * structure in registration order, NULL for the parts a kind has not; the old buffers are
 * freed) and the process holds the block of the partition count/displ (n processes). Ends
 * the job when its few words of bookkeeping cannot be allocated. */
void xmpi_registry_install(struct xmpi_ctx *cx, void **fresh, int n, const int *count,
                           const int *displ);

/* The elements of one row of r (a dense row, else 1), and the committed contiguous datatype
 * of len elements of r's type that moves and checkpoints use (the caller frees it). */
size_t xmpi_registry_row_len(const struct xmpi_reg *r);
MPI_Datatype xmpi_registry_row_type(const struct xmpi_reg *r, size_t len);

/* Collective, after the partition changed (a move, a removal, a restart): the halo views are
 * built again, the arrays with room around their block get their new buffers (relayout: the
 * blocks came in new buffers, a move's or a restart's), the epoch counts one and the
 * program's rebuild runs; the seconds it all took are returned. */
double xmpi_registry_changed(struct xmpi_ctx *cx, int relayout);
/* The registration whose program pointer is `address` (the first address of a sparse one),
 * or NULL. */
struct xmpi_reg *xmpi_registry_find(struct xmpi_ctx *cx, const void *address);
/* The boxes of arrays with room around their block point at the program's blocks again
 * (before anything reads the registered data: a checkpoint, a move). */
void xmpi_registry_sync(struct xmpi_ctx *cx);

/* Forgets every registration (inside MPI_Finalize; the buffers stay the program's). */
void xmpi_registry_free(struct xmpi_ctx *cx);

#endif
