/* Slurm's command output as --xmpi-rms=slurm reads it: hostlist expressions, the job record of
 * `scontrol show job -d`, sinfo's node lines, salloc's grant line. No MPI, no processes here. */
#include "slurm.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "textfile.h"

#define HOSTLIST_RULE "a Slurm hostlist such as node[01-04,7],login"
#define DIGITS_MAX 9   /* range bounds up to 999999999: no overflow, and no node is numbered so */

/* ---- hostlists ---- */

void xmpi_slurm_names_free(struct xmpi_slurm_names *s)
{
    if (!s) return;
    free(s->v);
    s->v = NULL;
    s->n = 0;
}

int xmpi_slurm_names_find(const struct xmpi_slurm_names *s, const char *name)
{
    for (int i = 0; s && i < s->n; i++)
        if (!strcmp(s->v[i], name)) return i;
    return -1;
}

struct range {
    long lo, hi;
    int width;   /* of the lower bound as written: "007" pads to 3 */
};

/* One piece of a hostlist item: literal text, or a bracket of ranges. */
struct piece {
    const char *text;   /* literal: text and len */
    size_t len;
    struct range *r;    /* bracket: nr ranges */
    int nr;
    long count;         /* names the bracket gives */
};

static int parse_bound(const char *s, size_t len, long *v)
{
    if (len == 0 || len > DIGITS_MAX) return -1;
    long x = 0;
    for (size_t i = 0; i < len; i++) {
        if (!isdigit((unsigned char)s[i])) return -1;
        x = x * 10 + (s[i] - '0');
    }
    *v = x;
    return 0;
}

/* "01-03,7" (without the brackets) into ranges. */
static int parse_ranges(const char *s, size_t len, struct piece *p, char *err, size_t errlen)
{
    int nr = 1;
    for (size_t i = 0; i < len; i++) nr += s[i] == ',';
    p->r = calloc((size_t)nr, sizeof *p->r);
    if (!p->r) return xmpi_text_error(err, errlen, "out of memory");
    p->nr = 0;
    p->count = 0;
    for (size_t i = 0; i <= len;) {
        size_t j = i;
        while (j < len && s[j] != ',') j++;
        const char *dash = memchr(s + i, '-', j - i);
        struct range *r = &p->r[p->nr++];
        size_t lolen = dash ? (size_t)(dash - (s + i)) : j - i;
        if (parse_bound(s + i, lolen, &r->lo) ||
            (dash ? parse_bound(dash + 1, (size_t)(s + j - dash - 1), &r->hi) : (r->hi = r->lo, 0)))
            return xmpi_text_error(err, errlen, "'[%.*s]' has a range that is not N or N-M with "
                                   "N and M of 1 to %d digits", (int)(len > 40 ? 40 : len), s,
                                   DIGITS_MAX);
        if (r->hi < r->lo)
            return xmpi_text_error(err, errlen, "the range %ld-%ld goes down", r->lo, r->hi);
        r->width = (int)lolen;
        p->count += r->hi - r->lo + 1;
        if (p->count > XMPIR_SLURM_NODES_MAX)
            return xmpi_text_error(err, errlen, "more than %d names", XMPIR_SLURM_NODES_MAX);
        i = j + 1;
    }
    return 0;
}

/* The k-th number of a bracket, as text. */
static int bracket_value(const struct piece *p, long k, char *out, size_t len)
{
    for (int i = 0; i < p->nr; i++) {
        long n = p->r[i].hi - p->r[i].lo + 1;
        if (k < n) return snprintf(out, len, "%0*ld", p->r[i].width, p->r[i].lo + k);
        k -= n;
    }
    return -1;
}

static int add_name(struct xmpi_slurm_names *out, int *cap, const char *name, char *err,
                    size_t errlen)
{
    if (out->n >= XMPIR_SLURM_NODES_MAX)
        return xmpi_text_error(err, errlen, "more than %d names", XMPIR_SLURM_NODES_MAX);
    if (out->n == *cap) {
        int nc = *cap ? 2 * *cap : 16;
        void *v = realloc(out->v, (size_t)nc * sizeof *out->v);
        if (!v) return xmpi_text_error(err, errlen, "out of memory");
        out->v = v;
        *cap = nc;
    }
    memcpy(out->v[out->n++], name, strlen(name) + 1);
    return 0;
}

/* One item (no top-level comma) into names: every combination of its brackets. */
static int expand_item(const char *s, size_t len, struct xmpi_slurm_names *out, int *cap,
                       char *err, size_t errlen)
{
    struct piece pc[16];
    int np = 0, rc = 0;
    long total = 1;
    if (len == 0) return xmpi_text_error(err, errlen, "an empty name (two commas, or one at an end)");
    for (size_t i = 0; i < len && !rc;) {
        if (np == (int)(sizeof pc / sizeof pc[0])) {
            rc = xmpi_text_error(err, errlen, "more than %d pieces in one name",
                                 (int)(sizeof pc / sizeof pc[0]));
            break;
        }
        struct piece *p = &pc[np];
        memset(p, 0, sizeof *p);
        if (s[i] == ']') {
            rc = xmpi_text_error(err, errlen, "a ']' without its '['");
        } else if (s[i] == '[') {
            const char *close = memchr(s + i + 1, ']', len - i - 1);
            const char *open = memchr(s + i + 1, '[', len - i - 1);
            if (!close || (open && open < close)) {
                rc = xmpi_text_error(err, errlen, "a '[' without its ']'");
                break;
            }
            np++;
            rc = parse_ranges(s + i + 1, (size_t)(close - (s + i + 1)), p, err, errlen);
            if (!rc && (total *= p->count) > XMPIR_SLURM_NODES_MAX)
                rc = xmpi_text_error(err, errlen, "more than %d names", XMPIR_SLURM_NODES_MAX);
            i = (size_t)(close - s) + 1;
        } else {
            size_t j = i;
            while (j < len && s[j] != '[' && s[j] != ']') j++;
            p->text = s + i;
            p->len = j - i;
            np++;
            i = j;
        }
    }
    long *at = rc ? NULL : calloc((size_t)np, sizeof *at);
    if (!rc && !at) rc = xmpi_text_error(err, errlen, "out of memory");
    for (long k = 0; !rc && k < total; k++) {
        char name[XMPIR_NAME_MAX + 16];
        size_t w = 0;
        for (int q = 0; q < np && w < XMPIR_NAME_MAX; q++) {
            if (pc[q].r) {
                int m = bracket_value(&pc[q], at[q], name + w, sizeof name - w);
                w += m > 0 ? (size_t)m : 0;
            } else {
                size_t m = pc[q].len < sizeof name - 1 - w ? pc[q].len : sizeof name - 1 - w;
                memcpy(name + w, pc[q].text, m);
                w += m;
            }
            name[w < sizeof name ? w : sizeof name - 1] = '\0';
        }
        if (w >= XMPIR_NAME_MAX) {
            rc = xmpi_text_error(err, errlen, "a name of %d characters or more",
                                 XMPIR_NAME_MAX);
            break;
        }
        rc = add_name(out, cap, name, err, errlen);
        /* The last bracket turns fastest, as Slurm lists them. */
        for (int q = np - 1; q >= 0; q--) {
            if (!pc[q].r) continue;
            if (++at[q] < pc[q].count) break;
            at[q] = 0;
        }
    }
    free(at);
    for (int q = 0; q < np; q++) free(pc[q].r);
    return rc;
}

int xmpi_slurm_hostlist(const char *expr, struct xmpi_slurm_names *out, char *err,
                        size_t errlen)
{
    out->n = 0;
    out->v = NULL;
    if (!expr || !expr[0] || !strcmp(expr, "(null)")) return 0;
    int cap = 0;
    for (const char *p = expr; *p; p++)
        if (isspace((unsigned char)*p) || !isprint((unsigned char)*p)) {
            xmpi_text_error(err, errlen, "a blank or control character in a hostlist");
            return -1;
        }
    const char *s = expr;
    for (;;) {
        /* Up to the next comma outside brackets. */
        const char *e = s;
        int depth = 0;
        while (*e && (depth || *e != ',')) {
            if (*e == '[') depth++;
            else if (*e == ']' && depth) depth--;
            e++;
        }
        if (expand_item(s, (size_t)(e - s), out, &cap, err, errlen)) {
            xmpi_slurm_names_free(out);
            return -1;
        }
        if (!*e) return 0;
        s = e + 1;
    }
}

/* ---- scontrol show job -d ---- */

int xmpi_slurm_cpu_count(const char *ids)
{
    if (!ids || !*ids) return -1;
    long total = 0;
    for (const char *p = ids;;) {
        const char *e = p;
        while (*e && *e != ',') e++;
        const char *dash = memchr(p, '-', (size_t)(e - p));
        long lo, hi;
        if (parse_bound(p, dash ? (size_t)(dash - p) : (size_t)(e - p), &lo)) return -1;
        if (dash ? parse_bound(dash + 1, (size_t)(e - dash - 1), &hi) : (hi = lo, 0)) return -1;
        if (hi < lo) return -1;
        total += hi - lo + 1;
        if (total > 1 << 20) return -1;
        if (!*e) break;
        p = e + 1;
    }
    return (int)total;
}

void xmpi_slurm_job_free(struct xmpi_slurm_job *job)
{
    if (!job) return;
    xmpi_slurm_names_free(&job->nodes);
    free(job->cpus);
    job->cpus = NULL;
}

/* A detail line's nodes and their CPU count, applied once NodeList is known. */
struct detail {
    struct xmpi_slurm_names nodes;
    int cpus;
};

/* The first blank-separated token of line split at its '=': 0, or -1 when it has none. */
static int first_pair(char *line, char **key, char **value, char **rest)
{
    char *p = line;
    while (*p && isspace((unsigned char)*p)) p++;
    char *t = p;
    while (*p && !isspace((unsigned char)*p)) p++;
    if (*p) *p++ = '\0';
    *rest = p;
    char *eq = strchr(t, '=');
    if (!eq || eq == t) return -1;
    *eq = '\0';
    *key = t;
    *value = eq + 1;
    return 0;
}

static int word_ok(const char *s, size_t max)
{
    size_t n = strlen(s);
    if (n == 0 || n >= max) return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_') return 0;
    return 1;
}

/* A detail line (Nodes=HOSTLIST CPU_IDs=LIST Mem=...): the CPUs the job holds there, into *det. */
static int add_detail(const struct xmpi_text_lines *r, const char *value, char *rest,
                      struct detail **det, int *ndet, char *err, size_t errlen)
{
    struct detail d = {{0, NULL}, 0};
    char why[160];
    if (xmpi_slurm_hostlist(value, &d.nodes, why, sizeof why))
        return xmpi_text_field_error(r, err, errlen, "Nodes", value, "%s (%s)", HOSTLIST_RULE,
                                     why);
    char *k2, *v2, *rest2;
    if (!first_pair(rest, &k2, &v2, &rest2) && !strcmp(k2, "CPU_IDs") && v2[0]) {
        d.cpus = xmpi_slurm_cpu_count(v2);
        if (d.cpus < 0) {
            xmpi_slurm_names_free(&d.nodes);
            return xmpi_text_field_error(r, err, errlen, "CPU_IDs", v2,
                                         "CPU numbers and ranges such as 0-3,8");
        }
    }
    struct detail *nd = realloc(*det, sizeof **det * (size_t)(*ndet + 1));
    if (!nd) {
        xmpi_slurm_names_free(&d.nodes);
        return xmpi_text_error(err, errlen, "%s: out of memory", r->fname);
    }
    *det = nd;
    (*det)[(*ndet)++] = d;
    return 0;
}

/* Each node of the NodeList holds the CPUs of the last detail line naming it, 0 when none does. */
static int cpus_from_details(struct xmpi_slurm_job *job, const struct detail *det, int ndet,
                             const char *fname, char *err, size_t errlen)
{
    job->cpus = calloc((size_t)job->nodes.n, sizeof *job->cpus);
    if (!job->cpus) return xmpi_text_error(err, errlen, "%s: out of memory", fname);
    for (int d = 0; d < ndet; d++)
        for (int i = 0; i < det[d].nodes.n; i++) {
            int k = xmpi_slurm_names_find(&job->nodes, det[d].nodes.v[i]);
            if (k >= 0) job->cpus[k] = det[d].cpus;
        }
    return 0;
}

int xmpi_slurm_job_parse(struct xmpi_slurm_job *job, FILE *f, const char *fname, char *err,
                         size_t errlen)
{
    memset(job, 0, sizeof *job);
    struct xmpi_text_lines r;
    xmpi_text_lines_init(&r, f, fname);
    r.verbatim = 1;
    struct detail *det = NULL;
    int ndet = 0, have_id = 0, have_state = 0, have_nodes = 0, rc = 0;
    char *line;
    int got;
    while ((got = xmpi_text_next(&r, &line)) == 1) {
        char *key, *value, *rest;
        int blank = 1;
        for (char *p = line; *p; p++) blank &= isspace((unsigned char)*p) != 0;
        /* A blank line ends the first record (a job array or pack job gives several). */
        if (blank) {
            if (have_id) break;
            continue;
        }
        if (first_pair(line, &key, &value, &rest)) continue;
        if (!strcmp(key, "JobId") && !have_id) {
            if (xmpi_text_parse_long(value, 1, 0x7fffffffL, &job->id)) {
                rc = xmpi_text_field_error(&r, err, errlen, "JobId", value, "a job number");
                break;
            }
            have_id = 1;
        } else if (!have_id) {
            continue;   /* whatever comes before the record */
        } else if (!strcmp(key, "JobState") && !have_state) {
            if (!word_ok(value, sizeof job->state)) {
                rc = xmpi_text_field_error(&r, err, errlen, "JobState", value,
                                           "a state such as RUNNING");
                break;
            }
            snprintf(job->state, sizeof job->state, "%s", value);
            have_state = 1;
        } else if (!strcmp(key, "Partition") && !job->partition[0]) {
            if (strlen(value) >= sizeof job->partition) {
                rc = xmpi_text_field_error(&r, err, errlen, "Partition", value,
                                           "a partition name shorter than %d characters",
                                           XMPIR_NAME_MAX);
                break;
            }
            snprintf(job->partition, sizeof job->partition, "%s", value);
        } else if (!strcmp(key, "NodeList") && !have_nodes) {
            char why[160];
            if (xmpi_slurm_hostlist(value, &job->nodes, why, sizeof why)) {
                rc = xmpi_text_field_error(&r, err, errlen, "NodeList", value, "%s (%s)",
                                           HOSTLIST_RULE, why);
                break;
            }
            have_nodes = 1;
        } else if (!strcmp(key, "ResizeTime")) {
            job->resized = strcmp(value, "None") != 0 && strcmp(value, "Unknown") != 0 &&
                           value[0] != '\0';
        } else if (!strcmp(key, "Nodes")) {
            if ((rc = add_detail(&r, value, rest, &det, &ndet, err, errlen))) break;
        }
    }
    if (!rc && got < 0) rc = xmpi_text_lines_failed(&r, err, errlen);
    if (!rc && !have_id)
        rc = xmpi_text_error(err, errlen, "%s: no JobId= line; expected a job record as scontrol "
                             "show job prints it", fname);
    if (!rc && !have_state)
        rc = xmpi_text_error(err, errlen, "%s: no JobState= line for job %ld; expected a job "
                             "record as scontrol show job prints it", fname, job->id);
    if (!rc && job->nodes.n > 0) rc = cpus_from_details(job, det, ndet, fname, err, errlen);
    for (int d = 0; d < ndet; d++) xmpi_slurm_names_free(&det[d].nodes);
    free(det);
    xmpi_text_lines_free(&r);
    if (rc) xmpi_slurm_job_free(job);
    return rc;
}

/* ---- sinfo ---- */

int xmpi_slurm_node_flags(const char *state)
{
    static const char *const leaving[] = {
        "drain", "drained", "draining", "down", "fail", "failing", "maint", "reboot",
        "reboot_issued", "reboot_requested", "power_down", "powering_down", "powered_down",
        "inval", "invalid_reg", NULL};
    char base[XMPIR_SLURM_STATE_MAX];
    size_t n = 0;
    while (state[n] && (isalpha((unsigned char)state[n]) || state[n] == '_') &&
           n + 1 < sizeof base) {
        base[n] = (char)tolower((unsigned char)state[n]);
        n++;
    }
    base[n] = '\0';
    const char *suffix = state + n;
    int flags = 0;
    if (!strcmp(base, "idle") && !*suffix) flags |= XMPIR_SLURM_NODE_IDLE;
    for (int i = 0; leaving[i]; i++)
        if (!strcmp(base, leaving[i])) flags |= XMPIR_SLURM_NODE_LEAVING;
    /* '$' maintenance reservation, '@' reboot requested, '^' reboot issued, '!' power-down
     * pending, '%' powering down. '*' (not responding) is not a reclaim: slurmd may come back,
     * and the job's processes there do not depend on it. */
    if (strpbrk(suffix, "$@^!%")) flags |= XMPIR_SLURM_NODE_LEAVING;
    return flags;
}

void xmpi_slurm_nodes_free(struct xmpi_slurm_nodes *nodes)
{
    if (!nodes) return;
    free(nodes->v);
    nodes->v = NULL;
    nodes->n = 0;
}

int xmpi_slurm_nodes_find(const struct xmpi_slurm_nodes *nodes, const char *name)
{
    for (int i = 0; nodes && i < nodes->n; i++)
        if (!strcmp(nodes->v[i].name, name)) return i;
    for (int i = 0; nodes && i < nodes->n; i++)
        if (!strcmp(nodes->v[i].host, name)) return i;
    return -1;
}

static const char *const sinfo_fields[] = {"NodeName", "NodeHostname", "CPUs", "State",
                                           "Features"};

static int plain_name(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n >= XMPIR_NAME_MAX) return 0;
    for (; *s; s++)
        if (!isgraph((unsigned char)*s)) return 0;
    return 1;
}

/* One sinfo line (XMPIR_SLURM_SINFO_FORMAT), split in place, into *nd once its 5 fields pass. */
static int read_node(const struct xmpi_text_lines *r, char *line, struct xmpi_slurm_node *nd,
                     char *err, size_t errlen)
{
    char *field[5];
    int nf = 0;
    for (char *p = line;; nf++) {
        char *bar = strchr(p, '|');
        if (nf < 5) field[nf] = p;
        if (!bar) {
            nf++;
            break;
        }
        *bar = '\0';
        p = bar + 1;
    }
    if (nf != 5)
        return xmpi_text_line_error(r, err, errlen, "%d fields are not accepted; expected 5, "
                                    "%s, separated by '|' (sinfo -o '%s')", nf,
                                    "NodeName|NodeHostname|CPUs|State|Features",
                                    XMPIR_SLURM_SINFO_FORMAT);
    memset(nd, 0, sizeof *nd);
    long cpus;
    if (!plain_name(field[0]))
        return xmpi_text_field_error(r, err, errlen, sinfo_fields[0], field[0],
                                     "a node name of 1 to %d characters without blanks",
                                     XMPIR_NAME_MAX - 1);
    int no_host = !field[1][0] || !strcmp(field[1], "(null)");
    if (!no_host && !plain_name(field[1]))
        return xmpi_text_field_error(r, err, errlen, sinfo_fields[1], field[1],
                                     "a host name of 1 to %d characters without blanks",
                                     XMPIR_NAME_MAX - 1);
    if (xmpi_text_parse_long(field[2], 1, 65536, &cpus))
        return xmpi_text_field_error(r, err, errlen, sinfo_fields[2], field[2],
                                     "a whole number of CPUs from 1 to 65536");
    if (!field[3][0] || strlen(field[3]) >= sizeof nd->state)
        return xmpi_text_field_error(r, err, errlen, sinfo_fields[3], field[3],
                                     "a node state such as idle or drained*");
    snprintf(nd->name, sizeof nd->name, "%s", field[0]);
    snprintf(nd->host, sizeof nd->host, "%s", no_host ? field[0] : field[1]);
    nd->cpus = (int)cpus;
    snprintf(nd->state, sizeof nd->state, "%s", field[3]);
    nd->flags = xmpi_slurm_node_flags(nd->state);
    /* The first feature that can name a node class. */
    if (strcmp(field[4], "(null)"))
        for (char *save = NULL, *t = strtok_r(field[4], ",", &save); t;
             t = strtok_r(NULL, ",", &save))
            if (xmpi_text_name_ok(t)) {
                snprintf(nd->feature, sizeof nd->feature, "%s", t);
                break;
            }
    return 0;
}

int xmpi_slurm_nodes_parse(struct xmpi_slurm_nodes *nodes, FILE *f, const char *fname,
                           char *err, size_t errlen)
{
    memset(nodes, 0, sizeof *nodes);
    struct xmpi_text_lines r;
    xmpi_text_lines_init(&r, f, fname);
    r.verbatim = 1;
    int cap = 0, rc = 0, got;
    char *line;
    while ((got = xmpi_text_next(&r, &line)) == 1) {
        size_t len = strlen(line);
        while (len > 0 && isspace((unsigned char)line[len - 1])) line[--len] = '\0';
        if (len == 0) continue;
        struct xmpi_slurm_node nd;
        if ((rc = read_node(&r, line, &nd, err, errlen))) break;
        int seen = 0;
        for (int i = 0; i < nodes->n && !seen; i++) seen = !strcmp(nodes->v[i].name, nd.name);
        if (seen) continue;   /* listed again for another partition */
        if (nodes->n == cap) {
            int nc = cap ? 2 * cap : 16;
            struct xmpi_slurm_node *v = realloc(nodes->v, sizeof *v * (size_t)nc);
            if (!v) {
                rc = xmpi_text_error(err, errlen, "%s: out of memory", fname);
                break;
            }
            nodes->v = v;
            cap = nc;
        }
        if (nodes->n >= XMPIR_SLURM_NODES_MAX) {
            rc = xmpi_text_line_error(&r, err, errlen, "more than %d nodes are not accepted",
                                      XMPIR_SLURM_NODES_MAX);
            break;
        }
        nodes->v[nodes->n++] = nd;
    }
    if (!rc && got < 0) rc = xmpi_text_lines_failed(&r, err, errlen);
    xmpi_text_lines_free(&r);
    if (rc) xmpi_slurm_nodes_free(nodes);
    return rc;
}

/* ---- salloc ---- */

long xmpi_slurm_granted(const char *text)
{
    static const char key[] = "Granted job allocation ";
    for (const char *p = text; p && (p = strstr(p, key)); p++) {
        long id;
        const char *d = p + sizeof key - 1;
        size_t n = 0;
        char num[16];
        while (isdigit((unsigned char)d[n]) && n + 1 < sizeof num) {
            num[n] = d[n];
            n++;
        }
        num[n] = '\0';
        if (n > 0 && !isdigit((unsigned char)d[n]) && !xmpi_text_parse_long(num, 1, 0x7fffffffL, &id))
            return id;
    }
    return -1;
}
