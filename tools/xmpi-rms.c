/* xmpi-rms: the operator's side of the embedded resource manager. It creates the state
 * file a job reads with --xmpi-rms=file:PATH, offers and reclaims PEs, and prints it. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../io/resources.h"
#include "../io/rms_state.h"
#include "../io/textfile.h"

#define PROG "xmpi-rms"
#define N_MAX 1000000
#define DEFAULT_STATE "xmpi-rms.state"
/* Not XMPI_*: the library refuses XMPI_ variables it does not know, and the job and this
 * tool often share an environment. */
#define STATE_ENV "LIBXMPI_RMS_STATE"
#define WAIT_DEFAULT 30
#define WAIT_MAX 86400
#define STR_(x) #x
#define STR(x) STR_(x)

static const char usage_line[] =
    "usage: " PROG " [--state PATH] [--wait SECONDS] {[--force] init RESOURCE_FILE | "
    "offer CLASS N | reclaim CLASS N | status}   (" PROG " --help for details)\n";

static const char help_text[] =
    "NAME\n"
    "    " PROG " - drive the embedded resource manager of a malleable libxmpi job\n"
    "\n"
    "SYNOPSIS\n"
    "    " PROG " [--state PATH] [--wait SECONDS] [--force] init RESOURCE_FILE\n"
    "    " PROG " [--state PATH] [--wait SECONDS] offer CLASS N\n"
    "    " PROG " [--state PATH] [--wait SECONDS] reclaim CLASS N\n"
    "    " PROG " [--state PATH] status\n"
    "    " PROG " --help\n"
    "\n"
    "DESCRIPTION\n"
    "    A job started with --xmpi-rms=file:PATH reads the state file PATH at every\n"
    "    sampling interval (XMPI_Get_system_status). The file says, per host and node\n"
    "    class, how many PEs (cores) the job may use, how many are offered to it and not\n"
    "    taken, how many it holds, and how many of those it must give back. This tool is\n"
    "    how an operator changes it while the job runs: the job then spawns onto offered\n"
    "    PEs or removes processes from reclaimed ones, and records what it did in the\n"
    "    same file. Every change is made under a lock (PATH.lock) and written whole by\n"
    "    rename, so the job, this tool and several copies of it can work on one file at\n"
    "    the same time without losing an update or reading half a file.\n"
    "\n"
    "COMMANDS\n"
    "    init RESOURCE_FILE\n"
    "        Create the state from a --xmpi-resources file (lines\n"
    "        hostname:class:PEs:cost[:speed]): one entry per host and class, with\n"
    "        nothing offered or allocated. Refuses to replace an existing state unless\n"
    "        --force is given (which forgets what the old state recorded).\n"
    "\n"
    "    offer CLASS N\n"
    "        Offer N more PEs of class CLASS to the job, one at a time to the host of\n"
    "        that class with the most spare capacity (pes - free - allocated; ties go to\n"
    "        the host listed first). Fails if the class has fewer than N spare PEs.\n"
    "\n"
    "    reclaim CLASS N\n"
    "        Ask for N PEs of class CLASS back. Offers the job has not taken yet are\n"
    "        withdrawn first (from the hosts with the most of them); the rest are marked\n"
    "        to be given back at the job's next sampling interval (from the hosts where\n"
    "        it holds the most). Fails if fewer than N can be reclaimed, saying why: the\n"
    "        PEs of the job's initial processes (column initial) are never given back,\n"
    "        since those processes cannot leave.\n"
    "\n"
    "    status\n"
    "        Print the state as a table (host class pes free allocated reclaim), then\n"
    "        one (total) line per class. Reads without taking the lock.\n"
    "\n"
    "OPTIONS\n"
    "    --state PATH, --state=PATH\n"
    "        The state file. Default: $" STATE_ENV " if set and not empty, else\n"
    "        ./" DEFAULT_STATE ".\n"
    "    --force\n"
    "        With init: replace an existing state.\n"
    "    --wait SECONDS, --wait=SECONDS\n"
    "        How long init, offer and reclaim wait for the lock PATH.lock when another\n"
    "        process (the job, another copy of this tool, someone's flock) holds it.\n"
    "        A wait of more than half a second is said once on stderr, naming the lock\n"
    "        file and the pid that holds it (when that process wrote it there).\n"
    "        After SECONDS the command gives up with exit status 1 and changes\n"
    "        nothing. 0: do not wait. A whole or decimal number from 0 to " STR(WAIT_MAX) ".\n"
    "        Default: " STR(WAIT_DEFAULT) ".\n"
    "    -h, --help\n"
    "        Print this help and exit.\n"
    "    --\n"
    "        End of options.\n"
    "\n"
    "    N is a whole number from 1 to 1000000.\n"
    "\n"
    "STATE FILE\n"
    "    Text, one entry per line, '#' starts a comment; it may be edited by hand\n"
    "    (take the lock, e.g. with flock PATH.lock, while the job runs):\n"
    "        # xmpi-rms state v2: host class pes free allocated reclaim initial\n"
    "        node1 fast 8 2 4 1 2\n"
    "    initial is how many of the allocated PEs the job's initial processes hold\n"
    "    (the job writes it when it starts; a v1 line without it reads as 0). Every\n"
    "    line keeps initial <= allocated, reclaim <= allocated - initial and\n"
    "    free + allocated <= pes. The file is replaced by rename: the tool refuses\n"
    "    to change a state file its user may not write (e.g. mode 0444), and keeps\n"
    "    the file's mode and group when it replaces it.\n"
    "\n"
    "ENVIRONMENT\n"
    "    " STATE_ENV "\n"
    "        The state file when --state is not given.\n"
    "\n"
    "EXIT STATUS\n"
    "    0 on success, 1 when the operation failed (unknown class, not enough PEs, a\n"
    "    missing, malformed or read-only file, the lock not released within --wait;\n"
    "    nothing is changed then), 2 on bad usage.\n"
    "\n"
    "EXAMPLES\n"
    "    " PROG " --state /tmp/job.rms init resources.txt\n"
    "    mpirun -np 2 ./app --xmpi-resources=resources.txt --xmpi-rms=file:/tmp/job.rms &\n"
    "    " PROG " --state /tmp/job.rms offer fast 4\n"
    "    " PROG " --state /tmp/job.rms status\n"
    "    " PROG " --state /tmp/job.rms reclaim fast 2\n";

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs(PROG ": ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\n", stderr);
    fputs(usage_line, stderr);
    return 2;
}

static int op_error(const char *msg)
{
    fprintf(stderr, PROG ": %s\n", msg);
    return 1;
}

static int parse_n(const char *s, int *out)
{
    if (!*s) return -1;
    long v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9') return -1;
        v = v * 10 + (*p - '0');
        if (v > N_MAX) return -1;
    }
    if (v < 1) return -1;
    *out = (int)v;
    return 0;
}

/* Digits with at most one '.', from 0 to WAIT_MAX: no signs, exponents or "inf". */
static int parse_seconds(const char *s, double *out)
{
    int digits = 0, dots = 0;
    for (const char *p = s; *p; p++) {
        if (*p >= '0' && *p <= '9') digits++;
        else if (*p == '.' && !dots) dots++;
        else return -1;
    }
    if (!digits) return -1;
    double v = strtod(s, NULL);
    if (!(v >= 0 && v <= WAIT_MAX)) return -1;
    *out = v;
    return 0;
}

/* ---- init ---- */

/* Once, when the lock is busy: who holds it and how long this command will wait. */
static void say_waiting(void *arg, const char *lock, long holder, double seconds)
{
    (void)arg;
    char who[64] = "";
    if (holder > 0) snprintf(who, sizeof who, ", held by pid %ld", holder);
    fprintf(stderr, PROG ": waiting for the lock file %s%s (up to %g s; --wait=SECONDS to "
            "change)\n", lock, who, seconds);
}

static struct xmpi_rms_wait lock_wait = {WAIT_DEFAULT, say_waiting, NULL};

/* Not xmpi_rms_update: that reads the old state first, and --force must be able to
 * replace a state too damaged to read. Same lock file, same protocol. */
static int cmd_init(const char *path, const char *resources, int force)
{
    char err[1024];
    struct xmpi_pool pool = {0, NULL};
    if (xmpi_pool_load(&pool, resources, err, sizeof err) != 0) return op_error(err);
    struct xmpi_rms_state st = {0, NULL};
    if (xmpi_rms_state_from_pool(&st, &pool) != 0) {
        xmpi_pool_free(&pool);
        snprintf(err, sizeof err, "%s: out of memory building the state", resources);
        return op_error(err);
    }
    xmpi_pool_free(&pool);

    int rc = 1;
    int fd = xmpi_rms_lock(path, &lock_wait, err, sizeof err);
    if (fd < 0) {
        op_error(err);
        goto out;
    }
    struct stat sb;
    if (!force && lstat(path, &sb) == 0) {
        fprintf(stderr,
                PROG ": %s: a state file already exists; not replaced (give --force to "
                     "replace it and forget what it records)\n",
                path);
        goto out;
    }
    if (xmpi_rms_state_write(path, &st, err, sizeof err) != 0) {
        op_error(err);
        goto out;
    }
    long pes = 0;
    for (int i = 0; i < st.n; i++) pes += st.e[i].pes;
    printf(PROG ": %s %s from %s: %d host entr%s, %ld PEs, nothing offered or allocated\n",
           force ? "wrote" : "created", path, resources, st.n, st.n == 1 ? "y" : "ies", pes);
    rc = 0;
out:
    xmpi_rms_unlock(fd);
    xmpi_rms_state_free(&st);
    return rc;
}

/* ---- offer and reclaim ---- */

struct op {
    int reclaim;
    const char *cls;
    int n;
    char msg[2048];
};

/* Appends to o->msg, marking the cut when the hosts do not fit. */
static void say(struct op *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say(struct op *o, const char *fmt, ...)
{
    size_t used = strlen(o->msg);
    if (used + 1 >= sizeof o->msg) return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(o->msg + used, sizeof o->msg - used, fmt, ap);
    va_end(ap);
    if (k >= 0 && (size_t)k >= sizeof o->msg - used)
        memcpy(o->msg + sizeof o->msg - 4, "...", 4);
}

/* Lists "host +k" for every entry whose field moved, for the confirmation line. */
static void list_moves(struct op *o, const struct xmpi_rms_state *st, const int *before,
                       int reclaim_field)
{
    int first = 1;
    for (int i = 0; i < st->n; i++) {
        int now = reclaim_field ? st->e[i].reclaim : st->e[i].free;
        if (now == before[i]) continue;
        say(o, "%s%s %+d", first ? "" : ", ", st->e[i].host, now - before[i]);
        first = 0;
    }
}

static int apply(struct xmpi_rms_state *st, void *arg, char *err, size_t errlen)
{
    struct op *o = arg;
    int *before = malloc(2 * (size_t)(st->n ? st->n : 1) * sizeof *before);
    if (!before) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int i = 0; i < st->n; i++) {
        before[i] = st->e[i].free;
        before[st->n + i] = st->e[i].reclaim;
    }
    int rc = o->reclaim ? xmpi_rms_reclaim(st, o->cls, o->n, err, errlen)
                        : xmpi_rms_offer(st, o->cls, o->n, err, errlen);
    if (rc == 0 && !o->reclaim) {
        say(o, "offered %d PE%s of class %s (", o->n, o->n == 1 ? "" : "s", o->cls);
        list_moves(o, st, before, 0);
        say(o, ")");
    } else if (rc == 0) {
        int withdrawn = 0, asked = 0;
        for (int i = 0; i < st->n; i++) {
            withdrawn += before[i] - st->e[i].free;
            asked += st->e[i].reclaim - before[st->n + i];
        }
        say(o, "reclaiming %d PE%s of class %s:", o->n, o->n == 1 ? "" : "s", o->cls);
        if (withdrawn) {
            say(o, " %d offer%s withdrawn (", withdrawn, withdrawn == 1 ? "" : "s");
            list_moves(o, st, before, 0);
            say(o, ")%s", asked ? ";" : "");
        }
        if (asked) {
            say(o, " %d to be given back at the next sampling interval (", asked);
            list_moves(o, st, before + st->n, 1);
            say(o, ")");
        }
    }
    free(before);
    return rc;
}

static int cmd_op(const char *path, int reclaim, const char *cls, int n)
{
    struct op o = {reclaim, cls, n, ""};
    char err[1024];
    if (xmpi_rms_update_wait(path, 0, &lock_wait, apply, &o, err, sizeof err) != 0)
        return op_error(err);
    printf(PROG ": %s\n", o.msg);
    return 0;
}

/* ---- status ---- */

static int cmd_status(const char *path)
{
    char err[1024];
    struct xmpi_rms_state st = {0, NULL};
    /* No lock: writers rename whole files into place, so any read sees a whole file. */
    if (xmpi_rms_state_read(path, &st, err, sizeof err) != 0) return op_error(err);
    xmpi_rms_state_print(stdout, &st);
    xmpi_rms_state_free(&st);
    if (fflush(stdout) != 0) {
        fprintf(stderr, PROG ": cannot write the status: %s\n", strerror(errno));
        return 1;
    }
    return 0;
}

/* ---- command line ---- */

int main(int argc, char **argv)
{
    const char *state = NULL;
    int force = 0, help = 0, nops = 0, opts_done = 0;
    char **ops = calloc((size_t)argc + 1, sizeof *ops);
    if (!ops) return op_error("out of memory");

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        /* A lone '-' with a digit is an operand ("-3" for N), reported as a bad N. */
        if (opts_done || a[0] != '-' || (a[1] != '-' && strcmp(a, "-h") != 0)) {
            ops[nops++] = argv[i];
        } else if (strcmp(a, "--") == 0) {
            opts_done = 1;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            help = 1;
        } else if (strcmp(a, "--force") == 0) {
            force = 1;
        } else if (strcmp(a, "--state") == 0) {
            if (i + 1 >= argc) {
                free(ops);
                return usage_error("option --state needs a value; expected --state PATH");
            }
            state = argv[++i];
        } else if (strncmp(a, "--state=", 8) == 0) {
            state = a + 8;
        } else if (strcmp(a, "--wait") == 0 || strncmp(a, "--wait=", 7) == 0) {
            const char *v = a[6] == '=' ? a + 7 : NULL;
            if (!v && i + 1 >= argc) {
                free(ops);
                return usage_error("option --wait needs a value; expected --wait SECONDS");
            }
            if (!v) v = argv[++i];
            if (parse_seconds(v, &lock_wait.seconds) != 0) {
                char shown[XMPIR_TEXT_ECHO_SIZE];
                free(ops);
                return usage_error("option --wait: '%s' is not accepted; expected seconds, a "
                                   "number from 0 to %d", xmpi_text_echo(shown, v), WAIT_MAX);
            }
        } else {
            free(ops);
            char shown[XMPIR_TEXT_ECHO_SIZE];
            return usage_error("unknown option '%s'; accepted: --state PATH, --wait SECONDS, "
                               "--force, --help", xmpi_text_echo(shown, a));
        }
    }
    if (help) {
        free(ops);
        fputs(help_text, stdout);
        return 0;
    }

    int rc;
    const char *cmd = nops ? ops[0] : NULL;
    if (state && !*state) {
        rc = usage_error("option --state: '' is not accepted; expected a file path");
        goto out;
    }
    if (!state) {
        const char *env = getenv(STATE_ENV);
        state = env && *env ? env : DEFAULT_STATE;
    }
    if (!cmd) {
        rc = usage_error("no command given; expected init, offer, reclaim or status");
        goto out;
    }
    if (force && strcmp(cmd, "init") != 0) {
        rc = usage_error("option --force applies to init only, not to %s", cmd);
        goto out;
    }
    if (strcmp(cmd, "init") == 0) {
        if (nops != 2) {
            rc = usage_error("init takes one operand, RESOURCE_FILE; got %d", nops - 1);
            goto out;
        }
        rc = cmd_init(state, ops[1], force);
    } else if (strcmp(cmd, "offer") == 0 || strcmp(cmd, "reclaim") == 0) {
        int n;
        if (nops != 3) {
            rc = usage_error("%s takes two operands, CLASS N; got %d", cmd, nops - 1);
            goto out;
        }
        if (parse_n(ops[2], &n) != 0) {
            char shown[XMPIR_TEXT_ECHO_SIZE];
            rc = usage_error("N: '%s' is not accepted; expected a whole number from 1 to %d",
                             xmpi_text_echo(shown, ops[2]), N_MAX);
            goto out;
        }
        rc = cmd_op(state, strcmp(cmd, "reclaim") == 0, ops[1], n);
    } else if (strcmp(cmd, "status") == 0) {
        if (nops != 1) {
            rc = usage_error("status takes no operand; got %d", nops - 1);
            goto out;
        }
        rc = cmd_status(state);
    } else {
        char shown[XMPIR_TEXT_ECHO_SIZE];
        rc = usage_error("unknown command '%s'; expected init, offer, reclaim or status",
                         xmpi_text_echo(shown, cmd));
    }
out:
    free(ops);
    return rc;
}
