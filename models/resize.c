/* The price of a resize by checkpoint and restart. */
#include "resize.h"

#include <math.h>
#include <string.h>

int xmpi_resize_predict(const struct xmpi_resize_measured *m, double bytes, struct xmpi_resize_estimate *out)
{
    memset(out, 0, sizeof *out);
    if (!m || !(bytes >= 0) || !isfinite(bytes)) return -1;
    if (!(m->write_bps > 0) || !isfinite(m->write_bps)) return -1;
    double start = m->start_s >= 0 && isfinite(m->start_s) ? m->start_s : -1;
    out->start_measured = start >= 0;
    if (start < 0) start = m->init_s >= 0 && isfinite(m->init_s) ? m->init_s : -1;
    if (start < 0) return -1;
    double rbps = m->read_bps > 0 && isfinite(m->read_bps) ? m->read_bps : m->write_bps;
    out->t_write = bytes / m->write_bps;
    out->t_read = bytes / rbps;
    out->t_start = start;
    out->total = out->t_write + out->t_start + out->t_read;
    return 0;
}
