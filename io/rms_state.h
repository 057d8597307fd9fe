/* The embedded resource manager's live state file (--xmpi-rms=file:PATH): per host and
 * class, PEs offered to the job, held by it, and asked back. Updated atomically under a
 * lock (PATH.lock) by write-and-rename, by bin/xmpi-rms and by the library. No MPI here. */
#ifndef XMPIR_RMS_STATE_H
#define XMPIR_RMS_STATE_H

#include <stddef.h>
#include <stdio.h>

#include "resources.h"

struct xmpi_rms_entry {
    char host[XMPIR_NAME_MAX];
    char cls[XMPIR_NAME_MAX];
    int pes;         /* capacity */
    int free;        /* offered to the job, not yet taken */
    int allocated;   /* held by the job */
    int reclaim;     /* of the allocated ones, to be given back at the next interval */
    int initial;     /* of the allocated ones, held by the job's initial processes, which
                      * never leave (a reclaim cannot ask them back); 0 in a v1 file */
};

struct xmpi_rms_state {
    int n;
    struct xmpi_rms_entry *e;    /* malloc'ed */
};

/* Invariants of every entry: 0 <= free, 0 <= initial <= allocated,
 * 0 <= reclaim <= allocated - initial, free + allocated <= pes. */

int xmpi_rms_state_parse(struct xmpi_rms_state *st, FILE *f, const char *fname, char *err,
                         size_t errlen);
int xmpi_rms_state_read(const char *path, struct xmpi_rms_state *st, char *err, size_t errlen);
/* Writes PATH.tmp.PID, fsyncs and renames it over PATH (the caller holds the lock). */
int xmpi_rms_state_write(const char *path, const struct xmpi_rms_state *st, char *err,
                         size_t errlen);
void xmpi_rms_state_print(FILE *out, const struct xmpi_rms_state *st);
void xmpi_rms_state_free(struct xmpi_rms_state *st);
/* One entry per pool host: pes from the pool, nothing offered or allocated. */
int xmpi_rms_state_from_pool(struct xmpi_rms_state *st, const struct xmpi_pool *pool);
int xmpi_rms_state_find(const struct xmpi_rms_state *st, const char *host, const char *cls);

/* How long to wait for PATH.lock when another process holds it: seconds < 0 forever, 0 not
 * at all, else up to that long; `waiting` (may be NULL) is called once when the wait has
 * lasted half a second (half the limit when shorter: writers hold it for milliseconds),
 * with the lock file, the holder's pid as it wrote it there (0 when unknown) and the limit. */
struct xmpi_rms_wait {
    double seconds;
    void (*waiting)(void *arg, const char *lock, long holder, double seconds);
    void *arg;
};
/* Takes the exclusive lock PATH.lock (created if missing) and writes the caller's pid into
 * it: the file descriptor to pass to xmpi_rms_unlock, or -1 with a message (naming the
 * holder's pid when known) when it cannot be had within w's limit. w NULL: wait forever. */
int xmpi_rms_lock(const char *path, const struct xmpi_rms_wait *w, char *err, size_t errlen);
void xmpi_rms_unlock(int fd);

/* Read-modify-write under the exclusive lock (waiting for it as w says; NULL: forever): reads PATH (a missing file is an empty
 * state when `create` is set, else an error), calls fn, writes when fn returns 0. fn
 * returns < 0 to abort without writing (it fills err). Returns 0 or -1. */
int xmpi_rms_update(const char *path, int create,
                    int (*fn)(struct xmpi_rms_state *st, void *arg, char *err, size_t errlen),
                    void *arg, char *err, size_t errlen);
int xmpi_rms_update_wait(const char *path, int create, const struct xmpi_rms_wait *w,
                         int (*fn)(struct xmpi_rms_state *st, void *arg, char *err,
                                   size_t errlen),
                         void *arg, char *err, size_t errlen);

/* Operations on a state (pure). Each returns 0, or -1 with a message and st unchanged. */
/* Offers n more PEs of class cls, spread over its hosts (most spare capacity first). */
int xmpi_rms_offer(struct xmpi_rms_state *st, const char *cls, int n, char *err, size_t errlen);
/* Asks n PEs of class cls back: offered-but-untaken ones first, then marks allocated ones
 * that are not the initial processes'. Refused when fewer than n can be asked back. */
int xmpi_rms_reclaim(struct xmpi_rms_state *st, const char *cls, int n, char *err,
                     size_t errlen);
/* The job took n offered PEs on (host, cls) (it spawned there); allocated += n. Taking
 * more than is free is allowed only with `force` (oversubscription is the job's choice). */
int xmpi_rms_take(struct xmpi_rms_state *st, const char *host, const char *cls, int n,
                  int force, char *err, size_t errlen);
/* The job gave n PEs on (host, cls) back: allocated -= n, reclaim lowered by as much (and
 * initial and reclaim kept within the invariants). */
int xmpi_rms_give(struct xmpi_rms_state *st, const char *host, const char *cls, int n,
                  char *err, size_t errlen);

/* What the RMS asks of the job now: reclaims first (shrink), then offers (spawn); one
 * class at a time, the first in file order. */
enum { XMPIR_RMS_ACT_NONE = 0, XMPIR_RMS_ACT_SPAWN, XMPIR_RMS_ACT_SHRINK };
int xmpi_rms_state_action(const struct xmpi_rms_state *st, int *nprocs, char *cls,
                          size_t clslen);

#endif
