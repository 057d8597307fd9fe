/* Contract: XMPI_Get_option, and what MPI_Init does with the --xmpi- arguments.
 * usage: contract_options [NAME=VALUE...]   each pair: XMPI_Get_option(NAME) must give VALUE
 * (the runner sets the options by the command line, the environment or not at all). */
#include "contract.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm W = XMPI_COMM_WORLD;
    int rank, nprocs, rc;
    MPI_Comm_rank(W, &rank);
    MPI_Comm_size(W, &nprocs);
    char tag[64];
    snprintf(tag, sizeof tag, "np%d", nprocs);
    contract_start("contract_options", tag);

    DOC_PROMISE("docs/options.md", "`MPI_Init` removes the `--xmpi-` arguments from `argv` before `main` "
                                   "sees them;");
    int stripped = 1;
    for (int a = 1; a < argc; a++) stripped &= strncmp(argv[a], "--xmpi-", 7) != 0;
    check_all(W, stripped, "no --xmpi- argument is left in argv after MPI_Init");

    /* the expected values the runner gives */
    PROMISE("The effective value of libxmpi option `name` (\"si\", \"spawn\", ...: the NAME of "
            "--xmpi-NAME) as text, after the command line, the environment and the defaults (an empty "
            "string for an unset file name).");
    for (int a = 1; a < argc; a++) {
        char name[64], *eq = strchr(argv[a], '=');
        if (!eq || eq - argv[a] >= (long)sizeof name) continue;
        memcpy(name, argv[a], eq - argv[a]);
        name[eq - argv[a]] = '\0';
        char value[1024] = "";
        rc = X(XMPI_Get_option(name, value, sizeof value));
        check_all(W, rc == XMPI_SUCCESS && strcmp(value, eq + 1) == 0,
                  "XMPI_Get_option(\"%s\") gives '%s' (got %d, '%s')", name, eq + 1, rc, value);
    }

    /* refusals: the buffer is left alone */
    PROMISE("XMPI_ERR_ARG for an unknown name or a value longer than len - 1.");
    char buf[64];
    memset(buf, 'Q', sizeof buf);
    rc = X(XMPI_Get_option("contract-no-such-option", buf, sizeof buf));
    int kept = 1;
    for (unsigned i = 0; i < sizeof buf; i++) kept &= buf[i] == 'Q';
    check_all(W, rc == XMPI_ERR_ARG && kept, "an unknown name: XMPI_ERR_ARG, the buffer untouched (got %d)",
              rc);
    char si[32] = "";
    X(XMPI_Get_option("si", si, sizeof si));
    int len = (int)strlen(si);
    memset(buf, 'Q', sizeof buf);
    rc = X(XMPI_Get_option("si", buf, len));
    kept = 1;
    for (unsigned i = 0; i < sizeof buf; i++) kept &= buf[i] == 'Q';
    check_all(W, rc == XMPI_ERR_ARG, "len = strlen(value) (%d): XMPI_ERR_ARG (got %d)", len, rc);
    PROMISE("on an error nothing the call would have changed has changed.");
    check_all(W, kept, "len = strlen(value): the refused call left the buffer untouched (it holds "
                       "'%.8s')", buf[0] == 'Q' ? "QQQ..." : buf);
    PROMISE("XMPI_ERR_ARG for an unknown name or a value longer than len - 1.");
    rc = X(XMPI_Get_option("si", buf, len + 1));
    check_all(W, rc == XMPI_SUCCESS && strcmp(buf, si) == 0, "len = strlen(value) + 1: the whole value "
                                                             "(got %d)", rc);
    PROMISE("an argument is invalid (NULL, out of range, inconsistent)");
    rc = X(XMPI_Get_option(NULL, buf, sizeof buf));
    check_code(W, rc, XMPI_ERR_ARG, "XMPI_Get_option(NULL name)");
    rc = X(XMPI_Get_option("si", NULL, 8));
    check_code(W, rc, XMPI_ERR_ARG, "XMPI_Get_option(NULL value)");
    rc = X(XMPI_Get_option("si", buf, 0));
    check_code(W, rc, XMPI_ERR_ARG, "XMPI_Get_option with len 0");

    /* names are the NAME of --xmpi-NAME, dashes included */
    PROMISE("The effective value of libxmpi option `name` (\"si\", \"spawn\", ...: the NAME of "
            "--xmpi-NAME) as text, after the command line, the environment and the defaults (an empty "
            "string for an unset file name).");
    char v[64] = "";
    rc = X(XMPI_Get_option("lb-th1", v, sizeof v));
    check_all(W, rc == XMPI_SUCCESS && v[0], "XMPI_Get_option(\"lb-th1\") names --xmpi-lb-th1 ('%s')", v);
    rc = X(XMPI_Get_option("--xmpi-si", v, sizeof v));
    check_all(W, rc == XMPI_ERR_ARG, "XMPI_Get_option(\"--xmpi-si\") is not a name (got %d)", rc);

    PROMISE("Every XMPI_ call returns one of these;");
    check_all(W, contract_bad_codes == 0, "every XMPI_ call returned one of the header's codes");
    MPI_Finalize();
    if (rank == 0) contract_end();
    return 0;
}
