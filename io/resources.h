/* The resource pool: hosts with their class, PEs, cost and emulated speed, read from a
 * --xmpi-resources file or described by hwloc for the local host. No MPI here. */
#ifndef XMPIR_RESOURCES_H
#define XMPIR_RESOURCES_H

#include <stddef.h>
#include <stdio.h>

#include "textfile.h"

struct xmpi_host {
    char name[XMPIR_NAME_MAX];   /* host name as MPI_Comm_spawn's "host" key takes it */
    char cls[XMPIR_NAME_MAX];    /* node class */
    int pes;                    /* processing elements (cores) the job may use */
    double cost;                /* cost per PE per hour */
    double speed;               /* 0: real speed; (0, 1]: emulated fraction of one core */
    int procs;                  /* scheduler state: this job's processes placed here */
};

struct xmpi_pool {
    int nhosts;
    struct xmpi_host *hosts;    /* malloc'ed, nhosts entries, in file order */
};

/* Parses `hostname:class:PEs:cost[:speed]` lines; '#' starts a comment, blank lines are
 * skipped. A (hostname, class) pair appears once. On error returns -1 with one message
 * "FILE:LINE: field NAME: 'VALUE' ...; expected ..." in err and leaves *pool empty. */
int xmpi_pool_parse(struct xmpi_pool *pool, FILE *f, const char *fname, char *err,
                    size_t errlen);
/* Opens and parses `path` (the error names the file when it cannot be read). */
int xmpi_pool_load(struct xmpi_pool *pool, const char *path, char *err, size_t errlen);
/* The local host as one entry: hwloc's core count, class "local", cost 1, speed 0. */
int xmpi_pool_local(struct xmpi_pool *pool, char *err, size_t errlen);
void xmpi_pool_free(struct xmpi_pool *pool);
/* The local machine's PEs as hwloc counts them (cores; PUs when it sees no cores; 1 when
 * it cannot describe the machine). */
int xmpi_local_pes(void);
/* The PEs the pool gives host `host` over all its classes (0: not in the pool). */
int xmpi_pool_host_pes(const struct xmpi_pool *pool, const char *host);

/* Index of the first host of class `cls`, or -1. */
int xmpi_pool_find_class(const struct xmpi_pool *pool, const char *cls);
/* Index of the entry (host, cls); cls NULL: the first entry of that host. -1 if none. */
int xmpi_pool_find(const struct xmpi_pool *pool, const char *host, const char *cls);
/* "a, b, c": the distinct classes in file order, for error messages. */
void xmpi_pool_classes(const struct xmpi_pool *pool, char *buf, size_t len);

#endif
