/* Partitions of rows [0, size) into one contiguous block per process: even blocks, blocks
 * proportional to powers and row weights, the tiling check, and block overlaps. No MPI. */
#ifndef XMPIR_MODELS_PARTITION_H
#define XMPIR_MODELS_PARTITION_H

#include <stddef.h>

/* Even blocks in rank order: the first size % nprocs processes get one row more. */
void xmpi_part_even(int size, int nprocs, int *count, int *displ);
/* The same for one rank. */
void xmpi_part_even_block(int rank, int nprocs, int size, int *count, int *displ);

/* Contiguous blocks in rank order whose summed row weight is proportional to power[i].
 *   rowweight: size weights (>= 0, finite), or NULL for rows of equal weight; when every
 *              weight is 0 the rows count as equal;
 *   power:     nprocs relative powers (>= 0, finite), or NULL for equal powers. A process
 *              of power 0 gets no rows.
 * Every process of power > 0 gets at least one row when there are at least as many rows
 * as such processes. Returns 0; -1 for invalid arguments (why says which), -2 when out of
 * memory. On an error count and displ are unchanged. */
int xmpi_part_weighted(int size, int nprocs, const double *rowweight, const double *power,
                       int *count, int *displ, char *why, size_t len);

/* Equal nonzeros per unit of power: xmpi_part_weighted with rownnz[i] as row i's weight. */
int xmpi_part_nnz(int size, int nprocs, const int *rownnz, const double *power,
                  int *count, int *displ, char *why, size_t len);

/* 0 when the blocks [displ[i], displ[i] + count[i]) tile [0, size): no negative count, no
 * row outside, no row in two blocks, none left out (an empty block may sit anywhere in
 * [0, size]). Otherwise -1 and a sentence in why naming the first problem found. */
int xmpi_part_check(int size, int nprocs, const int *count, const int *displ,
                    char *why, size_t len);

/* Fills in the blocks of the processes flagged in fill[]: they share the rows that no
 * other block covers, evenly and in rank order (the first ones get a row more). The other
 * blocks must lie inside [0, size) without overlapping, and each share must fall in one
 * gap between them. Returns 0, or -1 with a sentence in why (count and displ unchanged). */
int xmpi_part_fill(int size, int nprocs, const int *fill, int *count, int *displ,
                   char *why, size_t len);

/* The hand-off of a removal: the processes listed in `leaving` (nleaving ranks) give up
 * their rows (old blocks in ocount) and the others keep their proportions of the rows they
 * held; a staying process that held nothing counts as an average holder, so that it gets
 * rows too. New blocks in count/displ. 0, -1 (why says so) or -2 (out of memory). */
int xmpi_part_handoff(int size, int nprocs, const int *ocount, const int *leaving,
                      int nleaving, int *count, int *displ, char *why, size_t len);

/* The rows that block a (ac rows from ad) shares with block b: their number, and the first
 * in *lo (untouched when there are none). */
int xmpi_part_overlap(int ac, int ad, int bc, int bd, int *lo);

#endif
