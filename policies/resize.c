/* The choice between dynamic processes and checkpoint/restart for a grow or a shrink. */
#include "resize.h"

#include <stdio.h>

static const char *what(const struct xmpi_resize_case *c)
{
    return c->grow ? "a spawn" : "the removal";
}

static const char *cannot(const struct xmpi_resize_case *c)
{
    return c->grow ? "MPI refused an earlier spawn"
                   : "only processes spawned during the run can leave an MPI job";
}

enum xmpi_resize_way xmpi_resize_choose(const struct xmpi_resize_case *c, char *why, size_t len)
{
    if (c->mode == XMPIR_RESIZE_SPAWN || (c->mode == XMPIR_RESIZE_AUTO && !c->can_restart)) {
        if (c->dynamic_ok) {
            snprintf(why, len, "by dynamic processes");
            return XMPIR_WAY_DYNAMIC;
        }
        snprintf(why, len, "%s cannot be done: %s%s", what(c), cannot(c),
                 c->mode == XMPIR_RESIZE_SPAWN ? " (--xmpi-resize=spawn)"
                 : " and the job cannot be relaunched (give --xmpi-checkpoint and run it under "
                   "xmpi-resume)");
        return XMPIR_WAY_NONE;
    }
    if (c->mode == XMPIR_RESIZE_RESTART) {
        if (c->can_restart) {
            snprintf(why, len, "by checkpoint and restart (--xmpi-resize=restart)");
            return XMPIR_WAY_RESTART;
        }
        snprintf(why, len, "%s cannot be done: --xmpi-resize=restart needs --xmpi-checkpoint",
                 what(c));
        return XMPIR_WAY_NONE;
    }
    /* auto, and the job can be relaunched */
    if (!c->dynamic_ok) {
        snprintf(why, len, "by checkpoint and restart: %s", cannot(c));
        return XMPIR_WAY_RESTART;
    }
    if (c->t_dynamic >= 0 && c->t_restart >= 0) {
        if (c->t_restart < c->t_dynamic) {
            snprintf(why, len, "by checkpoint and restart: predicted %.3g s against %.3g s by "
                     "dynamic processes", c->t_restart, c->t_dynamic);
            return XMPIR_WAY_RESTART;
        }
        snprintf(why, len, "by dynamic processes: predicted %.3g s against %.3g s by "
                 "checkpoint and restart", c->t_dynamic, c->t_restart);
        return XMPIR_WAY_DYNAMIC;
    }
    snprintf(why, len, "by dynamic processes (%s not priced)",
             c->t_restart < 0 ? "checkpoint and restart" : "dynamic processes");
    return XMPIR_WAY_DYNAMIC;
}
