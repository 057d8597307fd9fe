/* Bounded waits (watchdog.h). */
#include "watchdog.h"

#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static struct timespec at(double t)
{
    struct timespec ts;
    ts.tv_sec = (time_t)t;
    ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
    return ts;
}

static void give_up(const struct xmpi_watchdog *w)
{
    char line[512];
#ifdef MPICH
    /* Hydra's mpiexec ends the whole job only when a process dies by a signal; a process that
     * exits takes only its own proxy's processes, and one stopped in another spawn's group
     * would keep the job for ever. */
    char how[] = "kills itself (SIGKILL)";
#else
    char how[32];
    snprintf(how, sizeof how, "exits (status %d)", XMPIR_EXIT_WAIT_TIMEOUT);
#endif
    int n = snprintf(line, sizeof line,
                     "xmpi: rank %d (pid %ld): %s did not finish within --xmpi-wait-timeout=%d s: "
                     "a process it waits for is stopped, hung or lost; this process %s so that "
                     "the job ends instead of hanging\n",
                     w->rank, (long)getpid(), w->what, w->seconds, how);
    if (n > 0) {
        ssize_t k = write(STDERR_FILENO, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
        (void)k;
    }
    /* Not exit(): the atexit handlers and MPI's own would wait on the very processes that
     * hang. The launcher sees a process end without MPI_Finalize and ends the job. */
#ifdef MPICH
    kill(getpid(), SIGKILL);
#endif
    _exit(XMPIR_EXIT_WAIT_TIMEOUT);
}

static void *watch(void *arg)
{
    struct xmpi_watchdog *w = arg;
    pthread_mutex_lock(&w->mu);
    while (!w->quit) {
        if (!w->armed) {
            pthread_cond_wait(&w->cv, &w->mu);
            continue;
        }
        if (now() >= w->deadline) give_up(w);
        struct timespec ts = at(w->deadline);
        pthread_cond_timedwait(&w->cv, &w->mu, &ts);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

void xmpi_watchdog_init(struct xmpi_watchdog *w)
{
    memset(w, 0, sizeof *w);
    pthread_mutex_init(&w->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&w->cv, &ca);
    pthread_condattr_destroy(&ca);
}

int xmpi_thread_start(pthread_t *t, void *(*fn)(void *), void *arg)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(t, NULL, fn, arg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

void xmpi_watchdog_arm(struct xmpi_watchdog *w, int seconds, int rank, const char *what)
{
    if (seconds <= 0) return;
    pthread_mutex_lock(&w->mu);
    if (!w->started && !w->quit) w->started = xmpi_thread_start(&w->thread, watch, w) == 0;
    w->armed = w->started;
    w->seconds = seconds;
    w->rank = rank;
    w->deadline = now() + seconds;
    snprintf(w->what, sizeof w->what, "%s", what);
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

void xmpi_watchdog_disarm(struct xmpi_watchdog *w)
{
    pthread_mutex_lock(&w->mu);
    w->armed = 0;
    pthread_mutex_unlock(&w->mu);
}

void xmpi_watchdog_stop(struct xmpi_watchdog *w)
{
    pthread_mutex_lock(&w->mu);
    w->quit = 1;
    w->armed = 0;
    int started = w->started;
    w->started = 0;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    if (started) pthread_join(w->thread, NULL);
}

void xmpi_fault(const char *point)
{
    const char *f = getenv("LIBXMPI_FAULT");
    size_t k = strlen(point);
    if (!f || strncmp(f, point, k) != 0 || f[k] != '-') return;
    if (!strcmp(f + k + 1, "kill")) raise(SIGKILL);
    if (!strcmp(f + k + 1, "stop")) raise(SIGSTOP);
}

int xmpi_fault_is(const char *fault)
{
    const char *f = getenv("LIBXMPI_FAULT");
    return f && !strcmp(f, fault);
}
