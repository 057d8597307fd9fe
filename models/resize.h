/* The price of resizing a job by checkpoint and restart (issue 19, after the OmpSs-2 chapter's
 * t(a -> b) = checkpoint(a) + start(b) + restart(b)): from the bytes registered and what was
 * measured of the three parts. Pure. */
#ifndef XMPIR_RESTART_H
#define XMPIR_RESTART_H

struct xmpi_resize_measured {
    double write_bps;   /* bytes per second of the last checkpoint written; <= 0 unknown */
    double read_bps;    /* of the last restart's read; <= 0 unknown (the write's is used) */
    double start_s;     /* the last relaunch's gap, from the old job's exit to the new job's
                         * MPI_Init end; < 0 unknown */
    double init_s;      /* this job's own start-up, from its processes' start to MPI_Init's
                         * end (a lower bound of start_s); < 0 unknown */
};

struct xmpi_resize_estimate {
    double t_write, t_start, t_read, total;
    int start_measured;   /* t_start is a relaunch's (else the start-up's lower bound) */
};

/* 0 with the estimate, or -1 when it cannot be priced: no write measured yet, no start-up
 * known, or bad input (negative or non-finite bytes). */
int xmpi_resize_predict(const struct xmpi_resize_measured *m, double bytes, struct xmpi_resize_estimate *out);

#endif
