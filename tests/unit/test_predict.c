/* models/predict.c: communication replay and lambda, work extrapolation and profile with
 * correction, class powers, reconfiguration and redistribution costs, the entry point,
 * on synthetic intervals with values worked out by hand. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../models/predict.h"
#include "suites.h"

static const struct xmpi_hockney H = {1e-5, 1e-9, 1e-9, 0};
static const double A = 1e-5, B = 1e-9, G = 1e-9;

#define NEAR(got, want)                                                                    \
    ck_assert_msg(near((got), (want)), "%s: got %.17g, want %.17g", #got, (double)(got),   \
                  (double)(want))

static int near(double got, double want)
{
    return fabs(got - want) <= 1e-12 * fabs(want) + 1e-18;
}

static void interval_init(struct xmpi_interval *s, int index, int nprocs, double iterations,
                          double work_sum)
{
    memset(s, 0, sizeof *s);
    s->index = index;
    s->nprocs = nprocs;
    s->iterations = iterations;
    s->work_sum = work_sum;
}

/* One op as every rank did it: calls and time per rank, bytes per call, communicator q. */
static void set_op(struct xmpi_interval *s, int op, double calls, double bytes, double q,
                   double time)
{
    s->op[op].calls = calls * s->nprocs;
    s->op[op].bytes = bytes * calls * s->nprocs;
    s->op[op].procs = q * calls * s->nprocs;
    s->op[op].time = time * s->nprocs;
}

static void model_with_net(struct xmpi_model *m, int spawn_group)
{
    struct xmpi_calibration cal;
    xmpi_calibration_defaults(&cal);
    cal.net = H;
    xmpi_model_init(m, &cal, spawn_group);
}

/* ---- communication */

START_TEST(test_comm_replay)
{
    struct xmpi_interval s;
    interval_init(&s, 1, 4, 10, 0);
    set_op(&s, XMPI_OP_ALLREDUCE, 10, 16, 4, 0);
    set_op(&s, XMPI_OP_ALLGATHERV, 10, 2000, 4, 0);   /* a vector of 8000 bytes */
    set_op(&s, XMPI_OP_SEND, 20, 800, 4, 0);          /* halo rows: fixed size */
    set_op(&s, XMPI_OP_BCAST, 5, 100, 2, 0);          /* on half the world */
    set_op(&s, XMPI_OP_WAITALL, 7, 0, 0, 0);
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

    ck_assert_int_eq(xmpi_predict_comm(NULL, &H, 4, &t), XMPI_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_comm(&s, NULL, 4, &t), XMPI_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_comm(&s, &H, 0, &t), XMPI_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_comm(&s, &H, 4, NULL), XMPI_MODEL_EARG);
    s.op[XMPI_OP_SEND].bytes = -1;   /* a corrupted record */
    ck_assert_int_eq(xmpi_predict_comm(&s, &H, 4, &t), XMPI_MODEL_EARG);
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
    set_op(&s, XMPI_OP_ALLREDUCE, 10, 8, 4, 0.002);
    set_op(&s, XMPI_OP_SEND, 10, 100, 4, 0.001);
    set_op(&s, XMPI_OP_WAIT, 10, 0, 0, 0.0005);
    NEAR(xmpi_interval_comm_time(&s), 0.0035);
    ck_assert(xmpi_interval_comm_time(NULL) == 0);
}
END_TEST

/* A network slower than calibrated by a constant factor, over a series of intervals on
 * different process counts: after the lambda correction the prediction for any count is
 * the true time, and for the last configuration it is exactly what was measured. */
START_TEST(test_lambda_series)
{
    const struct xmpi_hockney truth = {3 * A, 3 * B, 3 * G, 0};
    const int series[] = {2, 4, 8, 3, 6};
    struct xmpi_model m;
    model_with_net(&m, 0);
    ck_assert_int_eq(xmpi_model_add_class(&m, "c", 1), 0);
    m.cls[0].power = 1e9;
    for (int k = 0; k < 5; k++) {
        int p = series[k];
        struct xmpi_interval s;
        interval_init(&s, k + 1, p, 100, 1e9);
        set_op(&s, XMPI_OP_ALLREDUCE, 100, 16, p, 0);
        set_op(&s, XMPI_OP_ALLGATHER, 100, 40000.0 / p, p, 0);
        double real;
        ck_assert_int_eq(xmpi_predict_comm(&s, &truth, p, &real), 0);
        s.op[XMPI_OP_ALLREDUCE].time = real * p;   /* what the profiler would have seen */
        ck_assert_int_eq(xmpi_model_observe(&m, &s, NULL), 0);
        for (int cand = 1; cand <= 16; cand++) {
            int cur[1] = {p}, cnd[1] = {cand};
            struct xmpi_predict_request rq = {.interval = &s, .current = cur, .candidate = cnd};
            struct xmpi_prediction out;
            ck_assert_int_eq(xmpi_model_predict(&m, &rq, &out), 0);
            double want;
            ck_assert_int_eq(xmpi_predict_comm(&s, &truth, cand, &want), 0);
            NEAR(out.lambda, 1.0 / 3);
            NEAR(out.t_comm, want);
            if (cand == p) NEAR(out.t_comm, real);
        }
    }
}
END_TEST

/* ---- computation */

static struct xmpi_interval observe_work(struct xmpi_model *m, int index, double wpi)
{
    struct xmpi_interval s;
    interval_init(&s, index, 2, 50, wpi * 50);
    ck_assert_int_eq(xmpi_model_observe(m, &s, NULL), 0);
    return s;
}

START_TEST(test_extrapolation)
{
    struct xmpi_model m;
    model_with_net(&m, 0);
    double w;
    ck_assert_int_eq(xmpi_predict_work(&m, 1, &w), XMPI_MODEL_ENODATA);

    /* One interval: the same work. */
    observe_work(&m, 1, 500);
    ck_assert_int_eq(xmpi_predict_work(&m, 2, &w), 0);
    NEAR(w, 500);

    /* The last K = 4 points lie on 100 + 10 i: earlier outliers no longer count. */
    observe_work(&m, 2, 9999);
    for (int i = 3; i <= 6; i++) observe_work(&m, i, 100 + 10 * i);
    ck_assert_int_eq(m.nhist, XMPI_MODEL_HISTORY);
    ck_assert_int_eq(xmpi_predict_work(&m, 7, &w), 0);
    NEAR(w, 170);
    ck_assert_int_eq(xmpi_predict_work(&m, 9, &w), 0);
    NEAR(w, 190);

    /* Noise around a level, by hand: x = 3..6, y = 990, 1010, 990, 1010; slope 20/5 = 4,
     * at 7: 1000 + 4 * 2.5 = 1010. */
    xmpi_model_init(&m, NULL, 0);
    for (int i = 3; i <= 6; i++) observe_work(&m, i, i % 2 ? 990 : 1010);
    ck_assert_int_eq(xmpi_predict_work(&m, 7, &w), 0);
    NEAR(w, 1010);

    /* A falling trend stops at zero. */
    xmpi_model_init(&m, NULL, 0);
    observe_work(&m, 1, 60);
    observe_work(&m, 2, 20);
    ck_assert_int_eq(xmpi_predict_work(&m, 3, &w), 0);
    NEAR(w, 0);

    /* The same interval observed twice replaces its point; an older one starts over. */
    observe_work(&m, 2, 40);
    ck_assert_int_eq(m.nhist, 2);
    ck_assert_int_eq(xmpi_predict_work(&m, 3, &w), 0);
    NEAR(w, 20);
    observe_work(&m, 1, 7);
    ck_assert_int_eq(m.nhist, 1);
    ck_assert_int_eq(xmpi_predict_work(&m, 2, &w), 0);
    NEAR(w, 7);

    ck_assert_int_eq(xmpi_predict_work(&m, 0, &w), XMPI_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_work(NULL, 2, &w), XMPI_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_work(&m, 2, NULL), XMPI_MODEL_EARG);
}
END_TEST

START_TEST(test_profile_correction)
{
    static const double profile[] = {10, 20, 30, 40, 50};
    struct xmpi_model m;
    model_with_net(&m, 0);
    ck_assert_int_eq(xmpi_model_set_profile(&m, profile, 5), 0);
    double w;

    /* Interval 2 measured 30 per iteration against 20 profiled: this run does 1.5 times
     * the work, so interval 3 is predicted at 1.5 x 30. */
    observe_work(&m, 1, 15);
    observe_work(&m, 2, 30);
    ck_assert_int_eq(xmpi_predict_work(&m, 3, &w), 0);
    NEAR(w, 45);
    ck_assert_int_eq(xmpi_predict_work(&m, 5, &w), 0);
    NEAR(w, 75);

    /* An irregular run: the profile's shape is kept although the history is a line. */
    observe_work(&m, 3, 15);   /* 0.5 of the profile */
    ck_assert_int_eq(xmpi_predict_work(&m, 4, &w), 0);
    NEAR(w, 20);

    /* Past the profile's end: extrapolation over the history (15, 30, 15 at 1..3). */
    ck_assert_int_eq(xmpi_predict_work(&m, 6, &w), 0);
    double xm = 2, ym = 20, slope = ((-1) * (15 - ym) + 1 * (15 - ym)) / 2.0;
    NEAR(w, ym + slope * (6 - xm));

    /* A profiled zero gives no scale: the profile is taken as it is. */
    static const double zero_first[] = {0, 8, 9};
    xmpi_model_init(&m, NULL, 0);
    ck_assert_int_eq(xmpi_model_set_profile(&m, zero_first, 3), 0);
    observe_work(&m, 1, 5);
    ck_assert_int_eq(xmpi_predict_work(&m, 2, &w), 0);
    NEAR(w, 8);

    /* Back to extrapolation. */
    ck_assert_int_eq(xmpi_model_set_profile(&m, NULL, 0), 0);
    ck_assert_int_eq(xmpi_predict_work(&m, 2, &w), 0);
    NEAR(w, 5);

    static const double bad[] = {1, -2};
    ck_assert_int_eq(xmpi_model_set_profile(&m, bad, 2), XMPI_MODEL_EARG);
    ck_assert_int_eq(xmpi_model_set_profile(&m, NULL, 3), XMPI_MODEL_EARG);
    ck_assert_int_eq(xmpi_model_set_profile(&m, profile, -1), XMPI_MODEL_EARG);
}
END_TEST

/* Four classes: a (speed 1) and b (speed 2) measured at 100 and 300 per second, d
 * declared 4 times as fast as a and never measured, c with no declared speed. */
static void four_classes(struct xmpi_model *m)
{
    model_with_net(m, 0);
    ck_assert_int_eq(xmpi_model_add_class(m, "a", 1), 0);
    ck_assert_int_eq(xmpi_model_add_class(m, "b", 2), 1);
    ck_assert_int_eq(xmpi_model_add_class(m, "c", 0), 2);
    ck_assert_int_eq(xmpi_model_add_class(m, "d", 4), 3);
    struct xmpi_rank_record r[3];
    memset(r, 0, sizeof r);
    r[0].work = 1000, r[0].t_real = 12, r[0].comm_time = 2;   /* 100 / s */
    r[1].work = 2000, r[1].t_real = 11, r[1].comm_time = 1;   /* 200 / s */
    r[2].work = 4000, r[2].t_real = 11, r[2].comm_time = 1;   /* 400 / s */
    struct xmpi_interval s;
    interval_init(&s, 1, 3, 10, 7000);
    s.ranks = r;
    const int rank_class[3] = {0, 1, 1};
    ck_assert_int_eq(xmpi_model_observe(m, &s, rank_class), 0);
}

START_TEST(test_class_power)
{
    struct xmpi_model m;
    double pw;
    model_with_net(&m, 0);
    ck_assert_int_eq(xmpi_model_add_class(&m, "a", 1), 0);
    ck_assert_int_eq(xmpi_predict_class_power(&m, 0, &pw), XMPI_MODEL_ENODATA);

    four_classes(&m);
    ck_assert_int_eq(xmpi_predict_class_power(&m, 0, &pw), 0);
    NEAR(pw, 100);
    ck_assert_int_eq(xmpi_predict_class_power(&m, 1, &pw), 0);
    NEAR(pw, 300);   /* the mean of its two processes */
    ck_assert_int_eq(xmpi_predict_class_power(&m, 3, &pw), 0);
    NEAR(pw, 4 * (100 / 1.0 + 300 / 2.0) / 2);   /* speed x mean power per speed */
    ck_assert_int_eq(xmpi_predict_class_power(&m, 2, &pw), 0);
    NEAR(pw, 200);   /* no declared speed: the mean measured power */

    /* Only classes without declared speed measured: the mean for everybody. */
    model_with_net(&m, 0);
    xmpi_model_add_class(&m, "x", 0);
    xmpi_model_add_class(&m, "y", 3);
    m.cls[0].power = 50;
    ck_assert_int_eq(xmpi_predict_class_power(&m, 1, &pw), 0);
    NEAR(pw, 50);

    /* The calibration's power lines are measurements from an earlier run. */
    struct xmpi_calibration cal;
    xmpi_calibration_defaults(&cal);
    cal.nclasses = 1;
    snprintf(cal.cls[0].name, sizeof cal.cls[0].name, "y");
    cal.cls[0].power = 77;
    xmpi_model_init(&m, &cal, 0);
    xmpi_model_add_class(&m, "x", 1);
    xmpi_model_add_class(&m, "y", 1);
    ck_assert_int_eq(xmpi_predict_class_power(&m, 1, &pw), 0);
    NEAR(pw, 77);
    ck_assert_int_eq(xmpi_predict_class_power(&m, 0, &pw), 0);
    NEAR(pw, 77);

    ck_assert_int_eq(xmpi_predict_class_power(&m, 2, &pw), XMPI_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_class_power(&m, -1, &pw), XMPI_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_class_power(&m, 0, NULL), XMPI_MODEL_EARG);
}
END_TEST

START_TEST(test_power_measurement)
{
    struct xmpi_model m;
    four_classes(&m);
    /* A later interval replaces a class's power; classes absent from it keep theirs, and
     * ranks with no work or no compute time tell nothing. */
    struct xmpi_rank_record r[3];
    memset(r, 0, sizeof r);
    r[0].work = 500, r[0].t_real = 10;        /* a: now 50 / s */
    r[1].work = 0, r[1].t_real = 10;          /* b: idle, ignored */
    r[2].work = 10, r[2].t_real = 1, r[2].comm_time = 1;   /* b: all in MPI, ignored */
    struct xmpi_interval s;
    interval_init(&s, 2, 3, 10, 510);
    s.ranks = r;
    const int rank_class[3] = {0, 1, 1};
    ck_assert_int_eq(xmpi_model_observe(&m, &s, rank_class), 0);
    NEAR(m.cls[0].power, 50);
    NEAR(m.cls[1].power, 300);
    const int bad_class[3] = {0, 1, 4};
    ck_assert_int_eq(xmpi_model_observe(&m, &s, bad_class), XMPI_MODEL_EARG);
    ck_assert_int_eq(xmpi_model_observe(NULL, &s, NULL), XMPI_MODEL_EARG);
    ck_assert_int_eq(xmpi_model_observe(&m, NULL, NULL), XMPI_MODEL_EARG);
    s.iterations = 0;
    ck_assert_int_eq(xmpi_model_observe(&m, &s, NULL), XMPI_MODEL_EARG);
    s.iterations = 10;
    s.nprocs = 0;
    ck_assert_int_eq(xmpi_model_observe(&m, &s, NULL), XMPI_MODEL_EARG);
}
END_TEST

START_TEST(test_comp_time)
{
    struct xmpi_model m;
    four_classes(&m);
    double t;
    const int two_a_one_b[4] = {2, 1, 0, 0};
    ck_assert_int_eq(xmpi_predict_comp(&m, 1e6, two_a_one_b, &t), 0);
    NEAR(t, 1e6 / (2 * 100 + 300));
    const int with_d[4] = {0, 0, 1, 2};
    ck_assert_int_eq(xmpi_predict_comp(&m, 1e6, with_d, &t), 0);
    NEAR(t, 1e6 / (200 + 2 * 500));

    const int none[4] = {0, 0, 0, 0}, neg[4] = {1, -1, 0, 0};
    ck_assert_int_eq(xmpi_predict_comp(&m, 1e6, none, &t), XMPI_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_comp(&m, 1e6, neg, &t), XMPI_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_comp(&m, -1, two_a_one_b, &t), XMPI_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_comp(&m, 1e6, NULL, &t), XMPI_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_comp(&m, 1e6, two_a_one_b, NULL), XMPI_MODEL_EARG);
    struct xmpi_model empty;
    model_with_net(&empty, 0);
    xmpi_model_add_class(&empty, "a", 1);
    const int one[1] = {1};
    ck_assert_int_eq(xmpi_predict_comp(&empty, 1e6, one, &t), XMPI_MODEL_ENODATA);
}
END_TEST

/* For a fixed amount of work, one more process of any class never makes it slower. */
START_TEST(test_more_processes_never_slower)
{
    struct xmpi_model m;
    four_classes(&m);
    for (int c = 0; c < 4; c++) {
        int counts[4] = {1, 1, 0, 0};
        double prev, t;
        ck_assert_int_eq(xmpi_predict_comp(&m, 3.3e7, counts, &prev), 0);
        for (int k = 0; k < 100; k++) {
            counts[c]++;
            ck_assert_int_eq(xmpi_predict_comp(&m, 3.3e7, counts, &t), 0);
            ck_assert_msg(t < prev, "class %d, %d processes: %g >= %g", c, counts[c], t, prev);
            prev = t;
        }
    }
    /* Homogeneous: exactly work / (n power). */
    for (int n = 1; n <= 64; n++) {
        int counts[4] = {n, 0, 0, 0};
        double t;
        ck_assert_int_eq(xmpi_predict_comp(&m, 1e6, counts, &t), 0);
        NEAR(t, 1e6 / (n * 100.0));
    }
}
END_TEST

/* ---- reconfiguration */

START_TEST(test_reconfig)
{
    struct xmpi_model m;
    four_classes(&m);
    const int cur[4] = {2, 1, 0, 0}, cand[4] = {3, 0, 2, 0};
    struct xmpi_reconfig r;
    ck_assert_int_eq(xmpi_predict_reconfig(&m, cur, cand, &r), 0);
    ck_assert_int_eq(r.nspawn, 3);
    ck_assert_int_eq(r.nremove, 1);
    NEAR(r.t_spawn, 3 * XMPI_CAL_DEFAULT_SPAWN_SINGLE);
    NEAR(r.t_remove, 1 * XMPI_CAL_DEFAULT_REMOVE);
    m.spawn_group = 1;
    ck_assert_int_eq(xmpi_predict_reconfig(&m, cur, cand, &r), 0);
    NEAR(r.t_spawn, 3 * XMPI_CAL_DEFAULT_SPAWN_GROUP);
    ck_assert_int_eq(xmpi_predict_reconfig(&m, cur, cur, &r), 0);
    ck_assert_int_eq(r.nspawn + r.nremove, 0);
    NEAR(r.t_spawn + r.t_remove, 0);
    const int neg[4] = {-1, 0, 0, 0};
    ck_assert_int_eq(xmpi_predict_reconfig(&m, neg, cand, &r), XMPI_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_reconfig(&m, cur, NULL, &r), XMPI_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_reconfig(&m, cur, cand, NULL), XMPI_MODEL_EARG);
}
END_TEST

/* ---- redistribution: 100 rows from 2 processes (50 + 50) to 4 (25 each, 2 spawned).
 * Process 0 sends 25 rows to 1; process 1 sends 50 (to 2 and 3) and receives 25, talking
 * to 3 peers; 75 rows arrive at new owners. */

static const long old_c[2] = {50, 50}, old_d[2] = {0, 50};
static const long new_c[4] = {25, 25, 25, 25}, new_d[4] = {0, 25, 50, 75};

START_TEST(test_redist_dense_and_vector)
{
    const struct xmpi_partition from = {2, old_c, old_d}, to = {4, new_c, new_d};
    struct xmpi_struct_desc d[2] = {
        {XMPI_STRUCT_VECTOR, 0, 8, 100, 0, 0, 0},
        {XMPI_STRUCT_DENSE, 0, 8, 100, 100, 0, 0},
    };
    double bytes, t;
    ck_assert_int_eq(xmpi_predict_redist(&H, d, 1, &from, &to, &bytes, &t), 0);
    NEAR(t, 3 * A + 50 * 8 * B);
    NEAR(bytes, 75 * 8);
    ck_assert_int_eq(xmpi_predict_redist(&H, d + 1, 1, &from, &to, &bytes, &t), 0);
    NEAR(t, 3 * A + 50 * 800 * B);
    NEAR(bytes, 75 * 800);
    ck_assert_int_eq(xmpi_predict_redist(&H, d, 2, &from, &to, &bytes, &t), 0);
    NEAR(t, 6 * A + 50 * 808 * B);
    NEAR(bytes, 75 * 808);

    /* Replicated: an Allgatherv of the whole over the 4 processes, largest block 25 rows
     * (4 x 200 bytes: recursive doubling); every process receives the rows it does not own. */
    d[0].replicated = 1;
    ck_assert_int_eq(xmpi_predict_redist(&H, d, 1, &from, &to, &bytes, &t), 0);
    NEAR(t, 2 * A + 3 * 200 * B);
    NEAR(bytes, 4 * 75 * 8);

    /* Shrinking back is the mirror image; the removed processes may be listed with 0 rows
     * or left out. */
    const long zc[4] = {50, 50, 0, 0}, zd[4] = {0, 50, 0, 0};
    const struct xmpi_partition back_z = {4, zc, zd};
    d[0].replicated = 0;
    ck_assert_int_eq(xmpi_predict_redist(&H, d, 1, &to, &back_z, &bytes, &t), 0);
    NEAR(t, 3 * A + 50 * 8 * B);
    NEAR(bytes, 75 * 8);
    ck_assert_int_eq(xmpi_predict_redist(&H, d, 1, &to, &from, &bytes, &t), 0);
    NEAR(t, 3 * A + 50 * 8 * B);

    /* Nothing changes: nothing to pay, even for a replicated array. */
    d[0].replicated = 1;
    ck_assert_int_eq(xmpi_predict_redist(&H, d, 2, &to, &to, &bytes, &t), 0);
    NEAR(t, 0);
    NEAR(bytes, 0);
    /* A new process with no rows still needs a replicated array's copy. */
    const long one_more_c[3] = {50, 50, 0}, one_more_d[3] = {0, 50, 100};
    const struct xmpi_partition grown = {3, one_more_c, one_more_d};
    ck_assert_int_eq(xmpi_predict_redist(&H, d, 1, &from, &grown, &bytes, &t), 0);
    NEAR(bytes, 100 * 8 + 50 * 8 + 50 * 8);
    ck_assert(t > 0);

    /* Filling fresh buffers: the largest new block (25 rows) per distributed array, the whole
     * array per replicated one, at `copy` per byte; nothing when nothing changes. */
    struct xmpi_hockney hc = H;
    hc.copy = 7e-10;
    d[0].replicated = 0;
    ck_assert_int_eq(xmpi_predict_redist(&hc, d + 1, 1, &from, &to, &bytes, &t), 0);
    NEAR(t, 3 * A + 50 * 800 * B + 25 * 800 * 7e-10);
    d[0].replicated = 1;
    ck_assert_int_eq(xmpi_predict_redist(&hc, d, 1, &from, &to, &bytes, &t), 0);
    NEAR(t, 2 * A + 3 * 200 * B + 100 * 8 * 7e-10);
    ck_assert_int_eq(xmpi_predict_redist(&hc, d, 2, &to, &to, &bytes, &t), 0);
    NEAR(t, 0);
}
END_TEST

START_TEST(test_redist_sparse)
{
    const struct xmpi_partition from = {2, old_c, old_d}, to = {4, new_c, new_d};
    /* 1000 nonzeros, 10 per row; 4-byte indices, 8-byte values. */
    struct xmpi_struct_desc d = {XMPI_STRUCT_SPARSE, 0, 8, 100, 0, 1000, 4};
    double bytes, t;
    ck_assert_int_eq(xmpi_predict_redist(&H, &d, 1, &from, &to, &bytes, &t), 0);
    NEAR(t, (3 * A + 50 * 4 * B) + (3 * A + 50 * 40 * B) + (3 * A + 50 * 80 * B));
    NEAR(bytes, 75 * (4 + 40 + 80));
    /* Replicated: IA still by Alltoallv, JA and A by Allgatherv (blocks of 1000 and 2000
     * bytes on 4: recursive doubling). */
    d.replicated = 1;
    ck_assert_int_eq(xmpi_predict_redist(&H, &d, 1, &from, &to, &bytes, &t), 0);
    NEAR(t, (3 * A + 50 * 4 * B) + (2 * A + 3 * 1000 * B) + (2 * A + 3 * 2000 * B));
    NEAR(bytes, 75 * 4 + 4 * 75 * (40 + 80));
}
END_TEST

START_TEST(test_redist_invalid)
{
    const struct xmpi_partition from = {2, old_c, old_d}, to = {4, new_c, new_d};
    struct xmpi_struct_desc d = {XMPI_STRUCT_VECTOR, 0, 8, 100, 0, 0, 0};
    double bytes, t;
    const long short_c[2] = {50, 49};
    const struct xmpi_partition lost_row = {2, short_c, old_d};
    ck_assert_int_eq(xmpi_predict_redist(&H, &d, 1, &from, &lost_row, &bytes, &t),
                     XMPI_MODEL_EARG);
    const long neg_c[2] = {-50, 150};
    const struct xmpi_partition neg = {2, neg_c, old_d};
    ck_assert_int_eq(xmpi_predict_redist(&H, &d, 1, &neg, &to, &bytes, &t), XMPI_MODEL_EARG);
    const struct xmpi_partition nulls = {2, NULL, old_d};
    ck_assert_int_eq(xmpi_predict_redist(&H, &d, 1, &nulls, &to, &bytes, &t), XMPI_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_redist(&H, &d, 1, NULL, &to, &bytes, &t), XMPI_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_redist(NULL, &d, 1, &from, &to, &bytes, &t), XMPI_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_redist(&H, NULL, 1, &from, &to, &bytes, &t), XMPI_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_redist(&H, &d, 1, &from, &to, NULL, &t), XMPI_MODEL_EARG);
    struct xmpi_struct_desc bad[] = {
        {XMPI_STRUCT_VECTOR, 0, 8, 99, 0, 0, 0},      /* rows differ from the partition */
        {XMPI_STRUCT_VECTOR, 0, 0, 100, 0, 0, 0},     /* no element size */
        {XMPI_STRUCT_VECTOR, 2, 8, 100, 0, 0, 0},     /* unknown scheme */
        {7, 0, 8, 100, 0, 0, 0},                      /* unknown kind */
        {XMPI_STRUCT_DENSE, 0, 8, 100, -1, 0, 0},     /* negative row length */
        {XMPI_STRUCT_SPARSE, 0, 8, 100, 0, -1, 4},    /* negative nnz */
        {XMPI_STRUCT_SPARSE, 0, 8, 100, 0, 10, 0},    /* no index size */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(xmpi_predict_redist(&H, &bad[i], 1, &from, &to, &bytes, &t) ==
                          XMPI_MODEL_EARG,
                      "bad description %zu accepted", i);
    /* No structures: nothing to move. */
    ck_assert_int_eq(xmpi_predict_redist(&H, NULL, 0, &from, &to, &bytes, &t), 0);
    NEAR(t, 0);
}
END_TEST


/* ---- the entry point */

/* One class; 2 processes each did 1e6 work in 9 s of compute (power 1e6/9) over 100
 * iterations, and spent twice the model's estimate in their Allreduces (lambda 1/2). */
static void jacobi_like(struct xmpi_model *m, struct xmpi_interval *s,
                        struct xmpi_rank_record r[2])
{
    model_with_net(m, 0);
    ck_assert_int_eq(xmpi_model_add_class(m, "node", 1), 0);
    memset(r, 0, 2 * sizeof *r);
    for (int i = 0; i < 2; i++) r[i].work = 1e6, r[i].t_real = 10, r[i].comm_time = 1;
    interval_init(s, 1, 2, 100, 2e6);
    s->ranks = r;
    set_op(s, XMPI_OP_ALLREDUCE, 100, 16, 2, 2 * 100 * (A + 16 * B + 16 * G));
    const int rank_class[2] = {0, 0};
    ck_assert_int_eq(xmpi_model_observe(m, s, rank_class), 0);
}

START_TEST(test_predict_entry)
{
    struct xmpi_model m;
    struct xmpi_interval s;
    struct xmpi_rank_record r[2];
    jacobi_like(&m, &s, r);
    const int cur[1] = {2}, cand[1] = {4};
    const long pc[2] = {50, 50}, pd[2] = {0, 50};
    const int rank_class[2] = {0, 0};
    const struct xmpi_struct_desc matrix = {XMPI_STRUCT_DENSE, 0, 8, 100, 100, 0, 0};
    struct xmpi_predict_request rq = {
        .interval = &s, .current = cur, .candidate = cand, .structs = &matrix, .nstructs = 1,
        .part = {2, pc, pd}, .rank_class = rank_class,
    };
    struct xmpi_prediction out;
    ck_assert_int_eq(xmpi_model_predict(&m, &rq, &out), 0);
    ck_assert_int_eq(out.nprocs, 4);
    NEAR(out.iterations, 100);
    NEAR(out.work, 2e6);
    NEAR(out.t_comp, 2e6 / (4 * (1e6 / 9)));
    NEAR(out.lambda, 0.5);
    NEAR(out.t_comm, 2 * 100 * (2 * A + 16 * 2 * B + 16 * 2 * G));
    ck_assert_int_eq(out.nspawn, 2);
    ck_assert_int_eq(out.nremove, 0);
    NEAR(out.t_spawn, 2 * XMPI_CAL_DEFAULT_SPAWN_SINGLE);
    NEAR(out.t_remove, 0);
    /* The model lays the 4 processes out evenly: the 50 + 50 -> 25 x 4 case above. */
    NEAR(out.redist_bytes, 75 * 800);
    /* The move is not divided by lambda (1/2 here; predict.c says why). */
    NEAR(out.t_redist, 3 * A + 50 * 800 * B);
    NEAR(out.t_total, out.t_comp + out.t_comm + out.t_spawn + out.t_remove + out.t_redist);

    /* An explicit new partition is used as given. */
    const long nc[3] = {50, 0, 50}, nd[3] = {0, 0, 50};
    const struct xmpi_partition next = {3, nc, nd};
    rq.next = &next;
    const int three[1] = {3};
    rq.candidate = three;
    ck_assert_int_eq(xmpi_model_predict(&m, &rq, &out), 0);
    NEAR(out.redist_bytes, 50 * 800);
    NEAR(out.t_redist, 1 * A + 50 * 800 * B);
    rq.next = NULL;

    /* Keeping the configuration: no overheads, and the measured communication back. */
    rq.candidate = cur;
    ck_assert_int_eq(xmpi_model_predict(&m, &rq, &out), 0);
    NEAR(out.t_spawn + out.t_remove + out.t_redist + out.redist_bytes, 0);
    NEAR(out.t_comm, xmpi_interval_comm_time(&s));
    NEAR(out.t_comp, 2e6 / (2 * (1e6 / 9)));

    /* Without structures or partition: no redistribution cost. */
    rq.candidate = cand;
    rq.nstructs = 0;
    ck_assert_int_eq(xmpi_model_predict(&m, &rq, &out), 0);
    NEAR(out.t_redist, 0);
    rq.nstructs = 1;
    rq.part.count = NULL;
    ck_assert_int_eq(xmpi_model_predict(&m, &rq, &out), 0);
    NEAR(out.t_redist, 0);
}
END_TEST

/* Processes of two spawns talk over the calibration's spawned link: a candidate that has them
 * prices its messages and the move there; the last interval's estimate (for lambda) uses the
 * link of the configuration it ran on. */
START_TEST(test_predict_mixed_link)
{
    struct xmpi_model m;
    struct xmpi_interval s;
    struct xmpi_rank_record r[2];
    jacobi_like(&m, &s, r);
    const double A2 = 10 * A, B2 = 3 * B;
    m.cal.spawned = (struct xmpi_hockney){A2, B2, G, 0};
    const int cur[1] = {2}, cand[1] = {4};
    const long pc[2] = {50, 50}, pd[2] = {0, 50};
    const int rank_class[2] = {0, 0};
    const struct xmpi_struct_desc matrix = {XMPI_STRUCT_DENSE, 0, 8, 100, 100, 0, 0};
    struct xmpi_predict_request rq = {
        .interval = &s, .current = cur, .candidate = cand, .structs = &matrix, .nstructs = 1,
        .part = {2, pc, pd}, .rank_class = rank_class, .mixed_next = 1,
    };
    struct xmpi_prediction out;
    ck_assert_int_eq(xmpi_model_predict(&m, &rq, &out), 0);
    NEAR(out.lambda, 0.5);
    /* Allreduce of 16 bytes on 4: 2 rounds of alpha + n beta + n gamma, 2 x 100 calls. */
    NEAR(out.t_comm, 2 * 100 * (2 * A2 + 16 * 2 * B2 + 16 * 2 * G));
    NEAR(out.t_redist, 3 * A2 + 50 * 800 * B2);

    rq.mixed_now = 1;
    ck_assert_int_eq(xmpi_model_predict(&m, &rq, &out), 0);
    double est = 100 * (A2 + 16 * B2 + 16 * G), meas = 2 * 100 * (A + 16 * B + 16 * G);
    NEAR(out.lambda, est / meas);
    NEAR(out.t_comm, 100 * (2 * A2 + 16 * 2 * B2 + 16 * 2 * G) / (est / meas));
    /* Neither side mixed: the net, as before. */
    rq.mixed_now = rq.mixed_next = 0;
    ck_assert_int_eq(xmpi_model_predict(&m, &rq, &out), 0);
    NEAR(out.t_redist, 3 * A + 50 * 800 * B);
}
END_TEST

/* Removing: the most recently spawned process of the class goes, the others share the rows
 * by power as the library splits them (boundaries at round(100/3) and round(200/3)).
 * Classes a, b at equal power; ranks a b a b with 25 rows each; one a leaves: rank 2 (not
 * 0), and 0, 1, 3 get [0,33), [33,67), [67,100): 8 + 17 + 8 rows arrive. */
START_TEST(test_predict_remove_layout)
{
    struct xmpi_model m;
    model_with_net(&m, 1);
    xmpi_model_add_class(&m, "a", 1);
    xmpi_model_add_class(&m, "b", 1);
    m.cls[0].power = m.cls[1].power = 1;
    struct xmpi_interval s;
    interval_init(&s, 4, 4, 10, 40);
    ck_assert_int_eq(xmpi_model_observe(&m, &s, NULL), 0);
    const int cur[2] = {2, 2}, cand[2] = {1, 2}, rank_class[4] = {0, 1, 0, 1};
    const long pc[4] = {25, 25, 25, 25}, pd[4] = {0, 25, 50, 75};
    const struct xmpi_struct_desc v = {XMPI_STRUCT_VECTOR, 0, 1, 100, 0, 0, 0};
    struct xmpi_predict_request rq = {
        .interval = &s, .current = cur, .candidate = cand, .structs = &v, .nstructs = 1,
        .part = {4, pc, pd}, .rank_class = rank_class,
    };
    struct xmpi_prediction out;
    ck_assert_int_eq(xmpi_model_predict(&m, &rq, &out), 0);
    ck_assert_int_eq(out.nremove, 1);
    NEAR(out.t_remove, XMPI_CAL_DEFAULT_REMOVE);
    NEAR(out.redist_bytes, 8 + 17 + 8);
    /* The busiest: process 2 sends its 25 rows to 1 and 3; process 1 talks to 0 and 2. */
    NEAR(out.t_redist, 2 * A + 25 * B);

    /* The rank classes must describe the current configuration. */
    const int wrong[4] = {0, 0, 0, 1};
    rq.rank_class = wrong;
    ck_assert_int_eq(xmpi_model_predict(&m, &rq, &out), XMPI_MODEL_EARG);
    rq.rank_class = NULL;
    ck_assert_int_eq(xmpi_model_predict(&m, &rq, &out), XMPI_MODEL_EARG);
}
END_TEST

START_TEST(test_predict_errors)
{
    struct xmpi_model m;
    struct xmpi_interval s;
    struct xmpi_rank_record r[2];
    jacobi_like(&m, &s, r);
    const int cur[1] = {2}, cand[1] = {4}, zero[1] = {0}, neg[1] = {-1};
    struct xmpi_predict_request rq = {.interval = &s, .current = cur, .candidate = cand};
    struct xmpi_prediction out;
    memset(&out, 0x5a, sizeof out);
    struct xmpi_prediction before;
    memcpy(&before, &out, sizeof out);
    ck_assert_int_eq(xmpi_model_predict(NULL, &rq, &out), XMPI_MODEL_EARG);
    ck_assert_int_eq(xmpi_model_predict(&m, NULL, &out), XMPI_MODEL_EARG);
    ck_assert_int_eq(xmpi_model_predict(&m, &rq, NULL), XMPI_MODEL_EARG);
    rq.candidate = zero;
    ck_assert_int_eq(xmpi_model_predict(&m, &rq, &out), XMPI_MODEL_EARG);
    rq.candidate = neg;
    ck_assert_int_eq(xmpi_model_predict(&m, &rq, &out), XMPI_MODEL_EARG);
    rq.candidate = cand;
    rq.current = NULL;
    ck_assert_int_eq(xmpi_model_predict(&m, &rq, &out), XMPI_MODEL_EARG);
    rq.current = cur;
    rq.interval = NULL;
    ck_assert_int_eq(xmpi_model_predict(&m, &rq, &out), XMPI_MODEL_EARG);
    rq.interval = &s;
    /* An interval the model has not taken in. */
    s.index = 2;
    ck_assert_int_eq(xmpi_model_predict(&m, &rq, &out), XMPI_MODEL_ESTATE);
    s.index = 1;
    /* No power known. */
    m.cls[0].power = 0;
    ck_assert_int_eq(xmpi_model_predict(&m, &rq, &out), XMPI_MODEL_ENODATA);
    ck_assert(!memcmp(&out, &before, sizeof out));

    /* add_class refuses what it cannot hold. */
    ck_assert_int_eq(xmpi_model_add_class(&m, "node", 1), XMPI_MODEL_EARG);
    ck_assert_int_eq(xmpi_model_add_class(&m, "a b", 1), XMPI_MODEL_EARG);
    ck_assert_int_eq(xmpi_model_add_class(&m, "", 1), XMPI_MODEL_EARG);
    ck_assert_int_eq(xmpi_model_add_class(&m, "x", -1), XMPI_MODEL_EARG);
    ck_assert_int_eq(xmpi_model_add_class(&m, NULL, 1), XMPI_MODEL_EARG);
    for (int i = 1; i < XMPI_MODEL_CLASSES_MAX; i++) {
        char name[16];
        snprintf(name, sizeof name, "c%d", i);
        ck_assert_int_eq(xmpi_model_add_class(&m, name, 1), i);
    }
    ck_assert_int_eq(xmpi_model_add_class(&m, "one-too-many", 1), XMPI_MODEL_EARG);
}
END_TEST

Suite *predict_suite(void)
{
    Suite *s = suite_create("predict");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_comm_replay);
    tcase_add_test(tc, test_lambda);
    tcase_add_test(tc, test_lambda_series);
    tcase_add_test(tc, test_extrapolation);
    tcase_add_test(tc, test_profile_correction);
    tcase_add_test(tc, test_class_power);
    tcase_add_test(tc, test_power_measurement);
    tcase_add_test(tc, test_comp_time);
    tcase_add_test(tc, test_more_processes_never_slower);
    tcase_add_test(tc, test_reconfig);
    tcase_add_test(tc, test_redist_dense_and_vector);
    tcase_add_test(tc, test_redist_sparse);
    tcase_add_test(tc, test_redist_invalid);
    tcase_add_test(tc, test_predict_entry);
    tcase_add_test(tc, test_predict_mixed_link);
    tcase_add_test(tc, test_predict_remove_layout);
    tcase_add_test(tc, test_predict_errors);
    suite_add_tcase(s, tc);
    return s;
}
