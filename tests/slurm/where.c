/* tests/slurm: preloaded into the test job, appends "start|exit HOST PID NETNS MONOTONIC_NS PROG"
 * to $CLUSTER_WHERE_LOG for every process, as tests/cluster/where.c does, with the program's name:
 * under --xmpi-rms=slurm rank 0 also runs Slurm's commands, which inherit the preload, and the
 * test counts only the job's own processes. */
#define _GNU_SOURCE
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
    char host[256] = "?", ns[64] = "?", prog[64] = "?", line[512];
    gethostname(host, sizeof host - 1);
    ssize_t k = readlink("/proc/self/ns/net", ns, sizeof ns - 1);
    ns[k > 0 ? k : 1] = 0;
    int fd = open("/proc/self/comm", O_RDONLY);
    if (fd >= 0) {
        k = read(fd, prog, sizeof prog - 1);
        prog[k > 0 ? k : 1] = 0;
        prog[strcspn(prog, "\n ")] = 0;
        close(fd);
    }
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    int n = snprintf(line, sizeof line, "%s %s %ld %s %lld %s\n", what, host, (long)getpid(), ns,
                     (long long)t.tv_sec * 1000000000LL + t.tv_nsec, prog[0] ? prog : "?");
    fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
    if (fd < 0) return;
    if (write(fd, line, (size_t)n) < 0) { /* nothing to do */ }
    close(fd);
}
__attribute__((constructor)) static void at_start(void) { note("start"); }
__attribute__((destructor)) static void at_exit_(void) { note("exit"); }
