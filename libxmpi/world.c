/* XMPI_Spawn and XMPI_Remove (FLEX-MPI Algorithms 1-3): spawn + merge into a new
 * XMPI_COMM_WORLD, group exclusion to shrink it, and the join protocol of new processes. */
#include "world.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "emulate.h"
#include "monitor.h"
#include "predictor.h"
#include "registry.h"
#include "rms.h"
#include "runtime.h"
#include "xmpi.h"

static struct {
    struct xmpi_pool pool;     /* rank 0 */
    struct xmpi_sched sched;   /* rank 0 */
    int have_sched;
    double my_speed;           /* this process's emulated speed, 0 = real */
    int my_speed_applied;      /* the cgroup quota for my_speed is in force */
    int emulation_reported;    /* rank 0 said once that emulation is unavailable */
    int *host_class;           /* rank 0: the model's class index of each pool host */
} w;

/* What every member learns after each merge; new processes take their state from it. */
struct join_packet {
    int more;                  /* spawns still to come in this XMPI_Spawn call */
    int nnew;                  /* processes that joined in this merge */
    int interval_index;
    long iterations;           /* monitored iterations: new processes count on from here */
    struct xmpi_options opts;  /* children inherit their parents' options */
};

/* Makes `world` the new XMPI_COMM_WORLD (freeing the previous one) with its private twin. */
static void adopt(MPI_Comm world)
{
    if (XMPI_COMM_WORLD != MPI_COMM_NULL) PMPI_Comm_free(&XMPI_COMM_WORLD);
    if (xmpi_rt.comm != MPI_COMM_NULL) PMPI_Comm_free(&xmpi_rt.comm);
    XMPI_COMM_WORLD = world;
    if (world == MPI_COMM_NULL) return;
    PMPI_Comm_set_name(XMPI_COMM_WORLD, "XMPI_COMM_WORLD");
    PMPI_Comm_dup(world, &xmpi_rt.comm);
    PMPI_Comm_set_name(xmpi_rt.comm, "xmpi-internal");
    /* A failed spawn must come back as an error code, not abort the job. */
    PMPI_Comm_set_errhandler(xmpi_rt.comm, MPI_ERRORS_RETURN);
    PMPI_Comm_rank(world, &xmpi_rt.rank);
    PMPI_Comm_size(world, &xmpi_rt.size);
}

/* Limits this process to its class's speed; returns 0 (limited or nothing to do), 1 when
 * emulation is unavailable here. */
static int emulate_self(double speed, char *msg, size_t len)
{
    w.my_speed = speed;
    w.my_speed_applied = 0;
    /* Speed 1 is a whole core: no quota. A quota equal to its period still throttles a busy
     * process now and then (the kernel hands out run time in 5 ms slices), which made the
     * fast class look non-dedicated. */
    if (speed <= 0 || speed >= 1) return 0;
    char tag[64];
    snprintf(tag, sizeof tag, "p%ld", (long)getpid());
    /* Groups of processes killed before they could remove theirs; only empty ones go. */
    xmpi_emulate_cleanup();
    xmpi_emulate_set_period(xmpi_rt.opts.emulate_period);
    w.my_speed_applied = xmpi_emulate_limit(speed, tag, msg, len) == 0;
    return w.my_speed_applied ? 0 : 1;
}

double xmpi_world_emulated_speed(void)
{
    return w.my_speed_applied && w.my_speed < 1 ? w.my_speed : 0;
}

/* ---- the prediction model's view of the job (rank 0) ---------------------------------- */

/* The distinct node classes in resource-file order are the model's class indices; each host's
 * is found once, at start-up, since the pool's hosts do not change. */
static void predictor_start(void)
{
    char *names[XMPI_MODEL_CLASSES_MAX];
    double speeds[XMPI_MODEL_CLASSES_MAX];
    int n = 0;
    w.host_class = malloc(sizeof *w.host_class * (size_t)(w.pool.nhosts ? w.pool.nhosts : 1));
    if (!w.host_class) return;
    for (int h = 0; h < w.pool.nhosts; h++) {
        int j = 0;
        while (j < h && strcmp(w.pool.hosts[j].cls, w.pool.hosts[h].cls)) j++;
        if (j < h) {
            w.host_class[h] = w.host_class[j];
            continue;
        }
        if (n == XMPI_MODEL_CLASSES_MAX) {
            xmpi_note(1, "prediction model: more than %d node classes; the model is off",
                      XMPI_MODEL_CLASSES_MAX);
            free(w.host_class);
            w.host_class = NULL;
            return;
        }
        w.host_class[h] = n;
        names[n] = w.pool.hosts[h].cls;
        speeds[n] = w.pool.hosts[h].speed;
        n++;
    }
    xmpi_predictor_start(names, speeds, n, xmpi_rt.opts.spawn == 1);
}

int xmpi_world_rank_classes(int *cls, int n)
{
    if (!w.have_sched || !w.host_class || n != w.sched.nprocs) return -1;
    for (int i = 0; i < n; i++) cls[i] = w.host_class[w.sched.procs[i].host];
    return 0;
}

/* Collective (the registry's description): on rank 0, the model's prediction of the interval
 * after this action. New processes go to new_hosts; leaving ranks are `leaving`. */
static void predict_action(const char *action, const int *new_hosts, int nnew, const int *leaving,
                           int nleave)
{
    enum { MAXD = 32 };
    struct xmpi_struct_desc d[MAXD];
    int p = xmpi_rt.size;
    long *part = xmpi_rt.rank == 0 && w.have_sched ? malloc(sizeof *part * 2 * (size_t)p) : NULL;
    int nd = xmpi_registry_describe(d, MAXD, part, part ? part + p : NULL);
    int *rank_class = part ? malloc(sizeof *rank_class * (size_t)p) : NULL;
    if (rank_class && xmpi_world_rank_classes(rank_class, p) == 0) {
        int current[XMPI_MODEL_CLASSES_MAX] = {0}, candidate[XMPI_MODEL_CLASSES_MAX] = {0};
        for (int i = 0; i < p; i++) current[rank_class[i]]++;
        memcpy(candidate, current, sizeof candidate);
        for (int i = 0; i < nnew; i++) candidate[w.host_class[new_hosts[i]]]++;
        for (int i = 0; i < nleave; i++) candidate[rank_class[leaving[i]]]--;
        /* Processes of different spawns (mpirun's are one) talk over another link. */
        int mixed_now = 0, mixed_next = nnew > 0;
        for (int i = 1; i < p; i++) {
            int gone = 0;
            for (int j = 0; j < nleave; j++) gone |= leaving[j] == i;
            if (w.sched.procs[i].group == w.sched.procs[0].group) continue;
            mixed_now = 1;
            if (!gone) mixed_next = 1;
        }
        xmpi_predictor_plan(action, xmpi_monitor_iterations(), current, candidate, rank_class, d, nd,
                            nd ? part : NULL, nd ? part + p : NULL, p, mixed_now, mixed_next);
    }
    free(rank_class);
    free(part);
}

/* Rank 0 says once per job that emulated speeds are not applied. */
static void report_emulation(int worst, const char *msg)
{
    if (xmpi_rt.rank != 0 || !worst || w.emulation_reported) return;
    w.emulation_reported = 1;
    xmpi_note(0, "emulated class speeds are not applied: %s",
              msg && msg[0] ? msg : "no writable cgroup cpu controller on some host; running at full speed");
}

int xmpi_world_start_initial(char *err, size_t errlen)
{
    MPI_Comm dup;
    PMPI_Comm_dup(MPI_COMM_WORLD, &dup);
    adopt(dup);

    /* Rank 0 places every initial process on the host mpirun chose for it. */
    char name[MPI_MAX_PROCESSOR_NAME] = "";
    int len = 0;
    PMPI_Get_processor_name(name, &len);
    char *names = NULL;
    if (xmpi_rt.rank == 0) names = calloc((size_t)xmpi_rt.size, MPI_MAX_PROCESSOR_NAME);
    PMPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                0, xmpi_rt.comm);
    double *speeds = NULL;
    int rc = 0;
    if (xmpi_rt.rank == 0) {
        char **hosts = malloc(sizeof *hosts * (size_t)xmpi_rt.size);
        speeds = calloc((size_t)xmpi_rt.size, sizeof *speeds);
        if (!names || !hosts || !speeds) {
            snprintf(err, errlen, "xmpi: out of memory at start-up");
            rc = -1;
        }
        for (int i = 0; !rc && i < xmpi_rt.size; i++) hosts[i] = names + (size_t)i * MPI_MAX_PROCESSOR_NAME;
        const struct xmpi_options *o = &xmpi_rt.opts;
        char why[768] = "";
        if (!rc && (o->resources[0] ? xmpi_pool_load(&w.pool, o->resources, why, sizeof why)
                                    : xmpi_pool_local(&w.pool, why, sizeof why))) {
            snprintf(err, errlen, "xmpi: option --xmpi-resources: %s", why);
            rc = -1;
        }
        if (!rc && xmpi_sched_init(&w.sched, &w.pool, o->sched, o->oversubscribe, xmpi_rt.size,
                                   hosts, o->initial, why, sizeof why)) {
            snprintf(err, errlen, "xmpi: %s: %s", o->initial[0] ? "option --xmpi-initial" :
                     "the initial processes do not fit --xmpi-resources", why);
            rc = -1;
        }
        if (!rc) {
            w.have_sched = 1;
            predictor_start();
            for (int i = 0; i < xmpi_rt.size; i++)
                speeds[i] = w.pool.hosts[w.sched.procs[i].host].speed;
            if (xmpi_rms_start(&w.sched, why, sizeof why)) {
                snprintf(err, errlen, "xmpi: option --xmpi-rms: %s", why);
                rc = -1;
            }
        }
        free(hosts);
    }
    PMPI_Scatter(speeds, 1, MPI_DOUBLE, &w.my_speed, 1, MPI_DOUBLE, 0, xmpi_rt.comm);
    free(names);
    free(speeds);
    return rc;
}

void xmpi_world_emulate_initial(void)
{
    char msg[512] = "";
    int mine = emulate_self(w.my_speed, msg, sizeof msg), worst = 0;
    PMPI_Reduce(&mine, &worst, 1, MPI_INT, MPI_MAX, 0, xmpi_rt.comm);
    report_emulation(worst, mine ? msg : NULL);
}

/* The part of a merge every member does: the new communicator, then the packet and the
 * speeds of the new processes from rank 0, then the emulation result back to rank 0.
 * `joined` is this process's index among the new ones, or -1 for an existing member. */
static void after_merge(MPI_Comm merged, struct join_packet *pk, const double *speeds,
                        int joined)
{
    adopt(merged);
    PMPI_Bcast(pk, (int)sizeof *pk, MPI_BYTE, 0, xmpi_rt.comm);
    double *sp = calloc((size_t)pk->nnew, sizeof *sp);
    if (sp && speeds && xmpi_rt.rank == 0) memcpy(sp, speeds, sizeof *sp * (size_t)pk->nnew);
    if (sp) PMPI_Bcast(sp, pk->nnew, MPI_DOUBLE, 0, xmpi_rt.comm);
    char msg[512] = "";
    int mine = 0, worst = 0;
    if (joined >= 0) {
        xmpi_rt.opts = pk->opts;
        xmpi_monitor_join(pk->iterations, pk->interval_index);
        mine = emulate_self(sp ? sp[joined] : 0, msg, sizeof msg);
    }
    free(sp);
    PMPI_Reduce(&mine, &worst, 1, MPI_INT, MPI_MAX, 0, xmpi_rt.comm);
    report_emulation(worst, NULL);
}

/* Existing members (parents, and children of this same call) take part in one more spawn. */
static int spawn_round(const char *command, char *argv[], int n, MPI_Info *infos,
                       int more, const double *speeds)
{
    MPI_Comm inter;
    int rc;
    int *errcodes = calloc((size_t)n, sizeof *errcodes);
    if (n == 1) {
        rc = PMPI_Comm_spawn(command, argv, 1, infos ? infos[0] : MPI_INFO_NULL, 0, xmpi_rt.comm,
                             &inter, errcodes ? errcodes : MPI_ERRCODES_IGNORE);
    } else {
        char **cmds = malloc(sizeof *cmds * (size_t)n);
        char ***argvs = malloc(sizeof *argvs * (size_t)n);
        int *maxprocs = malloc(sizeof *maxprocs * (size_t)n);
        for (int i = 0; cmds && argvs && maxprocs && i < n; i++) {
            cmds[i] = (char *)command;
            argvs[i] = argv ? argv : MPI_ARGV_NULL;
            maxprocs[i] = 1;
        }
        rc = cmds && argvs && maxprocs
                 ? PMPI_Comm_spawn_multiple(n, cmds, argvs, maxprocs, infos, 0, xmpi_rt.comm,
                                            &inter, errcodes ? errcodes : MPI_ERRCODES_IGNORE)
                 : MPI_ERR_NO_MEM;
        free(cmds);
        free(argvs);
        free(maxprocs);
    }
    free(errcodes);
    if (rc != MPI_SUCCESS) return XMPI_ERR_SPAWN;
    MPI_Comm merged;
    PMPI_Intercomm_merge(inter, 0, &merged);
    /* Open MPI 4.1 hangs disconnecting a merged intracommunicator: disconnect the
     * intercommunicator, and only ever free the merged ones. */
    PMPI_Comm_disconnect(&inter);
    struct join_packet pk = {0};
    if (xmpi_rt.rank == 0) {
        pk.more = more;
        pk.nnew = n;
        pk.iterations = xmpi_monitor_iterations();
        pk.interval_index = xmpi_monitor_interval_index();
        pk.opts = xmpi_rt.opts;
    }
    after_merge(merged, &pk, speeds, -1);
    return XMPI_SUCCESS;
}

void xmpi_world_start_child(MPI_Comm parent)
{
    MPI_Comm merged;
    int me;   /* index among the processes of this MPI_Comm_spawn */
    PMPI_Comm_rank(MPI_COMM_WORLD, &me);
    PMPI_Intercomm_merge(parent, 1, &merged);
    PMPI_Comm_disconnect(&parent);
    xmpi_rt.status = XMPI_NEWLY_SPAWNED;
    struct join_packet pk;
    after_merge(merged, &pk, NULL, me);
    /* Later spawns of the same call are collective over the grown XMPI_COMM_WORLD. */
    while (pk.more > 0) {
        int more = pk.more;
        if (spawn_round(NULL, NULL, 1, NULL, more - 1, NULL) != XMPI_SUCCESS) break;
        pk.more = more - 1;
    }
}

/* PATH search as MPI_Comm_spawn does it, so that a missing program is refused before
 * any process starts (Open MPI would abort the whole job). */
static int find_program(const char *command)
{
    struct stat st;
    if (strchr(command, '/'))
        return stat(command, &st) == 0 && S_ISREG(st.st_mode) && access(command, X_OK) == 0;
    const char *path = getenv("PATH");
    char buf[4096];
    for (const char *p = path ? path : ""; ; ) {
        const char *colon = strchr(p, ':');
        size_t len = colon ? (size_t)(colon - p) : strlen(p);
        snprintf(buf, sizeof buf, "%.*s%s%s", (int)len, len ? p : ".", "/", command);
        if (stat(buf, &st) == 0 && S_ISREG(st.st_mode) && access(buf, X_OK) == 0) return 1;
        if (!colon) break;
        p = colon + 1;
    }
    return stat(command, &st) == 0 && S_ISREG(st.st_mode) && access(command, X_OK) == 0;
}

static int sched_error(int rc)
{
    switch (rc) {
    case XMPI_SCHED_ECLASS: return XMPI_ERR_CLASS;
    case XMPI_SCHED_ENOPE:
    case XMPI_SCHED_ECOUNT:
    case XMPI_SCHED_EGROUP: return XMPI_ERR_RESOURCES;
    case XMPI_SCHED_ENOMEM: return XMPI_ERR_NOMEM;
    default: return XMPI_ERR_ARG;
    }
}

/* Arguments are checked on rank 0 and the verdict shared, so that every process returns
 * the same code and none starts a collective the others skip. */
static int agree(int rc, const char *call, const char *why)
{
    PMPI_Bcast(&rc, 1, MPI_INT, 0, xmpi_rt.comm);
    if (rc && xmpi_rt.rank == 0) xmpi_note(0, "%s: %s", call, why);
    return rc;
}

static int usable(void)
{
    int rc = xmpi_runtime_ready();
    if (rc) return rc;
    if (xmpi_rt.status == XMPI_REMOVED || xmpi_monitor_in_iteration()) return XMPI_ERR_STATE;
    return XMPI_SUCCESS;
}

int XMPI_Spawn(const char *command, char *argv[], int nprocs, MPI_Info info, char *node_class[])
{
    int rc = usable();
    if (rc) return rc;
    char why[768] = "";
    int *hosts = NULL;
    MPI_Info *infos = NULL;
    int n = 0;
    if (xmpi_rt.rank == 0) {
        if (nprocs < 1) {
            rc = XMPI_ERR_ARG;
            snprintf(why, sizeof why, "nprocs is %d; expected at least 1", nprocs);
        } else if (!command || !command[0]) {
            rc = XMPI_ERR_ARG;
            snprintf(why, sizeof why, "no program given");
        } else if (!find_program(command)) {
            rc = XMPI_ERR_NOT_FOUND;
            snprintf(why, sizeof why, "cannot find the program '%s' (not an executable file in "
                     "the working directory or PATH); no process started", command);
        } else if (!(hosts = malloc(sizeof *hosts * (size_t)nprocs)) ||
                   !(infos = calloc((size_t)nprocs, sizeof *infos))) {
            rc = XMPI_ERR_NOMEM;
            snprintf(why, sizeof why, "out of memory");
        } else {
            int s = xmpi_sched_place(&w.sched, node_class, nprocs, hosts, why, sizeof why);
            if (s) rc = sched_error(s);
        }
        n = nprocs;
    }
    if ((rc = agree(rc, "XMPI_Spawn", why))) {
        free(hosts);
        free(infos);
        return rc;
    }
    PMPI_Bcast(&n, 1, MPI_INT, 0, xmpi_rt.comm);
    predict_action("spawn", hosts, n, NULL, 0);
    double t0 = PMPI_Wtime();

    double *speeds = NULL;
    if (xmpi_rt.rank == 0) {
        speeds = calloc((size_t)n, sizeof *speeds);
        for (int i = 0; i < n; i++) {
            if (info != MPI_INFO_NULL) PMPI_Info_dup(info, &infos[i]);
            else PMPI_Info_create(&infos[i]);
            /* Open MPI and MPICH's Hydra both read "host"; Hydra also "hosts". */
            PMPI_Info_set(infos[i], "host", w.pool.hosts[hosts[i]].name);
            if (speeds) speeds[i] = w.pool.hosts[hosts[i]].speed;
        }
    }
    int done = 0;
    if (xmpi_rt.opts.spawn == 1) {
        rc = spawn_round(command, argv, n, infos, 0, speeds);
        if (rc == XMPI_SUCCESS) done = n;
    } else {
        for (int i = 0; i < n && rc == XMPI_SUCCESS; i++) {
            rc = spawn_round(command, argv, 1, infos ? &infos[i] : NULL, n - 1 - i,
                             speeds ? &speeds[i] : NULL);
            if (rc == XMPI_SUCCESS) done++;
        }
    }
    if (xmpi_rt.rank == 0) {
        if (done > 0) {
            xmpi_sched_add(&w.sched, hosts, done, xmpi_rt.opts.spawn == 1);
            xmpi_rms_spawned(&w.pool, hosts, done);
        }
        if (rc) xmpi_note(0, "XMPI_Spawn: MPI_Comm_spawn failed after %d of %d processes", done, n);
        for (int i = 0; i < n; i++)
            if (infos[i] != MPI_INFO_NULL) PMPI_Info_free(&infos[i]);
        xmpi_note(2, "spawned %d process(es); XMPI_COMM_WORLD has %d", done, xmpi_rt.size);
        if (done == n) xmpi_predictor_reconfigured(PMPI_Wtime() - t0);
    }
    if (done > 0) xmpi_monitor_set_action("spawn");
    free(speeds);
    free(hosts);
    free(infos);
    return rc;
}

int XMPI_Remove(int nprocs, char *node_class[])
{
    int rc = usable();
    if (rc) return rc;
    char why[768] = "";
    int n = 0;
    int *ranks = NULL;
    int *hosts = NULL;
    if (xmpi_rt.rank == 0) {
        if (nprocs < 1) {
            rc = XMPI_ERR_ARG;
            snprintf(why, sizeof why, "nprocs is %d; expected at least 1", nprocs);
        } else if (!(ranks = malloc(sizeof *ranks * (size_t)nprocs)) ||
                   !(hosts = malloc(sizeof *hosts * (size_t)nprocs))) {
            rc = XMPI_ERR_NOMEM;
            snprintf(why, sizeof why, "out of memory");
        } else {
            int s = xmpi_sched_pick_remove(&w.sched, node_class, nprocs, ranks, why, sizeof why);
            if (s) rc = sched_error(s);
            n = nprocs;
        }
    }
    if ((rc = agree(rc, "XMPI_Remove", why))) {
        free(ranks);
        free(hosts);
        return rc;
    }
    PMPI_Bcast(&n, 1, MPI_INT, 0, xmpi_rt.comm);
    if (xmpi_rt.rank != 0 && !(ranks = malloc(sizeof *ranks * (size_t)n))) {
        /* Cannot take part consistently any more: stop loudly rather than hang the others. */
        fprintf(stderr, "xmpi: rank %d: out of memory in XMPI_Remove\n", xmpi_rt.rank);
        PMPI_Abort(MPI_COMM_WORLD, 3);
    }
    PMPI_Bcast(ranks, n, MPI_INT, 0, xmpi_rt.comm);
    predict_action("remove", NULL, 0, ranks, n);
    double t0 = PMPI_Wtime();
    /* The leaving processes' rows go to the others first; if they cannot, nobody leaves. */
    if ((rc = xmpi_registry_handoff(ranks, n))) {
        free(ranks);
        free(hosts);
        return rc;
    }

    MPI_Group all, keep;
    MPI_Comm smaller;
    PMPI_Comm_group(xmpi_rt.comm, &all);
    PMPI_Group_excl(all, n, ranks, &keep);
    PMPI_Comm_create(xmpi_rt.comm, keep, &smaller);
    PMPI_Group_free(&all);
    PMPI_Group_free(&keep);

    if (xmpi_rt.rank == 0) {
        for (int i = 0; i < n; i++) hosts[i] = w.sched.procs[ranks[i]].host;
        xmpi_sched_remove(&w.sched, ranks, n);
        xmpi_rms_removed(&w.pool, hosts, n);
    }
    if (smaller == MPI_COMM_NULL) {
        xmpi_rt.status = XMPI_REMOVED;
        xmpi_emulate_release();
        w.my_speed_applied = 0;
    }
    xmpi_registry_after_remove(ranks, n);
    xmpi_monitor_set_action("remove");
    adopt(smaller);
    if (xmpi_rt.rank == 0 && smaller != MPI_COMM_NULL) {
        xmpi_note(2, "removed %d process(es); XMPI_COMM_WORLD has %d", n, xmpi_rt.size);
        xmpi_predictor_reconfigured(PMPI_Wtime() - t0);
    }
    free(ranks);
    free(hosts);
    return XMPI_SUCCESS;
}

void xmpi_world_stop(void)
{
    xmpi_emulate_release();
    w.my_speed_applied = 0;
    if (w.have_sched) {
        xmpi_rms_stop();
        xmpi_sched_free(&w.sched);
        xmpi_pool_free(&w.pool);
        free(w.host_class);
        w.host_class = NULL;
        w.have_sched = 0;
    }
    adopt(MPI_COMM_NULL);
}
