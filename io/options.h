/* Run-time options: --xmpi-NAME=VALUE on the command line or XMPI_NAME in the
 * environment (argv wins; an overridden variable is not read). Pure parsing, no MPI, so it is unit tested directly. */
#ifndef XMPIR_OPTIONS_H
#define XMPIR_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

#define XMPIR_PATH_MAX 4096
#define XMPIR_EVENTS_MAX 512

struct xmpi_options {
    long si;                        /* sampling interval, iterations */
    char trace[XMPIR_PATH_MAX];      /* trace CSV path; "" = no trace */
    long trace_ranks;               /* per-rank trace columns up to this many processes */
    char otf2[XMPIR_PATH_MAX];       /* OTF2 archive directory; "" = none */
    long verbose;                   /* 0 quiet, 1 one line per interval, 2 debug */
    char events[XMPIR_EVENTS_MAX];   /* comma-separated PAPI events; "" = default chain */
    int help;                       /* --xmpi-help: print the options and stop */
    int spawn;                      /* 0 single (one MPI_Comm_spawn per process), 1 group */
    int spawn_check;           /* 0: on (check slots and hosts before spawning), 1: off */
    int spawn_async;           /* 0: on (a policy's spawn runs beside the computation), 1: off */
    long wait_timeout;         /* seconds a reconfiguration may wait for others; 0: no limit */
    long redist_spare;         /* MiB a process may keep from one move for the next; 0: none */
    char resources[XMPIR_PATH_MAX];  /* resource file; "" = the local host via hwloc */
    int sched;                      /* enum xmpi_sched_policy */
    int oversubscribe;              /* allow more processes than PEs on a host */
    char rms[XMPIR_PATH_MAX + 16];   /* "none", "schedule:FILE" or "file:PATH"; "" = none */
    char initial[512];              /* classes of the initial processes, "" = first class */
    int lb;                         /* enum xmpi_balance_policy: rows, nnz, weight, time */
    long lb_th1;                    /* imbalance threshold, percent */
    long lb_th2;                    /* non-dedicated threshold, percent */
    long lb_k;                      /* intervals that make interference long-term */
    int policy;                     /* enum xmpi_policy: static, smp, hpmp, amp */
    long max_procs;                 /* 0: no limit */
    long hpmp_gain;                 /* hpmp: least predicted gain of a spawn, percent */
    char goal[64];                  /* amp: "SECONDS" or "PCT%"; "" = none */
    int constraint;                 /* amp: 0 efficiency, 1 cost (enum xmpi_map_constraint) */
    long tol;                       /* amp: tolerance, percent */
    long emulate_period;            /* CPU-quota period of emulated classes, microseconds */
    int yield;                      /* enum xmpi_yield_mode: auto, on, off */
    int emulate;                    /* enum xmpi_emulate_mode: dilate, quota */
    char calibration[XMPIR_PATH_MAX]; /* calibration file; "" = the documented defaults */
    char work_profile[XMPIR_PATH_MAX]; /* an earlier run's trace: its work per interval */
    char checkpoint[XMPIR_PATH_MAX];   /* directory of the checkpoints; "" = none */
    char checkpoint_every[32];      /* "" every interval end, "N" iterations, "Ss" seconds */
    long checkpoint_keep;           /* automatic checkpoints kept */
    char restart[XMPIR_PATH_MAX];      /* checkpoint to restart from, or "latest"; "" = none */
    int resize;                     /* how a policy resizes: auto, spawn, restart (policies/resize.h) */
    int relaunch;                   /* a relauncher (xmpi-resume) reruns the job at a new size */
    unsigned long long given;       /* bit i: the table's option i was set on the command line
                                     * or in the environment (not left at its default) */
};

enum xmpi_yield_mode { XMPIR_YIELD_AUTO = 0, XMPIR_YIELD_ON, XMPIR_YIELD_OFF };
enum xmpi_emulate_mode { XMPIR_EMULATE_DILATE = 0, XMPIR_EMULATE_QUOTA };

/* --xmpi-goal's value: SECONDS (> 0) or PCT% (0 < PCT < 100). 0 with one of *seconds and
 * *pct set (the other 0; NULL pointers allowed), -1 when `v` is neither. */
int xmpi_options_goal(const char *v, double *seconds, double *pct);

void xmpi_options_defaults(struct xmpi_options *o);

/* Applies environ-style `envp` (NULL allowed), then the --xmpi- arguments of
 * argv. The variable of an option that argv sets is skipped, not checked; unknown XMPI_
 * names are refused. When `remove` is set the recognised arguments are taken out of argv and
 * *argc is lowered; arguments after a literal "--" are left alone. On an error
 * returns -1 with one message in err (naming the option and what is accepted)
 * and leaves argv as it was; 0 on success. */
int xmpi_options_parse(struct xmpi_options *o, int *argc, char **argv, int remove,
                       char *const envp[], char *err, size_t errlen);

/* 1 when option `name` was set on the command line or in the environment. */
int xmpi_options_given(const struct xmpi_options *o, const char *name);

/* The options the user set that have no effect in this job with the others as they are
 * (a checkpoint option without --xmpi-checkpoint, amp's goal under another policy, ...):
 * one line each, "option --xmpi-NAME: ... ; it acts with ...", for rank 0 to say once at
 * MPI_Init; `emulated`: some class of the pool runs below speed 1. Returns how many lines
 * `out` (room for `max`) received. */
int xmpi_options_idle(const struct xmpi_options *o, int emulated, char out[][256], int max);

/* The value of option `name` as text, as --xmpi-NAME would give it (choices by name, flags
 * as 0/1). Returns 0, or -1 for an unknown name or a buffer too small. */
int xmpi_options_format(const struct xmpi_options *o, const char *name, char *buf, size_t len);

/* A file the job reads, named by an option: the trace must never replace one. */
struct xmpi_input_file {
    char option[48];                  /* who names it: "option --xmpi-calibration", ... */
    char path[XMPIR_PATH_MAX + 8];
};
#define XMPIR_INPUTS_MAX 8

/* The input files that the options in `o` name (calibration, work profile, resources, the
 * rms schedule or state file and the state's lock file PATH.lock), at most `max`; returns
 * how many. Options left unset name none. */
int xmpi_options_inputs(const struct xmpi_options *o, struct xmpi_input_file *out, int max);

/* The --xmpi-help text. */
void xmpi_options_help(FILE *out, const char *progname);

/* The same table as a Markdown page (docs/options.md, written by `make docs` through
 * xmpi-info --options-markdown): how options are given, then one table row per option
 * with its environment name, default, accepted values and description. */
void xmpi_options_markdown(FILE *out);

/* Splits o->events on commas into at most `max` pointers into `buf` (a copy);
 * returns the count (0 for the default chain). */
int xmpi_options_events(const struct xmpi_options *o, char *buf, size_t buflen,
                        char **names, int max);

#endif
