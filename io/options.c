/* The option table and its parser: every --xmpi-NAME=VALUE / XMPI_NAME, its
 * default, accepted values and help text live in one table below. */
#include "options.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ckpt_manifest.h"

enum kind { K_INT, K_STRING, K_CHOICE, K_FLAG };

static int valid_events(const char *v);
static int valid_rms(const char *v);
static int valid_initial(const char *v);
static int valid_goal(const char *v);
static int valid_every(const char *v);

struct optdef {
    const char *name;
    enum kind kind;
    long min, max;
    size_t offset;
    size_t size;            /* for strings */
    const char *def;        /* default as text, for the help */
    const char *accepted;   /* what the error message and the help say is accepted */
    const char *help;
    int (*valid)(const char *);   /* K_STRING: extra syntax check (NULL: any non-empty text) */
    const char *const *choices;   /* K_CHOICE: NULL-terminated names, stored as their index */
};

static const char *const spawn_modes[] = {"single", "group", NULL};
static const char *const on_off[] = {"on", "off", NULL};
static const char *const sched_policies[] = {"balance-all", "balance-occupied", NULL};
static const char *const lb_policies[] = {"rows", "nnz", "weight", "time", NULL};
static const char *const malleability_policies[] = {"static", "smp", "hpmp", "amp", NULL};
static const char *const yield_modes[] = {"auto", "on", "off", NULL};
static const char *const emulate_modes[] = {"dilate", "quota", NULL};
static const char *const amp_constraints[] = {"efficiency", "cost", NULL};
static const char *const resize_modes[] = {"auto", "spawn", "restart", NULL};

#define OFF(f) offsetof(struct xmpi_options, f)
#define SZ(f) sizeof(((struct xmpi_options *)0)->f)
/* An option's field, checked at compile time against the width its kind writes: K_INT a long,
 * K_CHOICE and K_FLAG an int (a narrower field would be written past its end, over the next). */
#define LONGF(f) (OFF(f) + 0 * sizeof(char[SZ(f) == sizeof(long) ? 1 : -1]))
#define INTF(f) (OFF(f) + 0 * sizeof(char[SZ(f) == sizeof(int) ? 1 : -1]))

static const struct optdef table[] = {
    {"si", K_INT, 1, 1000000000L, LONGF(si), 0, "100", "an integer from 1 to 1000000000",
     "sampling interval: iterations between two gathers of the monitoring data", NULL, NULL},
    {"trace", K_STRING, 0, 0, OFF(trace), SZ(trace), "(none)",
     "a file name that is none of the job's input files (the files of --xmpi-calibration, "
     "--xmpi-work-profile, --xmpi-resources, --xmpi-rms, or the program)",
     "write one CSV row per sampling interval to this file (rank 0). The rows go to "
     "FILE.part, renamed to FILE at MPI_Finalize: an earlier FILE is replaced only by a whole "
     "trace, and a job that dies leaves its finished intervals in FILE.part. A directory or a "
     "read-only FILE is refused; a device or pipe (/dev/stdout) is written directly", NULL,
     NULL},
    {"trace-ranks", K_INT, 0, 1000000, LONGF(trace_ranks), 0, "256",
     "an integer number of processes from 0 to 1000000 (0: never)",
     "the trace's per-rank columns (t_real_ranks, t_cpu_ranks, work_ranks, comm_time_ranks: 4 "
     "numbers per process that rank 0 formats every interval) are written while the job has at "
     "most this many processes; in a larger job they are left empty, said once on rank 0, and "
     "every other column of the row is written as ever (docs/scale.md)", NULL, NULL},
    {"otf2", K_STRING, 0, 0, OFF(otf2), SZ(otf2), "(none)",
     "a directory that is new (its parent must exist), empty, or holds an earlier OTF2 archive "
     "of libxmpi, on a file system every process of the job sees",
     "write an OTF2 trace archive into this directory, for HPC performance tools (Vampir, "
     "otf2-print): per process, regions for its computation (each monitored iteration), its "
     "profiled MPI calls and the library's own work (interval ends, moves of rows, spawns, "
     "removals, checkpoints), the processes in XMPI_COMM_WORLD as a metric, and the job's "
     "reconfigurations as markers; a process that joins later is a new location. Each "
     "process writes its own events while the job runs; rank 0 completes the archive "
     "(DIR/traces.otf2) at MPI_Finalize, replacing an earlier one. Refused where libxmpi was "
     "built without the OTF2 library", NULL, NULL},
    {"verbose", K_INT, 0, 2, LONGF(verbose), 0, "0", "0, 1 or 2 (bare --xmpi-verbose means 1)",
     "0: notices only; 1: one progress line per interval on rank 0; 2: also debug lines",
     NULL, NULL},
    {"events", K_STRING, 0, 0, OFF(events), SZ(events), "PAPI_DP_OPS, else PAPI_FP_OPS",
     "comma-separated PAPI event names, e.g. PAPI_FP_OPS,PAPI_TOT_CYC",
     "PAPI events counted per iteration; the first one is the work measure", valid_events, NULL},
    {"spawn", K_CHOICE, 0, 0, INTF(spawn), 0, "single", "single or group",
     "single: one MPI_Comm_spawn per new process (each removable on its own); group: one "
     "MPI_Comm_spawn for all processes of a call (cheaper, removable only together)",
     NULL, spawn_modes},
    {"spawn-check", K_CHOICE, 0, 0, INTF(spawn_check), 0, "on", "on or off",
     "on: before spawning, check that Open MPI has a free slot for each new process, and refuse "
     "the spawn with the reason otherwise (Open MPI 4.1's mpirun never exits after a spawn it "
     "refused); off: leave it to MPI_Comm_spawn, for launchers that grant slots in ways the "
     "check cannot see", NULL, on_off},
    {"spawn-async", K_CHOICE, 0, 0, INTF(spawn_async), 0, "on", "on or off",
     "on: when a policy grows the job (XMPI_Eval_reconfig), a helper thread of rank 0 starts the "
     "new processes while the job goes on computing, and they join at the first interval end "
     "after they are ready; needs MPI_THREAD_MULTIPLE, which the library then asks of MPI_Init "
     "(where the MPI library does not provide it, spawns block, with one note); off: the job "
     "waits for the whole spawn at the interval end that decided it. XMPI_Spawn always waits",
     NULL, on_off},
    {"wait-timeout", K_INT, 0, 86400, LONGF(wait_timeout), 0, "300",
     "an integer number of seconds from 0 to 86400 (0: no limit)",
     "longest wait of a spawn, a join, a removal, a data movement or a checkpoint's collective "
     "reads and writes for the other processes (set it above a checkpoint's time on a slow "
     "file system); "
     "a process still waiting then exits with status 4 and a message saying what it waited "
     "for, so that a stopped, hung or lost process ends the job instead of hanging it",
     NULL, NULL},
    {"resources", K_STRING, 0, 0, OFF(resources), SZ(resources), "(the local host, via hwloc)",
     "a file of lines hostname:class:PEs:cost[:speed]",
     "the hosts the job may use, their node class, PEs, cost per PE-hour and emulated speed",
     NULL, NULL},
    {"sched", K_CHOICE, 0, 0, INTF(sched), 0, "balance-all", "balance-all or balance-occupied",
     "where new processes go within a class: spread over all its hosts, or fill the hosts "
     "already in use", NULL, sched_policies},
    {"oversubscribe", K_FLAG, 0, 1, INTF(oversubscribe), 0, "off",
     "no value, or 0/1, no/yes, false/true, off/on",
     "allow more processes on a host than it has PEs", NULL, NULL},
    {"rms", K_STRING, 0, 0, OFF(rms), SZ(rms), "none",
     "none, schedule:FILE, file:PATH or slurm",
     "resource manager: schedule:FILE scripts it (ITERATION spawn|remove|offer|reclaim COUNT "
     "CLASS); file:PATH follows a live state file edited with xmpi-rms; slurm follows the Slurm "
     "job of SLURM_JOB_ID (rank 0 runs Slurm's commands, at most once a second, each for at most "
     "a few seconds): the pool is the nodes of its partition (or --xmpi-resources, bounded to "
     "them), the job uses the CPUs of its nodes, idle nodes are offered and added by a job "
     "expansion before a spawn, drained or down nodes are reclaimed and given back once empty "
     "(docs/cluster.md)", valid_rms, NULL},
    {"initial", K_STRING, 0, 0, OFF(initial), SZ(initial), "(the first class of each host)",
     "CLASS:COUNT[,CLASS:COUNT...] in rank order, e.g. fast:1,slow:1",
     "the node class of each process started by mpirun", valid_initial, NULL},
    {"lb", K_CHOICE, 0, 0, INTF(lb), 0, "time", "time, rows, nnz or weight",
     "XMPI_Eval_lbalance: rows: rows in proportion to each process's power (thesis Algorithm 5, "
     "every row the same work); nnz and weight: the same with rows weighted by their nonzeros "
     "(the first registered sparse matrix) or by the program's weight array; time: a cost per "
     "row learned from each interval's measured compute time (or measured work, when the "
     "program declares it or PAPI counts it), refined move by move, so that rows of uneven "
     "cost are balanced without counters or weights (it is rows when every row costs the same). "
     "nnz and weight are refused at the first XMPI_Eval_lbalance or XMPI_Eval_reconfig call "
     "when that data is missing", NULL, lb_policies},
    {"lb-th1", K_INT, 0, 100, LONGF(lb_th1), 0, "10", "an integer percentage from 0 to 100",
     "load imbalance threshold: rebalance when (max - min) / max of the processes' compute "
     "times exceeds it", NULL, NULL},
    {"lb-th2", K_INT, 0, 100, LONGF(lb_th2), 0, "5", "an integer percentage from 0 to 100",
     "a process runs non-dedicated when its wall time exceeds its CPU time by more than this "
     "share of the wall time", NULL, NULL},
    {"redist-spare", K_INT, 0, 1048576, LONGF(redist_spare), 0, "64",
     "an integer number of MiB from 0 to 1048576 (0: none)",
     "the memory a process keeps from one move of registered data (blocks and CSR/CSC arrays it "
     "gave up, buffers rows arrived in; the largest, at most 8 buffers) to receive the next "
     "move into: memory already mapped, so that a large move does not first fault in its "
     "whole new block. A process holds at most its registered blocks plus this much", NULL,
     NULL},
    {"lb-k", K_INT, 1, 64, LONGF(lb_k), 0, "3", "an integer from 1 to 64",
     "a CPU share that holds steady for k sampling intervals (and twice as long as any earlier "
     "load on that process) is a lasting load, balanced by wall time; a load that comes and "
     "goes is not chased", NULL, NULL},
    {"policy", K_CHOICE, 0, 0, INTF(policy), 0, "static", "static, smp, hpmp or amp",
     "XMPI_Eval_reconfig's malleability policy: static (no process changes, balancing only), "
     "smp (follow what the resource manager offers and reclaims, up to --xmpi-max-procs), "
     "hpmp (take the part of an offer the prediction model says finishes soonest), amp "
     "(land on --xmpi-goal under --xmpi-constraint)", NULL, malleability_policies},
    {"hpmp-gain", K_INT, 0, 50, LONGF(hpmp_gain), 0, "5", "an integer percentage from 0 to 50",
     "hpmp spawns only when the model predicts the run's end at least this much sooner than "
     "with the current processes (gains within the model's error are not worth a spawn)",
     NULL, NULL},
    {"goal", K_STRING, 0, 0, OFF(goal), SZ(goal), "(none; required by amp)",
     "SECONDS (completion time from MPI_Init, > 0) or PCT% (that much sooner than the static "
     "estimate, 0 < PCT < 100)",
     "amp's completion-time goal. PCT% is taken off the iterations' static estimate, the "
     "start-up excluded: the pace of the first balanced interval (one that no move of rows "
     "preceded, at the latest the fourth) for all of maxit; SECONDS are acted on from that "
     "same interval end", valid_goal, NULL},
    {"constraint", K_CHOICE, 0, 0, INTF(constraint), 0, "efficiency", "efficiency or cost",
     "what amp minimises while it meets the goal: processes (efficiency: the most powerful PEs "
     "first) or cost (the resource file's cost per PE-hour)", NULL, amp_constraints},
    {"tol", K_INT, 0, 50, LONGF(tol), 0, "1", "an integer percentage from 0 to 50",
     "amp leaves the configuration alone while the predicted interval is within this share of "
     "the time the goal allows", NULL, NULL},
    {"max-procs", K_INT, 0, 1000000, LONGF(max_procs), 0, "0 (no limit)",
     "an integer from 0 to 1000000, at least the number of processes mpirun starts",
     "the most processes the malleability policy may grow the job to", NULL, NULL},
    {"emulate", K_CHOICE, 0, 0, INTF(emulate), 0, "dilate", "dilate or quota",
     "how a class's speed below 1 (--xmpi-resources) is emulated. dilate: each stretch of "
     "computation between two MPI calls is made 1/speed times as long by sleeping, so "
     "messages go out when a slower processor would send them and travel at full speed (no "
     "cgroup needed). quota: a cgroup CPU quota per class and host (root, writable cpu "
     "controller); communication waits out the throttled windows", NULL, emulate_modes},
    {"emulate-period", K_INT, 1000, 100000, LONGF(emulate_period), 0, "10000",
     "an integer number of microseconds from 1000 to 100000",
     "the CPU-quota period of emulated classes (a class runs speed x period of every period; "
     "a speed whose quota would be under 1 ms gets a longer period)", NULL, NULL},
    {"yield", K_CHOICE, 0, 0, INTF(yield), 0, "auto", "auto, on or off",
     "whether a process waiting in MPI gives up its core (Open MPI's mpi_yield_when_idle, for "
     "the processes mpirun starts and the ones the library spawns). auto: on when a host may "
     "hold more processes than it has cores (--xmpi-oversubscribe, or a --xmpi-resources "
     "line for this host with more PEs than its cores); a process that spins there keeps the "
     "others off the core. An OMPI_MCA_mpi_yield_when_idle in the environment wins",
     NULL, yield_modes},
    {"calibration", K_STRING, 0, 0, OFF(calibration), SZ(calibration),
     "(the defaults measured on the project's machine)",
     "a calibration file, e.g. written by xmpi-calibrate",
     "the prediction model's network, reduction, spawn and remove costs (read by rank 0 at "
     "start-up)", NULL, NULL},
    {"work-profile", K_STRING, 0, 0, OFF(work_profile), SZ(work_profile),
     "(none: the work of the next interval is extrapolated from the last ones)",
     "the --xmpi-trace file of an earlier run of the same program and input, with the same "
     "--xmpi-si",
     "the work per iteration of each interval of that run (work_sum / iterations): the "
     "prediction model takes its shape for an irregular program's next intervals, scaled by "
     "how this run's last interval compares (thesis 5.3.1; read by rank 0 at start-up)",
     NULL, NULL},
    {"checkpoint", K_STRING, 0, 0, OFF(checkpoint), SZ(checkpoint), "(none)",
     "a directory (created if missing; its parent must exist)",
     "where checkpoints of the registered data go: automatic ones (ckpt-ITERATION) at interval "
     "ends as --xmpi-checkpoint-every says, and those of XMPI_Checkpoint with a relative name. "
     "Each is written under a temporary name and published by a rename, so a crash leaves the "
     "previous one whole; LATEST names the newest (docs/checkpoint.md)", NULL, NULL},
    {"checkpoint-every", K_STRING, 0, 0, OFF(checkpoint_every), SZ(checkpoint_every),
     "(every interval end)", "N (iterations, an integer >= 1) or Ss (seconds, e.g. 30s)",
     "with --xmpi-checkpoint: checkpoint at the first interval end after N iterations (or S "
     "seconds) since the last checkpoint", valid_every, NULL},
    {"checkpoint-keep", K_INT, 1, 1000000, LONGF(checkpoint_keep), 0, "2",
     "an integer from 1 to 1000000",
     "automatic checkpoints kept in --xmpi-checkpoint's directory; older ones are removed "
     "(never the one the job restarted from)", NULL, NULL},
    {"restart", K_STRING, 0, 0, OFF(restart), SZ(restart), "(none)",
     "a checkpoint directory, a directory with a LATEST file, or latest (--xmpi-checkpoint's "
     "newest)",
     "start from a checkpoint at any number of processes: every process starts as "
     "XMPI_NEWLY_SPAWNED, registers its structures with NULL pointers and calls XMPI_Get_data, "
     "which fills them for the current partition and returns the iteration to resume at. A "
     "checkpoint that does not match the registered structures, or whose files are missing or "
     "fail their checksum, is refused with a message and nothing is loaded", NULL, NULL},
    {"resize", K_CHOICE, 0, 0, INTF(resize), 0, "auto", "auto, spawn or restart",
     "how a policy's grow or shrink is carried out: spawn: by dynamic processes only; restart: "
     "by checkpoint and restart (needs --xmpi-checkpoint): the job writes a checkpoint and the "
     "RESIZE record beside it, ends with exit status 75, and xmpi-resume relaunches it at the new "
     "size from that checkpoint; auto: by dynamic processes, or by checkpoint and restart when "
     "the job can be relaunched (--xmpi-checkpoint and --xmpi-relaunch) and MPI cannot do it (a "
     "spawn refused, a shrink below the processes mpirun started) or the model prices it "
     "cheaper (docs/checkpoint.md)", NULL, resize_modes},
    {"relaunch", K_FLAG, 0, 1, INTF(relaunch), 0, "off",
     "no value, or 0/1, no/yes, false/true, off/on",
     "the job runs under a relauncher that reruns it at the size a RESIZE record asks for "
     "(xmpi-resume adds it to every launch): lets --xmpi-resize=auto resize by checkpoint and "
     "restart", NULL, NULL},
    {"help", K_FLAG, 0, 1, INTF(help), 0, "off", "no value, or 0/1, no/yes, false/true, off/on",
     "print this help on rank 0 and end the job", NULL, NULL},
};
#define NOPTS (sizeof table / sizeof table[0])
_Static_assert(NOPTS <= 64, "struct xmpi_options.given holds one bit per option");

void xmpi_options_defaults(struct xmpi_options *o)
{
    memset(o, 0, sizeof *o);
    o->si = 100;
    o->lb = 3;   /* "time" (lb_policies[3], enum xmpi_balance_policy XMPIR_LB_TIME) */
    o->lb_th1 = 10;
    o->lb_th2 = 5;
    o->lb_k = 3;
    o->emulate_period = 10000;
    o->tol = 1;
    o->hpmp_gain = 5;
    o->wait_timeout = 300;
    o->redist_spare = 64;
    o->checkpoint_keep = 2;
    o->trace_ranks = 256;
}

static const struct optdef *lookup(const char *name, size_t len, int env)
{
    for (size_t i = 0; i < NOPTS; i++) {
        const char *n = table[i].name;
        if (strlen(n) != len) continue;
        size_t k = 0;
        for (; k < len; k++) {
            /* Environment names are upper case with '_' for '-', exactly. */
            char want = env ? (n[k] == '-' ? '_' : (char)toupper((unsigned char)n[k])) : n[k];
            if (name[k] != want) break;
        }
        if (k == len) return &table[i];
    }
    return NULL;
}

static void list_accepted(char *buf, size_t len, int env)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < NOPTS && used < len; i++) {
        char name[64];
        if (env) {
            size_t k = 0;
            for (; table[i].name[k] && k < sizeof name - 1; k++)
                name[k] = table[i].name[k] == '-' ? '_' : (char)toupper((unsigned char)table[i].name[k]);
            name[k] = '\0';
        }
        int n = snprintf(buf + used, len - used, "%s%s%s", i ? ", " : "",
                         env ? "XMPI_" : "--xmpi-", env ? name : table[i].name);
        if (n < 0) break;
        used += (size_t)n;
    }
}

static int parse_flag(const char *v, int *out)
{
    static const char *const yes[] = {"1", "yes", "true", "on"};
    static const char *const no[] = {"0", "no", "false", "off"};
    for (int i = 0; i < 4; i++) {
        if (!strcasecmp(v, yes[i])) { *out = 1; return 0; }
        if (!strcasecmp(v, no[i])) { *out = 0; return 0; }
    }
    return -1;
}

static int valid_events(const char *v)
{
    /* PAPI presets and native names (perf::TASK-CLOCK, cpu:event:u=1) use these
     * characters; whether PAPI can count them is only known at run time. */
    if (!*v || *v == ',') return 0;
    for (const char *p = v; *p; p++) {
        if (*p == ',' && (p[1] == ',' || p[1] == '\0')) return 0;
        if (!isalnum((unsigned char)*p) && !strchr("_:.-=+,", *p)) return 0;
    }
    return 1;
}

static int valid_name_char(int c)
{
    return isalnum(c) || c == '_' || c == '-' || c == '.';
}

int xmpi_options_goal(const char *v, double *seconds, double *pct)
{
    if (!v || !*v) return -1;
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (end == v || errno == ERANGE || !isfinite(x)) return -1;
    if (end[0] == '%' && end[1] == '\0') {
        if (!(x > 0 && x < 100)) return -1;
        if (seconds) *seconds = 0;
        if (pct) *pct = x;
        return 0;
    }
    if (*end != '\0' || !(x > 0)) return -1;
    if (seconds) *seconds = x;
    if (pct) *pct = 0;
    return 0;
}

static int valid_goal(const char *v)
{
    return xmpi_options_goal(v, NULL, NULL) == 0;
}

static int valid_every(const char *v)
{
    return xmpi_ckpt_every(v, NULL, NULL) == 0;
}

static int valid_rms(const char *v)
{
    if (!strcmp(v, "none") || !strcmp(v, "slurm")) return 1;
    if (!strncmp(v, "schedule:", 9)) return v[9] != '\0';
    if (!strncmp(v, "file:", 5)) return v[5] != '\0';
    return 0;
}

/* CLASS:COUNT[,CLASS:COUNT...] with COUNT >= 1; whether the classes exist is checked
 * against the resource pool at start-up. */
static int valid_initial(const char *v)
{
    const char *p = v;
    for (;;) {
        const char *start = p;
        while (valid_name_char((unsigned char)*p)) p++;
        if (p == start || *p != ':') return 0;
        p++;
        if (!isdigit((unsigned char)*p) || *p == '0') return 0;
        while (isdigit((unsigned char)*p)) p++;
        if (*p == '\0') return 1;
        if (*p != ',') return 0;
        p++;
    }
}

/* Stores `value` (NULL: the argument had no '=') into o; returns 0 or -1. */
static int apply(struct xmpi_options *o, const struct optdef *d, const char *value,
                 const char *where, char *err, size_t errlen)
{
    char *field = (char *)o + d->offset;
    switch (d->kind) {
    case K_FLAG: {
        int f = 1;
        if (value && parse_flag(value, &f)) goto bad;
        *(int *)(void *)field = f;
        return 0;
    }
    case K_INT: {
        if (!value && !strcmp(d->name, "verbose")) { *(long *)(void *)field = 1; return 0; }
        if (!value || !*value) goto bad;
        char *end;
        errno = 0;
        long v = strtol(value, &end, 10);
        if (errno || *end || end == value || isspace((unsigned char)*value) || v < d->min ||
            v > d->max)
            goto bad;
        *(long *)(void *)field = v;
        return 0;
    }
    case K_CHOICE:
        for (int i = 0; value && d->choices[i]; i++)
            if (!strcmp(value, d->choices[i])) {
                *(int *)(void *)field = i;
                return 0;
            }
        goto bad;
    case K_STRING:
        if (!value || !*value) goto bad;
        if (d->valid && !d->valid(value)) goto bad;
        if (strlen(value) >= d->size) {
            snprintf(err, errlen, "xmpi: %s: value is too long (at most %zu characters)",
                     where, d->size - 1);
            return -1;
        }
        strcpy(field, value);
        return 0;
    }
bad:
    /* The value is cut so that what is accepted always fits in the message. */
    snprintf(err, errlen, "xmpi: %s: '%.64s%s' is not accepted; expected %s", where,
             value ? value : "(no value)", value && strlen(value) > 64 ? "..." : "",
             d->accepted);
    return -1;
}

/* The environment, option by option, except the options the command line sets (`given`,
 * indexed like the table): their variables are not read at all, so only the effective value
 * is ever checked. Unknown XMPI_ names are refused all the same. */
static int parse_env(struct xmpi_options *o, char *const envp[], const unsigned char *given,
                     char *err, size_t errlen)
{
    for (size_t i = 0; envp && envp[i]; i++) {
        const char *e = envp[i];
        if (strncmp(e, "XMPI_", 5)) continue;
        const char *eq = strchr(e, '=');
        if (!eq) continue;
        const char *name = e + 5;
        size_t len = (size_t)(eq - name);
        const struct optdef *d = lookup(name, len, 1);
        char where[128];
        snprintf(where, sizeof where, "environment variable %.*s", (int)(eq - e), e);
        if (!d) {
            char acc[1024];
            list_accepted(acc, sizeof acc, 1);
            snprintf(err, errlen, "xmpi: unknown %s; accepted: %s", where, acc);
            return -1;
        }
        if (given[d - table]) continue;
        if (apply(o, d, eq + 1, where, err, errlen)) return -1;
        o->given |= 1ULL << (d - table);
    }
    return 0;
}

int xmpi_options_parse(struct xmpi_options *o, int *argc, char **argv, int remove,
                       char *const envp[], char *err, size_t errlen)
{
    struct xmpi_options work = *o;
    unsigned char given[NOPTS] = {0};
    int n = argc ? *argc : 0;
    int keep = 0;
    int done = 0;   /* after "--" nothing is ours */
    /* Two passes over argv: the names first (the command line wins, so the environment is
     * read only for the options it leaves unset), then the values, in order. */
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1 && parse_env(&work, envp, given, err, errlen)) return -1;
        done = 0;
        for (int i = 0; argv && i < n; i++) {
            const char *a = argv[i];
            if (i == 0 || done || strncmp(a, "--xmpi-", 7)) {
                if (i > 0 && !strcmp(a, "--")) done = 1;
                continue;
            }
            const char *name = a + 7;
            const char *eq = strchr(name, '=');
            size_t len = eq ? (size_t)(eq - name) : strlen(name);
            const struct optdef *d = lookup(name, len, 0);
            char where[128];
            snprintf(where, sizeof where, "option --xmpi-%.*s", (int)len, name);
            if (!d) {
                char acc[1024];
                list_accepted(acc, sizeof acc, 0);
                snprintf(err, errlen, "xmpi: unknown %s; accepted: %s", where, acc);
                return -1;
            }
            if (pass == 0) given[d - table] = 1;
            else if (apply(&work, d, eq ? eq + 1 : NULL, where, err, errlen)) return -1;
            else work.given |= 1ULL << (d - table);
        }
    }

    if (remove && argv && argc) {
        done = 0;
        for (int i = 0; i < n; i++) {
            const char *a = argv[i];
            int ours = i > 0 && !done && !strncmp(a, "--xmpi-", 7);
            if (i > 0 && !done && !strcmp(a, "--")) done = 1;
            if (!ours) argv[keep++] = argv[i];
        }
        for (int i = keep; i < n; i++) argv[i] = NULL;
        *argc = keep;
    }
    *o = work;
    return 0;
}

int xmpi_options_given(const struct xmpi_options *o, const char *name)
{
    const struct optdef *d = name ? lookup(name, strlen(name), 0) : NULL;
    return d && (o->given >> (d - table) & 1);
}

/* What makes an option act, when something else decides whether it does. The policy's
 * indices are malleability_policies[]'s. */
enum { POLICY_STATIC = 0, POLICY_HPMP = 2, POLICY_AMP = 3 };
static const struct {
    const char *name;
    const char *needs;   /* said in the note and in docs/options.md */
} needs[] = {
    {"rms", "--xmpi-policy=smp, hpmp or amp for XMPI_Eval_reconfig to follow it; under "
            "static only the program's own XMPI_Get_system_status calls read it"},
    {"max-procs", "--xmpi-policy=smp, hpmp or amp (static never grows the job)"},
    {"spawn-async", "--xmpi-policy=smp, hpmp or amp (only a policy's spawn runs beside the "
                    "computation; XMPI_Spawn always waits)"},
    {"resize", "--xmpi-policy=smp, hpmp or amp (static never resizes the job)"},
    {"hpmp-gain", "--xmpi-policy=hpmp"},
    {"goal", "--xmpi-policy=amp"},
    {"constraint", "--xmpi-policy=amp"},
    {"tol", "--xmpi-policy=amp"},
    {"trace-ranks", "--xmpi-trace=FILE"},
    {"checkpoint-every", "--xmpi-checkpoint=DIR"},
    {"checkpoint-keep", "--xmpi-checkpoint=DIR"},
    {"emulate", "a class of speed below 1 in --xmpi-resources"},
    {"emulate-period", "--xmpi-emulate=quota and a class of speed below 1 in --xmpi-resources"},
};

/* Whether option needs[i] acts in this job. */
static int acts(const struct xmpi_options *o, const char *name, int emulated)
{
    if (!strcmp(name, "rms")) return !o->rms[0] || !strcmp(o->rms, "none") || o->policy != POLICY_STATIC;
    if (!strcmp(name, "max-procs") || !strcmp(name, "spawn-async") || !strcmp(name, "resize"))
        return o->policy != POLICY_STATIC;
    if (!strcmp(name, "hpmp-gain")) return o->policy == POLICY_HPMP;
    if (!strcmp(name, "goal") || !strcmp(name, "constraint") || !strcmp(name, "tol"))
        return o->policy == POLICY_AMP;
    if (!strncmp(name, "checkpoint-", 11)) return o->checkpoint[0] != '\0';
    if (!strcmp(name, "trace-ranks")) return o->trace[0] != '\0';
    if (!strcmp(name, "emulate")) return emulated;
    return emulated && o->emulate == XMPIR_EMULATE_QUOTA;   /* emulate-period */
}

int xmpi_options_idle(const struct xmpi_options *o, int emulated, char out[][256], int max)
{
    int n = 0;
    for (size_t i = 0; i < sizeof needs / sizeof needs[0] && n < max; i++)
        if (xmpi_options_given(o, needs[i].name) && !acts(o, needs[i].name, emulated))
            snprintf(out[n++], 256, "option --xmpi-%s has no effect in this job; it acts with %s",
                     needs[i].name, needs[i].needs);
    return n;
}

/* docs/options.md's "needs" for option `name`, or NULL. */
static const char *needs_of(const char *name)
{
    for (size_t i = 0; i < sizeof needs / sizeof needs[0]; i++)
        if (!strcmp(needs[i].name, name)) return needs[i].needs;
    return NULL;
}

int xmpi_options_format(const struct xmpi_options *o, const char *name, char *buf, size_t len)
{
    const struct optdef *d = name ? lookup(name, strlen(name), 0) : NULL;
    if (!d || !buf || len == 0) return -1;
    const char *field = (const char *)o + d->offset;
    int n;
    switch (d->kind) {
    case K_INT: n = snprintf(buf, len, "%ld", *(const long *)(const void *)field); break;
    case K_FLAG: n = snprintf(buf, len, "%d", *(const int *)(const void *)field); break;
    case K_CHOICE: n = snprintf(buf, len, "%s", d->choices[*(const int *)(const void *)field]); break;
    default: n = snprintf(buf, len, "%s", field); break;
    }
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* Every option that names a file the job reads (an option added to the table that does must
 * be added here): 1 the value is the path, 2 the path follows "SCHEME:" (--xmpi-rms). */
static const struct {
    const char *name;
    int kind;
} inputs[] = {{"calibration", 1}, {"work-profile", 1}, {"resources", 1}, {"rms", 2}};

int xmpi_options_inputs(const struct xmpi_options *o, struct xmpi_input_file *out, int max)
{
    int n = 0;
    for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
        const struct optdef *d = lookup(inputs[i].name, strlen(inputs[i].name), 0);
        const char *v = (const char *)o + d->offset;
        if (!v[0]) continue;
        int lock = 0;
        if (inputs[i].kind == 2) {
            /* --xmpi-rms: schedule:FILE, or file:PATH with the lock beside it (rms_state.c). */
            const char *colon = strchr(v, ':');
            if (!colon || !colon[1]) continue;
            lock = !strncmp(v, "file:", 5);
            v = colon + 1;
        }
        for (int k = 0; k <= lock && n < max; k++, n++) {
            snprintf(out[n].option, sizeof out[n].option, "option --xmpi-%s", d->name);
            snprintf(out[n].path, sizeof out[n].path, "%s%s", v, k ? ".lock" : "");
        }
    }
    return n;
}

void xmpi_options_help(FILE *out, const char *progname)
{
    fprintf(out,
            "libxmpi options for %s\n"
            "  Give them after the program name as --xmpi-NAME=VALUE, or in the environment\n"
            "  as XMPI_NAME=VALUE (upper case, '-' as '_'). The command line wins: the variable\n"
            "  of an option also given as --xmpi-NAME is not read, not even checked.\n\n",
            progname ? progname : "this program");
    for (size_t i = 0; i < NOPTS; i++) {
        const struct optdef *d = &table[i];
        fprintf(out, "  --xmpi-%s%s\n      %s.\n      accepted: %s; default: %s\n",
                d->name, d->kind == K_FLAG ? "" : "=VALUE", d->help, d->accepted, d->def);
    }
}

int xmpi_options_events(const struct xmpi_options *o, char *buf, size_t buflen, char **names,
                        int max)
{
    if (!o->events[0] || buflen == 0) return 0;
    snprintf(buf, buflen, "%s", o->events);
    int n = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t && n < max;
         t = strtok_r(NULL, ",", &save))
        names[n++] = t;
    return n;
}

/* Markdown table cells: a '|' in the text would end the cell. */
static void md_cell(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (*s == '|') fputc('\\', out);
        fputc(*s, out);
    }
}

void xmpi_options_markdown(FILE *out)
{
    fputs("# Options\n"
          "\n"
          "<!-- Generated by `make docs` (build/bin/xmpi-info --options-markdown) from the option\n"
          "     table in io/options.c: edit the table, not this file. -->\n"
          "\n"
          "Every option is given after the program name on the `mpirun` line as\n"
          "`--xmpi-NAME=VALUE`, or in the environment as `XMPI_NAME=VALUE` (upper case, `-` as\n"
          "`_`). When both set an option, the command line wins: the variable is not read, not\n"
          "even checked (`XMPI_SI=0` with `--xmpi-si=5` runs with 5); an unknown `XMPI_` name is\n"
          "refused all the same. `MPI_Init` removes the `--xmpi-`\n"
          "arguments from `argv` before `main` sees them; arguments after a literal `--` are left\n"
          "to the program. With `MPI_Init(NULL, NULL)` the options are read from\n"
          "`/proc/self/cmdline` but cannot be removed. Spawned processes inherit the options of\n"
          "their parents. `XMPI_Get_option(NAME, ...)` returns an option's effective value as\n"
          "text, and `xmpi-info --options` prints this list as text.\n"
          "\n"
          "A bad value, an unknown `--xmpi-` option or `XMPI_` variable, or a file that cannot be\n"
          "used stops the job in `MPI_Init`, before any work: the lowest rank that found the\n"
          "problem prints one message that names the option and what is accepted, and the job\n"
          "ends through `MPI_Abort` with exit status 2.\n"
          "\n"
          "```\n"
          "$ mpirun -np 2 ./prog --xmpi-si=0\n"
          "xmpi: option --xmpi-si: '0' is not accepted; expected an integer from 1 to 1000000000\n"
          "xmpi: the job stops before any work (run with --xmpi-help for all options)\n"
          "```\n"
          "\n"
          "An option set on the command line or in the environment that has no effect in the job\n"
          "it is given to (the **Acts with** of the table: a checkpoint option without\n"
          "`--xmpi-checkpoint`, amp's goal under another policy, ...) is said once by rank 0 at\n"
          "`MPI_Init`, naming what would make it act; the job goes on.\n"
          "\n"
          "```\n"
          "$ mpirun -np 2 ./prog --xmpi-goal=20%\n"
          "xmpi: option --xmpi-goal has no effect in this job; it acts with --xmpi-policy=amp\n"
          "```\n"
          "\n"
          "| option | environment | default | accepted | description |\n"
          "| --- | --- | --- | --- | --- |\n",
          out);
    for (size_t i = 0; i < NOPTS; i++) {
        const struct optdef *d = &table[i];
        fprintf(out, "| `--xmpi-%s%s` | `XMPI_", d->name, d->kind == K_FLAG ? "" : "=VALUE");
        for (const char *p = d->name; *p; p++)
            fputc(*p == '-' ? '_' : toupper((unsigned char)*p), out);
        fputs("` | ", out);
        md_cell(out, d->def);
        fputs(" | ", out);
        md_cell(out, d->accepted);
        fputs(" | ", out);
        md_cell(out, d->help);
        const char *nd = needs_of(d->name);
        if (nd) {
            fputs(". **Acts with** ", out);
            md_cell(out, nd);
        }
        fputs(" |\n", out);
    }
}
