/* The computational prediction model (FLEX-MPI 5.3): computation, communication, process
 * reconfiguration and data redistribution times of the next interval for a candidate
 * configuration. Pure functions over plain structs; no MPI, no globals. */
#ifndef XMPIR_MODELS_PREDICT_H
#define XMPIR_MODELS_PREDICT_H

#include "../io/calibration.h"
#include "hockney.h"
#include "../io/interval.h"

/* K, the intervals the work extrapolation fits a line through (see predict.c). */
#define XMPIR_MODEL_HISTORY 4
#define XMPIR_MODEL_CLASSES_MAX XMPIR_CAL_CLASSES_MAX
#define XMPIR_MODEL_SIZES 65   /* sizes whose measured communication is kept: 1..64 */

/* ---- registered structures and partitions, as the redistribution sees them */

enum xmpi_struct_kind { XMPIR_STRUCT_VECTOR, XMPIR_STRUCT_DENSE, XMPIR_STRUCT_SPARSE };

/* One registered structure. Rows are the distributed dimension (columns for CSC). */
struct xmpi_struct_desc {
    int kind;             /* enum xmpi_struct_kind */
    int replicated;       /* 0: XMPI_DISTRIBUTED (Alltoallv), 1: XMPI_REPLICATED (Allgatherv) */
    double elem_size;     /* bytes of one element (sparse: of one value of A) */
    double rows;          /* global rows; must equal the partition's total */
    double row_len;       /* dense: elements per row */
    double nnz;           /* sparse: nonzeros of the whole matrix */
    double index_size;    /* sparse: bytes of one IA/JA entry */
};

/* Rows per process: process i holds [displ[i], displ[i] + count[i]). Indexed by process
 * identity, not rank: in an old/new pair, the same i is the same process, a spawned process
 * has an index past the old partition's end, and a removed one has count 0 in the new. An
 * index past a partition's end holds nothing in it. */
struct xmpi_partition {
    int nprocs;
    const long *count;
    const long *displ;
    /* Optional, on the partition a move starts from: the bytes of the buffers each process
     * keeps from earlier moves (--xmpi-redist-spare), XMPIR_SPARE_SLOTS per process, 0 for an
     * empty slot; NULL: none. A buffer the move takes from them is memory already mapped,
     * not fresh (xmpi_predict_redist). */
    const double *spare;
};

/* ---- model state */

struct xmpi_predict_class {
    char name[XMPIR_NAME_MAX];
    double speed;   /* declared speed relative to the other classes; 0: not declared */
    double power;   /* measured work per second of one process; 0: never measured */
};

struct xmpi_predict_model {
    struct xmpi_calibration cal;
    int spawn_group;                  /* the job's spawn mode: 1 group, 0 single */
    int spawn_async;                  /* 1: spawns run beside the computation, and the job
                                       * pays only their join (calibration's spawn_join) */
    int nclasses;
    struct xmpi_predict_class cls[XMPIR_MODEL_CLASSES_MAX];
    int nhist;                        /* the last nhist intervals, oldest first */
    double hist_index[XMPIR_MODEL_HISTORY];
    double hist_work[XMPIR_MODEL_HISTORY];   /* work per iteration */
    const double *profile;            /* irregular mode: work per iteration of interval i at */
    int nprofile;                     /* profile[i - 1], from an earlier run; not owned */
    /* What the job measured of its own reconfigurations (xmpi_predict_learn): the mean per
     * process of each kind (a spawn's per process spawned, a removal's per process of the job
     * before it beyond the first: xmpi_predict_reconfig), and the mean fixed cost of a move (measured minus the transfer
     * priced by the network), kept apart for the move after a spawn [0] (it waits for the new
     * processes' start-up), after a removal [1] and alone [2]. n = 0: none yet, the
     * calibration's costs stand. */
    struct {
        double spawn, remove, redist_fixed[3], lag;
        int nspawn, nremove, nredist[3], nlag;
        double comp_k;   /* xmpi_predict_learn_comp: ln(measured / predicted computation) per
                          * process the job gained (the mean over its actions) */
        int ncomp;
        /* xmpi_predict_learn_warmup, per kind of action (0 spawn, 1 removal), from the first
         * interval after it and the next: the mean of ln(first / next) of the computation,
         * and of first - next of the communication per iteration (seconds). */
        double warm_comp[2], warm_comm[2];
        int nwarm_comp[2], nwarm_comm[2];
    } learned;
    /* The lambda last measured over each link (0: one spawn's processes, 1: processes of
     * several spawns talking across the `spawned` link); seen 0: never measured. */
    double link_lambda[2];
    int link_seen[2];
    /* Communication per iteration measured over each link at each size the job ran at (index:
     * processes, below XMPIR_MODEL_SIZES), from its whole intervals (observe_link), waiting
     * included; 0: never measured. A size met before is priced by what it took there. */
    double size_comm[2][XMPIR_MODEL_SIZES];
    /* The load balancer's tolerance, --xmpi-lb-th1 as a fraction (0: none): it leaves an
     * imbalance of up to this share of the slowest process's compute time. A job of 1
     * process measures no waiting; its first larger configuration is priced with the mean
     * wait of that tolerance, tolerance / 4 of the computation (xmpi_predict_interval). */
    double lb_tolerance;
};

/* cal NULL: the defaults. */
void xmpi_predict_init(struct xmpi_predict_model *m, const struct xmpi_calibration *cal, int spawn_group);
/* Adds a node class; its power starts as the calibration's for that name (or 0). Returns
 * the class index, or XMPIR_MODEL_EARG (bad name, duplicate, speed < 0, table full). */
int xmpi_predict_add_class(struct xmpi_predict_model *m, const char *name, double speed);
/* Irregular mode: the work per iteration of each interval of an earlier run (n entries,
 * interval 1 first), kept by pointer. NULL/0 returns to extrapolation. */
int xmpi_predict_set_profile(struct xmpi_predict_model *m, const double *work_per_iter, int n);
/* Takes in one interval: its work per iteration joins the history, and with rank_class
 * (the class index of each of s->nprocs ranks; may be NULL) and s->ranks the classes'
 * powers are measured anew. */
int xmpi_predict_observe(struct xmpi_predict_model *m, const struct xmpi_interval *s,
                       const int *rank_class);

/* The interval s (already observed, a whole one: not the new processes' first) ran on one
 * spawn's processes (mixed 0) or on processes of several (mixed 1): its lambda is kept for
 * that link, and its communication per iteration for that link and size (size_comm). A
 * candidate on the other link is then predicted with that link's lambda instead of the
 * current one: the measured waiting differs between them (a CG on 2 processes of one spawn
 * waited 0.6 ms per iteration, on 4 of two spawns 10 ms). */
int xmpi_predict_observe_link(struct xmpi_predict_model *m, const struct xmpi_interval *s, int mixed);

/* ---- the parts of the prediction */

/* Mean seconds a rank spent in profiled calls during the interval. */
double xmpi_interval_comm_time(const struct xmpi_interval *s);
/* Communication time of one rank over an interval like s, replayed on p processes with
 * the Hockney costs (no lambda). */
int xmpi_predict_comm(const struct xmpi_interval *s, const struct xmpi_hockney *h, int p,
                      double *t);
/* Eq. 5.4: estimated / measured of the last interval; 1 when either is not positive. The
 * prediction is DIVIDED by it (predict.c says why). */
double xmpi_predict_lambda(double estimated, double measured);
/* Work per iteration of interval `next`: the profile times the last interval's
 * measured/profiled ratio where the profile covers both, else the extrapolation. */
int xmpi_predict_work(const struct xmpi_predict_model *m, int next, double *work_per_iter);
/* Power of one process of class c: measured; else its declared speed times the mean
 * measured power per unit of speed; else the mean measured power. */
int xmpi_predict_class_power(const struct xmpi_predict_model *m, int c, double *power);
/* work / (sum over classes of counts[c] x power of c): counts has m->nclasses entries. */
int xmpi_predict_comp(const struct xmpi_predict_model *m, double work, const int *counts, double *t);

struct xmpi_reconfig {
    int nspawn, nremove;
    double t_spawn, t_remove;   /* Eq. 5.6, the spawn mode's cost per process spawned; Eq. 5.7
                                 * made a cost per process of the job beyond the first
                                 * (predict.c says why) */
    double t_lag;               /* a spawn's lag (xmpi_predict_learn_lag): one per spawn */
};
int xmpi_predict_reconfig(const struct xmpi_predict_model *m, const int *current, const int *candidate,
                          struct xmpi_reconfig *out);

/* Eqs. 5.8-5.10: the time (no lambda) and the bytes that arrive at their new owners, to go
 * from partition `from` to `to` for nd structures. Identical partitions cost 0. */
int xmpi_predict_redist(const struct xmpi_hockney *h, const struct xmpi_struct_desc *d, int nd,
                        const struct xmpi_partition *from, const struct xmpi_partition *to,
                        double *bytes, double *t);

/* ---- the entry point the policies call */

struct xmpi_predict_request {
    const struct xmpi_interval *interval;   /* the last interval, already observed */
    const int *current;     /* processes per class now (m->nclasses entries) */
    const int *candidate;   /* processes per class in the configuration to evaluate */
    /* Redistribution, optional: nstructs 0 or part.count NULL leave it out. */
    const struct xmpi_struct_desc *structs;
    int nstructs;
    struct xmpi_partition part;   /* the current partition, one entry per current rank */
    const int *rank_class;        /* the class of each current rank (part.nprocs entries) */
    /* The new partition by process identity (see struct xmpi_partition); NULL: the model
     * lays it out as the scheduler and the load balancer would (see predict.c). */
    const struct xmpi_partition *next;
    /* 1 when the configuration (now, or the candidate) holds processes that different spawns
     * started (mpirun's count as one): their messages cross the calibration's `spawned` link,
     * priced for every operation, since a collective waits for its slowest link. */
    int mixed_now, mixed_next;
};

struct xmpi_prediction {
    int nprocs;          /* processes of the candidate */
    double iterations;   /* the interval predicted has as many as the last one */
    double work;         /* predicted work of the interval */
    double lambda;       /* the communication correction applied (divided by): the last
                          * interval's, or the candidate link's last (observe_link); 1 for
                          * a link never measured, where the waiting is added instead */
    double t_comp;       /* Eq. 5.3, times comp_scale */
    double comp_scale;   /* exp(learned comp_k x the processes gained); 1 before any was
                          * learned, or for the current size */
    double t_comm;       /* replay / lambda */
    /* The first interval after a spawn or a removal computes slower than the ones after it
     * (the new processes' and the new blocks' warm-up), and its ranks wait longer for each
     * other: t_comp and t_comm are the settled interval's, the policies' rate for the rest of
     * the run; the first interval computes warm_comp x t_comp and communicates t_comm +
     * warm_comm seconds (xmpi_predict_learn_warmup; 1 and 0 before the job measured an action
     * of that kind; never below 0 in all). t_warm is what the first interval takes beyond the
     * settled one. A spawn's t_lag already holds its warm-up, so only a removal adds t_warm to
     * t_total. */
    double warm_comp, warm_comm, t_warm;
    double t_spawn, t_remove;
    double t_lag;        /* what the iterations lose to a spawn beyond it (not in the thesis):
                          * the job's measure (xmpi_predict_learn_lag), else the calibration's
                          * spawn_lag; 0 without a spawn */
    double t_redist;     /* Eq. 5.8, without lambda (predict.c says why), plus the move's
                          * fixed cost the job measured (redist_fixed, in t_redist) */
    double redist_fixed;
    double redist_bytes;
    int nspawn, nremove;
    double t_total;      /* Eq. 5.2, plus t_lag (a spawn) or t_warm (a removal) */
};

int xmpi_predict_interval(const struct xmpi_predict_model *m, const struct xmpi_predict_request *rq,
                       struct xmpi_prediction *out);

/* After an action predicted as p, the seconds it measured: the reconfiguration (spawn or
 * removal, without the move) and the move. The calibration prices a spawn and a removal by
 * the process, measured by xmpi-calibrate on small jobs; in a real job they also hold the new
 * processes' start-up and the job's size (a removal took 0.2 ms on 2 processes and 18-29 ms in
 * the calibration). From the first measured action on, the job's own mean per process (a
 * removal: per process of the job before it, beyond the first) is the price of that kind, and the mean of (measured move - the transfer as priced) is added to
 * every later move as its fixed cost (allocation, description, waiting for new processes).
 * Negative or non-finite measurements are refused (XMPIR_MODEL_EARG); a kind the action did
 * not have is left as it was. */
int xmpi_predict_learn(struct xmpi_predict_model *m, const struct xmpi_prediction *p, double meas_reconf,
                     double meas_redist);

/* After a spawn, the seconds its iterations lost beyond the spawn itself and the move (the
 * runtime measures them: libxmpi/predict.c): the new processes' first interval against the
 * next, and the intervals an asynchronous spawn ran beside against the one before it. A
 * spawn is priced with the mean of these from then on, instead of the calibration's
 * spawn_lag. A loss below 0 (the job ran faster) counts as 0; a non-finite one is refused
 * (XMPIR_MODEL_EARG). */
int xmpi_predict_learn_lag(struct xmpi_predict_model *m, double seconds);

/* After an action predicted as p that changed the job by delta processes (> 0 spawned, < 0
 * removed), the computation measured over as many iterations as p predicted, once the
 * action's warm-up is over: a process's power is measured on the configuration it ran in,
 * and a larger job on the same cores computes slower per process (on this 2-core machine,
 * memory and cores shared: in a make bench-amp run a C1 process computed 242-266 Mwork/s
 * beside one other process and 188-218 beside four). k = ln(measured / (p's t_comp without its comp_scale)) /
 * delta, within +-0.5, joins the mean, and every later prediction scales the computation
 * by exp(k x the processes it adds, or minus those it removes). A job whose processes do not
 * disturb each other learns k near 0. Refused (XMPIR_MODEL_EARG): delta 0, a prediction or a
 * measurement not above 0 or not finite. */
int xmpi_predict_learn_comp(struct xmpi_predict_model *m, const struct xmpi_prediction *p, int delta,
                          double measured);

/* After a spawn (kind 0) or a removal (kind 1), the seconds per iteration that the action's
 * first whole interval and the next one (same processes, nothing done between) spent
 * computing and communicating, as the model speaks of them (the mean rank). The first is the
 * warm-up: in make bench-model's runs a new process's first 40 Jacobi iterations computed 1.2-1.35 times
 * slower than its next 40, a process left alone with the freshly filled blocks of a removal
 * about 1.1 times, and the ranks waited for the slowest in proportion to no phase (2.6 times
 * the next interval's communication after a 4 -> 2 removal, 1.1 times after a 4 -> 3; make
 * bench-model). So the computation learns a factor, ln(first / next) within +-1, and the
 * communication the extra seconds per iteration, first - next (below 0 too): each joins its
 * kind's mean, and the next action of that kind predicts its first interval with them
 * (struct xmpi_prediction: warm_comp, warm_comm). Refused (XMPIR_MODEL_EARG): a kind other
 * than 0 or 1, a value negative or not finite, or no computation (comp_next not above 0). */
int xmpi_predict_learn_warmup(struct xmpi_predict_model *m, int kind, double comp_first, double comm_first,
                            double comp_next, double comm_next);

#endif
