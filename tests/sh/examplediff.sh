# scripts/example-diff.sh: a row for each example with a plain build; the XMPI_PLAIN conditionals
# resolved, nested ones and derived flags (#if NAME of a NAME they define) included, shown on a
# sample whose answer is known; a #elif on XMPI_PLAIN refused. The port's sizes: heat at most 40
# changed lines, cg3d at most 40 added (its plain build's own halo code is what it removes).
# shared: the examples' source text, no MPI
. "$(dirname "$0")/lib.sh"
D="$ROOT/scripts/example-diff.sh"
"$D" >"$TMP/all" 2>&1
check "example-diff.sh runs over the examples (exit $?)" test $? = 0
for e in jacobi cg epidemic heat cg3d; do
    check "a row for $e" grep -q "^$e " "$TMP/all"
done
col() { awk -v e="$1" -v c="$2" '$1 == e { print $c }' "$TMP/all"; }
check "heat: at most 40 changed lines ($(col heat 5))" test "$(col heat 5)" -le 40
check "cg3d: at most 40 library-only lines ($(col cg3d 4))" test "$(col cg3d 4)" -le 40
sed 's/^/# /' "$TMP/all"

cat >"$TMP/sample.c" <<'C'
int a;
#ifdef XMPI_PLAIN
#define FLAG 0
plain1
#else
#define FLAG 1
lib1
lib2
#endif
#if FLAG
lib3
#ifndef XMPI_PLAIN
lib4
#endif
#else
plain2
#endif
#if OTHER
kept
#endif
C
"$D" "$TMP/sample.c" >"$TMP/sample" 2>&1
# Plain: FLAG 0, plain1, plain2 (3 lines); library: FLAG 1, lib1 .. lib4 (5); "#if OTHER" stays.
check "a sample: 3 plain-only and 5 library-only lines" \
    awk '$1 == "sample" { exit !($3 == 3 && $4 == 5 && $5 == 8) }' "$TMP/sample"
(cd "$TMP" && "$D" sample.c) >"$TMP/relative" 2>&1
check "a file named relative to the current directory" cmp -s "$TMP/sample" "$TMP/relative"
printf '#ifdef XMPI_PLAIN\na\n#elif 1\nb\n#endif\n' >"$TMP/elif.c"
"$D" "$TMP/elif.c" >"$TMP/elif" 2>&1
check "a #elif on XMPI_PLAIN is refused with a message (exit $?)" \
    sh -c "test $? = 2 && grep -q 'elif.c:3: #elif' '$TMP/elif'"
