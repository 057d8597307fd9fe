/* models/predict.c, communication: an interval's operations replayed on another process count
 * with values worked out by hand, lambda (measured over modelled), and a network slower than
 * calibrated corrected exactly over a series of configurations. */
#include <math.h>

#include "predict_util.h"
#include "suites.h"

START_TEST(test_comm_replay)
{
    struct xmpi_interval s;
    interval_init(&s, 1, 4, 10, 0);
    set_op(&s, XMPIR_OP_ALLREDUCE, 10, 16, 4, 0);
    set_op(&s, XMPIR_OP_ALLGATHERV, 10, 2000, 4, 0);   /* a vector of 8000 bytes */
    set_op(&s, XMPIR_OP_SEND, 20, 800, 4, 0);          /* halo rows: fixed size */
    set_op(&s, XMPIR_OP_BCAST, 5, 100, 2, 0);          /* on half the world */
    set_op(&s, XMPIR_OP_WAITALL, 7, 0, 0, 0);
    double t;

    ck_assert_int_eq(xmpi_predict_comm(&s, &H, 4, &t), 0);
    double want = 10 * (2 * A + 16 * 2 * B + 16 * 2 * G)   /* recursive doubling */
                  + 10 * (2 * A + 3 * 2000 * B)            /* allgather RD, 4 blocks */
                  + 20 * (A + 800 * B)                     /* the sends */
                  + 5 * (1 * (A + 100 * B));               /* binomial on 2 */
    NEAR(t, want);

    /* On 8: the world collectives grow to 8, each rank's share of the vector halves, the
     * half-world broadcast runs on 4. */
    ck_assert_int_eq(xmpi_predict_comm(&s, &H, 8, &t), 0);
    want = 10 * (3 * A + 16 * 3 * B + 16 * 3 * G) + 10 * (3 * A + 7 * 1000 * B) +
           20 * (A + 800 * B) + 5 * (2 * (A + 100 * B));
    NEAR(t, want);

    /* On 3 (not a power of two): Bruck for the vector, 8000/3 bytes a block. */
    ck_assert_int_eq(xmpi_predict_comm(&s, &H, 3, &t), 0);
    want = 10 * (2 * A + 16 * 2 * B + 16 * 2 * G) + 10 * (2 * A + 2 * (8000.0 / 3) * B) +
           20 * (A + 800 * B) + 5 * (1 * (A + 100 * B));   /* 2 * 3 / 4 = 1.5 -> 2 */
    NEAR(t, want);

    /* On 1: only the point-to-point calls remain. */
    ck_assert_int_eq(xmpi_predict_comm(&s, &H, 1, &t), 0);
    NEAR(t, 20 * (A + 800 * B));

    /* An empty interval costs nothing. */
    struct xmpi_interval e;
    interval_init(&e, 1, 2, 10, 0);
    ck_assert_int_eq(xmpi_predict_comm(&e, &H, 16, &t), 0);
    NEAR(t, 0);

    ck_assert_int_eq(xmpi_predict_comm(NULL, &H, 4, &t), XMPIR_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_comm(&s, NULL, 4, &t), XMPIR_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_comm(&s, &H, 0, &t), XMPIR_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_comm(&s, &H, 4, NULL), XMPIR_MODEL_EARG);
    s.op[XMPIR_OP_SEND].bytes = -1;   /* a corrupted record */
    ck_assert_int_eq(xmpi_predict_comm(&s, &H, 4, &t), XMPIR_MODEL_EARG);
}
END_TEST

START_TEST(test_lambda)
{
    NEAR(xmpi_predict_lambda(2, 1), 2);
    NEAR(xmpi_predict_lambda(1, 4), 0.25);
    NEAR(xmpi_predict_lambda(0, 1), 1);
    NEAR(xmpi_predict_lambda(1, 0), 1);
    NEAR(xmpi_predict_lambda(-1, 1), 1);
    NEAR(xmpi_predict_lambda(NAN, 1), 1);
    NEAR(xmpi_predict_lambda(1, INFINITY), 1);

    struct xmpi_interval s;
    interval_init(&s, 1, 4, 10, 0);
    set_op(&s, XMPIR_OP_ALLREDUCE, 10, 8, 4, 0.002);
    set_op(&s, XMPIR_OP_SEND, 10, 100, 4, 0.001);
    set_op(&s, XMPIR_OP_WAIT, 10, 0, 0, 0.0005);
    NEAR(xmpi_interval_comm_time(&s), 0.0035);
    ck_assert(xmpi_interval_comm_time(NULL) == 0);
}
END_TEST

/* A network slower than calibrated by a constant factor, over a series of intervals on
 * different process counts: after the lambda correction the prediction for any count is
 * the true time, and for the last configuration it is exactly what was measured. */
START_TEST(test_lambda_series)
{
    const struct xmpi_hockney truth = {3 * A, 3 * B, 3 * G, 0, 0, 0, 0};
    const int series[] = {2, 4, 8, 3, 6};
    struct xmpi_predict_model m;
    model_with_net(&m, 0);
    ck_assert_int_eq(xmpi_predict_add_class(&m, "c", 1), 0);
    m.cls[0].power = 1e9;
    for (int k = 0; k < 5; k++) {
        int p = series[k];
        struct xmpi_interval s;
        interval_init(&s, k + 1, p, 100, 1e9);
        set_op(&s, XMPIR_OP_ALLREDUCE, 100, 16, p, 0);
        set_op(&s, XMPIR_OP_ALLGATHER, 100, 40000.0 / p, p, 0);
        double real;
        ck_assert_int_eq(xmpi_predict_comm(&s, &truth, p, &real), 0);
        s.op[XMPIR_OP_ALLREDUCE].time = real * p;   /* what the profiler would have seen */
        ck_assert_int_eq(xmpi_predict_observe(&m, &s, NULL), 0);
        for (int cand = 1; cand <= 16; cand++) {
            int cur[1] = {p}, cnd[1] = {cand};
            struct xmpi_predict_request rq = {.interval = &s, .current = cur, .candidate = cnd};
            struct xmpi_prediction out;
            ck_assert_int_eq(xmpi_predict_interval(&m, &rq, &out), 0);
            double want;
            ck_assert_int_eq(xmpi_predict_comm(&s, &truth, cand, &want), 0);
            NEAR(out.lambda, 1.0 / 3);
            NEAR(out.t_comm, want);
            if (cand == p) NEAR(out.t_comm, real);
        }
    }
}
END_TEST

Suite *predict_comm_suite(void)
{
    Suite *s = suite_create("predict_comm");
    TCase *tc = tcase_create("comm");
    tcase_add_test(tc, test_comm_replay);
    tcase_add_test(tc, test_lambda);
    tcase_add_test(tc, test_lambda_series);
    suite_add_tcase(s, tc);
    return s;
}
