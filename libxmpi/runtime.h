/* runtime.c's MPI_Init, MPI_Init_thread and MPI_Finalize wrappers under names that bind inside
 * the library, for its own callers (libxmpi/fortran.c, for the Fortran module). A Fortran
 * program may load the MPI library before libxmpi: the linker keeps libmpi for the program's
 * own references to it and libxmpi only as libxmpi_f08's dependency, and then a call to
 * MPI_Init, even from inside libxmpi, reaches MPI's own. */
#ifndef XMPIR_RUNTIME_H
#define XMPIR_RUNTIME_H

int xmpi_runtime_init(int *argc, char ***argv);
int xmpi_runtime_init_thread(int *argc, char ***argv, int required, int *provided);
int xmpi_runtime_finalize(void);

#endif
