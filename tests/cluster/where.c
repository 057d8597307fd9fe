/* tests/cluster: preloaded into the test jobs, appends "start|finalize|exit HOST PID NETNS
 * MONOTONIC_NS" to $CLUSTER_WHERE_LOG for every process, so that the test knows where each one
 * ran, when it left the job (called MPI_Finalize) and when it ended. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void note(const char *what)
{
    const char *path = getenv("CLUSTER_WHERE_LOG");
    if (!path || !path[0]) return;
    char host[256] = "?", ns[64] = "?", line[512];
    gethostname(host, sizeof host - 1);
    ssize_t k = readlink("/proc/self/ns/net", ns, sizeof ns - 1);
    ns[k > 0 ? k : 1] = 0;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    int n = snprintf(line, sizeof line, "%s %s %ld %s %lld\n", what, host, (long)getpid(), ns,
                     (long long)t.tv_sec * 1000000000LL + t.tv_nsec);
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
    if (fd < 0) return;
    if (write(fd, line, (size_t)n) < 0) { /* nothing to do */ }
    close(fd);
}
__attribute__((constructor)) static void at_start(void) { note("start"); }
__attribute__((destructor)) static void at_exit_(void) { note("exit"); }

/* A process leaves the job at MPI_Finalize: a removed process calls it at once, but under MPICH
 * it returns only when the job ends (docs/cluster.md), so its exit does not say when it left.
 * No <mpi.h> here: the next MPI_Finalize (libxmpi's, then MPI's) is looked up by name. */
int MPI_Finalize(void)
{
    note("finalize");
    int (*next)(void) = (int (*)(void))dlsym(RTLD_NEXT, "MPI_Finalize");
    return next ? next() : 1;
}
