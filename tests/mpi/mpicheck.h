/* Running a Check suite inside an MPI job: no fork (MPI forbids it), rank 0
 * prints Check's summary, other ranks print only their own failures. */
#ifndef XMPIR_TESTS_MPICHECK_H
#define XMPIR_TESTS_MPICHECK_H

#include <check.h>
#include <mpi.h>
#include <stdio.h>

/* Returns the number of failed tests over all ranks (same value on every rank). */
static inline int mpicheck_run(Suite *s)
{
    int rank, failed, total = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, rank == 0 ? CK_NORMAL : CK_SILENT);
    failed = srunner_ntests_failed(sr);
    if (rank != 0 && failed) {
        TestResult **tr = srunner_failures(sr);
        for (int i = 0; i < failed; i++)
            fprintf(stderr, "rank %d: %s:%d: %s: %s\n", rank, tr_lfile(tr[i]), tr_lno(tr[i]),
                    tr_tcname(tr[i]), tr_msg(tr[i]));
        free(tr);
    }
    srunner_free(sr);
    /* PMPI: the harness must not show up in the profiling counters under test. */
    PMPI_Allreduce(&failed, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total > failed)
        printf("other ranks: %d failed tests (see stderr); rank 0 summary above\n", total - failed);
    return total;
}

#endif
