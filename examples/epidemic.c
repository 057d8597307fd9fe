/* Epidemic benchmark: an irregular SIR simulation over a sparse contact graph, after EpiGraph,
 * whose work per day follows the number of infected. -DXMPI_PLAIN builds it against plain MPI. */
#define _POSIX_C_SOURCE 200809L

#include <mpi.h>

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BENCH_NAME "epidemic"
#include "example_util.h"
#include "example_timed.h"

/* This program's part of where the two builds differ; example_util.h holds the part all benchmarks share. */
#ifdef XMPI_PLAIN
#define MONITOR_SI_INIT() MONITOR_OK
#define GET_WSIZE(rank, nprocs, size, count, displ) (even_block(rank, nprocs, size, count, displ), MONITOR_OK)
#define REGISTER_SPARSE(ia, ja, a, size) ((void)(ia), (void)(ja), (void)(a), (void)(size), MONITOR_OK)
#define REGISTER_VECTOR(x, size, type, replicated) \
    ((void)(x), (void)(size), (void)(type), (void)(replicated), MONITOR_OK)
/* Never reached: --epi-shuffle is refused at parse time in this build. */
#define REDISTRIBUTE(sc, sd, rc, rd) ((void)(sc), (void)(sd), (void)(rc), (void)(rd), -1)
#define CAN_MOVE_DATA 0
#else
#define MONITOR_SI_INIT() XMPI_Monitor_si_init()
#define GET_WSIZE(rank, nprocs, size, count, displ) XMPI_Get_wsize(rank, nprocs, size, count, displ)
#define REGISTER_SPARSE(ia, ja, a, size) XMPI_Register_sparse(ia, ja, a, size, MPI_DOUBLE, XMPI_DISTRIBUTED)
#define REGISTER_VECTOR(x, size, type, replicated) \
    XMPI_Register_vector(x, size, type, (replicated) ? XMPI_REPLICATED : XMPI_DISTRIBUTED)
#define REDISTRIBUTE(sc, sd, rc, rd) XMPI_Redistribute_data(sc, sd, rc, rd)
#define CAN_MOVE_DATA 1
#endif

enum { SUSCEPTIBLE = 0, INFECTED = 1, RECOVERED = 2 };

/* Contact model. Weights are dyadic so that summing a pair's parallel contacts is exact and
 * gives the same bits from both ends. Households are runs of consecutive ids (most contacts
 * stay inside a block, as in a real city partition); workplaces group a pseudo-random
 * permutation of the ids (long-range contacts); hubs (one per HUB_EVERY people) reach
 * hundreds to thousands of people, which gives the degree distribution its heavy tail. */
#define HOUSE_MAX 6
#define HOUSE_START 0.42  /* chance that an id opens a new household: mean size about 2.3 */
#define HOUSE_W 1.0
#define WORK_MAX 24
#define WORK_START 0.125  /* mean workplace about 8 */
#define WORK_W 0.25
#define HUB_EVERY 1000
#define HUB_MIN 20        /* a hub's degree is HUB_MIN * (1..8) * 2^g, g geometric, capped */
#define HUB_W 0.125

/* What updating a person who spreads nothing costs, in scanned contacts, so that weight[] and
 * the declared work speak the same unit. Measured on the project's machine (1 rank, 200000
 * people, 200 days): 5-10 ns per person and day with nobody infected, 37-55 ns per contact
 * scanned, a ratio of 0.15-0.2. */
#define ROW_COST 0.2

/* Hash domains, so that no two uses of the seed draw the same numbers. */
enum { TAG_HOUSE = 1, TAG_WORK, TAG_PERM, TAG_HUB, TAG_HUBDEG, TAG_HUBEDGE, TAG_INITIAL, TAG_DAY, TAG_SHUFFLE,
       TAG_STATE };

struct options {
    long people;
    long days;
    uint64_t seed;
    double beta;
    long recovery;
    long initial;
    int initial_given;
    long verbose;
    const char *out;
    long shuffle;
    int balance;       /* -L: XMPI_Eval_lbalance with the per-person work as row weights */
    int dynamic;       /* -M: XMPI_Eval_reconfig each day (grow and shrink by --xmpi-policy) */
    int help;
};

struct sim {
    int n, rank, nprocs;
    int count, displ;        /* this rank's people */
    /* Registered with the library: a data movement may replace these buffers, so they are
     * always read through these fields, never through copies. */
    int *ia, *ja;            /* CSR rows of this block, global column ids */
    double *w;               /* contact weights */
    char *state;             /* every person's state, replicated */
    int *sick;               /* days each person of this block has been infected */
    /* Derived from the partition; rebuilt after every movement. */
    char *next, *hit;        /* tomorrow's states and today's infections, this block */
    double *weight;          /* tomorrow's work per person, for the weight load-balancing policy */
    int *counts, *displs;    /* every rank's block */
    int *lo, *who, nowners;  /* blocks with people, by first id: who owns a person */
    /* The day's infections of other ranks' people, and the exchange. */
    int *out;
    size_t nout, capout;
    int *sendbuf, *recvbuf;
    size_t capsend, caprecv;
    int *sc, *sd, *rc, *rd;
    double t0;               /* the start of the timed region */
    struct timed tm;         /* the timed: line's record */
};

/* One row of the epidemic's history. */
struct day_record {
    uint64_t day, s, i, r, hash;
};

#define ACCEPTED "-n PEOPLE -d DAYS -s SEED -b BETA -r RECOVERY_DAYS -I INITIAL -v K -o FILE -L -M --epi-shuffle=K -h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: epidemic [-n PEOPLE] [-d DAYS] [-s SEED] [-b BETA] [-r RECOVERY_DAYS] [-I INITIAL]\n"
            "                [-v K] [-o FILE] [-L] [-M] [--epi-shuffle=K] [-h]\n"
            "  -n PEOPLE         people in the contact graph, 1 to %d (default 100000)\n"
            "  -d DAYS           days to simulate, 0 to 1000000000 (default 120)\n"
            "  -s SEED           seed of the graph and of every draw, 0 to %llu (default 1)\n"
            "  -b BETA           chance per day that an infected person infects a contact of\n"
            "                    weight 1 (household 1, workplace 0.25, hub 0.125), 0 to 1 (default 0.06)\n"
            "  -r RECOVERY_DAYS  days a person stays infected, 1 to 1000000 (default 7)\n"
            "  -I INITIAL        people infected on day 0, 0 to PEOPLE (default 10)\n"
            "  -v K              print day, S, I, R every K days on rank 0; 0: never (default 0)\n"
            "  -o FILE           write day,susceptible,infected,recovered,work per day (CSV, rank 0)\n"
            "  -L                balance the load with XMPI_Eval_lbalance each day; with\n"
            "                    --xmpi-lb=weight each person weighs its expected work (not in\n"
            "                    the plain build)\n"
            "  -M                malleable (-d is the days): XMPI_Eval_reconfig each day, which\n"
            "                    balances as -L does and grows or shrinks the job as --xmpi-policy\n"
            "                    decides (static, the default: balancing only); spawned processes\n"
            "                    receive their people (XMPI_Get_data) and build nothing; removed\n"
            "                    ones exit 0 without a result line. The same bits as a static run\n"
            "                    (not in the plain build)\n"
            "  --epi-shuffle=K   test: every K days move the data to another pseudo-random\n"
            "                    partition with XMPI_Redistribute_data (not in the plain build)\n"
            "  -h                print this help\n",
            INT_MAX, (unsigned long long)UINT64_MAX);
}

/* Every rank parses the same argv, so every rank reaches the same verdict. */
static int parse_options(int argc, char **argv, struct options *o, struct failure *f)
{
    *o = (struct options){.people = 100000, .days = 120, .seed = 1, .beta = 0.06, .recovery = 7, .initial = 10};
    const char *plain = CAN_MOVE_DATA ? NULL
                                      : "moves data with libxmpi, which the plain build does not have; "
                                        "accepted: -n -d -s -b -r -I -v -o -h";
    if (take_count_option(&argc, argv, "--epi-shuffle", plain, &o->shuffle, f))
        return -1;

    opterr = 0;
    int c;
    while ((c = getopt(argc, argv, ":n:d:s:b:r:I:v:o:LMh")) != -1) {
        switch (c) {
        case 'n':
            if (parse_long(optarg, 1, INT_MAX, &o->people))
                return fail(f, EXIT_USAGE, "epidemic: bad people count '-n %s': expected an integer from 1 to %d\n",
                            optarg, INT_MAX);
            break;
        case 'd':
            if (parse_long(optarg, 0, 1000000000L, &o->days))
                return fail(f, EXIT_USAGE,
                            "epidemic: bad day count '-d %s': expected an integer from 0 to 1000000000\n", optarg);
            break;
        case 's':
            if (parse_u64(optarg, &o->seed))
                return fail(f, EXIT_USAGE, "epidemic: bad seed '-s %s': expected an integer from 0 to %llu\n",
                            optarg, (unsigned long long)UINT64_MAX);
            break;
        case 'b':
            if (parse_double(optarg, 0.0, 1.0, &o->beta))
                return fail(f, EXIT_USAGE, "epidemic: bad infection chance '-b %s': expected a number from 0 to 1\n",
                            optarg);
            break;
        case 'r':
            if (parse_long(optarg, 1, 1000000L, &o->recovery))
                return fail(f, EXIT_USAGE,
                            "epidemic: bad recovery time '-r %s': expected an integer from 1 to 1000000 days\n",
                            optarg);
            break;
        case 'I':
            /* The upper bound is the people count, which a later -n may still set. */
            if (parse_long(optarg, 0, INT_MAX, &o->initial))
                return fail(f, EXIT_USAGE,
                            "epidemic: bad initial infected count '-I %s': expected an integer from 0 to the "
                            "number of people (-n)\n",
                            optarg);
            o->initial_given = 1;
            break;
        case 'v':
            if (parse_long(optarg, 0, INT_MAX, &o->verbose))
                return fail(f, EXIT_USAGE,
                            "epidemic: bad progress interval '-v %s': expected an integer from 0 (never) to %d days\n",
                            optarg, INT_MAX);
            break;
        case 'o':
            o->out = optarg;
            break;
        case 'L':
            if (!CAN_MOVE_DATA)
                return fail(f, EXIT_USAGE, "epidemic: -L needs libxmpi to move data; the plain build "
                            "cannot balance\n");
            o->balance = 1;
            break;
        case 'M':
            if (!CAN_MOVE_DATA)
                return fail(f, EXIT_USAGE, "epidemic: -M needs libxmpi to spawn and remove processes; the plain "
                            "build cannot\n");
            o->dynamic = 1;
            break;
        case 'h':
            o->help = 1;
            return 0;
        default:
            return refuse_getopt(c, argc, argv, ACCEPTED, f);
        }
    }
    if (refuse_operands(argc, argv, f))
        return -1;
    if (o->initial > o->people)
        return fail(f, EXIT_USAGE,
                    "epidemic: bad initial infected count '-I %ld': expected an integer from 0 to the number of "
                    "people (%ld)\n",
                    o->initial, o->people);
    return 0;
}

/* Grows *buf to hold at least need elements; 0 on success. */
static int reserve(void **buf, size_t *cap, size_t need, size_t size, struct failure *f)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 1024;
    while (c < need)
        c *= 2;
    if (c > SIZE_MAX / size)
        return fail(f, EXIT_RUNTIME, "epidemic: out of memory (%zu elements of %zu bytes)\n", c, size);
    void *p = realloc(*buf, c * size);
    if (!p)
        return fail(f, EXIT_RUNTIME, "epidemic: out of memory (%zu elements of %zu bytes)\n", c, size);
    *buf = p;
    *cap = c;
    return 0;
}

/* Counter-based draws: a pure function of their coordinates, so no draw depends on which rank
 * makes it or in which order; that is what makes the run identical on any partition. */
static uint64_t hash3(uint64_t seed, uint64_t tag, uint64_t a, uint64_t b)
{
    return splitmix64(splitmix64(splitmix64(seed ^ (tag << 56)) ^ a) ^ b);
}

/* 53 random bits: exact, in [0, 1). */
static double uniform(uint64_t h)
{
    return (double)(h >> 11) * 0x1.0p-53;
}

/* A pseudo-random permutation of [0, n): a 4-round Feistel network on the smallest even-bit
 * domain that holds n, cycle-walked back into [0, n). Both directions are cheap, so each rank
 * finds its people's workplace colleagues without any table of the whole population. */
struct perm {
    uint64_t key[4], mask, n;
    int half;
};

static void perm_init(struct perm *p, uint64_t seed, uint64_t n)
{
    int bits = 1;
    while (bits < 63 && (UINT64_C(1) << bits) < n)
        bits++;
    p->half = (bits + 1) / 2;
    p->mask = (UINT64_C(1) << p->half) - 1;
    p->n = n;
    for (int k = 0; k < 4; k++)
        p->key[k] = hash3(seed, TAG_PERM, (uint64_t)k, 0);
}

static uint64_t feistel(const struct perm *p, uint64_t x, int inverse)
{
    uint64_t l = x >> p->half, r = x & p->mask;
    for (int k = 0; k < 4; k++) {
        if (!inverse) {
            uint64_t t = l ^ (splitmix64(r ^ p->key[k]) & p->mask);
            l = r;
            r = t;
        } else {
            uint64_t t = r ^ (splitmix64(l ^ p->key[3 - k]) & p->mask);
            r = l;
            l = t;
        }
    }
    return (l << p->half) | r;
}

static uint64_t perm_apply(const struct perm *p, uint64_t x, int inverse)
{
    do
        x = feistel(p, x, inverse);
    while (x >= p->n);
    return x;
}

/* Groups of consecutive positions: a position opens a group by chance or every gmax positions,
 * so any position finds its group by looking at most gmax positions either way. */
static int opens(uint64_t seed, uint64_t tag, uint64_t x, int gmax, double chance)
{
    return x % (uint64_t)gmax == 0 || uniform(hash3(seed, tag, x, 0)) < chance;
}

static void group(uint64_t seed, uint64_t tag, uint64_t x, uint64_t n, int gmax, double chance, uint64_t *first,
                  uint64_t *end)
{
    uint64_t s = x, e = x + 1;
    while (!opens(seed, tag, s, gmax, chance))
        s--;
    while (e < n && !opens(seed, tag, e, gmax, chance))
        e++;
    *first = s;
    *end = e;
}

static uint64_t hub_count(uint64_t n)
{
    return n >= 2 ? (n + HUB_EVERY - 1) / HUB_EVERY : 0;
}

static uint64_t hub_person(uint64_t seed, uint64_t n, uint64_t k)
{
    return hash3(seed, TAG_HUB, k, 0) % n;
}

/* HUB_MIN * (1..8) * 2^g with P(g) = 2^-(g+1): a discrete power law, capped at n / 8. */
static uint64_t hub_degree(uint64_t seed, uint64_t n, uint64_t k)
{
    uint64_t h = hash3(seed, TAG_HUBDEG, k, 0);
    uint64_t d = HUB_MIN * (1 + (h & 7));
    for (int g = 0; g < 10 && (h >> (3 + g) & 1); g++)
        d *= 2;
    uint64_t cap = n / 8 > HUB_MIN ? n / 8 : HUB_MIN;
    return d < cap ? d : cap;
}

struct entry {
    int col;
    double w;
};

static int by_entry(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;
    if (x->col != y->col)
        return x->col < y->col ? -1 : 1;
    return (x->w > y->w) - (x->w < y->w);
}

/* One end of a hub contact that touches this block. */
struct stub {
    int row, col;
};

struct stubs {
    struct stub *v;
    size_t n, cap;
};

/* Hub contacts are few, so every rank walks all of them and keeps the ends in its block [lo, hi). */
static int hub_stubs(uint64_t seed, uint64_t n, uint64_t lo, uint64_t hi, struct stubs *st, struct failure *f)
{
    for (uint64_t k = 0; k < hub_count(n); k++) {
        uint64_t h = hub_person(seed, n, k), d = hub_degree(seed, n, k);
        for (uint64_t t = 0; t < d; t++) {
            uint64_t j = hash3(seed, TAG_HUBEDGE, k, t) % n;
            if (j == h)
                continue;
            for (int end = 0; end < 2; end++) {
                uint64_t a = end ? j : h, b = end ? h : j;
                if (a < lo || a >= hi)
                    continue;
                if (reserve((void **)&st->v, &st->cap, st->n + 1, sizeof *st->v, f))
                    return -1;
                st->v[st->n++] = (struct stub){(int)(a - lo), (int)b};
            }
        }
    }
    return 0;
}

/* Where each row of this block starts among its contacts before merging (hub stubs, household,
 * workplace), and at[count] their number; NULL on failure. */
static size_t *row_starts(const struct sim *s, uint64_t seed, const struct perm *pm, const struct stubs *st,
                          struct failure *f)
{
    const uint64_t n = (uint64_t)s->n, lo = (uint64_t)s->displ;
    size_t *at = alloc_array((size_t)s->count + 1, sizeof *at, f);
    if (!at)
        return NULL;
    for (int ii = 0; ii <= s->count; ii++)
        at[ii] = 0;
    for (size_t k = 0; k < st->n; k++)
        at[st->v[k].row]++;
    for (int ii = 0; ii < s->count; ii++) {
        uint64_t i = lo + (uint64_t)ii, a, b;
        group(seed, TAG_HOUSE, i, n, HOUSE_MAX, HOUSE_START, &a, &b);
        at[ii] += b - a - 1;
        group(seed, TAG_WORK, perm_apply(pm, i, 0), n, WORK_MAX, WORK_START, &a, &b);
        at[ii] += b - a - 1;
    }
    size_t pos = 0;
    for (int ii = 0; ii < s->count; ii++) {
        size_t len = at[ii];
        at[ii] = pos;
        pos += len;
    }
    at[s->count] = pos;
    return at;
}

/* Each row's contacts from its start at[ii], which ends up where the row ends. */
static void fill_rows(const struct sim *s, uint64_t seed, const struct perm *pm, const struct stubs *st,
                      size_t *at, struct entry *e)
{
    const uint64_t n = (uint64_t)s->n, lo = (uint64_t)s->displ;
    for (size_t k = 0; k < st->n; k++)
        e[at[st->v[k].row]++] = (struct entry){st->v[k].col, HUB_W};
    for (int ii = 0; ii < s->count; ii++) {
        uint64_t i = lo + (uint64_t)ii, a, b, slot = perm_apply(pm, i, 0);
        group(seed, TAG_HOUSE, i, n, HOUSE_MAX, HOUSE_START, &a, &b);
        for (uint64_t j = a; j < b; j++)
            if (j != i)
                e[at[ii]++] = (struct entry){(int)j, HOUSE_W};
        group(seed, TAG_WORK, slot, n, WORK_MAX, WORK_START, &a, &b);
        for (uint64_t x = a; x < b; x++)
            if (x != slot)
                e[at[ii]++] = (struct entry){(int)perm_apply(pm, x, 1), WORK_W};
    }
}

/* Merges each row's parallel contacts in place (sorted, so summed in a fixed order), row ii
 * ending at end[ii], and sets the CSR row starts s->ia; *kept: the contacts left. */
static int merge_rows(struct sim *s, struct entry *e, const size_t *end, size_t *kept_out, struct failure *f)
{
    size_t kept = 0, from = 0;
    s->ia[0] = 0;
    for (int ii = 0; ii < s->count; ii++) {
        size_t to = end[ii];
        qsort(e + from, to - from, sizeof *e, by_entry);
        for (size_t k = from; k < to; k++) {
            if (k > from && e[k].col == e[kept - 1].col)
                e[kept - 1].w += e[k].w;
            else
                e[kept++] = e[k];
        }
        from = to;
        if (kept > INT_MAX)
            return fail(f, EXIT_RUNTIME,
                        "epidemic: rank %d: more than %d contacts in one block; run on more ranks or with fewer "
                        "people\n",
                        s->rank, INT_MAX);
        s->ia[ii + 1] = (int)kept;
    }
    *kept_out = kept;
    return 0;
}

/* Builds this block's rows of the contact graph. Households and workplaces are found from each
 * person alone; hub contacts from the list of all of them. The graph is symmetric by
 * construction: every rule that gives i the contact j gives j the contact i with the same
 * weight, and parallel contacts are summed in a fixed order. */
static int build_graph(struct sim *s, uint64_t seed, struct failure *f)
{
    const uint64_t n = (uint64_t)s->n, lo = (uint64_t)s->displ, hi = lo + (uint64_t)s->count;
    struct perm pm;
    perm_init(&pm, seed, n);
    struct stubs st = {0};
    struct entry *e = NULL;
    size_t *at = NULL, kept = 0;
    if (hub_stubs(seed, n, lo, hi, &st, f) || !(at = row_starts(s, seed, &pm, &st, f)))
        goto out;
    e = alloc_array(at[s->count], sizeof *e, f);
    s->ia = alloc_array((size_t)s->count + 1, sizeof *s->ia, f);
    if (!e || !s->ia)
        goto out;
    fill_rows(s, seed, &pm, &st, at, e);
    if (merge_rows(s, e, at, &kept, f))
        goto out;
    free(at);
    at = NULL;
    s->ja = alloc_array(kept, sizeof *s->ja, f);
    s->w = alloc_array(kept, sizeof *s->w, f);
    if (s->ja && s->w)
        for (size_t k = 0; k < kept; k++) {
            s->ja[k] = e[k].col;
            s->w[k] = e[k].w;
        }
out:
    free(e);
    free(at);
    free(st.v);
    return f->code ? -1 : 0;
}

/* Day 0: `initial` distinct people, spread over the population by a stride coprime with n. */
static void seed_infection(struct sim *s, uint64_t seed, long initial)
{
    const uint64_t n = (uint64_t)s->n;
    for (uint64_t i = 0; i < n; i++)
        s->state[i] = SUSCEPTIBLE;
    for (int ii = 0; ii < s->count; ii++)
        s->sick[ii] = 0;
    if (initial == 0)
        return;
    uint64_t start = hash3(seed, TAG_INITIAL, 0, 0) % n;
    uint64_t stride = n > 1 ? 1 + hash3(seed, TAG_INITIAL, 1, 0) % (n - 1) : 1;
    for (;;) {
        uint64_t a = stride, b = n;
        while (b) {
            uint64_t t = a % b;
            a = b;
            b = t;
        }
        if (a == 1)
            break;
        stride = stride % (n - 1) + 1;
    }
    for (uint64_t k = 0; k < (uint64_t)initial; k++)
        s->state[(start + k * stride) % n] = INFECTED;
}

/* What a person will cost tomorrow: their contacts if they spread, the update alone otherwise. */
static void set_weights(struct sim *s)
{
    for (int ii = 0; ii < s->count; ii++)
        s->weight[ii] =
            s->state[s->displ + ii] == INFECTED ? (double)(s->ia[ii + 1] - s->ia[ii]) + ROW_COST : ROW_COST;
}

/* Re-reads every rank's block from the library and rebuilds what depends on it. Returns 1 when
 * the partition changed (the same answer on every rank, since every rank sees the same
 * partition), 0 when not, -1 on a local failure. */
static int refresh(struct sim *s, int first, struct failure *f)
{
    int changed = first;
    if (first)
        for (int r = 0; r < s->nprocs; r++)
            s->counts[r] = s->displs[r] = -1;
    for (int r = 0; r < s->nprocs; r++) {
        int c, d, rc = GET_WSIZE(r, s->nprocs, s->n, &c, &d);
        if (rc != MONITOR_OK) {
            fail(f, EXIT_RUNTIME, "epidemic: rank %d: XMPI_Get_wsize failed: %s\n", s->rank,
                 MONITOR_ERROR_STRING(rc));
            return -1;
        }
        if (c != s->counts[r] || d != s->displs[r])
            changed = 1;
        s->counts[r] = c;
        s->displs[r] = d;
    }
    if (!changed)
        return 0;
    s->count = s->counts[s->rank];
    s->displ = s->displs[s->rank];
    free(s->next);
    free(s->hit);
    free(s->weight);
    s->next = alloc_array((size_t)s->count, 1, f);
    s->hit = calloc(s->count ? (size_t)s->count : 1, 1);
    s->weight = alloc_array((size_t)s->count, sizeof *s->weight, f);
    if (!s->hit)
        fail(f, EXIT_RUNTIME, "epidemic: out of memory (%d bytes)\n", s->count);
    if (f->code)
        return -1;
    /* Blocks may come in any rank order (the API allows it), so owners are looked up by first row. */
    s->nowners = 0;
    for (int r = 0; r < s->nprocs; r++)
        if (s->counts[r] > 0)
            s->who[s->nowners++] = r;
    for (int a = 1; a < s->nowners; a++)
        for (int b = a; b > 0 && s->displs[s->who[b - 1]] > s->displs[s->who[b]]; b--) {
            int t = s->who[b];
            s->who[b] = s->who[b - 1];
            s->who[b - 1] = t;
        }
    for (int k = 0; k < s->nowners; k++)
        s->lo[k] = s->displs[s->who[k]];
    if (s->state) /* not yet at start-up, before the graph exists */
        set_weights(s);
    return 1;
}

static int owner(const struct sim *s, int j)
{
    int a = 0, b = s->nowners - 1;
    while (a < b) {
        int m = (a + b + 1) / 2;
        if (s->lo[m] <= j)
            a = m;
        else
            b = m - 1;
    }
    return s->who[a];
}

/* Every infected person of this block tries each susceptible contact. A contact's fate depends
 * only on (seed, day, infector, contact), so the union of the attempts is the same whatever the
 * partition. Returns the contacts scanned: the day's work on this rank. */
static long long spread(struct sim *s, uint64_t daykey, double beta, struct failure *f)
{
    long long scanned = 0;
    s->nout = 0;
    for (int ii = 0; ii < s->count; ii++) {
        const int i = s->displ + ii;
        if (s->state[i] != INFECTED)
            continue;
        const uint64_t hi = splitmix64(daykey ^ (uint64_t)i);
        const int k0 = s->ia[ii], k1 = s->ia[ii + 1];
        scanned += k1 - k0;
        for (int k = k0; k < k1; k++) {
            const int j = s->ja[k];
            if (s->state[j] != SUSCEPTIBLE || uniform(splitmix64(hi ^ (uint64_t)j)) >= beta * s->w[k])
                continue;
            if ((unsigned)(j - s->displ) < (unsigned)s->count)
                s->hit[j - s->displ] = 1;
            else if (!f->code && reserve((void **)&s->out, &s->capout, s->nout + 1, sizeof *s->out, f) == 0)
                s->out[s->nout++] = j;
        }
    }
    return scanned;
}

/* Hands each infection of another rank's person to its owner. Called by every rank every day,
 * with nothing to send after a local failure, so that nobody waits alone. */
static void exchange(struct sim *s, struct failure *f)
{
    const int p = s->nprocs;
    for (int r = 0; r < p; r++)
        s->sc[r] = 0;
    if (f->code)
        s->nout = 0;
    for (size_t k = 0; k < s->nout; k++)
        s->sc[owner(s, s->out[k])]++;
    s->sd[0] = 0;
    for (int r = 1; r < p; r++)
        s->sd[r] = s->sd[r - 1] + s->sc[r - 1];
    /* Never a NULL buffer, even with nothing to send: not every MPI accepts one. */
    if (reserve((void **)&s->sendbuf, &s->capsend, s->nout + 1, sizeof *s->sendbuf, f))
        for (int r = 0; r < p; r++)
            s->sc[r] = 0;
    else
        for (size_t k = 0; k < s->nout; k++) {
            int r = owner(s, s->out[k]);
            s->sendbuf[s->sd[r]++] = s->out[k];
        }
    for (int r = 0; r < p; r++)
        s->sd[r] -= s->sc[r];
    MPI_Alltoall(s->sc, 1, MPI_INT, s->rc, 1, MPI_INT, COMM);
    size_t total = 0;
    for (int r = 0; r < p; r++) {
        s->rd[r] = (int)total;
        total += (size_t)s->rc[r];
    }
    /* A rank short of memory still takes part, receiving nothing; its failure stops the day. */
    if (reserve((void **)&s->recvbuf, &s->caprecv, total + 1, sizeof *s->recvbuf, f) || total > INT_MAX) {
        fail(f, EXIT_RUNTIME, "epidemic: rank %d: cannot receive %zu infections\n", s->rank, total);
        int *zero = s->rc;
        for (int r = 0; r < p; r++)
            zero[r] = 0;
        total = 0;
    }
    MPI_Alltoallv(s->sendbuf, s->sc, s->sd, MPI_INT, s->recvbuf, s->rc, s->rd, MPI_INT, COMM);
    for (size_t k = 0; k < total; k++)
        s->hit[s->recvbuf[k] - s->displ] = 1;
}

/* Tomorrow's state of this block, the tallies and a partition-independent hash of the states
 * (a sum of per-person hashes). Susceptible people add nothing to the hash: they are what the
 * others are not, and skipping them keeps the update cheap. */
static void update(struct sim *s, long recovery, uint64_t statekey, uint64_t tally[4])
{
    uint64_t t[3] = {0, 0, 0}, h = 0;
    for (int ii = 0; ii < s->count; ii++) {
        const int i = s->displ + ii;
        char st = s->state[i];
        if (st == INFECTED) {
            if (++s->sick[ii] >= recovery)
                st = RECOVERED;
        } else if (st == SUSCEPTIBLE && s->hit[ii]) {
            st = INFECTED;
            s->sick[ii] = 0;
        }
        s->hit[ii] = 0;
        s->next[ii] = st;
        t[(int)st]++;
        if (st != SUSCEPTIBLE)
            h += splitmix64(statekey ^ ((uint64_t)i << 2 | (uint64_t)st));
    }
    tally[0] = t[0];
    tally[1] = t[1];
    tally[2] = t[2];
    tally[3] = h;
}

/* Day 0 counted the same way as the others, without changing anything. */
static void census(const struct sim *s, uint64_t statekey, uint64_t tally[4])
{
    uint64_t t[3] = {0, 0, 0}, h = 0;
    for (int ii = 0; ii < s->count; ii++) {
        const int i = s->displ + ii;
        char st = s->state[i];
        t[(int)st]++;
        if (st != SUSCEPTIBLE)
            h += splitmix64(statekey ^ ((uint64_t)i << 2 | (uint64_t)st));
    }
    tally[0] = t[0];
    tally[1] = t[1];
    tally[2] = t[2];
    tally[3] = h;
}

/* A test partition for --epi-shuffle: random cuts, blocks handed to ranks in a random order,
 * and every other time one empty block, so that movement is exercised in every shape the API
 * allows. The same on every rank. */
static void shuffled_partition(uint64_t seed, int day, int shuffles, int n, int p, int *count, int *displ)
{
    int *cut = malloc(sizeof *cut * (size_t)(p + 1)), *to = malloc(sizeof *to * (size_t)p);
    if (!cut || !to) {
        /* No room for a few ints: keep even blocks, which is still a valid partition. */
        for (int r = 0; r < p; r++)
            even_block(r, p, n, &count[r], &displ[r]);
        free(cut);
        free(to);
        return;
    }
    cut[0] = 0;
    cut[p] = n;
    for (int k = 1; k < p; k++)
        cut[k] = (int)(hash3(seed, TAG_SHUFFLE, (uint64_t)day, (uint64_t)k) % ((uint64_t)n + 1));
    for (int a = 2; a < p; a++)
        for (int b = a; b > 1 && cut[b - 1] > cut[b]; b--) {
            int t = cut[b];
            cut[b] = cut[b - 1];
            cut[b - 1] = t;
        }
    if (shuffles % 2 == 1 && p > 1)
        cut[1] = 0;
    for (int r = 0; r < p; r++)
        to[r] = r;
    for (int r = p - 1; r > 0; r--) {
        int k = (int)(hash3(seed, TAG_SHUFFLE, (uint64_t)day, (uint64_t)(p + r)) % (uint64_t)(r + 1));
        int t = to[r];
        to[r] = to[k];
        to[k] = t;
    }
    for (int b = 0; b < p; b++) {
        count[to[b]] = cut[b + 1] - cut[b];
        displ[to[b]] = cut[b];
    }
    free(cut);
    free(to);
}

static void release(struct sim *s)
{
    free(s->tm.stamp);
    free(s->ia);
    free(s->ja);
    free(s->w);
    free(s->state);
    free(s->sick);
    free(s->next);
    free(s->hit);
    free(s->weight);
    free(s->counts);
    free(s->displs);
    free(s->lo);
    free(s->who);
    free(s->out);
    free(s->sendbuf);
    free(s->recvbuf);
    free(s->sc);
}

/* Rank 0's running account of the epidemic. */
struct history {
    uint64_t checksum;
    uint64_t peak_infected;
    int peak_day;
    uint64_t last[3];
    FILE *csv;
};

static void record(struct history *h, int day, const uint64_t all[5], long verbose)
{
    struct day_record d = {(uint64_t)day, all[0], all[1], all[2], all[4]};
    h->checksum = fnv1a64(h->checksum, &d, sizeof d);
    if (all[1] > h->peak_infected || day == 0) {
        h->peak_infected = all[1];
        h->peak_day = day;
    }
    memcpy(h->last, all, sizeof h->last);
    if (h->csv)
        fprintf(h->csv, "%d,%llu,%llu,%llu,%llu\n", day, (unsigned long long)all[0], (unsigned long long)all[1],
                (unsigned long long)all[2], (unsigned long long)all[3]);
    if (verbose > 0 && day % verbose == 0) {
        printf("epidemic: day %d: S=%llu I=%llu R=%llu work=%llu\n", day, (unsigned long long)all[0],
               (unsigned long long)all[1], (unsigned long long)all[2], (unsigned long long)all[3]);
        fflush(stdout);
    }
}

/* -o: rank 0 opens the CSV and writes its header now, so that a name it cannot write stops the
 * run before it starts. */
static void open_csv(struct history *h, const char *path, struct failure *f)
{
    h->csv = fopen(path, "w");
    if (!h->csv)
        fail(f, EXIT_USAGE, "epidemic: cannot write the CSV file '%s' (-o): %s\n", path, strerror(errno));
    else
        fputs("day,susceptible,infected,recovered,work\n", h->csv);
}

/* The per-rank arrays, the partition, this block's contacts and every person's state, all
 * registered with the library. Returns agree()'s verdict. */
/* The arrays with one entry per rank, for s->nprocs ranks. */
static void per_rank(struct sim *s, struct failure *f)
{
    const size_t p = (size_t)s->nprocs;
    free(s->counts);
    free(s->displs);
    free(s->lo);
    free(s->who);
    free(s->sc);
    s->counts = alloc_array(p, sizeof *s->counts, f);
    s->displs = alloc_array(p, sizeof *s->displs, f);
    s->lo = alloc_array(p, sizeof *s->lo, f);
    s->who = alloc_array(p, sizeof *s->who, f);
    s->sc = alloc_array(4 * p, sizeof *s->sc, f);
    if (s->sc) {
        s->sd = s->sc + p;
        s->rc = s->sc + 2 * p;
        s->rd = s->sc + 3 * p;
    }
}

static int register_data(struct sim *s, struct failure *f)
{
    int rc;
    if ((rc = REGISTER_SPARSE(&s->ia, &s->ja, &s->w, s->n)) != MONITOR_OK ||
        (rc = REGISTER_VECTOR(&s->state, s->n, MPI_CHAR, 1)) != MONITOR_OK ||
        (rc = REGISTER_VECTOR(&s->sick, s->n, MPI_INT, 0)) != MONITOR_OK)
        return fail(f, EXIT_RUNTIME, "epidemic: rank %d: registering the data failed: %s\n", s->rank,
                    MONITOR_ERROR_STRING(rc));
    return 0;
}

static int setup(struct sim *s, const struct options *o, struct failure *f)
{
    s->n = (int)o->people;
    per_rank(s, f);
    if (!f->code)
        refresh(s, 1, f);
    if (!f->code && build_graph(s, o->seed, f) == 0) {
        s->state = alloc_array((size_t)s->n, 1, f);
        s->sick = alloc_array((size_t)s->count, sizeof *s->sick, f);
    }
    if (!f->code)
        register_data(s, f);
    return agree(f, s->rank, s->nprocs);
}

#ifndef XMPI_PLAIN
/* After the job's size changed (-M): rank and size, the per-rank arrays, every block. The
 * processes that XMPI_Eval_reconfig spawned meet this in join(). */
static int resized(struct sim *s, int *status, struct failure *f)
{
    MPI_Comm_rank(COMM, &s->rank);
    MPI_Comm_size(COMM, &s->nprocs);
    per_rank(s, f);
    if (!f->code)
        refresh(s, 1, f);
    return (*status = agree(f, s->rank, s->nprocs));
}

/* A process that -M spawned: the data registered empty, its people and the day it resumes
 * after, collectively with the parents' XMPI_Eval_reconfig. It builds no graph. */
static int join(struct sim *s, const struct options *o, int *done, int *status, struct failure *f)
{
    s->n = (int)o->people;
    register_data(s, f);
    int rc = XMPI_Get_data(done);
    if (rc)
        fail(f, EXIT_RUNTIME, "epidemic: XMPI_Get_data failed: %s\n", XMPI_Error_string(rc));
    return resized(s, status, f);
}
#define JOINING() (XMPI_Get_process_status() == XMPI_NEWLY_SPAWNED)
#else
static int join(struct sim *s, const struct options *o, int *done, int *status, struct failure *f)
{
    (void)s, (void)o, (void)done, (void)status;
    return fail(f, EXIT_RUNTIME, "epidemic: the plain build cannot be spawned\n");
}
#define JOINING() 0
#endif

/* Day 0: the graph's size and degrees in rank 0's first line, and the first census. Returns the
 * number of contacts. */
static uint64_t day_zero(struct sim *s, const struct options *o, struct history *hist)
{
    uint64_t mine[6], all[6];
    long long nnz = s->ia[s->count], maxdeg = 0, nnzall, maxdegall;
    for (int ii = 0; ii < s->count; ii++)
        if (s->ia[ii + 1] - s->ia[ii] > maxdeg)
            maxdeg = s->ia[ii + 1] - s->ia[ii];
    MPI_Allreduce(&nnz, &nnzall, 1, MPI_LONG_LONG, MPI_SUM, COMM);
    MPI_Allreduce(&maxdeg, &maxdegall, 1, MPI_LONG_LONG, MPI_MAX, COMM);
    const uint64_t edges = (uint64_t)nnzall / 2; /* every contact is stored at both ends */
    census(s, splitmix64(hash3(o->seed, TAG_STATE, 0, 0) ^ 0), mine);
    mine[4] = mine[3];
    mine[3] = 0;
    mine[5] = 0;
    MPI_Allreduce(mine, all, 6, MPI_UINT64_T, MPI_SUM, COMM);
    if (s->rank == 0) {
        printf("epidemic: people %d, contacts %llu (mean degree %.2f, max %lld), days %ld, ranks %d, seed %llu, "
               "beta %g, recovery %ld days, initial %ld, library %s\n",
               s->n, (unsigned long long)edges, (double)nnzall / s->n, maxdegall, o->days, s->nprocs,
               (unsigned long long)o->seed, o->beta, o->recovery, o->initial, LIBRARY_NAME);
        fflush(stdout);
        record(hist, 0, all, o->verbose);
    }
    return edges;
}

/* One day on every rank: infections spread and are handed to their owners, states update and
 * are shared; rank 0 records the day. Returns whether any rank failed (nothing recorded then). */
static int one_day(struct sim *s, const struct options *o, int day, struct history *hist, int *warned,
                   struct failure *f)
{
    const uint64_t daykeys = hash3(o->seed, TAG_DAY, 0, 0), statekeys = hash3(o->seed, TAG_STATE, 0, 0);
    uint64_t mine[6], all[6];
    long long scanned = spread(s, splitmix64(daykeys ^ (uint64_t)day), o->beta, f);
    exchange(s, f);
    update(s, o->recovery, splitmix64(statekeys ^ (uint64_t)day), mine);
    MPI_Allgatherv(s->next, s->count, MPI_CHAR, s->state, s->counts, s->displs, MPI_CHAR, COMM);
    monitor_check(MONITOR_ADD_WORK((double)scanned), "XMPI_Monitor_add_work", s->rank, f, warned);
    /* One reduction carries the day's numbers and whether any rank failed. */
    mine[4] = mine[3];
    mine[3] = (uint64_t)scanned;
    mine[5] = f->code ? 1 : 0;
    MPI_Allreduce(mine, all, 6, MPI_UINT64_T, MPI_SUM, COMM);
    if (all[5])
        return 1;
    if (s->rank == 0)
        record(hist, day, all, o->verbose);
    return 0;
}

/* After a day: the load balancer, --epi-shuffle's test move, the partition re-read. Returns 0
 * to go on, else to stop (every rank alike), with *status set when the stop was agreed here. */
static int move_after_day(struct sim *s, const struct options *o, int day, int *shuffles, int *status,
                          int *left, struct failure *f)
{
    set_weights(s);
    /* weight[]: the work each of this rank's people will cause tomorrow (the weight policy). */
    int count = s->count, displ = s->displ, rc = MONITOR_OK;
#ifndef XMPI_PLAIN
    if (o->dynamic) {
        const int before = s->nprocs;
        rc = XMPI_Eval_reconfig(s->rank, s->nprocs, day - 1, (int)o->days, &count, &displ, s->weight, NULL, NULL);
        if (rc == MONITOR_OK && XMPI_Get_process_status() == XMPI_REMOVED)
            return (*left = 1);
        int size;
        MPI_Comm_size(COMM, &size);
        if (size != before) {
            if (resized(s, status, f))
                return 1;
            announce(s->rank, day, before, size);
        }
    }
#else
    (void)left;
#endif
    if (!o->dynamic)
        rc = balance_rows(o->balance, day, (int)o->days, &count, &displ, s->weight);
    if (rc == MONITOR_OK && o->shuffle && day % o->shuffle == 0 && day < o->days) {
        int *nc = s->rc, *nd = s->rd; /* free between days */
        shuffled_partition(o->seed, day, (*shuffles)++, s->n, s->nprocs, nc, nd);
        rc = REDISTRIBUTE(s->count, s->displ, nc[s->rank], nd[s->rank]);
    }
    if (rc != MONITOR_OK) {
        fail(f, EXIT_RUNTIME, "epidemic: moving the data after day %d failed: %s\n", day,
             MONITOR_ERROR_STRING(rc));
        return 1; /* every rank got the same code, so every rank leaves here */
    }
    /* The partition is the same on every rank, so all of them agree here or none does. */
    return refresh(s, 0, f) != 0 && (*status = agree(f, s->rank, s->nprocs));
}

/* Days 1 to -d, each a monitored iteration, until a failure. Returns the last day done. */
static int run_days(struct sim *s, const struct options *o, struct history *hist, int first, int *began,
                    int *warned, int *status, int *left, struct failure *f)
{
    int done_days = first, shuffles = 0;
    for (int day = first + 1; day <= o->days; day++) {
        monitor_check(MONITOR_SI_INIT(), "XMPI_Monitor_si_init", s->rank, f, warned);
        *began = 1;
        if (one_day(s, o, day, hist, warned, f))
            break;
        done_days = day;
        timed_stamp(&s->tm, MPI_Wtime() - s->t0);
        /* -M: XMPI_Eval_reconfig ends the day's monitored iteration. */
        *began = !o->dynamic;
        if (move_after_day(s, o, day, &shuffles, status, left, f))
            break;
    }
    return done_days;
}

/* Rank 0's end: the CSV closed, a write error failing the run, and the result line. Returns
 * the exit status. */
static int report(const struct sim *s, const struct options *o, struct history *hist, uint64_t edges,
                  int done_days, double elapsed)
{
    if (hist->csv) {
        int bad = ferror(hist->csv);
        bad |= fclose(hist->csv) != 0;
        hist->csv = NULL;
        if (bad) {
            fprintf(stderr, "epidemic: writing the CSV file '%s' (-o) failed\n", o->out);
            return EXIT_RUNTIME;
        }
    }
    printf("result: people=%d edges=%llu days=%d ranks=%d susceptible=%llu infected=%llu recovered=%llu "
           "peak_day=%d peak_infected=%llu checksum=%016llx time=%.6f day_time=%.6f\n",
           s->n, (unsigned long long)edges, done_days, s->nprocs, (unsigned long long)hist->last[0],
           (unsigned long long)hist->last[1], (unsigned long long)hist->last[2], hist->peak_day,
           (unsigned long long)hist->peak_infected, (unsigned long long)hist->checksum, elapsed,
           done_days ? elapsed / done_days : 0.0);
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nprocs;
    MPI_Comm_rank(COMM, &rank);
    MPI_Comm_size(COMM, &nprocs);

    struct options opt;
    struct failure f = {0};
    struct sim s = {.rank = rank, .nprocs = nprocs};
    struct history hist = {.checksum = FNV1A64_BASIS};
    int status = 0;

    int warned = 0, began = 0, left = 0, first = 0;
    uint64_t edges = 0;
    double t0 = MPI_Wtime();   /* a spawned process's clock; the others restart it below */
    parse_options(argc, argv, &opt, &f);
    if (JOINING()) {
        /* Started by -M: the parents accepted these options and wait for it in XMPI_Eval_reconfig;
         * it is never rank 0, which alone keeps the history and prints the result. */
        if (join(&s, &opt, &first, &status, &f))
            goto done;
        timed_prepare(&s.tm, opt.days - first);
        timed_start(&s.tm);
    } else {
        if (stop_after_options(&f, rank, nprocs, opt.help, usage, &status))
            goto done;
        if (rank == 0 && opt.out)
            open_csv(&hist, opt.out, &f);
        if ((status = agree(&f, rank, nprocs)) || (status = setup(&s, &opt, &f)))
            goto done;

        seed_infection(&s, opt.seed, opt.initial);
        set_weights(&s);
        edges = day_zero(&s, &opt, &hist);
        timed_prepare(&s.tm, opt.days);
        MPI_Barrier(COMM);
        t0 = MPI_Wtime();
        timed_start(&s.tm);
    }
    s.t0 = t0;
    const int done_days = run_days(&s, &opt, &hist, first, &began, &warned, &status, &left, &f);
    /* A removed process is no member of XMPI_COMM_WORLD any more: nothing to report. */
    if (left)
        goto done;
    rank = s.rank;
    nprocs = s.nprocs;
    if (began) /* with -d 0 no day began, and there is nothing to end */
        monitor_check(MONITOR_END(), "XMPI_Monitor_iter_end", rank, &f, &warned);
    double elapsed, mine_t = MPI_Wtime() - t0;
    if (status || (status = elapsed_agreed(t0, &f, rank, nprocs, &elapsed)))
        goto done;
    timed_report(&s.tm, mine_t, rank, nprocs, NULL);
    if (rank == 0)
        status = report(&s, &opt, &hist, edges, done_days, elapsed);

done:
    if (hist.csv)
        fclose(hist.csv);
    release(&s);
    MPI_Finalize();
    return status;
}
