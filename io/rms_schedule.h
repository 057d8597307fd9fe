/* The schedule resource manager (--xmpi-rms=schedule:FILE): predefined actions (the SMP
 * configuration file of FLEX-MPI 5.4.1) and an availability timeline of offers and reclaims. No MPI. */
#ifndef XMPIR_RMS_SCHEDULE_H
#define XMPIR_RMS_SCHEDULE_H

#include <stddef.h>
#include <stdio.h>

#include "resources.h"

struct xmpi_rms_event {
    long iteration;             /* due once this many iterations are done */
    int action;                 /* XMPIR_RMS_ACT_SPAWN/SHRINK (rms_state.h) or XMPIR_RMS_SCHED_* */
    int count;                  /* >= 1 */
    char cls[XMPIR_NAME_MAX];
    long line;                  /* in the file, for messages */
};

/* The availability lines' actions, beside rms_state.h's XMPIR_RMS_ACT_SPAWN and _SHRINK. */
enum { XMPIR_RMS_SCHED_OFFER = 3, XMPIR_RMS_SCHED_RECLAIM = 4 };

/* Per class named by an offer or reclaim line: what the timeline has made available. */
struct xmpi_rms_avail {
    char cls[XMPIR_NAME_MAX];
    int free;                   /* offered and not taken: offered again at every poll */
    int held;                   /* taken by the job's spawns and not given back */
    int reclaim;                /* of held, asked back (<= held) */
};

struct xmpi_rms_schedule {
    int n;
    struct xmpi_rms_event *ev;  /* in file order, which is by iteration (the parser checks) */
    int next;                   /* first event not yet handed out */
    int nav;
    struct xmpi_rms_avail *av;  /* one per class of an offer or reclaim line, in file order */
};

/* '#' comments and blank lines allowed; errors name FILE:LINE and the field. */
int xmpi_rms_schedule_parse(struct xmpi_rms_schedule *s, FILE *f, const char *fname,
                            char *err, size_t errlen);
int xmpi_rms_schedule_load(struct xmpi_rms_schedule *s, const char *path, char *err,
                           size_t errlen);
void xmpi_rms_schedule_free(struct xmpi_rms_schedule *s);
/* The events no run of the job could honour, refused before any work with "FILE:LINE: field
 * ...: '...' is not accepted; expected ...": a class not in the pool; with oversubscribe
 * unset, a spawn or offer of more PEs than the class has beside the initial processes
 * (pool->hosts[].procs), or a remove or reclaim of more processes than the job could ever
 * hold there beyond its initial ones (which never leave); with from_lines set (the job spawns
 * only what the schedule asks: SMP, HPMP), a remove or reclaim of more than the spawn and
 * offer lines before it add up to. 0, or -1 with the message. */
/* xmpi_rms_schedule_check's from_lines: 0 any job, 1 a job that spawns only what the lines
 * ask (SMP, HPMP), 2 a job that resizes by checkpoint and restart (any process may leave). */
enum { XMPIR_SCHED_CHECK_ANY = 0, XMPIR_SCHED_CHECK_LINES = 1, XMPIR_SCHED_CHECK_RELAUNCH = 2 };
int xmpi_rms_schedule_check(const struct xmpi_rms_schedule *s, const char *fname,
                            const struct xmpi_pool *pool, int oversubscribe, int from_lines,
                            char *err, size_t errlen);
/* The next event due at `iteration` (iteration >= its iteration), or NULL; advances. */
const struct xmpi_rms_event *xmpi_rms_schedule_due(struct xmpi_rms_schedule *s, long iteration);
/* What the schedule asks of the job at `iteration`: the due offer/reclaim lines are applied in
 * file order up to the first due spawn/remove line, which is handed out once (as before);
 * without one, a pending reclaim (shrink), else the free PEs of a class (spawn), first class
 * in file order. Returns XMPIR_RMS_ACT_NONE, _SPAWN or _SHRINK with *count and cls filled. */
int xmpi_rms_schedule_poll(struct xmpi_rms_schedule *s, long iteration, int *count, char *cls,
                           size_t clslen);
/* What the schedule asked of the job by `iteration` and it never carried out: the lines due and
 * not handed out, and the reclaimed processes not given back, described in `out` ("the removal
 * of 1 local due at iteration 15 (line 3), ..."). Returns how many. */
int xmpi_rms_schedule_unserved(const struct xmpi_rms_schedule *s, long iteration, char *out,
                               size_t len);
/* The job spawned (took) or removed (gave) n processes of cls: free PEs are taken first, a
 * removal answers a pending reclaim first; nothing goes below zero. Given PEs go back to the
 * resource manager, not to the free ones. Classes without availability lines are ignored. */
/* A restart at `iteration` (--xmpi-restart): the events due by then were carried out by the
 * job that wrote the checkpoint; they are applied again (availability lines, and the spawn
 * and remove lines as taken and given PEs) and not handed out. */
void xmpi_rms_schedule_replay(struct xmpi_rms_schedule *s, long iteration);
void xmpi_rms_schedule_took(struct xmpi_rms_schedule *s, const char *cls, int n);
void xmpi_rms_schedule_gave(struct xmpi_rms_schedule *s, const char *cls, int n);

#endif
