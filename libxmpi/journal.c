/* The runtime's one record of what its executors did between two trace rows, with running
 * totals of reconfiguration and redistribution time for the prediction model. */
#include "journal.h"

#include <stdio.h>
#include <string.h>

void xmpi_journal_action(struct xmpi_journal *k, const char *action)
{
    /* Several things can happen between two rows (a spawn, then the move of the data): the
     * row names each kind once, in order. */
    size_t n = strlen(action), have = strlen(k->action);
    for (const char *p = k->action; *p;) {
        const char *e = strchr(p, '+');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncmp(p, action, n)) return;
        p += len + (e ? 1 : 0);
    }
    if (have + (have ? 1 : 0) + n >= sizeof k->action) return;
    snprintf(k->action + have, sizeof k->action - have, "%s%s", have ? "+" : "", action);
}

void xmpi_journal_did(struct xmpi_journal *k, const char *action, long long n)
{
    xmpi_journal_action(k, action);
    if (!strcmp(action, "rebalance")) k->rebalances += n;
    else if (!strcmp(action, "spawn")) k->spawned += n;
    else if (!strcmp(action, "remove")) k->removed += n;
}

void xmpi_journal_reconfigured(struct xmpi_journal *k, double seconds)
{
    k->reconf_seconds += seconds > 0 ? seconds : 0;
}

void xmpi_journal_moved(struct xmpi_journal *k, double seconds)
{
    k->redist_seconds += seconds > 0 ? seconds : 0;
}

void xmpi_journal_take_action(struct xmpi_journal *k, char *out, unsigned long len)
{
    snprintf(out, len, "%s", k->action[0] ? k->action : "none");
    k->action[0] = '\0';
}
