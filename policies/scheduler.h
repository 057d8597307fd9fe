/* Process scheduler: where new processes go and which ones leave, over the resource
 * pool, by balance-all or balance-occupied (FLEX-MPI 4.4). Pure functions, no MPI. */
#ifndef XMPIR_SCHEDULER_H
#define XMPIR_SCHEDULER_H

#include "../io/resources.h"
#include "../io/status.h"

enum xmpi_sched_policy { XMPIR_SCHED_BALANCE_ALL = 0, XMPIR_SCHED_BALANCE_OCCUPIED };

/* Errors (negative). */
enum {
    XMPIR_SCHED_OK = 0,
    XMPIR_SCHED_ECLASS = XMPIR_ECLASS,   /* unknown node class */
    XMPIR_SCHED_ENOPE = XMPIR_ENOPE,     /* no free PE of that class (and no oversubscription) */
    XMPIR_SCHED_ECOUNT = XMPIR_ECOUNT,   /* n < 1, or more than can be removed */
    XMPIR_SCHED_EGROUP = XMPIR_EGROUP,   /* would split a group spawned together */
    XMPIR_SCHED_EINIT = XMPIR_EINIT,     /* bad initial placement (spec, host not in pool) */
    XMPIR_SCHED_ENOMEM = XMPIR_ENOMEM,
};

/* One process of the job, in XMPI_COMM_WORLD rank order. */
struct xmpi_proc {
    int host;       /* index into pool->hosts */
    int group;      /* 0: initial process, never removable; > 0: id of its MPI_Comm_spawn */
    long order;     /* spawn sequence number; larger is more recent (initial: 0) */
};

struct xmpi_sched {
    struct xmpi_pool *pool;     /* not owned; hosts[].procs is kept up to date */
    int policy;
    int oversubscribe;          /* allow more processes than PEs on a host */
    int nprocs;
    struct xmpi_proc *procs;    /* nprocs entries (owned) */
    int next_group;
    long next_order;
};

/* Places the nprocs initial processes: rank i runs on hostnames[i]; its class comes from
 * `initial` ("C1:1,C8:2": counts in rank order, summing to nprocs) or, when NULL/"",
 * the first class listed for that host. Fails if a host or (host, class) is not in the
 * pool. Initial processes may exceed PEs (mpirun placed them); they are counted. */
int xmpi_sched_init(struct xmpi_sched *s, struct xmpi_pool *pool, int policy,
                    int oversubscribe, int nprocs, char *const hostnames[],
                    const char *initial, char *err, size_t errlen);
void xmpi_sched_free(struct xmpi_sched *s);

/* Chooses hosts for n new processes, as if placed one after the other, without changing
 * s. cls: NULL (any class) or n class names (an entry may be NULL: any class). */
int xmpi_sched_place(const struct xmpi_sched *s, char *const cls[], int n, int *hosts,
                     char *err, size_t errlen);
/* Commits n new processes at ranks nprocs..nprocs+n-1 on `hosts`: one group for all of
 * them when group_mode, else one group each. */
int xmpi_sched_add(struct xmpi_sched *s, const int *hosts, int n, int group_mode);

/* Chooses n ranks to remove, without changing s: with cls (n entries, NULL entries mean
 * any class) by the policy among the class's hosts (balance-all: the host with the most
 * processes; balance-occupied: the one with the fewest, to free it); without, the most
 * recently spawned. Never an initial process; a group leaves whole or not at all. The
 * ranks come back in increasing order. */
int xmpi_sched_pick_remove(const struct xmpi_sched *s, char *const cls[], int n, int *ranks,
                           char *err, size_t errlen);
/* Commits the removal: the ranks leave and the later ones move down, as in the new
 * communicator. */
int xmpi_sched_remove(struct xmpi_sched *s, const int *ranks, int n);

/* Processes that could be removed (dynamic ones), of node class cls (NULL: any class). */
int xmpi_sched_removable(const struct xmpi_sched *s, const char *cls);

/* Whether waiting processes on this host should give up their core (--xmpi-yield): `mode`
 * on or off decides; auto says yes when the host may hold more processes than its `cores`:
 * oversubscription allowed, or `pool` (NULL: none given) lists more PEs for `host`. */
int xmpi_sched_yield(int mode, int oversubscribe, const struct xmpi_pool *pool,
                     const char *host, int cores);

#endif
