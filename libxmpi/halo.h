/* Halos: the local view of a registered row-distributed CSR matrix (local column indices,
 * owned columns first, then the halo columns grouped by owner) with its exchange plan, the
 * ghost rows of row-block arrays, and the one exchange call that fills either from the
 * neighbours (XMPI_Get_halo, XMPI_Exchange). The registry rebuilds the views after every
 * change of the partition (registry.c xmpi_registry_changed). */
#ifndef XMPIR_HALO_H
#define XMPIR_HALO_H

#include <stddef.h>

struct xmpi_ctx;
struct xmpi_reg;

/* One matrix's view, for the partition of `epoch`. */
struct xmpi_halo_view {
    void **ia;                 /* the matrix's registration (the program's row-pointer variable) */
    long epoch;                /* built for this partition; -1: never */
    int nowned, nhalo;
    int *local_ja;             /* local column index of every local nonzero */
    int *halo;                 /* the halo's global columns, ascending (so grouped by owner) */
    int nrecv, nsend;          /* neighbours it receives from and sends to */
    int *recv_rank, *recv_count, *recv_off;   /* halo entries of each owner, from nowned + off */
    int *send_rank, *send_count, *send_off;   /* entries each requester needs, in send_idx */
    int *send_idx;             /* local indices (of the owned block) to send, by requester */
};

/* The ghost rows' plan of one row-block array for the partition of `epoch`: contiguous row
 * ranges received into the ghost rows and sent from the owned rows, in ascending rows. */
struct xmpi_ghost_plan {
    void **user;
    long epoch;
    int ghost, n;
    struct { int rank, first, rows, recv; } *range;   /* first: buffer row (lead included) */
};

struct xmpi_halo {
    struct xmpi_halo_view *v;
    int nv, capv;
    struct xmpi_ghost_plan *g;
    int ng, capg;
    char *sendbuf;             /* packing room for the halo vectors' sends */
    size_t sendcap;
    void *req;                 /* MPI_Request room for an exchange */
    int reqcap;
};

/* Collective over XMPI_COMM_WORLD: the view of sparse matrix m for the current partition.
 * XMPI_SUCCESS, or the same XMPI code on every process (a column index outside [0, size):
 * XMPI_ERR_ARG; rank 0 says which), the view then unchanged. */
int xmpi_halo_build(struct xmpi_ctx *cx, struct xmpi_reg *m);
/* 1 when m's view was built for the current partition. */
int xmpi_halo_current(struct xmpi_ctx *cx, const struct xmpi_reg *m);
/* The halo entries of the view of the matrix registered at ia (0 without one). */
int xmpi_halo_size(struct xmpi_ctx *cx, void **ia);
/* Forgets m's view (XMPI_Unregister). */
void xmpi_halo_forget(struct xmpi_ctx *cx, const struct xmpi_reg *m);
/* Inside MPI_Finalize. */
void xmpi_halo_free(struct xmpi_ctx *cx);

#endif
