# CG: the same bits on 1, 2 and 3 ranks, with and without the library, with the halo exchange
# (the default) and the whole direction gathered (--cg-allgather), and when the rows move between
# iterations; convergence to the known solution; Matrix Market input; bad input refused.
. "$(dirname "$0")/lib.sh"
C="$ROOT/$BUILD/bin/cg"
CP="$ROOT/$BUILD/bin/cg-plain"

# field NAME FILE: a key=value from the result line.
field() { sed -n "s/^result:.* $1=\([^ ]*\).*/\1/p" "$2"; }

# start OUT NP PROG ARGS...: one job in the background (its exit status goes to OUT.rc). The runs
# are tiny and mpirun's start-up is mostly waiting, so a batch runs at once and then `wait`s.
# Each job has a TMPDIR of its own: Open MPI 4.1's mpiruns started together race to create their
# common session directory (/tmp/ompi.HOST.UID), and the loser ends with "A call to mkdir was
# unable to create the desired directory ... File exists" (a --cg-shuffle=0 case, 2026-11-28).
start() {
    local out=$1 np=$2; shift 2
    mkdir -p "$out.tmp"
    ( TMPDIR="$out.tmp" "$LAUNCH" -np "$np" "$@" >"$out" 2>"$out.err"; echo $? >"$out.rc" ) &
}

below() { awk -v v="$1" -v lim="$2" 'BEGIN { exit !(v != "" && v + 0 < lim) }'; }

# same NAME A B: the checksum and residual of two runs agree, bit for bit.
same() {
    check "$1: same checksum" test -n "$(field checksum "$2")" -a "$(field checksum "$2")" = "$(field checksum "$3")"
    check "$1: same residual" test -n "$(field residual "$2")" -a "$(field residual "$2")" = "$(field residual "$3")"
}

# The balanced runs put rank 1 on an emulated class at 0.1 of a core: an imbalance that no
# noise hides, so that the balancer moves rows (it waits for evidence that a move pays).
H=$(hostname)
printf '%s:fast:1:1:1\n%s:slow:1:1:0.1\n' "$H" "$H" >"$TMP/classes"
SLOW=("--xmpi-resources=$TMP/classes" --xmpi-initial=fast:1,slow:1)
for g in poisson3d:10 uneven:2000; do
    t=${g%%:*}
    start "$TMP/$t.1" 1 "$C" -g $g
    start "$TMP/$t.2" 2 "$C" -g $g --xmpi-si=10 "--xmpi-trace=$TMP/$t.csv"
    start "$TMP/$t.ag" 2 "$C" -g $g --cg-allgather --xmpi-si=10 "--xmpi-trace=$TMP/$t.ag.csv"
    start "$TMP/$t.ag3" 3 "$C" -g $g --cg-allgather --cg-shuffle=3
    start "$TMP/$t.3" 3 "$C" -g $g
    start "$TMP/$t.plain" 2 "$CP" -g $g
    start "$TMP/$t.shuffle" 3 "$C" -g $g --cg-shuffle=3
    start "$TMP/$t.lb" 2 "$C" -g $g -b --xmpi-si=5 --xmpi-lb=nnz --xmpi-lb-th1=0 "${SLOW[@]}" \
        "--xmpi-trace=$TMP/$t.lb.csv"
done
wait
for g in poisson3d:10 uneven:2000; do
    t=${g%%:*}
    check "$g: result line" test -n "$(field checksum "$TMP/$t.2")"
    same "$g 2 ranks vs 1" "$TMP/$t.2" "$TMP/$t.1"
    same "$g 2 ranks vs 3" "$TMP/$t.2" "$TMP/$t.3"
    same "$g with vs without libxmpi" "$TMP/$t.2" "$TMP/$t.plain"
    same "$g rows moved every 3 iterations (3 ranks)" "$TMP/$t.3" "$TMP/$t.shuffle"
    same "$g halo exchange vs --cg-allgather (2 ranks)" "$TMP/$t.2" "$TMP/$t.ag"
    same "$g --cg-allgather, rows moved every 3 iterations (3 ranks)" "$TMP/$t.3" "$TMP/$t.ag3"
done
# Bytes, not times (the trace's first row): on the 3-D grid the halo is two planes of each block,
# less than the whole direction the gather moves. (uneven:N's random edges make nearly every row
# a halo row, and an exchange counts what it sends and what it receives.)
check "poisson3d:10: the halo exchange moves fewer bytes than the gather (trace)" \
    awk -v h="$(awk -F, 'NR == 2 { print $10 }' "$TMP/poisson3d.csv")" \
        -v a="$(awk -F, 'NR == 2 { print $10 }' "$TMP/poisson3d.ag.csv")" 'BEGIN { exit !(h > 0 && h < a) }'
for g in poisson3d:10 uneven:2000; do
    t=${g%%:*}
    check "$g: --cg-shuffle=3 did move the rows" grep -q 'moved the rows [1-9][0-9]* times' "$TMP/$t.shuffle"
    same "$g balanced with -b --xmpi-lb=nnz (2 ranks)" "$TMP/$t.2" "$TMP/$t.lb"
    check "$g: -b did rebalance (trace)" grep -Eq ',([a-z]+[+])*rebalance([+][a-z]+)*,' "$TMP/$t.lb.csv"
    # b = A x* with a known x*: the error is measured against it, not against another run.
    check "$g: converges to x* (error < 1e-8)" below "$(field error "$TMP/$t.2")" 1e-8
    check "$g: stops at the tolerance, before -i" below "$(field iterations "$TMP/$t.2")" 1000
    check "$g: true residual < 1e-9" below "$(field residual "$TMP/$t.2")" 1e-9
done
# Declared work is 2 nnz + 10 rows per iteration, summed over ranks: 2*6400 + 10*1000 = 22800.
check "trace: work_sum of a full interval is the declared FLOP" \
    test "$(awk -F, 'NR == 2 { print $7 }' "$TMP/poisson3d.csv")" = 228000

# Matrix Market: a symmetric real file (lower triangle) and a general pattern file.
cat >"$TMP/sym.mtx" <<'MTX'
%%MatrixMarket matrix coordinate real symmetric
% a 5x5 SPD matrix, lower triangle only
5 5 9
1 1 4.0
2 1 -1.0
2 2 4.5
3 2 -1.0
3 3 5
4 4 4
5 3 -0.5
5 4 1.25
5 5 6
MTX
cat >"$TMP/pat.mtx" <<'MTX'
%%MatrixMarket matrix coordinate pattern general
4 4 7
1 2
2 1
2 3
3 2
1 1
4 1
1 4
MTX
start "$TMP/sym.1" 1 "$C" -m "$TMP/sym.mtx"
start "$TMP/sym.3" 3 "$C" -m "$TMP/sym.mtx"
start "$TMP/pat" 2 "$C" -m "$TMP/pat.mtx"
wait
check "symmetric file: solved (error < 1e-12)" below "$(field error "$TMP/sym.3")" 1e-12
check "symmetric file: both triangles (nnz 13)" test "$(field nnz "$TMP/sym.3")" = 13
same "symmetric file 3 ranks vs 1" "$TMP/sym.3" "$TMP/sym.1"
check "pattern file: solved with its dominant diagonal (error < 1e-12)" below "$(field error "$TMP/pat")" 1e-12
check "pattern file: its own diagonal entry replaced (nnz 10)" test "$(field nnz "$TMP/pat")" = 10

# Bad input: exit status 2, one message naming the problem, no result, no hang.
nbad=0
bad() { # bad DESCRIPTION PATTERN PROG ARGS...: starts the case; judge_bad reports them all
    nbad=$((nbad + 1))
    printf '%s\n%s\n' "$1" "$2" >"$TMP/bad$nbad.what"
    shift 2
    start "$TMP/bad$nbad" 2 "$@"
}
judge_bad() {
    wait
    for ((k = 1; k <= nbad; k++)); do
        local d p rc
        { read -r d; read -r p; } <"$TMP/bad$k.what"
        rc=$(cat "$TMP/bad$k.rc")
        cat "$TMP/bad$k.err" >>"$TMP/bad$k"
        if [ "$rc" = 2 ] && [ "$(grep -c -- "^cg: .*$p" "$TMP/bad$k")" = 1 ] && ! grep -q '^result:' "$TMP/bad$k"; then
            ok "$d"
        else
            notok "$d (exit $rc)"; sed 's/^/#   /' "$TMP/bad$k" | head -10
        fi
    done
    nbad=0
}
bad "unknown matrix source refused" "-g foo" "$C" -g foo
bad "negative iterations refused" "-i -1" "$C" -i -1
bad "negative tolerance refused" "-t -1" "$C" -t -1
bad "unknown long option refused" "--long" "$C" --long
bad "--cg-shuffle=0 refused" "--cg-shuffle=0" "$C" --cg-shuffle=0
bad "--cg-shuffle refused by cg-plain" "cg-plain" "$CP" --cg-shuffle=3
bad "-b refused by cg-plain" "cg-plain cannot balance" "$CP" -b
bad "-d refused by cg-plain" "-d needs libxmpi.*cg-plain cannot" "$CP" -d
bad "-g and -m together refused" "one matrix source" "$C" -g uneven:10 -m "$TMP/sym.mtx"
bad "missing file refused" "none.mtx" "$C" -m "$TMP/none.mtx"
judge_bad

mtx() { # mtx NAME HEADER_AND_LINES...: writes $TMP/NAME.mtx, one argument per line
    local name=$1; shift
    printf '%s\n' "$@" >"$TMP/$name.mtx"
}
H='%%MatrixMarket matrix coordinate real'
mtx array '%%MatrixMarket matrix array real general' '2 2' 1 0 0 1
bad "array format refused" "array.mtx:1: format 'array'" "$C" -m "$TMP/array.mtx"
mtx rect "$H general" '3 2 1' '1 1 1'
bad "non-square file refused" "rect.mtx:2: .*square" "$C" -m "$TMP/rect.mtx"
mtx range "$H general" '2 2 2' '1 1 1' '3 2 1'
bad "index out of range refused" "range.mtx:4: row index 3 out of range" "$C" -m "$TMP/range.mtx"
mtx short "$H symmetric" '2 2 3' '1 1 2' '2 2 2'
bad "missing entries refused" "short.mtx:4: file ends after 2 of the 3 entries" "$C" -m "$TMP/short.mtx"
mtx long "$H symmetric" '2 2 1' '1 1 2' '2 2 2'
bad "extra entries refused" "long.mtx:4: more entries" "$C" -m "$TMP/long.mtx"
mtx upper "$H symmetric" '2 2 3' '1 1 2' '1 2 1' '2 2 2'
bad "upper triangle in a symmetric file refused" "upper.mtx:4: entry (1,2) lies above" "$C" -m "$TMP/upper.mtx"
mtx nonsym "$H general" '2 2 4' '1 1 2' '1 2 1' '2 1 0.5' '2 2 2'
bad "non-symmetric general file refused" "nonsym.mtx:4: .*differs from its mirror" "$C" -m "$TMP/nonsym.mtx"
judge_bad
