/* What the executors did: each move, spawn or removal reports here (one sink in the runtime
 * context), and the interval pipeline reads it when it records a trace row and compares the
 * model's prediction. Executors never call the monitor or the model themselves. */
#ifndef XMPIR_SINK_H
#define XMPIR_SINK_H

struct xmpi_journal {
    char action[96];         /* since the last trace row: "spawn+redistribute", "" = none */
    /* Running totals since MPI_Init (never reset): the model takes differences. */
    double reconf_seconds;   /* spawns and removals, without the data they moved */
    double redist_seconds;   /* redistributions, from the moment every process is in them */
    /* Running totals on every process, exported to PAPI tools (sde.c). */
    long long rebalances;    /* rebalances carried out */
    long long spawned;       /* processes that joined by spawns this process took part in */
    long long removed;       /* processes that left by removals this process took part in */
};

/* Adds `action` to the next row's action column, once per kind, in order, joined by '+'. */
void xmpi_journal_action(struct xmpi_journal *k, const char *action);
/* The same for a rebalance, a spawn or a removal, counting n of them (rebalances, processes
 * that joined, processes that left) in the running totals. */
void xmpi_journal_did(struct xmpi_journal *k, const char *action, long long n);
/* A spawn or removal took `seconds` (excluding the redistribution it contained). */
void xmpi_journal_reconfigured(struct xmpi_journal *k, double seconds);
/* A redistribution took `seconds`. */
void xmpi_journal_moved(struct xmpi_journal *k, double seconds);
/* The action column of the row being written ("none" when nothing happened); clears it. */
void xmpi_journal_take_action(struct xmpi_journal *k, char *out, unsigned long len);

#endif
