/* Configurations for the prediction model: class indices of a pool's hosts, and the
 * processes per class (and the mixing of spawn groups) before and after an action. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

int xmpi_config_classes(const struct xmpi_pool *pool, int *host_class, char **names,
                        double *speeds, int max)
{
    int n = 0;
    for (int h = 0; h < pool->nhosts; h++) {
        int j = 0;
        while (j < h && strcmp(pool->hosts[j].cls, pool->hosts[h].cls)) j++;
        if (j < h) {
            host_class[h] = host_class[j];
            continue;
        }
        if (n == max) return -1;
        host_class[h] = n;
        names[n] = (char *)pool->hosts[h].cls;
        speeds[n] = pool->hosts[h].speed;
        n++;
    }
    return n;
}

static int leaves(int r, const int *leaving, int nleave)
{
    for (int j = 0; j < nleave; j++)
        if (leaving[j] == r) return 1;
    return 0;
}

/* Whether rank r leaves: from `gone` (p flags) when there was memory for it, else by looking
 * through the list (O(nleave) per rank: a removal of P/4 would cost O(P^2), issue 42). */
static int leaving_rank(int r, const char *gone, const int *leaving, int nleave)
{
    return gone ? gone[r] : leaves(r, leaving, nleave);
}

int xmpi_config_change(int p, const int *rank_class, const int *rank_group, const int *new_class,
                       int nnew, const int *leaving, int nleave, struct xmpi_config_change *out)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < p; i++) {
        if (rank_class[i] < 0 || rank_class[i] >= XMPIR_MODEL_CLASSES_MAX) return -1;
        out->current[rank_class[i]]++;
    }
    memcpy(out->candidate, out->current, sizeof out->candidate);
    for (int i = 0; i < nnew; i++) {
        if (new_class[i] < 0 || new_class[i] >= XMPIR_MODEL_CLASSES_MAX) return -1;
        out->candidate[new_class[i]]++;
    }
    for (int i = 0; i < nleave; i++) {
        if (leaving[i] < 0 || leaving[i] >= p) return -1;
        out->candidate[rank_class[leaving[i]]]--;
    }
    /* New processes come from a spawn of their own: mixed from then on. */
    out->mixed_next = nnew > 0;
    char *gone = nleave > 0 ? calloc((size_t)p, 1) : NULL;
    for (int i = 0; gone && i < nleave; i++) gone[leaving[i]] = 1;
    for (int i = 1; i < p; i++) {
        if (rank_group[i] == rank_group[0]) continue;
        out->mixed_now = 1;
        if (!leaving_rank(i, gone, leaving, nleave)) out->mixed_next = 1;
    }
    free(gone);
    return 0;
}
