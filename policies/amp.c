/* AMP's decision (thesis Algorithm 8, phases 1 and 2) as a pure function; the semantics,
 * the deviation from the thesis (overheads amortised over the rest of the run) and the ties
 * are in amp.h. */
#include "amp.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void say(struct xmpi_amp_plan *out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void say(struct xmpi_amp_plan *out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->why, sizeof out->why, fmt, ap);
    va_end(ap);
}

static int bad_number(struct xmpi_amp_plan *out, const char *name, double v, const char *want)
{
    say(out, "amp: %s is %g; expected %s", name, v, want);
    return -1;
}

static int check_slots(struct xmpi_amp_plan *out, const char *list,
                       const struct xmpi_map_slot *s, int n)
{
    if (n < 0) {
        say(out, "amp: the %s list has %d entries; expected 0 or more", list, n);
        return -1;
    }
    if (n > 0 && !s) {
        say(out, "amp: the %s list has %d entries but no array", list, n);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if (s[i].avail < 0) {
            say(out, "amp: %s entry %d has %d processes available; expected 0 or more", list, i,
                s[i].avail);
            return -1;
        }
        if (!isfinite(s[i].power) || s[i].power <= 0) {
            say(out, "amp: %s entry %d has power %g; expected a finite number above 0", list, i,
                s[i].power);
            return -1;
        }
        if (!isfinite(s[i].cost) || s[i].cost < 0) {
            say(out, "amp: %s entry %d has cost %g; expected a finite number, 0 or more", list, i,
                s[i].cost);
            return -1;
        }
    }
    return 0;
}

static int check_input(const struct xmpi_amp_input *in, const struct xmpi_amp_model *m,
                       struct xmpi_amp_plan *out)
{
    if (!in || !m || !m->comm || !m->overhead) {
        say(out, "amp: no input, model or model callback given");
        return -1;
    }
    if (!isfinite(in->goal) || in->goal <= 0)
        return bad_number(out, "the goal", in->goal, "a finite number of seconds above 0");
    if (!isfinite(in->elapsed) || in->elapsed < 0)
        return bad_number(out, "the elapsed time", in->elapsed, "a finite number, 0 or more");
    if (!isfinite(in->intervals_left) || in->intervals_left <= 0)
        return bad_number(out, "intervals_left", in->intervals_left, "a finite number above 0");
    if (!isfinite(in->tol) || in->tol < 0)
        return bad_number(out, "the tolerance", in->tol, "a finite number, 0 or more");
    if (in->constraint != XMPIR_MAP_EFFICIENCY && in->constraint != XMPIR_MAP_COST) {
        say(out, "amp: unknown constraint %d", (int)in->constraint);
        return -1;
    }
    if (!isfinite(in->work) || in->work <= 0)
        return bad_number(out, "the work of an interval", in->work, "a finite number above 0");
    if (!isfinite(in->power_now) || in->power_now <= 0)
        return bad_number(out, "the power now", in->power_now, "a finite number above 0");
    if (!isfinite(in->cost_now) || in->cost_now < 0)
        return bad_number(out, "the cost now", in->cost_now, "a finite number, 0 or more");
    if (in->nprocs < 1) {
        say(out, "amp: %d processes now; expected 1 or more", in->nprocs);
        return -1;
    }
    if (in->max_spawn < 0) {
        say(out, "amp: max_spawn is %d; expected 0 or more", in->max_spawn);
        return -1;
    }
    if (in->fast_streak < 0) {
        say(out, "amp: fast_streak is %d; expected 0 or more", in->fast_streak);
        return -1;
    }
    if (!isfinite(in->anchor) || in->anchor < 0)
        return bad_number(out, "the anchor", in->anchor, "a finite number, 0 or more (0: none)");
    if (check_slots(out, "free", in->free, in->nfree) ||
        check_slots(out, "removable", in->removable, in->nremovable))
        return -1;
    if ((in->nfree > 0 || in->nremovable > 0) && !out->count) {
        say(out, "amp: no count array for the plan");
        return -1;
    }
    return 0;
}

/* The model's answers; -1 for "cannot tell", including a negative or non-finite answer. */
static int comm_of(const struct xmpi_amp_model *m, int n, double *t)
{
    double v = -1;
    if (m->comm(m->arg, n, &v) != 0 || !isfinite(v) || v < 0) return -1;
    *t = v;
    return 0;
}

static int overhead_of(const struct xmpi_amp_model *m, int delta, double *t)
{
    double v = -1;
    if (delta == 0) {
        *t = 0;
        return 0;
    }
    if (m->overhead(m->arg, delta, &v) != 0 || !isfinite(v) || v < 0) return -1;
    *t = v;
    return 0;
}

static int total(const struct xmpi_map_slot *s, int n)
{
    long long t = 0;
    for (int i = 0; i < n; i++) t += s[i].avail;
    return t > INT_MAX ? INT_MAX : (int)t;
}

static double max_cost(const struct xmpi_map_slot *s, int n)
{
    double c = 0;
    for (int i = 0; i < n; i++) c = fmax(c, s[i].cost);
    return c;
}

/* "2 on entry 0, 1 on entry 3" */
static void describe(char *buf, size_t len, const int *count, int n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && used < len; i++) {
        if (count[i] == 0) continue;
        int w = snprintf(buf + used, len - used, "%s%d on entry %d", used ? ", " : "", count[i], i);
        if (w < 0) break;
        used += (size_t)w;
    }
}

/* The chosen candidate while scanning. */
struct best {
    int n;                   /* -1: none yet */
    double power, cost, overhead, comm, t_need;
    double need;             /* the power it was mapped for (added, or that may go) */
    int full;                /* cost constraint: 1 when cost is its full mapping's, 0 when it is
                              * the first objective's alone (cost_offer) */
};

/* What a bound's rounding may be worth in cost: xmpi_map_cost_bound subtracts its own, this
 * covers the sums of the chosen costs in the comparison (n terms, in the list's scale). */
static double bound_slack(const struct xmpi_map_slot *s, int k, int n)
{
    return 1e-12 * (n + 1) * max_cost(s, k);
}

/* The cost constraint's scan over candidate counts (grow's spawns, shrink_search's
 * removals). The rule is the full mapping's cost (mapping.h: the cost, then the power within
 * the tie): a spawn replaces the best when it costs less by more than the tie, a removal when
 * it removes no less than the best's cost less the tie. The full mapping solves two integer
 * programs; most candidates are settled without it: by the relaxation's bound
 * (xmpi_map_cost_bound), or by the first objective alone (xmpi_map_solve_first), whose cost
 * the tie-break moves by at most the mapping's tie (up for a spawn, down for a removal). Only
 * a candidate that those leave undecided, and the best it is compared with, are mapped in
 * full; the best is mapped in full at the end. The plan is the one a full mapping of every
 * candidate gives. */
struct cost_scan {
    enum xmpi_map_action action;
    const struct xmpi_map_slot *sl;
    int k;
    double tie;       /* XMPIR_AMP_TIE of the list's largest cost */
    int *y;           /* k entries: scratch for the best's full mapping */
};

/* The range [*lo, *hi] of the full mapping's cost of a choice whose cost c is the first
 * objective's alone (full 0) or the full mapping's (full 1). */
static void full_range(const struct cost_scan *c, double cost, int full, int n, double *lo,
                       double *hi)
{
    double slack = bound_slack(c->sl, c->k, n), band = XMPIR_MAP_TIE * max_cost(c->sl, c->k);
    int spawn = c->action == XMPIR_MAP_SPAWN;
    *lo = cost - (full ? 0 : spawn ? slack : band + slack);
    *hi = cost + (full ? 0 : spawn ? band + slack : slack);
}

/* Maps the best in full, if it is not yet: its entries into out->count. */
static int full_best(const struct cost_scan *c, struct best *b, struct xmpi_amp_plan *out)
{
    if (b->full) return 0;
    char msg[256];
    struct xmpi_map_result res;
    enum xmpi_map_status st = xmpi_map_solve(c->action, XMPIR_MAP_COST, c->sl, c->k, b->n,
                                             b->need, c->y, &res, msg, sizeof msg);
    if (st != XMPIR_MAP_OK) {
        say(out, "amp: the mapping failed for a %s of %d it had found: %s",
            c->action == XMPIR_MAP_SPAWN ? "spawn" : "removal", b->n, msg);
        return -1;
    }
    memcpy(out->count, c->y, (size_t)c->k * sizeof *c->y);
    b->power = res.power;
    b->cost = res.cost;
    b->full = 1;
    return 0;
}

/* Offers n processes mapped for `need` to the scan: 1 when they become the best (x and res
 * hold their mapping, *full says whether it is the full one), 0 when not (or infeasible),
 * -1 when the mapping failed (*st and msg say how). */
static int cost_compare(const struct cost_scan *c, struct best *b, int n, double need, int *x,
                        struct xmpi_map_result *res, int *full, enum xmpi_map_status *st,
                        char *msg, size_t len, struct xmpi_amp_plan *out)
{
    int spawn = c->action == XMPIR_MAP_SPAWN;
    double slack = bound_slack(c->sl, c->k, n), blo = 0, bhi = 0, bound, lo, hi;
    if (b->n >= 0) full_range(c, b->cost, b->full, b->n, &blo, &bhi);
    *st = xmpi_map_cost_bound(c->action, c->sl, c->k, n, need, &bound, msg, len);
    if (*st == XMPIR_MAP_INFEASIBLE) return 0;
    if (*st != XMPIR_MAP_OK) return -1;
    if (b->n >= 0 && (spawn ? bound - slack >= bhi - c->tie : bound + slack < blo - c->tie))
        return 0;
    *st = xmpi_map_solve_first(c->action, XMPIR_MAP_COST, c->sl, c->k, n, need, x, res, msg, len);
    if (*st == XMPIR_MAP_INFEASIBLE) return 0;
    if (*st != XMPIR_MAP_OK) return -1;
    *full = 0;
    if (b->n < 0) return 1;
    full_range(c, res->cost, 0, n, &lo, &hi);
    if (spawn ? hi < blo - c->tie : lo >= bhi - c->tie) return 1;   /* replaces it surely */
    if (spawn ? lo >= bhi - c->tie : hi < blo - c->tie) return 0;   /* surely not */
    /* Too close to tell: both mapped in full, compared exactly. */
    if (full_best(c, b, out)) {
        *st = XMPIR_MAP_ESOLVER;
        snprintf(msg, len, "%s", out->why);
        return -1;
    }
    *st = xmpi_map_solve(c->action, XMPIR_MAP_COST, c->sl, c->k, n, need, x, res, msg, len);
    if (*st != XMPIR_MAP_OK) return -1;   /* the first objective was feasible */
    *full = 1;
    return spawn ? res->cost < b->cost - c->tie : res->cost >= b->cost - c->tie;
}

static void choose(struct best *b, int n, const struct xmpi_map_result *res, double ov,
                   double cm, double t_need, const int *x, int *count, int k)
{
    b->full = 1;
    b->n = n;
    b->power = res->power;
    b->cost = res->cost;
    b->overhead = ov;
    b->comm = cm;
    b->t_need = t_need;
    memcpy(count, x, (size_t)k * sizeof *count);
}

static double completion(const struct xmpi_amp_input *in, double overhead, double t)
{
    return in->elapsed + overhead + in->intervals_left * t;
}

/* The candidate count after c (counts 1, 2, ... up to top): every one up to XMPIR_AMP_DENSE,
 * then about 1/8 more each time, top itself last; top + 1 after top (amp.h, "Many
 * candidates"). */
static int next_count(int c, int top)
{
    if (c >= top) return top + 1;
    int n = c < XMPIR_AMP_DENSE ? c + 1 : c + c / 8;
    return n < top ? n : top;
}

/* The plan of the chosen suitable candidate b (its entries already in out->count): a spawn
 * (sign 1) or a removal (sign -1), with the rule that chose it for the sentence. */
static void take(const struct xmpi_amp_input *in, const struct best *b, int sign,
                 const char *rule, struct xmpi_amp_plan *out)
{
    out->action = sign > 0 ? XMPIR_PLAN_SPAWN : XMPIR_PLAN_REMOVE;
    out->n = b->n;
    out->t_new = in->work / (in->power_now + sign * b->power) + b->comm;
    out->overhead = b->overhead;
    out->cost_rate = in->cost_now + sign * b->cost;
    out->completion = completion(in, b->overhead, out->t_new);
    char which[128];
    describe(which, sizeof which, out->count, sign > 0 ? in->nfree : in->nremovable);
    say(out, "interval needs %.4g s to land on the goal (%.4g s), predicted %.4g s: %s %d "
             "(%s), predicted %.4g s (needs %.4g s after %.4g s of overhead), cost %.4g/s (%s)",
        out->t_goal, in->goal, out->t_now, sign > 0 ? "spawning" : "removing", b->n, which,
        out->t_new, b->t_need, b->overhead, out->cost_rate, rule);
}

/* Does free entry i come before j for maxpower: the more powerful, then the cheaper, then
 * the lower index. */
static int before(const struct xmpi_map_slot *s, int i, int j)
{
    if (s[i].power != s[j].power) return s[i].power > s[j].power;
    if (s[i].cost != s[j].cost) return s[i].cost < s[j].cost;
    return i < j;
}

/* Does removable entry i come before j for the fastest removal: the less powerful, then the
 * dearer, then the higher index. */
static int weaker(const struct xmpi_map_slot *s, int i, int j)
{
    if (s[i].power != s[j].power) return s[i].power < s[j].power;
    if (s[i].cost != s[j].cost) return s[i].cost > s[j].cost;
    return i > j;
}

/* The entries of s in the order `first` puts them (insertion sort: a pool has a few). */
static void sort_slots(const struct xmpi_map_slot *s, int k,
                       int (*first)(const struct xmpi_map_slot *, int, int), int *order)
{
    for (int i = 0; i < k; i++) {
        int j = i;
        for (; j > 0 && first(s, i, order[j - 1]); j--) order[j] = order[j - 1];
        order[j] = i;
    }
}

/* The entry of the next PE (or process) in that order, -1 when none is left; *pos and *used
 * (how many of order[*pos]'s have gone) start at 0. */
static int next_slot(const struct xmpi_map_slot *s, const int *order, int k, int *pos, int *used)
{
    while (*pos < k && *used == s[order[*pos]].avail) {
        (*pos)++;
        *used = 0;
    }
    if (*pos == k) return -1;
    (*used)++;
    return order[*pos];
}

/* The first n PEs in that order into count; their cost rate. */
static double take_first(const struct xmpi_map_slot *s, const int *order, int k, int n, int *count)
{
    double cost = 0;
    for (int i = 0; i < k && n > 0; i++) {
        int e = order[i], take = s[e].avail < n ? s[e].avail : n;
        count[e] = take;
        cost += take * s[e].cost;
        n -= take;
    }
    return cost;
}

/* fastest's candidates: delta > 0 spawns delta, < 0 removes -delta, 0 keeps; each with its
 * predicted completion, interval time t, overhead and cost rate. */
struct candidates {
    int n;
    double *delta, *completion, *t, *overhead, *rate;
};

/* Keeping, then spawning 1..S in order and removing 1..R in rorder, where the model prices them. */
static void list_candidates(const struct xmpi_amp_input *in, const struct xmpi_amp_model *m,
                            int S, int R, const int *order, const int *rorder, double t_now,
                            struct candidates *c)
{
    c->delta[0] = 0, c->completion[0] = completion(in, 0, t_now), c->t[0] = t_now,
    c->overhead[0] = 0, c->rate[0] = in->cost_now;
    c->n = 1;
    for (int dir = 1; dir >= -1; dir -= 2) {
        const struct xmpi_map_slot *sl = dir > 0 ? in->free : in->removable;
        const int *ord = dir > 0 ? order : rorder;
        int n = dir > 0 ? in->nfree : in->nremovable, top = dir > 0 ? S : R, pos = 0, used = 0;
        double dp = 0, dc = 0;   /* the power and the cost rate that came or went */
        for (int q = 1, want = 1; q <= top; q++) {
            int e = next_slot(sl, ord, n, &pos, &used);
            if (e < 0) break;
            dp += sl[e].power;
            dc += sl[e].cost;
            if (q != want) continue;   /* priced on the grid of next_count only */
            want = next_count(q, top);
            double ov, cm, p = in->power_now + dir * dp;
            if (!(p > 0) || overhead_of(m, dir * q, &ov) || comm_of(m, in->nprocs + dir * q, &cm))
                continue;
            int i = c->n++;
            c->delta[i] = dir * q;
            c->t[i] = in->work / p + cm;
            c->completion[i] = completion(in, ov, c->t[i]);
            c->overhead[i] = ov;
            c->rate[i] = in->cost_now + dir * dc;
        }
    }
}

/* The fastest completion (*fast), and the candidate the constraint prefers within tolerance. */
static int preferred_candidate(const struct xmpi_amp_input *in, const struct candidates *c,
                               double *fast)
{
    /* Among the candidates within the tolerance of the fastest (counted from the anchor when
     * that is sooner; and the tie): the fewest processes, or the lowest cost rate (ties:
     * fewer). */
    double f = c->completion[0];
    for (int i = 1; i < c->n; i++) f = fmin(f, c->completion[i]);
    double base = in->anchor > 0 ? fmin(f, in->anchor) : f;
    double near = fmax(f, base + in->tol * fabs(base)) + XMPIR_AMP_TIE * fabs(f);
    double ctie = XMPIR_AMP_TIE * fmax(max_cost(in->free, in->nfree),
                                       max_cost(in->removable, in->nremovable));
    int pick = -1;
    for (int i = 0; i < c->n; i++) {
        if (c->completion[i] > near) continue;
        int better = pick < 0;
        if (!better && in->constraint == XMPIR_MAP_COST &&
            fabs(c->rate[i] - c->rate[pick]) > ctie)
            better = c->rate[i] < c->rate[pick];
        else if (!better)
            better = c->delta[i] < c->delta[pick];
        if (better) pick = i;
    }
    *fast = f;
    return pick;
}

/* No s is suitable: among keeping, spawning s on the s most powerful free PEs, and removing
 * the r weakest removable processes, the fastest predicted completion; and of those within
 * --xmpi-tol of it, the fewest processes (efficiency) or the lowest cost rate (cost). Fewer
 * processes can be faster where communication grows with the job faster than power helps (a
 * CG on 5 processes of 3 spawns ran no faster than on its 2, at 2.5 times the cost). */
static int fastest(const struct xmpi_amp_input *in, const struct xmpi_amp_model *m, int S,
                   struct xmpi_amp_plan *out)
{
    int k = in->nfree, kr = in->nremovable, R = total(in->removable, kr);
    if (R > in->nprocs - 1) R = in->nprocs - 1;
    int *order = malloc((size_t)(k + kr + 1) * sizeof *order), *rorder = order + k;
    if (!order) {
        say(out, "amp: out of memory");
        return -1;
    }
    sort_slots(in->free, k, before, order);
    sort_slots(in->removable, kr, weaker, rorder);

    int nc = 1 + S + R;
    struct candidates c = {0};
    if (!(c.delta = malloc(sizeof *c.delta * 5 * (size_t)nc))) {
        free(order);
        say(out, "amp: out of memory");
        return -1;
    }
    c.completion = c.delta + nc, c.t = c.completion + nc, c.overhead = c.t + nc;
    c.rate = c.overhead + nc;
    list_candidates(in, m, S, R, order, rorder, out->t_now, &c);
    double fast;
    int pick = preferred_candidate(in, &c, &fast);
    int best = (int)c.delta[pick];
    double best_c = c.completion[pick], best_t = c.t[pick], best_ov = c.overhead[pick];
    free(c.delta);

    char passed[96] = "";
    if (in->elapsed >= in->goal)
        snprintf(passed, sizeof passed, " (the goal of %.4g s has passed: %.4g s elapsed)",
                 in->goal, in->elapsed);
    out->unreachable = 1;
    out->fastest = fast;
    out->completion = best_c;
    if (best == 0) {
        say(out, "interval needs %.4g s to land on the goal (%.4g s)%s, predicted %.4g s; no "
                 "spawn of 1..%d reaches it and no spawn or removal is predicted to finish "
                 "sooner than %.4g s by more than the tolerance: keeping %d processes",
            out->t_goal, in->goal, passed, out->t_now, S, best_c, in->nprocs);
        free(order);
        return 0;
    }
    int grow = best > 0, n = grow ? best : -best;
    double cost = grow ? take_first(in->free, order, k, n, out->count)
                       : take_first(in->removable, rorder, kr, n, out->count);
    free(order);
    out->action = grow ? XMPIR_PLAN_SPAWN : XMPIR_PLAN_REMOVE;
    out->n = n;
    out->t_new = best_t;
    out->overhead = best_ov;
    out->cost_rate = in->cost_now + (grow ? cost : -cost);
    char which[128];
    describe(which, sizeof which, out->count, grow ? k : kr);
    say(out, "interval needs %.4g s to land on the goal (%.4g s)%s, predicted %.4g s; "
             "the goal is unreachable: %s %d (%s), the fastest configuration (within the "
             "tolerance, %s): predicted %.4g s, completion %.4g s, cost %.4g/s", out->t_goal,
        in->goal, passed, out->t_now, grow ? "spawning" : "removing", n, which,
        in->constraint == XMPIR_MAP_COST ? "the cheapest" : "the fewest processes", best_t,
        best_c, out->cost_rate);
    return 0;
}

/* cost_compare, and the candidate (n processes, `what` in messages, its overhead ov,
 * communication cm and t_need) made the best when it wins: 0, or -1 with the plan's why
 * saying which mapping failed. */
static int cost_offer(const struct cost_scan *c, struct best *b, int n, double need, double ov,
                      double cm, double t_need, int *x, const char *what,
                      struct xmpi_amp_plan *out)
{
    char msg[256];
    struct xmpi_map_result res;
    enum xmpi_map_status st;
    int full, r = cost_compare(c, b, n, need, x, &res, &full, &st, msg, sizeof msg, out);
    if (r < 0) {
        say(out, "amp: the mapping failed for a %s of %d: %s", what, n, msg);
        return -1;
    }
    if (r > 0) {
        choose(b, n, &res, ov, cm, t_need, x, out->count, c->k);
        b->full = full;
        b->need = need;
    }
    return 0;
}

static int shrink_search(const struct xmpi_amp_input *in, const struct xmpi_amp_model *m, int *x,
                         struct xmpi_amp_plan *out, int *found);

/* What a candidate of delta processes (> 0 spawns, < 0 removals) needs to land on the goal:
 * its overhead, communication and interval time, and the power to add (a spawn) or that may
 * go (a removal) in *need. 0, or 1 when it is no candidate (the model cannot price it, the
 * goal leaves no time, the power would have to be infinite or negative). */
static int need_of(const struct xmpi_amp_input *in, const struct xmpi_amp_model *m, int delta,
                   double *ov, double *cm, double *t_need, double *need)
{
    if (overhead_of(m, delta, ov) || comm_of(m, in->nprocs + delta, cm)) return 1;
    *t_need = (in->goal - in->elapsed - *ov) / in->intervals_left;
    double den = *t_need - *cm;
    if (!(den > 0)) return 1;
    double p_need = in->work / den;
    if (!isfinite(p_need)) return 1;
    *need = delta > 0 ? p_need - in->power_now : in->power_now - p_need;
    return delta < 0 && !(*need >= 0);
}

/* The efficiency constraint's candidate of n processes: suitable (1, chosen into b and
 * out->count), not (0), or the mapping failed (-1, said). */
static int eff_try(const struct xmpi_amp_input *in, const struct xmpi_amp_model *m, int n,
                   int spawn, int *x, struct best *b, struct xmpi_amp_plan *out)
{
    double ov, cm, t_need, need;
    if (need_of(in, m, spawn ? n : -n, &ov, &cm, &t_need, &need)) return 0;
    char msg[256];
    struct xmpi_map_result res;
    const struct xmpi_map_slot *sl = spawn ? in->free : in->removable;
    int k = spawn ? in->nfree : in->nremovable;
    enum xmpi_map_status st = xmpi_map_solve(spawn ? XMPIR_MAP_SPAWN : XMPIR_MAP_REMOVE,
                                             in->constraint, sl, k, n, need, x, &res, msg,
                                             sizeof msg);
    if (st == XMPIR_MAP_INFEASIBLE) return 0;
    if (st != XMPIR_MAP_OK) {
        say(out, "amp: the mapping failed for a %s of %d: %s", spawn ? "spawn" : "removal", n,
            msg);
        return -1;
    }
    choose(b, n, &res, ov, cm, t_need, x, out->count, k);
    return 1;
}

/* The cost constraint's candidate of n processes offered to the scan (cost_offer): 1 when it
 * became the best, 0 when not (or no candidate), -1 when a mapping failed. */
static int cost_try(const struct xmpi_amp_input *in, const struct xmpi_amp_model *m,
                    const struct cost_scan *cs, int n, int *x, struct best *b,
                    struct xmpi_amp_plan *out)
{
    double ov, cm, t_need, need;
    int spawn = cs->action == XMPIR_MAP_SPAWN;
    if (need_of(in, m, spawn ? n : -n, &ov, &cm, &t_need, &need)) return 0;
    int before = b->n;
    if (cost_offer(cs, b, n, need, ov, cm, t_need, x, spawn ? "spawn" : "removal", out))
        return -1;
    return b->n == n && before != n;
}

/* Between two grid counts (next_count) lo and hi: the boundary where `try` (eff_try or
 * cost_try through `cost`) starts to succeed, by bisection. hi_wins: hi succeeded and lo did
 * not (the smallest success is searched, below hi); else lo succeeded and hi did not (the
 * largest, above lo). Exact where success is monotone between them. 0 or -1. */
static int refine(const struct xmpi_amp_input *in, const struct xmpi_amp_model *m,
                  const struct cost_scan *cost, int spawn, int lo, int hi, int hi_wins, int *x,
                  struct best *b, struct xmpi_amp_plan *out)
{
    while (hi - lo > 1) {
        int mid = lo + (hi - lo) / 2;
        int r = cost ? cost_try(in, m, cost, mid, x, b, out) : eff_try(in, m, mid, spawn, x, b, out);
        if (r < 0) return -1;
        if (r == hi_wins) hi = mid;
        else lo = mid;
    }
    return 0;
}

static int grow(const struct xmpi_amp_input *in, const struct xmpi_amp_model *m, int *x,
                struct xmpi_amp_plan *out)
{
    int room = total(in->free, in->nfree);
    int S = in->max_spawn < room ? in->max_spawn : room;
    double tie = XMPIR_AMP_TIE * max_cost(in->free, in->nfree);
    struct best b = {-1, 0, 0, 0, 0, 0, 0, 1};
    int *y = NULL, rc = 0;
    if (in->constraint == XMPIR_MAP_COST && !(y = malloc((size_t)(in->nfree + 1) * sizeof *y))) {
        say(out, "amp: out of memory");
        return -1;
    }
    struct cost_scan cs = {XMPIR_MAP_SPAWN, in->free, in->nfree, tie, y};
    /* Cost: every grid count, then the gap below the best; efficiency: the first suitable
     * grid count, then the gap below it. */
    for (int s = 1, prev = 0, below = 0; s <= S && rc >= 0; prev = s, s = next_count(s, S)) {
        rc = y ? cost_try(in, m, &cs, s, x, &b, out) : eff_try(in, m, s, 1, x, &b, out);
        if (rc > 0) below = prev;
        if (rc > 0 && !y) rc = refine(in, m, NULL, 1, prev, s, 1, x, &b, out) ? -1 : 2;
        if (rc == 2) break;
        if (y && rc >= 0 && next_count(s, S) > S && b.n > below + 1)
            rc = refine(in, m, &cs, 1, below, b.n, 1, x, &b, out);
    }
    int failed = rc < 0 || (b.n >= 0 && y && full_best(&cs, &b, out));   /* cost: the best's full mapping */
    free(y);
    if (failed) return -1;
    if (b.n < 0) {
        int found = 0;
        if (shrink_search(in, m, x, out, &found)) return -1;
        return found ? 0 : fastest(in, m, S, out);
    }

    take(in, &b, 1, in->constraint == XMPIR_MAP_EFFICIENCY ? "efficiency: the fewest that reach it"
                                                         : "cost: the cheapest that reach it",
         out);
    return 0;
}

static int shrink(const struct xmpi_amp_input *in, const struct xmpi_amp_model *m, int *x,
                  struct xmpi_amp_plan *out)
{
    int found = 0, R = total(in->removable, in->nremovable);
    if (R > in->nprocs - 1) R = in->nprocs - 1;
    if (in->fast_streak < 1) {
        say(out, "interval needs %.4g s to land on the goal (%.4g s), predicted %.4g s: "
                 "faster than needed in this interval only; keeping %d processes until a "
                 "second interval confirms it", out->t_goal, in->goal, out->t_now, in->nprocs);
        return 0;
    }
    if (shrink_search(in, m, x, out, &found)) return -1;
    if (found) return 0;
    if (R == 0)
        say(out, "interval needs %.4g s to land on the goal (%.4g s), predicted %.4g s: "
                 "faster than needed, but no process may leave: keeping %d processes",
            out->t_goal, in->goal, out->t_now, in->nprocs);
    else
        say(out, "interval needs %.4g s to land on the goal (%.4g s), predicted %.4g s: "
                 "faster than needed, but no removal of 1..%d keeps it on the goal: keeping "
                 "%d processes", out->t_goal, in->goal, out->t_now, R, in->nprocs);
    return 0;
}

/* The removals that keep the job on the goal, chosen by the constraint; *found 0: none (the
 * plan is left as it was). Too fast, a removal slows the job down to the goal; too slow, a
 * removal can still reach it where the communication of fewer processes falls by more than
 * their power (then the job is too slow and no spawn helps). */
static int shrink_search(const struct xmpi_amp_input *in, const struct xmpi_amp_model *m, int *x,
                         struct xmpi_amp_plan *out, int *found)
{
    int room = total(in->removable, in->nremovable);
    int R = in->nprocs - 1 < room ? in->nprocs - 1 : room, ng = 0, rc = 0;
    double tie = XMPIR_AMP_TIE * max_cost(in->removable, in->nremovable);
    int eff = in->constraint == XMPIR_MAP_EFFICIENCY;
    struct best b = {-1, 0, 0, 0, 0, 0, 0, 1};
    for (int r = 1; r <= R; r = next_count(r, R)) ng++;
    int *y = eff ? NULL : malloc((size_t)(in->nremovable + 1) * sizeof *y);
    int *g = malloc((size_t)(ng + 1) * sizeof *g);   /* the grid of counts, ascending */
    if ((!eff && !y) || !g) {
        free(y), free(g);
        say(out, "amp: out of memory");
        return -1;
    }
    for (int r = 1, k = 0; r <= R; r = next_count(r, R)) g[k++] = r;
    struct cost_scan cs = {XMPIR_MAP_REMOVE, in->removable, in->nremovable, tie, y};
    /* Efficiency counts down and stops at the first (largest) suitable grid count, then the
     * gap above it; cost scans every grid count ascending (an equal cost, within the tie,
     * goes to the larger r), then the gap above the best. */
    for (int i = 0, at = -1; i < ng && rc >= 0; i++) {
        int j = eff ? ng - 1 - i : i;
        rc = eff ? eff_try(in, m, g[j], 0, x, &b, out) : cost_try(in, m, &cs, g[j], x, &b, out);
        if (rc > 0 && eff) {
            rc = j + 1 < ng && refine(in, m, NULL, 0, g[j], g[j + 1], 0, x, &b, out) ? -1 : 0;
            break;
        }
        if (rc > 0) at = j;
        if (!eff && rc >= 0 && i == ng - 1 && at >= 0 && at + 1 < ng)
            rc = refine(in, m, &cs, 0, g[at], g[at + 1], 0, x, &b, out);
    }
    int failed = rc < 0 || (b.n >= 0 && y && full_best(&cs, &b, out));
    free(y);
    free(g);
    if (failed) return -1;
    *found = b.n >= 0;
    if (b.n < 0) return 0;
    take(in, &b, -1, eff ? "efficiency: the most that keep it" : "cost: the dearest that keep it",
         out);
    return 0;
}

int xmpi_policy_amp(const struct xmpi_amp_input *in, const struct xmpi_amp_model *m,
                    struct xmpi_amp_plan *out)
{
    if (!out) return -1;
    int *count = out->count;
    memset(out, 0, sizeof *out);
    out->count = count;
    out->t_now = out->t_new = out->completion = out->fastest = -1;
    if (check_input(in, m, out)) return -1;

    int k = in->nfree > in->nremovable ? in->nfree : in->nremovable;
    for (int i = 0; i < k; i++) count[i] = 0;
    out->action = XMPIR_PLAN_KEEP;
    out->cost_rate = in->cost_now;
    out->t_goal = (in->goal - in->elapsed) / in->intervals_left;

    /* Phase 1. */
    double c0;
    if (comm_of(m, in->nprocs, &c0)) {
        say(out, "the model cannot predict the communication of an interval on %d processes: "
                 "keeping them", in->nprocs);
        return 0;
    }
    out->t_now = out->t_new = in->work / in->power_now + c0;
    out->completion = completion(in, 0, out->t_now);
    if (fabs(out->t_now - out->t_goal) <= in->tol * out->t_goal) {
        say(out, "interval needs %.4g s to land on the goal (%.4g s), predicted %.4g s: within "
                 "%.4g%%, keeping %d processes", out->t_goal, in->goal, out->t_now,
            100 * in->tol, in->nprocs);
        return 0;
    }

    /* Phase 2. */
    out->verdict = out->t_now > out->t_goal ? 1 : -1;
    int *x = malloc((size_t)(k > 0 ? k : 1) * sizeof *x);
    if (!x) {
        say(out, "amp: out of memory");
        return -1;
    }
    int rc = out->t_now > out->t_goal ? grow(in, m, x, out) : shrink(in, m, x, out);
    free(x);
    if (rc) {
        /* A failed decision leaves no half-written plan. */
        for (int i = 0; i < k; i++) count[i] = 0;
        out->action = XMPIR_PLAN_KEEP;
        out->n = 0;
    }
    return rc;
}
