/* models/predict.c, the entry point: a whole prediction for a candidate configuration (its
 * parts adding up), the spawned link of mixed configurations, the layout after a removal,
 * and the requests it refuses. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "predict_util.h"
#include "suites.h"

/* One class; 2 processes each did 1e6 work in 9 s of compute (power 1e6/9) over 100
 * iterations, and spent twice the model's estimate in their Allreduces (lambda 1/2). */
static void jacobi_like(struct xmpi_predict_model *m, struct xmpi_interval *s,
                        struct xmpi_rank_record r[2])
{
    model_with_net(m, 0);
    ck_assert_int_eq(xmpi_predict_add_class(m, "node", 1), 0);
    memset(r, 0, 2 * sizeof *r);
    for (int i = 0; i < 2; i++) r[i].work = 1e6, r[i].t_real = 10, r[i].comm_time = 1;
    interval_init(s, 1, 2, 100, 2e6);
    s->ranks = r;
    set_op(s, XMPIR_OP_ALLREDUCE, 100, 16, 2, 2 * 100 * (A + 16 * B + 16 * G));
    const int rank_class[2] = {0, 0};
    ck_assert_int_eq(xmpi_predict_observe(m, s, rank_class), 0);
}

START_TEST(test_predict_entry)
{
    struct xmpi_predict_model m;
    struct xmpi_interval s;
    struct xmpi_rank_record r[2];
    jacobi_like(&m, &s, r);
    const int cur[1] = {2}, cand[1] = {4};
    const long pc[2] = {50, 50}, pd[2] = {0, 50};
    const int rank_class[2] = {0, 0};
    const struct xmpi_struct_desc matrix = {XMPIR_STRUCT_DENSE, 0, 8, 100, 100, 0, 0};
    struct xmpi_predict_request rq = {
        .interval = &s, .current = cur, .candidate = cand, .structs = &matrix, .nstructs = 1,
        .part = {2, pc, pd}, .rank_class = rank_class,
    };
    struct xmpi_prediction out;
    ck_assert_int_eq(xmpi_predict_interval(&m, &rq, &out), 0);
    ck_assert_int_eq(out.nprocs, 4);
    NEAR(out.iterations, 100);
    NEAR(out.work, 2e6);
    NEAR(out.t_comp, 2e6 / (4 * (1e6 / 9)));
    NEAR(out.lambda, 0.5);
    NEAR(out.t_comm, 2 * 100 * (2 * A + 16 * 2 * B + 16 * 2 * G));
    ck_assert_int_eq(out.nspawn, 2);
    ck_assert_int_eq(out.nremove, 0);
    NEAR(out.t_spawn, 2 * XMPIR_CAL_DEFAULT_SPAWN_SINGLE);
    NEAR(out.t_remove, 0);
    /* The model lays the 4 processes out evenly: the 50 + 50 -> 25 x 4 case of
     * test_predict_redist.c. */
    NEAR(out.redist_bytes, 75 * 800);
    /* The move is not divided by lambda (1/2 here; predict.c says why). */
    NEAR(out.t_redist, 3 * A + 50 * 800 * B);
    NEAR(out.t_lag, XMPIR_CAL_DEFAULT_SPAWN_LAG);
    NEAR(out.t_total,
         out.t_comp + out.t_comm + out.t_spawn + out.t_remove + out.t_lag + out.t_redist);

    /* An explicit new partition is used as given. */
    const long nc[3] = {50, 0, 50}, nd[3] = {0, 0, 50};
    const struct xmpi_partition next = {3, nc, nd, NULL};
    rq.next = &next;
    const int three[1] = {3};
    rq.candidate = three;
    ck_assert_int_eq(xmpi_predict_interval(&m, &rq, &out), 0);
    NEAR(out.redist_bytes, 50 * 800);
    NEAR(out.t_redist, 1 * A + 50 * 800 * B);

    /* The spares the interval's records report (registry.c take_buffer: the smallest of at
     * least the block's bytes and at most twice as large). Process 0 takes [50, 100) (50 rows,
     * 40000 bytes) and process 1 [0, 30) (30 rows, 24000 bytes), each keeping none of its
     * rows, and a new process [30, 50): fresh at 7e-10 per byte, the most by process 0 (50
     * rows), unless a spare serves it. */
    m.cal.net.copy = 7e-10;
    const long wc[3] = {50, 30, 20}, wd[3] = {50, 0, 30};
    const struct xmpi_partition spread = {3, wc, wd, NULL};
    const int three_now[1] = {3};
    rq.next = &spread;
    rq.candidate = three_now;
    ck_assert_int_eq(xmpi_predict_interval(&m, &rq, &out), 0);
    const double fresh50 = out.t_redist;
    r[1].spare[2] = 40000;   /* fits process 1's 24000 bytes (at most twice), not process 0's */
    ck_assert_int_eq(xmpi_predict_interval(&m, &rq, &out), 0);
    NEAR(out.t_redist, fresh50);
    r[0].spare[7] = 40000;   /* and process 0's: the new process's 20 rows are the most */
    ck_assert_int_eq(xmpi_predict_interval(&m, &rq, &out), 0);
    NEAR(fresh50 - out.t_redist, 30 * 800 * 7e-10);
    /* Spares the caller gives on the partition stand instead of the records'. */
    const double none[2 * XMPIR_SPARE_SLOTS] = {0};
    rq.part.spare = none;
    ck_assert_int_eq(xmpi_predict_interval(&m, &rq, &out), 0);
    NEAR(out.t_redist, fresh50);
    rq.part.spare = NULL;
    memset(r[0].spare, 0, sizeof r[0].spare);
    memset(r[1].spare, 0, sizeof r[1].spare);
    m.cal.net.copy = 0;
    rq.candidate = cand;
    rq.next = NULL;

    /* Keeping the configuration: no overheads, and the measured communication back. */
    rq.candidate = cur;
    ck_assert_int_eq(xmpi_predict_interval(&m, &rq, &out), 0);
    NEAR(out.t_spawn + out.t_remove + out.t_redist + out.redist_bytes, 0);
    NEAR(out.t_comm, xmpi_interval_comm_time(&s));
    NEAR(out.t_comp, 2e6 / (2 * (1e6 / 9)));

    /* Without structures or partition: no redistribution cost. */
    rq.candidate = cand;
    rq.nstructs = 0;
    ck_assert_int_eq(xmpi_predict_interval(&m, &rq, &out), 0);
    NEAR(out.t_redist, 0);
    rq.nstructs = 1;
    rq.part.count = NULL;
    ck_assert_int_eq(xmpi_predict_interval(&m, &rq, &out), 0);
    NEAR(out.t_redist, 0);
}
END_TEST

/* Processes of two spawns talk over the calibration's spawned link: a candidate that has them
 * prices its messages and the move there; the last interval's estimate (for lambda) uses the
 * link of the configuration it ran on. */
START_TEST(test_predict_mixed_link)
{
    struct xmpi_predict_model m;
    struct xmpi_interval s;
    struct xmpi_rank_record r[2];
    jacobi_like(&m, &s, r);
    const double A2 = 10 * A, B2 = 3 * B;
    m.cal.spawned = (struct xmpi_hockney){A2, B2, G, 0, 0, 0, 0};
    const int cur[1] = {2}, cand[1] = {4};
    const long pc[2] = {50, 50}, pd[2] = {0, 50};
    const int rank_class[2] = {0, 0};
    const struct xmpi_struct_desc matrix = {XMPIR_STRUCT_DENSE, 0, 8, 100, 100, 0, 0};
    struct xmpi_predict_request rq = {
        .interval = &s, .current = cur, .candidate = cand, .structs = &matrix, .nstructs = 1,
        .part = {2, pc, pd}, .rank_class = rank_class, .mixed_next = 1,
    };
    struct xmpi_prediction out;
    ck_assert_int_eq(xmpi_predict_interval(&m, &rq, &out), 0);
    /* The spawned link was never measured: its transfers as priced (an Allreduce of 16 bytes
     * on 4: 2 rounds of alpha + n beta + n gamma, 100 calls) plus the waiting measured now
     * (the measurement, twice the net's estimate, minus that estimate). */
    NEAR(out.lambda, 1);
    NEAR(out.t_comm, 100 * (2 * A2 + 16 * 2 * B2 + 16 * 2 * G) + 100 * (A + 16 * B + 16 * G));
    NEAR(out.t_redist, 3 * A2 + 50 * 800 * B2);
    /* 2 processes measured their waiting: the balancer's tolerance does not replace it. */
    m.lb_tolerance = 0.1;
    ck_assert_int_eq(xmpi_predict_interval(&m, &rq, &out), 0);
    NEAR(out.t_comm, 100 * (2 * A2 + 16 * 2 * B2 + 16 * 2 * G) + 100 * (A + 16 * B + 16 * G));
    m.lb_tolerance = 0;

    rq.mixed_now = 1;
    ck_assert_int_eq(xmpi_predict_interval(&m, &rq, &out), 0);
    double est = 100 * (A2 + 16 * B2 + 16 * G), meas = 2 * 100 * (A + 16 * B + 16 * G);
    NEAR(out.lambda, est / meas);
    NEAR(out.t_comm, 100 * (2 * A2 + 16 * 2 * B2 + 16 * 2 * G) / (est / meas));
    /* Neither side mixed: the net, as before. */
    rq.mixed_now = rq.mixed_next = 0;
    ck_assert_int_eq(xmpi_predict_interval(&m, &rq, &out), 0);
    NEAR(out.t_redist, 3 * A + 50 * 800 * B);
}
END_TEST

/* From 1 process, which waits for nobody, the first larger configuration on a link never
 * measured waits as the balancer's tolerance allows: lb_tolerance / 4 of its computation, on
 * top of its transfers; nothing without a tolerance, and a job of 2 processes carries the
 * waiting it measured instead (test_predict_mixed_link). */
START_TEST(test_predict_from_one_process)
{
    struct xmpi_predict_model m;
    model_with_net(&m, 0);
    const double A2 = 10 * A, B2 = 3 * B;
    m.cal.spawned = (struct xmpi_hockney){A2, B2, G, 0, 0, 0, 0};
    ck_assert_int_eq(xmpi_predict_add_class(&m, "node", 1), 0);
    struct xmpi_rank_record r[1];
    memset(r, 0, sizeof r);
    r[0].work = 1e6, r[0].t_real = 10, r[0].comm_time = 0.001;
    struct xmpi_interval s;
    interval_init(&s, 1, 1, 100, 1e6);
    s.ranks = r;
    set_op(&s, XMPIR_OP_ALLREDUCE, 100, 16, 1, 0.001);
    const int rank_class[1] = {0};
    ck_assert_int_eq(xmpi_predict_observe(&m, &s, rank_class), 0);
    const int cur[1] = {1}, cand[1] = {2};
    struct xmpi_predict_request rq = {.interval = &s, .current = cur, .candidate = cand,
                                      .mixed_now = 0, .mixed_next = 1};
    struct xmpi_prediction out;
    /* An Allreduce of 16 bytes on 2 processes: one round of alpha + n beta + n gamma. */
    double raw2 = 100 * (A2 + 16 * B2 + 16 * G);
    ck_assert_int_eq(xmpi_predict_interval(&m, &rq, &out), 0);
    NEAR(out.t_comp, 1e6 / (2 * (1e6 / (10 - 0.001))));
    /* No tolerance: what 1 process spent in its calls (0.001 s, its estimate 0 on 1 process)
     * is the waiting carried. */
    NEAR(out.t_comm, raw2 + 0.001);
    m.lb_tolerance = 0.1;
    ck_assert_int_eq(xmpi_predict_interval(&m, &rq, &out), 0);
    NEAR(out.t_comm, raw2 + 0.1 / 4 * (1e6 / (2 * (1e6 / (10 - 0.001)))));
    /* A size measured before over that link is priced by what it took there. */
    m.size_comm[1][2] = 0.002;
    ck_assert_int_eq(xmpi_predict_interval(&m, &rq, &out), 0);
    NEAR(out.t_comm, 0.002 * 100);
}
END_TEST

/* Each link keeps the lambda measured over it: a candidate on the other link than the current
 * one is divided by that link's lambda once it has been seen, by the current one before; a
 * candidate on the current link always by the current one. */
START_TEST(test_predict_link_lambda)
{
    struct xmpi_predict_model m;
    struct xmpi_interval s;
    struct xmpi_rank_record r[2];
    jacobi_like(&m, &s, r);
    const double A2 = 10 * A, B2 = 3 * B;
    m.cal.spawned = (struct xmpi_hockney){A2, B2, G, 0, 0, 0, 0};
    const int cur[1] = {2}, cand[1] = {4};
    struct xmpi_predict_request rq = {.interval = &s, .current = cur, .candidate = cand,
                                      .mixed_now = 0, .mixed_next = 1};
    struct xmpi_prediction out;
    double raw4 = 100 * (2 * A2 + 16 * 2 * B2 + 16 * 2 * G);
    ck_assert_int_eq(xmpi_predict_interval(&m, &rq, &out), 0);
    NEAR(out.lambda, 1);   /* nothing seen over the spawned link: the waiting added */
    NEAR(out.t_comm, raw4 + 100 * (A + 16 * B + 16 * G));
    /* The same interval as if it had run mixed: its estimate over the spawned link against
     * the same measurement. */
    ck_assert_int_eq(xmpi_predict_observe_link(&m, &s, 1), 0);
    double lam1 = (100 * (A2 + 16 * B2 + 16 * G)) / (2 * 100 * (A + 16 * B + 16 * G));
    ck_assert_int_eq(m.link_seen[1], 1);
    NEAR(m.link_lambda[1], lam1);
    ck_assert_int_eq(xmpi_predict_interval(&m, &rq, &out), 0);
    NEAR(out.lambda, lam1);
    NEAR(out.t_comm, raw4 / lam1);
    /* Staying on the current link ignores the other link's lambda. */
    rq.mixed_next = 0;
    ck_assert_int_eq(xmpi_predict_interval(&m, &rq, &out), 0);
    NEAR(out.lambda, 0.5);
    /* Bad input. */
    ck_assert_int_eq(xmpi_predict_observe_link(NULL, &s, 0), XMPIR_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_observe_link(&m, NULL, 0), XMPIR_MODEL_EARG);
}
END_TEST

/* A size the job ran at before, over the same link, is priced by the communication it
 * measured there, waiting included; a size never met, the current size and the other link as
 * before. */
START_TEST(test_predict_size_seen)
{
    struct xmpi_predict_model m;
    struct xmpi_interval s, s4;
    struct xmpi_rank_record r[2];
    jacobi_like(&m, &s, r);
    const int cur[1] = {2}, four[1] = {4}, three[1] = {3}, two[1] = {2};
    struct xmpi_predict_request rq = {.interval = &s, .current = cur, .candidate = four};
    struct xmpi_prediction before4, before3, out;
    ck_assert_int_eq(xmpi_predict_interval(&m, &rq, &before4), 0);
    rq.candidate = three;
    ck_assert_int_eq(xmpi_predict_interval(&m, &rq, &before3), 0);
    /* Earlier, on 4 processes of one spawn: 0.3 s per rank in 50 Allreduces over 50
     * iterations, far more than their replay. */
    interval_init(&s4, 0, 4, 50, 4e6);
    set_op(&s4, XMPIR_OP_ALLREDUCE, 50, 16, 4, 0.3);
    ck_assert_int_eq(xmpi_predict_observe_link(&m, &s4, 0), 0);
    NEAR(m.size_comm[0][4], 0.3 / 50);
    rq.candidate = four;
    ck_assert_int_eq(xmpi_predict_interval(&m, &rq, &out), 0);
    NEAR(out.t_comm, 0.3 / 50 * 100);   /* the current interval's 100 iterations */
    ck_assert(fabs(before4.t_comm - out.t_comm) > 0.1 * out.t_comm);
    NEAR(out.t_total, out.t_comp + out.t_comm + out.t_spawn + out.t_remove + out.t_lag +
                          out.t_redist);
    rq.candidate = three;
    ck_assert_int_eq(xmpi_predict_interval(&m, &rq, &out), 0);
    NEAR(out.t_comm, before3.t_comm);
    /* The current size: what it measures now (2 x the replay of 100 Allreduces on 2). */
    rq.candidate = two;
    ck_assert_int_eq(xmpi_predict_interval(&m, &rq, &out), 0);
    NEAR(out.t_comm, 2 * 100 * (A + 16 * B + 16 * G));
    /* The spawned link was never measured on 4: not priced from the one-spawn figure. */
    rq.candidate = four;
    rq.mixed_next = 1;
    ck_assert_int_eq(xmpi_predict_interval(&m, &rq, &out), 0);
    ck_assert(fabs(out.t_comm - 0.3 / 50 * 100) > 0.1 * out.t_comm);
}
END_TEST

/* Removing: the most recently spawned process of the class goes, the others share the rows
 * by power as the library splits them (boundaries at round(100/3) and round(200/3)).
 * Classes a, b at equal power; ranks a b a b with 25 rows each; one a leaves: rank 2 (not
 * 0), and 0, 1, 3 get [0,33), [33,67), [67,100): 8 + 17 + 8 rows arrive. */
START_TEST(test_predict_remove_layout)
{
    struct xmpi_predict_model m;
    model_with_net(&m, 1);
    xmpi_predict_add_class(&m, "a", 1);
    xmpi_predict_add_class(&m, "b", 1);
    m.cls[0].power = m.cls[1].power = 1;
    struct xmpi_interval s;
    interval_init(&s, 4, 4, 10, 40);
    ck_assert_int_eq(xmpi_predict_observe(&m, &s, NULL), 0);
    const int cur[2] = {2, 2}, cand[2] = {1, 2}, rank_class[4] = {0, 1, 0, 1};
    const long pc[4] = {25, 25, 25, 25}, pd[4] = {0, 25, 50, 75};
    const struct xmpi_struct_desc v = {XMPIR_STRUCT_VECTOR, 0, 1, 100, 0, 0, 0};
    struct xmpi_predict_request rq = {
        .interval = &s, .current = cur, .candidate = cand, .structs = &v, .nstructs = 1,
        .part = {4, pc, pd}, .rank_class = rank_class,
    };
    struct xmpi_prediction out;
    ck_assert_int_eq(xmpi_predict_interval(&m, &rq, &out), 0);
    ck_assert_int_eq(out.nremove, 1);
    NEAR(out.t_remove, XMPIR_CAL_DEFAULT_REMOVE);
    NEAR(out.redist_bytes, 8 + 17 + 8);
    /* The busiest: process 2 sends its 25 rows to 1 and 3; process 1 talks to 0 and 2. */
    NEAR(out.t_redist, 2 * A + 25 * B);

    /* The rank classes must describe the current configuration. */
    const int wrong[4] = {0, 0, 0, 1};
    rq.rank_class = wrong;
    ck_assert_int_eq(xmpi_predict_interval(&m, &rq, &out), XMPIR_MODEL_EARG);
    rq.rank_class = NULL;
    ck_assert_int_eq(xmpi_predict_interval(&m, &rq, &out), XMPIR_MODEL_EARG);
}
END_TEST

/* The computation's scale with the job's size, learned from actions: k = ln(measured /
 * predicted) per process gained, its mean applied as exp(k x processes gained) to every
 * later candidate (removals too, and not the current size); the factor a prediction carried
 * is taken out before learning from it; bad measurements are refused. */
START_TEST(test_predict_comp_scale)
{
    struct xmpi_predict_model m;
    struct xmpi_interval s;
    struct xmpi_rank_record r[2];
    jacobi_like(&m, &s, r);
    const int cur[1] = {2}, four[1] = {4}, one[1] = {1};
    struct xmpi_predict_request rq = {.interval = &s, .current = cur, .candidate = four};
    struct xmpi_prediction p4, p;
    ck_assert_int_eq(xmpi_predict_interval(&m, &rq, &p4), 0);
    NEAR(p4.comp_scale, 1);
    double base4 = 2e6 / (4 * (1e6 / 9));
    NEAR(p4.t_comp, base4);
    ck_assert_int_eq(xmpi_predict_learn_comp(&m, &p4, 0, 1), XMPIR_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_learn_comp(&m, &p4, 2, 0), XMPIR_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_learn_comp(&m, &p4, 2, NAN), XMPIR_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_learn_comp(NULL, &p4, 2, 1), XMPIR_MODEL_EARG);
    ck_assert_int_eq(m.learned.ncomp, 0);
    /* 2 -> 4 measured 1.21 times the prediction: k = ln(1.21) / 2 = ln(1.1). */
    ck_assert_int_eq(xmpi_predict_learn_comp(&m, &p4, 2, 1.21 * base4), 0);
    ck_assert_int_eq(m.learned.ncomp, 1);
    NEAR(m.learned.comp_k, log(1.1));
    ck_assert_int_eq(xmpi_predict_interval(&m, &rq, &p), 0);
    NEAR(p.comp_scale, 1.21);
    NEAR(p.t_comp, 1.21 * base4);
    rq.candidate = one;   /* a removal of 1: 1/1.1 */
    ck_assert_int_eq(xmpi_predict_interval(&m, &rq, &p), 0);
    NEAR(p.comp_scale, 1 / 1.1);
    NEAR(p.t_comp, 2e6 / (1e6 / 9) / 1.1);
    rq.candidate = cur;   /* the current size: unscaled */
    ck_assert_int_eq(xmpi_predict_interval(&m, &rq, &p), 0);
    NEAR(p.comp_scale, 1);
    /* A prediction that carried a factor is learned from without it: predicted 1.21 x base
     * (scale 1.21), measured exactly base: k = ln(1) / 2 = 0, and the mean halves. */
    rq.candidate = four;
    ck_assert_int_eq(xmpi_predict_interval(&m, &rq, &p), 0);
    ck_assert_int_eq(xmpi_predict_learn_comp(&m, &p, 2, base4), 0);
    NEAR(m.learned.comp_k, log(1.1) / 2);
    /* An outlier is held to +-0.5 per process. */
    ck_assert_int_eq(xmpi_predict_learn_comp(&m, &p4, 1, 100 * base4), 0);
    NEAR(m.learned.comp_k, (log(1.1) + 0 + 0.5) / 3);
}
END_TEST

/* The first interval after an action, learned per kind: ln(first / next) of the computation
 * and first - next of the communication per iteration join the kind's means; the next action
 * of that kind predicts its first interval with them, the settled t_comp and t_comm stay the
 * rate; a removal's t_total carries the difference, a spawn's does not (its lag holds it);
 * the other kind and keeping the size are untouched; the communication never goes below 0;
 * bad input is refused and changes nothing. */
START_TEST(test_predict_warmup)
{
    struct xmpi_predict_model m;
    struct xmpi_interval s;
    struct xmpi_rank_record r[2];
    jacobi_like(&m, &s, r);
    const int cur[1] = {2}, four[1] = {4}, one[1] = {1};
    struct xmpi_predict_request rq = {.interval = &s, .current = cur, .candidate = four};
    struct xmpi_prediction b4, b1, p;
    ck_assert_int_eq(xmpi_predict_interval(&m, &rq, &b4), 0);
    NEAR(b4.warm_comp, 1);
    NEAR(b4.warm_comm, 0);
    NEAR(b4.t_warm, 0);
    rq.candidate = one;
    ck_assert_int_eq(xmpi_predict_interval(&m, &rq, &b1), 0);
    NEAR(b1.t_warm, 0);
    double it = b4.iterations;
    ck_assert(it > 0);

    ck_assert_int_eq(xmpi_predict_learn_warmup(NULL, 0, 2, 1, 1, 1), XMPIR_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_learn_warmup(&m, 2, 2, 1, 1, 1), XMPIR_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_learn_warmup(&m, -1, 2, 1, 1, 1), XMPIR_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_learn_warmup(&m, 0, 2, 1, 0, 1), XMPIR_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_learn_warmup(&m, 0, -2, 1, 1, 1), XMPIR_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_learn_warmup(&m, 0, 2, NAN, 1, 1), XMPIR_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_learn_warmup(&m, 0, 2, 1, 1, INFINITY), XMPIR_MODEL_EARG);
    ck_assert_int_eq(m.learned.nwarm_comp[0] + m.learned.nwarm_comm[0], 0);

    /* Spawns: computation 1.3 then 1.1 times the next interval (the mean of the logs),
     * communication 0.01 then 0.03 s per iteration more. */
    ck_assert_int_eq(xmpi_predict_learn_warmup(&m, 0, 0.13, 0.02, 0.1, 0.01), 0);
    ck_assert_int_eq(xmpi_predict_learn_warmup(&m, 0, 0.11, 0.04, 0.1, 0.01), 0);
    ck_assert_int_eq(m.learned.nwarm_comp[0], 2);
    ck_assert_int_eq(m.learned.nwarm_comm[0], 2);
    double wc = sqrt(1.3 * 1.1);
    rq.candidate = four;
    ck_assert_int_eq(xmpi_predict_interval(&m, &rq, &p), 0);
    NEAR(p.warm_comp, wc);
    NEAR(p.warm_comm, 0.02 * it);
    NEAR(p.t_comp, b4.t_comp);
    NEAR(p.t_comm, b4.t_comm);
    NEAR(p.t_warm, b4.t_comp * (wc - 1) + 0.02 * it);
    NEAR(p.t_total, b4.t_total);
    /* Removals learned nothing yet; keeping the size is no action. */
    rq.candidate = one;
    ck_assert_int_eq(xmpi_predict_interval(&m, &rq, &p), 0);
    NEAR(p.warm_comp, 1);
    NEAR(p.warm_comm, 0);
    NEAR(p.t_total, b1.t_total);
    rq.candidate = cur;
    ck_assert_int_eq(xmpi_predict_interval(&m, &rq, &p), 0);
    NEAR(p.warm_comp, 1);
    NEAR(p.t_warm, 0);

    /* A removal: its first interval computed 1.1 times and waited 0.001 s per iteration
     * more. */
    ck_assert_int_eq(xmpi_predict_learn_warmup(&m, 1, 0.11, 0.003, 0.1, 0.002), 0);
    rq.candidate = one;
    ck_assert_int_eq(xmpi_predict_interval(&m, &rq, &p), 0);
    NEAR(p.warm_comp, 1.1);
    NEAR(p.warm_comm, 0.001 * it);
    NEAR(p.t_warm, 0.1 * b1.t_comp + 0.001 * it);
    NEAR(p.t_total, b1.t_total + 0.1 * b1.t_comp + 0.001 * it);
    /* An outlier's factor is held to e; far less waiting than there was is held to none. */
    ck_assert_int_eq(xmpi_predict_learn_warmup(&m, 1, 100, 0, 1, 1e3), 0);
    NEAR(m.learned.warm_comp[1], (log(1.1) + 1) / 2);
    NEAR(m.learned.warm_comm[1], (0.001 - 1e3) / 2);
    ck_assert_int_eq(xmpi_predict_interval(&m, &rq, &p), 0);
    NEAR(p.t_comm + p.warm_comm, 0);
    NEAR(p.t_warm, p.t_comp * (p.warm_comp - 1) - p.t_comm);
}
END_TEST

START_TEST(test_predict_errors)
{
    struct xmpi_predict_model m;
    struct xmpi_interval s;
    struct xmpi_rank_record r[2];
    jacobi_like(&m, &s, r);
    const int cur[1] = {2}, cand[1] = {4}, zero[1] = {0}, neg[1] = {-1};
    struct xmpi_predict_request rq = {.interval = &s, .current = cur, .candidate = cand};
    struct xmpi_prediction out;
    memset(&out, 0x5a, sizeof out);
    struct xmpi_prediction before;
    memcpy(&before, &out, sizeof out);
    ck_assert_int_eq(xmpi_predict_interval(NULL, &rq, &out), XMPIR_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_interval(&m, NULL, &out), XMPIR_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_interval(&m, &rq, NULL), XMPIR_MODEL_EARG);
    rq.candidate = zero;
    ck_assert_int_eq(xmpi_predict_interval(&m, &rq, &out), XMPIR_MODEL_EARG);
    rq.candidate = neg;
    ck_assert_int_eq(xmpi_predict_interval(&m, &rq, &out), XMPIR_MODEL_EARG);
    rq.candidate = cand;
    rq.current = NULL;
    ck_assert_int_eq(xmpi_predict_interval(&m, &rq, &out), XMPIR_MODEL_EARG);
    rq.current = cur;
    rq.interval = NULL;
    ck_assert_int_eq(xmpi_predict_interval(&m, &rq, &out), XMPIR_MODEL_EARG);
    rq.interval = &s;
    /* An interval the model has not taken in. */
    s.index = 2;
    ck_assert_int_eq(xmpi_predict_interval(&m, &rq, &out), XMPIR_MODEL_ESTATE);
    s.index = 1;
    /* No power known. */
    m.cls[0].power = 0;
    ck_assert_int_eq(xmpi_predict_interval(&m, &rq, &out), XMPIR_MODEL_ENODATA);
    ck_assert(!memcmp(&out, &before, sizeof out));

    /* add_class refuses what it cannot hold. */
    ck_assert_int_eq(xmpi_predict_add_class(&m, "node", 1), XMPIR_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_add_class(&m, "a b", 1), XMPIR_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_add_class(&m, "", 1), XMPIR_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_add_class(&m, "x", -1), XMPIR_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_add_class(&m, NULL, 1), XMPIR_MODEL_EARG);
    for (int i = 1; i < XMPIR_MODEL_CLASSES_MAX; i++) {
        char name[16];
        snprintf(name, sizeof name, "c%d", i);
        ck_assert_int_eq(xmpi_predict_add_class(&m, name, 1), i);
    }
    ck_assert_int_eq(xmpi_predict_add_class(&m, "one-too-many", 1), XMPIR_MODEL_EARG);
}
END_TEST

Suite *predict_entry_suite(void)
{
    Suite *s = suite_create("predict_entry");
    TCase *tc = tcase_create("entry");
    tcase_add_test(tc, test_predict_entry);
    tcase_add_test(tc, test_predict_mixed_link);
    tcase_add_test(tc, test_predict_from_one_process);
    tcase_add_test(tc, test_predict_link_lambda);
    tcase_add_test(tc, test_predict_size_seen);
    tcase_add_test(tc, test_predict_remove_layout);
    tcase_add_test(tc, test_predict_comp_scale);
    tcase_add_test(tc, test_predict_warmup);
    tcase_add_test(tc, test_predict_errors);
    suite_add_tcase(s, tc);
    return s;
}
