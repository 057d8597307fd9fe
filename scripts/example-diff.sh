#!/usr/bin/env bash
# How far each example's library build is from its plain-MPI build: the lines that differ
# between the two versions of its source once the XMPI_PLAIN conditionals are resolved.
# usage: scripts/example-diff.sh [FILE.c ...]   (default: every examples/*.c with a plain build)
#
# Only the conditionals on XMPI_PLAIN are resolved (#ifdef/#ifndef XMPI_PLAIN, #if
# [!]defined(XMPI_PLAIN), and #if NAME for a NAME that such a conditional #defines to 0 or 1, as
# jacobi.c's HAVE_LBALANCE); every other line, directives included, is kept as it is, so that
# the diff is the source a reader compares, not the compiler's. The directives of the resolved
# conditionals are dropped from both versions. Then `diff` compares the two versions: plain-only
# lines are what the port removes, library-only lines what it adds, changed is their sum.
# A conditional this cannot resolve (#elif on XMPI_PLAIN) stops it with a message.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd) || exit 2

# version PLAIN FILE: FILE with the XMPI_PLAIN conditionals resolved for the plain build (1) or
# the library build (0).
version() {
    awk -v plain="$1" -v file="$2" '
        function fail(msg) { printf "example-diff: %s:%d: %s\n", file, FNR, msg > "/dev/stderr"; bad = 1; exit 2 }
        # Whether the lines at the current depth are kept: every enclosing resolved branch taken.
        function live(   i) { for (i = 1; i <= depth; i++) if (res[i] && !take[i]) return 0; return 1 }
        /^[ \t]*#[ \t]*if(n?def)?[ \t]/ {
            line = $0
            sub(/^[ \t]*#[ \t]*/, "", line)
            kw = line; sub(/[ \t].*/, "", kw)
            arg = line; sub(/^[a-z]+[ \t]+/, "", arg); sub(/[ \t]*(\/[*\/].*)?$/, "", arg)
            r = 0; t = 0
            if (kw == "ifdef" && arg == "XMPI_PLAIN") { r = 1; t = plain }
            else if (kw == "ifndef" && arg == "XMPI_PLAIN") { r = 1; t = !plain }
            else if (kw == "if" && arg ~ /^defined[ (]*XMPI_PLAIN[ )]*$/) { r = 1; t = plain }
            else if (kw == "if" && arg ~ /^![ \t]*defined[ (]*XMPI_PLAIN[ )]*$/) { r = 1; t = !plain }
            else if (kw == "if" && (arg in derived)) { r = 1; t = derived[arg] }
            depth++; res[depth] = r; take[depth] = t
            if (r) next
            if (live()) print
            next
        }
        /^[ \t]*#[ \t]*elif/ {
            if (depth && res[depth]) fail("#elif in a conditional on XMPI_PLAIN; write it as #else/#if")
            if (live()) print
            next
        }
        /^[ \t]*#[ \t]*else/ {
            if (!depth) fail("#else without #if")
            if (res[depth]) { take[depth] = !take[depth]; next }
            if (live()) print
            next
        }
        /^[ \t]*#[ \t]*endif/ {
            if (!depth) fail("#endif without #if")
            r = res[depth]; depth--
            if (r) next
            if (live()) print
            next
        }
        {
            if (!live()) next
            # A flag a resolved branch sets: #if NAME then follows the same build.
            if (depth && res[depth] && $0 ~ /^[ \t]*#[ \t]*define[ \t]+[A-Za-z_][A-Za-z0-9_]*[ \t]+[01][ \t]*$/) {
                name = $0; sub(/^[ \t]*#[ \t]*define[ \t]+/, "", name)
                val = name; sub(/[ \t].*/, "", name); sub(/^[A-Za-z0-9_]+[ \t]+/, "", val)
                derived[name] = val + 0
            }
            print
        }
        END { if (!bad && depth) { printf "example-diff: %s: %d conditional(s) never closed\n", file, depth > "/dev/stderr"; exit 2 } }
    ' "$2"
}

files=("$@")
if [ ${#files[@]} -eq 0 ]; then
    for f in "$ROOT"/examples/*.c; do
        grep -q 'XMPI_PLAIN' "$f" && files+=("$f")
    done
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-12s %6s %10s %12s %8s\n' example lines plain-only library-only changed
status=0
for f in "${files[@]}"; do
    if [ ! -r "$f" ]; then
        echo "example-diff: cannot read '$f'" >&2
        status=2
        continue
    fi
    version 1 "$f" >"$tmp/plain" || { status=2; continue; }
    version 0 "$f" >"$tmp/lib" || { status=2; continue; }
    set -- $(diff "$tmp/plain" "$tmp/lib" | awk '/^</ { p++ } /^>/ { l++ } END { print p + 0, l + 0 }')
    printf '%-12s %6d %10d %12d %8d\n' "$(basename "$f" .c)" "$(wc -l <"$tmp/lib")" "$1" "$2" $(($1 + $2))
done
exit $status
