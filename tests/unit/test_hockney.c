/* models/hockney.c: every cost formula against values worked out by hand on both sides
 * of each MPICH switch point, the monotone envelope, and monotonicity sweeps. */
#include <math.h>

#include "../../models/hockney.h"
#include "near.h"
#include "suites.h"

/* alpha / beta = 10^4 bytes: every switch point tested below jumps up, so the costs are
 * MPICH's algorithms unchanged (the thesis's cluster had alpha / beta = 1.2 x 10^4). */
static const struct xmpi_hockney H = {1e-5, 1e-9, 1e-9, 0, 0, 0, 0};

START_TEST(lg_is_the_ceiling_of_log2)
{
    ck_assert_int_eq(xmpi_hockney_lg(1), 0);
    ck_assert_int_eq(xmpi_hockney_lg(2), 1);
    ck_assert_int_eq(xmpi_hockney_lg(3), 2);
    ck_assert_int_eq(xmpi_hockney_lg(8), 3);
    ck_assert_int_eq(xmpi_hockney_lg(9), 4);
    ck_assert_int_eq(xmpi_hockney_lg(1 << 30), 30);
    ck_assert_int_eq(xmpi_hockney_lg((1 << 30) + 1), 31);
}
END_TEST

START_TEST(test_point_to_point)
{
    NEAR(xmpi_hockney_p2p(&H, 0), 1e-5);
    NEAR(xmpi_hockney_p2p(&H, 1000), 1e-5 + 1000e-9);
    /* Sendrecv's bytes count both directions, which travel together. */
    NEAR(xmpi_hockney_sendrecv(&H, 2000), 1e-5 + 1000e-9);
    double c;
    ck_assert_int_eq(xmpi_hockney_op(&H, XMPIR_OP_RECV, 4096, 7, &c), XMPIR_MODEL_OK);
    NEAR(c, 1e-5 + 4096e-9);
    ck_assert_int_eq(xmpi_hockney_op(&H, XMPIR_OP_ISEND, 4096, 1, &c), XMPIR_MODEL_OK);
    NEAR(c, 1e-5 + 4096e-9);   /* a message costs the same whatever the communicator */
    ck_assert_int_eq(xmpi_hockney_op(&H, XMPIR_OP_WAITALL, 0, 8, &c), XMPIR_MODEL_OK);
    NEAR(c, 0);
}
END_TEST

START_TEST(test_barrier)
{
    NEAR(xmpi_hockney_barrier(&H, 1), 0);
    NEAR(xmpi_hockney_barrier(&H, 2), 1e-5);
    NEAR(xmpi_hockney_barrier(&H, 5), 3e-5);
    NEAR(xmpi_hockney_barrier(&H, 8), 3e-5);
}
END_TEST

START_TEST(test_bcast)
{
    /* p = 8, power of two: binomial below 12288 bytes, scatter + recursive-doubling
     * allgather below 524288, scatter + ring allgather from there. */
    NEAR(xmpi_hockney_bcast(&H, 12287, 8), 3 * (1e-5 + 12287e-9));
    NEAR(xmpi_hockney_bcast(&H, 12288, 8), 6e-5 + 2 * 7.0 / 8 * 12288e-9);
    NEAR(xmpi_hockney_bcast(&H, 524287, 8), 6e-5 + 2 * 7.0 / 8 * 524287e-9);
    NEAR(xmpi_hockney_bcast(&H, 524288, 8), (3 + 7) * 1e-5 + 2 * 7.0 / 8 * 524288e-9);
    /* p = 12, not a power of two: binomial, then straight to the ring. */
    NEAR(xmpi_hockney_bcast(&H, 12287, 12), 4 * (1e-5 + 12287e-9));
    NEAR(xmpi_hockney_bcast(&H, 12288, 12), (4 + 11) * 1e-5 + 2 * 11.0 / 12 * 12288e-9);
    /* p = 7 < 8: binomial at every size. */
    NEAR(xmpi_hockney_bcast(&H, 1e6, 7), 3 * (1e-5 + 1e6 * 1e-9));
    NEAR(xmpi_hockney_bcast(&H, 1e6, 1), 0);
    ck_assert_str_eq(xmpi_hockney_algorithm(XMPIR_OP_BCAST, 12287, 8), "binomial");
    ck_assert_str_eq(xmpi_hockney_algorithm(XMPIR_OP_BCAST, 12288, 8),
                     "scatter+recursive-doubling-allgather");
    ck_assert_str_eq(xmpi_hockney_algorithm(XMPIR_OP_BCAST, 524288, 8), "scatter+ring-allgather");
    ck_assert_str_eq(xmpi_hockney_algorithm(XMPIR_OP_BCAST, 12288, 12), "scatter+ring-allgather");
    ck_assert_str_eq(xmpi_hockney_algorithm(XMPIR_OP_BCAST, 1e6, 7), "binomial");
}
END_TEST

START_TEST(test_gather_scatter)
{
    /* n is one rank's block; the whole is 8 n, and (p-1)/p of it crosses the root. */
    NEAR(xmpi_hockney_gather(&H, 1000, 8), 3e-5 + 7 * 1000e-9);
    NEAR(xmpi_hockney_scatter(&H, 1000, 8), 3e-5 + 7 * 1000e-9);
    NEAR(xmpi_hockney_gather(&H, 1000, 5), 3e-5 + 4 * 1000e-9);
    NEAR(xmpi_hockney_gather(&H, 1000, 1), 0);
    /* The v variants are linear in MPICH: one message per other process. */
    NEAR(xmpi_hockney_gatherv(&H, 1000, 8), 7e-5 + 7 * 1000e-9);
    NEAR(xmpi_hockney_scatterv(&H, 1000, 8), 7e-5 + 7 * 1000e-9);
    ck_assert_str_eq(xmpi_hockney_algorithm(XMPIR_OP_GATHER, 1, 8), "binomial");
    ck_assert_str_eq(xmpi_hockney_algorithm(XMPIR_OP_SCATTERV, 1, 8), "linear");
}
END_TEST

START_TEST(test_allgather)
{
    /* p = 8: recursive doubling while the total 8 n < 524288, then the ring. */
    NEAR(xmpi_hockney_allgather(&H, 65535, 8), 3e-5 + 7 * 65535e-9);
    NEAR(xmpi_hockney_allgather(&H, 65536, 8), 7e-5 + 7 * 65536e-9);
    ck_assert_str_eq(xmpi_hockney_algorithm(XMPIR_OP_ALLGATHER, 65535, 8), "recursive-doubling");
    ck_assert_str_eq(xmpi_hockney_algorithm(XMPIR_OP_ALLGATHER, 65536, 8), "ring");
    /* p = 6: Bruck while the total 6 n < 81920 (n < 13653.3), then the ring. */
    NEAR(xmpi_hockney_allgather(&H, 13653, 6), 3e-5 + 5 * 13653e-9);
    NEAR(xmpi_hockney_allgather(&H, 13654, 6), 5e-5 + 5 * 13654e-9);
    ck_assert_str_eq(xmpi_hockney_algorithm(XMPIR_OP_ALLGATHER, 13653, 6), "bruck");
    ck_assert_str_eq(xmpi_hockney_algorithm(XMPIR_OP_ALLGATHER, 13654, 6), "ring");
    /* Between 81920 and 524288 in total a power of two still doubles. */
    ck_assert_str_eq(xmpi_hockney_algorithm(XMPIR_OP_ALLGATHER, 20000, 8), "recursive-doubling");
    /* Allgatherv is priced on its largest block. */
    NEAR(xmpi_hockney_allgatherv(&H, 65535, 8), 3e-5 + 7 * 65535e-9);
    NEAR(xmpi_hockney_allgatherv(&H, 13654, 6), 5e-5 + 5 * 13654e-9);
    NEAR(xmpi_hockney_allgather(&H, 5, 1), 0);
}
END_TEST

START_TEST(test_reduce)
{
    /* Binomial up to 2048 bytes, Rabenseifner above. */
    NEAR(xmpi_hockney_reduce(&H, 2048, 8), 3 * (1e-5 + 2048e-9 + 2048e-9));
    NEAR(xmpi_hockney_reduce(&H, 2049, 8),
         6e-5 + 2 * 7.0 / 8 * 2049e-9 + 7.0 / 8 * 2049e-9);
    NEAR(xmpi_hockney_reduce(&H, 2048, 2), 1e-5 + 2048e-9 + 2048e-9);
    NEAR(xmpi_hockney_reduce(&H, 2049, 2), 2e-5 + 2 * 0.5 * 2049e-9 + 0.5 * 2049e-9);
    ck_assert_str_eq(xmpi_hockney_algorithm(XMPIR_OP_REDUCE, 2048, 8), "binomial");
    ck_assert_str_eq(xmpi_hockney_algorithm(XMPIR_OP_REDUCE, 2049, 8), "rabenseifner");
}
END_TEST

START_TEST(test_allreduce)
{
    /* Recursive doubling up to 2048 bytes, Rabenseifner above. */
    NEAR(xmpi_hockney_allreduce(&H, 2048, 8), 3e-5 + 2048 * 3 * 1e-9 + 2048 * 3 * 1e-9);
    NEAR(xmpi_hockney_allreduce(&H, 2049, 8),
         6e-5 + 2 * 7.0 / 8 * 2049e-9 + 7.0 / 8 * 2049e-9);
    NEAR(xmpi_hockney_allreduce(&H, 16, 5), 3e-5 + 16 * 3 * 1e-9 + 16 * 3 * 1e-9);
    NEAR(xmpi_hockney_allreduce(&H, 16, 1), 0);
    ck_assert_str_eq(xmpi_hockney_algorithm(XMPIR_OP_ALLREDUCE, 2048, 8), "recursive-doubling");
    ck_assert_str_eq(xmpi_hockney_algorithm(XMPIR_OP_ALLREDUCE, 2049, 8), "rabenseifner");
}
END_TEST

START_TEST(test_alltoall)
{
    /* n is all one rank sends; MPICH decides on the block n / p. p = 8: Bruck up to 256
     * bytes per block, isend/irecv up to 32768, pairwise exchange above. */
    NEAR(xmpi_hockney_alltoall(&H, 2048, 8), 3e-5 + 2048 / 2.0 * 3 * 1e-9);
    NEAR(xmpi_hockney_alltoall(&H, 2056, 8), 7e-5 + 2056e-9);
    NEAR(xmpi_hockney_alltoall(&H, 262144, 8), 7e-5 + 262144e-9);
    NEAR(xmpi_hockney_alltoall(&H, 262152, 8), 7e-5 + 262152e-9);
    ck_assert_str_eq(xmpi_hockney_algorithm(XMPIR_OP_ALLTOALL, 2048, 8), "bruck");
    ck_assert_str_eq(xmpi_hockney_algorithm(XMPIR_OP_ALLTOALL, 2056, 8), "isend-irecv");
    ck_assert_str_eq(xmpi_hockney_algorithm(XMPIR_OP_ALLTOALL, 262144, 8), "isend-irecv");
    ck_assert_str_eq(xmpi_hockney_algorithm(XMPIR_OP_ALLTOALL, 262152, 8), "pairwise-exchange");
    /* Fewer than 8 processes never use Bruck. */
    NEAR(xmpi_hockney_alltoall(&H, 1024, 4), 3e-5 + 1024e-9);
    ck_assert_str_eq(xmpi_hockney_algorithm(XMPIR_OP_ALLTOALL, 1024, 4), "isend-irecv");
    /* Alltoallv: the busiest process's messages and bytes. */
    NEAR(xmpi_hockney_alltoallv(&H, 1e6, 2), 2e-5 + 1e6 * 1e-9);
    NEAR(xmpi_hockney_alltoallv(&H, 1e6, 0), 0);
    double c;
    ck_assert_int_eq(xmpi_hockney_op(&H, XMPIR_OP_ALLTOALLV, 1e6, 8, &c), XMPIR_MODEL_OK);
    NEAR(c, 7e-5 + 1e6 * 1e-9);
}
END_TEST

/* Every op through the one entry point agrees with its own function. */
START_TEST(test_op_dispatch)
{
    const double n = 3000;
    const int p = 8;
    struct {
        int op;
        double want;
    } t[] = {
        {XMPIR_OP_SEND, xmpi_hockney_p2p(&H, n)},
        {XMPIR_OP_SENDRECV, xmpi_hockney_sendrecv(&H, n)},
        {XMPIR_OP_BARRIER, xmpi_hockney_barrier(&H, p)},
        {XMPIR_OP_BCAST, xmpi_hockney_bcast(&H, n, p)},
        {XMPIR_OP_REDUCE, xmpi_hockney_reduce(&H, n, p)},
        {XMPIR_OP_ALLREDUCE, xmpi_hockney_allreduce(&H, n, p)},
        {XMPIR_OP_GATHER, xmpi_hockney_gather(&H, n, p)},
        {XMPIR_OP_GATHERV, xmpi_hockney_gatherv(&H, n, p)},
        {XMPIR_OP_SCATTER, xmpi_hockney_scatter(&H, n, p)},
        {XMPIR_OP_SCATTERV, xmpi_hockney_scatterv(&H, n, p)},
        {XMPIR_OP_ALLGATHER, xmpi_hockney_allgather(&H, n, p)},
        {XMPIR_OP_ALLGATHERV, xmpi_hockney_allgatherv(&H, n, p)},
        {XMPIR_OP_ALLTOALL, xmpi_hockney_alltoall(&H, n, p)},
        {XMPIR_OP_ALLTOALLV, xmpi_hockney_alltoallv(&H, n, p - 1)},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        double c = -1;
        ck_assert_int_eq(xmpi_hockney_op(&H, t[i].op, n, p, &c), XMPIR_MODEL_OK);
        ck_assert_msg(c == t[i].want && c > 0, "%s: %g vs %g", xmpi_op_name(t[i].op), c,
                      t[i].want);
    }
}
END_TEST

START_TEST(test_one_process_is_free)
{
    for (int op = XMPIR_OP_BARRIER; op < XMPIR_OP_COUNT; op++) {
        double c = -1;
        ck_assert_int_eq(xmpi_hockney_op(&H, op, 1e6, 1, &c), XMPIR_MODEL_OK);
        ck_assert_msg(c == 0, "%s on one process: %g", xmpi_op_name(op), c);
        ck_assert_str_eq(xmpi_hockney_algorithm(op, 1e6, 1), "none");
    }
}
END_TEST

/* With alpha / beta = 1000 bytes, MPICH's binomial broadcast just below 12288 bytes costs
 * more in the model than the scatter + allgather it uses from 12288 on: the cost there is
 * the larger message's. */
START_TEST(test_envelope)
{
    const struct xmpi_hockney fast = {1e-6, 1e-9, 1e-9, 0, 0, 0, 0};
    double above = 6e-6 + 2 * 7.0 / 8 * 12288e-9;   /* 27.504 us */
    ck_assert(3 * (1e-6 + 12287e-9) > above);          /* raw binomial: 39.861 us */
    NEAR(xmpi_hockney_bcast(&fast, 12287, 8), above);
    NEAR(xmpi_hockney_bcast(&fast, 12288, 8), above);
    NEAR(xmpi_hockney_bcast(&fast, 6000, 8), 3 * (1e-6 + 6000e-9));   /* below: binomial */
    /* The algorithm reported is still the one MPICH runs. */
    ck_assert_str_eq(xmpi_hockney_algorithm(XMPIR_OP_BCAST, 12287, 8), "binomial");
}
END_TEST

/* More processes than cores: an Allgather(v) pays every byte the processes receive, one
 * transfer after another, p (p - 1) n beta, where that is above its algorithm's price; up to
 * the cores, and for the other operations, the algorithm's price stands. */
START_TEST(test_crowded_allgather)
{
    const double a = 1e-6, b = 1e-9, n = 1e6;   /* 1 MB blocks: the ring */
    struct xmpi_hockney h = {a, b, 1e-9, 0, 0, 0, 2};
    struct xmpi_hockney free_ = h;
    free_.cores = 0;
    for (int p = 2; p <= 8; p++) {
        double ring = (p - 1) * a + (p - 1) * n * b;
        double serial = (p - 1) * a + (double)p * (p - 1) * n * b;
        NEAR(xmpi_hockney_allgather(&free_, n, p), ring);
        NEAR(xmpi_hockney_allgather(&h, n, p), p > 2 ? serial : ring);
        NEAR(xmpi_hockney_allgatherv(&h, n, p), p > 2 ? serial : ring);
        /* Other operations are not crowded. */
        NEAR(xmpi_hockney_bcast(&h, n, p), xmpi_hockney_bcast(&free_, n, p));
        NEAR(xmpi_hockney_allreduce(&h, n, p), xmpi_hockney_allreduce(&free_, n, p));
        NEAR(xmpi_hockney_alltoall(&h, n, p), xmpi_hockney_alltoall(&free_, n, p));
    }
    /* Small blocks, where MPICH takes recursive doubling: the serial price, a message per
     * other process and every byte received, is still above it. */
    h.alpha = 1e-3;
    free_.alpha = 1e-3;
    NEAR(xmpi_hockney_allgather(&free_, 8, 8), 3 * 1e-3 + 7 * 8 * 1e-9);
    NEAR(xmpi_hockney_allgather(&h, 8, 8), 7 * 1e-3 + 8 * 7 * 8 * 1e-9);
    /* 3 cores: 3 processes are not crowded, 4 are. */
    h.alpha = free_.alpha = a;
    h.cores = 3;
    NEAR(xmpi_hockney_allgather(&h, n, 3), 2 * a + 2 * n * b);
    NEAR(xmpi_hockney_allgather(&h, n, 4), 3 * a + 12 * n * b);
    /* The whole's bytes, for uneven blocks: (p - 1) alpha + (p - 1) total beta, 0 where the
     * processes do not outnumber the cores; bad input refused. */
    NEAR(xmpi_hockney_crowded_gather(&h, 4 * n, 4), 3 * a + 3 * 4 * n * b);
    NEAR(xmpi_hockney_crowded_gather(&h, 4 * n, 3), 0);
    NEAR(xmpi_hockney_crowded_gather(&free_, 4 * n, 8), 0);
    ck_assert(xmpi_hockney_crowded_gather(NULL, n, 4) < 0);
    ck_assert(xmpi_hockney_crowded_gather(&h, -1, 4) < 0);
    ck_assert(xmpi_hockney_crowded_gather(&h, n, 0) < 0);
}
END_TEST

START_TEST(test_invalid)
{
    const struct xmpi_hockney neg = {-1e-6, 1e-9, 0, 0, 0, 0, 0}, nan_beta = {1e-6, NAN, 0, 0, 0, 0, 0};
    ck_assert(xmpi_hockney_p2p(NULL, 1) < 0);
    ck_assert(xmpi_hockney_p2p(&H, -1) < 0);
    ck_assert(xmpi_hockney_p2p(&H, INFINITY) < 0);
    ck_assert(xmpi_hockney_p2p(&H, NAN) < 0);
    ck_assert(xmpi_hockney_p2p(&neg, 1) < 0);
    ck_assert(xmpi_hockney_p2p(&nan_beta, 1) < 0);
    ck_assert(xmpi_hockney_bcast(&H, 1, 0) < 0);
    ck_assert(xmpi_hockney_allreduce(&H, 1, -3) < 0);
    ck_assert(xmpi_hockney_barrier(&H, 0) < 0);
    ck_assert(xmpi_hockney_alltoallv(&H, 1, -1) < 0);
    ck_assert(xmpi_hockney_alltoallv(&H, -1, 1) < 0);
    double c = 42;
    ck_assert_int_eq(xmpi_hockney_op(&H, -1, 1, 2, &c), XMPIR_MODEL_EARG);
    ck_assert_int_eq(xmpi_hockney_op(&H, XMPIR_OP_COUNT, 1, 2, &c), XMPIR_MODEL_EARG);
    ck_assert_int_eq(xmpi_hockney_op(&H, XMPIR_OP_BCAST, -1, 2, &c), XMPIR_MODEL_EARG);
    ck_assert_int_eq(xmpi_hockney_op(&H, XMPIR_OP_BCAST, 1, 0, &c), XMPIR_MODEL_EARG);
    ck_assert_int_eq(xmpi_hockney_op(NULL, XMPIR_OP_BCAST, 1, 2, &c), XMPIR_MODEL_EARG);
    ck_assert_int_eq(xmpi_hockney_op(&H, XMPIR_OP_BCAST, 1, 2, NULL), XMPIR_MODEL_EARG);
    ck_assert(c == 42);
    ck_assert_ptr_null(xmpi_hockney_algorithm(XMPIR_OP_COUNT, 1, 2));
    ck_assert_ptr_null(xmpi_hockney_algorithm(XMPIR_OP_BCAST, -1, 2));
    ck_assert_ptr_null(xmpi_hockney_algorithm(XMPIR_OP_BCAST, 1, 0));
}
END_TEST

/* Sizes around every switch point for p, plus a geometric sweep, in increasing order. */
static int sweep_sizes(int p, double *n, int max)
{
    static const double points[] = {12288, 524288, 81920, 2048, 256, 32768};
    int k = 0;
    for (double x = 1; x < 4e7 && k < max; x *= 1.37) n[k++] = x;
    for (size_t i = 0; i < sizeof points / sizeof points[0]; i++) {
        const double scale[] = {1, 1.0 / p, p};   /* whole, block of the whole, all blocks */
        for (int s = 0; s < 3; s++)
            for (int d = -2; d <= 2 && k < max; d++)
                if (points[i] * scale[s] + d * 0.5 > 0) n[k++] = points[i] * scale[s] + d * 0.5;
    }
    n[k++] = 0;
    /* Insertion sort: a few hundred values. */
    for (int i = 1; i < k; i++)
        for (int j = i; j > 0 && n[j - 1] > n[j]; j--) {
            double t = n[j];
            n[j] = n[j - 1];
            n[j - 1] = t;
        }
    return k;
}

START_TEST(test_more_bytes_never_cheaper)
{
    /* alpha / beta from 10 to 10^6 bytes: both sides of every MPICH tuning. */
    const struct xmpi_hockney params[] = {
        {1e-8, 1e-9, 1e-9, 0, 0, 0, 0}, {1e-6, 1e-9, 1e-9, 0, 0, 0, 0}, {5e-7, 3.7e-10, 2.6e-10, 0, 0, 0, 0},
        {1e-5, 1e-9, 1e-9, 0, 0, 0, 0}, {1e-4, 8.483e-12, 1.6e-11, 0, 0, 0, 0}, {1e-3, 1e-9, 0, 0, 0, 0, 0},
    };
    const int ps[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 15, 16, 17, 31, 32, 33, 64, 100, 128, 1000, 1024};
    double n[400];
    for (size_t a = 0; a < sizeof params / sizeof params[0]; a++)
        for (size_t ip = 0; ip < sizeof ps / sizeof ps[0]; ip++) {
            int p = ps[ip], k = sweep_sizes(p, n, 390);
            for (int op = 0; op < XMPIR_OP_COUNT; op++) {
                double prev = -1;
                for (int i = 0; i < k; i++) {
                    double c;
                    ck_assert_int_eq(xmpi_hockney_op(&params[a], op, n[i], p, &c), 0);
                    ck_assert_msg(c >= prev * (1 - 1e-12),
                                  "%s p=%d params %zu: %.17g bytes cost %.17g < %.17g",
                                  xmpi_op_name(op), p, a, n[i], c, prev);
                    prev = c;
                }
            }
        }
}
END_TEST

Suite *hockney_suite(void)
{
    Suite *s = suite_create("hockney");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, lg_is_the_ceiling_of_log2);
    tcase_add_test(tc, test_point_to_point);
    tcase_add_test(tc, test_barrier);
    tcase_add_test(tc, test_bcast);
    tcase_add_test(tc, test_gather_scatter);
    tcase_add_test(tc, test_allgather);
    tcase_add_test(tc, test_reduce);
    tcase_add_test(tc, test_allreduce);
    tcase_add_test(tc, test_alltoall);
    tcase_add_test(tc, test_op_dispatch);
    tcase_add_test(tc, test_one_process_is_free);
    tcase_add_test(tc, test_envelope);
    tcase_add_test(tc, test_crowded_allgather);
    tcase_add_test(tc, test_invalid);
    tcase_add_test(tc, test_more_bytes_never_cheaper);
    suite_add_tcase(s, tc);
    return s;
}
