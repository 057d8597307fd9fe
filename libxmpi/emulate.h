/* Emulated heterogeneous processors: this process confined to a fraction of one core
 * by a cgroup CPU quota (v2 cpu.max or v1 cpu.cfs_quota_us), and released on request. */
#ifndef XMPIR_EMULATE_H
#define XMPIR_EMULATE_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

/* The one group of this process. `owner` lets a forked child, which inherits this state
 * but not the group's ownership, drop the state instead of tearing down its parent's. */
struct xmpi_emulation {
    int active;
    int shared;                 /* the group is shared (xmpi_emulate_share) */
    int v2;
    pid_t owner;
    char group[PATH_MAX];
    char orig[PATH_MAX];
    long base_period;           /* microseconds; see xmpi_emulate_set_period */
    double speed;               /* the speed asked for; 0: none */
    /* Time dilation (xmpi_emulate_dilate): no cgroup, the process sleeps instead. */
    int dilate;
    double factor;              /* 1 / speed - 1: sleep per second computed */
    double last;                /* the clock when the process last left an MPI call */
    double debt;                /* seconds of sleep owed (negative: overslept) */
    int cpu_clock;              /* 1 (the default): the computation is the thread's CPU time,
                                 * and a stretch already slowed by a shared core owes less;
                                 * 0: the wall time (tests set it) */
    double cpu_last;            /* the thread's CPU clock at `last` */
};

void xmpi_emulate_init(struct xmpi_emulation *em);
/* Limits the calling process to `speed` (0 < speed <= 1) of one core, in a cgroup named
 * after `tag` (unique per process, e.g. "job123-rank4"). Returns 0 when limited, 1 when
 * no writable cgroup CPU controller exists (msg says why; the caller runs unlimited), -1
 * on a bad argument or a failure that left nothing behind (msg says what). The owner of
 * `em` releases it (the runtime does so in MPI_Finalize and at exit). */
int xmpi_emulate_limit(struct xmpi_emulation *em, double speed, const char *tag, char *msg,
                       size_t msglen);
/* As xmpi_emulate_limit, but the group named after `tag` is shared by every process that
 * joins it with the same speed (the processes of one class of one job on this host): its
 * quota is speed x members, so they are throttled in the same windows. Joining and leaving
 * (xmpi_emulate_release) adjust the quota under a lock; the last to leave removes the group.
 * A process already limited leaves its group first. */
int xmpi_emulate_share(struct xmpi_emulation *em, double speed, const char *tag, char *msg,
                       size_t msglen);
/* Emulates `speed` (0 < speed < 1) by time dilation instead of a quota: the time the process
 * computes between two MPI calls is stretched to what a processor `speed` times as fast
 * would take, by sleeping (1 / speed - 1) times as long before the next call goes out.
 * Communication runs at the network's speed, the core is free while the process sleeps,
 * and no cgroup (nor root) is needed. `now` is the caller's clock (MPI_Wtime). */
void xmpi_emulate_dilate(struct xmpi_emulation *em, double speed, double now);
/* At the entry of an MPI call (or the end of an iteration): the stretch since the process
 * last left an MPI call should have taken cpu / speed seconds on the emulated processor, cpu
 * being the thread's CPU time over it (its wall time when cpu_clock is 0); what it has not
 * yet taken is added to the sleep owed. A stretch that the machine slowed by more than the
 * emulated speed (a core shared with other processes on a small host) owes nothing: the
 * emulated processor is slow, not slower still. The sleep happens when the debt reaches
 * 200 us (shorter sleeps overshoot; the overshoot is paid back). Returns the clock after. */
double xmpi_emulate_settle(struct xmpi_emulation *em, double now);
/* This thread's CPU seconds. */
double xmpi_emulate_cpu(void);
/* At the exit of an MPI call: computation starts again at `now`. */
static inline void xmpi_emulate_resume(struct xmpi_emulation *em, double now)
{
    em->last = now;
    if (em->dilate && em->cpu_clock) em->cpu_last = xmpi_emulate_cpu();
}
/* The quota period for speeds that fit it (default 10000 us; speeds whose quota would be
 * under the kernel's 1 ms minimum get a longer one, up to 100000 us). 0, or -1 when `us` is
 * outside 1000..100000 (the period stays). Applies to later xmpi_emulate_limit calls. */
int xmpi_emulate_set_period(struct xmpi_emulation *em, long us);
/* The speed this process runs at under a quota or dilation (0 < speed < 1), or 0. */
double xmpi_emulate_speed(const struct xmpi_emulation *em);
/* Moves the process back to its original cgroup and removes the one it created. Safe to
 * call when nothing was limited, and more than once. */
void xmpi_emulate_release(struct xmpi_emulation *em);
/* Removes empty cgroups left by processes that died before releasing (best effort);
 * returns how many were removed. */
int xmpi_emulate_cleanup(void);

#endif
