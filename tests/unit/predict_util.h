/* Shared by the test_predict_*.c suites (models/predict.c): the network the values are worked
 * out for, synthetic intervals and ops, a model on that network, and a model that has measured
 * four classes. */
#ifndef XMPIR_TESTS_UNIT_PREDICT_UTIL_H
#define XMPIR_TESTS_UNIT_PREDICT_UTIL_H

#include <check.h>
#include <string.h>

#include "../../models/predict.h"
#include "near.h"

static const struct xmpi_hockney H = {1e-5, 1e-9, 1e-9, 0, 0, 0, 0};
static const double A = 1e-5, B = 1e-9, G = 1e-9;

static inline void interval_init(struct xmpi_interval *s, int index, int nprocs,
                                 double iterations, double work_sum)
{
    memset(s, 0, sizeof *s);
    s->index = index;
    s->nprocs = nprocs;
    s->iterations = iterations;
    s->work_sum = work_sum;
}

/* One op as every rank did it: calls and time per rank, bytes per call, communicator q. */
static inline void set_op(struct xmpi_interval *s, int op, double calls, double bytes,
                          double q, double time)
{
    s->op[op].calls = calls * s->nprocs;
    s->op[op].bytes = bytes * calls * s->nprocs;
    s->op[op].procs = q * calls * s->nprocs;
    s->op[op].time = time * s->nprocs;
}

static inline void model_with_net(struct xmpi_predict_model *m, int spawn_group)
{
    struct xmpi_calibration cal;
    xmpi_calibration_defaults(&cal);
    cal.net = H;
    xmpi_predict_init(m, &cal, spawn_group);
}

/* Four classes: a (speed 1) and b (speed 2) measured at 100 and 300 per second, d
 * declared 4 times as fast as a and never measured, c with no declared speed. */
static inline void four_classes(struct xmpi_predict_model *m)
{
    model_with_net(m, 0);
    ck_assert_int_eq(xmpi_predict_add_class(m, "a", 1), 0);
    ck_assert_int_eq(xmpi_predict_add_class(m, "b", 2), 1);
    ck_assert_int_eq(xmpi_predict_add_class(m, "c", 0), 2);
    ck_assert_int_eq(xmpi_predict_add_class(m, "d", 4), 3);
    struct xmpi_rank_record r[3];
    memset(r, 0, sizeof r);
    r[0].work = 1000, r[0].t_real = 12, r[0].comm_time = 2;   /* 100 / s */
    r[1].work = 2000, r[1].t_real = 11, r[1].comm_time = 1;   /* 200 / s */
    r[2].work = 4000, r[2].t_real = 11, r[2].comm_time = 1;   /* 400 / s */
    struct xmpi_interval s;
    interval_init(&s, 1, 3, 10, 7000);
    s.ranks = r;
    const int rank_class[3] = {0, 1, 1};
    ck_assert_int_eq(xmpi_predict_observe(m, &s, rank_class), 0);
}

#endif
