/* --xmpi-rms=slurm on rank 0: Slurm's command-line tools (scontrol, sinfo, salloc, scancel), each
 * run under a time limit, tell what the job holds and what is idle, and grow or shrink its
 * allocation; the parsers and decisions are pure (io/slurm*.c).
 *
 * The command-line tools rather than libslurm: their output formats have stayed put for many
 * releases, while libslurm's ABI changes with each one, and a command that hangs can be killed. */
#define _GNU_SOURCE   /* posix_spawn_file_actions_addchdir_np, _addclosefrom_np, pipe2 */
#include "rms_slurm.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../io/rms_state.h"
#include "../io/slurm.h"
#include "../policies/slurm_plan.h"
#include "context.h"

extern char **environ;

/* A look at the job or the nodes answers in milliseconds; one that takes seconds is a
 * controller that does not answer (Slurm's own commands wait 10-20 s then). An update may take
 * about 5 s when Slurm refuses it (scontrol tries again for that long), and an expansion waits
 * up to EXPAND_WAIT s for its nodes. */
#define QUERY_S 5.0
#define UPDATE_S 15.0
#define EXPAND_WAIT 10
#define EXPAND_S 25.0
/* At most one look at Slurm a second, however short the sampling intervals, and no more often
 * than ten times the last look took: slurmctld serves the whole cluster, and a busy one answers
 * slowly. After a look that failed, the wait doubles (up to POLL_BACKOFF_S). */
#define POLL_PERIOD_S 1.0
#define POLL_BACKOFF_S 60.0
#define OUT_MAX (16 << 20)

struct xmpi_rms_slurm {
    long job;
    char label[64];
    char partition[XMPIR_NAME_MAX];
    char dir[256];        /* the commands' working directory: scontrol writes resize scripts */
    int n;                /* pool entries */
    int *cap;             /* each entry's capacity (its PEs before Slurm bounded them) */
    char *leaving;        /* each entry, at the last look: Slurm takes its node back */
    char *said;           /* each entry: told that the initial processes there cannot leave */
    double next;          /* monotonic seconds before which the poll does not look; 0: now */
    double wait;          /* the wait after a failed look, doubled at each failure */
    int expand_refused;   /* Slurm refused an expansion: no more idle nodes are offered */
    int release_refused;  /* Slurm refused to shrink the job: no more tries */
    char said_state[XMPIR_SLURM_STATE_MAX];
};

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* ---- running a command ------------------------------------------------------------------- */

struct buf {
    char *p;
    size_t n, cap;
};

static int buf_read(struct buf *b, int fd)
{
    if (b->cap - b->n < 4096) {
        size_t nc = b->cap ? 2 * b->cap : 8192;
        if (nc > OUT_MAX + 1) nc = OUT_MAX + 1;
        if (nc <= b->n + 1) {
            char sink[4096];   /* past the limit: read on, keep nothing */
            ssize_t k = read(fd, sink, sizeof sink);
            return k > 0 ? 1 : k == 0 ? 0 : (errno == EINTR ? 1 : 0);
        }
        char *p = realloc(b->p, nc);
        if (!p) return 0;
        b->p = p;
        b->cap = nc;
    }
    ssize_t k = read(fd, b->p + b->n, b->cap - b->n - 1);
    if (k < 0) return errno == EINTR || errno == EAGAIN ? 1 : 0;
    b->n += (size_t)k;
    b->p[b->n] = '\0';
    return k > 0;
}

/* The command line as a message shows it. */
static void describe(char *const argv[], char *out, size_t len)
{
    size_t w = 0;
    out[0] = '\0';
    for (int i = 0; argv[i] && w + 1 < len; i++)
        w += (size_t)snprintf(out + w, len - w, "%s%s", i ? " " : "", argv[i]);
}

/* The first line of a command's complaint, printable, for a message. */
static void first_line(const char *text, char *out, size_t len)
{
    size_t w = 0;
    const char *p = text ? text : "";
    while (*p == '\n' || *p == ' ') p++;
    for (; *p && *p != '\n' && w + 1 < len; p++) out[w++] = isprint((unsigned char)*p) ? *p : '?';
    out[w] = '\0';
}

/* Starts argv (argv[0] from PATH) with stdin from /dev/null, stdout and stderr into the pipes'
 * write ends po1 and pe1, in `dir` (NULL: here), in a process group of its own (to be killed
 * whole), with default signal handling whatever the MPI library set. 0 or posix_spawn's error. */
static int start_command(char *const argv[], const char *dir, int po1, int pe1, pid_t *pid)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&at);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, po1, 1);
    posix_spawn_file_actions_adddup2(&fa, pe1, 2);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    /* MPI's sockets and files stay with the job. */
    posix_spawn_file_actions_addclosefrom_np(&fa, 3);
#endif
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 29))
    if (dir) posix_spawn_file_actions_addchdir_np(&fa, dir);
#endif
    sigset_t all, none;
    sigfillset(&all);
    sigemptyset(&none);
    posix_spawnattr_setpgroup(&at, 0);
    posix_spawnattr_setsigdefault(&at, &all);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF |
                                      POSIX_SPAWN_SETSIGMASK);
    int rc = posix_spawnp(pid, argv[0], &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    return rc;
}

/* A started command's end: its output read from po0 and pe0 until it has exited and closed
 * them, or until `seconds` are up; a command that closed its output and goes on is waited for
 * within the same limit (and one that exited while something it started holds its output is
 * judged by its exit). Whatever is left of it is killed. *timed_out when it did not end. */
static pid_t await_command(pid_t pid, int po0, int pe0, double seconds, struct buf *bo,
                           struct buf *be, int *status, int *timed_out)
{
    double end = now_s() + seconds;
    int open_o = 1, open_e = 1;
    pid_t w = 0;
    *timed_out = 0;
    while (w == 0 || open_o || open_e) {
        double left = end - now_s();
        if (left <= 0) {
            *timed_out = w == 0;
            break;
        }
        if (open_o || open_e) {
            struct pollfd fds[2] = {{open_o ? po0 : -1, POLLIN, 0}, {open_e ? pe0 : -1, POLLIN, 0}};
            int ms = w ? (int)(left * 1000) + 1 : left > 0.05 ? 50 : (int)(left * 1000) + 1;
            int k = poll(fds, 2, ms);
            if (k < 0 && errno != EINTR) break;
            if (k > 0 && open_o && fds[0].revents) open_o = buf_read(bo, po0);
            if (k > 0 && open_e && fds[1].revents) open_e = buf_read(be, pe0);
        } else {
            struct timespec nap = {0, 10 * 1000 * 1000};
            nanosleep(&nap, NULL);
        }
        if (w == 0) {
            w = waitpid(pid, status, WNOHANG);
            if (w < 0 && errno == EINTR) w = 0;
        }
    }
    /* The command itself when it did not end in time, anything it started that still holds
     * its output. (Its process group cannot have been reused: the command is not reaped yet,
     * or a member still holds the pipe.) */
    if (w == 0 || open_o || open_e) kill(-pid, SIGKILL);
    if (w == 0) {
        while ((w = waitpid(pid, status, 0)) < 0 && errno == EINTR) {
        }
        if (!*timed_out && w == pid) *timed_out = !(WIFEXITED(*status) || WIFSIGNALED(*status));
    }
    return w;
}

/* Why a command `cmd` that did not exit 0 failed, with the first line of its complaint. */
static void command_failed(const char *cmd, pid_t w, int status, const char *out,
                           const char *errout, char *why, size_t whylen)
{
    char complaint[300];
    first_line(errout && errout[0] ? errout : out, complaint, sizeof complaint);
    if (w < 0)
        snprintf(why, whylen, "%s: its exit status is lost (%s: SIGCHLD ignored, or reaped by "
                 "another part of the program)", cmd, strerror(errno));
    else if (WIFSIGNALED(status))
        snprintf(why, whylen, "%s was killed by signal %d%s%s", cmd, WTERMSIG(status),
                 complaint[0] ? ": " : "", complaint);
    else
        snprintf(why, whylen, "%s failed (exit status %d)%s%s", cmd, WEXITSTATUS(status),
                 complaint[0] ? ": " : "", complaint);
}

/* Runs argv (argv[0] from PATH) with stdin from /dev/null, in `dir` (NULL: here), for at most
 * `seconds`, its stdout in out and its stderr in errout (both malloc'ed, NUL-terminated, to
 * free). 0 when it exited 0; -1 with why otherwise (not found, killed after the time limit,
 * its exit status and first line of complaint). A command still running at the limit is
 * killed with its process group. */
static int run_command(char *const argv[], const char *dir, double seconds, char **out, char **errout,
               char *why, size_t whylen)
{
    char cmd[512];
    describe(argv, cmd, sizeof cmd);
    /* Empty output for the caller to look at, whatever happens. */
    *out = strdup("");
    *errout = strdup("");
    if (!*out || !*errout) {
        snprintf(why, whylen, "cannot run %s: out of memory", cmd);
        return -1;
    }
    int po[2] = {-1, -1}, pe[2] = {-1, -1};
    if (pipe2(po, O_CLOEXEC) || pipe2(pe, O_CLOEXEC)) {
        snprintf(why, whylen, "cannot run %s: pipe: %s", cmd, strerror(errno));
        if (po[0] >= 0) close(po[0]), close(po[1]);
        return -1;
    }
    pid_t pid;
    int rc = start_command(argv, dir, po[1], pe[1], &pid);
    close(po[1]);
    close(pe[1]);
    if (rc) {
        close(po[0]);
        close(pe[0]);
        struct stat sd;
        if (rc == ENOENT && dir && stat(dir, &sd) != 0)
            snprintf(why, whylen, "cannot run %s: its working directory %s is gone (removed by a "
                     "cleaner of temporary files?)", cmd, dir);
        else if (rc == ENOENT)
            snprintf(why, whylen, "cannot run %s: %s is not in PATH (is Slurm's client installed? "
                     "Debian: apt install slurm-client)", cmd, argv[0]);
        else snprintf(why, whylen, "cannot run %s: %s", cmd, strerror(rc));
        return -1;
    }
    struct buf bo = {0}, be = {0};
    int status = 0, timed_out = 0;
    pid_t w = await_command(pid, po[0], pe[0], seconds, &bo, &be, &status, &timed_out);
    close(po[0]);
    close(pe[0]);
    if (bo.p) free(*out), *out = bo.p;
    if (be.p) free(*errout), *errout = be.p;
    if (timed_out) {
        snprintf(why, whylen, "%s did not answer within %g s (is slurmctld running and "
                 "reachable? SlurmctldHost in slurm.conf, SLURM_CONF)", cmd, seconds);
        return -1;
    }
    if (w == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0) return 0;
    command_failed(cmd, w, status, *out, *errout, why, whylen);
    return -1;
}

/* ---- what Slurm says ---------------------------------------------------------------------- */

static int query_job(long id, struct xmpi_slurm_job *job, char *err, size_t errlen)
{
    char num[24];
    snprintf(num, sizeof num, "%ld", id);
    char *argv[] = {"scontrol", "show", "job", "-d", num, NULL};
    char *out, *eo, why[768];
    int rc = run_command(argv, NULL, QUERY_S, &out, &eo, why, sizeof why);
    if (rc) {
        snprintf(err, errlen, "Slurm cannot describe job %ld: %s", id, why);
    } else {
        char name[64];
        snprintf(name, sizeof name, "scontrol show job -d %ld", id);
        FILE *f = fmemopen(out, strlen(out), "r");
        rc = f ? xmpi_slurm_job_parse(job, f, name, err, errlen) : -1;
        if (f) fclose(f);
        else snprintf(err, errlen, "out of memory");
        if (!rc && job->id != id) {
            snprintf(err, errlen, "scontrol show job -d %ld describes job %ld", id, job->id);
            xmpi_slurm_job_free(job);
            rc = -1;
        }
    }
    free(out);
    free(eo);
    return rc;
}

static int query_nodes(const char *partition, struct xmpi_slurm_nodes *nodes, char *err,
                       size_t errlen)
{
    char *argv[] = {"sinfo", "-h", "-N", "-p", (char *)partition, "-o", XMPIR_SLURM_SINFO_FORMAT,
                    NULL};
    char *out, *eo, why[768];
    int rc = run_command(argv, NULL, QUERY_S, &out, &eo, why, sizeof why);
    if (rc) {
        snprintf(err, errlen, "Slurm cannot list the nodes of partition %s: %s", partition, why);
    } else {
        char name[XMPIR_NAME_MAX + 64];
        snprintf(name, sizeof name, "sinfo -h -N -p %s -o '%s'", partition,
                 XMPIR_SLURM_SINFO_FORMAT);
        FILE *f = fmemopen(out, strlen(out), "r");
        rc = f ? xmpi_slurm_nodes_parse(nodes, f, name, err, errlen) : -1;
        if (f) fclose(f);
        else snprintf(err, errlen, "out of memory");
    }
    free(out);
    free(eo);
    return rc;
}

/* SLURM_JOB_ID (or the older SLURM_JOBID), which salloc and sbatch set. */
static long job_id(char *err, size_t errlen)
{
    const char *v = getenv("SLURM_JOB_ID");
    const char *name = "SLURM_JOB_ID";
    if (!v || !*v) {
        v = getenv("SLURM_JOBID");
        name = "SLURM_JOBID";
    }
    long id;
    if (!v || !*v) {
        snprintf(err, errlen, "slurm: SLURM_JOB_ID is not set, so this job does not run inside "
                 "a Slurm allocation; expected mpirun started under salloc or sbatch, with the "
                 "variable passed on to the processes (Open MPI: mpirun -x SLURM_JOB_ID), or "
                 "another --xmpi-rms");
        return -1;
    }
    char shown[XMPIR_TEXT_ECHO_SIZE];
    if (xmpi_text_parse_long(v, 1, 0x7fffffffL, &id)) {
        snprintf(err, errlen, "slurm: %s='%s' is not accepted; expected a Slurm job number",
                 name, xmpi_text_echo(shown, v));
        return -1;
    }
    return id;
}

/* The job as rank 0 needs it: known to Slurm and running. */
static int running_job(long id, struct xmpi_slurm_job *job, char *err, size_t errlen)
{
    if (query_job(id, job, err, errlen)) return -1;
    if (strcmp(job->state, "RUNNING") || job->nodes.n == 0 || !job->partition[0]) {
        snprintf(err, errlen, "Slurm job %ld is %s, with %d node(s); expected a running job (the "
                 "processes run inside its allocation)", id, job->state, job->nodes.n);
        xmpi_slurm_job_free(job);
        return -1;
    }
    return 0;
}

/* A partition name as a node class: its letters, digits, '.', '_' and '-'. */
static void class_of_partition(const char *part, char *cls, size_t len)
{
    size_t w = 0;
    for (const char *p = part; *p && w + 1 < len; p++)
        cls[w++] = isalnum((unsigned char)*p) || *p == '.' || *p == '-' ? *p : '_';
    cls[w] = '\0';
    if (!xmpi_text_name_ok(cls)) snprintf(cls, len, "slurm");
}

int xmpi_rms_slurm_pool(struct xmpi_ctx *cx, struct xmpi_pool *pool, char *err, size_t errlen)
{
    (void)cx;
    pool->nhosts = 0;
    pool->hosts = NULL;
    long id = job_id(err, errlen);
    if (id < 0) return -1;
    struct xmpi_slurm_job job;
    struct xmpi_slurm_nodes nodes;
    if (running_job(id, &job, err, errlen)) return -1;
    if (query_nodes(job.partition, &nodes, err, errlen)) {
        xmpi_slurm_job_free(&job);
        return -1;
    }
    char pcls[XMPIR_NAME_MAX];
    class_of_partition(job.partition, pcls, sizeof pcls);
    pool->hosts = calloc((size_t)(nodes.n ? nodes.n : 1), sizeof *pool->hosts);
    int rc = pool->hosts ? 0 : -1;
    if (rc) snprintf(err, errlen, "out of memory");
    for (int i = 0; !rc && i < nodes.n; i++) {
        const struct xmpi_slurm_node *nd = &nodes.v[i];
        /* The name the node calls itself, which MPI_Get_processor_name returns there. */
        const char *name = xmpi_text_name_ok(nd->host) ? nd->host
                           : xmpi_text_name_ok(nd->name) ? nd->name : NULL;
        if (!name || xmpi_pool_find(pool, name, NULL) >= 0) continue;
        struct xmpi_host *h = &pool->hosts[pool->nhosts++];
        snprintf(h->name, sizeof h->name, "%s", name);
        snprintf(h->cls, sizeof h->cls, "%s", nd->feature[0] ? nd->feature : pcls);
        h->pes = nd->cpus;
        h->cost = 1;
    }
    if (!rc && pool->nhosts == 0) {
        snprintf(err, errlen, "slurm: partition %s of job %ld lists no node that can be a host "
                 "of the pool (names of letters, digits, '.', '_' and '-')", job.partition, id);
        rc = -1;
    }
    if (rc) xmpi_pool_free(pool);
    xmpi_slurm_job_free(&job);
    xmpi_slurm_nodes_free(&nodes);
    return rc;
}

/* ---- rank 0's state ----------------------------------------------------------------------- */

static struct xmpi_pool *pool_of(struct xmpi_ctx *cx)
{
    return &cx->world.pool;
}

/* The pool's PEs become what the job may use now, so that the scheduler places only there. */
static void apply(struct xmpi_ctx *cx, const struct xmpi_slurm_view *v)
{
    struct xmpi_rms_slurm *s = cx->rms.slurm;
    struct xmpi_pool *pool = pool_of(cx);
    for (int h = 0; h < pool->nhosts && h < s->n; h++) {
        pool->hosts[h].pes = v->pes[h];
        s->leaving[h] = v->leaving[h];
    }
}

/* A fresh look: the job (running) and its partition's nodes, in the pool's terms. */
static int look(struct xmpi_ctx *cx, struct xmpi_slurm_job *job, struct xmpi_slurm_nodes *nodes,
                struct xmpi_slurm_view *v, char *err, size_t errlen)
{
    struct xmpi_rms_slurm *s = cx->rms.slurm;
    if (query_job(s->job, job, err, errlen)) return -1;
    if (query_nodes(job->partition[0] ? job->partition : s->partition, nodes, err, errlen)) {
        xmpi_slurm_job_free(job);
        return -1;
    }
    if (xmpi_slurm_view_make(v, pool_of(cx), s->cap, job, nodes)) {
        snprintf(err, errlen, "out of memory");
        xmpi_slurm_job_free(job);
        xmpi_slurm_nodes_free(nodes);
        return -1;
    }
    return 0;
}

static void unlook(struct xmpi_slurm_job *job, struct xmpi_slurm_nodes *nodes,
                   struct xmpi_slurm_view *v)
{
    xmpi_slurm_view_free(v);
    xmpi_slurm_job_free(job);
    xmpi_slurm_nodes_free(nodes);
}

/* "a,b,c" after `prefix`, malloc'ed whole (a node list cut short would name other nodes); NULL
 * when out of memory. */
static char *join_names(const char *prefix, const struct xmpi_slurm_names *s)
{
    size_t len = strlen(prefix) + 1;
    for (int i = 0; i < s->n; i++) len += strlen(s->v[i]) + 1;
    char *out = malloc(len);
    if (!out) return NULL;
    size_t w = (size_t)snprintf(out, len, "%s", prefix);
    for (int i = 0; i < s->n; i++) w += (size_t)snprintf(out + w, len - w, "%s%s", i ? "," : "", s->v[i]);
    return out;
}

/* The resize scripts scontrol leaves in its working directory are of no use here. */
static void clean_dir(const char *dir, int remove_dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    char path[512];
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
    if (remove_dir) rmdir(dir);
}

int xmpi_rms_slurm_start(struct xmpi_ctx *cx, char *err, size_t errlen)
{
    struct xmpi_pool *pool = pool_of(cx);
    long id = job_id(err, errlen);
    if (id < 0) return -1;
    struct xmpi_rms_slurm *s = calloc(1, sizeof *s);
    int n = pool->nhosts;
    if (s) {
        s->cap = malloc(sizeof *s->cap * (size_t)(n ? n : 1));
        s->leaving = calloc((size_t)(n ? n : 1), 1);
        s->said = calloc((size_t)(n ? n : 1), 1);
    }
    if (!s || !s->cap || !s->leaving || !s->said) {
        if (s) free(s->cap), free(s->leaving), free(s->said);
        free(s);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    cx->rms.slurm = s;
    s->job = id;
    s->n = n;
    snprintf(s->label, sizeof s->label, "Slurm job %ld", id);
    for (int h = 0; h < n; h++) s->cap[h] = pool->hosts[h].pes;
    const char *tmp = getenv("TMPDIR");
    snprintf(s->dir, sizeof s->dir, "%s/xmpi-slurm-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(s->dir)) {
        snprintf(err, errlen, "slurm: cannot make a working directory for Slurm's commands (%s): "
                 "%s", s->dir, strerror(errno));
        s->dir[0] = '\0';
        xmpi_rms_slurm_stop(cx);
        return -1;
    }
    struct xmpi_slurm_job job;
    struct xmpi_slurm_nodes nodes;
    struct xmpi_slurm_view v;
    if (running_job(id, &job, err, errlen)) {
        xmpi_rms_slurm_stop(cx);
        return -1;
    }
    snprintf(s->partition, sizeof s->partition, "%s", job.partition);
    xmpi_slurm_job_free(&job);
    if (look(cx, &job, &nodes, &v, err, errlen)) {
        xmpi_rms_slurm_stop(cx);
        return -1;
    }
    int rc = 0;
    const struct xmpi_sched *sc = &cx->world.sched;
    char *list = join_names("", &job.nodes);
    if (!list) rc = -1, snprintf(err, errlen, "out of memory");
    for (int i = 0; list && i < sc->nprocs && !rc; i++) {
        int h = sc->procs[i].host;
        if (v.jobnode[h] >= 0) continue;
        snprintf(err, errlen, "slurm: rank %d runs on %s, which is not a node of job %ld (%s); "
                 "expected the processes mpirun starts on the job's nodes (list them first in the "
                 "hostfile)", i, pool->hosts[h].name, id, list);
        rc = -1;
    }
    if (!rc) {
        apply(cx, &v);
        int idle = 0;
        for (int h = 0; h < n; h++) idle += v.offer[h] > 0;
        xmpi_note(cx, 1, "slurm: job %ld in partition %s holds %s; %d idle node(s) of the pool "
                  "may be added", id, s->partition, list, idle);
        /* A resource file's host that Slurm does not list is never used: a typo, most likely. */
        for (int h = 0; h < n; h++)
            if (v.node[h] < 0 && v.jobnode[h] < 0)
                xmpi_note(cx, 0, "slurm: %s of --xmpi-resources is not a node of partition %s; "
                          "the job does not use it", pool->hosts[h].name, s->partition);
    }
    free(list);
    unlook(&job, &nodes, &v);
    if (rc) xmpi_rms_slurm_stop(cx);
    return rc;
}

void xmpi_rms_slurm_stop(struct xmpi_ctx *cx)
{
    struct xmpi_rms_slurm *s = cx->rms.slurm;
    if (!s) return;
    if (s->dir[0]) clean_dir(s->dir, 1);
    free(s->cap);
    free(s->leaving);
    free(s->said);
    free(s);
    cx->rms.slurm = NULL;
}

const char *xmpi_rms_slurm_label(const struct xmpi_ctx *cx)
{
    return cx->rms.slurm ? cx->rms.slurm->label : "Slurm";
}

/* ---- giving nodes back -------------------------------------------------------------------- */

/* scontrol update JobId=J NodeList=KEEP: the job shrinks to its other nodes. */
static void release(struct xmpi_ctx *cx, const struct xmpi_slurm_names *keep,
                    const struct xmpi_slurm_names *give)
{
    struct xmpi_rms_slurm *s = cx->rms.slurm;
    char jobarg[48], *out, *eo, why[1024];
    char *nodes = join_names("NodeList=", keep), *gone = join_names("", give);
    if (!nodes || !gone) {
        free(nodes);
        free(gone);
        xmpi_note(cx, 0, "%s: out of memory giving nodes back", s->label);
        return;
    }
    snprintf(jobarg, sizeof jobarg, "JobId=%ld", s->job);
    char *argv[] = {"scontrol", "update", jobarg, nodes, NULL};
    int rc = run_command(argv, s->dir, UPDATE_S, &out, &eo, why, sizeof why);
    if (!rc) {
        xmpi_note(cx, 1, "slurm: job %ld gave %s back to Slurm", s->job, gone);
    } else {
        /* Slurm 22.05 (and, as reported, up to 24.11) without slurmdbd: the size of a job that
         * was resized once (an expansion merged into it, or a shrink) cannot be updated again;
         * Slurm says its database index is not set yet. Expansions still merge. */
        int dbd = strstr(eo, "DB index") || strstr(out, "DB index");
        s->release_refused = 1;
        xmpi_note(cx, 0, "%s did not take %s back: %s%s; the job no longer uses %s, which stays "
                  "in its allocation until it ends, and gives no more nodes back", s->label, gone,
                  why, dbd ? " (Slurm before 24.11 without slurmdbd does not change the size of a "
                  "job that was resized before, here by its growth or an earlier shrink)" : "",
                  gone);
    }
    free(out);
    free(eo);
    free(nodes);
    free(gone);
    clean_dir(s->dir, 0);
}

static void release_now(struct xmpi_ctx *cx, const struct xmpi_slurm_view *v,
                        const struct xmpi_slurm_job *job, const char *emptied)
{
    struct xmpi_rms_slurm *s = cx->rms.slurm;
    if (s->release_refused) return;
    struct xmpi_slurm_names keep, give;
    int k = xmpi_slurm_plan_release(pool_of(cx), v, job, emptied, &keep, &give);
    if (k > 0) release(cx, &keep, &give);
    xmpi_slurm_names_free(&keep);
    xmpi_slurm_names_free(&give);
}

/* ---- the poll ----------------------------------------------------------------------------- */

int xmpi_rms_slurm_poll(struct xmpi_ctx *cx, XMPI_System_status *st, char *err, size_t errlen)
{
    struct xmpi_rms_slurm *s = cx->rms.slurm;
    struct xmpi_pool *pool = pool_of(cx);
    if (!s || !cx->world.have_sched) return XMPI_SUCCESS;
    double t = now_s();
    if (t < s->next) return XMPI_SUCCESS;
    struct xmpi_slurm_job job;
    struct xmpi_slurm_nodes nodes;
    struct xmpi_slurm_view v;
    int failed = look(cx, &job, &nodes, &v, err, errlen);
    double took = now_s() - t;
    s->wait = failed ? (s->wait > 0 ? 2 * s->wait : 2 * POLL_PERIOD_S) : 0;
    if (s->wait > POLL_BACKOFF_S) s->wait = POLL_BACKOFF_S;
    s->next = now_s() + (failed ? s->wait : 10 * took > POLL_PERIOD_S ? 10 * took : POLL_PERIOD_S);
    if (failed) {
        size_t k = strlen(err);
        snprintf(err + k, errlen > k ? errlen - k : 0, "; asking Slurm again in %g s", s->wait);
        return XMPI_ERR_RMS;
    }
    if (strcmp(job.state, "RUNNING")) {
        /* Ending, suspended or requeued: nothing to grow into, and no node to give back. */
        if (strcmp(s->said_state, job.state))
            xmpi_note(cx, 0, "%s is %s: no reconfiguration while it is not running", s->label,
                      job.state);
        snprintf(s->said_state, sizeof s->said_state, "%s", job.state);
        unlook(&job, &nodes, &v);
        return XMPI_SUCCESS;
    }
    s->said_state[0] = '\0';
    apply(cx, &v);
    const struct xmpi_sched *sc = &cx->world.sched;
    int *removable = calloc((size_t)(pool->nhosts ? pool->nhosts : 1), sizeof *removable);
    if (!removable) {
        unlook(&job, &nodes, &v);
        snprintf(err, errlen, "out of memory");
        return XMPI_ERR_RMS;
    }
    for (int i = 0; i < sc->nprocs; i++)
        if (sc->procs[i].group > 0) removable[sc->procs[i].host]++;
    for (int h = 0; h < pool->nhosts; h++) {
        int initial = pool->hosts[h].procs - removable[h];
        if (v.leaving[h] && initial > 0 && !s->said[h]) {
            s->said[h] = 1;
            xmpi_note(cx, 0, "%s: Slurm takes %s back (%s), but %d of the processes mpirun "
                      "started run there and cannot leave; the node stays with the job until it "
                      "ends", s->label, pool->hosts[h].name,
                      v.node[h] >= 0 ? nodes.v[v.node[h]].state : "no longer the job's", initial);
        }
    }
    /* Nodes Slurm wants back on which nothing of the job runs go at once. */
    release_now(cx, &v, &job, NULL);
    int act = xmpi_slurm_action(pool, &v, removable, !s->expand_refused, &st->nprocs,
                                st->node_class, sizeof st->node_class);
    st->action = act == XMPIR_RMS_ACT_SPAWN    ? XMPI_SYSTEM_SPAWN
                 : act == XMPIR_RMS_ACT_SHRINK ? XMPI_SYSTEM_SHRINK
                                              : XMPI_SYSTEM_NONE;
    free(removable);
    unlook(&job, &nodes, &v);
    return XMPI_SUCCESS;
}

/* ---- growing ------------------------------------------------------------------------------ */

static void cancel(const struct xmpi_rms_slurm *s, char *const what)
{
    char *argv[] = {"scancel", what, NULL};
    char *out, *eo, why[512];
    run_command(argv, s->dir, QUERY_S, &out, &eo, why, sizeof why);
    free(out);
    free(eo);
}

/* Rank 0: the names of the idle nodes the scheduler's plan grows onto for n processes of
 * classes cls (none when no class needs more nodes). */
static void nodes_to_add(struct xmpi_pool *pool, const struct xmpi_slurm_view *v,
                         const struct xmpi_slurm_nodes *nodes, char *const cls[], int n,
                         struct xmpi_slurm_names *add)
{
    char *pick = calloc((size_t)(pool->nhosts ? pool->nhosts : 1), 1);
    int k = pick ? xmpi_slurm_plan_expand(pool, v, cls, n, pick) : 0;
    for (int h = 0; k > 0 && h < pool->nhosts; h++) {
        if (!pick[h] || v->node[h] < 0) continue;
        const char *name = nodes->v[v->node[h]].name;
        if (xmpi_slurm_names_find(add, name) >= 0) continue;
        void *p = realloc(add->v, sizeof *add->v * (size_t)(add->n + 1));
        if (!p) break;
        add->v = p;
        snprintf(add->v[add->n++], sizeof add->v[0], "%s", name);
    }
    free(pick);
}

/* The expansion: an allocation of the nodes `wlist` that depends on this job (salloc), then
 * its nodes merged into this job (scontrol update NumNodes=0) and the emptied job cancelled.
 * 0, or -1 with why; *timed_out when Slurm did not answer in time (the job may ask again). */
static int expand_onto(struct xmpi_rms_slurm *s, const char *partition, int nnodes,
                       const char *list, char *wlist, long *newjob, int *timed_out, char *why,
                       size_t len)
{
    char count[32], name[64], dep[64], part[XMPIR_NAME_MAX + 16], imm[32], cmd[256];
    snprintf(count, sizeof count, "--nodes=%d", nnodes);
    snprintf(name, sizeof name, "--job-name=xmpi-expand-%ld", s->job);
    snprintf(dep, sizeof dep, "--dependency=expand:%ld", s->job);
    snprintf(part, sizeof part, "--partition=%s", partition);
    snprintf(imm, sizeof imm, "--immediate=%d", EXPAND_WAIT);
    char *salloc[] = {"salloc", "--no-shell", imm, name, part, count, wlist, "--exclusive", dep,
                      NULL};
    char *out, *eo, msg[1024];
    int rc = run_command(salloc, s->dir, EXPAND_S, &out, &eo, msg, sizeof msg);
    *timed_out = rc && strstr(msg, "did not answer within") != NULL;
    *newjob = rc ? -1 : xmpi_slurm_granted(eo);
    if (!rc && *newjob < 0) {
        first_line(eo, cmd, sizeof cmd);
        snprintf(msg, sizeof msg, "salloc did not say which job it granted (%s)", cmd);
        rc = -1;
    }
    if (rc) {
        /* Whatever salloc left behind (it was killed, or granted without saying so). */
        snprintf(cmd, sizeof cmd, "--name=xmpi-expand-%ld", s->job);
        cancel(s, cmd);
        int unsupported = strstr(eo, "not supported") != NULL;
        snprintf(why, len, "%s did not grow onto %s: %s%s; no process started, %s", s->label,
                 list, msg, unsupported ? " (an expansion needs "
                 "SchedulerParameters=permit_job_expansion in slurm.conf)" : "",
                 *timed_out ? "and the job asks again at a later offer"
                            : "and the job asks for no more nodes");
    }
    free(out);
    free(eo);
    if (rc) return rc;
    char jobarg[48];
    snprintf(jobarg, sizeof jobarg, "JobId=%ld", *newjob);
    char *merge[] = {"scontrol", "update", jobarg, "NumNodes=0", NULL};
    rc = run_command(merge, s->dir, UPDATE_S, &out, &eo, msg, sizeof msg);
    *timed_out = rc && strstr(msg, "did not answer within") != NULL;
    free(out);
    free(eo);
    snprintf(cmd, sizeof cmd, "%ld", *newjob);
    cancel(s, cmd);
    if (rc)
        snprintf(why, len, "%s did not grow onto %s: its expansion job %ld was granted, but "
                 "merging it failed: %s; job %ld is cancelled, no process started, %s",
                 s->label, list, *newjob, msg, *newjob,
                 *timed_out ? "and the job asks again at a later offer"
                            : "and the job asks for no more nodes");
    return rc;
}

/* After an expansion: a fresh look must show the job holding every node it grew onto; the
 * pool then takes them. 0; -1 with why when a node is missing; -2 when the look failed. */
static int confirm_grown(struct xmpi_ctx *cx, struct xmpi_slurm_job *job,
                         struct xmpi_slurm_nodes *nodes, struct xmpi_slurm_view *v,
                         const struct xmpi_slurm_names *add, const char *list, long newjob,
                         char *why, size_t len)
{
    struct xmpi_rms_slurm *s = cx->rms.slurm;
    char err[768];
    unlook(job, nodes, v);
    if (look(cx, job, nodes, v, err, sizeof err)) {
        snprintf(why, len, "after growing onto %s: %s; no process started", list, err);
        return -2;
    }
    for (int i = 0; i < add->n; i++)
        if (xmpi_slurm_names_find(&job->nodes, add->v[i]) < 0) {
            snprintf(why, len, "%s did not grow onto %s: after merging expansion job %ld it does "
                     "not hold %s; no process started, and the job asks for no more nodes",
                     s->label, list, newjob, add->v[i]);
            return -1;
        }
    apply(cx, v);
    xmpi_note(cx, 1, "slurm: job %ld grew onto %s (expansion job %ld)", s->job, list, newjob);
    return 0;
}

int xmpi_rms_slurm_acquire(struct xmpi_ctx *cx, char *const cls[], int n, char *why, size_t len)
{
    struct xmpi_rms_slurm *s = cx->rms.slurm;
    struct xmpi_pool *pool = pool_of(cx);
    if (!s || s->expand_refused || !cx->world.have_sched) return XMPI_SUCCESS;
    struct xmpi_slurm_job job;
    struct xmpi_slurm_nodes nodes;
    struct xmpi_slurm_view v;
    char err[768];
    if (look(cx, &job, &nodes, &v, err, sizeof err)) {
        /* Without a fresh look the job grows only onto the nodes it holds (the scheduler
         * refuses what does not fit there). */
        xmpi_note(cx, 0, "%s: %s; the spawn uses the job's own nodes only", s->label, err);
        return XMPI_SUCCESS;
    }
    apply(cx, &v);
    struct xmpi_slurm_names add = {0, NULL};
    nodes_to_add(pool, &v, &nodes, cls, n, &add);
    char *list = add.n ? join_names("", &add) : NULL;
    char *wlist = add.n ? join_names("--nodelist=", &add) : NULL;
    int rc = XMPI_SUCCESS, timed_out = 0;
    if (add.n && (!list || !wlist)) {
        snprintf(why, len, "out of memory; no process started");
        rc = XMPI_ERR_RMS;
    } else if (add.n) {
        long newjob = -1;
        int r = expand_onto(s, job.partition, add.n, list, wlist, &newjob, &timed_out, why, len);
        if (!r) r = confirm_grown(cx, &job, &nodes, &v, &add, list, newjob, why, len);
        if (r != -2) {
            clean_dir(s->dir, 0);
            /* A refusal ends the expansions; Slurm not answering in time does not (the next
             * offer may try again). */
            if (r && !timed_out) s->expand_refused = 1;
        }
        rc = r ? XMPI_ERR_RMS : XMPI_SUCCESS;
    }
    free(list);
    free(wlist);
    xmpi_slurm_names_free(&add);
    unlook(&job, &nodes, &v);
    return rc;
}

/* ---- shrinking ---------------------------------------------------------------------------- */

int xmpi_rms_slurm_pick_remove(const struct xmpi_ctx *cx, char *const cls[], int n, int *ranks)
{
    const struct xmpi_rms_slurm *s = cx->rms.slurm;
    if (!s || !cx->world.have_sched || n < 1) return 0;
    const struct xmpi_sched *sc = &cx->world.sched;
    const struct xmpi_pool *pool = sc->pool;
    char *picked = calloc((size_t)(sc->nprocs ? sc->nprocs : 1), 1);
    if (!picked) return 0;
    int got = 0;
    while (got < n) {
        const char *c = cls ? cls[got] : NULL;
        int best = -1;
        for (int i = 0; i < sc->nprocs; i++) {
            const struct xmpi_proc *p = &sc->procs[i];
            int h = p->host;
            if (picked[i] || p->group <= 0 || h >= s->n || !s->leaving[h]) continue;
            if (c && strcmp(pool->hosts[h].cls, c)) continue;
            int size = 0;
            for (int j = 0; j < sc->nprocs; j++) size += sc->procs[j].group == p->group;
            if (got + size > n) continue;   /* a group leaves whole or not at all */
            if (best < 0 || p->order > sc->procs[best].order) best = i;
        }
        if (best < 0) break;
        for (int j = 0; j < sc->nprocs; j++)
            if (sc->procs[j].group == sc->procs[best].group && !picked[j]) {
                picked[j] = 1;
                got++;
            }
    }
    int ok = got == n;
    for (int i = 0, m = 0; ok && i < sc->nprocs; i++)
        if (picked[i]) ranks[m++] = i;
    free(picked);
    return ok;
}

void xmpi_rms_slurm_removed(struct xmpi_ctx *cx, const int *hosts, int n)
{
    struct xmpi_rms_slurm *s = cx->rms.slurm;
    struct xmpi_pool *pool = pool_of(cx);
    if (!s || s->release_refused || !cx->world.have_sched || n <= 0) return;
    char *emptied = calloc((size_t)(pool->nhosts ? pool->nhosts : 1), 1);
    if (!emptied) return;
    int any = 0;
    for (int i = 0; i < n; i++)
        if (hosts[i] >= 0 && hosts[i] < pool->nhosts && pool->hosts[hosts[i]].procs == 0)
            any = emptied[hosts[i]] = 1;
    struct xmpi_slurm_job job;
    struct xmpi_slurm_nodes nodes;
    struct xmpi_slurm_view v;
    char err[768];
    if (any && look(cx, &job, &nodes, &v, err, sizeof err) == 0) {
        apply(cx, &v);
        release_now(cx, &v, &job, emptied);
        unlook(&job, &nodes, &v);
    } else if (any) {
        xmpi_note(cx, 0, "%s: the nodes the removal emptied are not given back: %s", s->label,
                  err);
    }
    free(emptied);
}
