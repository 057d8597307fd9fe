/* A removed process that MPI cannot let go waits without CPU (leave.h). */
#define _DEFAULT_SOURCE   /* getifaddrs, IFF_* */
#include "leave.h"

#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "watchdog.h"

/* The signal that stops the thread polling in MPI_Finalize: a real-time one, which neither
 * the program nor MPI's launchers send. */
#define SLEEP_SIGNAL (SIGRTMIN + 4)

void xmpi_leave_listen(struct xmpi_leave *lv)
{
    memset(&lv->to, 0, sizeof lv->to);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return;
    fcntl(fd, F_SETFD, FD_CLOEXEC);
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_ANY);
    socklen_t len = sizeof sa;
    if (bind(fd, (struct sockaddr *)&sa, sizeof sa) || listen(fd, SOMAXCONN) ||
        getsockname(fd, (struct sockaddr *)&sa, &len)) {
        close(fd);
        return;
    }
    /* Every address of an interface that is up, the loopback last: a removed process on
     * another host must not reach a port of its own host first. */
    struct ifaddrs *ifs = NULL;
    uint32_t lo = 0;
    if (getifaddrs(&ifs) == 0) {
        for (struct ifaddrs *i = ifs; i && lv->to.naddr < XMPIR_LEAVE_ADDRS - 1; i = i->ifa_next) {
            if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP))
                continue;
            uint32_t a = ((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr.s_addr;
            if (i->ifa_flags & IFF_LOOPBACK) lo = a;
            else lv->to.addr[lv->to.naddr++] = a;
        }
        freeifaddrs(ifs);
    }
    if (lo) lv->to.addr[lv->to.naddr++] = lo;
    if (!lv->to.naddr) {
        close(fd);
        return;
    }
    lv->fd = fd;
    lv->listening = 1;
    lv->to.port = sa.sin_port;
}

void xmpi_leave_close(struct xmpi_leave *lv)
{
    if (!lv->listening) return;
    close(lv->fd);
    lv->listening = 0;
}

/* A connection to rank 0's listening socket, or -1: each address in turn, 2 s each. */
static int reach_rank0(const struct xmpi_leave_addr *to)
{
    for (int i = 0; i < to->naddr; i++) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd < 0) return -1;
        fcntl(fd, F_SETFD, FD_CLOEXEC);
        int fl = fcntl(fd, F_GETFL);
        fcntl(fd, F_SETFL, fl | O_NONBLOCK);
        struct sockaddr_in sa;
        memset(&sa, 0, sizeof sa);
        sa.sin_family = AF_INET;
        sa.sin_port = to->port;
        sa.sin_addr.s_addr = to->addr[i];
        int rc = connect(fd, (struct sockaddr *)&sa, sizeof sa), err = 0;
        if (rc < 0 && errno == EINPROGRESS) {
            struct pollfd p = {fd, POLLOUT, 0};
            socklen_t el = sizeof err;
            rc = poll(&p, 1, 2000) == 1 && !getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) &&
                         !err ? 0 : -1;
        }
        if (rc == 0) {
            fcntl(fd, F_SETFL, fl);
            return fd;
        }
        close(fd);
    }
    return -1;
}

/* This process's resident memory in MiB, or -1. */
static long rss_mib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld kB", &kb) == 1) break;
    if (f) fclose(f);
    return kb < 0 ? -1 : (kb + 1023) / 1024;
}

/* Between the thread in MPI_Finalize and the handler that stops it. */
static volatile sig_atomic_t finalizing;
static int wake[2] = {-1, -1};

/* The thread polling in MPI_Finalize, stopped: it blocks in a read until the job ends. Only
 * while MPI_Finalize has not returned (a signal that comes after lets it go on). */
static void on_sleep(int sig)
{
    (void)sig;
    int saved = errno;
    char c;
    while (finalizing && read(wake[0], &c, 1) < 0 && errno == EINTR) {
    }
    errno = saved;
}

struct watch {
    const struct xmpi_leave_addr *to;
    pthread_t finalizer;
    int done[2];              /* written when MPI_Finalize returned */
};

/* The library's thread: after the grace, connects to rank 0, says once what the process
 * holds, stops the finalizing thread, sleeps until rank 0 closes (or is gone), wakes it. */
static void *watch_main(void *arg)
{
    struct watch *w = arg;
    struct pollfd p = {w->done[0], POLLIN, 0};
    if (poll(&p, 1, (int)(XMPIR_LEAVE_GRACE * 1000)) != 0) return NULL;
    int fd = reach_rank0(w->to);
    if (fd < 0) {
        fprintf(stderr, "xmpi: removed process %ld: MPI_Finalize cannot return before the job "
                "ends (MPI keeps a connection to the job open), and rank 0 cannot be reached "
                "to wake it then: it polls until the job ends, using CPU\n", (long)getpid());
        return NULL;
    }
    /* All that may take a lock (stdio, malloc) is done before the other thread stops. */
    fprintf(stderr, "xmpi: removed process %ld: MPI_Finalize cannot return before the job "
            "ends (MPI keeps a connection to the job open: a communicator the program made "
            "and still holds, such as a duplicate of XMPI_COMM_WORLD); it sleeps until then "
            "without CPU, holding its memory (VmRSS %ld MiB) and its place among the job's "
            "processes (the launcher waits for it); the scheduler no longer counts its PE\n",
            (long)getpid(), rss_mib());
    fflush(stderr);
    pthread_kill(w->finalizer, SLEEP_SIGNAL);
    struct pollfd q[2] = {{fd, POLLIN, 0}, {w->done[0], POLLIN, 0}};
    while (poll(q, 2, -1) < 0 && errno == EINTR) {
    }
    char c = 1;
    ssize_t k = write(wake[1], &c, 1);
    (void)k;
    close(fd);
    return NULL;
}

int xmpi_leave_finalize(const struct xmpi_leave *lv, int (*finalize)(void))
{
    struct watch w = {&lv->to, pthread_self(), {-1, -1}};
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sleep;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    pthread_t th;
    if (!lv->to.port || pipe(wake) || pipe(w.done)) {
        if (wake[0] >= 0) close(wake[0]), close(wake[1]);
        wake[0] = wake[1] = -1;
        return finalize();
    }
    sigaction(SLEEP_SIGNAL, &sa, &old);
    finalizing = 1;
    int started = xmpi_thread_start(&th, watch_main, &w) == 0;
    int rc = finalize();
    finalizing = 0;
    char c = 1;
    ssize_t k = write(w.done[1], &c, 1);
    k = write(wake[1], &c, 1);
    (void)k;
    if (started) pthread_join(th, NULL);
    sigaction(SLEEP_SIGNAL, &old, NULL);
    close(w.done[0]), close(w.done[1]), close(wake[0]), close(wake[1]);
    wake[0] = wake[1] = -1;
    return rc;
}
