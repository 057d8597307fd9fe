#!/usr/bin/env bash
# No function of the library, the models, the policies or io is longer than MAX lines (from the
# definition's "{" to its "}", both at column 0, as funclen.awk counts them): a longer one is
# split by meaning into helpers named for what they do. A sample shows that the check bites.
# shared: the source text, no MPI
. "$(dirname "$0")/lib.sh"
MAX=80
AWK="$ROOT/tests/sh/funclen.awk"

# Functions allowed beyond MAX for a while ("FILE NAME LINES", one per line), each up to its
# length then, not one line more: none today.
ALLOWED=""

# too_long FILE...: "FILE:LINE: HEADER: N lines" for each function of FILE over MAX lines.
too_long() { awk -v MAX=$MAX -f "$AWK" "$@"; }

# not_allowed [stale]: the lines of too_long that the allow-list does not cover (a function not
# on it, or one grown past its ceiling); with "stale", also a "# ..." line for each allowed
# function that is no longer too long.
not_allowed() {
    awk -v allowed="$ALLOWED" -v stale="${1:-}" '
        BEGIN {
            n = split(allowed, entry, "\n")
            for (i = 1; i <= n; i++) { split(entry[i], f, " "); ceiling[f[1] " " f[2]] = f[3] }
        }
        {
            file = $0; sub(/:.*/, "", file)
            name = $0; sub(/^[^:]*:[0-9]+: /, "", name); sub(/\(.*/, "", name)
            sub(/.*[ *]/, "", name)
            key = file " " name
            seen[key] = 1
            if ((key in ceiling) && $(NF - 1) + 0 <= ceiling[key] + 0) next
            print
        }
        END {
            for (i = 1; stale && i <= n; i++) {
                split(entry[i], f, " ")
                if (!((f[1] " " f[2]) in seen))
                    print "# " f[1] " " f[2] " is no longer too long: take it off the allow-list"
            }
        }'
}

[ -z "$ALLOWED" ] || echo "# allowed for now:$(echo "$ALLOWED" |
    awk '{ printf "%s %s %s (at most %d lines)", (NR > 1 ? "," : ""), $1, $2, $3 }')"
out=$(cd "$ROOT" && too_long libxmpi/*.c models/*.c policies/*.c io/*.c | not_allowed stale)
bad=$(printf '%s\n' "$out" | grep -v '^#' | grep .)
if [ -z "$bad" ]; then
    ok "no function in the library, the models, the policies or io is over $MAX lines"
else
    notok "functions over $MAX lines in the library, the models, the policies or io:"
    printf '%s\n' "$bad" | sed 's/^/#   /'
fi
printf '%s\n' "$out" | grep '^#'

# The check itself must catch a long function: a sample in a temporary file, never in the
# tree, with one function of MAX + 1 lines and one of MAX.
sample() {   # NAME LINES: a C function whose body is LINES lines
    printf 'static int %s(int x)\n{\n' "$1"
    for ((i = 1; i < $2; i++)); do echo "    x += $i;"; done
    printf '    return x;\n}\n\n'
}
fake=$(mktemp)
{ sample too_long_fn $((MAX + 1)); sample just_fits_fn $MAX; } >"$fake"
v=$(too_long "$fake" | not_allowed)
check "a function of $((MAX + 1)) lines in a sample file is caught, one of $MAX is not" \
    [ "$v" = "$fake:2: static int too_long_fn(int x): $((MAX + 1)) lines" ]
# An allowed length is a ceiling: one line more is caught.
v=$(printf 'io/sample.c:1: static int grown(void): %d lines\n' 90 91 |
    ALLOWED="io/sample.c grown 90" not_allowed)
check "an allowed function grown past its ceiling is caught" \
    [ "$v" = "io/sample.c:1: static int grown(void): 91 lines" ]
rm -f "$fake"
