/* Calibration defaults (measured on 2 cores; see below), the parser of the calibration
 * file with line-numbered messages, and its writer. No MPI here. */
#include "calibration.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "textfile.h"

/* Where the defaults come from (2-core VM, Debian 12, Open MPI 4.1.4, both ranks on one
 * host, so "network" means shared memory):
 * - alpha: half the round trip of a 0- and an 8-byte MPI_Send/MPI_Recv ping-pong,
 *   0.40-0.56 us over three runs of 20000 round trips (mpirun -np 2).
 * - beta: the same ping-pong at 8-64 MiB, 2.3-3.0 GB/s, i.e. 3.3-4.3e-10 s/byte. Messages
 *   that stay in cache (256 KiB - 4 MiB) run at 3.8-5.2 GB/s (about 2.2e-10 s/byte); the
 *   out-of-cache figure is kept because redistributions move megabytes, and it agrees
 *   with a 67 MB MPI_Alltoallv of make bench-redist (about 35 ms: 5e-10 s/byte). Lambda
 *   corrects the program's own messages at run time.
 * - gamma: MPI_Reduce_local(MPI_SUM) over 2 Mi doubles, 2.2-2.8e-10 s/byte.
 * - spawn_single: XMPI_Spawn of one process, 320 ms (README, make bench-spawn; 0.2-0.35 s
 *   per process over k = 1..4 and the raw MPI calls).
 * - spawn_group: 0.38 of single, the measured ratio of a group spawn of 4 (131 ms per
 *   process) to single spawns (347 ms): 0.38 x 0.32 s.
 * - remove: 6-16 ms per process measured by make bench-spawn; 10 ms. remove_procs: 0, as
 *   those jobs' sizes varied.
 * - spawn_join: the join of an asynchronous spawn (--xmpi-spawn-async), what the job waits
 *   for once the helper thread has started the processes: 5-8 ms for one process and
 *   14-20 ms for two (Jacobi and CG -d on 2 processes); 8 ms per process.
 * - spawn_lag: the time the iterations lose to a spawn beyond the spawn and its join, from
 *   make bench-amp's Jacobi traces (2 to 8 processes of emulated classes): the
 *   new processes' first interval ran 0.13-0.35 s longer than the next one, and the
 *   intervals an asynchronous spawn ran beside 0.05-0.35 s longer than the one before it;
 *   0.26-0.61 s per spawn in all, for 1 to 4 processes. 0.3 s.
 * - alpha_spawned, beta_spawned: Open MPI 4.1's shared-memory transport cannot join
 *   processes of different jobs, so a parent and a spawned process talk over TCP loopback:
 *   a ping-pong between them gave 6.8 us at 8 B and 4.0-5.6 GB/s at 1-16 MiB (2.5e-10).
 * - touch: 0, as on most machines a receive leaves its pages ready for the program. Under
 *   shadow paging (virtual machines without nested page tables), the first read of a fresh 24 MB buffer that an
 *   MPI_Recv filled took 20-28 ms, the next 1.8 ms (about 1e-9 s/byte); xmpi-calibrate
 *   measures it.
 * - copy_contention: 0, as the defaults were measured one process at a time (where page faults
 *   contend, two processes faulting in 34 MiB each at once took 0.14-0.16 s against 0.12 s
 *   alone; xmpi-calibrate measures it).
 * - copy: memcpy into freshly allocated memory, 2.0-2.7 GB/s with its page faults (make
 *   bench-redist), i.e. 3.7-5e-10 s/byte; 4.4e-10. */

struct key {
    const char *name;
    unsigned bit;
    double max;
    const char *unit;
    int whole;   /* 1: a whole number */
};

static const struct key keys[] = {
    {"alpha", XMPIR_CAL_ALPHA, 1, "seconds", 0},
    {"beta", XMPIR_CAL_BETA, 1e-3, "seconds per byte", 0},
    {"gamma", XMPIR_CAL_GAMMA, 1e-3, "seconds per byte", 0},
    {"spawn_single", XMPIR_CAL_SPAWN_SINGLE, 3600, "seconds per process", 0},
    {"spawn_group", XMPIR_CAL_SPAWN_GROUP, 3600, "seconds per process", 0},
    {"remove", XMPIR_CAL_REMOVE, 3600, "seconds per process", 0},
    {"alpha_spawned", XMPIR_CAL_ALPHA_SPAWNED, 1, "seconds", 0},
    {"beta_spawned", XMPIR_CAL_BETA_SPAWNED, 1e-3, "seconds per byte", 0},
    {"copy", XMPIR_CAL_COPY, 1e-3, "seconds per byte", 0},
    {"spawn_join", XMPIR_CAL_SPAWN_JOIN, 3600, "seconds per process", 0},
    {"spawn_lag", XMPIR_CAL_SPAWN_LAG, 3600, "seconds per spawn", 0},
    {"remove_procs", XMPIR_CAL_REMOVE_PROCS, 1000000, "processes", 1},
    {"copy_contention", XMPIR_CAL_COPY_CONTENTION, 100, "times copy per other process", 0},
    {"touch", XMPIR_CAL_TOUCH, 1e-3, "seconds per byte", 0},
};
#define NKEYS ((int)(sizeof keys / sizeof keys[0]))

#define BENCH_SYNOPSIS "spawn|remove|raw MODE K SECONDS_PER_PROCESS"

static double *field_of(struct xmpi_calibration *c, unsigned bit)
{
    switch (bit) {
    case XMPIR_CAL_ALPHA: return &c->net.alpha;
    case XMPIR_CAL_BETA: return &c->net.beta;
    case XMPIR_CAL_GAMMA: return &c->net.gamma;
    case XMPIR_CAL_SPAWN_SINGLE: return &c->spawn_single;
    case XMPIR_CAL_SPAWN_GROUP: return &c->spawn_group;
    case XMPIR_CAL_ALPHA_SPAWNED: return &c->spawned.alpha;
    case XMPIR_CAL_BETA_SPAWNED: return &c->spawned.beta;
    case XMPIR_CAL_COPY: return &c->net.copy;
    case XMPIR_CAL_SPAWN_JOIN: return &c->spawn_join;
    case XMPIR_CAL_SPAWN_LAG: return &c->spawn_lag;
    case XMPIR_CAL_REMOVE_PROCS: return &c->remove_procs;
    case XMPIR_CAL_COPY_CONTENTION: return &c->net.copy_contention;
    case XMPIR_CAL_TOUCH: return &c->net.touch;
    default: return &c->remove;
    }
}

void xmpi_calibration_defaults(struct xmpi_calibration *c)
{
    memset(c, 0, sizeof *c);
    c->net.alpha = XMPIR_CAL_DEFAULT_ALPHA;
    c->net.beta = XMPIR_CAL_DEFAULT_BETA;
    c->net.gamma = XMPIR_CAL_DEFAULT_GAMMA;
    c->spawn_single = XMPIR_CAL_DEFAULT_SPAWN_SINGLE;
    c->spawn_group = XMPIR_CAL_DEFAULT_SPAWN_GROUP;
    c->remove = XMPIR_CAL_DEFAULT_REMOVE;
    c->spawn_join = XMPIR_CAL_DEFAULT_SPAWN_JOIN;
    c->spawn_lag = XMPIR_CAL_DEFAULT_SPAWN_LAG;
    c->spawned.alpha = XMPIR_CAL_DEFAULT_ALPHA_SPAWNED;
    c->spawned.beta = XMPIR_CAL_DEFAULT_BETA_SPAWNED;
    c->spawned.gamma = XMPIR_CAL_DEFAULT_GAMMA;
    c->net.copy = c->spawned.copy = XMPIR_CAL_DEFAULT_COPY;
}

/* A decimal number, as people write them in a file: [+-]digits[.digits][e[+-]digits].
 * strtod alone would also take "inf", "nan", hex and leading blanks. */
static int parse_number(const char *s, double *out)
{
    const char *p = s;
    if (*p == '+' || *p == '-') p++;
    int digits = 0;
    while (isdigit((unsigned char)*p)) p++, digits++;
    if (*p == '.') {
        p++;
        while (isdigit((unsigned char)*p)) p++, digits++;
    }
    if (!digits) return -1;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-') p++;
        if (!isdigit((unsigned char)*p)) return -1;
        while (isdigit((unsigned char)*p)) p++;
    }
    if (*p) return -1;
    errno = 0;
    double v = strtod(s, NULL);
    if (errno == ERANGE || !isfinite(v)) return -1;
    *out = v;
    return 0;
}

/* Fields without splitting: the first word decides how many there must be. */
static int count_fields(const char *line, char *first, size_t firstlen)
{
    int n = 0;
    for (const char *p = line;;) {
        while (*p && isspace((unsigned char)*p)) p++;
        if (!*p) break;
        const char *w = p;
        while (*p && !isspace((unsigned char)*p)) p++;
        if (n++ == 0) snprintf(first, firstlen, "%.*s", (int)(p - w), w);
    }
    return n;
}

struct bench {
    double sum[3];   /* spawn single, spawn group, remove */
    int n[3];
};

static int parse_bench(const struct xmpi_text_lines *r, char **tok, struct bench *b, char *err,
                       size_t errlen)
{
    int group;
    if (!strcmp(tok[1], "single")) group = 0;
    else if (!strcmp(tok[1], "group")) group = 1;
    else return xmpi_text_field_error(r, err, errlen, "MODE", tok[1], "single or group");
    long k;
    if (xmpi_text_parse_long(tok[2], 1, 1000000, &k))
        return xmpi_text_field_error(r, err, errlen, "K", tok[2],
                                     "a whole number of processes from 1 to 1000000");
    double v;
    if (parse_number(tok[3], &v) || v < 0 || v > 3600)
        return xmpi_text_field_error(r, err, errlen, "SECONDS_PER_PROCESS", tok[3],
                                     "a number of seconds per process from 0 to 3600");
    int slot = !strcmp(tok[0], "spawn") ? group : !strcmp(tok[0], "remove") ? 2 : -1;
    if (slot >= 0) {
        b->sum[slot] += v;
        b->n[slot]++;
    }
    return 0;
}

static int parse_power(const struct xmpi_text_lines *r, char **tok, struct xmpi_calibration *c,
                       long *power_line, char *err, size_t errlen)
{
    if (!xmpi_text_name_ok(tok[1]))
        return xmpi_text_field_error(r, err, errlen, "CLASS", tok[1],
                                     "a class name of 1 to %d letters, digits, '.', '_', '-'",
                                     XMPIR_NAME_MAX - 1);
    for (int i = 0; i < c->nclasses; i++)
        if (!strcmp(c->cls[i].name, tok[1]))
            return xmpi_text_line_error(r, err, errlen,
                                        "power of class %s given again; first given on line %ld",
                                        tok[1], power_line[i]);
    double v;
    if (parse_number(tok[2], &v) || !(v > 0))
        return xmpi_text_field_error(r, err, errlen, "WORK_PER_S", tok[2],
                                     "a positive number of work units per second");
    if (c->nclasses == XMPIR_CAL_CLASSES_MAX)
        return xmpi_text_line_error(r, err, errlen,
                                    "more than %d power lines are not accepted; expected one "
                                    "per node class",
                                    XMPIR_CAL_CLASSES_MAX);
    snprintf(c->cls[c->nclasses].name, sizeof c->cls[0].name, "%s", tok[1]);
    c->cls[c->nclasses].power = v;
    power_line[c->nclasses++] = r->lineno;
    return 0;
}

static int parse_line(const struct xmpi_text_lines *r, char *line, struct xmpi_calibration *c,
                      long *key_line, long *power_line, struct bench *b, char *err,
                      size_t errlen)
{
    char first[32];
    int nf = count_fields(line, first, sizeof first);
    char *tok[4];
    if (!strcmp(first, "power")) {
        static const char *const names[] = {"power", "CLASS", "WORK_PER_S"};
        if (xmpi_text_fields(r, line, tok, 3, names, "power CLASS WORK_PER_S", err, errlen))
            return -1;
        return parse_power(r, tok, c, power_line, err, errlen);
    }
    int bench = !strcmp(first, "spawn") || !strcmp(first, "raw") ||
                (!strcmp(first, "remove") && nf > 2);
    if (bench) {
        static const char *const names[] = {"KIND", "MODE", "K", "SECONDS_PER_PROCESS"};
        if (xmpi_text_fields(r, line, tok, 4, names, BENCH_SYNOPSIS, err, errlen))
            return -1;
        return parse_bench(r, tok, b, err, errlen);
    }
    for (int i = 0; i < NKEYS; i++) {
        if (strcmp(first, keys[i].name)) continue;
        char synopsis[48];
        snprintf(synopsis, sizeof synopsis, "%s VALUE", keys[i].name);
        static const char *const names[] = {"KEY", "VALUE"};
        if (xmpi_text_fields(r, line, tok, 2, names, synopsis, err, errlen)) return -1;
        if (key_line[i])
            return xmpi_text_line_error(r, err, errlen,
                                        "key %s given again; first given on line %ld",
                                        keys[i].name, key_line[i]);
        double v;
        int whole = keys[i].whole;
        if (parse_number(tok[1], &v) || v < 0 || v > keys[i].max || (whole && v != floor(v)))
            return xmpi_text_field_error(r, err, errlen, keys[i].name, tok[1],
                                         "a %snumber of %s from 0 to %g", whole ? "whole " : "",
                                         keys[i].unit, keys[i].max);
        *field_of(c, keys[i].bit) = v;
        key_line[i] = r->lineno;
        return 0;
    }
    char shown[XMPIR_TEXT_ECHO_SIZE], keynames[256];   /* every key: about 170 characters */
    xmpi_calibration_defaulted_names(XMPIR_CAL_ALL, keynames, sizeof keynames);
    return xmpi_text_line_error(r, err, errlen,
                                "unknown key '%s'; expected one of %s, power, or a benchmark line "
                                "'" BENCH_SYNOPSIS "'",
                                xmpi_text_echo(shown, first), keynames);
}

int xmpi_calibration_parse(struct xmpi_calibration *c, FILE *f, const char *fname,
                           unsigned *defaulted, char *err, size_t errlen)
{
    if (!c || !f) return xmpi_text_error(err, errlen, "calibration: no file to read");
    struct xmpi_calibration tmp;
    xmpi_calibration_defaults(&tmp);
    long key_line[NKEYS] = {0}, power_line[XMPIR_CAL_CLASSES_MAX] = {0};
    struct bench b = {{0, 0, 0}, {0, 0, 0}};
    struct xmpi_text_lines r;
    xmpi_text_lines_init(&r, f, fname ? fname : "calibration");
    char *line;
    int rc, failed = 0;
    while ((rc = xmpi_text_next(&r, &line)) == 1) {
        if (parse_line(&r, line, &tmp, key_line, power_line, &b, err, errlen)) {
            failed = 1;
            break;
        }
    }
    if (!failed && rc < 0) {
        xmpi_text_lines_failed(&r, err, errlen);
        failed = 1;
    }
    xmpi_text_lines_free(&r);
    if (failed) return -1;

    /* Benchmark lines fill what no key line set. */
    static const unsigned bench_bits[3] = {XMPIR_CAL_SPAWN_SINGLE, XMPIR_CAL_SPAWN_GROUP,
                                           XMPIR_CAL_REMOVE};
    unsigned def = 0;
    for (int i = 0; i < NKEYS; i++) {
        if (key_line[i]) continue;
        int from_bench = 0;
        for (int j = 0; j < 3; j++) {
            if (keys[i].bit == bench_bits[j] && b.n[j]) {
                *field_of(&tmp, keys[i].bit) = b.sum[j] / b.n[j];
                from_bench = 1;
            }
        }
        if (!from_bench) def |= keys[i].bit;
    }
    tmp.spawned.gamma = tmp.net.gamma;
    tmp.spawned.copy = tmp.net.copy;
    tmp.spawned.copy_contention = tmp.net.copy_contention;
    tmp.spawned.touch = tmp.net.touch;
    *c = tmp;
    if (defaulted) *defaulted = def;
    return 0;
}

int xmpi_calibration_load(struct xmpi_calibration *c, const char *path, unsigned *defaulted,
                          char *err, size_t errlen)
{
    if (!path) return xmpi_text_error(err, errlen, "calibration: no file name");
    FILE *f = fopen(path, "r");
    if (!f) return xmpi_text_error(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    int rc = xmpi_calibration_parse(c, f, path, defaulted, err, errlen);
    fclose(f);
    return rc;
}

/* Shortest of %.15g and %.17g that reads back as v, so files stay readable. */
static const char *num(char buf[32], double v)
{
    snprintf(buf, 32, "%.15g", v);
    if (strtod(buf, NULL) != v) snprintf(buf, 32, "%.17g", v);
    return buf;
}

int xmpi_calibration_write(const struct xmpi_calibration *c, FILE *f)
{
    if (!c || !f) return -1;
    char b[32];
    fprintf(f, "# libxmpi calibration (io/calibration.h describes the format)\n");
    fprintf(f, "alpha %s   # seconds per message\n", num(b, c->net.alpha));
    fprintf(f, "beta %s   # seconds per byte\n", num(b, c->net.beta));
    fprintf(f, "gamma %s   # seconds per byte reduced\n", num(b, c->net.gamma));
    fprintf(f, "spawn_single %s   # seconds per process, one spawn each\n",
            num(b, c->spawn_single));
    fprintf(f, "spawn_group %s   # seconds per process, spawned together\n",
            num(b, c->spawn_group));
    fprintf(f, "remove %s   # seconds per process\n", num(b, c->remove));
    fprintf(f, "remove_procs %s   # processes of the job that removal was timed on (0: not known)\n",
            num(b, c->remove_procs));
    fprintf(f, "alpha_spawned %s   # seconds per message between processes of different spawns\n",
            num(b, c->spawned.alpha));
    fprintf(f, "beta_spawned %s   # seconds per byte between processes of different spawns\n",
            num(b, c->spawned.beta));
    fprintf(f, "copy %s   # seconds per byte written into freshly allocated memory\n",
            num(b, c->net.copy));
    fprintf(f, "copy_contention %s   # copy's growth per other process filling memory at once\n",
            num(b, c->net.copy_contention));
    fprintf(f, "touch %s   # seconds per byte of a first read of memory a receive filled\n",
            num(b, c->net.touch));
    fprintf(f, "spawn_join %s   # seconds per process an asynchronous spawn costs the job\n",
            num(b, c->spawn_join));
    fprintf(f, "spawn_lag %s   # seconds per spawn the iterations lose beyond the spawn itself\n",
            num(b, c->spawn_lag));
    for (int i = 0; i < c->nclasses; i++)
        fprintf(f, "power %s %s   # work per second of one process\n", c->cls[i].name,
                num(b, c->cls[i].power));
    return ferror(f) ? -1 : 0;
}

void xmpi_calibration_defaulted_names(unsigned defaulted, char *buf, size_t len)
{
    if (!buf || !len) return;
    buf[0] = '\0';
    size_t used = 0;
    for (int i = 0; i < NKEYS; i++) {
        if (!(defaulted & keys[i].bit)) continue;
        int w = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", keys[i].name);
        if (w < 0 || (size_t)w >= len - used) return;
        used += (size_t)w;
    }
}

double xmpi_calibration_power(const struct xmpi_calibration *c, const char *name)
{
    if (!c || !name) return 0;
    for (int i = 0; i < c->nclasses; i++)
        if (!strcmp(c->cls[i].name, name)) return c->cls[i].power;
    return 0;
}
