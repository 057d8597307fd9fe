# xmpi-opmodel end to end: a tiny run writes one CSV row per operation and size, whose prediction
# agrees with the Hockney formulas recomputed here from the calibration file; bad options are refused.
. "$(dirname "$0")/lib.sh"
OPM="$ROOT/$BUILD/bin/xmpi-opmodel"
HEADER="op,procs,bytes,algorithm,measured_s,predicted_s,rel_error"
SIZES="8 16 32 64 128 256 512 1024"

# Values far from the defaults, so that a prediction made from the defaults cannot pass. Below
# MPICH's switch points (Allreduce 2048 B, Bcast 12 KiB) only the short-message algorithms apply.
printf '# test calibration\nalpha 2e-6\nbeta 1e-9\ngamma 5e-10\n' >"$TMP/cal.txt"
A=2e-6 B=1e-9 G=5e-10

# rows FILE P OP...: each OP has exactly one row per size of $SIZES with procs P, and nothing else.
rows() {
    local f=$1 p=$2 want="" op n
    shift 2
    for op in "$@"; do for n in $SIZES; do want="$want$op,$p,$n"$'\n'; done; done
    [ "$(awk -F, 'NR > 1 { print $1 "," $2 "," $3 }' "$f")"$'\n' = "$want" ]
}
# predicted FILE OP FORMULA: predicted_s of every OP row equals FORMULA (awk, over n, p, a, b, g,
# lg = ceil(log2 p)) to 1e-6 relative.
predicted() {
    awk -F, -v op="$2" -v a=$A -v b=$B -v g=$G "
        \$1 == op { n = \$3; p = \$2; lg = 0; for (q = 1; q < p; q *= 2) lg++
                    want = $3; seen++
                    if (want <= 0 || (\$6 - want) / want > 1e-6 || (want - \$6) / want > 1e-6) {
                        if (bad++ < 3) printf \"# %s n=%s: predicted %s, expected %.9e\n\", op, n, \$6, want } }
        END { exit !(seen > 0 && !bad) }" "$1"
}
# algorithm FILE OP NAME: the algorithm column of every OP row.
algorithm() { awk -F, -v op="$2" -v a="$3" '$1 == op { seen++; if ($4 != a) bad++ } END { exit !(seen && !bad) }' "$1"; }

"$LAUNCH" -np 2 "$OPM" -c "$TMP/cal.txt" -m 1024 -r 3 -o "$TMP/np2.csv" >"$TMP/out" 2>&1
rc=$?
check "2 processes: exits 0" test $rc = 0
check "2 processes: the CSV's header" test "$(head -n 1 "$TMP/np2.csv" 2>/dev/null)" = "$HEADER"
check "2 processes: one row per operation and size, 8 B to 1 KiB" rows "$TMP/np2.csv" 2 send bcast gather allreduce
check "send: predicted = alpha + n beta" predicted "$TMP/np2.csv" send 'a + n * b'
check "bcast: predicted = ceil(log2 p) (alpha + n beta)" predicted "$TMP/np2.csv" bcast 'lg * (a + n * b)'
check "gather: predicted = ceil(log2 p) alpha + (p - 1) n beta" predicted "$TMP/np2.csv" gather 'lg * a + (p - 1) * n * b'
check "allreduce: predicted = ceil(log2 p) (alpha + n beta + n gamma)" \
    predicted "$TMP/np2.csv" allreduce 'lg * (a + n * b + n * g)'
check "algorithms: point-to-point, binomial, binomial, recursive-doubling" eval \
    'algorithm "$TMP/np2.csv" send point-to-point && algorithm "$TMP/np2.csv" bcast binomial &&
     algorithm "$TMP/np2.csv" gather binomial && algorithm "$TMP/np2.csv" allreduce recursive-doubling'
check "every measured time is > 0 and below 1 s" \
    awk -F, 'NR > 1 { seen++; if (!($5 + 0 > 0 && $5 + 0 < 1)) bad++ } END { exit !(seen == 32 && !bad) }' "$TMP/np2.csv"
check "rel_error = (predicted - measured) / measured" \
    awk -F, 'NR > 1 { e = ($6 - $5) / $5; d = e - $7; if (d > 1e-5 || d < -1e-5) bad++ } END { exit bad }' "$TMP/np2.csv"
check "a summary line per operation" \
    test "$(grep -cE '^(send|bcast|gather|allreduce) P=2: mean \|rel error\| [0-9.]+%, sd ' "$TMP/out")" = 4
check "the calibration file is named" grep -q "^model: alpha 2e-06 s, beta 1e-09 s/byte, gamma 5e-10 s/byte from $TMP/cal.txt" "$TMP/out"

# Three processes: ceil(log2 3) = 2 rounds, which two processes cannot tell from one.
"$LAUNCH" -np 3 "$OPM" -c "$TMP/cal.txt" -m 64 -r 1 -o "$TMP/np3.csv" >"$TMP/out3" 2>&1
rc=$?
SIZES="8 16 32 64"
check "3 processes: exits 0 with a row per operation and size" eval \
    'test $rc = 0 && rows "$TMP/np3.csv" 3 send bcast gather allreduce'
check "3 processes: bcast = 2 (alpha + n beta)" predicted "$TMP/np3.csv" bcast '2 * (a + n * b)'
check "3 processes: gather = 2 alpha + 2 n beta" predicted "$TMP/np3.csv" gather '2 * a + 2 * n * b'
check "3 processes: send stays alpha + n beta" predicted "$TMP/np3.csv" send 'a + n * b'

# Without -c the library's defaults predict (io/calibration.h: 5e-7 s, 3.7e-10 s/byte).
"$LAUNCH" -np 2 "$OPM" -m 8 -r 1 -o "$TMP/def.csv" >"$TMP/outd" 2>&1
check "without -c: the defaults predict and are named" eval \
    'A=5e-7 B=3.7e-10 predicted "$TMP/def.csv" send "a + n * b" &&
     grep -q "^model: alpha 5e-07 s, beta 3.7e-10 s/byte, gamma 2.6e-10 s/byte from the library.s defaults" "$TMP/outd"'

# Refusals: exit 2, one message (rank 0's), nothing measured or written. (Open MPI's mpirun takes
# 1-2 s to end a job whose processes exit non-zero, so the cases are few.)
refused() { # refused DESCRIPTION PATTERN NP ARGS...
    local desc=$1 pattern=$2 np=$3 rc n m
    shift 3
    "$LAUNCH" -np "$np" "$OPM" "$@" -o "$TMP/x.csv" >"$TMP/b" 2>&1
    rc=$?
    n=$(grep -c -- "$pattern" "$TMP/b")
    m=$(grep -c '^xmpi-opmodel:' "$TMP/b")
    if [ $rc = 2 ] && [ "$n" = 1 ] && [ "$m" = 1 ] && ! grep -qE '^(send|wrote)' "$TMP/b"; then
        ok "$desc"
    else
        notok "$desc (exit $rc, '$pattern' seen $n times, $m messages)"; sed 's/^/#   /' "$TMP/b" | head -20
    fi
}
refused "-m 0 is refused" "xmpi-opmodel: option -m: '0' is not accepted; expected the largest message in bytes, a power of 2" 2 -m 0
refused "-m abc is refused" "xmpi-opmodel: option -m: 'abc' is not accepted" 2 -m abc
refused "an unknown option is refused with the accepted ones" \
    "xmpi-opmodel: unknown option '--fast'; accepted: -c CALFILE, -o CSV, -m MAXBYTES, -r REPS, -h" 2 --fast
refused "a missing calibration file is refused" "xmpi-opmodel: option -c: $TMP/none.txt: cannot open" 2 -c "$TMP/none.txt"
printf 'alpha 1e-6\nbeta fast\n' >"$TMP/bad.txt"
refused "a malformed calibration file is refused with its line" "option -c: $TMP/bad.txt:2: field beta: 'fast'" 2 -c "$TMP/bad.txt"
refused "one process is refused" "xmpi-opmodel: needs at least 2 processes" 1 -m 8
check "a refused run writes no CSV" test ! -e "$TMP/x.csv"
"$LAUNCH" -np 2 "$OPM" -h >"$TMP/h" 2>&1
rc=$?
check "-h prints the usage once, with every option, and exits 0" \
    test $rc = 0 -a "$(grep -c '^usage: mpirun -np P xmpi-opmodel' "$TMP/h")" = 1 \
    -a "$(grep -cE '^  -(c CALFILE|o CSV|m MAXBYTES|r REPS|h, --help) ' "$TMP/h")" = 5
