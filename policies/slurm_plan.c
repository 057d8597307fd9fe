/* What a look at Slurm means for the job's resource pool: the PEs it may use, offers and
 * reclaims as the policies take them, the nodes to add before a spawn and to give back after a
 * removal. No MPI, no processes here. */
#include "slurm_plan.h"

#include <stdlib.h>
#include <string.h>

#include "../io/rms_state.h"

void xmpi_slurm_view_free(struct xmpi_slurm_view *v)
{
    if (!v) return;
    free(v->node);
    free(v->jobnode);
    free(v->pes);
    free(v->offer);
    free(v->leaving);
    memset(v, 0, sizeof *v);
}

static int min_int(int a, int b)
{
    return a < b ? a : b;
}

int xmpi_slurm_view_make(struct xmpi_slurm_view *v, const struct xmpi_pool *pool, const int *cap,
                         const struct xmpi_slurm_job *job, const struct xmpi_slurm_nodes *nodes)
{
    int n = pool->nhosts;
    size_t k = (size_t)(n ? n : 1);
    memset(v, 0, sizeof *v);
    v->n = n;
    v->node = malloc(sizeof *v->node * k);
    v->jobnode = malloc(sizeof *v->jobnode * k);
    v->pes = calloc(k, sizeof *v->pes);
    v->offer = calloc(k, sizeof *v->offer);
    v->leaving = calloc(k, 1);
    if (!v->node || !v->jobnode || !v->pes || !v->offer || !v->leaving) {
        xmpi_slurm_view_free(v);
        return -1;
    }
    for (int h = 0; h < n; h++) {
        const struct xmpi_host *ph = &pool->hosts[h];
        int nd = xmpi_slurm_nodes_find(nodes, ph->name);
        const struct xmpi_slurm_node *node = nd >= 0 ? &nodes->v[nd] : NULL;
        int j = xmpi_slurm_names_find(&job->nodes, node ? node->name : ph->name);
        v->node[h] = nd;
        v->jobnode[h] = j;
        if (j >= 0) {
            v->leaving[h] = node && (node->flags & XMPIR_SLURM_NODE_LEAVING);
            int held = job->cpus && job->cpus[j] > 0 ? job->cpus[j] : node ? node->cpus : cap[h];
            v->pes[h] = v->leaving[h] ? 0 : min_int(cap[h], held);
        } else {
            v->leaving[h] = ph->procs > 0;
            if (node && (node->flags & XMPIR_SLURM_NODE_IDLE)) v->offer[h] = min_int(cap[h], node->cpus);
        }
    }
    return 0;
}

int xmpi_slurm_action(const struct xmpi_pool *pool, const struct xmpi_slurm_view *v,
                      const int *removable, int expand, int *nprocs, char *cls, size_t clslen)
{
    *nprocs = 0;
    if (clslen) cls[0] = '\0';
    int n = pool->nhosts < v->n ? pool->nhosts : v->n;
    for (int h = 0; h < n; h++) {
        if (!v->leaving[h] || removable[h] <= 0) continue;
        const char *c = pool->hosts[h].cls;
        for (int g = 0; g < n; g++)
            if (v->leaving[g] && !strcmp(pool->hosts[g].cls, c)) *nprocs += removable[g];
        snprintf(cls, clslen, "%s", c);
        return XMPIR_RMS_ACT_SHRINK;
    }
    for (int h = 0; h < n; h++) {
        int room = v->pes[h] - pool->hosts[h].procs;
        if ((room > 0 ? room : 0) + (expand ? v->offer[h] : 0) <= 0) continue;
        const char *c = pool->hosts[h].cls;
        for (int g = 0; g < n; g++) {
            if (strcmp(pool->hosts[g].cls, c)) continue;
            int r = v->pes[g] - pool->hosts[g].procs;
            *nprocs += (r > 0 ? r : 0) + (expand ? v->offer[g] : 0);
        }
        snprintf(cls, clslen, "%s", c);
        return XMPIR_RMS_ACT_SPAWN;
    }
    return XMPIR_RMS_ACT_NONE;
}

static int class_fits(const struct xmpi_pool *pool, int h, const char *cls)
{
    return !cls || !strcmp(pool->hosts[h].cls, cls);
}

int xmpi_slurm_plan_expand(const struct xmpi_pool *pool, const struct xmpi_slurm_view *v,
                           char *const cls[], int n, char *pick)
{
    int nh = pool->nhosts < v->n ? pool->nhosts : v->n;
    int *room = calloc((size_t)(nh ? nh : 1), sizeof *room);
    if (!room) return 0;
    memset(pick, 0, (size_t)nh);
    for (int h = 0; h < nh; h++) {
        int r = v->pes[h] - pool->hosts[h].procs;
        room[h] = r > 0 ? r : 0;
    }
    int nodes = 0;
    for (int k = 0; k < n; k++) {
        const char *c = cls ? cls[k] : NULL;
        int h = -1;
        for (int g = 0; g < nh && h < 0; g++)
            if (room[g] > 0 && class_fits(pool, g, c)) h = g;
        for (int g = 0; g < nh && h < 0; g++) {
            if (pick[g] || v->offer[g] <= 0 || !class_fits(pool, g, c)) continue;
            /* The whole node comes with it, every class it is listed under. */
            for (int e = 0; e < nh; e++)
                if (e == g || (v->node[g] >= 0 && v->node[e] == v->node[g])) {
                    pick[e] = 1;
                    room[e] = v->offer[e];
                }
            nodes++;
            h = g;
        }
        if (h >= 0) room[h]--;
    }
    free(room);
    return nodes;
}

static int add(struct xmpi_slurm_names *s, const char *name)
{
    void *p = realloc(s->v, sizeof *s->v * (size_t)(s->n + 1));
    if (!p) return -1;
    s->v = p;
    snprintf(s->v[s->n++], sizeof s->v[0], "%s", name);
    return 0;
}

int xmpi_slurm_plan_release(const struct xmpi_pool *pool, const struct xmpi_slurm_view *v,
                            const struct xmpi_slurm_job *job, const char *emptied,
                            struct xmpi_slurm_names *keep, struct xmpi_slurm_names *give)
{
    int nh = pool->nhosts < v->n ? pool->nhosts : v->n;
    memset(keep, 0, sizeof *keep);
    memset(give, 0, sizeof *give);
    for (int j = 0; j < job->nodes.n; j++) {
        int entries = 0, busy = 0, wanted = 0;
        for (int h = 0; h < nh; h++) {
            if (v->jobnode[h] != j) continue;
            entries++;
            busy |= pool->hosts[h].procs > 0;
            wanted |= v->leaving[h] || (emptied && emptied[h]);
        }
        /* A node outside the pool is the job's business, not the library's. */
        int back = entries > 0 && !busy && wanted;
        if (add(back ? give : keep, job->nodes.v[j])) {
            xmpi_slurm_names_free(keep);
            xmpi_slurm_names_free(give);
            return -1;
        }
    }
    if (keep->n == 0) {
        /* Never the job's last node: the job goes with it. */
        xmpi_slurm_names_free(give);
        for (int j = 0; j < job->nodes.n; j++)
            if (add(keep, job->nodes.v[j])) {
                xmpi_slurm_names_free(keep);
                return -1;
            }
    }
    return give->n;
}
