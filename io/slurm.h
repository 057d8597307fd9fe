/* Slurm as --xmpi-rms=slurm reads it: the parsers of the output of the Slurm commands rank 0
 * runs (scontrol show job -d, sinfo -N -o, salloc's grant line) and of hostlist expressions.
 * Pure: the commands themselves run in libxmpi/rms_slurm.c. */
#ifndef XMPIR_SLURM_H
#define XMPIR_SLURM_H

#include <stddef.h>
#include <stdio.h>

#include "textfile.h"

/* Far above the nodes of any partition, low enough that a mistyped range cannot eat memory. */
#define XMPIR_SLURM_NODES_MAX 65536
#define XMPIR_SLURM_STATE_MAX 32

/* The format sinfo is asked for, one node a line (sinfo -h -N -p PARTITION -o ...): NodeName,
 * NodeHostname, CPUs, state (long form) and available features. */
#define XMPIR_SLURM_SINFO_FORMAT "%N|%n|%c|%T|%f"

struct xmpi_slurm_names {
    int n;
    char (*v)[XMPIR_NAME_MAX];   /* malloc'ed */
};

/* Expands a hostlist expression ("n[01-03,7],login", brackets anywhere in a name, several
 * giving every combination) into names, in order, duplicates kept; zero-padded ranges keep the
 * width of their lower bound. -1 with the reason in err (no prefix: the caller names the field)
 * on a syntax error, a name of XMPIR_NAME_MAX characters or more, or more than
 * XMPIR_SLURM_NODES_MAX names. "" and "(null)" are no names. */
int xmpi_slurm_hostlist(const char *expr, struct xmpi_slurm_names *out, char *err,
                        size_t errlen);
void xmpi_slurm_names_free(struct xmpi_slurm_names *s);
int xmpi_slurm_names_find(const struct xmpi_slurm_names *s, const char *name);

/* A job as `scontrol show job -d ID` describes it (its first record). */
struct xmpi_slurm_job {
    long id;
    char state[XMPIR_SLURM_STATE_MAX];   /* JobState: RUNNING, PENDING, ... */
    char partition[XMPIR_NAME_MAX];      /* "" while none is given */
    struct xmpi_slurm_names nodes;       /* NodeList, expanded; none while pending */
    int *cpus;                           /* per node of `nodes`: the CPUs the job holds there, from
                                          * the detail lines (Nodes=... CPU_IDs=...); 0: not said */
    int resized;                         /* ResizeTime is a date: the job was resized before */
};

/* Reads the output of `scontrol show job -d ID` (the multi-line form). Only the first
 * key=value of each line is read (and CPU_IDs on a detail line): a value with blanks (a job
 * name, a command, a comment) can then not pass for a field, as each of those starts a line of
 * its own or follows the field read on its line. -1 with "FNAME:LINE: ..." for output that is not
 * a job: JobId or JobState missing or malformed, a NodeList or Nodes that is not a hostlist, a
 * CPU_IDs that is not a list of CPU numbers. */
int xmpi_slurm_job_parse(struct xmpi_slurm_job *job, FILE *f, const char *fname, char *err,
                         size_t errlen);
void xmpi_slurm_job_free(struct xmpi_slurm_job *job);

/* A node as sinfo describes it (XMPIR_SLURM_SINFO_FORMAT). */
enum {
    XMPIR_SLURM_NODE_IDLE = 1,     /* idle and nothing else: free for a job to take */
    XMPIR_SLURM_NODE_LEAVING = 2,  /* Slurm takes it back from its jobs: draining, drained, down,
                                    * failing, in maintenance, or a reboot or power-down pending */
};

struct xmpi_slurm_node {
    char name[XMPIR_NAME_MAX];   /* NodeName: what Slurm's commands take */
    char host[XMPIR_NAME_MAX];   /* NodeHostname: what the node calls itself (the name when
                                  * sinfo gives none) */
    int cpus;
    char state[XMPIR_SLURM_STATE_MAX];   /* as sinfo gives it: "idle", "draining", "down*" */
    int flags;                           /* XMPIR_SLURM_NODE_* */
    char feature[XMPIR_NAME_MAX];        /* the first available feature; "" when none */
};

struct xmpi_slurm_nodes {
    int n;
    struct xmpi_slurm_node *v;   /* malloc'ed */
};

/* Reads sinfo's lines (XMPIR_SLURM_SINFO_FORMAT), each node once (a node listed again for
 * another partition is skipped). -1 with "FNAME:LINE: ..." on a line without its five fields, a
 * name that is empty or too long, or a CPU count that is not a whole number from 1 to 65536. */
int xmpi_slurm_nodes_parse(struct xmpi_slurm_nodes *nodes, FILE *f, const char *fname,
                           char *err, size_t errlen);
void xmpi_slurm_nodes_free(struct xmpi_slurm_nodes *nodes);
/* The node whose NodeName, or else NodeHostname, is `name`; -1 when none is. */
int xmpi_slurm_nodes_find(const struct xmpi_slurm_nodes *nodes, const char *name);

/* XMPIR_SLURM_NODE_* of a state as sinfo's %T gives it: a base state ("mixed", "drained")
 * and flag characters after it ("*" not responding, "~" powered down, "@" reboot pending...). */
int xmpi_slurm_node_flags(const char *state);

/* The number of CPUs in a CPU_IDs list ("0-3,8,10-11"): -1 when it is not one. */
int xmpi_slurm_cpu_count(const char *ids);

/* The job id of salloc's "salloc: Granted job allocation 12" line in its output; -1 when no
 * line says it. */
long xmpi_slurm_granted(const char *text);

#endif
