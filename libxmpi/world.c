/* The executor of FLEX-MPI Algorithms 1-3: spawn + merge into a new XMPI_COMM_WORLD, group
 * exclusion to shrink it, and the join protocol of new processes. */
#include "world.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../models/cost.h"
#include "context.h"
#include "resize.h"
#include "xmpi.h"

/* What every member learns after each merge; new processes take their state from it. */
struct join_packet {
    int more;                  /* spawns still to come in this XMPI_Spawn call */
    int nnew;                  /* processes that joined in this merge */
    struct xmpi_join join;     /* new processes count on from here */
    struct xmpi_options opts;  /* children inherit their parents' options */
    int spawn_refused;         /* and whether policies may still spawn */
    int app_bytes;             /* the program's data for joining processes, sent after it */
};

/* Makes `world` the new XMPI_COMM_WORLD (freeing the previous one) with its private twin
 * `twin`, or a duplicate of `world` made now when `twin` is MPI_COMM_NULL. */
static void adopt_pair(struct xmpi_ctx *cx, MPI_Comm world, MPI_Comm twin)
{
    if (XMPI_COMM_WORLD != MPI_COMM_NULL) PMPI_Comm_free(&XMPI_COMM_WORLD);
    if (cx->comm != MPI_COMM_NULL) PMPI_Comm_free(&cx->comm);
    XMPI_COMM_WORLD = world;
    if (world == MPI_COMM_NULL) return;
    PMPI_Comm_set_name(XMPI_COMM_WORLD, "XMPI_COMM_WORLD");
    if (twin == MPI_COMM_NULL) PMPI_Comm_dup(world, &twin);
    cx->comm = twin;
    PMPI_Comm_set_name(cx->comm, "xmpi-internal");
    /* A failed spawn must come back as an error code, not abort the job. */
    PMPI_Comm_set_errhandler(cx->comm, MPI_ERRORS_RETURN);
    PMPI_Comm_rank(world, &cx->rank);
    PMPI_Comm_size(world, &cx->size);
}

static void adopt(struct xmpi_ctx *cx, MPI_Comm world)
{
    adopt_pair(cx, world, MPI_COMM_NULL);
}

/* Limits this process to its class's speed; returns 0 (limited or nothing to do), 1 when
 * emulation is unavailable here. */
static int emulate_self(struct xmpi_ctx *cx, const struct xmpi_emu_assign *as, char *msg,
                        size_t len)
{
    double speed = as ? as->speed : 0;
    /* Speed 1 is a whole core: no quota. A quota equal to its period still throttles a busy
     * process now and then (the kernel hands out run time in 5 ms slices), which made the
     * fast class look non-dedicated. */
    if (speed <= 0 || speed >= 1) return 0;
    if (cx->opts.emulate == XMPIR_EMULATE_DILATE) {
        xmpi_emulate_dilate(&cx->emu, speed, PMPI_Wtime());
        snprintf(msg, len, "computation stretched to %g of a core's speed", speed);
        return 0;
    }
    /* Groups of processes killed before they could remove theirs; only empty ones go. */
    xmpi_emulate_cleanup();
    xmpi_emulate_set_period(&cx->emu, cx->opts.emulate_period);
    if (as->tag[0]) return xmpi_emulate_share(&cx->emu, speed, as->tag, msg, len) == 0 ? 0 : 1;
    char tag[64];
    snprintf(tag, sizeof tag, "p%ld", (long)getpid());
    return xmpi_emulate_limit(&cx->emu, speed, tag, msg, len) == 0 ? 0 : 1;
}

/* Rank 0: the emulation of a process placed on pool entry `host`. The processes of one class
 * on one host share a quota group named after the job and the class, so that they are
 * throttled together; a class name a group cannot carry gets a group per process. */
static void assign(const struct xmpi_world *w, int host, struct xmpi_emu_assign *as)
{
    const struct xmpi_host *h = &w->pool.hosts[host];
    as->speed = h->speed;
    as->tag[0] = '\0';
    int ok = strlen(h->cls) + strlen(w->jobkey) + 2 < sizeof as->tag;
    for (const char *c = h->cls; ok && *c; c++)
        ok = (*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') ||
             *c == '_' || *c == '.' || *c == '-';
    if (ok && w->jobkey[0]) {
        size_t k = strlen(w->jobkey);
        memcpy(as->tag, w->jobkey, k);
        as->tag[k] = '-';
        memcpy(as->tag + k + 1, h->cls, strlen(h->cls) + 1);
    }
}

/* Rank 0 says once per job that emulated speeds are not applied. */
static void report_emulation(struct xmpi_ctx *cx, int worst, const char *msg)
{
    if (cx->rank != 0 || !worst || cx->world.emulation_reported) return;
    cx->world.emulation_reported = 1;
    xmpi_note(cx, 0, "emulated class speeds are not applied: %s",
              msg && msg[0] ? msg : "no writable cgroup cpu controller on some host; running at full speed");
}

int xmpi_world_start_initial(struct xmpi_ctx *cx, char *err, size_t errlen)
{
    struct xmpi_world *w = &cx->world;
    MPI_Comm dup;
    PMPI_Comm_dup(MPI_COMM_WORLD, &dup);
    adopt(cx, dup);

    /* Rank 0 places every initial process on the host mpirun chose for it. */
    char name[MPI_MAX_PROCESSOR_NAME] = "";
    int len = 0;
    PMPI_Get_processor_name(name, &len);
    char *names = NULL;
    if (cx->rank == 0) names = calloc((size_t)cx->size, MPI_MAX_PROCESSOR_NAME);
    PMPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                0, cx->comm);
    struct xmpi_emu_assign *emu = NULL;
    int rc = 0;
    if (cx->rank == 0) {
        char **hosts = malloc(sizeof *hosts * (size_t)cx->size);
        emu = calloc((size_t)cx->size, sizeof *emu);
        /* Unique among the jobs that may share a host: rank 0's pid and start time. */
        snprintf(w->jobkey, sizeof w->jobkey, "j%ldt%ld", (long)getpid(), (long)time(NULL) % 100000);
        if (!names || !hosts || !emu) {
            snprintf(err, errlen, "xmpi: out of memory at start-up");
            rc = -1;
        }
        for (int i = 0; !rc && i < cx->size; i++) hosts[i] = names + (size_t)i * MPI_MAX_PROCESSOR_NAME;
        const struct xmpi_options *o = &cx->opts;
        char why[768] = "";
        /* Without a resource file, the resource manager may describe the pool (slurm). */
        int own = o->resources[0] || rc ? 1 : xmpi_rms_pool(cx, &w->pool, why, sizeof why);
        if (own < 0) {
            snprintf(err, errlen, "xmpi: option --xmpi-rms: %s", why);
            rc = -1;
        }
        if (!rc && own && (o->resources[0] ? xmpi_pool_load(&w->pool, o->resources, why, sizeof why)
                                           : xmpi_pool_local(&w->pool, why, sizeof why))) {
            snprintf(err, errlen, "xmpi: option --xmpi-resources: %s", why);
            rc = -1;
        }
        if (!rc && xmpi_sched_init(&w->sched, &w->pool, o->sched, o->oversubscribe, cx->size,
                                   hosts, o->initial, why, sizeof why)) {
            snprintf(err, errlen, "xmpi: %s: %s", o->initial[0] ? "option --xmpi-initial" :
                     own ? "the initial processes do not fit --xmpi-resources" :
                     "the initial processes do not fit the pool of --xmpi-rms", why);
            rc = -1;
        }
        if (!rc) {
            w->have_sched = 1;
            for (int i = 0; i < cx->size; i++) assign(w, w->sched.procs[i].host, &emu[i]);
        }
        free(hosts);
    }
    PMPI_Scatter(emu, (int)sizeof *emu, MPI_BYTE, &w->initial_emu, (int)sizeof *emu, MPI_BYTE, 0,
                 cx->comm);
    free(names);
    free(emu);
    return rc;
}

void xmpi_world_emulate_initial(struct xmpi_ctx *cx)
{
    char msg[512] = "";
    int mine = emulate_self(cx, &cx->world.initial_emu, msg, sizeof msg), worst = 0;
    PMPI_Reduce(&mine, &worst, 1, MPI_INT, MPI_MAX, 0, cx->comm);
    report_emulation(cx, worst, mine ? msg : NULL);
}

/* The part of a merge every member does: the new communicator, then the packet and the
 * speeds of the new processes from rank 0, then the emulation result back to rank 0.
 * `joined` is this process's index among the new ones, or -1 for an existing member. */
static void after_merge(struct xmpi_ctx *cx, MPI_Comm merged, struct join_packet *pk,
                        const struct xmpi_emu_assign *emu, int joined)
{
    adopt(cx, merged);
    if (cx->rank == 0) pk->app_bytes = cx->app_bytes;
    PMPI_Bcast(pk, (int)sizeof *pk, MPI_BYTE, 0, cx->comm);
    /* Rank 0's data for joining processes (XMPI_Set_app_data): they hold it before they
     * register anything; the members take rank 0's too, so that every process has the same. */
    if (pk->app_bytes > 0) {
        char *d = cx->rank == 0 ? cx->app_data : malloc((size_t)pk->app_bytes);
        if (!d) xmpi_die_nomem(cx, "the program's data for joining processes");
        PMPI_Bcast(d, pk->app_bytes, MPI_BYTE, 0, cx->comm);
        if (cx->rank != 0) {
            free(cx->app_data);
            cx->app_data = d;
            cx->app_bytes = pk->app_bytes;
        }
    }
    struct xmpi_emu_assign *sp = calloc((size_t)pk->nnew, sizeof *sp);
    if (sp && emu && cx->rank == 0) memcpy(sp, emu, sizeof *sp * (size_t)pk->nnew);
    if (sp) PMPI_Bcast(sp, (int)sizeof *sp * pk->nnew, MPI_BYTE, 0, cx->comm);
    char msg[512] = "";
    int mine = 0, worst = 0;
    if (joined >= 0) {
        cx->opts = pk->opts;
        cx->world.spawn_refused = pk->spawn_refused;
        mine = emulate_self(cx, sp ? &sp[joined] : NULL, msg, sizeof msg);
    }
    free(sp);
    PMPI_Reduce(&mine, &worst, 1, MPI_INT, MPI_MAX, 0, cx->comm);
    report_emulation(cx, worst, NULL);
    xmpi_otf2_merged(cx, pk->nnew, joined);
}

/* Tag of the intercommunicator between the job and the processes of one spawn. */
#define JOIN_TAG 7301

/* The caller's arguments (NULL-terminated, or NULL) and the mark that makes the new
 * processes join (world.h): a new array of the same strings, or NULL when out of memory. */
static char **marked_argv(char *args[])
{
    int argc = 0;
    while (args && args[argc]) argc++;
    char **argv = malloc(sizeof *argv * (size_t)(argc + 2));
    if (!argv) return NULL;
    for (int i = 0; i < argc; i++) argv[i] = args[i];
    argv[argc] = (char *)XMPIR_SPAWN_MARK;
    argv[argc + 1] = NULL;
    return argv;
}

/* Rank 0 alone: MPI_Comm_spawn(_multiple) over a private MPI_COMM_SELF that returns errors.
 * Spawning from rank 0 alone is what makes a refused spawn safe: when Open MPI 4.1 refuses
 * a spawn over a communicator of several processes, the root returns the error and the
 * others stay inside MPI_Comm_spawn for ever. Here the others wait in a broadcast of the
 * result instead, and every process returns the same code. */
static int spawn_from_root(const char *command, char *args[], int n, MPI_Info *infos,
                           MPI_Comm *inter)
{
    char **argv = marked_argv(args);
    if (!argv) return MPI_ERR_NO_MEM;
    MPI_Comm self;
    int rc = PMPI_Comm_dup(MPI_COMM_SELF, &self);
    if (rc != MPI_SUCCESS) {
        free(argv);
        return rc;
    }
    PMPI_Comm_set_errhandler(self, MPI_ERRORS_RETURN);
    int *errcodes = calloc((size_t)n, sizeof *errcodes);
    if (n == 1) {
        rc = PMPI_Comm_spawn(command, argv, 1, infos ? infos[0] : MPI_INFO_NULL, 0, self,
                             inter, errcodes ? errcodes : MPI_ERRCODES_IGNORE);
    } else {
        char **cmds = malloc(sizeof *cmds * (size_t)n);
        char ***argvs = malloc(sizeof *argvs * (size_t)n);
        int *maxprocs = malloc(sizeof *maxprocs * (size_t)n);
        for (int i = 0; cmds && argvs && maxprocs && i < n; i++) {
            cmds[i] = (char *)command;
            argvs[i] = argv;
            maxprocs[i] = 1;
        }
        rc = cmds && argvs && maxprocs
                 ? PMPI_Comm_spawn_multiple(n, cmds, argvs, maxprocs, infos, 0, self, inter,
                                            errcodes ? errcodes : MPI_ERRCODES_IGNORE)
                 : MPI_ERR_NO_MEM;
        free(cmds);
        free(argvs);
        free(maxprocs);
    }
    free(errcodes);
    free(argv);
    PMPI_Comm_free(&self);
    return rc;
}

/* Both sides of a join: from the bridge (rank 0 of the job + the new processes) to one
 * intracommunicator of the job's members first and the new processes after, in the order
 * of their own MPI_COMM_WORLD. `local` is the side's own communicator; `newcomer` says
 * which side this is. */
static MPI_Comm join_sides(const struct xmpi_ctx *cx, MPI_Comm local, MPI_Comm bridge,
                           int newcomer)
{
    MPI_Comm inter = MPI_COMM_NULL, merged = MPI_COMM_NULL;
#ifdef MPICH
    /* MPICH's ch3 device cannot make an intercommunicator of groups that never talked
     * (pmodels/mpich#1502): from the second spawn on, the new processes know nothing of the
     * earlier spawns' processes, and MPI_Intercomm_create fails with "Unknown gpid".
     * Connect/accept tells each side about the other's processes; the port's name goes from
     * the job's rank 0 to the first new process over the bridge. */
    char port[MPI_MAX_PORT_NAME] = "";
    int lrank, rc = MPI_SUCCESS;
    PMPI_Comm_rank(local, &lrank);
    if (!newcomer) {
        if (lrank == 0) rc = PMPI_Open_port(MPI_INFO_NULL, port);
        if (lrank == 0 && rc == MPI_SUCCESS)
            rc = PMPI_Send(port, MPI_MAX_PORT_NAME, MPI_CHAR, 1, JOIN_TAG, bridge);
        if (rc == MPI_SUCCESS) rc = PMPI_Comm_accept(port, MPI_INFO_NULL, 0, local, &inter);
        if (lrank == 0 && port[0]) PMPI_Close_port(port);
    } else {
        if (lrank == 0)
            rc = PMPI_Recv(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, JOIN_TAG, bridge, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS) rc = PMPI_Comm_connect(port, MPI_INFO_NULL, 0, local, &inter);
    }
#else
    /* The bridge ranks the job's rank 0 first (low) and the first new process next. */
    int rc = PMPI_Intercomm_create(local, 0, bridge == MPI_COMM_NULL ? local : bridge,
                                   newcomer ? 0 : 1, JOIN_TAG, &inter);
#endif
    if (rc == MPI_SUCCESS) rc = PMPI_Intercomm_merge(inter, newcomer, &merged);
    if (rc != MPI_SUCCESS) {
        /* Half a join cannot be undone: some processes may have their new communicator. */
        char msg[MPI_MAX_ERROR_STRING] = "";
        int len = 0;
        PMPI_Error_string(rc, msg, &len);
        fprintf(stderr, "xmpi: rank %d: joining new processes failed in MPI (%s); the job "
                "cannot go on\n", cx->rank, msg);
        xmpi_abort_said(3);
    }
    PMPI_Comm_free(&inter);
    return merged;
}

/* Tag of the first word the new processes of a bridge receive: the job's work source as
 * struct xmpi_join's papi (1 PAPI, 0 declared, -1 not chosen). A process whose parents count
 * with PAPI loads it then, while they may still be computing (an asynchronous spawn). */
#define SOURCE_TAG 7301

/* Rank 0 alone: starts n processes and merges the spawn's intercommunicator into the bridge
 * (rank 0 first, the new processes after), on the calling thread, and tells them the work
 * source `papi`. An MPI code. */
static int spawn_bridge(const char *command, char *argv[], int n, MPI_Info *infos,
                        MPI_Comm *bridge, int papi)
{
    MPI_Comm inter = MPI_COMM_NULL;
    *bridge = MPI_COMM_NULL;
    /* Test hook: an MPI library that cannot spawn (Debian's MPICH 4.0.2 returns an error). */
    int rc = xmpi_fault_is("spawn-refuse") ? MPI_ERR_SPAWN
                                           : spawn_from_root(command, argv, n, infos, &inter);
    /* After a failure the handle is not one to free (Open MPI leaves an invalid one). */
    if (rc == MPI_SUCCESS) {
        rc = PMPI_Intercomm_merge(inter, 0, bridge);
        /* Open MPI 4.1 hangs disconnecting a merged intracommunicator: disconnect the
         * intercommunicator, and only ever free the merged ones. */
        PMPI_Comm_disconnect(&inter);
        for (int i = 1; rc == MPI_SUCCESS && i <= n; i++)
            rc = PMPI_Send(&papi, 1, MPI_INT, i, SOURCE_TAG, *bridge);
    }
    return rc;
}

/* Tag of the word that lets the processes of a bridge go on: 1 join the job, 0 leave. */
#define GO_TAG 7302

/* Rank 0: tells the new processes of `bridge` to join (1) or to leave (0). */
static void send_go(MPI_Comm bridge, int go)
{
    int size = 0;
    PMPI_Comm_size(bridge, &size);
    for (int i = 1; i < size; i++) PMPI_Send(&go, 1, MPI_INT, i, GO_TAG, bridge);
}

/* A new process, after the bridge: waits for its parents' word. They may be computing (an
 * asynchronous spawn joins at their next interval end), so the wait sleeps instead of
 * spinning on a core they need, after a short spin for the blocking case. */
static int wait_go(MPI_Comm bridge)
{
    int go = 0, flag = 0;
    MPI_Request rq;
    PMPI_Irecv(&go, 1, MPI_INT, 0, GO_TAG, bridge, &rq);
    double t0 = PMPI_Wtime();
    while (!flag) {
        PMPI_Test(&rq, &flag, MPI_STATUS_IGNORE);
        if (!flag && PMPI_Wtime() - t0 > 0.002) {
            struct timespec ts = {0, 500000};
            nanosleep(&ts, NULL);
        }
    }
    return go;
}

/* Existing members (parents, and children of this same call) take part in one more spawn.
 * `made` (rank 0): the bridge of processes an asynchronous spawn started already, or
 * MPI_COMM_NULL to start them now. */
static int spawn_round(struct xmpi_ctx *cx, const char *command, char *argv[], int n,
                       MPI_Info *infos, int more, const struct xmpi_emu_assign *emu,
                       const struct xmpi_join *join, MPI_Comm made)
{
    int rc = MPI_SUCCESS;
    MPI_Comm bridge = made;
    /* One round at a time: a job spawning many processes one by one may take long in all,
     * while each round is quick. */
    char what[160];
    snprintf(what, sizeof what, "XMPI_Spawn (starting and joining %d new process(es))", n);
    xmpi_watchdog_arm(&cx->watch, (int)cx->opts.wait_timeout, cx->rank, what);
    double mark[2];
    xmpi_step_begin(cx, mark);
    if (cx->rank == 0 && made == MPI_COMM_NULL) rc = spawn_bridge(command, argv, n, infos, &bridge, join->papi);
    if (cx->rank == 0 && rc == MPI_SUCCESS) send_go(bridge, 1);
    PMPI_Bcast(&rc, 1, MPI_INT, 0, cx->comm);
    if (rc != MPI_SUCCESS) {
        xmpi_watchdog_disarm(&cx->watch);
        return XMPI_ERR_SPAWN;
    }
    MPI_Comm merged = join_sides(cx, cx->comm, bridge, 0);
    if (bridge != MPI_COMM_NULL) PMPI_Comm_free(&bridge);
    xmpi_step_end(cx, XMPIR_STEP_SPAWN_MPI, mark);
    struct join_packet pk = {0};
    if (cx->rank == 0) {
        pk.more = more;
        pk.nnew = n;
        pk.join = *join;
        pk.opts = cx->opts;
        pk.spawn_refused = cx->world.spawn_refused;
    }
    after_merge(cx, merged, &pk, emu, -1);
    xmpi_watchdog_disarm(&cx->watch);
    return XMPI_SUCCESS;
}

void xmpi_world_start_child(struct xmpi_ctx *cx, MPI_Comm parent, struct xmpi_join *join)
{
    MPI_Comm bridge;
    int me;   /* index among the processes of this MPI_Comm_spawn */
    PMPI_Comm_rank(MPI_COMM_WORLD, &me);
    /* Its own options until its parents' arrive with the join packet. */
    xmpi_watchdog_arm(&cx->watch, (int)cx->opts.wait_timeout, -1, "joining the job (a spawned process)");
    PMPI_Intercomm_merge(parent, 1, &bridge);
    PMPI_Comm_disconnect(&parent);
    int papi = -1;
    PMPI_Recv(&papi, 1, MPI_INT, 0, SOURCE_TAG, bridge, MPI_STATUS_IGNORE);
    xmpi_monitor_follow_source(cx, papi);   /* the join packet's, newer, follows (runtime.c) */
    /* Parents that spawned asynchronously may compute for a whole interval before they take
     * the new processes in: that wait is not a hang. */
    xmpi_watchdog_disarm(&cx->watch);
    if (!wait_go(bridge)) {
        /* The job ended (MPI_Finalize) before it took this process in: it leaves as it came,
         * without running the program. */
        PMPI_Comm_free(&bridge);
        PMPI_Finalize();
        _exit(0);
    }
    xmpi_watchdog_arm(&cx->watch, (int)cx->opts.wait_timeout, -1, "joining the job (a spawned process)");
    if (me == 0) xmpi_fault("join");
    MPI_Comm merged = join_sides(cx, MPI_COMM_WORLD, bridge, 1);
    PMPI_Comm_free(&bridge);
    cx->status = XMPI_NEWLY_SPAWNED;
    struct join_packet pk;
    after_merge(cx, merged, &pk, NULL, me);
    xmpi_watchdog_disarm(&cx->watch);
    *join = pk.join;
    /* Later spawns of the same call take every member of the grown XMPI_COMM_WORLD. */
    while (pk.more > 0) {
        int more = pk.more;
        if (spawn_round(cx, NULL, NULL, 1, NULL, more - 1, NULL, join, MPI_COMM_NULL) !=
            XMPI_SUCCESS)
            break;
        pk.more = more - 1;
    }
}

#ifdef OPEN_MPI
/* An MCA boolean as Open MPI reads it. */
static int mca_true(const char *v)
{
    static const char *const yes[] = {"1", "true", "yes", "on", "t", "y", "enabled", NULL};
    while (v && (*v == ' ' || *v == '\t')) v++;
    for (int i = 0; v && yes[i]; i++) {
        size_t k = strlen(yes[i]);
        if (!strncasecmp(v, yes[i], k) && (v[k] == '\0' || v[k] == '\n' || v[k] == ' ' ||
                                           v[k] == '\t' || v[k] == '\r'))
            return 1;
    }
    return 0;
}

/* The value of MCA parameter `name` in an Open MPI parameter file, or NULL. */
static const char *mca_file_value(const char *path, const char *name, char *buf, size_t len)
{
    FILE *f = path ? fopen(path, "r") : NULL;
    const char *found = NULL;
    char line[512];
    size_t k = strlen(name);
    while (f && fgets(line, sizeof line, f)) {
        char *p = line;
        while (*p == ' ' || *p == '\t') p++;
        if (strncmp(p, name, k) != 0) continue;
        p += k;
        while (*p == ' ' || *p == '\t') p++;
        if (*p != '=') continue;
        snprintf(buf, len, "%s", p + 1);
        found = buf;   /* the last one wins, as in Open MPI */
    }
    if (f) fclose(f);
    return found;
}

/* Open MPI: may this job place more processes than its slots? The environment (mpirun
 * --oversubscribe sets it), the mapping policy, then the parameter files mpirun read. */
static int ompi_oversubscribes(void)
{
    const char *map = getenv("OMPI_MCA_rmaps_base_mapping_policy");
    char low[256];
    size_t k = 0;
    for (; map && map[k] && k + 1 < sizeof low; k++) low[k] = (char)tolower((unsigned char)map[k]);
    low[k] = '\0';
    if (strstr(low, "oversubscribe") && !strstr(low, "nooversubscribe")) return 1;
    const char *env = getenv("OMPI_MCA_rmaps_base_oversubscribe");
    if (env) return mca_true(env);
    char buf[128], user[4096];
    const char *home = getenv("HOME");
    snprintf(user, sizeof user, "%s/.openmpi/mca-params.conf", home ? home : "/nonexistent");
    const char *v = mca_file_value(user, "rmaps_base_oversubscribe", buf, sizeof buf);
    if (!v) v = mca_file_value("/etc/openmpi/openmpi-mca-params.conf", "rmaps_base_oversubscribe",
                               buf, sizeof buf);
    return v && mca_true(v);
}
#endif

/* The slots the launcher grants the job (MPI_UNIVERSE_SIZE), or 0 when it does not say. */
static int universe_slots(void)
{
    int *usize = NULL, flag = 0;
    PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &usize, &flag);
    return flag && usize ? *usize : 0;
}

void xmpi_world_spawn_hint(const struct xmpi_ctx *cx, char *buf, size_t len)
{
#if defined(MPICH_NUMVERSION) && MPICH_NUMVERSION < 40300000
    /* Before 4.3, MPICH's ch4:ucx device (Debian 12's mpich package) cannot spawn at all: say
     * that instead of hosts and slots. */
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int vlen = 0;
    PMPI_Get_library_version(version, &vlen);
    if (strstr(version, "ch4:ucx")) {
        snprintf(buf, len, "this MPI library cannot spawn processes at all: MPICH %s with the "
                 "ch4:ucx device (spawning needs MPICH 4.3 or later, or a build with ch3, such as "
                 "scripts/install-deps.sh --mpich makes; or Open MPI)%s", MPICH_VERSION,
                 xmpi_resize_possible(cx) ? "" : "; without spawning, a job resizes by "
                 "checkpoint and restart under xmpi-resume with --xmpi-checkpoint=DIR "
                 "(docs/checkpoint.md)");
        return;
    }
#endif
    int slots = universe_slots();
    snprintf(buf, len, "the MPI library refused it (the job holds %d of %d slot(s), "
             "MPI_UNIVERSE_SIZE; oversubscription %s); every host of --xmpi-resources must be "
             "known to the launcher (mpirun --host or --hostfile) and have a free slot%s",
             cx->size, slots,
#ifdef OPEN_MPI
             ompi_oversubscribes() ? "allowed" : "not allowed",
             ". Open MPI 4.1's mpirun may then not exit when the job ends (a known Open MPI "
             "issue): run it under a time limit"
#else
             "unknown", ""
#endif
    );
}

int xmpi_world_spawn_precheck(const struct xmpi_ctx *cx, int n, MPI_Info info, char *why,
                              size_t len)
{
#ifdef OPEN_MPI
    /* Open MPI's "add-host" and "add-hostfile" keys grow the allocation with the spawn. */
    int flag = 0;
    char v[8];
    if (info != MPI_INFO_NULL) PMPI_Info_get(info, "add-host", (int)sizeof v - 1, v, &flag);
    if (!flag && info != MPI_INFO_NULL)
        PMPI_Info_get(info, "add-hostfile", (int)sizeof v - 1, v, &flag);
    if (flag) return XMPI_SUCCESS;
    int slots = universe_slots();
    if (slots > 0 && !ompi_oversubscribes() && cx->size + n > slots) {
        snprintf(why, len, "Open MPI grants this job %d slot(s) (MPI_UNIVERSE_SIZE), its %d "
                 "processes hold %d and %d more are asked for; no process started. Launch with "
                 "mpirun --oversubscribe, a hostfile with slots=N per host or --host HOST:N with "
                 "room for the processes to spawn (scripts/xmpirun adds --oversubscribe), or "
                 "give --xmpi-spawn-check=off if the launcher grants slots this check cannot see",
                 slots, cx->size, cx->size < slots ? cx->size : slots, n);
        return XMPI_ERR_SPAWN;
    }
#else
    (void)cx;
    (void)n;
    (void)info;
    (void)why;
    (void)len;
#endif
    return XMPI_SUCCESS;
}

/* PATH search as MPI_Comm_spawn does it, so that a missing program is refused before
 * any process starts (Open MPI would abort the whole job). */
int xmpi_world_find_program(const char *command)
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

/* Rank 0: one MPI_Info per new process (the caller's keys, the host of pool entry hosts[i])
 * and each one's emulated class; both n entries, malloc'ed (NULL when out of memory). */
static void spawn_infos(const struct xmpi_ctx *cx, const int *hosts, int n, MPI_Info info,
                        MPI_Info **pinfos, struct xmpi_emu_assign **pemu)
{
    const struct xmpi_world *w = &cx->world;
    MPI_Info *infos = calloc((size_t)n, sizeof *infos);
    struct xmpi_emu_assign *emu = calloc((size_t)n, sizeof *emu);
    for (int i = 0; infos && i < n; i++) {
        if (info != MPI_INFO_NULL) PMPI_Info_dup(info, &infos[i]);
        else PMPI_Info_create(&infos[i]);
        /* Open MPI and MPICH's Hydra both read "host"; Hydra also "hosts". */
        PMPI_Info_set(infos[i], "host", w->pool.hosts[hosts[i]].name);
#ifdef OPEN_MPI
        /* The new process waits as its parents do (--xmpi-yield); Open MPI's "env" key sets
         * its environment. An "env" the caller gave is kept. */
        int flag = 0;
        char have[8];
        if (cx->yield) PMPI_Info_get(infos[i], "env", (int)sizeof have - 1, have, &flag);
        if (cx->yield && !flag) PMPI_Info_set(infos[i], "env", "OMPI_MCA_mpi_yield_when_idle=1");
#endif
        if (emu) assign(w, hosts[i], &emu[i]);
    }
    *pinfos = infos;
    *pemu = emu;
}

static void free_infos(MPI_Info *infos, int n)
{
    for (int i = 0; infos && i < n; i++)
        if (infos[i] != MPI_INFO_NULL) PMPI_Info_free(&infos[i]);
    free(infos);
}

int xmpi_world_spawn(struct xmpi_ctx *cx, const char *command, char *argv[], const int *hosts,
                     int n, MPI_Info info, const struct xmpi_join *join, int *done)
{
    struct xmpi_world *w = &cx->world;
    MPI_Info *infos = NULL;
    struct xmpi_emu_assign *emu = NULL;
    int rc = XMPI_SUCCESS;
    *done = 0;
    xmpi_otf2_enter(cx, XMPIR_OTF2_SPAWN);
    if (cx->rank == 0) spawn_infos(cx, hosts, n, info, &infos, &emu);
    if (cx->opts.spawn == 1) {
        rc = spawn_round(cx, command, argv, n, infos, 0, emu, join, MPI_COMM_NULL);
        if (rc == XMPI_SUCCESS) *done = n;
    } else {
        for (int i = 0; i < n && rc == XMPI_SUCCESS; i++) {
            rc = spawn_round(cx, command, argv, 1, infos ? &infos[i] : NULL, n - 1 - i,
                             emu ? &emu[i] : NULL, join, MPI_COMM_NULL);
            if (rc == XMPI_SUCCESS) (*done)++;
        }
    }
    if (cx->rank == 0 && *done > 0) xmpi_sched_add(&w->sched, hosts, *done, cx->opts.spawn == 1);
    if (cx->rank == 0) free_infos(infos, n);
    free(emu);
    xmpi_otf2_leave(cx, XMPIR_OTF2_SPAWN, NULL);
    return rc;
}

/* ---- asynchronous spawns: rank 0's helper thread ------------------------------------------ */

/* Rank 0's state of an asynchronous spawn, from xmpi_world_spawn_begin to its join or cancel.
 * The helper thread owns everything but `finished` until it sets it; the main thread reads
 * the rest only after that (or after joining the thread). */
struct xmpi_async {
    pthread_t thread;
    int threaded;              /* the thread runs (else the spawn ran in begin) */
    int finished;              /* set by the thread when it is done (atomic) */
    int rc;                    /* MPI code of the spawn that failed, MPI_SUCCESS */
    int n, group;              /* processes asked; one MPI_Comm_spawn for all, or one each */
    int made;                  /* processes started */
    int nbridges;
    MPI_Comm *bridges;         /* group: [0]; single: one per process started */
    char *command;
    char **argv;               /* NULL-terminated copy, or NULL */
    MPI_Info *infos;
    struct xmpi_emu_assign *emu;
    int *hosts;
    int wait_timeout;
    int papi;                  /* the work source when it began (struct xmpi_join) */
    double t_begin, t_ready;   /* PMPI_Wtime */
    double cpu;                /* the helper thread's CPU seconds */
    struct xmpi_watchdog watch;
};

static void *async_main(void *arg)
{
    struct xmpi_async *a = arg;
    char what[160];
    snprintf(what, sizeof what, "an asynchronous spawn of %d process(es) (MPI_Comm_spawn on "
             "rank 0's helper thread)", a->n);
    xmpi_watchdog_arm(&a->watch, a->wait_timeout, 0, what);
    struct timespec c0, c1;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
    if (a->group) {
        a->rc = spawn_bridge(a->command, a->argv, a->n, a->infos, &a->bridges[0], a->papi);
        if (a->rc == MPI_SUCCESS) a->made = a->n, a->nbridges = 1;
    } else {
        for (int i = 0; i < a->n; i++) {
            a->rc = spawn_bridge(a->command, a->argv, 1, &a->infos[i], &a->bridges[i], a->papi);
            if (a->rc != MPI_SUCCESS) break;
            a->made++;
            a->nbridges++;
        }
    }
    xmpi_watchdog_disarm(&a->watch);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
    a->cpu = (double)(c1.tv_sec - c0.tv_sec) + 1e-9 * (double)(c1.tv_nsec - c0.tv_nsec);
    a->t_ready = PMPI_Wtime();
    __atomic_store_n(&a->finished, 1, __ATOMIC_RELEASE);
    return NULL;
}

static void async_free(struct xmpi_async *a)
{
    if (!a) return;
    xmpi_watchdog_stop(&a->watch);
    free_infos(a->infos, a->n);
    free(a->emu);
    free(a->hosts);
    free(a->bridges);
    free(a->command);
    for (char **p = a->argv; p && *p; p++) free(*p);
    free(a->argv);
    free(a);
}

int xmpi_world_spawn_begin(struct xmpi_ctx *cx, const char *command, char *argv[],
                           const int *hosts, int n, MPI_Info info)
{
    struct xmpi_world *w = &cx->world;
    struct xmpi_async *a = calloc(1, sizeof *a);
    if (!a) return XMPI_ERR_NOMEM;
    a->n = n;
    a->group = cx->opts.spawn == 1;
    a->rc = MPI_SUCCESS;
    a->wait_timeout = (int)cx->opts.wait_timeout;
    a->papi = xmpi_monitor_source_code(cx);
    a->t_begin = PMPI_Wtime();
    xmpi_watchdog_init(&a->watch);
    int argc = 0;
    while (argv && argv[argc]) argc++;
    a->command = strdup(command);
    a->argv = argc ? calloc((size_t)argc + 1, sizeof *a->argv) : NULL;
    int ok = a->command && (!argc || a->argv);
    for (int i = 0; ok && i < argc; i++) ok = (a->argv[i] = strdup(argv[i])) != NULL;
    a->hosts = malloc(sizeof *a->hosts * (size_t)n);
    a->bridges = malloc(sizeof *a->bridges * (size_t)n);
    if (ok && a->hosts && a->bridges) {
        memcpy(a->hosts, hosts, sizeof *a->hosts * (size_t)n);
        for (int i = 0; i < n; i++) a->bridges[i] = MPI_COMM_NULL;
        spawn_infos(cx, hosts, n, info, &a->infos, &a->emu);
    }
    if (!ok || !a->hosts || !a->bridges || !a->infos || !a->emu) {
        async_free(a);
        return XMPI_ERR_NOMEM;
    }
    a->threaded = xmpi_thread_start(&a->thread, async_main, a) == 0;
    /* No thread to be had: the spawn is done here, and joins at the next interval end. */
    if (!a->threaded) async_main(a);
    w->async = a;
    return XMPI_SUCCESS;
}

int xmpi_world_spawn_ready(const struct xmpi_ctx *cx, double *seconds, double *cpu)
{
    const struct xmpi_async *a = cx->world.async;
    if (!a) return -1;
    int done = __atomic_load_n(&a->finished, __ATOMIC_ACQUIRE);
    if (seconds) *seconds = (done ? a->t_ready : PMPI_Wtime()) - a->t_begin;
    if (cpu) *cpu = done ? a->cpu : 0;
    return done;
}

const int *xmpi_world_spawn_hosts(const struct xmpi_ctx *cx)
{
    return cx->world.async ? cx->world.async->hosts : NULL;
}

int xmpi_world_spawn_join(struct xmpi_ctx *cx, const struct xmpi_join *join, int *done)
{
    struct xmpi_world *w = &cx->world;
    struct xmpi_async *a = w->async;
    int st[3] = {0, 0, 0};   /* failed, processes started, bridges */
    xmpi_otf2_enter(cx, XMPIR_OTF2_SPAWN);
    if (cx->rank == 0) {
        if (a->threaded) pthread_join(a->thread, NULL);
        st[0] = a->rc != MPI_SUCCESS;
        st[1] = a->made;
        st[2] = a->nbridges;
    }
    PMPI_Bcast(st, 3, MPI_INT, 0, cx->comm);
    int group = st[2] == 1 && st[1] > 1;
    *done = 0;
    for (int b = 0; b < st[2]; b++) {
        int k = group ? st[1] : 1;
        int rc = spawn_round(cx, NULL, NULL, k, NULL, group ? 0 : st[2] - 1 - b,
                             a && a->emu ? &a->emu[group ? 0 : b] : NULL, join,
                             a ? a->bridges[b] : MPI_COMM_NULL);
        if (rc != XMPI_SUCCESS) break;   /* the bridge was made: this does not happen */
        if (a) a->bridges[b] = MPI_COMM_NULL;
        *done += k;
    }
    if (cx->rank == 0) {
        if (*done > 0) xmpi_sched_add(&w->sched, a->hosts, *done, a->group);
        async_free(a);
        w->async = NULL;
    }
    w->pending = 0;
    xmpi_otf2_leave(cx, XMPIR_OTF2_SPAWN, "asynchronous");
    return st[0] ? XMPI_ERR_SPAWN : XMPI_SUCCESS;
}

/* Rank 0 (inside MPI_Finalize): the spawn under way is waited for, and the processes it
 * started leave without joining. */
static void spawn_cancel(struct xmpi_ctx *cx)
{
    struct xmpi_async *a = cx->world.async;
    if (!a) return;
    if (a->threaded) pthread_join(a->thread, NULL);
    for (int b = 0; b < a->nbridges; b++) {
        if (a->bridges[b] == MPI_COMM_NULL) continue;
        send_go(a->bridges[b], 0);
        PMPI_Comm_free(&a->bridges[b]);
    }
    xmpi_note(cx, 1, "an asynchronous spawn of %d process(es) had not joined at MPI_Finalize: "
              "%d started and left without running the program", a->n, a->made);
    async_free(a);
    cx->world.async = NULL;
}

#ifdef MPICH
/* The communicators of the smaller job (MPI_COMM_NULL on the leaving processes), made so that
 * they hold no connection to a leaving process. MPICH's ch3 gives a communicator whose ranks
 * are the first ones of its parent, in order, the parent's table of connections instead of a
 * table of its own (src/mpid/ch3/src/ch3u_comm.c, dup_vcrt): removing the last processes made
 * exactly such a communicator, which kept the connections to the leaving ones open, and their
 * MPI_Finalize waited, polling, for the job's end. Made from an intermediate communicator of
 * the staying processes in reverse order, neither is a prefix of its parent. The leaving
 * processes take part in the first creation only. */
static void smaller_pair(MPI_Comm comm, MPI_Group keep, MPI_Comm *smaller, MPI_Comm *twin)
{
    int k = 0;
    PMPI_Group_size(keep, &k);
    int *rev = malloc(sizeof *rev * (size_t)(k > 0 ? k : 1));
    if (!rev) xmpi_die_nomem(xmpi_ctx, "XMPI_Remove");
    for (int i = 0; i < k; i++) rev[i] = k - 1 - i;
    MPI_Group backwards, forwards, rgroup;
    MPI_Comm reversed;
    PMPI_Group_incl(keep, k, rev, &backwards);
    PMPI_Comm_create(comm, backwards, &reversed);
    PMPI_Group_free(&backwards);
    *smaller = *twin = MPI_COMM_NULL;
    if (reversed != MPI_COMM_NULL) {
        PMPI_Comm_group(reversed, &rgroup);
        PMPI_Group_incl(rgroup, k, rev, &forwards);
        PMPI_Comm_create(reversed, forwards, smaller);
        PMPI_Comm_create(reversed, forwards, twin);
        PMPI_Group_free(&forwards);
        PMPI_Group_free(&rgroup);
        PMPI_Comm_free(&reversed);
    }
    free(rev);
}
#else
/* Both communicators of the smaller job are made while the leaving processes still take
 * part: a duplicate made afterwards, by the processes that stay alone, waited for whichever
 * of them the leaving processes' exit kept off the cores (0.5-19 ms per removal on 2 cores,
 * against 0.3-1.4 ms for a creation). */
static void smaller_pair(MPI_Comm comm, MPI_Group keep, MPI_Comm *smaller, MPI_Comm *twin)
{
    PMPI_Comm_create(comm, keep, smaller);
    PMPI_Comm_create(comm, keep, twin);
}
#endif

/* Every process: the communicators of the job before the removal go. Under MPICH by
 * MPI_Comm_disconnect, on both sides: ch3 closes a connection to a spawned process only when
 * the last communicator that holds it is disconnected, not freed, by both processes (a freed
 * one leaves it open until MPI_Finalize, where the leaving process then waited, polling, for
 * the others' MPI_Finalize). Disconnecting waits for the other side's disconnect, here in the
 * same call. Open MPI 4.1 hangs disconnecting a merged intracommunicator, and lets a spawned
 * process finalize while connected: freed there. */
static void release_old(struct xmpi_ctx *cx)
{
#ifdef MPICH
    PMPI_Comm_disconnect(&XMPI_COMM_WORLD);
    PMPI_Comm_disconnect(&cx->comm);
#else
    (void)cx;   /* adopt_pair frees them */
#endif
}

void xmpi_world_remove(struct xmpi_ctx *cx, const int *ranks, int n)
{
    MPI_Group all, keep;
    MPI_Comm smaller, twin;
    xmpi_otf2_enter(cx, XMPIR_OTF2_REMOVE);
    xmpi_watchdog_arm(&cx->watch, (int)cx->opts.wait_timeout, cx->rank, "XMPI_Remove");
    double mark[2];
    xmpi_step_begin(cx, mark);
    PMPI_Comm_group(cx->comm, &all);
    PMPI_Group_excl(all, n, ranks, &keep);
    smaller_pair(cx->comm, keep, &smaller, &twin);
    PMPI_Group_free(&all);
    PMPI_Group_free(&keep);
    xmpi_step_end(cx, XMPIR_STEP_REMOVE_MPI, mark);
    if (cx->rank == 0) xmpi_sched_remove(&cx->world.sched, ranks, n);
#ifdef MPICH
    /* Where a leaving process that MPI cannot let go is woken at the job's end (leave.h). */
    struct xmpi_leave *lv = &cx->world.leave;
    if (cx->rank == 0 && !lv->listening) xmpi_leave_listen(lv);
    PMPI_Bcast(&lv->to, (int)sizeof lv->to, MPI_BYTE, 0, cx->comm);
#endif
    release_old(cx);
    xmpi_watchdog_disarm(&cx->watch);
    if (smaller == MPI_COMM_NULL) {
        cx->status = XMPI_REMOVED;
        xmpi_emulate_release(&cx->emu);
    }
    adopt_pair(cx, smaller, twin);
    xmpi_otf2_removed(cx);
}

void xmpi_world_stop(struct xmpi_ctx *cx)
{
    struct xmpi_world *w = &cx->world;
    if (cx->rank == 0) spawn_cancel(cx);
    /* The job ends: removed processes asleep in MPI_Finalize go on (leave.h). */
    if (cx->rank == 0) xmpi_leave_close(&w->leave);
    w->pending = 0;
    xmpi_emulate_release(&cx->emu);
    if (w->have_sched) {
        xmpi_sched_free(&w->sched);
        xmpi_pool_free(&w->pool);
        w->have_sched = 0;
    }
    adopt(cx, MPI_COMM_NULL);
}

double xmpi_world_cost_rate(const struct xmpi_world *w)
{
    if (!w->have_sched || w->sched.nprocs < 1) return -1;
    double *c = malloc(sizeof *c * (size_t)w->sched.nprocs);
    if (!c) return -1;
    for (int i = 0; i < w->sched.nprocs; i++) c[i] = w->pool.hosts[w->sched.procs[i].host].cost;
    double rate = xmpi_cost_rate(c, w->sched.nprocs);
    free(c);
    return rate;
}
