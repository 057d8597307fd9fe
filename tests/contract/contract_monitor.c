/* Contract: the monitoring calls: events, counts, the work source, and the trace's interval
 * rows (read back by rank 0 after MPI_Finalize when --xmpi-trace is given).
 * usage: contract_monitor [events=default|bogus|two|nowork] [style=ib|si] [n=N]
 *   default  the default events; a later call naming others is refused
 *   bogus    the first call names an event PAPI does not know
 *   two      the first call names two events; counts has room for exactly two
 *   nowork   iterations without XMPI_Monitor_add_work
 *   envlist  run with --xmpi-events=PAPI_TOT_CYC: the first call passes NULL (the default: that
 *            list), a later one naming PAPI_TOT_CYC is accepted, one naming PAPI_DP_OPS refused
 *   refused  (style=si, n >= 5) iterations 1-3 end in a refused XMPI_Spawn, XMPI_Remove and
 *            XMPI_Checkpoint, after which each declares much more work: the iteration ended at
 *            the refused call, so the trace must not count that work
 * Every iteration each rank declares 10 x (rank + 1) units of work. */
#include "contract.h"

static MPI_Comm W;
static int rank, nprocs;

/* events=refused: iteration k (1-3), opened by XMPI_Monitor_si_init, ends in a refused call;
 * the work declared after it belongs to no iteration. Bit k - 1 of refused_codes: refused. */
static int refused_codes;
static const char *prog;
static void refuse_and_work(int k)
{
    int rc;
    if (k == 1) rc = X(XMPI_Spawn(prog, NULL, 0, MPI_INFO_NULL, NULL));
    else if (k == 2) rc = X(XMPI_Remove(1, NULL));
    else rc = X(XMPI_Checkpoint("contract-monitor-refused"));
    int want = k == 1 ? XMPI_ERR_ARG : k == 2 ? XMPI_ERR_RESOURCES : XMPI_ERR_STATE;
    if (rc == want) refused_codes |= 1 << (k - 1);
    X(XMPI_Monitor_add_work(1e6));
}

static int source_is(const char *want)
{
    const char *s = XMPI_Monitor_work_source();
    return s && strcmp(s, want) == 0;
}
static int source_papi(void)
{
    const char *s = XMPI_Monitor_work_source();
    return s && strncmp(s, "papi:", 5) == 0;
}

int main(int argc, char **argv)
{
    const char *events = "default", *style = "ib";
    int n = 10;
    MPI_Init(&argc, &argv);
    prog = argv[0];
    for (int a = 1; a < argc; a++) {
        if (!strncmp(argv[a], "events=", 7)) events = argv[a] + 7;
        if (!strncmp(argv[a], "style=", 6)) style = argv[a] + 6;
        if (!strncmp(argv[a], "n=", 2)) n = atoi(argv[a] + 2);
    }
    W = XMPI_COMM_WORLD;
    MPI_Comm_rank(W, &rank);
    MPI_Comm_size(W, &nprocs);
    char trace[512] = "", si_s[32] = "";
    X(XMPI_Get_option("trace", trace, sizeof trace));
    X(XMPI_Get_option("si", si_s, sizeof si_s));
    char tag[64];
    snprintf(tag, sizeof tag, "np%d %s %s si=%s n=%d", nprocs, events, style, si_s, n);
    contract_start("contract_monitor", tag);
    int rc;

    PROMISE("\"papi:EVENT[+EVENT...]\" when PAPI counts the work, \"declared\" when it cannot (the work is "
            "then what XMPI_Monitor_add_work declared, 0 when nothing was), or \"none\" (no monitored "
            "iteration yet).");
    check_all(W, source_is("none"), "before any monitored iteration XMPI_Monitor_work_source() is "
                                    "\"none\"");

    char *bogus[] = {"XMPI_CONTRACT_NO_SUCH_EVENT", NULL};
    char *two[] = {"PAPI_TOT_CYC", "PAPI_TOT_INS", NULL};
    char **first = !strcmp(events, "bogus") ? bogus : !strcmp(events, "two") ? two : NULL;
    int nev = first == two ? 2 : 1;
    long long counts[3] = {-77, -77, -77};

    /* the first iteration: the list is fixed here */
    capture_begin();
    if (!strcmp(style, "ib")) rc = X(XMPI_Monitor_iter_begin(first));
    else rc = first ? X(XMPI_Monitor_iter_begin(first)) : X(XMPI_Monitor_si_init());
    int first_lines = capture_end();
    if (first == bogus) {
        PROMISE("reserved: when PAPI refuses the events, monitoring goes on without them, rank 0 says so "
                "once and the calls succeed");
        check_code(W, rc, XMPI_SUCCESS, "the first call naming an event PAPI refuses (not XMPI_ERR_PAPI)");
        check_one_line(W, first_lines, "the first call naming an event PAPI refuses");
    }
    PROMISE("When the events cannot be counted (no hardware counters, unknown name) the work source "
            "falls back to the work declared with XMPI_Monitor_add_work and the call still returns "
            "XMPI_SUCCESS;");
    check_code(W, rc, XMPI_SUCCESS, first == bogus ? "XMPI_Monitor_iter_begin naming an unknown event"
                                                   : "the first monitoring call");
    if (first) {
        PROMISE("events: NULL-terminated array of PAPI event names, or NULL for the default "
                "(--xmpi-events, else PAPI_DP_OPS, else PAPI_FP_OPS).");
        check_all(W, rc == XMPI_SUCCESS, "a NULL-terminated list of %d event name(s) is accepted", nev);
    }
    if (strcmp(events, "nowork") != 0) {
        rc = X(XMPI_Monitor_add_work(10.0 * (rank + 1)));
        PROMISE("Declares `flop` units of work done by this rank in the current iteration.");
        check_code(W, rc, XMPI_SUCCESS, "XMPI_Monitor_add_work inside the iteration");
    }
    if (!strcmp(style, "ib") || first) {
        rc = X(XMPI_Monitor_iter_end(counts));
        check_code(W, rc, XMPI_SUCCESS, "XMPI_Monitor_iter_end(counts)");
        PROMISE("counts: NULL, or room for one long long per requested event (one for the default).");
        int ok = counts[nev] == -77;
        PROMISE("It receives this iteration's count of each event, or -1 for an event that is not being "
                "counted.");
        int papi = source_papi();
        for (int e = 0; e < nev; e++) ok &= papi ? counts[e] >= -1 : counts[e] == -1;
        check_all(W, ok, "counts holds one value per event (-1 where not counted: %lld, %lld) and nothing "
                         "past them", counts[0], nev > 1 ? counts[1] : 0LL);
    }
    PROMISE("XMPI_Monitor_work_source() tells which.");
    if (!strcmp(events, "nowork")) {
        PROMISE("\"papi:EVENT[+EVENT...]\" when PAPI counts the work, \"declared\" when it cannot (the work "
                "is then what XMPI_Monitor_add_work declared, 0 when nothing was), or \"none\" (no "
                "monitored iteration yet).");
        check_all(W, source_is("declared") || source_papi(), "with no work declared the source is "
                                                             "\"declared\" (or papi: where PAPI counts): "
                                                             "\"%s\"", XMPI_Monitor_work_source());
    } else if (first == bogus)
        check_all(W, source_is("declared"), "an unknown event falls back to the declared work: \"%s\"",
                  XMPI_Monitor_work_source());
    else
        check_all(W, source_is("declared") || source_papi(), "after an iteration with declared work the "
                                                             "source is \"declared\" or papi:...: \"%s\"",
                  XMPI_Monitor_work_source());
    PROMISE("Never NULL.");
    check_all(W, XMPI_Monitor_work_source() != NULL, "XMPI_Monitor_work_source() is not NULL");

    /* a later call naming other events */
    if (!strcmp(style, "ib")) {
        char *other[] = {"PAPI_L1_DCM", NULL};
        PROMISE("The list is fixed by the first call; a later call naming different events returns "
                "XMPI_ERR_ARG.");
        rc = X(XMPI_Monitor_iter_begin(other));
        check_code(W, rc, XMPI_ERR_ARG, "XMPI_Monitor_iter_begin naming other events than the first call");
        PROMISE("on an error nothing the call would have changed has changed.");
        rc = X(XMPI_Monitor_iter_end(NULL));
        check_code(W, rc, XMPI_ERR_STATE, "XMPI_Monitor_iter_end after the refused begin (no iteration "
                                          "was begun)");
        PROMISE("The list is fixed by the first call; a later call naming different events returns "
                "XMPI_ERR_ARG.");
        rc = X(XMPI_Monitor_iter_begin(first));
        if (strcmp(events, "nowork") != 0) X(XMPI_Monitor_add_work(10.0 * (rank + 1)));
        int rc2 = X(XMPI_Monitor_iter_end(NULL));
        check_all(W, rc == XMPI_SUCCESS && rc2 == XMPI_SUCCESS, "the first call's events again are "
                                                                "accepted (%d, %d)", rc, rc2);
    }

    if (!strcmp(events, "envlist")) {
        /* NULL meant --xmpi-events's list: naming it is no change, naming another is */
        char *same[] = {"PAPI_TOT_CYC", NULL}, *other[] = {"PAPI_DP_OPS", NULL};
        PROMISE("events: NULL-terminated array of PAPI event names, or NULL for the default "
                "(--xmpi-events, else PAPI_DP_OPS, else PAPI_FP_OPS).");
        rc = X(XMPI_Monitor_iter_begin(same));
        X(XMPI_Monitor_add_work(10.0 * (rank + 1)));
        int rc2 = X(XMPI_Monitor_iter_end(NULL));
        check_all(W, rc == XMPI_SUCCESS && rc2 == XMPI_SUCCESS, "after NULL with --xmpi-events="
                                                                "PAPI_TOT_CYC, naming PAPI_TOT_CYC is the "
                                                                "same list (%d)", rc);
        rc = X(XMPI_Monitor_iter_begin(other));
        check_code(W, rc, XMPI_ERR_ARG, "naming PAPI_DP_OPS after the default was --xmpi-events="
                                        "PAPI_TOT_CYC");
    }

    /* the rest of the n iterations, in the style asked; nothing more is said about the events */
    int done = (!strcmp(style, "ib") ? 2 : 1) + !strcmp(events, "envlist");
    int refused = !strcmp(events, "refused") && !strcmp(style, "si");
    capture_begin();
    for (int k = done; k < n; k++) {
        if (!strcmp(style, "ib")) X(XMPI_Monitor_iter_begin(first));
        else X(XMPI_Monitor_si_init());
        if (strcmp(events, "nowork") != 0) X(XMPI_Monitor_add_work(10.0 * (rank + 1)));
        double v = k, s;
        MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, W);
        if (!strcmp(style, "ib")) X(XMPI_Monitor_iter_end(NULL));
        if (refused && k <= 3) refuse_and_work(k);
    }
    int later_lines = capture_end();
    if (first == bogus) {
        PROMISE("reserved: when PAPI refuses the events, monitoring goes on without them, rank 0 says so "
                "once and the calls succeed");
        check_all(W, later_lines == 0, "the later monitoring calls say nothing more about the events "
                                       "(%d lines)", later_lines);
    }
    if (refused) {
        PROMISE("an iteration XMPI_Monitor_si_init opened ends at the call, also when the call is then "
                "refused for its arguments or resources (the iteration's work is over either way).");
        check_all(W, refused_codes == 7, "XMPI_Spawn of 0 processes, XMPI_Remove with nothing spawned and "
                                          "XMPI_Checkpoint with nothing registered were refused");
    }
    PROMISE("Every XMPI_ call returns one of these;");
    check_all(W, contract_bad_codes == 0, "every XMPI_ call returned one of the header's codes");
    MPI_Finalize();

    if (rank == 0 && trace[0]) {
        /* iteration column: si, 2 si, ... and n (the last, partial interval at MPI_Finalize);
         * work_sum: the declared work of the interval's iterations */
        int si = atoi(si_s), seen[256], ns = 0, row = 0, ivok = 1, workok = 1;
        int ci = -1, cv = -1, cw = -1, cs = -1, cn = -1;
        double want_w = strcmp(events, "nowork") ? 10.0 * nprocs * (nprocs + 1) / 2 : 0;
        int ndecl = 0;
        char line[8192], got[512] = "";
        FILE *f = fopen(trace, "r");
        while (f && fgets(line, sizeof line, f)) {
            char *field[128], *save = NULL;
            int nf = 0;
            for (char *t = strtok_r(line, ",\n", &save); t && nf < 128; t = strtok_r(NULL, ",\n", &save))
                field[nf++] = t;
            for (int c = 0; row == 0 && c < nf; c++) {
                if (!strcmp(field[c], "iteration")) ci = c;
                if (!strcmp(field[c], "interval")) cv = c;
                if (!strcmp(field[c], "work_sum")) cw = c;
                if (!strcmp(field[c], "work_source")) cs = c;
                if (!strcmp(field[c], "iterations")) cn = c;
            }
            if (row > 0 && ci >= 0 && ci < nf && ns < 256) {
                seen[ns++] = atoi(field[ci]);
                size_t L = strlen(got);
                if (L < sizeof got - 16) snprintf(got + L, sizeof got - L, "%s%s", L ? "," : "", field[ci]);
                if (cv < 0 || cv >= nf || atoi(field[cv]) != row) ivok = 0;
                if (cw >= 0 && cs >= 0 && cn >= 0 && cw < nf && cs < nf && cn < nf &&
                    !strcmp(field[cs], "declared")) {
                    ndecl++;
                    if (atof(field[cw]) != want_w * atoi(field[cn])) workok = 0;
                }
            }
            row++;
        }
        if (f) fclose(f);
        int ok = f && ci >= 0 && si > 0 && ivok, k = 0;
        for (int e = si; ok && e < n + si; e += si, k++) ok = k < ns && seen[k] == (e < n ? e : n);
        PROMISE("Every --xmpi-si iterations the per-rank records are gathered (collectively, inside the "
                "iteration-ending call) into one interval summary.");
        DOC_PROMISE("docs/formats.md", "If the iteration count is not a multiple of `si`, `MPI_Finalize` "
                                       "adds a last, partial interval.");
        check_self(ok && k == ns, "the trace has intervals 1, 2, ... at iterations %d, %d, ... and %d "
                                  "last: %s", si, 2 * si, n, got);
        if (!strcmp(style, "si"))
            PROMISE("High-level form: ends the iteration begun by the previous call, if any, and begins the "
                    "next one with the default events.");
        else
            PROMISE("Bracket each iteration of the main loop with XMPI_Monitor_iter_begin/end, or call "
                    "XMPI_Monitor_si_init once at the top of each iteration.");
        check_self(ok && k == ns, "%s: every iteration counted once", style);
        PROMISE("Used as the work measure when PAPI cannot count (the usual case in VMs).");
        check_self(workok && cw >= 0, "where the source is declared, each row's work_sum is the work the "
                                      "ranks declared in its iterations (%d such rows)", ndecl);
        if (!strcmp(events, "nowork")) {
            PROMISE("\"papi:EVENT[+EVENT...]\" when PAPI counts the work, \"declared\" when it cannot (the "
                    "work is then what XMPI_Monitor_add_work declared, 0 when nothing was), or \"none\" (no "
                    "monitored iteration yet).");
            check_self(workok && cw >= 0, "nothing declared: each declared row's work_sum is 0 (%d rows)",
                       ndecl);
        }
        if (!strcmp(events, "refused")) {
            PROMISE("an iteration XMPI_Monitor_si_init opened ends at the call, also when the call is then "
                    "refused for its arguments or resources (the iteration's work is over either way).");
            check_self(workok && cw >= 0, "the work declared after a refused XMPI_Spawn or XMPI_Remove "
                                          "counts in no iteration (%d declared rows)", ndecl);
            PROMISE("an iteration XMPI_Monitor_si_init opened ends at the call (it counts as completed, also "
                    "when the call is then refused);");
            check_self(workok && ok && k == ns, "the iteration a refused XMPI_Checkpoint ended counts once, "
                                                "without the work declared after the call");
        }
    }
    if (rank == 0) contract_end();
    return 0;
}
