/* The runtime's running totals (communication profile, intervals, rebalances, spawns, removals,
 * redistributions, reconfiguration time) as PAPI software-defined events of library "libxmpi". */
#include "sde.h"

#ifdef XMPI_HAVE_SDE
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "context.h"

/* Counts held as doubles by the runtime are whole numbers: tools get them as integers. */
static long long whole(void *p)
{
    return (long long)*(const double *)p;
}

static long long whole_long(void *p)
{
    return (long long)*(const long *)p;
}

/* PAPI carries a PAPI_SDE_double value as the bits of the double in its long long. */
static long long double_bits(double v)
{
    long long bits;
    memcpy(&bits, &v, sizeof bits);
    return bits;
}

static long long total_calls(void *p)
{
    const struct xmpi_opstat *op = p;
    double s = 0;
    for (int i = 0; i < XMPIR_OP_COUNT; i++) s += op[i].calls;
    return (long long)s;
}

static long long total_bytes(void *p)
{
    const struct xmpi_opstat *op = p;
    double s = 0;
    for (int i = 0; i < XMPIR_OP_COUNT; i++) s += op[i].bytes;
    return (long long)s;
}

static long long total_seconds(void *p)
{
    const struct xmpi_opstat *op = p;
    double s = 0;
    for (int i = 0; i < XMPIR_OP_COUNT; i++) s += op[i].time;
    return double_bits(s);
}

enum { RO = PAPI_SDE_RO | PAPI_SDE_DELTA };

static void counter(const papi_sde_fptr_struct_t *f, papi_handle_t h, const char *name,
                    int type, void *p, const char *what)
{
    f->register_counter(h, name, RO, type, p);
    f->describe_counter(h, name, what);
}

static void computed(const papi_sde_fptr_struct_t *f, papi_handle_t h, const char *name,
                     int type, papi_sde_fptr_t fn, void *p, const char *what)
{
    f->register_counter_cb(h, name, RO, type, fn, p);
    f->describe_counter(h, name, what);
}

void xmpi_sde_publish(const papi_sde_fptr_struct_t *f, struct xmpi_ctx *cx)
{
    papi_handle_t h = f->init("libxmpi");
    if (!h) return;
    const int LL = PAPI_SDE_long_long, DBL = PAPI_SDE_double;
    computed(f, h, "ITERATIONS", LL, whole_long, &cx->mon.iterations,
             "monitored iterations completed by this process");
    counter(f, h, "INTERVALS", PAPI_SDE_int, &cx->mon.summary.index,
            "sampling intervals gathered (the interval pipeline ran)");
    computed(f, h, "MPI_CALLS", LL, total_calls, cx->profile,
             "calls to the profiled MPI operations, inside monitored iterations or not");
    computed(f, h, "MPI_BYTES", LL, total_bytes, cx->profile,
             "payload bytes of the profiled MPI calls (as docs/api.md defines per operation)");
    computed(f, h, "MPI_SECONDS", DBL, total_seconds, cx->profile,
             "seconds inside the profiled MPI calls (double)");
    for (int op = 0; op < XMPIR_OP_COUNT; op++) {
        char up[32], name[64], what[128];
        const char *mpi = xmpi_op_name(op);
        size_t i = 0;
        for (; mpi[i] && i + 1 < sizeof up; i++) up[i] = (char)toupper((unsigned char)mpi[i]);
        up[i] = '\0';
        snprintf(name, sizeof name, "%s_CALLS", up);
        snprintf(what, sizeof what, "calls to %s", mpi);
        computed(f, h, name, LL, whole, &cx->profile[op].calls, what);
        snprintf(name, sizeof name, "%s_BYTES", up);
        snprintf(what, sizeof what, "payload bytes of %s", mpi);
        computed(f, h, name, LL, whole, &cx->profile[op].bytes, what);
        snprintf(name, sizeof name, "%s_SECONDS", up);
        snprintf(what, sizeof what, "seconds inside %s (double)", mpi);
        counter(f, h, name, DBL, &cx->profile[op].time, what);
    }
    counter(f, h, "REBALANCES", LL, &cx->journal.rebalances,
            "rebalances carried out (rows moved by the load balancer)");
    counter(f, h, "SPAWNED", LL, &cx->journal.spawned,
            "processes that joined through spawns this process took part in");
    counter(f, h, "REMOVED", LL, &cx->journal.removed,
            "processes that left through removals this process took part in");
    computed(f, h, "REDISTRIBUTIONS", LL, whole_long, &cx->reg.stats.moves,
             "completed moves of the registered data");
    computed(f, h, "REDIST_BYTES_SENT", LL, whole, &cx->reg.stats.bytes_sent_total,
             "bytes of registered data this process sent to others");
    computed(f, h, "REDIST_BYTES_RECV", LL, whole, &cx->reg.stats.bytes_recv_total,
             "bytes of registered data this process received from others");
    counter(f, h, "REDIST_SECONDS", DBL, &cx->reg.stats.seconds_total,
            "seconds this process spent moving registered data (double)");
    counter(f, h, "RECONF_SECONDS", DBL, &cx->journal.reconf_seconds,
            "seconds of spawns and removals without their data movement, on rank 0 (double)");
}

void xmpi_sde_register(struct xmpi_ctx *cx)
{
    static int done;
    if (done++) return;
    papi_sde_fptr_struct_t f;
    POPULATE_SDE_FPTR_STRUCT(f);
    xmpi_sde_publish(&f, cx);
}

/* At load: a tool that starts counting before MPI_Init (or never calls it, as PAPI's
 * papi_command_line) finds the counters, at 0, instead of placeholders. */
__attribute__((constructor)) static void register_at_load(void)
{
    xmpi_sde_register(xmpi_ctx);
}

#else

void xmpi_sde_register(struct xmpi_ctx *cx)
{
    (void)cx;
}

#endif
