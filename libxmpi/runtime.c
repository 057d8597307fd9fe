/* MPI_Init / MPI_Init_thread / MPI_Finalize wrappers: start and stop the library around
 * the MPI library's own init and finalize, transparently to the program; the context. */
#include "context.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "../io/trace.h"
#include "../policies/malleability.h"
#include "../policies/scheduler.h"
#include "pipeline.h"
#include "runtime.h"
#include "xmpi.h"

extern char **environ;

MPI_Comm XMPI_COMM_WORLD = MPI_COMM_NULL;
static struct xmpi_ctx the_context = {.comm = MPI_COMM_NULL};
struct xmpi_ctx *const xmpi_ctx = &the_context;
/* Rank 0: where the trace's rows go and the file they become at MPI_Finalize. */
static struct xmpi_trace_dest trace_dest;

int xmpi_ready(const struct xmpi_ctx *cx)
{
    return cx->phase == XMPIR_PHASE_RUNNING ? XMPI_SUCCESS : XMPI_ERR_STATE;
}

int xmpi_member(const struct xmpi_ctx *cx)
{
    int rc = xmpi_ready(cx);
    if (rc) return rc;
    return cx->status == XMPI_REMOVED ? XMPI_ERR_STATE : XMPI_SUCCESS;
}

void xmpi_abort_said(int code)
{
    fflush(stderr);
#ifdef MPICH
    /* Hydra's mpiexec (MPICH 4.0) exits the moment it hears of MPI_Abort, dropping what its
     * proxies have not yet forwarded: the line a process wrote just before, and that of any
     * other process aborting at the same moment, were lost now and then. A moment lets the
     * proxies read them first. */
    nanosleep(&(struct timespec){0, 300000000L}, NULL);
#endif
    PMPI_Abort(MPI_COMM_WORLD, code);
}

void xmpi_die_nomem(const struct xmpi_ctx *cx, const char *where)
{
    fprintf(stderr, "xmpi: rank %d: out of memory in %s\n", cx->rank, where);
    xmpi_abort_said(3);
    abort();
}

void xmpi_note(const struct xmpi_ctx *cx, int level, const char *fmt, ...)
{
    if (cx->rank != 0 || cx->opts.verbose < level) return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "xmpi: %s\n", line);
}

int XMPI_Get_option(const char *name, char *value, int len)
{
    int rc = xmpi_ready(xmpi_ctx);
    if (rc) return rc;
    if (len < 1 || !value) return XMPI_ERR_ARG;
    /* Formatted aside first: a refused call leaves the program's buffer as it was. The
     * longest value is a path or a list of events, well inside the room here. */
    enum { ROOM = 1 << 16 };
    char *tmp = malloc(ROOM);
    if (!tmp) return XMPI_ERR_NOMEM;
    rc = xmpi_options_format(&xmpi_ctx->opts, name, tmp, ROOM) || strlen(tmp) >= (size_t)len
             ? XMPI_ERR_ARG : XMPI_SUCCESS;
    if (!rc) memcpy(value, tmp, strlen(tmp) + 1);
    free(tmp);
    return rc;
}

int XMPI_Get_process_status(void)
{
    return xmpi_ready(xmpi_ctx) == XMPI_SUCCESS ? xmpi_ctx->status : -1;
}

/* A process that exits without MPI_Finalize (or after a removal) leaves no cgroup behind. */
static void release_at_exit(void)
{
    xmpi_emulate_release(&xmpi_ctx->emu);
}

/* MPI_Init(NULL, NULL) gives us no argv: read our own command line instead, so
 * that --xmpi- options still apply (they cannot be removed from main's argv). The spawn mark
 * (world.h) is left out, as MPI_Init takes it out of an argv it is given. *mark (may be
 * NULL) says whether it was there. */
static int read_cmdline(char *buf, size_t len, char **argv, int max, int *mark)
{
    if (mark) *mark = 0;
    FILE *f = fopen("/proc/self/cmdline", "r");
    if (!f) return 0;
    size_t n = fread(buf, 1, len - 1, f);
    fclose(f);
    buf[n] = '\0';
    int argc = 0;
    for (size_t i = 0; i < n && argc < max; i += strlen(buf + i) + 1) {
        if (i > 0 && !strcmp(buf + i, XMPIR_SPAWN_MARK)) {
            if (mark) *mark = 1;
            continue;
        }
        argv[argc++] = buf + i;
    }
    return argc;
}

/* Whether the library spawned this process (its mark among the arguments, world.h), taking
 * the mark out of argv so that the program never sees it; without argv, the command line
 * tells (the mark then stays in main's arguments, as --xmpi- options do). */
static int take_spawn_mark(int *argc, char ***argv)
{
    if (!argc || !argv || !*argv) {
        char buf[8192], *av[256];
        int mark;
        (void)read_cmdline(buf, sizeof buf, av, 255, &mark);
        return mark;
    }
    char **av = *argv;
    int k = 1, mark = 0;
    for (int i = 1; i < *argc; i++) {
        if (av[i] && !strcmp(av[i], XMPIR_SPAWN_MARK)) mark = 1;
        else av[k++] = av[i];
    }
    if (mark && *argc > 0) {
        av[k] = NULL;
        *argc = k;
    }
    return mark;
}

/* Bad configuration: the lowest rank that found a problem says it once, then the
 * job stops before any work. Everyone else waits in a barrier that the abort ends. */
static void agree_or_abort(struct xmpi_ctx *cx, const char *err)
{
    int mine = err[0] ? cx->rank : cx->size, first;
    PMPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first == cx->size) return;
    /* Nothing of the job stays behind: an earlier trace is left as it was. */
    if (cx->rank == 0 && cx->trace) xmpi_trace_discard(cx->trace, &trace_dest);
    cx->trace = NULL;
    if (cx->rank == first) {
        fprintf(stderr, "%s\nxmpi: the job stops before any work (run with --xmpi-help for all options)\n",
                err);
        xmpi_abort_said(2);
    }
    PMPI_Barrier(MPI_COMM_WORLD);
    PMPI_Abort(MPI_COMM_WORLD, 2);
}

/* The program's own arguments, for the processes the policy spawns; --xmpi- options stay
 * out (spawned processes inherit their parents' options). */
static void save_argv(struct xmpi_ctx *cx, int argc, char **av)
{
    cx->argv = calloc((size_t)(argc > 0 ? argc : 1), sizeof *cx->argv);
    if (!cx->argv) return;
    int n = 0;
    for (int i = 1; av && i < argc; i++)
        if (av[i] && strncmp(av[i], "--xmpi-", 7) && (cx->argv[n] = strdup(av[i]))) n++;
    cx->argv[n] = NULL;
}

static void free_argv(struct xmpi_ctx *cx)
{
    for (int i = 0; cx->argv && cx->argv[i]; i++) free(cx->argv[i]);
    free(cx->argv);
    cx->argv = NULL;
}

/* What the option table cannot judge alone: the policy this build offers and a cap the job
 * already exceeds. */
static void check_malleability(const struct xmpi_ctx *cx, char *err, size_t len)
{
    if (cx->opts.policy == XMPIR_POLICY_AMP && !cx->opts.goal[0])
        snprintf(err, len, "xmpi: option --xmpi-policy=amp needs a goal: --xmpi-goal=SECONDS "
                 "(completion time from MPI_Init) or --xmpi-goal=PCT%% (that much sooner than "
                 "the static estimate)");
    else if (cx->opts.max_procs > 0 && cx->opts.max_procs < cx->size)
        snprintf(err, len, "xmpi: option --xmpi-max-procs: %ld is below the %d processes mpirun "
                 "started; expected 0 (no limit) or at least %d", cx->opts.max_procs, cx->size,
                 cx->size);
}

/* The options, from the command line (or /proc/self/cmdline when MPI_Init got none; then
 * the --xmpi- options stay in the program's argv) and the environment; the program's own
 * arguments are kept for the processes a policy spawns. cmdline and cmdargv hold the
 * arguments read from /proc while the options are parsed. */
static void read_options(struct xmpi_ctx *cx, int *argc, char ***argv, char *cmdline, size_t len,
                         char **cmdargv, int maxargs, char *err, size_t errlen)
{
    int cmdargc = 0, *pargc = argc, remove = 1;
    char **av = argv ? *argv : NULL;
    if (!argc || !argv || !*argv) {
        cmdargc = read_cmdline(cmdline, len, cmdargv, maxargs - 1, NULL);
        cmdargv[cmdargc] = NULL;
        pargc = &cmdargc;
        av = cmdargv;
        remove = 0;
    }
    snprintf(cx->progname, sizeof cx->progname, "%s",
             av && pargc && *pargc > 0 ? av[0] : "program");
    save_argv(cx, pargc ? *pargc : 0, av);
    xmpi_options_defaults(&cx->opts);
    xmpi_options_parse(&cx->opts, pargc, av, remove, environ, err, errlen);
    if (!err[0]) check_malleability(cx, err, errlen);
}

/* A spawned process: its parents checked the options, and it inherits theirs; it joins them
 * inside MPI_Init. */
static void start_child(struct xmpi_ctx *cx, MPI_Comm parent)
{
    struct xmpi_join join;
    xmpi_world_start_child(cx, parent, &join);
    xmpi_monitor_join(cx, join.iterations, join.interval_index);
    cx->evaluates = join.evaluates;
    xmpi_monitor_follow_source(cx, join.papi);
    cx->phase = XMPIR_PHASE_RUNNING;
    /* The later spawns of the same call that it took part in are the library's time, not
     * the program's computation: under dilation (emulate.c) a first child of two on a
     * class at speed 0.23 slept 1 s after its start for a 0.3 s spawn round. */
    if (cx->emu.dilate) xmpi_emulate_resume(&cx->emu, PMPI_Wtime());
}

/* Rank 0: the files the options name, read and checked before anything is written (a job
 * stopped by a bad calibration file leaves no trace file), then the trace opened, never over
 * a file the job reads: the options' files, and the program itself. */
static void open_files(struct xmpi_ctx *cx, char *err, size_t len)
{
    xmpi_predict_calibrate(&cx->predict, cx->opts.calibration, err, len);
    if (!err[0]) xmpi_predict_load_profile(&cx->predict, cx->opts.work_profile, err, len);
    if (!err[0]) xmpi_ckpt_check(cx, err, len);
    if (!err[0]) xmpi_resize_check(cx, err, len);
    if (!err[0] && cx->opts.otf2[0]) xmpi_otf2_check(cx, err, len);
    if (err[0] || !cx->opts.trace[0]) return;
    struct xmpi_input_file in[XMPIR_INPUTS_MAX + 1];
    int nin = xmpi_options_inputs(&cx->opts, in, XMPIR_INPUTS_MAX);
    snprintf(in[nin].option, sizeof in[nin].option, "the program");
    ssize_t k = readlink("/proc/self/exe", in[nin].path, sizeof in[nin].path - 1);
    if (k > 0) in[nin].path[k] = '\0';
    else snprintf(in[nin].path, sizeof in[nin].path, "/proc/self/exe");
    cx->trace = xmpi_trace_begin(cx->opts.trace, in, nin + 1, &trace_dest, err, len);
    /* A resize's relaunch goes on with the rows the job before it wrote. */
    if (cx->trace && cx->resize.relaunched && trace_dest.target[0] &&
        xmpi_trace_carry(cx->trace, trace_dest.target))
        xmpi_note(cx, 0, "option --xmpi-trace: cannot copy the rows of the launch before "
                  "this one from %s; the trace starts at this launch", trace_dest.target);
}

/* The processes, their placement and the resource manager; rank 0 also checks what needs the
 * pool (a cost constraint needs priced PEs) and starts the model on it. */
static void start_world(struct xmpi_ctx *cx, char *err, size_t len)
{
    if (xmpi_world_start_initial(cx, err, len) || cx->rank != 0) return;
    const struct xmpi_pool *pool = &cx->world.pool;
    int priced = 0;
    for (int h = 0; h < pool->nhosts; h++) priced |= pool->hosts[h].cost > 0;
    if (cx->opts.policy == XMPIR_POLICY_AMP && cx->opts.constraint == 1 && !priced)
        snprintf(err, len, "xmpi: option --xmpi-constraint=cost: every PE of the pool costs 0 "
                 "(%.200s); give costs per PE-hour in --xmpi-resources, or use "
                 "--xmpi-constraint=efficiency", cx->opts.resources[0] ?
                 cx->opts.resources : "the local host, without --xmpi-resources");
    xmpi_predict_start(cx, &cx->world.pool, cx->opts.spawn == 1);
    char why[768] = "";
    if (xmpi_rms_start(cx, why, sizeof why)) snprintf(err, len, "xmpi: option --xmpi-rms: %s", why);
}

/* Rank 0: every option the user set that has no effect in this job, once, with what would
 * make it act (io/options.c). */
static void say_idle_options(struct xmpi_ctx *cx)
{
    if (cx->rank != 0) return;
    const struct xmpi_pool *pool = &cx->world.pool;
    int emulated = 0;
    for (int h = 0; h < pool->nhosts; h++) emulated |= pool->hosts[h].speed > 0 && pool->hosts[h].speed < 1;
    char lines[16][256];
    int n = xmpi_options_idle(&cx->opts, emulated, lines, 16);
    for (int i = 0; i < n; i++) xmpi_note(cx, 0, "%s", lines[i]);
}

/* What the job starts with, said once (--xmpi-verbose). */
static void say_started(struct xmpi_ctx *cx)
{
    say_idle_options(cx);
    if (cx->async_want && !cx->async)
        xmpi_note(cx, 0, "option --xmpi-spawn-async=on: the MPI library does not provide "
                  "MPI_THREAD_MULTIPLE; a policy's spawns make the job wait (as "
                  "--xmpi-spawn-async=off)");
    xmpi_note(cx, 2, "started on %d processes, sampling interval %ld; waiting processes %s the "
              "core (%s)", cx->size, cx->opts.si, cx->yield ? "yield" : "keep",
              cx->yield_why[0] ? cx->yield_why : "the MPI library's default");
    char cal[XMPIR_PATH_MAX + 320] = "";
    if (cx->rank == 0) xmpi_predict_describe(&cx->predict, cal, sizeof cal);
    xmpi_note(cx, 1, "%s", cal);
    if (cx->predict.profile)
        xmpi_note(cx, 1, "work profile: %d intervals from %s", cx->predict.nprofile,
                  cx->opts.work_profile);
}

static void start(int *argc, char ***argv)
{
    struct xmpi_ctx *cx = xmpi_ctx;
    char err[1024] = "", cmdline[8192], *cmdargv[256];
    MPI_Comm parent;
    cx->t0 = PMPI_Wtime();
    PMPI_Comm_rank(MPI_COMM_WORLD, &cx->rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &cx->size);
    PMPI_Comm_get_parent(&parent);
    /* A process the program spawned with plain MPI starts as mpirun's processes do: a job of
     * the library on its own MPI_COMM_WORLD, its parent left to the program. */
    if (!cx->spawned) parent = MPI_COMM_NULL;
    read_options(cx, argc, argv, cmdline, sizeof cmdline, cmdargv, 256, err, sizeof err);
    xmpi_monitor_init(cx);
    xmpi_step_init(cx);
    /* PAPI_library_init costs 3-4 ms of CPU: the processes mpirun started pay it here rather
     * than in their first monitored iteration. A spawned process pays it only if its parents
     * count events (a job works from one source): as soon as it is started (world.c, before
     * an asynchronous spawn's join), or after the join below. */
    if (parent == MPI_COMM_NULL) {
        xmpi_hwcount_load();
        if (!err[0]) xmpi_monitor_prechoose(cx);
    }
    xmpi_emulate_init(&cx->emu);
    xmpi_watchdog_init(&cx->watch);
    atexit(release_at_exit);
    xmpi_predict_calibrate(&cx->predict, NULL, NULL, 0);
    if (parent != MPI_COMM_NULL) {
        start_child(cx, parent);
        return;
    }
    if (!err[0] && cx->rank == 0 && !cx->opts.help) open_files(cx, err, sizeof err);
    agree_or_abort(cx, err);
    if (cx->opts.help) {
        /* The one place the library ends the process: asked for by the user. */
        if (cx->rank == 0) xmpi_options_help(stdout, cx->progname);
        fflush(stdout);
        PMPI_Finalize();
        exit(0);
    }
    cx->status = XMPI_RUNNING;
    start_world(cx, err, sizeof err);
    agree_or_abort(cx, err);
    xmpi_otf2_start(cx);
    /* Restarted: every process takes its rows as a spawned one does (XMPI_Get_data). */
    if (xmpi_ckpt_start(cx)) {
        cx->status = XMPI_NEWLY_SPAWNED;
        /* The resource manager's events up to the checkpoint happened to the job before. */
        if (cx->rank == 0 && cx->rms.kind == XMPIR_RMS_SCHEDULE)
            xmpi_rms_schedule_replay(&cx->rms.schedule, (long)cx->ckpt.manifest->iteration);
    }
    xmpi_resize_start(cx);
    xmpi_world_emulate_initial(cx);
    cx->phase = XMPIR_PHASE_RUNNING;
    say_started(cx);
}

/* Before PMPI_Init, in every process: the local core count (xmpi_local_pes, kept for the
 * process) needs only hwloc's built-in discovery, so hwloc's plugins stay unloaded for it
 * (HWLOC_PLUGINS_PATH empty for the call, unless the user set it). Debian's load the GL and
 * OpenCL plugins and with them libX11: with them a count took 12-14 ms of CPU, without them
 * 1-2 ms, in every spawned process too. The environment changes only here, before MPI starts
 * threads that may read it. */
static void count_cores(void)
{
    int set = !getenv("HWLOC_PLUGINS_PATH");
    if (set) setenv("HWLOC_PLUGINS_PATH", "", 1);
    (void)xmpi_local_pes();
    if (set) unsetenv("HWLOC_PLUGINS_PATH");
}

/* Before PMPI_Init, while MPI still reads its parameters from the environment: the options
 * are read here without being taken out of argv (start() parses and checks them) for what
 * must be settled before MPI starts.
 * - Should a waiting process give up its core (--xmpi-yield)? Open MPI yields only where
 *   mpirun itself oversubscribed the node; processes spawned later share the cores with
 *   parents that spin, and a spawned CG ran 35 times slower per iteration on 2 cores
 *   (docs/architecture.md).
 * - Does the job need MPI_THREAD_MULTIPLE: a policy that may grow it, with asynchronous spawns
 *   (--xmpi-spawn-async=on, the default)? */
static void settle_before_init(struct xmpi_ctx *cx, int *argc, char ***argv)
{
    count_cores();
    char cmdline[8192], *cmdargv[256], err[512] = "";
    int n = 0;
    char **av = argv ? *argv : NULL;
    if (!argc || !av) {
        n = read_cmdline(cmdline, sizeof cmdline, cmdargv, 255, NULL);
        cmdargv[n] = NULL;
        av = cmdargv;
        argc = &n;
    }
    struct xmpi_options *o = malloc(sizeof *o);
    if (!o) return;
    xmpi_options_defaults(o);
    int parsed = xmpi_options_parse(o, argc, av, 0, environ, err, sizeof err) == 0;
    cx->async_want = parsed && o->spawn_async == 0 && o->policy != XMPIR_POLICY_STATIC;
#ifdef OPEN_MPI
    int mode = XMPIR_YIELD_AUTO;
    const char *env = getenv("OMPI_MCA_mpi_yield_when_idle");
    if (env) {
        cx->yield = atoi(env) != 0 || !strcasecmp(env, "true") || !strcasecmp(env, "yes");
        snprintf(cx->yield_why, sizeof cx->yield_why, "OMPI_MCA_mpi_yield_when_idle=%s in the "
                 "environment", env);
        free(o);
        return;
    }
    if (parsed) {
        struct xmpi_pool pool = {0, NULL}, *pp = NULL;
        char host[256] = "";
        if (o->yield == XMPIR_YIELD_AUTO && !o->oversubscribe && o->resources[0] &&
            xmpi_pool_load(&pool, o->resources, err, sizeof err) == 0 &&
            gethostname(host, sizeof host - 1) == 0)
            pp = &pool;
        mode = o->yield;
        cx->yield = xmpi_sched_yield(o->yield, o->oversubscribe, pp, host, xmpi_local_pes());
        if (o->yield != XMPIR_YIELD_AUTO)
            snprintf(cx->yield_why, sizeof cx->yield_why, "--xmpi-yield=%s",
                     o->yield == XMPIR_YIELD_ON ? "on" : "off");
        else if (cx->yield)
            snprintf(cx->yield_why, sizeof cx->yield_why, "--xmpi-yield=auto: %s",
                     o->oversubscribe ? "--xmpi-oversubscribe" :
                     "the resource file gives this host more PEs than its cores");
        else
            snprintf(cx->yield_why, sizeof cx->yield_why, "--xmpi-yield=auto: no host may "
                     "hold more processes than cores");
        xmpi_pool_free(&pool);
    }
    /* off is said explicitly: Open MPI turns yielding on by itself when mpirun oversubscribed
     * the node. */
    if (cx->yield || mode == XMPIR_YIELD_OFF)
        setenv("OMPI_MCA_mpi_yield_when_idle", cx->yield ? "1" : "0", 0);
#endif
    free(o);
}

/* After PMPI_Init(_thread): asynchronous spawns where the job asked for them and MPI gave
 * the threads they need. The test hook LIBXMPI_FAULT=no-thread-multiple plays an MPI library
 * that provides less. */
static void settle_async(struct xmpi_ctx *cx, int provided)
{
    if (xmpi_fault_is("no-thread-multiple") && provided == MPI_THREAD_MULTIPLE)
        provided = MPI_THREAD_SERIALIZED;
    cx->async = cx->async_want && provided == MPI_THREAD_MULTIPLE;
}

/* Before PMPI_Init, in every process (spawned ones too): Open MPI's MPI-IO picks its
 * shared-file-pointer component on each process by what that process sees, and after a spawn
 * the parents took "sm" and the spawned process "lockedfile", whose MPI_File_open run
 * different collectives: a checkpoint of a grown job hung in MPI_File_open. The library uses
 * no shared file pointer; one component everywhere keeps the opens matched. A value in the
 * environment is kept. */
static void prepare_io(void)
{
#ifdef OPEN_MPI
    setenv("OMPI_MCA_sharedfp", "lockedfile", 0);
#endif
}

XMPI_PUBLIC int MPI_Init(int *argc, char ***argv)
{
    struct xmpi_ctx *cx = xmpi_ctx;
    cx->spawned = take_spawn_mark(argc, argv);
    prepare_io();
    settle_before_init(cx, argc, argv);
    int provided = MPI_THREAD_SINGLE, rc;
    /* Asking for threads the program did not want: MPI_Init's program sees no difference. */
    if (cx->async_want) rc = PMPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
    else rc = PMPI_Init(argc, argv);
    settle_async(cx, provided);
    if (rc == MPI_SUCCESS) start(argc, argv);
    return rc;
}

XMPI_PUBLIC int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    struct xmpi_ctx *cx = xmpi_ctx;
    cx->spawned = take_spawn_mark(argc, argv);
    prepare_io();
    settle_before_init(cx, argc, argv);
    int got = MPI_THREAD_SINGLE;
    /* The program is told the level it got, which is at least the one it asked for. */
    int rc = PMPI_Init_thread(argc, argv, cx->async_want ? MPI_THREAD_MULTIPLE : required, &got);
    if (provided) *provided = got;
    settle_async(cx, got);
    if (rc == MPI_SUCCESS) start(argc, argv);
    return rc;
}

XMPI_PUBLIC int MPI_Finalize(void)
{
    struct xmpi_ctx *cx = xmpi_ctx;
    if (cx->phase == XMPIR_PHASE_RUNNING) {
        xmpi_pipeline_finish(cx);
        xmpi_otf2_finish(cx);
        xmpi_monitor_free(cx);
        if (cx->rank == 0 && cx->opts.trace[0]) {
            /* The whole trace replaces an earlier one only now (the rows went to FILE.part). */
            char why[2 * XMPIR_PATH_MAX + 128];
            if (xmpi_trace_end(cx->trace, &trace_dest, why, sizeof why) && trace_dest.target[0])
                xmpi_note(cx, 0, "option --xmpi-trace: %s", why);
        }
        cx->trace = NULL;
        xmpi_registry_free(cx);
        xmpi_ckpt_free(cx);
        if (cx->rank == 0) xmpi_rms_stop(cx);
        xmpi_predict_free(&cx->predict);
        xmpi_world_stop(cx);
        xmpi_watchdog_stop(&cx->watch);
        xmpi_balance_free(&cx->balance);
        free_argv(cx);
        free(cx->app_data);
        cx->app_data = NULL;
        cx->phase = XMPIR_PHASE_DONE;
    }
#ifdef MPICH
    /* ch3 may keep a removed process here until the job ends: then without CPU (leave.h). */
    if (cx->status == XMPI_REMOVED) return xmpi_leave_finalize(&cx->world.leave, PMPI_Finalize);
#endif
    return PMPI_Finalize();
}

/* runtime.h: the same functions, hidden, so that calls to them never leave the library. */
int xmpi_runtime_init(int *argc, char ***argv) __attribute__((alias("MPI_Init")));
int xmpi_runtime_init_thread(int *argc, char ***argv, int required, int *provided)
    __attribute__((alias("MPI_Init_thread")));
int xmpi_runtime_finalize(void) __attribute__((alias("MPI_Finalize")));
