/* Registered distributed structures and their partition: registration, the current
 * blocks, and the collective move from one partition to another (FLEX-MPI Algorithm 4). */
#ifndef XMPI_REGISTRY_H
#define XMPI_REGISTRY_H

#include "../models/predict.h"

/* Inside XMPI_Remove, collective over the old XMPI_COMM_WORLD once the leaving ranks are
 * known: they hand their rows to the others. XMPI_SUCCESS when done or when nothing is
 * registered anywhere; otherwise the same error code on every process, nothing moved. */
int xmpi_registry_handoff(const int *leaving, int n);
/* After the shrink: the partition loses the leaving ranks' (empty) blocks. */
void xmpi_registry_after_remove(const int *leaving, int n);

/* XMPI_Redistribute_data under another call's name (for its messages). */
int xmpi_registry_move(int scount, int sdispl, int rcount, int rdispl, const char *call);
/* Rows of the registered structures, or -1 when nothing is registered. */
int xmpi_registry_size(void);
/* Row lengths of this process's `count` rows of the first registered distributed sparse
 * structure into len; -1 when there is none or it has no row pointers. */
int xmpi_registry_row_nnz(int *len, int count);

/* What the last move cost this process (for the prediction model). */
struct xmpi_redist_stats {
    long moves;          /* completed redistributions */
    double seconds;      /* wall time of the last one on this process */
    double bytes_sent;   /* bytes this process sent to other processes in the last one */
    double bytes_recv;   /* bytes it received from other processes */
};
const struct xmpi_redist_stats *xmpi_registry_stats(void);

/* Collective over XMPI_COMM_WORLD: on rank 0, the registered structures as the prediction
 * model sees them (at most max into d) and the current partition (XMPI_COMM_WORLD's size
 * entries into count and displ); returns how many structures, 0 on the other ranks or when
 * nothing is registered or the partition is not known. */
int xmpi_registry_describe(struct xmpi_struct_desc *d, int max, long *count, long *displ);

/* Forgets every registration (inside MPI_Finalize; the buffers stay the program's). */
void xmpi_registry_free(void);

#endif
