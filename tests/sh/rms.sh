# xmpi-rms: init/offer/reclaim/status outputs, exit codes 2 (usage) and 1 (refused, file
# byte-identical), and no update lost or file half-read when many copies run at once.
# shared: xmpi-rms, a tool without MPI
. "$(dirname "$0")/lib.sh"
case $BUILD in
    /*) RMS="$BUILD/bin/xmpi-rms" ;;
    *) RMS="$ROOT/$BUILD/bin/xmpi-rms" ;;
esac
if [ ! -x "$RMS" ]; then
    notok "xmpi-rms is built ($RMS missing; make $BUILD/bin/xmpi-rms)"
    exit 1
fi
S="$TMP/job.rms"
unset LIBXMPI_RMS_STATE

# run ARGS...: runs xmpi-rms, leaving stdout in $TMP/out, stderr in $TMP/err, rc in $rc.
run() { "$RMS" "$@" >"$TMP/out" 2>"$TMP/err"; rc=$?; }

show() { sed 's/^/#   /' "$TMP/out" "$TMP/err" | head -20; }

# expect DESCRIPTION RC TEXT ARGS...: exit code RC and TEXT (fixed string) in the output.
expect() {
    local desc=$1 want=$2 text=$3; shift 3
    run "$@"
    if [ "$rc" = "$want" ] && cat "$TMP/out" "$TMP/err" | grep -qF -- "$text"; then
        ok "$desc"
    else
        notok "$desc (exit $rc, want $want and '$text')"; show
    fi
}

# refused DESCRIPTION RC TEXT ARGS...: as expect, and the state file is byte-identical;
# usage errors (2) must also print the usage line.
refused() {
    local desc=$1 want=$2 text=$3; shift 3
    cp "$S" "$TMP/before"
    run "$@"
    local why=""
    [ "$rc" = "$want" ] || why="exit $rc, want $want"
    cat "$TMP/out" "$TMP/err" | grep -qF -- "$text" || why="$why; no '$text'"
    [ "$want" = 2 ] && ! grep -q '^usage: xmpi-rms' "$TMP/err" && why="$why; no usage line"
    cmp -s "$S" "$TMP/before" || why="$why; the state file changed"
    if [ -z "$why" ]; then ok "$desc"; else notok "$desc ($why)"; show; fi
}

cat >"$TMP/res.txt" <<'EOF'
# hostname:class:PEs:cost[:speed]
n1:fast:4:1.0
n2:fast:2:1.0
n1:slow:3:0.5:0.5
EOF

# ---- init ----
expect "init creates the state" 0 "3 host entries, 9 PEs" --state "$S" init "$TMP/res.txt"
cat >"$TMP/want" <<'EOF'
# xmpi-rms state v2: host class pes free allocated reclaim initial
n1 fast 4 0 0 0 0
n2 fast 2 0 0 0 0
n1 slow 3 0 0 0 0
EOF
check "init: one line per host and class, nothing offered or allocated" cmp -s "$S" "$TMP/want"
refused "init refuses to overwrite an existing state" 1 "already exists" \
    --state "$S" init "$TMP/res.txt"
echo "n1 fast 4 0 0 0 junk" >"$TMP/broken.rms"
expect "init --force replaces even a malformed state" 0 "3 host entries" \
    --state "$TMP/broken.rms" --force init "$TMP/res.txt"
check "init --force wrote the fresh state" cmp -s "$TMP/broken.rms" "$TMP/want"
printf 'n1:fast:4:1.0\nn2:fast:many:1.0\n' >"$TMP/bad-res.txt"
expect "init from a bad resource file names its line" 1 "bad-res.txt:2: field" \
    --state "$TMP/none.rms" init "$TMP/bad-res.txt"
check "a failed init creates no state" test ! -e "$TMP/none.rms"
expect "init from a missing resource file fails" 1 "no-such-res.txt" \
    --state "$TMP/none.rms" init "$TMP/no-such-res.txt"

# ---- offer, reclaim, status ----
# spare n1 4, n2 2: n1, n1, then the tie 2/2 goes to n1 (listed first)
expect "offer spreads to the host with most spare" 0 "offered 3 PEs of class fast (n1 +3)" \
    --state "$S" offer fast 3
expect "offer continues from the new spares" 0 "offered 2 PEs of class fast (n1 +1, n2 +1)" \
    --state "$S" offer fast 2
run --state "$S" status
cat >"$TMP/want" <<'EOF'
host     class  pes  free  allocated  reclaim  initial
n1       fast     4     4          0        0        0
n2       fast     2     1          0        0        0
n1       slow     3     0          0        0        0
(total)  fast     6     5          0        0        0
(total)  slow     3     0          0        0        0
EOF
check "status prints the table and the class totals" cmp -s "$TMP/out" "$TMP/want"
check "status exits 0" test "$rc" = 0
expect "reclaim withdraws untaken offers first, most free first" 0 \
    "reclaiming 2 PEs of class fast: 2 offers withdrawn (n1 -2)" --state "$S" reclaim fast 2
cat >"$TMP/want" <<'EOF'
# xmpi-rms state v2: host class pes free allocated reclaim initial
n1 fast 4 2 0 0 0
n2 fast 2 1 0 0 0
n1 slow 3 0 0 0 0
EOF
check "the file after offer and reclaim" cmp -s "$S" "$TMP/want"

# A hand-edited state where the job holds PEs: reclaim then asks allocated ones back.
cat >"$TMP/held.rms" <<'EOF'
# edited by hand
a   fast 8 1 4 1   # four held, one already asked back
b   fast 8 0 5 0
c   slow 2 0 2 0
EOF
expect "reclaim beyond the offers marks allocated PEs, most held first" 0 \
    "1 offer withdrawn (a -1); 3 to be given back at the next sampling interval (a +1, b +2)" \
    --state "$TMP/held.rms" reclaim fast 4
check "hand-edited state rewritten canonically" \
    grep -qx 'a fast 8 0 4 2 0' "$TMP/held.rms"
check "... with b's two asked back" grep -qx 'b fast 8 0 5 2 0' "$TMP/held.rms"

# The PEs of a job's initial processes (the column initial, which the job writes when it
# starts) can never be given back: the tool refuses such a reclaim and says why.
cat >"$TMP/init.rms" <<'EOF'
# xmpi-rms state v2: host class pes free allocated reclaim initial
n1 fast 2 0 2 0 2
n1 slow 3 0 2 0 1
EOF
S_SAVE=$S; S="$TMP/init.rms"
refused "reclaim of PEs only the initial processes hold is refused, saying why" 1 \
    "class fast: cannot reclaim 1 PEs; none can be (nothing offered and not taken, nothing allocated and not already reclaimed; 2 held by the job's initial processes, which never leave" \
    --state "$S" reclaim fast 1
refused "reclaim beyond the spawned PEs is refused, counting the initial ones apart" 1 \
    "cannot reclaim 2 PEs; only 1 can be (0 offered and not taken, 1 allocated and not already reclaimed; 1 held by the job's initial processes" \
    --state "$S" reclaim slow 2
expect "reclaim of a spawned PE beside the initial ones is accepted" 0 \
    "1 to be given back at the next sampling interval (n1 +1)" --state "$S" reclaim slow 1
check "... and marks it" grep -qx 'n1 slow 3 0 2 1 1' "$S"
S=$S_SAVE

# ---- refusals: exit 1, file untouched ----
refused "unknown class is refused, naming the known ones" 1 \
    "unknown class 'gpu'; known classes: fast, slow" --state "$S" offer gpu 1
refused "offer beyond capacity says how much is spare" 1 \
    "cannot offer 4 more PEs; only 3 of its 6 PEs are spare" --state "$S" offer fast 4
refused "reclaim beyond what is offered or held" 1 "cannot reclaim 1 PEs; none can be" \
    --state "$S" reclaim slow 1
refused "reclaim of an unknown class" 1 "unknown class 'fats'" --state "$S" reclaim fats 1
expect "status of a missing state says how to create it" 1 \
    "no such state file (create it with xmpi-rms init)" --state "$TMP/nope.rms" status
expect "offer on a missing state fails the same way" 1 "no such state file" \
    --state "$TMP/nope.rms" offer fast 1
check "... and creates nothing" test ! -e "$TMP/nope.rms" -a ! -e "$TMP/nope.rms.lock"
printf 'n1 fast 4 0 0 0\nn2 fast 2 3 0 0\n' >"$TMP/bad.rms"
expect "a state breaking an invariant is refused with FILE:LINE" 1 \
    "$TMP/bad.rms:2: free + allocated (3) exceeds pes (2)" --state "$TMP/bad.rms" status
cp "$TMP/bad.rms" "$TMP/bad.before"
expect "offer on a malformed state is refused" 1 "$TMP/bad.rms:2:" --state "$TMP/bad.rms" \
    offer fast 1
check "... and the malformed file is left as it was" cmp -s "$TMP/bad.rms" "$TMP/bad.before"

# ---- usage errors: exit 2, message and usage line, file untouched ----
refused "no command" 2 "no command given" --state "$S"
refused "unknown command" 2 "unknown command 'offr'" --state "$S" offr fast 1
refused "N = 0" 2 "N: '0' is not accepted; expected a whole number from 1" \
    --state "$S" offer fast 0
refused "negative N" 2 "N: '-1' is not accepted" --state "$S" offer fast -1
refused "N not a number" 2 "N: 'two' is not accepted" --state "$S" reclaim fast two
refused "N with junk" 2 "N: '3x' is not accepted" --state "$S" offer fast 3x
refused "N too large" 2 "N: '1000001' is not accepted" --state "$S" offer fast 1000001
refused "offer without N" 2 "offer takes two operands, CLASS N; got 1" --state "$S" offer fast
refused "reclaim with an extra operand" 2 "reclaim takes two operands" \
    --state "$S" reclaim fast 1 2
refused "status with an operand" 2 "status takes no operand" --state "$S" status now
refused "init without a resource file" 2 "init takes one operand" --state "$S" init
refused "unknown option" 2 "unknown option '--stat'" --stat "$S" status
refused "--state without its value" 2 "option --state needs a value" status --state
refused "empty --state" 2 "option --state: '' is not accepted" --state= status
refused "--force outside init" 2 "option --force applies to init only" \
    --state "$S" --force offer fast 1

# ---- a read-only state is refused, not replaced; a replaced one keeps mode and owner ----
cp "$S" "$TMP/ro.rms"
chmod 0444 "$TMP/ro.rms"
S_SAVE=$S; S="$TMP/ro.rms"
refused "a read-only (0444) state is refused with exit 1, unchanged" 1 \
    "$S: the state file is read-only (mode 0444, owner uid $(id -u)); nothing was changed; expected a state file this user may write" \
    --state "$S" offer fast 1
refused "... reclaim too" 1 "the state file is read-only (mode 0444" --state "$S" reclaim fast 1
refused "... and init --force too" 1 "the state file is read-only (mode 0444" \
    --state "$S" --force init "$TMP/res.txt"
check "... its mode is still 0444" test "$(stat -c %a "$S")" = 444
chmod 0640 "$S"
if [ "$(id -u)" = 0 ]; then chown 1:1 "$S"; fi
expect "a writable state is replaced" 0 "offered 1 PE" --state "$S" offer fast 1
check "... keeping its mode 0640" test "$(stat -c %a "$S")" = 640
if [ "$(id -u)" = 0 ]; then
    check "... and its owner and group (replaced by root)" test "$(stat -c %u:%g "$S")" = 1:1
fi
S=$S_SAVE

# ---- a lock held by another process: said once, bounded by --wait, nothing changed ----
echo 4242 >"$S.lock"     # as a holder that wrote its pid (xmpi-rms and the job do)
flock "$S.lock" sleep 4 &
holder=$!
sleep 0.3
start=$(date +%s.%N)
refused "a busy lock: gives up after --wait=1 with exit 1, state unchanged" 1 \
    "the lock file '$S.lock' is held by another process (pid 4242) and was not released within 1 s; nothing was changed" \
    --state "$S" --wait=1 offer fast 1
took=$(echo "$(date +%s.%N) - $start" | bc)
check "... after about 1 s (took $took s)" sh -c "echo '$took < 3' | bc | grep -qx 1"
check "... saying once on stderr that it waits for the lock file and for whom" \
    test "$(grep -c "^xmpi-rms: waiting for the lock file $S.lock, held by pid 4242 (up to 1 s" "$TMP/err")" = 1
refused "--wait 0 does not wait" 1 "is held by another process (pid 4242); not waiting" \
    --state "$S" --wait 0 reclaim fast 1
check "... and says nothing of waiting" sh -c "! grep -q 'waiting for' '$TMP/err'"
refused "init --force waits the same way" 1 "was not released within 0.5 s" \
    --state "$S" --wait=0.5 --force init "$TMP/res.txt"
expect "the default wait outlasts a short hold: the offer is made once the lock is free" 0 \
    "offered 1 PE of class fast" --state "$S" offer fast 1
check "... after saying that it waited (up to 30 s by default)" \
    grep -q "waiting for the lock file $S.lock, held by pid 4242 (up to 30 s" "$TMP/err"
wait $holder
check "the lock file is left empty (no stale pid) once released" test ! -s "$S.lock"
refused "--wait with a negative value" 2 "option --wait: '-1' is not accepted; expected seconds" \
    --state "$S" --wait=-1 status
refused "--wait with junk" 2 "option --wait: '1s' is not accepted" --state "$S" --wait 1s status
refused "--wait beyond a day" 2 "option --wait: '86401' is not accepted" \
    --state "$S" --wait 86401 status
refused "--wait without its value" 2 "option --wait needs a value" status --wait

run --help
check "--help exits 0" test "$rc" = 0
for w in init offer reclaim status --state --force --wait LIBXMPI_RMS_STATE "EXIT STATUS" initial; do
    check "--help documents $w" grep -qF -- "$w" "$TMP/out"
done

# ---- where the state lives ----
mkdir "$TMP/cwd"
(cd "$TMP/cwd" && XMPI_RMS_STATE="$TMP/ignored.rms" "$RMS" init "$TMP/res.txt" >/dev/null 2>&1)
check "default state is ./xmpi-rms.state (XMPI_RMS_STATE is not read)" \
    test -f "$TMP/cwd/xmpi-rms.state" -a ! -e "$TMP/ignored.rms"
LIBXMPI_RMS_STATE="$S" "$RMS" status >"$TMP/out" 2>&1
check "LIBXMPI_RMS_STATE names the state" grep -q '^n2  *fast  *2  *1 ' "$TMP/out"
LIBXMPI_RMS_STATE="$TMP/nope.rms" "$RMS" --state "$S" status >"$TMP/out" 2>&1
check "--state wins over LIBXMPI_RMS_STATE" grep -q '^n2  *fast  *2  *1 ' "$TMP/out"

# ---- concurrency ----
# A status reader polls while writers run: each poll must parse a whole file.
reader() {
    local n=0 bad=0
    while [ ! -e "$TMP/stop" ]; do
        if "$RMS" --state "$1" status >"$TMP/reader.out" 2>&1 &&
            grep -q '^(total) ' "$TMP/reader.out"; then :; else
            bad=$((bad + 1)); cp "$TMP/reader.out" "$TMP/reader.bad"
        fi
        n=$((n + 1))
    done
    echo "$n $bad" >"$TMP/reader.result"
}

# loop COUNT ARGS...: runs xmpi-rms COUNT times, prints how many runs failed.
loop() {
    local count=$1 fails=0; shift
    for ((i = 0; i < count; i++)); do
        "$RMS" "$@" >/dev/null 2>>"$TMP/loop.err" || fails=$((fails + 1))
    done
    echo "$fails"
}

cat >"$TMP/big.txt" <<'EOF'
a:fast:300:1
b:fast:200:1
c:fast:100:1
d:slow:50:1
EOF
C="$TMP/conc.rms"
"$RMS" --state "$C" init "$TMP/big.txt" >/dev/null
rm -f "$TMP/stop" "$TMP/loop.err"
reader "$C" &
rpid=$!
loop 200 --state "$C" offer fast 1 >"$TMP/l1" &
p1=$!
loop 200 --state "$C" offer fast 1 >"$TMP/l2" &
p2=$!
wait $p1 $p2
touch "$TMP/stop"
wait $rpid
check "two concurrent loops of 200 offers: none refused" \
    test "$(cat "$TMP/l1")" = 0 -a "$(cat "$TMP/l2")" = 0
# 400 offers of one onto spares 300/200/100: levelled to 67 each (399), the last to a.
run --state "$C" status
check "no lost update: 400 offered, spread 234/133/33" \
    grep -qx '(total)  fast   600   400          0        0        0' "$TMP/out"
check "... per host exactly as one sequence of 400 offers" \
    test "$(awk '$2 == "fast" && $1 != "(total)" { printf "%s ", $4 }' "$TMP/out")" = "234 133 33 "
read -r polls badpolls <"$TMP/reader.result"
check "concurrent status never failed to parse ($polls polls)" \
    test "$badpolls" = 0 -a "$polls" -gt 0
[ -s "$TMP/loop.err" ] && sed 's/^/#   /' "$TMP/loop.err" | head -5

# Interleaved offers and reclaims on one class: each pair nets +1 or +2, and a reclaim
# always finds an untaken offer (its own loop's), so the total is known exactly.
"$RMS" --state "$C" --force init "$TMP/big.txt" >/dev/null
rm -f "$TMP/stop" "$TMP/loop.err"
reader "$C" &
rpid=$!
pairs() { # pairs COUNT OFFER RECLAIM CLASS
    local fails=0
    for ((i = 0; i < $1; i++)); do
        "$RMS" --state "$C" offer "$4" "$2" >/dev/null 2>>"$TMP/loop.err" || fails=$((fails + 1))
        "$RMS" --state "$C" reclaim "$4" "$3" >/dev/null 2>>"$TMP/loop.err" || fails=$((fails + 1))
    done
    echo "$fails"
}
pairs 80 2 1 fast >"$TMP/l1" &
p1=$!
pairs 80 3 1 fast >"$TMP/l2" &
p2=$!
pairs 40 2 1 slow >"$TMP/l3" &
p3=$!
wait $p1 $p2 $p3
touch "$TMP/stop"
wait $rpid
check "interleaved offers and reclaims: none refused" \
    test "$(cat "$TMP/l1" "$TMP/l2" "$TMP/l3" | tr -d '\n')" = 000
run --state "$C" status
check "interleaved: fast nets 80 + 160 = 240 offered" \
    grep -qx '(total)  fast   600   240          0        0        0' "$TMP/out"
check "interleaved: slow nets 40" \
    grep -qx '(total)  slow    50    40          0        0        0' "$TMP/out"
read -r polls badpolls <"$TMP/reader.result"
check "status during interleaved updates never failed ($polls polls)" \
    test "$badpolls" = 0 -a "$polls" -gt 0
[ -s "$TMP/loop.err" ] && sed 's/^/#   /' "$TMP/loop.err" | head -5
check "no temporary file left behind" test -z "$(ls "$TMP" | grep '\.tmp\.')"
