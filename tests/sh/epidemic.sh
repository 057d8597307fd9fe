# Epidemic: the same epidemic, bit for bit, on 1, 2 and 3 ranks, without the library and across
# data movements (--epi-shuffle); it rises and falls; its CSV and declared work add up; bad input is refused.
. "$(dirname "$0")/lib.sh"
E="$ROOT/$BUILD/bin/epidemic"
EP="$ROOT/$BUILD/bin/epidemic-plain"
N=20000
DAYS=60
INITIAL=10
ARGS=(-n "$N" -d "$DAYS" -s 3 -b 0.1 -I "$INITIAL")

# field NAME FILE: a key=value from the result line.
field() { sed -n "s/^result:.* $1=\([^ ]*\).*/\1/p" "$2"; }
# The result without what may differ between runs of the same epidemic: ranks and times.
outcome() { sed -n 's/^result: //p' "$1" | sed 's/ ranks=[^ ]*//; s/ time=.*//'; }

run() { # run OUT NP PROG ARGS...
    local out=$1 np=$2; shift 2
    "$LAUNCH" -np "$np" "$@" >"$out" 2>"$out.err"
}

run "$TMP/x2" 2 "$E" "${ARGS[@]}" -o "$TMP/days.csv" --xmpi-si=20 "--xmpi-trace=$TMP/trace.csv"
run "$TMP/x1" 1 "$E" "${ARGS[@]}"
run "$TMP/x3" 3 "$E" "${ARGS[@]}"
run "$TMP/p2" 2 "$EP" "${ARGS[@]}"
run "$TMP/s3" 3 "$E" "${ARGS[@]}" --epi-shuffle=2 --xmpi-verbose=2
# Rank 1 on an emulated class at 0.3 of a core: an imbalance that no noise hides, so that the
# balancer (which waits for evidence that a move pays) moves people.
H=$(hostname)
printf '%s:fast:1:1:1\n%s:slow:1:1:0.3\n' "$H" "$H" >"$TMP/classes"
run "$TMP/lb2" 2 "$E" "${ARGS[@]}" -L --xmpi-lb=weight --xmpi-si=5 --xmpi-lb-th1=0 \
    "--xmpi-resources=$TMP/classes" --xmpi-initial=fast:1,slow:1 "--xmpi-trace=$TMP/lb.csv"
ref=$(outcome "$TMP/x2")
check "the epidemic printed a result (2 ranks)" test -n "$(field checksum "$TMP/x2")"
check "same epidemic on 1 rank (checksum, counts, peak)" test "$ref" = "$(outcome "$TMP/x1")"
check "same epidemic on 3 ranks" test "$ref" = "$(outcome "$TMP/x3")"
check "same epidemic without libxmpi (epidemic-plain, 2 ranks)" test "$ref" = "$(outcome "$TMP/p2")"
check "same epidemic on 3 ranks moving the data every 2 days (--epi-shuffle=2)" \
    test "$ref" = "$(outcome "$TMP/s3")"
check "same epidemic balanced by person weight (-L --xmpi-lb=weight, 2 ranks)" \
    test "$ref" = "$(outcome "$TMP/lb2")"
check "-L did rebalance (trace)" grep -Eq ',([a-z]+[+])*rebalance([+][a-z]+)*,' "$TMP/lb.csv"
# Days 2, 4, ..., 58 move; none after the last day. Rank 0 notes each move at --xmpi-verbose=2.
check "--epi-shuffle=2 moved the data 29 times" \
    test "$(grep -c 'XMPI_Redistribute_data: moved' "$TMP/s3.err")" = 29

peak=$(field peak_infected "$TMP/x2")
pday=$(field peak_day "$TMP/x2")
final=$(field infected "$TMP/x2")
check "the epidemic rises: peak_infected ($peak) > initial infected ($INITIAL)" \
    test "${peak:-0}" -gt $INITIAL
check "the epidemic falls: final infected ($final) < peak ($peak), peak on day $pday inside the run" \
    sh -c "[ '${final:-x}' -lt '${peak:-0}' ] && [ '${pday:-0}' -gt 0 ] && [ '${pday:-0}' -lt $DAYS ]"
check "S + I + R = N after each result" \
    test $(($(field susceptible "$TMP/x2") + final + $(field recovered "$TMP/x2"))) = $N

check "CSV: header and one row per day from day 0" \
    sh -c "head -1 '$TMP/days.csv' | grep -qx 'day,susceptible,infected,recovered,work' &&
           [ \$(wc -l <'$TMP/days.csv') = $((DAYS + 2)) ]"
check "CSV: S + I + R = $N on every day" \
    awk -F, -v n=$N -v d=$DAYS 'NR > 1 { rows++; if ($2 + $3 + $4 != n) bad++ } END { exit !(rows == d + 1 && !bad) }' \
    "$TMP/days.csv"
check "CSV: the last day matches the result line" \
    test "$(tail -1 "$TMP/days.csv" | cut -d, -f1-4)" = \
    "$DAYS,$(field susceptible "$TMP/x2"),$final,$(field recovered "$TMP/x2")"
# Work is the contacts scanned, so it follows the infected: it peaks inside the run, far above day 1.
check "CSV: the work rises and falls with the infected" \
    awk -F, -v d=$DAYS 'NR == 3 { first = $5 } NR > 2 && $5 > max { max = $5; at = $1 }
        END { exit !(at > 1 && at < d && max > 20 * first && $5 < max / 4) }' "$TMP/days.csv"
# The trace's work_sum (column 7) is the work declared with XMPI_Monitor_add_work: days 1-20, 21-40, 41-60.
awk -F, 'NR > 2 { s[int(($1 - 1) / 20)] += $5 } END { for (k = 0; k < 3; k++) print s[k] }' \
    "$TMP/days.csv" >"$TMP/work.want"
awk -F, 'NR > 1 { printf "%.0f\n", $7 }' "$TMP/trace.csv" >"$TMP/work.got"
check "trace: work_sum of each interval is the contacts scanned" cmp -s "$TMP/work.want" "$TMP/work.got"

"$LAUNCH" -np 2 "$E" -h >"$TMP/help" 2>&1
check "-h prints the usage and exits 0" sh -c "[ $? = 0 ] && grep -q '^usage: epidemic' '$TMP/help'"

# Bad input: exit 2, exactly one message naming the option, and no result.
bad() { # bad DESCRIPTION PATTERN PROG ARGS...
    local d=$1 p=$2; shift 2
    "$LAUNCH" -np 2 "$@" >"$TMP/bad" 2>"$TMP/bad.err"
    local rc=$?
    if [ $rc -eq 2 ] && [ "$(grep -c '^epidemic:' "$TMP/bad.err")" = 1 ] &&
        grep -q -- "$p" "$TMP/bad.err" && ! grep -q '^result:' "$TMP/bad"; then
        ok "$d"
    else
        notok "$d (exit $rc)"; sed 's/^/#   /' "$TMP/bad.err" | head -10
    fi
}
bad "people 0 refused" "'-n 0'.*from 1" "$E" -n 0
bad "infection chance above 1 refused" "'-b 1.5'.*from 0 to 1" "$E" -b 1.5
bad "more initial infected than people refused" "'-I 300'.*(100)" "$E" -n 100 -I 300
bad "non-numeric day count refused" "'-d x'" "$E" -d x
bad "unknown option refused" "'-x'.*accepted" "$E" -x
bad "unknown long option refused" "'--bogus'.*accepted" "$E" --bogus
bad "--epi-shuffle=0 refused" "'--epi-shuffle=0'.*from 1" "$E" --epi-shuffle=0
bad "--epi-shuffle refused by the plain build" "'--epi-shuffle=2'.*plain" "$EP" --epi-shuffle=2
bad "-L refused by the plain build" "-L needs libxmpi" "$EP" -L
bad "-M refused by the plain build" "-M needs libxmpi" "$EP" -M
bad "unwritable CSV file refused" "-o" "$E" -n 100 -o "$TMP/no/such/dir.csv"
