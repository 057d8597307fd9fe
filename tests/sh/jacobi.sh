# Jacobi: the library changes no result (bitwise-identical solution with and without it,
# on 1, 2 and 3 ranks), the solver converges to the known solution, and bad input is refused.
. "$(dirname "$0")/lib.sh"
J="$ROOT/$BUILD/bin/jacobi"
JP="$ROOT/$BUILD/bin/jacobi-plain"

# field NAME FILE: a key=value from the result line.
field() { sed -n "s/^result:.* $1=\([^ ]*\).*/\1/p" "$2"; }

run() { # run OUT NP PROG ARGS...
    local out=$1 np=$2; shift 2
    "$LAUNCH" -np "$np" "$@" >"$out" 2>"$out.err"
}

run "$TMP/plain2" 2 "$JP" -n 240 -i 60 -s 7
run "$TMP/xmpi2" 2 "$J" -n 240 -i 60 -s 7 --xmpi-si=20 "--xmpi-trace=$TMP/j.csv"
run "$TMP/xmpi1" 1 "$J" -n 240 -i 60 -s 7
run "$TMP/xmpi3" 3 "$J" -n 240 -i 60 -s 7
c=$(field checksum "$TMP/plain2")
check "plain Jacobi printed a result" test -n "$c"
check "same solution with and without libxmpi (2 ranks)" test "$c" = "$(field checksum "$TMP/xmpi2")"
check "same solution on 1 rank" test "$c" = "$(field checksum "$TMP/xmpi1")"
check "same solution on 3 ranks" test "$c" = "$(field checksum "$TMP/xmpi3")"
check "same residual with and without libxmpi" \
    test "$(field residual "$TMP/plain2")" = "$(field residual "$TMP/xmpi2")"
# Summed over the rows in global order, the residual does not depend on the partition either.
check "same residual on 1 and 3 ranks" \
    test "$(field residual "$TMP/xmpi1")" = "$(field residual "$TMP/xmpi3")" -a -n "$(field residual "$TMP/xmpi1")"
# b = A x* with a known x*: the error is measured against it, not against another run.
check "converges to the known solution (max error < 1e-10)" \
    awk -v e="$(field error "$TMP/xmpi3")" 'BEGIN { exit !(e != "" && e + 0 < 1e-10) }'
check "trace: 3 intervals of 20 iterations" test "$(wc -l <"$TMP/j.csv")" = 4
# Declared work is 2 * rows * n per rank and iteration: 2 * 240 * 240 * 20 per interval.
check "trace: work_sum is the declared FLOP" \
    test "$(awk -F, 'NR>1 && $7==2304000' "$TMP/j.csv" | wc -l)" = 3

# A Matrix Market array file (column-major), solved with x* = 1.
cat >"$TMP/a.mtx" <<'MTX'
%%MatrixMarket matrix array real general
% a 4x4 diagonally dominant test matrix
4 4
10
1
-2
0.5
1
12
1
-1
2
-1
9
2
0
3
1
11
MTX
run "$TMP/file" 2 "$J" -f "$TMP/a.mtx" -i 200
check "Matrix Market file solved (error < 1e-12)" \
    awk -v e="$(field error "$TMP/file")" 'BEGIN { exit !(e != "" && e + 0 < 1e-12) }'

# Bad input: non-zero exit, one message naming the problem, and no hang (timeout is 124).
bad() { # bad DESCRIPTION PATTERN ARGS...
    local d=$1 p=$2; shift 2
    "$LAUNCH" -np 2 "$J" "$@" >"$TMP/bad" 2>&1
    local rc=$?
    if [ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q -- "$p" "$TMP/bad" && ! grep -q '^result:' "$TMP/bad"; then
        ok "$d"
    else
        notok "$d (exit $rc)"; sed 's/^/#   /' "$TMP/bad" | head -10
    fi
}
bad "order 0 refused" "-n" -n 0
bad "non-numeric order refused" "-n" -n abc
bad "negative iterations refused" "-i" -i -5
bad "missing file refused" "$TMP/none.mtx" -f "$TMP/none.mtx"
printf '%%%%MatrixMarket matrix array real general\n3 2\n1\n2\n3\n4\n5\n6\n' >"$TMP/rect.mtx"
bad "non-square file refused" "rect.mtx" -f "$TMP/rect.mtx"

# -p: blocks in proportion to the weights (240 / 1.4 and 240 * 0.4 / 1.4 rows: 171.43 and
# 68.57; the larger remainder takes the row left over), the same solution as even blocks.
run "$TMP/weighted" 2 "$J" -n 240 -i 60 -s 7 -p 1,0.4
check "-p 1,0.4 splits 240 rows 171/69" test "$(field rows "$TMP/weighted")" = "171,69"
check "-p changes no result" test "$c" = "$(field checksum "$TMP/weighted")"
run "$TMP/weighted3" 3 "$J" -n 240 -i 60 -s 7 -p 1,1,2 -b
check "-p 1,1,2 with -b on 3 ranks starts from 60/60/120 and keeps the solution" \
    test "$c" = "$(field checksum "$TMP/weighted3")"
bad "-p with a zero weight refused" "-p" -p 1,0
bad "-p with an empty weight refused" "-p" -p 1,,2
bad "-p with one weight for 2 ranks refused" "one per rank" -p 1

# -d spawns and removes processes (tests/sh/malleable.sh); the plain build cannot, and says so
# once, before any work.
"$LAUNCH" -np 2 "$JP" -n 100 -d >"$TMP/plaind" 2>&1
rc=$?
check "-d refused by jacobi-plain: exit 2, one message, no result" \
    test $rc = 2 -a "$(grep -c '^jacobi: -d needs libxmpi' "$TMP/plaind")" = 1 -a "$(grep -c '^result:' "$TMP/plaind")" = 0
