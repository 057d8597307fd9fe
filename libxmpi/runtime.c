/* MPI_Init / MPI_Init_thread / MPI_Finalize wrappers: start and stop the library
 * around the MPI library's own init and finalize, transparently to the program. */
#include "runtime.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calib.h"
#include "monitor.h"
#include "registry.h"
#include "../models/trace.h"
#include "world.h"
#include "xmpi.h"

extern char **environ;

MPI_Comm XMPI_COMM_WORLD = MPI_COMM_NULL;
struct xmpi_runtime xmpi_rt = {.comm = MPI_COMM_NULL};

int xmpi_runtime_ready(void)
{
    return xmpi_rt.phase == XMPI_PHASE_RUNNING ? XMPI_SUCCESS : XMPI_ERR_STATE;
}

void xmpi_note(int level, const char *fmt, ...)
{
    if (xmpi_rt.rank != 0 || xmpi_rt.opts.verbose < level) return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "xmpi: %s\n", line);
}

int XMPI_Get_option(const char *name, char *value, int len)
{
    int rc = xmpi_runtime_ready();
    if (rc) return rc;
    if (len < 1 || xmpi_options_format(&xmpi_rt.opts, name, value, (size_t)len)) return XMPI_ERR_ARG;
    return XMPI_SUCCESS;
}

int XMPI_Get_process_status(void)
{
    return xmpi_runtime_ready() == XMPI_SUCCESS ? xmpi_rt.status : -1;
}

/* MPI_Init(NULL, NULL) gives us no argv: read our own command line instead, so
 * that --xmpi- options still apply (they cannot be removed from main's argv). */
static int read_cmdline(char *buf, size_t len, char **argv, int max)
{
    FILE *f = fopen("/proc/self/cmdline", "r");
    if (!f) return 0;
    size_t n = fread(buf, 1, len - 1, f);
    fclose(f);
    buf[n] = '\0';
    int argc = 0;
    for (size_t i = 0; i < n && argc < max; i += strlen(buf + i) + 1) argv[argc++] = buf + i;
    return argc;
}

/* Bad configuration: the lowest rank that found a problem says it once, then the
 * job stops before any work. Everyone else waits in a barrier that the abort ends. */
static void agree_or_abort(const char *err)
{
    int mine = err[0] ? xmpi_rt.rank : xmpi_rt.size, first;
    PMPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first == xmpi_rt.size) return;
    if (xmpi_rt.rank == first) {
        fprintf(stderr, "%s\nxmpi: the job stops before any work (run with --xmpi-help for all options)\n",
                err);
        fflush(stderr);
        PMPI_Abort(MPI_COMM_WORLD, 2);
    }
    PMPI_Barrier(MPI_COMM_WORLD);
    PMPI_Abort(MPI_COMM_WORLD, 2);
}

static void start(int *argc, char ***argv)
{
    char err[1024] = "";
    char cmdline[8192];
    char *cmdargv[256];
    int cmdargc = 0;
    int *pargc = argc;
    char **av = argv ? *argv : NULL;
    int remove = 1;
    MPI_Comm parent;

    xmpi_rt.t0 = PMPI_Wtime();
    PMPI_Comm_rank(MPI_COMM_WORLD, &xmpi_rt.rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &xmpi_rt.size);
    PMPI_Comm_get_parent(&parent);
    if (!argc || !argv || !*argv) {
        cmdargc = read_cmdline(cmdline, sizeof cmdline, cmdargv, 255);
        cmdargv[cmdargc] = NULL;
        pargc = &cmdargc;
        av = cmdargv;
        remove = 0;
    }
    snprintf(xmpi_rt.progname, sizeof xmpi_rt.progname, "%s",
             av && pargc && *pargc > 0 ? av[0] : "program");

    xmpi_options_defaults(&xmpi_rt.opts);
    xmpi_options_parse(&xmpi_rt.opts, pargc, av, remove, environ, err, sizeof err);
    xmpi_monitor_init();

    if (parent != MPI_COMM_NULL) {
        /* A spawned process: its parents checked the options, and it inherits theirs. */
        xmpi_world_start_child(parent);
        xmpi_rt.phase = XMPI_PHASE_RUNNING;
        return;
    }

    /* Before the trace, so that a job stopped by a bad calibration file leaves no trace file. */
    if (!err[0] && xmpi_rt.rank == 0 && !xmpi_rt.opts.help)
        xmpi_calib_start(xmpi_rt.opts.calibration, err, sizeof err);
    if (!err[0] && xmpi_rt.rank == 0 && xmpi_rt.opts.trace[0] && !xmpi_rt.opts.help)
        xmpi_rt.trace = xmpi_trace_open(xmpi_rt.opts.trace, err, sizeof err);
    agree_or_abort(err);

    if (xmpi_rt.opts.help) {
        /* The one place the library ends the process: asked for by the user. */
        if (xmpi_rt.rank == 0) xmpi_options_help(stdout, xmpi_rt.progname);
        fflush(stdout);
        PMPI_Finalize();
        exit(0);
    }

    xmpi_rt.status = XMPI_RUNNING;
    xmpi_world_start_initial(err, sizeof err);
    agree_or_abort(err);
    xmpi_world_emulate_initial();
    xmpi_rt.phase = XMPI_PHASE_RUNNING;
    xmpi_note(2, "started on %d processes, sampling interval %ld", xmpi_rt.size,
              xmpi_rt.opts.si);
    char cal[XMPI_PATH_MAX + 160] = "";
    if (xmpi_rt.rank == 0) xmpi_calib_describe(cal, sizeof cal);
    xmpi_note(1, "%s", cal);
}

XMPI_PUBLIC int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS) start(argc, argv);
    return rc;
}

XMPI_PUBLIC int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS) start(argc, argv);
    return rc;
}

XMPI_PUBLIC int MPI_Finalize(void)
{
    if (xmpi_rt.phase == XMPI_PHASE_RUNNING) {
        xmpi_monitor_finish();
        if (xmpi_rt.trace) fclose(xmpi_rt.trace);
        xmpi_rt.trace = NULL;
        xmpi_registry_free();
        xmpi_world_stop();
        xmpi_rt.phase = XMPI_PHASE_DONE;
    }
    return PMPI_Finalize();
}
