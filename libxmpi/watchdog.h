/* Bounded waits: a reconfiguration (spawn, join, removal, data movement) waits for other
 * processes, and one that is stopped, hung or lost would hold the job for ever. A thread of
 * its own, armed around each such wait, ends this process after --xmpi-wait-timeout seconds
 * with a message saying what it waited for; the launcher then ends the job (a process that
 * exits without MPI_Finalize), so the job ends in bounded time instead of hanging. The
 * thread makes no MPI call and sleeps while nothing is armed. */
#ifndef XMPIR_WATCHDOG_H
#define XMPIR_WATCHDOG_H

#include <pthread.h>

/* Exit status of a process that gave up a wait. */
#define XMPIR_EXIT_WAIT_TIMEOUT 4

struct xmpi_watchdog {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t thread;
    int started;      /* the thread runs */
    int armed;        /* a wait is being watched */
    int quit;
    double deadline;  /* CLOCK_MONOTONIC seconds */
    int seconds;      /* the limit of the wait being watched */
    int rank;         /* who this process is, for the message */
    char what[256];   /* what it waits for */
};

void xmpi_watchdog_init(struct xmpi_watchdog *w);
/* Watches the wait `what` for `seconds` (0: not watched). `rank` names this process. */
void xmpi_watchdog_arm(struct xmpi_watchdog *w, int seconds, int rank, const char *what);
void xmpi_watchdog_disarm(struct xmpi_watchdog *w);
/* Stops the thread (inside MPI_Finalize). */
void xmpi_watchdog_stop(struct xmpi_watchdog *w);
/* Starts one of the library's own threads, with every signal blocked in it: signals sent to
 * the process stay with the program's threads. 0 when it runs. */
int xmpi_thread_start(pthread_t *t, void *(*fn)(void *), void *arg);


/* Fault injection for the tests (docs/failures.md, docs/checkpoint.md): with
 * LIBXMPI_FAULT=POINT-kill or POINT-stop in the environment, the process that reaches POINT
 * ("join": a new process inside its join; "move": a spawned process entering its first data
 * movement; "checkpoint": every process in the job's second or later checkpoint, after the
 * data and before publication; "after-checkpoint": the last rank just after a checkpoint is
 * published, in a job that did not restart) kills or stops itself there. Without the variable
 * this does nothing. */
void xmpi_fault(const char *point);
/* 1 when LIBXMPI_FAULT is exactly `fault`: a test hook that is not a kill or a stop
 * ("spawn-refuse": rank 0's MPI_Comm_spawn fails as on an MPI that cannot spawn). */
int xmpi_fault_is(const char *fault);
#endif
