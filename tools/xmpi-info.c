/* xmpi-info: what this libxmpi is: its version and the run-time options every program linked
 * with it accepts, as text or as the Markdown page docs/options.md (`make docs`). */
#include <stdio.h>
#include <string.h>

#include "../io/options.h"
#include "../io/version.h"

#define PROG "xmpi-info"

static const char help_text[] =
    "NAME\n"
    "    " PROG " - print libxmpi's version and the options its programs accept\n"
    "\n"
    "SYNOPSIS\n"
    "    " PROG " [--version | --options | --options-markdown | --help]\n"
    "\n"
    "DESCRIPTION\n"
    "    Without an argument, or with --version, prints 'libxmpi VERSION'.\n"
    "    --options prints the --xmpi-NAME=VALUE options of programs linked with libxmpi\n"
    "    as --xmpi-help prints them; --options-markdown prints the same table as\n"
    "    Markdown (docs/options.md is this output; `make docs` regenerates it).\n"
    "    -h, --help prints this help.\n"
    "\n"
    "EXIT STATUS\n"
    "    0 on success, 2 on bad usage.\n";

int main(int argc, char **argv)
{
    const char *a = argc > 1 ? argv[1] : "--version";
    if (argc > 2) {
        fprintf(stderr, PROG ": one argument at most, got %d ('%.40s' is extra); usage: " PROG
                " [--version | --options | --options-markdown | --help]\n", argc - 1, argv[2]);
        return 2;
    }
    if (!strcmp(a, "--version")) {
        printf("libxmpi %s\n", XMPIR_PURE_VERSION);
    } else if (!strcmp(a, "--options")) {
        xmpi_options_help(stdout, "programs linked with libxmpi");
    } else if (!strcmp(a, "--options-markdown")) {
        xmpi_options_markdown(stdout);
    } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
        fputs(help_text, stdout);
    } else {
        fprintf(stderr,
                PROG ": unknown argument '%.40s'; accepted: --version, --options, "
                     "--options-markdown, -h, --help\n",
                a);
        return 2;
    }
    return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
}
