/* Processor configurations as the prediction model counts them: the node classes of a pool
 * (their model indices) and the processes per class before and after an action. */
#ifndef XMPIR_CONFIG_H
#define XMPIR_CONFIG_H

#include "../io/resources.h"
#include "predict.h"

/* The distinct node classes of the pool in resource-file order are the model's class
 * indices: host_class[h] receives host h's index, names/speeds (max entries) each class's
 * name (pointing into the pool) and declared speed. Returns the number of classes, or -1
 * when the pool has more than max classes. */
int xmpi_config_classes(const struct xmpi_pool *pool, int *host_class, char **names,
                        double *speeds, int max);

/* A configuration change: processes per class now and after, and whether processes of
 * different spawns talk to each other now and after (they do over another link). */
struct xmpi_config_change {
    int current[XMPIR_MODEL_CLASSES_MAX];
    int candidate[XMPIR_MODEL_CLASSES_MAX];
    int mixed_now, mixed_next;
};

/* From each of the p ranks' class index and spawn group (mpirun's processes are one group),
 * the classes of nnew new processes and the nleave ranks that leave. 0, or -1 for a class
 * index outside [0, XMPIR_MODEL_CLASSES_MAX) or a leaving rank outside [0, p). */
int xmpi_config_change(int p, const int *rank_class, const int *rank_group, const int *new_class,
                       int nnew, const int *leaving, int nleave, struct xmpi_config_change *out);

#endif
