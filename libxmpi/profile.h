/* The timing of one profiled MPI call, for callers outside profile.c's wrappers (the Fortran
 * module's wrappers, libxmpi/fortran.c): the same clock, emulated slowdown and counters. */
#ifndef XMPIR_PROFILE_H
#define XMPIR_PROFILE_H

#include <mpi.h>

/* The clock at the start of a call, after the computation since the last call was stretched
 * as an emulated slower processor's would be. */
double xmpi_profile_enter(void);
/* Counts one call of op (enum xmpi_op) with `bytes` of payload on comm (MPI_COMM_NULL: none)
 * that started at t0. */
void xmpi_profile_account(int op, double bytes, double t0, MPI_Comm comm);

#endif
