/* The resource pool: the --xmpi-resources file parser with its per-field validation,
 * the hwloc description of the local host, and look-ups by host and class. */
#include "resources.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hwloc.h>

#include "textfile.h"

#define PES_MAX 65536
#define NAME_RULE \
    "a non-empty name of letters, digits, '.', '_' and '-', shorter than 64 characters"

static const char line_format[] = "hostname:class:PEs:cost[:speed]";

static char *trim(char *s)
{
    while (isspace((unsigned char)*s)) s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1])) s[--n] = '\0';
    return s;
}

static int parse_double(const char *s, double *out)
{
    if (*s == '\0') return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (*end != '\0' || errno == ERANGE || !isfinite(v)) return -1;
    *out = v;
    return 0;
}

/* Fills h from one line that is not blank once its comment is cut off; -1 with the
 * message otherwise. */
static int parse_line(char *text, struct xmpi_host *h, const struct xmpi_text_lines *r,
                      char *err, size_t errlen)
{
    char *field[6];
    int nf = 0;
    for (char *p = text;;) {
        char *colon = strchr(p, ':');
        if (nf < 6) field[nf] = p;
        nf++;
        if (!colon) break;
        *colon = '\0';
        p = colon + 1;
    }
    if (nf < 4 || nf > 5)
        return xmpi_text_line_error(r, err, errlen, "expected %s, got %d fields", line_format,
                                    nf);
    for (int i = 0; i < nf; i++) field[i] = trim(field[i]);

    memset(h, 0, sizeof *h);
    long pes;
    if (!xmpi_text_name_ok(field[0]))
        return xmpi_text_field_error(r, err, errlen, "hostname", field[0], NAME_RULE);
    if (!xmpi_text_name_ok(field[1]))
        return xmpi_text_field_error(r, err, errlen, "class", field[1], NAME_RULE);
    if (xmpi_text_parse_long(field[2], 1, PES_MAX, &pes) != 0)
        return xmpi_text_field_error(r, err, errlen, "PEs", field[2],
                                     "an integer from 1 to 65536");
    h->pes = (int)pes;
    if (parse_double(field[3], &h->cost) != 0 || !(h->cost >= 0))
        return xmpi_text_field_error(r, err, errlen, "cost", field[3],
                                     "a finite number >= 0 (cost per PE per hour)");
    if (nf == 5 && (parse_double(field[4], &h->speed) != 0 || !(h->speed > 0) ||
                    h->speed > 1))
        return xmpi_text_field_error(r, err, errlen, "speed", field[4],
                                     "a number greater than 0 and at most 1 (fraction of one "
                                     "core), or no speed field");
    /* xmpi_text_name_ok bounded both lengths, so these copies are whole. */
    memcpy(h->name, field[0], strlen(field[0]) + 1);
    memcpy(h->cls, field[1], strlen(field[1]) + 1);
    if (h->cost == 0) h->cost = 0;   /* "-0" reads as -0.0; store a plain zero */
    return 0;
}

int xmpi_pool_parse(struct xmpi_pool *pool, FILE *f, const char *fname, char *err,
                    size_t errlen)
{
    struct xmpi_host *hosts = NULL;
    struct xmpi_text_pairs seen = {0};
    int n = 0, cap = 0;
    struct xmpi_text_lines rd;
    char *text;
    int got, rc = -1;

    pool->nhosts = 0;
    pool->hosts = NULL;
    if (!fname) fname = "(resources)";
    xmpi_text_lines_init(&rd, f, fname);
    while ((got = xmpi_text_next(&rd, &text)) > 0) {
        struct xmpi_host h;
        if (parse_line(text, &h, &rd, err, errlen) != 0) goto out;
        long before = xmpi_text_pair_seen(&seen, h.name, h.cls);
        if (before) {
            xmpi_text_line_error(&rd, err, errlen,
                                 "field class: '%s' is not accepted; host '%s' already has "
                                 "class '%s' on line %ld; expected each hostname:class pair once",
                                 h.cls, h.name, h.cls, before);
            goto out;
        }
        if (n == cap) {
            int ncap = cap ? 2 * cap : 8;
            struct xmpi_host *nh = realloc(hosts, (size_t)ncap * sizeof *nh);
            if (!nh) goto nomem;
            hosts = nh;
            cap = ncap;
        }
        if (xmpi_text_pair_add(&seen, h.name, h.cls, rd.lineno)) goto nomem;
        hosts[n++] = h;
    }
    if (got < 0) {
        if (rd.error)
            xmpi_text_error(err, errlen, "%s: cannot read: %s", fname, strerror(rd.error));
        else
            xmpi_text_line_error(&rd, err, errlen, "contains a NUL byte; expected a text line %s",
                                 line_format);
        goto out;
    }
    if (n == 0) {
        xmpi_text_error(err, errlen, "%s: no host lines; expected at least one line %s", fname,
                        line_format);
        goto out;
    }
    pool->nhosts = n;
    pool->hosts = hosts;
    hosts = NULL;
    rc = 0;
    goto out;
nomem:
    xmpi_text_line_error(&rd, err, errlen, "out of memory");
out:
    free(hosts);
    xmpi_text_pairs_free(&seen);
    xmpi_text_lines_free(&rd);
    return rc;
}

int xmpi_pool_load(struct xmpi_pool *pool, const char *path, char *err, size_t errlen)
{
    pool->nhosts = 0;
    pool->hosts = NULL;
    FILE *f = fopen(path, "r");
    if (!f) {
        return xmpi_text_error(err, errlen, "%s: cannot read: %s", path, strerror(errno));
    }
    int rc = xmpi_pool_parse(pool, f, path, err, errlen);
    fclose(f);
    return rc;
}

static int count_pes(void)
{
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) != 0) return 0;
    int pes = 0;
    if (hwloc_topology_load(topo) == 0) {
        int cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
        int pus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
        pes = cores > 0 ? cores : pus > 0 ? pus : 0;
    }
    hwloc_topology_destroy(topo);
    return pes;
}

/* Cores, since a hyperthread is not a PE to balance over; PUs when hwloc sees no cores
 * (some VMs), and 1 when hwloc cannot describe the machine at all. Counted once per process
 * (a count that found nothing is taken again at the next call); hwloc loads with whatever
 * plugins its environment names (runtime.c counts before MPI_Init without them). */
int xmpi_local_pes(void)
{
    static int cached;
    int pes = __atomic_load_n(&cached, __ATOMIC_ACQUIRE);
    if (pes > 0) return pes;
    pes = count_pes();
    if (pes <= 0) return 1;
    if (pes > PES_MAX) pes = PES_MAX;
    __atomic_store_n(&cached, pes, __ATOMIC_RELEASE);
    return pes;
}

int xmpi_pool_local(struct xmpi_pool *pool, char *err, size_t errlen)
{
    pool->nhosts = 0;
    pool->hosts = NULL;
    char name[256];
    if (gethostname(name, sizeof name) != 0) {
        return xmpi_text_error(err, errlen, "cannot get the local host name: %s",
                               strerror(errno));
    }
    name[sizeof name - 1] = '\0';
    /* MPI_Comm_spawn accepts the short name too, so a long FQDN need not fail. */
    if (strlen(name) >= XMPIR_NAME_MAX) name[strcspn(name, ".")] = '\0';
    if (name[0] == '\0' || strlen(name) >= XMPIR_NAME_MAX) {
        char shown[XMPIR_TEXT_ECHO_SIZE];
        return xmpi_text_error(err, errlen,
                               "local host name '%s' is not accepted; expected a non-empty "
                               "name shorter than %d characters",
                               xmpi_text_echo(shown, name), XMPIR_NAME_MAX);
    }
    struct xmpi_host *h = calloc(1, sizeof *h);
    if (!h) {
        return xmpi_text_error(err, errlen, "local resource pool: out of memory");
    }
    memcpy(h->name, name, strlen(name) + 1);
    snprintf(h->cls, sizeof h->cls, "local");
    h->pes = xmpi_local_pes();
    h->cost = 1;
    h->speed = 0;
    pool->nhosts = 1;
    pool->hosts = h;
    return 0;
}

void xmpi_pool_free(struct xmpi_pool *pool)
{
    if (!pool) return;
    free(pool->hosts);
    pool->hosts = NULL;
    pool->nhosts = 0;
}

int xmpi_pool_find_class(const struct xmpi_pool *pool, const char *cls)
{
    if (!pool || !cls) return -1;
    for (int i = 0; i < pool->nhosts; i++)
        if (strcmp(pool->hosts[i].cls, cls) == 0) return i;
    return -1;
}

int xmpi_pool_find(const struct xmpi_pool *pool, const char *host, const char *cls)
{
    if (!pool || !host) return -1;
    for (int i = 0; i < pool->nhosts; i++)
        if (strcmp(pool->hosts[i].name, host) == 0 &&
            (!cls || strcmp(pool->hosts[i].cls, cls) == 0))
            return i;
    return -1;
}

int xmpi_pool_host_pes(const struct xmpi_pool *pool, const char *host)
{
    int pes = 0;
    for (int i = 0; pool && host && i < pool->nhosts; i++)
        if (strcmp(pool->hosts[i].name, host) == 0) pes += pool->hosts[i].pes;
    return pes;
}

void xmpi_pool_classes(const struct xmpi_pool *pool, char *buf, size_t len)
{
    if (!buf || len == 0) return;
    buf[0] = '\0';
    if (!pool) return;
    size_t used = 0;
    for (int i = 0; i < pool->nhosts && used < len; i++) {
        if (xmpi_pool_find_class(pool, pool->hosts[i].cls) != i) continue;
        int w = snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
                         pool->hosts[i].cls);
        if (w < 0) break;
        used += (size_t)w;
    }
}
