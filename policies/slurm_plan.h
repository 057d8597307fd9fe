/* --xmpi-rms=slurm in the terms of the library's resource pool: which PEs the job may use, what
 * Slurm offers and takes back, which nodes to add for new processes and which to give back.
 * Pure decisions on what the parsers of slurm.h read; libxmpi/rms_slurm.c runs the commands. */
#ifndef XMPIR_SLURM_PLAN_H
#define XMPIR_SLURM_PLAN_H

#include <stddef.h>

#include "../io/resources.h"
#include "../io/slurm.h"

/* One look at Slurm, per pool entry. */
struct xmpi_slurm_view {
    int n;          /* pool entries */
    int *node;      /* the entry's Slurm node (an index into the nodes), -1: Slurm lists none */
    int *jobnode;   /* the entry's node among the job's (an index into job->nodes), -1: not held */
    int *pes;       /* the PEs the job may use there now: the CPUs it holds on the node, at most
                     * the entry's capacity; 0 where it holds none or Slurm takes the node back */
    int *offer;     /* an idle node of the partition the job does not hold: the PEs an expansion
                     * onto it adds (the capacity, at most the node's CPUs); else 0 */
    char *leaving;  /* Slurm takes the node back (draining, down, ...), or the job's processes
                     * run on a node that is no longer the job's */
};

/* Builds the view of `pool` (whose hosts' procs count the job's processes) from the job and the
 * partition's nodes; cap[h] is entry h's capacity (its PEs in a resource file, the node's CPUs
 * in a pool built from Slurm). An entry is matched to the node whose NodeName, or else
 * NodeHostname, is its host name. -1 only when out of memory. */
int xmpi_slurm_view_make(struct xmpi_slurm_view *v, const struct xmpi_pool *pool, const int *cap,
                         const struct xmpi_slurm_job *job, const struct xmpi_slurm_nodes *nodes);
void xmpi_slurm_view_free(struct xmpi_slurm_view *v);

/* What Slurm asks of the job now (XMPIR_RMS_ACT_* of rms_state.h), one class at a time, the
 * first in pool order: a shrink by the spawned processes (removable[h] per entry) on the entries
 * Slurm takes back; else a spawn onto the free PEs of the entries the job holds and, with
 * `expand`, onto the idle nodes it could add. */
int xmpi_slurm_action(const struct xmpi_pool *pool, const struct xmpi_slurm_view *v,
                      const int *removable, int expand, int *nprocs, char *cls, size_t clslen);

/* The nodes an expansion must add for n new processes of classes cls (NULL, or a NULL entry:
 * any class), placed one after the other onto the free PEs of the entries the job holds first,
 * then onto offered nodes in pool order, a whole node at a time. Sets pick[h] for every entry of
 * a chosen node and returns the number of nodes chosen (0: the job's own PEs suffice, or no node
 * is offered for what is left; the scheduler then says what does not fit). */
int xmpi_slurm_plan_expand(const struct xmpi_pool *pool, const struct xmpi_slurm_view *v,
                           char *const cls[], int n, char *pick);

/* The job's nodes that go back to Slurm now: those where no entry has a process of the job and
 * that Slurm takes back (leaving) or that a removal has just emptied (emptied[h] per entry, may
 * be NULL). keep gets the job's other nodes (NodeList= of the shrunk job), give the ones given
 * back, both in the job's order. Returns the number given back: 0 also when that would leave the
 * job no node. -1 when out of memory. */
int xmpi_slurm_plan_release(const struct xmpi_pool *pool, const struct xmpi_slurm_view *v,
                            const struct xmpi_slurm_job *job, const char *emptied,
                            struct xmpi_slurm_names *keep, struct xmpi_slurm_names *give);

#endif
