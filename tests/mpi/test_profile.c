/* MPI scenario: the PMPI layer counts every profiled operation exactly (calls, bytes,
 * communicator size), XMPI_COMM_WORLD behaves, and API calls outside MPI fail cleanly. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mpicheck.h"
#include "xmpi.h"
#include "../../libxmpi/context.h"
#include "../../libxmpi/monitor.h"

static int rank, size;
static int before_begin, before_status, before_work;
static MPI_Comm before_world;
static struct xmpi_opstat snap[XMPIR_OP_COUNT];

static void mark(void) { memcpy(snap, xmpi_ctx->profile, sizeof snap); }

/* Asserts that since mark() exactly `calls` calls of `op` moved `bytes` bytes and
 * nothing else was counted (other operations stay at zero). */
static void expect(enum xmpi_op op, double calls, double bytes, int procs)
{
    struct xmpi_opstat d[XMPIR_OP_COUNT];
    xmpi_opstat_diff(d, xmpi_ctx->profile, snap);
    for (int i = 0; i < XMPIR_OP_COUNT; i++) {
        if (i == (int)op) continue;
        ck_assert_msg(d[i].calls == 0, "%s counted %g calls during %s", xmpi_op_name(i),
                      d[i].calls, xmpi_op_name(op));
    }
    ck_assert_msg(d[op].calls == calls, "%s: %g calls, expected %g", xmpi_op_name(op),
                  d[op].calls, calls);
    ck_assert_msg(d[op].bytes == bytes, "%s: %g bytes, expected %g", xmpi_op_name(op),
                  d[op].bytes, bytes);
    ck_assert_msg(d[op].procs == calls * procs, "%s: procs %g, expected %g", xmpi_op_name(op),
                  d[op].procs, calls * procs);
    ck_assert(d[op].time >= 0);
}

START_TEST(comm_world)
{
    int result, n;
    char name[MPI_MAX_OBJECT_NAME];
    ck_assert(XMPI_COMM_WORLD != MPI_COMM_NULL);
    ck_assert(XMPI_COMM_WORLD != MPI_COMM_WORLD);
    MPI_Comm_compare(XMPI_COMM_WORLD, MPI_COMM_WORLD, &result);
    ck_assert_int_eq(result, MPI_CONGRUENT);
    MPI_Comm_get_name(XMPI_COMM_WORLD, name, &n);
    ck_assert_str_eq(name, "XMPI_COMM_WORLD");
    ck_assert_int_eq(XMPI_Get_process_status(), XMPI_RUNNING);
}
END_TEST

START_TEST(outside_mpi_is_refused)
{
    ck_assert_int_eq(before_begin, XMPI_ERR_STATE);
    ck_assert_int_eq(before_work, XMPI_ERR_STATE);
    ck_assert_int_eq(before_status, -1);
    ck_assert(before_world == MPI_COMM_NULL);
}
END_TEST

START_TEST(point_to_point)
{
    int peer = rank ^ 1;   /* pairs (0,1), (2,3); a lone last rank talks to itself */
    if (peer >= size) peer = rank;
    double out[7] = {1, 2, 3, 4, 5, 6, 7}, in[16];
    MPI_Request req[2];

    mark();
    MPI_Sendrecv(out, 7, MPI_DOUBLE, peer, 1, in, 16, MPI_DOUBLE, peer, 1, XMPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    /* Sent 7 doubles, received the 7 the peer sent, though 16 were posted. */
    expect(XMPIR_OP_SENDRECV, 1, 14 * sizeof(double), size);

    mark();
    MPI_Irecv(in, 16, MPI_DOUBLE, peer, 2, XMPI_COMM_WORLD, &req[0]);
    expect(XMPIR_OP_IRECV, 1, 16 * sizeof(double), size);
    mark();
    MPI_Isend(out, 5, MPI_DOUBLE, peer, 2, XMPI_COMM_WORLD, &req[1]);
    expect(XMPIR_OP_ISEND, 1, 5 * sizeof(double), size);
    mark();
    MPI_Status sts[2];   /* not MPI_STATUSES_IGNORE: GCC 12 misreads MPICH's constant */
    MPI_Waitall(2, req, sts);
    expect(XMPIR_OP_WAITALL, 1, 0, 0);

    if (peer == rank) return;   /* blocking send to oneself would deadlock */
    char msg[100];
    memset(msg, 'x', sizeof msg);
    mark();
    if (rank < peer) {
        MPI_Send(msg, 33, MPI_CHAR, peer, 3, XMPI_COMM_WORLD);
        expect(XMPIR_OP_SEND, 1, 33, size);
    } else {
        MPI_Status st;
        MPI_Recv(msg, 100, MPI_CHAR, peer, 3, XMPI_COMM_WORLD, &st);
        expect(XMPIR_OP_RECV, 1, 33, size);
        ck_assert_int_eq(st.MPI_SOURCE, peer);
    }
    mark();
    MPI_Irecv(msg, 1, MPI_CHAR, peer, 4, XMPI_COMM_WORLD, &req[0]);
    MPI_Send(msg, 1, MPI_CHAR, peer, 4, XMPI_COMM_WORLD);
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    struct xmpi_opstat d[XMPIR_OP_COUNT];
    xmpi_opstat_diff(d, xmpi_ctx->profile, snap);
    ck_assert(d[XMPIR_OP_WAIT].calls == 1 && d[XMPIR_OP_WAIT].bytes == 0);
    ck_assert(d[XMPIR_OP_SEND].calls == 1 && d[XMPIR_OP_SEND].bytes == 1);
}
END_TEST

START_TEST(collectives)
{
    enum { N = 11 };
    int ibuf[N * 8], iout[N * 8], counts[8], displs[8];
    double dbuf[N * 8], dout[N * 8];
    for (int i = 0; i < N * 8; i++) { ibuf[i] = rank + i; dbuf[i] = rank * 0.5 + i; }
    for (int r = 0; r < size; r++) { counts[r] = r + 1; displs[r] = r * N; }

    mark(); MPI_Barrier(XMPI_COMM_WORLD); expect(XMPIR_OP_BARRIER, 1, 0, size);
    mark(); MPI_Bcast(dbuf, N, MPI_DOUBLE, 0, XMPI_COMM_WORLD);
    expect(XMPIR_OP_BCAST, 1, N * sizeof(double), size);
    mark(); MPI_Reduce(ibuf, iout, N, MPI_INT, MPI_SUM, size - 1, XMPI_COMM_WORLD);
    expect(XMPIR_OP_REDUCE, 1, N * sizeof(int), size);
    mark(); MPI_Allreduce(dbuf, dout, 3, MPI_DOUBLE, MPI_MAX, XMPI_COMM_WORLD);
    mark(); MPI_Allreduce(MPI_IN_PLACE, dout, 3, MPI_DOUBLE, MPI_MAX, XMPI_COMM_WORLD);
    expect(XMPIR_OP_ALLREDUCE, 1, 3 * sizeof(double), size);
    mark(); MPI_Gather(ibuf, 2, MPI_INT, iout, 2, MPI_INT, 0, XMPI_COMM_WORLD);
    expect(XMPIR_OP_GATHER, 1, 2 * sizeof(int), size);
    mark();
    MPI_Gatherv(rank == 0 ? MPI_IN_PLACE : (void *)ibuf, rank + 1, MPI_INT, iout, counts, displs,
                MPI_INT, 0, XMPI_COMM_WORLD);
    expect(XMPIR_OP_GATHERV, 1, (rank + 1) * sizeof(int), size);
    mark(); MPI_Scatter(dbuf, 4, MPI_DOUBLE, dout, 4, MPI_DOUBLE, 0, XMPI_COMM_WORLD);
    expect(XMPIR_OP_SCATTER, 1, 4 * sizeof(double), size);
    mark();
    MPI_Scatterv(dbuf, counts, displs, MPI_DOUBLE, dout, rank + 1, MPI_DOUBLE, 0,
                 XMPI_COMM_WORLD);
    expect(XMPIR_OP_SCATTERV, 1, (rank + 1) * sizeof(double), size);
    mark(); MPI_Allgather(ibuf, 3, MPI_INT, iout, 3, MPI_INT, XMPI_COMM_WORLD);
    expect(XMPIR_OP_ALLGATHER, 1, 3 * sizeof(int), size);
    mark();
    MPI_Allgatherv(ibuf, rank + 1, MPI_INT, iout, counts, displs, MPI_INT, XMPI_COMM_WORLD);
    expect(XMPIR_OP_ALLGATHERV, 1, (rank + 1) * sizeof(int), size);
    mark(); MPI_Alltoall(dbuf, 2, MPI_DOUBLE, dout, 2, MPI_DOUBLE, XMPI_COMM_WORLD);
    expect(XMPIR_OP_ALLTOALL, 1, 2.0 * size * sizeof(double), size);

    int sc[8], sd[8], rc[8], rd[8];
    double sent = 0;
    /* rank r sends r+s+1 ints to rank s; rank s therefore receives r+s+1 from r. */
    for (int s = 0; s < size; s++) {
        sc[s] = rank + s + 1; sd[s] = s * N;
        rc[s] = s + rank + 1; rd[s] = s * N;
        sent += sc[s];
    }
    mark(); MPI_Alltoallv(ibuf, sc, sd, MPI_INT, iout, rc, rd, MPI_INT, XMPI_COMM_WORLD);
    expect(XMPIR_OP_ALLTOALLV, 1, sent * sizeof(int), size);
}
END_TEST

START_TEST(derived_types_and_subcommunicators)
{
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    int v[8] = {0}, w[8];
    mark(); MPI_Bcast(v, 3, pair, 0, XMPI_COMM_WORLD);
    expect(XMPIR_OP_BCAST, 1, 3 * 2 * sizeof(int), size);
    MPI_Type_free(&pair);

    /* The communicator size recorded is the one the call ran on. */
    MPI_Comm half;
    MPI_Comm_split(XMPI_COMM_WORLD, rank % 2, rank, &half);
    int hs;
    MPI_Comm_size(half, &hs);
    mark(); MPI_Allreduce(v, w, 4, MPI_INT, MPI_SUM, half);
    expect(XMPIR_OP_ALLREDUCE, 1, 4 * sizeof(int), hs);
    MPI_Comm_free(&half);
}
END_TEST

START_TEST(monitor_errors_leave_state_alone)
{
    long before = xmpi_monitor_iterations(xmpi_ctx);
    ck_assert_int_eq(XMPI_Monitor_iter_end(NULL), XMPI_ERR_STATE);
    ck_assert_int_eq(XMPI_Monitor_add_work(-1), XMPI_ERR_ARG);
    ck_assert_int_eq(XMPI_Monitor_add_work(NAN), XMPI_ERR_ARG);
    ck_assert_int_eq(XMPI_Monitor_iter_begin(NULL), XMPI_SUCCESS);
    ck_assert_int_eq(XMPI_Monitor_iter_begin(NULL), XMPI_ERR_STATE);
    long long counts[1] = {42};
    ck_assert_int_eq(XMPI_Monitor_iter_end(counts), XMPI_SUCCESS);
    /* Without hardware counters the count says "not counted" rather than a made-up 0. */
    if (!strncmp(XMPI_Monitor_work_source(), "papi:", 5))
        ck_assert(counts[0] >= 0);
    else
        ck_assert(counts[0] == -1);
    char *other[] = {"PAPI_TOT_CYC", NULL};
    ck_assert_int_eq(XMPI_Monitor_iter_begin(other), XMPI_ERR_ARG);
    ck_assert_int_eq(xmpi_monitor_iterations(xmpi_ctx), before + 1);
    ck_assert_str_ne(XMPI_Monitor_work_source(), "none");
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("profile");
    TCase *tc = tcase_create("mpi");
    tcase_add_test(tc, comm_world);
    tcase_add_test(tc, outside_mpi_is_refused);
    tcase_add_test(tc, point_to_point);
    tcase_add_test(tc, collectives);
    tcase_add_test(tc, derived_types_and_subcommunicators);
    tcase_add_test(tc, monitor_errors_leave_state_alone);
    suite_add_tcase(s, tc);
    return s;
}

int main(int argc, char **argv)
{
    before_begin = XMPI_Monitor_iter_begin(NULL);
    before_work = XMPI_Monitor_add_work(1);
    before_status = XMPI_Get_process_status();
    before_world = XMPI_COMM_WORLD;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(XMPI_COMM_WORLD, &rank);
    MPI_Comm_size(XMPI_COMM_WORLD, &size);
    if (size > 8) {
        if (rank == 0) fprintf(stderr, "test_profile: run with at most 8 ranks\n");
        MPI_Finalize();
        return 2;
    }
    int failed = mpicheck_run(suite());
    MPI_Finalize();

    /* After MPI_Finalize the library is stopped: reported as TAP lines. */
    int ok = XMPI_Monitor_iter_begin(NULL) == XMPI_ERR_STATE && XMPI_COMM_WORLD == MPI_COMM_NULL &&
             XMPI_Get_process_status() == -1;
    if (rank == 0) printf("%sok - API refused after MPI_Finalize\n", ok ? "" : "not ");
    return failed || !ok;
}
