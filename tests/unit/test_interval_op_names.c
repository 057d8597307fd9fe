/* io/interval.c, the names of the profiled operations: distinct MPI_ names that follow the
 * enum identifiers, and NULL outside the enum. */
#include <string.h>
#include <strings.h>

#include "../../io/interval.h"
#include "suites.h"

/* The op's name follows from its enum identifier: XMPIR_OP_ALLREDUCE is
 * MPI_Allreduce. Spelling the identifiers here catches a reordered name table. */
#define OPN(x) {XMPIR_OP_##x, #x}
static const struct { int op; const char *id; } op_ids[] = {
    OPN(SEND), OPN(RECV), OPN(ISEND), OPN(IRECV), OPN(SENDRECV), OPN(WAIT), OPN(WAITALL),
    OPN(BARRIER), OPN(BCAST), OPN(REDUCE), OPN(ALLREDUCE), OPN(GATHER), OPN(GATHERV),
    OPN(SCATTER), OPN(SCATTERV), OPN(ALLGATHER), OPN(ALLGATHERV), OPN(ALLTOALL),
    OPN(ALLTOALLV),
};

START_TEST(test_op_names)
{
    for (int op = 0; op < XMPIR_OP_COUNT; op++) {
        const char *n = xmpi_op_name(op);
        ck_assert_msg(n != NULL, "op %d has no name", op);
        ck_assert_msg(strncmp(n, "MPI_", 4) == 0 && n[4] != '\0', "op %d: '%s'", op, n);
        for (int o = 0; o < op; o++)
            ck_assert_msg(strcmp(n, xmpi_op_name(o)) != 0, "ops %d and %d both '%s'", o, op,
                          n);
    }
}
END_TEST

START_TEST(test_op_names_match_enum)
{
    ck_assert_int_eq((int)(sizeof op_ids / sizeof op_ids[0]), XMPIR_OP_COUNT);
    for (size_t i = 0; i < sizeof op_ids / sizeof op_ids[0]; i++) {
        const char *n = xmpi_op_name(op_ids[i].op);
        ck_assert_ptr_nonnull(n);
        ck_assert_msg(strcasecmp(n + 4, op_ids[i].id) == 0, "XMPIR_OP_%s is named '%s'",
                      op_ids[i].id, n);
    }
}
END_TEST

START_TEST(test_op_name_out_of_range)
{
    ck_assert_ptr_null(xmpi_op_name(-1));
    ck_assert_ptr_null(xmpi_op_name(XMPIR_OP_COUNT));
    ck_assert_ptr_null(xmpi_op_name(XMPIR_OP_COUNT + 1));
    ck_assert_ptr_null(xmpi_op_name(-1000));
}
END_TEST

Suite *interval_op_names_suite(void)
{
    Suite *s = suite_create("interval_op_names");
    TCase *tc = tcase_create("op_names");
    tcase_add_test(tc, test_op_names);
    tcase_add_test(tc, test_op_names_match_enum);
    tcase_add_test(tc, test_op_name_out_of_range);
    suite_add_tcase(s, tc);
    return s;
}
