/* The AMP mapping (policies/mapping.c, GLPK's glp_intopt) against brute force: every vector
 * 0 <= x_i <= avail_i with sum n is enumerated on random small pools, and the solver must
 * reach the same first objective and the same tie-break value for all four (action,
 * constraint) pairs, and say INFEASIBLE exactly when no vector meets the need; likewise
 * xmpi_map_best over every n. Then hand-made cases (the thesis's idea, infeasible,
 * degenerate, bad input) with answers worked out by hand. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glpk.h>

#include "../../policies/mapping.h"
#include "errbuf.h"
#include "rng.h"
#include "suites.h"

#define MAXK 8
#define MAXAVAIL 4

/* ---- the reference: enumeration ---- */

struct vec { int x[MAXK]; int n; double power, cost; };

struct pool {
    int k;
    struct xmpi_map_slot s[MAXK];
};

static struct vec *vecs;
static size_t nvecs, capvecs;

static void push(const struct pool *p, const int *x)
{
    if (nvecs == capvecs) {
        capvecs = capvecs ? 2 * capvecs : 4096;
        vecs = realloc(vecs, capvecs * sizeof *vecs);
        ck_assert_ptr_nonnull(vecs);
    }
    struct vec *v = &vecs[nvecs++];
    memset(v, 0, sizeof *v);
    for (int i = 0; i < p->k; i++) {
        v->x[i] = x[i];
        v->n += x[i];
        v->power += x[i] * p->s[i].power;
        v->cost += x[i] * p->s[i].cost;
    }
}

/* Every vector with lo <= sum <= hi. */
static void enumerate_rec(const struct pool *p, int i, int *x, int sum, int lo, int hi)
{
    if (i == p->k) {
        if (sum >= lo) push(p, x);
        return;
    }
    for (int v = 0; v <= p->s[i].avail && sum + v <= hi; v++) {
        x[i] = v;
        enumerate_rec(p, i + 1, x, sum + v, lo, hi);
    }
    x[i] = 0;
}

static void enumerate(const struct pool *p, int lo, int hi)
{
    int x[MAXK] = {0};
    nvecs = 0;
    enumerate_rec(p, 0, x, 0, lo, hi);
}

static double pscale_of(const struct pool *p)
{
    double m = 0;
    for (int i = 0; i < p->k; i++) m = fmax(m, p->s[i].power);
    return m;
}

static double cscale_of(const struct pool *p)
{
    double m = 0;
    for (int i = 0; i < p->k; i++) m = fmax(m, p->s[i].cost);
    return m > 0 ? m : 1;
}

static int feasible(enum xmpi_map_action a, const struct vec *v, double need)
{
    return a == XMPIR_MAP_SPAWN ? v->power >= need : v->power <= need;
}

/* The objectives as mapping.h states them, written out per pair. */
static double primary(enum xmpi_map_action a, enum xmpi_map_constraint c, const struct vec *v)
{
    (void)a;
    return c == XMPIR_MAP_EFFICIENCY ? v->power : v->cost;
}

static double secondary(enum xmpi_map_action a, enum xmpi_map_constraint c, const struct vec *v)
{
    (void)a;
    return c == XMPIR_MAP_EFFICIENCY ? v->cost : v->power;
}

/* Is a better than b, for an objective that spawn minimises and remove maximises? */
static int improves(enum xmpi_map_action a, double x, double best)
{
    return a == XMPIR_MAP_SPAWN ? x < best : x > best;
}

struct ref { int found; int n; double first, second; };

/* The lexicographic optimum among the enumerated vectors that meet the need and whose n
 * passes `keep_n` (-1: any). Ties within XMPIR_MAP_TIE of the scale. */
static struct ref reference(const struct pool *p, enum xmpi_map_action a,
                            enum xmpi_map_constraint c, double need, int keep_n)
{
    struct ref r = {0, -1, 0, 0};
    double s1 = c == XMPIR_MAP_EFFICIENCY ? pscale_of(p) : cscale_of(p);
    for (size_t i = 0; i < nvecs; i++) {
        const struct vec *v = &vecs[i];
        if ((keep_n >= 0 && v->n != keep_n) || !feasible(a, v, need)) continue;
        double f = primary(a, c, v);
        if (!r.found || improves(a, f, r.first)) r.first = f;
        r.found = 1;
    }
    if (!r.found) return r;
    int have2 = 0;
    for (size_t i = 0; i < nvecs; i++) {
        const struct vec *v = &vecs[i];
        if ((keep_n >= 0 && v->n != keep_n) || !feasible(a, v, need)) continue;
        if (fabs(primary(a, c, v) - r.first) > XMPIR_MAP_TIE * s1) continue;
        double g = secondary(a, c, v);
        if (!have2 || improves(a, g, r.second)) r.second = g;
        have2 = 1;
    }
    r.n = keep_n;
    return r;
}

/* The solver's answer is a real choice: within avail, n processes, totals that add up, and
 * meeting the need. */
static void assert_choice(const struct pool *p, enum xmpi_map_action a, double need,
                          const int *count, const struct xmpi_map_result *res, int n)
{
    int sum = 0;
    double pw = 0, co = 0;
    for (int i = 0; i < p->k; i++) {
        ck_assert_int_ge(count[i], 0);
        ck_assert_int_le(count[i], p->s[i].avail);
        sum += count[i];
        pw += count[i] * p->s[i].power;
        co += count[i] * p->s[i].cost;
    }
    ck_assert_int_eq(sum, n);
    ck_assert_int_eq(res->n, n);
    ck_assert_msg(fabs(res->power - pw) <= 1e-12 * pscale_of(p) * (n + 1), "power %.17g vs %.17g",
                  res->power, pw);
    ck_assert_msg(fabs(res->cost - co) <= 1e-12 * cscale_of(p) * (n + 1), "cost %.17g vs %.17g",
                  res->cost, co);
    ck_assert_msg(a == XMPIR_MAP_SPAWN ? pw >= need : pw <= need,
                  "%s: power %.17g does not meet need %.17g", a == XMPIR_MAP_SPAWN ? "spawn" : "remove",
                  pw, need);
}

static void assert_same(const char *what, double got, double want, double scale)
{
    ck_assert_msg(fabs(got - want) <= 2 * XMPIR_MAP_TIE * scale, "%s: got %.17g, brute force %.17g",
                  what, got, want);
}

/* ---- random pools ---- */

/* Mode 0: continuous powers and costs (ties rare); mode 1: small whole numbers (ties
 * everywhere, sums exact, needs sometimes met exactly). */
static void random_pool(uint64_t *rs, struct pool *p, int mode)
{
    p->k = 1 + (int)(rng_next(rs) % MAXK);
    for (int i = 0; i < p->k; i++) {
        p->s[i].avail = (int)(rng_next(rs) % (MAXAVAIL + 1));
        if (mode == 0) {
            p->s[i].power = 0.1 + 10 * rng_unit(rs);
            p->s[i].cost = (rng_next(rs) % 8 == 0) ? 0 : 5 * rng_unit(rs);
        } else {
            p->s[i].power = 1 + (double)(rng_next(rs) % 3);
            p->s[i].cost = (double)(rng_next(rs) % 3);
        }
    }
}

/* A need around what n processes can give: between the least and the most (and a little
 * outside), so that both feasible and infeasible cases come up. */
static double random_need(uint64_t *rs, const struct pool *p, int n, int mode)
{
    double lo = 0, hi = 0;
    for (size_t i = 0; i < nvecs; i++) {
        if (vecs[i].n != n) continue;
        if (hi == 0 || vecs[i].power > hi) hi = vecs[i].power;
        if (lo == 0 || vecs[i].power < lo) lo = vecs[i].power;
    }
    if (hi == 0) hi = pscale_of(p) * (n + 1);
    double span = hi - lo + 1;
    double need = lo - 0.2 * span + 1.4 * span * rng_unit(rs);
    if (rng_next(rs) % 16 == 0) need = -need;
    return mode == 1 ? floor(need) : need;
}

static long long total(const struct pool *p)
{
    long long t = 0;
    for (int i = 0; i < p->k; i++) t += p->s[i].avail;
    return t;
}

/* One random case: a pool, n up to its total + 1 (the vectors of n enumerated) and a need
 * around what n processes give. */
static void random_case(uint64_t *rs, int mode, struct pool *p, int *n, double *need)
{
    random_pool(rs, p, mode);
    *n = (int)(rng_next(rs) % (uint64_t)(total(p) + 2));
    enumerate(p, *n, *n);
    *need = random_need(rs, p, *n, mode);
}

static const enum xmpi_map_action actions[] = {XMPIR_MAP_SPAWN, XMPIR_MAP_REMOVE};
static const enum xmpi_map_constraint constraints[] = {XMPIR_MAP_EFFICIENCY, XMPIR_MAP_COST};

#define LOOPS 10
#define CASES_PER_LOOP 50


/* One pool and one n per case, all four pairs. */
START_TEST(test_solve_matches_brute_force)
{
    uint64_t rs = 0x6d617070ULL * 1000003ULL + (uint64_t)_i;
    for (int c = 0; c < CASES_PER_LOOP; c++) {
        struct pool p;
        int n;
        double need;
        random_case(&rs, c & 1, &p, &n, &need);
        for (int ai = 0; ai < 2; ai++)
            for (int ci = 0; ci < 2; ci++) {
                enum xmpi_map_action a = actions[ai];
                enum xmpi_map_constraint k = constraints[ci];
                int count[MAXK];
                struct xmpi_map_result res;
                enum xmpi_map_status st =
                    xmpi_map_solve(a, k, p.s, p.k, n, need, count, &res, err, sizeof err);
                struct ref r = reference(&p, a, k, need, n);
                ck_assert_msg(st == (r.found ? XMPIR_MAP_OK : XMPIR_MAP_INFEASIBLE),
                              "loop %d case %d action %d constraint %d n %d need %.17g: status "
                              "%d, brute force %s (%s)", _i, c, a, k, n, need, st,
                              r.found ? "feasible" : "infeasible", err);
                if (!r.found) {
                    ck_assert_msg(err[0] != '\0', "an infeasible answer explains itself");
                    for (int i = 0; i < p.k; i++) ck_assert_int_eq(count[i], 0);
                    continue;
                }
                assert_choice(&p, a, need, count, &res, n);
                struct vec got;
                memset(&got, 0, sizeof got);
                got.power = res.power;
                got.cost = res.cost;
                double s1 = k == XMPIR_MAP_EFFICIENCY ? pscale_of(&p) : cscale_of(&p);
                double s2 = k == XMPIR_MAP_EFFICIENCY ? cscale_of(&p) : pscale_of(&p);
                assert_same("first objective", primary(a, k, &got), r.first, s1);
                assert_same("tie-break", secondary(a, k, &got), r.second, s2);
            }
    }
}
END_TEST

/* xmpi_map_best over n = 0..max_n against the enumeration of every vector of at most max_n
 * processes, judged by mapping.h's rules for each pair. */
START_TEST(test_best_matches_brute_force)
{
    uint64_t rs = 0x62657374ULL * 7919ULL + (uint64_t)_i;
    for (int c = 0; c < CASES_PER_LOOP / 2; c++) {
        struct pool p;
        int mode = c & 1;
        random_pool(&rs, &p, mode);
        int max_n = (int)(rng_next(&rs) % (uint64_t)(total(&p) + 2));
        int top = max_n < total(&p) ? max_n : (int)total(&p);
        enumerate(&p, 0, top);
        double need = random_need(&rs, &p, 1 + (int)(rng_next(&rs) % (uint64_t)(top + 1)), mode);
        for (int ai = 0; ai < 2; ai++)
            for (int ci = 0; ci < 2; ci++) {
                enum xmpi_map_action a = actions[ai];
                enum xmpi_map_constraint k = constraints[ci];
                int count[MAXK];
                struct xmpi_map_result res;
                enum xmpi_map_status st =
                    xmpi_map_best(a, k, p.s, p.k, max_n, need, count, &res, err, sizeof err);
                /* The reference answer. */
                int want_found = 0, want_n = -1;
                double want_first = 0, want_second = 0;
                if (k == XMPIR_MAP_EFFICIENCY) {
                    /* The smallest (spawn) or largest (remove) n with a feasible vector, then
                     * that n's lexicographic optimum. */
                    for (size_t i = 0; i < nvecs; i++) {
                        if (!feasible(a, &vecs[i], need)) continue;
                        if (!want_found || (a == XMPIR_MAP_SPAWN ? vecs[i].n < want_n
                                                                 : vecs[i].n > want_n))
                            want_n = vecs[i].n;
                        want_found = 1;
                    }
                    if (want_found) {
                        struct ref r = reference(&p, a, k, need, want_n);
                        want_first = r.first;
                        want_second = r.second;
                    }
                } else {
                    /* Over every vector: cost first, power second (both within the tie
                     * tolerance), then the fewest (spawn) or most (remove) processes. */
                    struct ref r = reference(&p, a, k, need, -1);
                    want_found = r.found;
                    if (want_found) {
                        want_first = r.first;
                        want_second = r.second;
                        for (size_t i = 0; i < nvecs; i++) {
                            const struct vec *v = &vecs[i];
                            if (!feasible(a, v, need) ||
                                fabs(v->cost - r.first) > XMPIR_MAP_TIE * cscale_of(&p) ||
                                fabs(v->power - r.second) > XMPIR_MAP_TIE * pscale_of(&p))
                                continue;
                            if (want_n < 0 || (a == XMPIR_MAP_SPAWN ? v->n < want_n : v->n > want_n))
                                want_n = v->n;
                        }
                    }
                }
                ck_assert_msg(st == (want_found ? XMPIR_MAP_OK : XMPIR_MAP_INFEASIBLE),
                              "loop %d case %d action %d constraint %d max_n %d need %.17g: "
                              "status %d, brute force %s (%s)", _i, c, a, k, max_n, need, st,
                              want_found ? "feasible" : "infeasible", err);
                if (!want_found) {
                    ck_assert_msg(err[0] != '\0', "an infeasible answer explains itself");
                    continue;
                }
                assert_choice(&p, a, need, count, &res, res.n);
                ck_assert_msg(res.n == want_n, "action %d constraint %d: n %d, brute force %d",
                              a, k, res.n, want_n);
                struct vec got;
                memset(&got, 0, sizeof got);
                got.power = res.power;
                got.cost = res.cost;
                double s1 = k == XMPIR_MAP_EFFICIENCY ? pscale_of(&p) : cscale_of(&p);
                double s2 = k == XMPIR_MAP_EFFICIENCY ? cscale_of(&p) : pscale_of(&p);
                assert_same("first objective", primary(a, k, &got), want_first, s1);
                assert_same("tie-break", secondary(a, k, &got), want_second, s2);
            }
    }
}
END_TEST

/* The random cases above must have exercised both outcomes, or they prove little. Run in
 * one process (the loop tests fork): counts the outcomes over the first loops' seeds. */
START_TEST(test_random_cases_cover_both_outcomes)
{
    int infeasible_seen = 0, ok_seen = 0;
    for (int loop = 0; loop < 3; loop++) {
        uint64_t rs = 0x6d617070ULL * 1000003ULL + (uint64_t)loop;
        for (int c = 0; c < CASES_PER_LOOP; c++) {
            struct pool p;
            int n;
            double need;
            random_case(&rs, c & 1, &p, &n, &need);
            for (int ai = 0; ai < 2; ai++) {
                struct ref r = reference(&p, actions[ai], XMPIR_MAP_COST, need, n);
                if (r.found) ok_seen++;
                else infeasible_seen++;
            }
        }
    }
    ck_assert_msg(ok_seen > 50 && infeasible_seen > 30, "feasible %d, infeasible %d", ok_seen,
                  infeasible_seen);
}
END_TEST

/* ---- the cost bound and the first objective alone ---- */

/* The linear relaxation of the cost problem by GLPK's exact simplex (an independent solver): min
 * (spawn) or max (remove) cost, sum x = n, power >= need - slack (spawn) or <= need + slack
 * (remove), 0 <= x <= avail real. 1 with *opt, 0 when it has no solution. */
static int relaxation(const struct pool *p, enum xmpi_map_action a, int n, double need,
                      double *opt)
{
    double slack = XMPIR_MAP_TIE * pscale_of(p);
    glp_prob *lp = glp_create_prob();
    glp_set_obj_dir(lp, a == XMPIR_MAP_SPAWN ? GLP_MIN : GLP_MAX);
    glp_add_rows(lp, 2);
    glp_set_row_bnds(lp, 1, GLP_FX, n, n);
    if (a == XMPIR_MAP_SPAWN) glp_set_row_bnds(lp, 2, GLP_LO, need - slack, 0);
    else glp_set_row_bnds(lp, 2, GLP_UP, 0, need + slack);
    glp_add_cols(lp, p->k);
    int ia[2 * MAXK + 1], ja[2 * MAXK + 1], ne = 0;
    double ar[2 * MAXK + 1];
    for (int i = 0; i < p->k; i++) {
        glp_set_col_bnds(lp, i + 1, p->s[i].avail ? GLP_DB : GLP_FX, 0, p->s[i].avail);
        glp_set_obj_coef(lp, i + 1, p->s[i].cost);
        ne++, ia[ne] = 1, ja[ne] = i + 1, ar[ne] = 1;
        ne++, ia[ne] = 2, ja[ne] = i + 1, ar[ne] = p->s[i].power;
    }
    glp_load_matrix(lp, ne, ia, ja, ar);
    glp_smcp parm;
    glp_init_smcp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    /* In rational arithmetic (glp_exact): the floating simplex's own tolerances put its
     * optimum up to 1e-8 off, more than the bound is allowed. */
    glp_std_basis(lp);
    int rc = glp_exact(lp, &parm), ok = rc == 0 && glp_get_status(lp) == GLP_OPT;
    if (ok) *opt = glp_get_obj_val(lp);
    glp_delete_prob(lp);
    return ok;
}

/* xmpi_map_cost_bound is the relaxation's optimum (to 1e-7 of the cost scale per process),
 * never on the wrong side of it nor of the integer optimum, and says INFEASIBLE only where
 * the relaxation has no solution; xmpi_map_solve_first reaches the brute-force first
 * objective of the cost constraint with a real choice. */
START_TEST(test_cost_bound_is_the_relaxation)
{
    uint64_t rs = 0x626f756eULL * 104729ULL + (uint64_t)_i;
    int seen_ok = 0, seen_inf = 0;
    for (int c = 0; c < CASES_PER_LOOP; c++) {
        struct pool p;
        int n;
        double need;
        random_case(&rs, c & 1, &p, &n, &need);
        double cs = cscale_of(&p);
        for (int ai = 0; ai < 2; ai++) {
            enum xmpi_map_action a = actions[ai];
            double bound = 0, lp = 0;
            enum xmpi_map_status st = xmpi_map_cost_bound(a, p.s, p.k, n, need, &bound, err,
                                                          sizeof err);
            int has_lp = n <= total(&p) && relaxation(&p, a, n, need, &lp);
            struct ref r = reference(&p, a, XMPIR_MAP_COST, need, n);
            const char *what = a == XMPIR_MAP_SPAWN ? "spawn" : "remove";
            if (st == XMPIR_MAP_INFEASIBLE) {
                seen_inf++;
                ck_assert_msg(!has_lp, "loop %d case %d %s n %d need %.17g: the bound says "
                              "infeasible, the relaxation has optimum %.17g", _i, c, what, n,
                              need, lp);
                ck_assert_msg(!r.found, "infeasible bound, feasible integer choice");
                ck_assert_msg(err[0] != '\0', "an infeasible answer explains itself");
                continue;
            }
            ck_assert_int_eq(st, XMPIR_MAP_OK);
            seen_ok++;
            ck_assert_msg(has_lp, "loop %d case %d %s n %d need %.17g: a bound %.17g where the "
                          "relaxation has no solution", _i, c, what, n, need, bound);
            double sign = a == XMPIR_MAP_SPAWN ? 1 : -1, eps = 1e-7 * cs * (n + 1);
            /* GLPK's exact simplex was itself seen 4e-10 below the relaxation's optimum (a
             * pool of 4 where the optimum, worked out in rational arithmetic, was
             * 3.320915381171226 and the bound 1e-12 below it), so against it 1e-9; against
             * the integer optimum, which pruning compares with, the bound's own margin. */
            ck_assert_msg(sign * (bound - lp) <= 1e-9 * cs * (n + 1),
                          "%s n %d: bound %.17g beyond the relaxation's %.17g", what, n, bound, lp);
            ck_assert_msg(fabs(bound - lp) <= eps, "%s n %d: bound %.17g, relaxation %.17g",
                          what, n, bound, lp);
            if (!r.found) continue;
            ck_assert_msg(sign * (bound - r.first) <= 1e-12 * cs * (n + 1),
                          "%s n %d: bound %.17g beyond the integer optimum %.17g", what, n,
                          bound, r.first);
            int count[MAXK];
            struct xmpi_map_result res;
            ck_assert_int_eq(xmpi_map_solve_first(a, XMPIR_MAP_COST, p.s, p.k, n, need, count,
                                                  &res, err, sizeof err),
                             XMPIR_MAP_OK);
            assert_choice(&p, a, need, count, &res, n);
            assert_same("first objective alone", res.cost, r.first, cs);
        }
    }
    ck_assert_msg(seen_ok > 10 && seen_inf > 5, "bounds %d, infeasible %d", seen_ok, seen_inf);
}
END_TEST

START_TEST(test_cost_bound_hand_made)
{
    double b = -1;
    /* two_classes is below: {4 of power 4, cost 3}, {8 of power 1, cost 0.5}. A need of 7
     * with 4 processes: x fast + (4 - x) slow >= 7 with 4x + 4 - x >= 7, x >= 1 fractional
     * optimum x = 1: cost 3 + 1.5 = 4.5 (integral here; the tolerance: the need is taken
     * 4e-9 lower, as xmpi_map_solve accepts it). */
    static const struct xmpi_map_slot tc[] = {{4, 4.0, 3.0}, {8, 1.0, 0.5}};
    ck_assert_int_eq(xmpi_map_cost_bound(XMPIR_MAP_SPAWN, tc, 2, 4, 7, &b, err, sizeof err),
                     XMPIR_MAP_OK);
    ck_assert_msg(fabs(b - 4.5) < 1e-7, "bound %.17g", b);
    /* A need of 8.5: 3x >= 4.5, x = 1.5, cost 4.5 + 1.25 = 5.75; the integer optimum is
     * x = 2: 6 + 1 = 7. The bound is the relaxation's, below it. */
    ck_assert_int_eq(xmpi_map_cost_bound(XMPIR_MAP_SPAWN, tc, 2, 4, 8.5, &b, err, sizeof err),
                     XMPIR_MAP_OK);
    ck_assert_msg(fabs(b - 5.75) < 1e-7, "bound %.17g", b);
    /* A need below what the cheapest give: the 4 cheapest, 2. */
    ck_assert_int_eq(xmpi_map_cost_bound(XMPIR_MAP_SPAWN, tc, 2, 4, 1, &b, err, sizeof err),
                     XMPIR_MAP_OK);
    ck_assert_msg(fabs(b - 2) < 1e-12, "bound %.17g", b);
    /* Removal of 3 with at most 5.5 of power leaving: x fast, 3x + 3 <= 5.5, x <= 5/6:
     * cost 3 (5/6) + 0.5 (3 - 5/6) = 3.58333... (the tolerances: the need moves by 4e-9). */
    ck_assert_int_eq(xmpi_map_cost_bound(XMPIR_MAP_REMOVE, tc, 2, 3, 5.5, &b, err, sizeof err),
                     XMPIR_MAP_OK);
    ck_assert_msg(fabs(b - (2.5 + 0.5 * (3 - 5.0 / 6))) < 1e-7, "bound %.17g", b);
    /* Infeasible: 2 processes give at most 8; and more processes than there are. */
    ck_assert_int_eq(xmpi_map_cost_bound(XMPIR_MAP_SPAWN, tc, 2, 2, 9, &b, err, sizeof err),
                     XMPIR_MAP_INFEASIBLE);
    ck_assert_msg(strstr(err, "at most 8") != NULL, "%s", err);
    ck_assert_int_eq(xmpi_map_cost_bound(XMPIR_MAP_SPAWN, tc, 2, 13, 1, &b, err, sizeof err),
                     XMPIR_MAP_INFEASIBLE);
    ck_assert_int_eq(xmpi_map_cost_bound(XMPIR_MAP_REMOVE, tc, 2, 2, 1.5, &b, err, sizeof err),
                     XMPIR_MAP_INFEASIBLE);
    /* Bad input, as xmpi_map_solve. */
    ck_assert_int_eq(xmpi_map_cost_bound(XMPIR_MAP_SPAWN, tc, 2, -1, 1, &b, err, sizeof err),
                     XMPIR_MAP_EINPUT);
    ck_assert_int_eq(xmpi_map_cost_bound(XMPIR_MAP_SPAWN, tc, 2, 1, NAN, &b, err, sizeof err),
                     XMPIR_MAP_EINPUT);
    ck_assert_int_eq(xmpi_map_cost_bound(XMPIR_MAP_SPAWN, tc, 2, 1, 1, NULL, err, sizeof err),
                     XMPIR_MAP_EINPUT);
    static const struct xmpi_map_slot bad[] = {{1, 0, 1}};
    ck_assert_int_eq(xmpi_map_cost_bound(XMPIR_MAP_SPAWN, bad, 1, 1, 0, &b, err, sizeof err),
                     XMPIR_MAP_EINPUT);
}
END_TEST

/* Three mappings that AMP's random 8-class pools (xmpi-ampdecide's, seed 3) met, where
 * GLPK's default integrality tolerance (1e-5) returned a column at 0.99999 as 1 and the
 * rounded choice missed the need by 5e-7 of the largest power (ESOLVER, and the whole AMP
 * decision failed): each must now be solved, to the brute-force optimum. */
START_TEST(test_integrality_tolerance_cases)
{
    static const struct { enum xmpi_map_action a; int n; double need; struct xmpi_map_slot s[8]; }
    cases[] = {
        {XMPIR_MAP_SPAWN, 16, 0x1.67df0644450b7p+5,
         {{4, 0x1.6c56117a3fdc7p+0, 0x1.f87174a74e6a3p+0}, {6, 0x1.64f0840b2d1b3p+1, 0x1.5064ca07f6bedp+2},
          {4, 0x1.80a3557a6cc6ap+1, 0x1.77235a0009ca1p+2}, {6, 0x1.ce1327688cc16p+1, 0x1.ea36950a553p+2},
          {1, 0x1.789fbece7b047p+0, 0x1.08b98e16e3d46p+1}, {4, 0x1.20665dc7896b7p+1, 0x1.ecf555c33e03ap+1},
          {1, 0x1.20ad9ab1bfcd4p+2, 0x1.5331f941237b9p+3}, {8, 0x1.e4c64607a208bp+1, 0x1.06ddb131a2fddp+3}}},
        {XMPIR_MAP_SPAWN, 15, 0x1.6c09967f0516cp+5,
         {{5, 0x1.9c196a6f74ef8p+1, 0x1.eca2a31423f9ep+2}, {3, 0x1.b9e03c4fe694ep+0, 0x1.5737bdcd35666p+1},
          {5, 0x1.135094ebff9ep+2, 0x1.922a29d8d733cp+3}, {5, 0x1.c1e5214fb48ffp+0, 0x1.61d210372b82bp+1},
          {2, 0x1.a3a093160b2e8p+1, 0x1.fbf46d2775b18p+2}, {2, 0x1.2fee53bdb1265p+2, 0x1.db64ae455c30cp+3},
          {4, 0x1.15991fbc87324p+2, 0x1.97d2c19daa011p+3}, {6, 0x1.264c13dbfe9b8p+0, 0x1.59244d72d17c4p+0}}},
        {XMPIR_MAP_REMOVE, 3, 0x1.5cb6fe0354818p+3,
         {{2, 0x1.70b70bd225b75p+1, 0x1.765cf2cc53a8p+1}, {1, 0x1.94e5af5f73cbap+0, 0x1.5a52f0d3ef7a1p+0},
          {4, 0x1.df43c0ebf2671p+1, 0x1.0640432b1de5cp+2}, {0, 0x1.c47a4004b52b3p+0, 0x1.8f84246b08434p+0},
          {2, 0x1.b4548613dcb52p+1, 0x1.d0de55a944a1ep+1}, {3, 0x1.ccfd29e3f32aap+1, 0x1.f2ec3f5002d71p+1},
          {0, 0x1.94dbaa2a5e619p+1, 0x1.a633842be181ap+1}, {4, 0x1.82bd50cc1cbb6p+1, 0x1.8e0f5fc097272p+1}}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        struct pool p = {8, {{0, 0, 0}}};
        memcpy(p.s, cases[c].s, sizeof p.s);
        enumerate(&p, cases[c].n, cases[c].n);
        struct ref r = reference(&p, cases[c].a, XMPIR_MAP_COST, cases[c].need, cases[c].n);
        ck_assert(r.found);
        int count[8];
        struct xmpi_map_result res;
        enum xmpi_map_status st = xmpi_map_solve(cases[c].a, XMPIR_MAP_COST, p.s, 8, cases[c].n,
                                                 cases[c].need, count, &res, err, sizeof err);
        ck_assert_msg(st == XMPIR_MAP_OK, "case %zu: status %d (%s)", c, st, err);
        assert_choice(&p, cases[c].a, cases[c].need, count, &res, cases[c].n);
        assert_same("cost", res.cost, r.first, cscale_of(&p));
        assert_same("power", res.power, r.second, pscale_of(&p));
    }
}
END_TEST

/* ---- hand-made cases ---- */

/* Two classes: fast and dear (power 4, cost 3), slow and cheap (power 1, cost 0.5). */
static const struct xmpi_map_slot two_classes[] = {{4, 4.0, 3.0}, {8, 1.0, 0.5}};

START_TEST(test_thesis_efficiency_powerful_cost_cheap)
{
    int count[2];
    struct xmpi_map_result r;
    /* A need of 7: the fewest processes are 2 fast ones (8 >= 7; one gives 4, and 1 fast +
     * anything else needs 3 more slow ones, 4 processes). */
    ck_assert_int_eq(xmpi_map_best(XMPIR_MAP_SPAWN, XMPIR_MAP_EFFICIENCY, two_classes, 2, 12, 7,
                                   count, &r, err, sizeof err), XMPIR_MAP_OK);
    ck_assert_int_eq(count[0], 2);
    ck_assert_int_eq(count[1], 0);
    ck_assert_int_eq(r.n, 2);
    ck_assert(r.power == 8.0 && r.cost == 6.0);
    /* Cost: the slow class costs 0.5 per unit of power, the fast one 0.75: 7 slow ones
     * (cost 3.5) beat 1 fast + 3 slow (4.5) and 2 fast (6). */
    ck_assert_int_eq(xmpi_map_best(XMPIR_MAP_SPAWN, XMPIR_MAP_COST, two_classes, 2, 12, 7, count,
                                   &r, err, sizeof err), XMPIR_MAP_OK);
    ck_assert_int_eq(count[0], 0);
    ck_assert_int_eq(count[1], 7);
    ck_assert(r.power == 7.0 && r.cost == 3.5);
    /* With n fixed at 2, efficiency wants the power closest above the need: a need of 5 is
     * met by 1 fast + 1 slow (5), not 2 fast (8). */
    ck_assert_int_eq(xmpi_map_solve(XMPIR_MAP_SPAWN, XMPIR_MAP_EFFICIENCY, two_classes, 2, 2, 5,
                                    count, &r, err, sizeof err), XMPIR_MAP_OK);
    ck_assert_int_eq(count[0], 1);
    ck_assert_int_eq(count[1], 1);
    ck_assert_str_eq(err, "");
}
END_TEST

START_TEST(test_remove_hand_made)
{
    int count[2];
    struct xmpi_map_result r;
    /* Remove 2 with at most 3 of power to lose: only 2 slow ones (2) fit; 1+1 takes 5. */
    ck_assert_int_eq(xmpi_map_solve(XMPIR_MAP_REMOVE, XMPIR_MAP_EFFICIENCY, two_classes, 2, 2, 3,
                                    count, &r, err, sizeof err), XMPIR_MAP_OK);
    ck_assert_int_eq(count[0], 0);
    ck_assert_int_eq(count[1], 2);
    /* At most 5: 1 fast + 1 slow (5, cost 3.5) is closest from below and dearest. */
    for (int c = 0; c < 2; c++) {
        ck_assert_int_eq(xmpi_map_solve(XMPIR_MAP_REMOVE, constraints[c], two_classes, 2, 2, 5,
                                        count, &r, err, sizeof err), XMPIR_MAP_OK);
        ck_assert_int_eq(count[0], 1);
        ck_assert_int_eq(count[1], 1);
        ck_assert(r.power == 5.0 && r.cost == 3.5);
    }
    /* Best over n with at most 6 to lose: efficiency removes the most processes, 6 slow ones;
     * cost removes the dearest set: 1 fast + 2 slow (cost 4) beats 6 slow (3). */
    ck_assert_int_eq(xmpi_map_best(XMPIR_MAP_REMOVE, XMPIR_MAP_EFFICIENCY, two_classes, 2, 12, 6,
                                   count, &r, err, sizeof err), XMPIR_MAP_OK);
    ck_assert_int_eq(r.n, 6);
    ck_assert_int_eq(count[1], 6);
    ck_assert_int_eq(xmpi_map_best(XMPIR_MAP_REMOVE, XMPIR_MAP_COST, two_classes, 2, 12, 6, count,
                                   &r, err, sizeof err), XMPIR_MAP_OK);
    ck_assert_int_eq(count[0], 1);
    ck_assert_int_eq(count[1], 2);
    ck_assert(r.cost == 4.0 && r.power == 6.0);
}
END_TEST

START_TEST(test_infeasible_names_need_and_most_power)
{
    int count[2] = {7, 7};
    struct xmpi_map_result r;
    /* 3 processes give at most 12 (3 fast). */
    ck_assert_int_eq(xmpi_map_solve(XMPIR_MAP_SPAWN, XMPIR_MAP_EFFICIENCY, two_classes, 2, 3, 100,
                                    count, &r, err, sizeof err), XMPIR_MAP_INFEASIBLE);
    assert_err_has("100");
    assert_err_has("at most 12");
    ck_assert_int_eq(count[0], 0);
    ck_assert_int_eq(count[1], 0);
    ck_assert_int_eq(r.n, 0);
    /* 6 processes: 4 fast + 2 slow = 18. */
    ck_assert_int_eq(xmpi_map_solve(XMPIR_MAP_SPAWN, XMPIR_MAP_COST, two_classes, 2, 6, 18.5,
                                    count, &r, err, sizeof err), XMPIR_MAP_INFEASIBLE);
    assert_err_has("18.5");
    assert_err_has("at most 18");
    /* More processes than there are. */
    ck_assert_int_eq(xmpi_map_solve(XMPIR_MAP_SPAWN, XMPIR_MAP_COST, two_classes, 2, 13, 1,
                                    count, &r, err, sizeof err), XMPIR_MAP_INFEASIBLE);
    assert_err_has("only 12");
    /* Removing 3 takes at least 3 (3 slow). */
    ck_assert_int_eq(xmpi_map_solve(XMPIR_MAP_REMOVE, XMPIR_MAP_COST, two_classes, 2, 3, 2.5,
                                    count, &r, err, sizeof err), XMPIR_MAP_INFEASIBLE);
    assert_err_has("2.5");
    assert_err_has("least 3");
    /* Best over n: all 12 give 24. */
    ck_assert_int_eq(xmpi_map_best(XMPIR_MAP_SPAWN, XMPIR_MAP_EFFICIENCY, two_classes, 2, 50, 25,
                                   count, &r, err, sizeof err), XMPIR_MAP_INFEASIBLE);
    assert_err_has("25");
    assert_err_has("at most 24");
    ck_assert_int_eq(xmpi_map_best(XMPIR_MAP_REMOVE, XMPIR_MAP_COST, two_classes, 2, 5, -1,
                                   count, &r, err, sizeof err), XMPIR_MAP_INFEASIBLE);
}
END_TEST

START_TEST(test_degenerate)
{
    int count[3] = {9, 9, 9};
    struct xmpi_map_result r;
    /* n = 0: the empty choice, for a spawn only when nothing is needed. */
    ck_assert_int_eq(xmpi_map_solve(XMPIR_MAP_SPAWN, XMPIR_MAP_EFFICIENCY, two_classes, 2, 0, 0,
                                    count, &r, err, sizeof err), XMPIR_MAP_OK);
    ck_assert(count[0] == 0 && count[1] == 0 && r.n == 0 && r.power == 0 && r.cost == 0);
    ck_assert_int_eq(xmpi_map_solve(XMPIR_MAP_SPAWN, XMPIR_MAP_EFFICIENCY, two_classes, 2, 0, 0.5,
                                    count, &r, err, sizeof err), XMPIR_MAP_INFEASIBLE);
    ck_assert_int_eq(xmpi_map_solve(XMPIR_MAP_REMOVE, XMPIR_MAP_COST, two_classes, 2, 0, 0,
                                    count, &r, err, sizeof err), XMPIR_MAP_OK);
    /* No slots at all. */
    ck_assert_int_eq(xmpi_map_solve(XMPIR_MAP_SPAWN, XMPIR_MAP_COST, NULL, 0, 0, -1, NULL, &r,
                                    err, sizeof err), XMPIR_MAP_OK);
    ck_assert_int_eq(xmpi_map_best(XMPIR_MAP_SPAWN, XMPIR_MAP_COST, NULL, 0, 4, 0, NULL, &r, err,
                                   sizeof err), XMPIR_MAP_OK);
    ck_assert_int_eq(r.n, 0);
    /* Every avail 0. */
    static const struct xmpi_map_slot none[] = {{0, 2, 1}, {0, 3, 1}};
    ck_assert_int_eq(xmpi_map_solve(XMPIR_MAP_SPAWN, XMPIR_MAP_EFFICIENCY, none, 2, 1, 0, count,
                                    &r, err, sizeof err), XMPIR_MAP_INFEASIBLE);
    assert_err_has("only 0");
    ck_assert_int_eq(xmpi_map_best(XMPIR_MAP_SPAWN, XMPIR_MAP_EFFICIENCY, none, 2, 3, 0, count,
                                   &r, err, sizeof err), XMPIR_MAP_OK);
    ck_assert_int_eq(r.n, 0);
    /* One slot of avail 0 among others: it is never used (GLP_FX at 0). */
    static const struct xmpi_map_slot some[] = {{0, 100, 0}, {3, 1, 1}, {2, 2, 5}};
    ck_assert_int_eq(xmpi_map_solve(XMPIR_MAP_SPAWN, XMPIR_MAP_COST, some, 3, 2, 1, count, &r,
                                    err, sizeof err), XMPIR_MAP_OK);
    ck_assert(count[0] == 0 && count[1] == 2 && count[2] == 0);
    /* Identical slots: any split, the same totals. */
    static const struct xmpi_map_slot same[] = {{2, 1.5, 2}, {2, 1.5, 2}, {2, 1.5, 2}};
    for (int a = 0; a < 2; a++)
        for (int c = 0; c < 2; c++) {
            ck_assert_int_eq(xmpi_map_solve(actions[a], constraints[c], same, 3, 5,
                                            7.5, count, &r,
                                            err, sizeof err), XMPIR_MAP_OK);
            ck_assert(r.n == 5 && r.power == 7.5 && r.cost == 10);
            ck_assert(count[0] + count[1] + count[2] == 5);
        }
    /* Equal powers, different costs: the efficiency tie-break takes the cheaper (spawn) or the
     * dearer (remove); equal costs, different powers: cost's tie-break takes the power closest
     * to the need. */
    static const struct xmpi_map_slot eqp[] = {{3, 2, 4}, {3, 2, 1}};
    ck_assert_int_eq(xmpi_map_solve(XMPIR_MAP_SPAWN, XMPIR_MAP_EFFICIENCY, eqp, 2, 2, 3, count, &r,
                                    err, sizeof err), XMPIR_MAP_OK);
    ck_assert(count[0] == 0 && count[1] == 2);
    ck_assert_int_eq(xmpi_map_solve(XMPIR_MAP_REMOVE, XMPIR_MAP_EFFICIENCY, eqp, 2, 2, 4, count,
                                    &r, err, sizeof err), XMPIR_MAP_OK);
    ck_assert(count[0] == 2 && count[1] == 0);
    static const struct xmpi_map_slot eqc[] = {{3, 1, 2}, {3, 3, 2}, {3, 2, 2}};
    ck_assert_int_eq(xmpi_map_solve(XMPIR_MAP_SPAWN, XMPIR_MAP_COST, eqc, 3, 2, 3.5, count, &r,
                                    err, sizeof err), XMPIR_MAP_OK);
    ck_assert_msg(r.power == 4.0, "power %g", r.power);   /* 2+2 or 1+3, not 5 or 6 */
    ck_assert_int_eq(xmpi_map_solve(XMPIR_MAP_REMOVE, XMPIR_MAP_COST, eqc, 3, 2, 4.5, count, &r,
                                    err, sizeof err), XMPIR_MAP_OK);
    ck_assert_msg(r.power == 4.0, "power %g", r.power);   /* not 2 or 3 */
    /* Powers in FLOPS and costs in small units: the scaling keeps the answer. */
    static const struct xmpi_map_slot big[] = {{4, 3e9, 1e-4}, {4, 1e9, 2e-5}};
    ck_assert_int_eq(xmpi_map_solve(XMPIR_MAP_SPAWN, XMPIR_MAP_EFFICIENCY, big, 2, 3, 5e9, count,
                                    &r, err, sizeof err), XMPIR_MAP_OK);
    /* 1 fast + 2 slow give 5e9, exactly the need (2 fast + 1 slow: 7e9). */
    ck_assert(count[0] == 1 && count[1] == 2 && r.power == 5e9);
}
END_TEST

START_TEST(test_bad_input)
{
    int count[2];
    struct xmpi_map_result r;
    struct xmpi_map_slot s[2] = {{1, 1, 1}, {1, 1, 1}};
    s[0].avail = -1;
    ck_assert_int_eq(xmpi_map_solve(XMPIR_MAP_SPAWN, XMPIR_MAP_COST, s, 2, 1, 0, count, &r, err,
                                    sizeof err), XMPIR_MAP_EINPUT);
    assert_err_has("slot 0");
    assert_err_has("-1");
    s[0].avail = 1;
    s[1].power = 0;
    ck_assert_int_eq(xmpi_map_solve(XMPIR_MAP_SPAWN, XMPIR_MAP_COST, s, 2, 1, 0, count, &r, err,
                                    sizeof err), XMPIR_MAP_EINPUT);
    assert_err_has("slot 1 has power 0");
    s[1].power = NAN;
    ck_assert_int_eq(xmpi_map_best(XMPIR_MAP_REMOVE, XMPIR_MAP_COST, s, 2, 1, 0, count, &r, err,
                                   sizeof err), XMPIR_MAP_EINPUT);
    s[1].power = INFINITY;
    ck_assert_int_eq(xmpi_map_solve(XMPIR_MAP_SPAWN, XMPIR_MAP_COST, s, 2, 1, 0, count, &r, err,
                                    sizeof err), XMPIR_MAP_EINPUT);
    s[1].power = 1;
    s[1].cost = -0.5;
    ck_assert_int_eq(xmpi_map_solve(XMPIR_MAP_SPAWN, XMPIR_MAP_COST, s, 2, 1, 0, count, &r, err,
                                    sizeof err), XMPIR_MAP_EINPUT);
    assert_err_has("cost -0.5");
    s[1].cost = 1;
    ck_assert_int_eq(xmpi_map_solve(XMPIR_MAP_SPAWN, XMPIR_MAP_COST, s, 2, 1, NAN, count, &r, err,
                                    sizeof err), XMPIR_MAP_EINPUT);
    assert_err_has("finite");
    ck_assert_int_eq(xmpi_map_solve(XMPIR_MAP_SPAWN, XMPIR_MAP_COST, s, 2, -1, 0, count, &r, err,
                                    sizeof err), XMPIR_MAP_EINPUT);
    assert_err_has("-1 processes");
    ck_assert_int_eq(xmpi_map_solve(XMPIR_MAP_SPAWN, XMPIR_MAP_COST, NULL, 2, 1, 0, count, &r,
                                    err, sizeof err), XMPIR_MAP_EINPUT);
    ck_assert_int_eq(xmpi_map_solve(XMPIR_MAP_SPAWN, XMPIR_MAP_COST, s, 2, 1, 0, NULL, &r, err,
                                    sizeof err), XMPIR_MAP_EINPUT);
    ck_assert_int_eq(xmpi_map_solve(XMPIR_MAP_SPAWN, XMPIR_MAP_COST, s, 2, 1, 0, count, NULL,
                                    err, sizeof err), XMPIR_MAP_EINPUT);
    ck_assert_int_eq(xmpi_map_solve(XMPIR_MAP_SPAWN, XMPIR_MAP_COST, s, -1, 1, 0, count, &r,
                                    err, sizeof err), XMPIR_MAP_EINPUT);
    ck_assert_int_eq(xmpi_map_solve((enum xmpi_map_action)7, XMPIR_MAP_COST, s, 2, 1, 0, count,
                                    &r, err, sizeof err), XMPIR_MAP_EINPUT);
    ck_assert_int_eq(xmpi_map_solve(XMPIR_MAP_SPAWN, (enum xmpi_map_constraint)7, s, 2, 1, 0,
                                    count, &r, err, sizeof err), XMPIR_MAP_EINPUT);
    /* why may be NULL; a short buffer is cut, not overrun. */
    ck_assert_int_eq(xmpi_map_solve(XMPIR_MAP_SPAWN, XMPIR_MAP_COST, s, 2, -1, 0, count, &r,
                                    NULL, 0), XMPIR_MAP_EINPUT);
    char small[8] = "xxxxxxx";
    ck_assert_int_eq(xmpi_map_solve(XMPIR_MAP_SPAWN, XMPIR_MAP_COST, s, 2, 5, 0, count, &r,
                                    small, 4), XMPIR_MAP_INFEASIBLE);
    ck_assert_int_eq(small[3], '\0');
    ck_assert_int_eq(small[4], 'x');
}
END_TEST

/* GLPK prints nothing, feasible or not. */
START_TEST(test_glpk_is_silent)
{
    char path[] = "/tmp/xmpi-mapping-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    fflush(stdout);
    fflush(stderr);
    int out = dup(1), errfd = dup(2);
    dup2(fd, 1);
    dup2(fd, 2);
    int count[2];
    struct xmpi_map_result r;
    for (int a = 0; a < 2; a++)
        for (int c = 0; c < 2; c++) {
            xmpi_map_solve(actions[a], constraints[c], two_classes, 2, 3, 6, count, &r, NULL, 0);
            xmpi_map_solve(actions[a], constraints[c], two_classes, 2, 3, 1000, count, &r, NULL, 0);
            xmpi_map_solve(actions[a], constraints[c], two_classes, 2, 3, -1000, count, &r, NULL, 0);
        }
    fflush(stdout);
    fflush(stderr);
    dup2(out, 1);
    dup2(errfd, 2);
    close(out);
    close(errfd);
    off_t size = lseek(fd, 0, SEEK_END);
    close(fd);
    unlink(path);
    ck_assert_int_eq((int)size, 0);
}
END_TEST

Suite *mapping_suite(void)
{
    Suite *s = suite_create("mapping");
    TCase *tc = tcase_create("mapping");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_solve_matches_brute_force, 0, LOOPS);
    tcase_add_loop_test(tc, test_best_matches_brute_force, 0, LOOPS);
    tcase_add_test(tc, test_random_cases_cover_both_outcomes);
    tcase_add_loop_test(tc, test_cost_bound_is_the_relaxation, 0, LOOPS);
    tcase_add_test(tc, test_cost_bound_hand_made);
    tcase_add_test(tc, test_integrality_tolerance_cases);
    tcase_add_test(tc, test_thesis_efficiency_powerful_cost_cheap);
    tcase_add_test(tc, test_remove_hand_made);
    tcase_add_test(tc, test_infeasible_names_need_and_most_power);
    tcase_add_test(tc, test_degenerate);
    tcase_add_test(tc, test_bad_input);
    tcase_add_test(tc, test_glpk_is_silent);
    suite_add_tcase(s, tc);
    return s;
}
