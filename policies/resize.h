/* How a policy's grow or shrink is carried out (--xmpi-resize): by dynamic processes (spawn
 * and merge, or removal) or by checkpoint and restart (the job checkpoints, ends with
 * XMPIR_RESIZE_EXIT and is relaunched at the new size). Pure. */
#ifndef XMPIR_POLICY_RESIZE_H
#define XMPIR_POLICY_RESIZE_H

#include <stddef.h>

/* --xmpi-resize's values, in the option's order. */
enum { XMPIR_RESIZE_AUTO = 0, XMPIR_RESIZE_SPAWN = 1, XMPIR_RESIZE_RESTART = 2 };

enum xmpi_resize_way { XMPIR_WAY_DYNAMIC = 0, XMPIR_WAY_RESTART, XMPIR_WAY_NONE };

struct xmpi_resize_case {
    int mode;            /* XMPIR_RESIZE_* */
    int can_restart;     /* a checkpoint directory, and a relauncher (or mode restart) */
    int grow;            /* 1: spawn, 0: removal */
    int dynamic_ok;      /* dynamic processes can do it: MPI did not refuse a spawn; for a
                          * removal, enough spawned processes may leave */
    double t_dynamic;    /* the model's spawn or removal plus redistribution, s; < 0 unknown */
    double t_restart;    /* checkpoint + start + restart, s; < 0 unknown */
};

/* The way, with a sentence for the trace and the verbose line in why. NONE: neither way can
 * do it (the job keeps its processes). */
enum xmpi_resize_way xmpi_resize_choose(const struct xmpi_resize_case *c, char *why, size_t len);

#endif
