/* Contract tests: the helpers every tests/contract program shares.
 *
 * The contract programs are written from include/xmpi.h (and the docs it points to) alone,
 * never from the library's sources. Each check prints one TAP line ("ok - ..." or
 * "not ok - ...", counted by tests/run.sh) and is preceded by the promise it tests, quoted
 * verbatim in one of these machine-readable forms, which tests/sh/promises.sh reads:
 *
 *     PROMISE("a sentence of a comment of include/xmpi.h");
 *     DOC_PROMISE("docs/FILE.md", "a sentence of that page");
 *
 *     QUOTED_PROMISE("...")     the same quote as a value, for tables of cases that pass it to
 *                               contract_promise() when their check runs;
 *     # promise: "..."          (tests/sh/contract.sh) a header sentence its next check tests.
 *
 * The argument is one C string literal or several adjacent ones (C concatenates them); only
 * \" and \\ escapes are used. The quoted text, whitespace-normalised, must occur in the file it
 * names; a header sentence counts as tested when some PROMISE contains it whole. PROMISE sets
 * the promise the next checks report: a failing check prints it after its "not ok" line.
 *
 * Checks are collective: check_all(comm, cond, ...) takes the logical AND of cond over comm and
 * rank 0 of comm prints the line, so a line's count does not depend on the number of
 * processes. check_self(cond, ...) prints from the calling process (for the one process that
 * is alone at that point: a removed one, or a check made before MPI_Init).
 */
#ifndef CONTRACT_H
#define CONTRACT_H

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xmpi.h"

#define PROMISE(text) contract_promise(text)
#define DOC_PROMISE(file, text) contract_promise(text)
#define QUOTED_PROMISE(text) text

static const char *contract_name = "contract";   /* the program, for the TAP lines */
static const char *contract_tag = "";           /* the run: "np2", "np1 restart", ... */
static const char *contract_current = "";       /* the promise the next checks test */
static int contract_checks, contract_failed;

static inline void contract_promise(const char *text) { contract_current = text; }

static inline void contract_start(const char *name, const char *tag)
{
    contract_name = name;
    contract_tag = tag;
}

static inline void contract_line(int ok, const char *fmt, va_list ap)
{
    char what[512];
    vsnprintf(what, sizeof what, fmt, ap);
    printf("%sok - %s %s: %s\n", ok ? "" : "not ", contract_name, contract_tag, what);
    if (!ok) printf("#   header: \"%s\"\n", contract_current);
    fflush(stdout);
    contract_checks++;
    if (!ok) contract_failed++;
}

/* check_all(comm, cond, fmt, ...): cond holds on every process of comm (collective). */
static inline int check_all(MPI_Comm comm, int cond, const char *fmt, ...)
{
    int all = 0, rank = 0;
    cond = cond != 0;
    PMPI_Allreduce(&cond, &all, 1, MPI_INT, MPI_LAND, comm);
    PMPI_Comm_rank(comm, &rank);
    if (rank == 0) {
        va_list ap;
        va_start(ap, fmt);
        contract_line(all, fmt, ap);
        va_end(ap);
    }
    return all;
}

/* check_self(cond, fmt, ...): cond holds here; printed by this process. */
static inline int check_self(int cond, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    contract_line(cond != 0, fmt, ap);
    va_end(ap);
    return cond != 0;
}

/* Every process of comm got `want` (the same code everywhere); the codes seen are reported. */
static inline int check_code(MPI_Comm comm, int rc, int want, const char *call)
{
    int v[2] = {rc, -rc}, r[2];
    PMPI_Allreduce(v, r, 2, MPI_INT, MPI_MIN, comm);
    int lo = r[0], hi = -r[1];
    if (lo == want && hi == want) return check_all(comm, 1, "%s returns %d on every process", call, want);
    return check_all(comm, 0, "%s returns %d on every process (got %d..%d: %s)", call, want, lo, hi,
                     XMPI_Error_string(lo == want ? hi : lo));
}

/* A code is one of the header's return codes (XMPI_ERR_LAST is never returned). */
static inline int code_valid(int rc) { return rc >= XMPI_SUCCESS && rc < XMPI_ERR_LAST; }

/* ---- What a process prints during a call ---------------------------------------------------
 * capture_begin() sends this process's stdout and stderr to a temporary file (in $TMPDIR, else
 * /tmp: a process that dies in between leaves it there); capture_end()
 * restores them and returns the number of non-empty lines written meanwhile, copying them to
 * stderr (prefixed "# ") for the log. */
static int capture_fd = -1, capture_out = -1, capture_err = -1;
static char capture_path[512];

static inline void capture_begin(void)
{
    fflush(stdout);
    fflush(stderr);
    const char *dir = getenv("TMPDIR");
    snprintf(capture_path, sizeof capture_path, "%s/xmpi-contract-XXXXXX", dir && *dir ? dir : "/tmp");
    capture_fd = mkstemp(capture_path);
    if (capture_fd < 0) return;
    capture_out = dup(1);
    capture_err = dup(2);
    dup2(capture_fd, 1);
    dup2(capture_fd, 2);
}

static inline int capture_end(void)
{
    if (capture_fd < 0) return -1;
    fflush(stdout);
    fflush(stderr);
    dup2(capture_out, 1);
    dup2(capture_err, 2);
    close(capture_out);
    close(capture_err);
    int lines = 0;
    FILE *f = fopen(capture_path, "r");
    char buf[1024];
    while (f && fgets(buf, sizeof buf, f)) {
        if (buf[0] != '\n') lines++;
        fprintf(stderr, "# captured: %s%s", buf, strchr(buf, '\n') ? "" : "\n");
    }
    if (f) fclose(f);
    close(capture_fd);
    unlink(capture_path);
    capture_fd = -1;
    return lines;
}

/* Rank 0 of comm printed exactly one line and the others none. */
static inline int check_one_line(MPI_Comm comm, int lines, const char *call)
{
    int rank;
    PMPI_Comm_rank(comm, &rank);
    return check_all(comm, rank == 0 ? lines == 1 : lines == 0,
                     "%s: rank 0 prints one line saying why, the others nothing", call);
}

/* The last line of a program's output: tests/sh/contract.sh requires it, so that a program that
 * died after some checks is not taken for one that ran them all. */
static inline void contract_end(void)
{
    printf("# %s %s: end, %d checks, %d failed\n", contract_name, contract_tag, contract_checks,
           contract_failed);
    fflush(stdout);
}

/* ---- Rows: a deterministic function of the global row and the iteration ------------------
 * Every value depends on its global row and on how many times, and at which iterations, it was
 * updated, so a row that lands in the wrong place, or an iteration that is repeated or
 * skipped, changes the bits. */
static inline double row_init(long i) { return 1.0 + (double)((i * 7919) % 1009) / 64.0; }
static inline double row_step(double x, long i, long k)
{
    return x * 0.75 + (double)((i + 1) * (k + 3) % 101) / 32.0 + (double)k / 1024.0;
}
/* Row i's value after k updates from `start` (row_init(i) for a fresh row): the reference a
 * test compares the program's data with, computed without the library. */
static inline double row_after(double start, long i, int k)
{
    for (int t = 0; t < k; t++) start = row_step(start, i, t);
    return start;
}

/* Bits of a double, for exact comparisons and checksums. */
static inline unsigned long long dbits(double d)
{
    unsigned long long u;
    memcpy(&u, &d, sizeof u);
    return u;
}

/* ---- Every XMPI_ call returns one of the header's codes ----------------------------------
 * X(call) evaluates an XMPI_ call that returns int and remembers any code outside
 * [XMPI_SUCCESS, XMPI_ERR_LAST); contract_codes_checked() reports them (collective). */
static int contract_bad_codes;
static inline int contract_rc(int rc, const char *call)
{
    if (!code_valid(rc)) {
        contract_bad_codes++;
        fprintf(stderr, "# %s returned %d, not one of the header's codes\n", call, rc);
    }
    return rc;
}
#define X(call) contract_rc((call), #call)

#endif
