/* xmpi-interfere: a synthetic external load on one core (thesis 6.2.3), steady or as short
 * bursts then a long load, to show the load balancer tolerating the one and not the other;
 * or bursts of random length, or a random level that changes, for competing loads that vary. */
/* sched_setaffinity() and the CPU_SET macros are GNU extensions; this file is Linux-only
 * anyway, and no other translation unit sees the wider namespace. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PROG "xmpi-interfere"
#define NS 1000000000LL
/* Caps that keep every instant of the schedule, in int64 nanoseconds, far from overflow:
 * 1000 bursts of at most 2e6 s each is 2e18 ns. */
#define TIME_MAX 1e6
#define TIME_MAX_TXT "1000000"
#define COUNT_MAX 1000
/* Below a millisecond the wake-up latency of a sleep (tens of microseconds, more on a busy
 * virtual machine) would be a large, uncontrolled part of every period. */
#define PERIOD_MIN_MS 1.0
#define PERIOD_MAX_MS 60000.0
/* The longest single sleep: a stop signal that lands between the flag test and the sleep
 * is then noticed within this long, without giving up clock_nanosleep's absolute deadlines. */
#define SLEEP_SLICE (NS / 4)

static const char usage_line[] =
    "usage: " PROG " --load F [--period MS] [--cpu K] [--duration S] [--delay S]\n"
    "       [--pattern steady|bursts:COUNT:ON:OFF[:LONG]|random:ON_MIN:ON_MAX:OFF_MIN:OFF_MAX\n"
    "       |wander:SECONDS:LO] [--seed N] [--log FILE]   (" PROG " --help for details)\n";

static const char help_text[] =
    "NAME\n"
    "    " PROG " - load one core for a fraction of its time, steadily, in bursts or\n"
    "    at random\n"
    "\n"
    "SYNOPSIS\n"
    "    " PROG " --load F [--period MS] [--cpu K] [--duration S] [--delay S]\n"
    "                   [--pattern steady | bursts:COUNT:ON:OFF[:LONG]\n"
    "                              | random:ON_MIN:ON_MAX:OFF_MIN:OFF_MAX\n"
    "                              | wander:SECONDS:LO] [--seed N] [--log FILE]\n"
    "    " PROG " --help\n"
    "\n"
    "DESCRIPTION\n"
    "    An external load for experiments with libxmpi's load balancer (FLEX-MPI thesis,\n"
    "    section 6.2.3). Run beside a job, on the core of one of its ranks, it takes that\n"
    "    rank's CPU time away: the rank's real time grows past its CPU time and the load\n"
    "    balancer sees the core as non-dedicated. The thesis's balancer tolerates a burst\n"
    "    shorter than k sampling intervals and rebalances a load that lasts longer.\n"
    "    The random and wander patterns model other programs competing for the core,\n"
    "    whose load comes and goes or changes its intensity.\n"
    "\n"
    "    Time is cut into periods of MS milliseconds. In a loaded phase the tool computes\n"
    "    (floating-point and integer arithmetic, checking CLOCK_MONOTONIC between short\n"
    "    chunks) for the fraction F of every period and sleeps for the rest, until the\n"
    "    absolute end of the period, so the schedule does not drift however long it runs.\n"
    "    If it is held off the CPU past its busy time, it does not catch up: the load\n"
    "    follows the clock, not a count of periods.\n"
    "\n"
    "OPTIONS\n"
    "    --load F\n"
    "        The fraction of each period spent computing, 0 < F <= 1 (1: a whole core).\n"
    "        Required.\n"
    "    --period MS\n"
    "        The period in milliseconds, from 1 to 60000; decimals allowed. Default 100.\n"
    "        The scheduler sees a load of F over any window much longer than MS.\n"
    "    --cpu K\n"
    "        Pin the tool to logical CPU K (numbered as in taskset and /proc/cpuinfo)\n"
    "        with sched_setaffinity. K must be among the CPUs this process may use.\n"
    "        Default: no pinning; the kernel places the load where it likes.\n"
    "    --duration S\n"
    "        Stop S seconds after the load starts (not counting --delay); more than 0.\n"
    "        Default: steady, random and wander run until stopped; a bursts pattern\n"
    "        runs to its end.\n"
    "    --delay S\n"
    "        Wait S seconds (0 or more) before the load starts, so that it can be launched\n"
    "        together with the job and begin once the job is under way. Default 0.\n"
    "    --pattern steady\n"
    "        The load F in every period, for --duration or until stopped. The default.\n"
    "    --pattern bursts:COUNT:ON:OFF[:LONG]\n"
    "        COUNT bursts (1 to 1000) of ON seconds at load F, separated by OFF idle\n"
    "        seconds. With LONG, one more OFF idle gap follows and then a long load of\n"
    "        LONG seconds at load F; LONG may be 'inf' (until --duration or a signal).\n"
    "        ON, OFF and LONG are more than 0. The thesis's experiment is a few short\n"
    "        bursts, then a long-term interference lasting to the end of the run.\n"
    "    --pattern random:ON_MIN:ON_MAX:OFF_MIN:OFF_MAX\n"
    "        Bursts at load F separated by idle gaps, from a burst on, for --duration or\n"
    "        until stopped. Each burst lasts a time drawn uniformly from ON_MIN to ON_MAX\n"
    "        seconds, each gap one drawn from OFF_MIN to OFF_MAX seconds. The four are\n"
    "        more than 0, ON_MIN <= ON_MAX and OFF_MIN <= OFF_MAX (equal: a fixed length).\n"
    "    --pattern wander:SECONDS:LO\n"
    "        A load whose level changes every SECONDS seconds (more than 0) to a new one\n"
    "        drawn uniformly from LO to F, for --duration or until stopped; 0 <= LO <= F.\n"
    "        A competitor whose intensity changes every few sampling intervals.\n"
    "    --seed N\n"
    "        The seed of the random and wander patterns' draws, a whole number from 0 to\n"
    "        4294967295. Default 1. The draws (splitmix64) depend on N alone, not on the\n"
    "        machine or the timing: the same N repeats the same lengths or levels, and\n"
    "        instances beside each other need different seeds to differ. Refused with\n"
    "        the steady and bursts patterns, which draw nothing.\n"
    "    --log FILE\n"
    "        Write one line per phase change to FILE (created or truncated), so that the\n"
    "        interference can be marked on a plot of the job's trace (see LOG FILE).\n"
    "    -h, --help\n"
    "        Print this help and exit.\n"
    "\n"
    "    Every option also takes the form --NAME=VALUE. Seconds are decimal numbers\n"
    "    (0.25, 1e-1) of at most 1000000. A value starting with '--' is taken for a\n"
    "    missing value; write --log=--name for a file named so.\n"
    "\n"
    "OUTPUT\n"
    "    One line on standard output when the tool starts (its pid, what it will do),\n"
    "    and one when it ends:\n"
    "        " PROG ": ran S s, busy B s, target load F\n"
    "    S is the wall time since the load started (after --delay), B the CPU time the\n"
    "    process used meanwhile (CLOCK_PROCESS_CPUTIME_ID), so B / S is the load achieved.\n"
    "    For a bursts pattern the line adds the time spent in loaded phases, and for\n"
    "    random also the number of bursts begun. For wander it adds LO, the mean of the\n"
    "    levels weighted by the time each lasted (to compare with B / S) and the number\n"
    "    of levels drawn. When a signal ended the run it adds which one.\n"
    "\n"
    "LOG FILE\n"
    "    A '#' header line, then one line per phase change, written and flushed as the\n"
    "    phase begins:\n"
    "        UNIX_TIME ELAPSED PHASE LOAD\n"
    "    UNIX_TIME is CLOCK_REALTIME in seconds (to match other logs), ELAPSED the\n"
    "    seconds since the tool started, PHASE one of delay, steady, burst, idle, long,\n"
    "    level (wander: a new level) and end (the tool stopped), and LOAD the target load\n"
    "    of the phase (0 when idle). A random pattern writes burst F and idle 0 lines\n"
    "    in turn, wander a level L line each time the level changes.\n"
    "    For example, --load 0.5 --delay 1 --pattern bursts:2:3:5:20 writes\n"
    "        1718000000.000000 0.000000 delay 0\n"
    "        1718000001.000000 1.000000 burst 0.5\n"
    "        1718000004.000000 4.000000 idle 0\n"
    "        1718000009.000000 9.000000 burst 0.5\n"
    "        1718000012.000000 12.000000 idle 0\n"
    "        1718000017.000000 17.000000 long 0.5\n"
    "        1718000037.000000 37.000000 end 0\n"
    "    and --load 0.8 --duration 6 --pattern wander:2:0.2 --seed 5 writes\n"
    "        1718000000.000000 0.000000 level 0.432061\n"
    "        1718000002.000000 2.000000 level 0.651384\n"
    "        1718000004.000000 4.000000 level 0.339625\n"
    "        1718000006.000000 6.000000 end 0\n"
    "\n"
    "SIGNALS\n"
    "    SIGTERM and SIGINT end the run cleanly: the log gets its end line, the summary\n"
    "    is printed and the exit status is 0.\n"
    "\n"
    "EXIT STATUS\n"
    "    0 when the run ended (its pattern or --duration was over, or a signal stopped\n"
    "    it), 1 when it could not run as asked (the log cannot be written, pinning\n"
    "    failed), 2 on bad usage.\n"
    "\n"
    "EXAMPLES\n"
    "    Half a core, steadily, on CPU 1, for a minute:\n"
    "        " PROG " --load 0.5 --cpu 1 --duration 60\n"
    "    The thesis's interference beside a job whose ranks are bound to cores (Open\n"
    "    MPI's mpirun --bind-to core --report-bindings shows which rank has which):\n"
    "        mpirun -np 2 --bind-to core ./app --xmpi-trace=trace.csv & job=$!\n"
    "        " PROG " --cpu 0 --load 0.8 --delay 5 --pattern bursts:3:2:8:inf \\\n"
    "            --log interference.log & load=$!\n"
    "        wait $job; kill $load\n"
    "    Bursts of 0.3 to 1.5 s at 0.7 on CPU 1, 0.3 to 1.5 s apart, until stopped:\n"
    "        " PROG " --cpu 1 --load 0.7 --period 2 --pattern random:0.3:1.5:0.3:1.5 \\\n"
    "            --seed 3\n"
    "    Two competitors, one per core, each changing every second to a level from 0.2\n"
    "    to 0.8, with different seeds so that they do not change together:\n"
    "        " PROG " --cpu 0 --load 0.8 --period 2 --pattern wander:1:0.2 --seed 5 &\n"
    "        " PROG " --cpu 1 --load 0.8 --period 2 --pattern wander:1:0.2 --seed 6 &\n";

static volatile sig_atomic_t stop_signal;
static volatile double arith_sink;

static void on_stop(int sig)
{
    stop_signal = sig;
}

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

/* ---- numbers ---- */

/* A plain decimal: strtod alone would also take hex, "inf", "nan" and leading blanks. */
static int parse_decimal(const char *s, double *out)
{
    if (!*s || strspn(s, "0123456789.eE+-") != strlen(s)) return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (*end || errno == ERANGE || !isfinite(v)) return -1;
    *out = v;
    return 0;
}

static int parse_whole(const char *s, long long max, long long *out)
{
    if (!*s) return -1;
    long long v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9') return -1;
        v = v * 10 + (*p - '0');
        if (v > max) return -1;
    }
    *out = v;
    return 0;
}

/* Seconds, more than 0 (or at least 0 when zero_ok), at most TIME_MAX. */
static int parse_seconds(const char *s, int zero_ok, double *out)
{
    double v;
    if (parse_decimal(s, &v) != 0 || v > TIME_MAX || v < 0 || (v == 0 && !zero_ok)) return -1;
    *out = v;
    return 0;
}

static int64_t to_ns(double seconds)
{
    return (int64_t)llround(seconds * (double)NS);
}

static int64_t clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * NS + ts.tv_nsec;
}

/* ---- the schedule ---- */

enum { PAT_STEADY, PAT_BURSTS, PAT_RANDOM, PAT_WANDER };
static const char *const pattern_name[] = {"steady", "bursts", "random", "wander"};
static const char *const pattern_form[] = {"steady", "bursts:COUNT:ON:OFF[:LONG]",
                                           "random:ON_MIN:ON_MAX:OFF_MIN:OFF_MAX",
                                           "wander:SECONDS:LO"};
enum { PH_STEADY, PH_BURST, PH_IDLE, PH_LONG, PH_LEVEL };
static const char *const phase_name[] = {"steady", "burst", "idle", "long", "level"};

struct config {
    double load, period_ms, duration, delay;
    int has_duration, cpu; /* cpu < 0: no pinning */
    const char *log;
    int pattern;               /* PAT_* */
    const char *pattern_text;  /* as given, for messages; NULL: the default */
    /* bursts */
    long count;
    double on, off, long_s; /* long_s: 0 none, INFINITY until stopped */
    /* random: the bounds of burst and gap lengths */
    double on_min, on_max, off_min, off_max;
    /* wander: the time between levels and the lowest level (the highest is load) */
    double step, lo;
    uint64_t seed;
    int has_seed;
};

#define SEED_MAX 4294967295LL
#define SEED_MAX_TXT "4294967295"

static const char pattern_expect[] = "expected steady, bursts:COUNT:ON:OFF[:LONG], "
                                     "random:ON_MIN:ON_MAX:OFF_MIN:OFF_MAX or wander:SECONDS:LO";

/* Cuts what follows "KIND:" in s into at most max fields of field[]; *n gets their number. */
static int split_fields(const char *s, int kind, const char *const *names, int max,
                        char field[][64], int *n)
{
    const char *p = s + strlen(pattern_name[kind]) + 1;
    *n = 0;
    for (;;) {
        size_t len = strcspn(p, ":");
        if (*n == max)
            return usage_error("option --pattern: '%.60s' has more than %d fields after "
                               "'%s:'; expected %s", s, max, pattern_name[kind],
                               pattern_form[kind]);
        if (len >= 64)
            return usage_error("option --pattern: '%.60s': %s '%.20s...' is too long", s,
                               names[*n], p);
        memcpy(field[*n], p, len);
        field[*n][len] = '\0';
        (*n)++;
        if (!p[len]) return 0;
        p += len + 1;
    }
}

static int few_fields(const char *s, int kind, int n)
{
    return usage_error("option --pattern: '%.60s' has %d field%s after '%s:'; expected %s", s,
                       n, n == 1 ? "" : "s", pattern_name[kind], pattern_form[kind]);
}

static int bad_seconds(const char *s, const char *name, const char *value, const char *or_inf)
{
    return usage_error("option --pattern: '%.60s': %s '%s' is not accepted; expected seconds, "
                       "more than 0 and at most " TIME_MAX_TXT "%s", s, name, value, or_inf);
}

static int parse_bursts(const char *s, struct config *c)
{
    const char *const names[] = {"COUNT", "ON", "OFF", "LONG"};
    char field[4][64];
    int n;
    if (split_fields(s, PAT_BURSTS, names, 4, field, &n) != 0) return 2;
    if (n < 3) return few_fields(s, PAT_BURSTS, n);
    long long count;
    if (parse_whole(field[0], COUNT_MAX, &count) != 0 || count < 1)
        return usage_error("option --pattern: '%.60s': COUNT '%s' is not accepted; expected a "
                           "whole number from 1 to %d", s, field[0], COUNT_MAX);
    c->count = (long)count;
    double *dst[] = {NULL, &c->on, &c->off, &c->long_s};
    for (int i = 1; i < n; i++) {
        if (i == 3 && strcmp(field[3], "inf") == 0) {
            c->long_s = INFINITY;
            continue;
        }
        if (parse_seconds(field[i], 0, dst[i]) != 0)
            return bad_seconds(s, names[i], field[i], i == 3 ? ", or inf" : "");
    }
    if (n == 3) c->long_s = 0;
    return 0;
}

static int parse_random(const char *s, struct config *c)
{
    const char *const names[] = {"ON_MIN", "ON_MAX", "OFF_MIN", "OFF_MAX"};
    char field[4][64];
    int n;
    if (split_fields(s, PAT_RANDOM, names, 4, field, &n) != 0) return 2;
    if (n < 4) return few_fields(s, PAT_RANDOM, n);
    double *dst[] = {&c->on_min, &c->on_max, &c->off_min, &c->off_max};
    for (int i = 0; i < 4; i++)
        if (parse_seconds(field[i], 0, dst[i]) != 0) return bad_seconds(s, names[i], field[i], "");
    for (int i = 0; i < 4; i += 2)
        if (*dst[i] > *dst[i + 1])
            return usage_error("option --pattern: '%.60s': %s '%s' is more than %s '%s'; "
                               "expected %s <= %s", s, names[i], field[i], names[i + 1],
                               field[i + 1], names[i], names[i + 1]);
    return 0;
}

/* LO is checked against --load once all options are read (they come in any order). */
static int parse_wander(const char *s, struct config *c)
{
    const char *const names[] = {"SECONDS", "LO"};
    char field[2][64];
    int n;
    if (split_fields(s, PAT_WANDER, names, 2, field, &n) != 0) return 2;
    if (n < 2) return few_fields(s, PAT_WANDER, n);
    if (parse_seconds(field[0], 0, &c->step) != 0) return bad_seconds(s, "SECONDS", field[0], "");
    if (parse_decimal(field[1], &c->lo) != 0 || !(c->lo >= 0 && c->lo <= 1))
        return usage_error("option --pattern: '%.60s': LO '%s' is not accepted; expected a "
                           "load from 0 to F (the --load value)", s, field[1]);
    return 0;
}

/* Names the part of the pattern that is wrong, since a whole pattern back is little help. */
static int parse_pattern(const char *s, struct config *c)
{
    static int (*const parse[])(const char *, struct config *) = {NULL, parse_bursts,
                                                                  parse_random, parse_wander};
    c->pattern_text = s;
    if (strcmp(s, "steady") == 0) {
        c->pattern = PAT_STEADY;
        return 0;
    }
    for (int k = PAT_BURSTS; k <= PAT_WANDER; k++) {
        size_t len = strlen(pattern_name[k]);
        if (strcmp(s, pattern_name[k]) == 0)
            return usage_error("option --pattern: '%s' needs its fields; expected %s",
                               pattern_name[k], pattern_form[k]);
        if (strncmp(s, pattern_name[k], len) == 0 && s[len] == ':') {
            c->pattern = k;
            return parse[k](s, c);
        }
    }
    return usage_error("option --pattern: '%.60s' is not accepted; %s", s, pattern_expect);
}

/* splitmix64 (Steele, Lea and Flood 2014): tiny, the same on every machine, and good even from
 * neighbouring seeds such as 1 and 2. */
static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform in [lo, hi], both ends included. */
static double uniform(uint64_t *state, double lo, double hi)
{
    double u = (double)(splitmix64(state) >> 11) / (double)((1ULL << 53) - 1);
    double v = lo + (hi - lo) * u;
    return v > hi ? hi : v;
}

/* ---- running ---- */

struct run {
    const struct config *c;
    int64_t launch_mono, period_ns;
    FILE *log;
    int log_failed;
    double acc;       /* the arithmetic's running result, so none of it is dead code */
    uint64_t rng;     /* the arithmetic's own numbers */
    uint64_t draw;    /* the random and wander patterns' generator, from --seed */
};

/* One phase of a pattern: what it is, how long (ns; -1: no end) and at which load. */
struct phase {
    int kind;
    int64_t len;
    double load;
};

/* What a run did, for the summary. */
struct tally {
    int64_t loaded;   /* ns in phases of load > 0 */
    double level_ns;  /* the sum of load * ns over the phases */
    int64_t spent;    /* ns in all phases */
    long bursts, levels;
};

static void log_phase(struct run *r, const char *phase, double load)
{
    if (!r->log || r->log_failed) return;
    struct timespec wall;
    clock_gettime(CLOCK_REALTIME, &wall);
    double elapsed = (double)(clock_ns(CLOCK_MONOTONIC) - r->launch_mono) / (double)NS;
    if (fprintf(r->log, "%lld.%06ld %.6f %s %g\n", (long long)wall.tv_sec,
                wall.tv_nsec / 1000, elapsed, phase, load) < 0 ||
        fflush(r->log) != 0) {
        /* The load goes on: the job beside it is already being disturbed on schedule. */
        fprintf(stderr, PROG ": option --log: cannot write '%s': %s; no more log lines\n",
                r->c->log, strerror(errno));
        r->log_failed = 1;
    }
}

static void sleep_until(int64_t t)
{
    while (!stop_signal) {
        int64_t now = clock_ns(CLOCK_MONOTONIC);
        if (now >= t) return;
        int64_t target = t - now > SLEEP_SLICE ? now + SLEEP_SLICE : t;
        struct timespec ts = {(time_t)(target / NS), (long)(target % NS)};
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
    }
}

/* Computes until t: a few microseconds of arithmetic between clock reads, so the clock
 * (a vDSO call) is a small part of the busy time and the overshoot stays tiny. */
static void spin_until(struct run *r, int64_t t)
{
    uint64_t x = r->rng;
    double acc = r->acc;
    while (!stop_signal && clock_ns(CLOCK_MONOTONIC) < t) {
        for (int i = 0; i < 512; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            acc = acc * 0.999 + (double)(x >> 11) * 0x1p-53;
        }
    }
    r->rng = x;
    r->acc = acc;
    arith_sink = acc;
}

/* One phase from start to end (end < 0: no end), period by period on absolute times. */
static void run_phase(struct run *r, int64_t start, int64_t end, double load)
{
    for (int64_t p = start; !stop_signal && (end < 0 || p < end);) {
        int64_t q = p + r->period_ns;
        if (end >= 0 && q > end) q = end;
        int64_t busy_end = load >= 1 ? q : p + (int64_t)llround(load * (double)(q - p));
        if (busy_end > p) spin_until(r, busy_end);
        if (busy_end < q) sleep_until(q);
        p = q;
    }
}

/* The phase i of the pattern (from 0); 0 when the pattern is over. The random patterns draw
 * here, one number per phase in order, so a seed fixes the sequence whatever the timing. */
static int next_phase(struct run *r, long i, struct phase *ph)
{
    const struct config *c = r->c;
    switch (c->pattern) {
    case PAT_STEADY:
        *ph = (struct phase){PH_STEADY, -1, c->load};
        return i == 0;
    case PAT_BURSTS:
        if (i < 2 * c->count - 1) {
            int burst = i % 2 == 0;
            *ph = (struct phase){burst ? PH_BURST : PH_IDLE, to_ns(burst ? c->on : c->off),
                                 burst ? c->load : 0};
        } else if (i == 2 * c->count - 1) {
            *ph = (struct phase){PH_IDLE, to_ns(c->off), 0};
        } else {
            *ph = (struct phase){PH_LONG, isinf(c->long_s) ? -1 : to_ns(c->long_s), c->load};
        }
        return i < 2 * c->count - 1 + (c->long_s > 0 ? 2 : 0);
    case PAT_RANDOM:
        if (i % 2 == 0)
            *ph = (struct phase){PH_BURST, to_ns(uniform(&r->draw, c->on_min, c->on_max)),
                                 c->load};
        else
            *ph = (struct phase){PH_IDLE, to_ns(uniform(&r->draw, c->off_min, c->off_max)), 0};
        return 1;
    default:
        *ph = (struct phase){PH_LEVEL, to_ns(c->step), uniform(&r->draw, c->lo, c->load)};
        return 1;
    }
}

/* The shape of a bursts pattern, for the start line. */
static void describe_bursts(const struct config *c, char *buf, size_t len)
{
    char between[64] = "", tail[128] = "", total[64] = "";
    if (c->count > 1) snprintf(between, sizeof between, " with %g s idle between", c->off);
    if (isinf(c->long_s))
        snprintf(tail, sizeof tail, ", then %g s idle and a long load until stopped", c->off);
    else if (c->long_s > 0)
        snprintf(tail, sizeof tail, ", then %g s idle and a long load of %g s", c->off,
                 c->long_s);
    if (!isinf(c->long_s))
        snprintf(total, sizeof total, " (%g s in all)",
                 (double)c->count * c->on + (double)(c->count - 1) * c->off +
                     (c->long_s > 0 ? c->off + c->long_s : 0));
    snprintf(buf, len, "%ld burst%s of %g s%s%s%s", c->count, c->count == 1 ? "" : "s", c->on,
             between, tail, total);
}

/* What the start line promises, so a log of the experiment can be read without the command. */
static void describe(const struct config *c, char *buf, size_t len)
{
    char cpu[32] = "any CPU", load[64], shape[384], cut[64] = "until stopped";
    if (c->cpu >= 0) snprintf(cpu, sizeof cpu, "CPU %d", c->cpu);
    if (c->has_duration)
        snprintf(cut, sizeof cut, c->pattern == PAT_BURSTS ? "for at most %g s" : "for %g s",
                 c->duration);
    if (c->pattern == PAT_WANDER)
        snprintf(load, sizeof load, "%g to %g", c->lo, c->load);
    else
        snprintf(load, sizeof load, "%g", c->load);
    switch (c->pattern) {
    case PAT_STEADY:
        snprintf(shape, sizeof shape, "steady %s", cut);
        break;
    case PAT_BURSTS:
        describe_bursts(c, shape, sizeof shape);
        if (c->has_duration) {
            size_t used = strlen(shape);
            snprintf(shape + used, sizeof shape - used, ", %s", cut);
        }
        break;
    case PAT_RANDOM:
        snprintf(shape, sizeof shape, "bursts of %g to %g s with %g to %g s idle between, "
                 "drawn with seed %llu, %s", c->on_min, c->on_max, c->off_min, c->off_max,
                 (unsigned long long)c->seed, cut);
        break;
    default:
        snprintf(shape, sizeof shape, "a new level every %g s, drawn with seed %llu, %s",
                 c->step, (unsigned long long)c->seed, cut);
    }
    snprintf(buf, len, "load %s of every %g ms on %s, %s", load, c->period_ms, cpu, shape);
}

/* Catches the stop signals, pins, opens the log and prints the start line: 0, or the exit
 * status when the run cannot go on. */
static int prepare(struct run *r)
{
    const struct config *c = r->c;
    /* First, so that a stop signal from now on ends the run cleanly. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);

    if (c->cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(c->cpu, &set);
        if (sched_setaffinity(0, sizeof set, &set) != 0) {
            fprintf(stderr, PROG ": option --cpu: cannot pin to CPU %d: %s\n", c->cpu,
                    strerror(errno));
            return 1;
        }
    }
    if (c->log) {
        r->log = fopen(c->log, "w");
        if (!r->log) {
            fprintf(stderr, PROG ": option --log: cannot open '%s': %s\n", c->log,
                    strerror(errno));
            return 1;
        }
        fprintf(r->log, "# " PROG " pid %ld: unix_time elapsed_s phase load\n", (long)getpid());
    }

    char what[512];
    describe(c, what, sizeof what);
    if (c->delay > 0)
        printf(PROG ": pid %ld starts in %g s: %s\n", (long)getpid(), c->delay, what);
    else
        printf(PROG ": pid %ld starts now: %s\n", (long)getpid(), what);
    fflush(stdout);
    return 0;
}

/* Runs the pattern's phases end to end from t0 until it is over, stop_at (< 0: none) or a
 * signal. A wander level equal to the one before (LO = F) continues it without a log line. */
static void run_phases(struct run *r, int64_t t0, int64_t stop_at, struct tally *t)
{
    struct phase ph;
    int64_t start = t0;
    double last = -1;
    for (long i = 0; !stop_signal && (stop_at < 0 || start < stop_at) && next_phase(r, i, &ph);
         i++) {
        int64_t end = ph.len < 0 ? -1 : start + ph.len;
        if (stop_at >= 0 && (end < 0 || end > stop_at)) end = stop_at;
        if (ph.kind != PH_LEVEL || ph.load != last) log_phase(r, phase_name[ph.kind], ph.load);
        last = ph.load;
        run_phase(r, start, end, ph.load);
        int64_t now = clock_ns(CLOCK_MONOTONIC);
        int64_t spent = (end < 0 || now < end ? now : end) - start;
        t->spent += spent;
        if (ph.load > 0) t->loaded += spent;
        t->level_ns += ph.load * (double)spent;
        t->bursts += ph.kind == PH_BURST;
        t->levels += ph.kind == PH_LEVEL;
        start = end;
    }
}

static int run(const struct config *c)
{
    struct run r = {.c = c,
                    .launch_mono = clock_ns(CLOCK_MONOTONIC),
                    .period_ns = to_ns(c->period_ms / 1000),
                    .rng = 0x9e3779b97f4a7c15ULL,
                    .draw = c->seed};
    int rc = prepare(&r);
    if (rc != 0) return rc;

    if (c->delay > 0) {
        log_phase(&r, "delay", 0);
        sleep_until(r.launch_mono + to_ns(c->delay));
    }
    int64_t t0 = clock_ns(CLOCK_MONOTONIC), cpu0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
    struct tally t = {0};
    run_phases(&r, t0, c->has_duration ? t0 + to_ns(c->duration) : -1, &t);
    int64_t t1 = clock_ns(CLOCK_MONOTONIC), cpu1 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
    log_phase(&r, "end", 0);

    printf(PROG ": ran %.3f s, busy %.3f s, target load %g", (double)(t1 - t0) / NS,
           (double)(cpu1 - cpu0) / NS, c->load);
    if (c->pattern == PAT_BURSTS || c->pattern == PAT_RANDOM)
        printf(" over %.3f s of load phases", (double)t.loaded / NS);
    if (c->pattern == PAT_RANDOM) printf(" in %ld burst%s", t.bursts, t.bursts == 1 ? "" : "s");
    if (c->pattern == PAT_WANDER)
        printf(" wandering from %g: mean level %.3f over %ld level%s", c->lo,
               t.spent > 0 ? t.level_ns / (double)t.spent : 0.0, t.levels,
               t.levels == 1 ? "" : "s");
    if (stop_signal) printf(" (stopped by %s)", stop_signal == SIGTERM ? "SIGTERM" : "SIGINT");
    printf("\n");

    rc = r.log_failed ? 1 : 0;
    if (r.log && fclose(r.log) != 0 && !r.log_failed) {
        fprintf(stderr, PROG ": option --log: cannot write '%s': %s\n", c->log, strerror(errno));
        rc = 1;
    }
    if (fflush(stdout) != 0) rc = 1;
    return rc;
}

/* ---- command line ---- */

/* Writes the CPUs this process may use as "0-3,6" for the --cpu message. */
static void cpu_list(const cpu_set_t *set, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < CPU_SETSIZE && used + 1 < len; i++) {
        if (!CPU_ISSET(i, set)) continue;
        int j = i;
        while (j + 1 < CPU_SETSIZE && CPU_ISSET(j + 1, set)) j++;
        int k = j > i ? snprintf(buf + used, len - used, "%s%d-%d", used ? "," : "", i, j)
                      : snprintf(buf + used, len - used, "%s%d", used ? "," : "", i);
        if (k < 0) break;
        used += (size_t)k;
        i = j;
    }
}

static const char *const options[] = {"load", "period", "cpu", "duration", "delay",
                                      "pattern", "log", "seed"};
static const char *const metavar[] = {"F", "MS", "K", "S", "S", "PATTERN", "FILE", "N"};

static int set_option(struct config *c, int opt, const char *v)
{
    double x;
    long long k;
    switch (opt) {
    case 0:
        if (parse_decimal(v, &x) != 0 || !(x > 0 && x <= 1))
            return usage_error("option --load: '%.40s' is not accepted; expected a fraction of "
                               "one core, more than 0 and at most 1", v);
        c->load = x;
        return 0;
    case 1:
        if (parse_decimal(v, &x) != 0 || !(x >= PERIOD_MIN_MS && x <= PERIOD_MAX_MS))
            return usage_error("option --period: '%.40s' is not accepted; expected "
                               "milliseconds from %g to %g", v, PERIOD_MIN_MS, PERIOD_MAX_MS);
        c->period_ms = x;
        return 0;
    case 2:
        if (parse_whole(v, CPU_SETSIZE - 1, &k) != 0)
            return usage_error("option --cpu: '%.40s' is not accepted; expected a CPU number "
                               "from 0 to %d", v, CPU_SETSIZE - 1);
        c->cpu = (int)k;
        return 0;
    case 3:
        if (parse_seconds(v, 0, &x) != 0)
            return usage_error("option --duration: '%.40s' is not accepted; expected seconds, "
                               "more than 0 and at most " TIME_MAX_TXT, v);
        c->duration = x;
        c->has_duration = 1;
        return 0;
    case 4:
        if (parse_seconds(v, 1, &x) != 0)
            return usage_error("option --delay: '%.40s' is not accepted; expected seconds, "
                               "from 0 to " TIME_MAX_TXT, v);
        c->delay = x;
        return 0;
    case 5:
        return parse_pattern(v, c);
    case 6:
        if (!*v) return usage_error("option --log: '' is not accepted; expected a file path");
        c->log = v;
        return 0;
    default:
        if (parse_whole(v, SEED_MAX, &k) != 0)
            return usage_error("option --seed: '%.40s' is not accepted; expected a whole number "
                               "from 0 to " SEED_MAX_TXT, v);
        c->seed = (uint64_t)k;
        c->has_seed = 1;
        return 0;
    }
}

int main(int argc, char **argv)
{
    struct config c = {.period_ms = 100, .cpu = -1, .seed = 1};
    int help = 0, has_load = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            help = 1;
            continue;
        }
        if (a[0] == '-' && a[1] != '-' && a[1])
            return usage_error("unknown option '%.40s'; accepted: --load, --period, --cpu, "
                               "--duration, --delay, --pattern, --seed, --log, --help", a);
        if (a[0] != '-' || a[1] != '-')
            return usage_error("unexpected operand '%.40s'; " PROG " takes options only", a);
        const char *name = a + 2, *eq = strchr(name, '=');
        size_t nlen = eq ? (size_t)(eq - name) : strlen(name);
        int opt = -1;
        for (int o = 0; o < (int)(sizeof options / sizeof *options); o++)
            if (strlen(options[o]) == nlen && strncmp(name, options[o], nlen) == 0) opt = o;
        if (opt < 0)
            return usage_error("unknown option '%.40s'; accepted: --load, --period, --cpu, "
                               "--duration, --delay, --pattern, --seed, --log, --help", a);
        const char *v;
        if (eq) {
            v = eq + 1;
        } else if (i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0) {
            v = argv[++i];
        } else {
            return usage_error("option --%s needs a value; expected --%s %s", options[opt],
                               options[opt], metavar[opt]);
        }
        if (set_option(&c, opt, v) != 0) return 2;
        if (opt == 0) has_load = 1;
    }
    if (help) {
        fputs(help_text, stdout);
        return 0;
    }
    if (!has_load)
        return usage_error("option --load is required; expected --load F with 0 < F <= 1");
    if (c.pattern == PAT_WANDER && c.lo > c.load)
        return usage_error("option --pattern: '%.60s': LO %g is more than the --load %g; "
                           "expected 0 <= LO <= F", c.pattern_text, c.lo, c.load);
    if (c.has_seed && c.pattern != PAT_RANDOM && c.pattern != PAT_WANDER)
        return usage_error("option --seed has no effect with --pattern %s%s; it seeds only the "
                           "random and wander patterns", pattern_name[c.pattern],
                           c.pattern_text ? "" : " (the default)");
    if (c.cpu >= 0) {
        cpu_set_t allowed;
        if (sched_getaffinity(0, sizeof allowed, &allowed) == 0 && !CPU_ISSET(c.cpu, &allowed)) {
            char list[256];
            cpu_list(&allowed, list, sizeof list);
            return usage_error("option --cpu: CPU %d is not available to this process; "
                               "available: %s", c.cpu, list);
        }
    }
    return run(&c);
}
