# The xmpi-interfere tool: its help, one refusal per kind of bad option (exit 2, the option
# named), and short real runs: steady, bursts with their phase log, --delay, pinning, signals,
# and the random and wander patterns with their --seed.
# Timing is only bounded loosely (busy > 0 and <= the run): the machines are shared.
# shared: xmpi-interfere, a tool without MPI
. "$(dirname "$0")/lib.sh"
case $BUILD in
    /*) IF="$BUILD/bin/xmpi-interfere" ;;
    *) IF="$ROOT/$BUILD/bin/xmpi-interfere" ;;
esac
if [ ! -x "$IF" ]; then
    notok "xmpi-interfere is built ($IF missing; make $BUILD/bin/xmpi-interfere)"
    exit 1
fi

# run ARGS...: runs the tool under a limit (a refusal that slipped through would load a core
# until killed), leaving stdout in $TMP/out, stderr in $TMP/err and the exit code in $rc.
run() { timeout -k 1 5 "$IF" "$@" >"$TMP/out" 2>"$TMP/err"; rc=$?; }

show() { sed 's/^/#   /' "$TMP/out" "$TMP/err" | head -10; }

# refused DESCRIPTION TEXT ARGS...: exit 2, TEXT (fixed string) and the usage line on stderr,
# and no load was started (no start line).
refused() {
    local desc=$1 text=$2; shift 2
    run "$@"
    local why=""
    [ "$rc" = 2 ] || why="exit $rc, want 2"
    grep -qF -- "$text" "$TMP/err" || why="$why; no '$text'"
    grep -q '^usage: xmpi-interfere' "$TMP/err" || why="$why; no usage line"
    [ -s "$TMP/out" ] && why="$why; it printed on stdout"
    if [ -z "$why" ]; then ok "$desc"; else notok "$desc ($why)"; show; fi
}

# summary_ok: the summary line is there, and 0 < busy <= ran (+ a clock tick of slack).
summary_ok() {
    awk -v want="$1" '/^xmpi-interfere: ran [0-9.]+ s, busy [0-9.]+ s, target load / {
            found = 1; ran = $3; busy = $6
            if ($10 != want) bad = 1
        }
        END { exit !(found && !bad && busy > 0 && busy <= ran + 0.01) }' "$TMP/out"
}

# tool_pid FILE: the pid the start line in FILE names (the tool's, not timeout's).
tool_pid() { sed -n 's/^xmpi-interfere: pid \([0-9]*\) starts.*/\1/p' "$1" 2>/dev/null; }

# phases FILE: the phase column of a log, one line, without the header.
phases() { awk '!/^#/ { printf "%s%s", n++ ? " " : "", $3 }' "$1"; }

# ---- help ----
run --help
check "--help exits 0" test "$rc" = 0 -a ! -s "$TMP/err"
for w in --load --period --cpu --duration --delay --pattern bursts:COUNT:ON:OFF --log \
    "LOG FILE" SIGTERM "EXIT STATUS" random:ON_MIN:ON_MAX:OFF_MIN:OFF_MAX wander:SECONDS:LO \
    --seed "level (wander"; do
    check "--help documents $w" grep -qF -- "$w" "$TMP/out"
done
run -h
check "-h is --help" grep -q '^SYNOPSIS' "$TMP/out"

# ---- bad usage: exit 2 before any load ----
refused "no --load" "option --load is required" --duration 1
refused "unknown option" "unknown option '--lod'" --lod 0.5
refused "unknown short option" "unknown option '-l'" -l 0.5
refused "an operand" "unexpected operand 'now'" --load 0.5 now
refused "--load without its value" "option --load needs a value" --load
refused "--load followed by another option" "option --load needs a value" --load --duration 1
refused "--load 0" "option --load: '0' is not accepted; expected a fraction" --load 0
refused "--load above 1" "option --load: '1.5' is not accepted" --load 1.5
refused "--load negative" "option --load: '-0.5' is not accepted" --load=-0.5
refused "--load not a number" "option --load: 'half' is not accepted" --load half
refused "--load inf" "option --load: 'inf' is not accepted" --load inf
refused "--period 0" "option --period: '0' is not accepted; expected milliseconds" \
    --load 0.5 --period 0
refused "--period negative" "option --period: '-100' is not accepted" --load 0.5 --period -100
refused "--duration negative" "option --duration: '-1' is not accepted; expected seconds" \
    --load 0.5 --duration -1
refused "--duration 0" "option --duration: '0' is not accepted" --load 0.5 --duration=0
refused "--delay negative" "option --delay: '-2' is not accepted; expected seconds, from 0" \
    --load 0.5 --delay -2
refused "--cpu not a number" "option --cpu: 'one' is not accepted; expected a CPU number" \
    --load 0.5 --cpu one
if [ "$(nproc --all)" -lt 1000 ]; then
    refused "--cpu this process may not use" "option --cpu: CPU 999 is not available" \
        --load 0.5 --cpu 999
fi
refused "--log empty" "option --log: '' is not accepted" --load 0.5 --log=
refused "--pattern unknown" \
    "option --pattern: 'sawtooth' is not accepted; expected steady, bursts:COUNT:ON:OFF[:LONG], r" \
    --load 0.5 --pattern sawtooth
refused "--pattern bursts without fields" "'bursts' needs its fields" --load 0.5 --pattern bursts
refused "--pattern with too few fields" "'bursts:2:0.2' has 2 fields after 'bursts:'" \
    --load 0.5 --pattern bursts:2:0.2
refused "--pattern with too many fields" "has more than 4 fields" \
    --load 0.5 --pattern bursts:2:0.2:0.1:0.3:9
refused "--pattern COUNT 0" "'bursts:0:1:1': COUNT '0' is not accepted" \
    --load 0.5 --pattern bursts:0:1:1
refused "--pattern ON not a number" "'bursts:2:x:0.1': ON 'x' is not accepted" \
    --load 0.5 --pattern bursts:2:x:0.1
refused "--pattern OFF negative" "OFF '-1' is not accepted" --load 0.5 --pattern bursts:2:0.2:-1
refused "--pattern LONG 0" "LONG '0' is not accepted; expected seconds, more than 0" \
    --load 0.5 --pattern bursts:2:0.2:0.1:0
refused "--pattern empty ON" "ON '' is not accepted" --load 0.5 --pattern bursts:2::0.1
refused "--pattern random without fields" \
    "option --pattern: 'random' needs its fields; expected random:ON_MIN:ON_MAX:OFF_MIN:OFF_MAX" \
    --load 0.5 --pattern random
refused "--pattern random with 3 fields" \
    "'random:0.1:0.2:0.1' has 3 fields after 'random:'; expected random:ON_MIN:ON_MAX:OFF_MIN" \
    --load 0.5 --pattern random:0.1:0.2:0.1
refused "--pattern random with 5 fields" "has more than 4 fields after 'random:'" \
    --load 0.5 --pattern random:0.1:0.2:0.1:0.2:9
refused "--pattern random ON_MIN 0" \
    "'random:0:0.2:0.1:0.2': ON_MIN '0' is not accepted; expected seconds, more than 0" \
    --load 0.5 --pattern random:0:0.2:0.1:0.2
refused "--pattern random ON_MAX past the limit" "ON_MAX '2e6' is not accepted" \
    --load 0.5 --pattern random:1:2e6:1:1
refused "--pattern random OFF_MIN negative" "OFF_MIN '-1' is not accepted" \
    --load 0.5 --pattern random:1:2:-1:1
refused "--pattern random OFF_MAX not a number" "OFF_MAX 'x' is not accepted" \
    --load 0.5 --pattern random:1:2:1:x
refused "--pattern random ON_MIN above ON_MAX" \
    "ON_MIN '0.3' is more than ON_MAX '0.2'; expected ON_MIN <= ON_MAX" \
    --load 0.5 --pattern random:0.3:0.2:0.1:0.2
refused "--pattern random OFF_MIN above OFF_MAX" \
    "OFF_MIN '2' is more than OFF_MAX '1'; expected OFF_MIN <= OFF_MAX" \
    --load 0.5 --pattern random:1:1:2:1
refused "--pattern wander without fields" \
    "option --pattern: 'wander' needs its fields; expected wander:SECONDS:LO" \
    --load 0.5 --pattern wander
refused "--pattern wander with 1 field" "'wander:1' has 1 field after 'wander:'" \
    --load 0.5 --pattern wander:1
refused "--pattern wander with 3 fields" "has more than 2 fields after 'wander:'" \
    --load 0.5 --pattern wander:1:0.1:0.2
refused "--pattern wander SECONDS 0" \
    "'wander:0:0.1': SECONDS '0' is not accepted; expected seconds, more than 0" \
    --load 0.5 --pattern wander:0:0.1
refused "--pattern wander empty SECONDS" "SECONDS '' is not accepted" \
    --load 0.5 --pattern wander::0.1
refused "--pattern wander LO negative" \
    "'wander:1:-0.1': LO '-0.1' is not accepted; expected a load from 0 to F" \
    --load 0.5 --pattern wander:1:-0.1
refused "--pattern wander LO not a number" "LO 'low' is not accepted" \
    --load 0.5 --pattern wander:1:low
refused "--pattern wander LO above --load" \
    "'wander:1:0.6': LO 0.6 is more than the --load 0.5; expected 0 <= LO <= F" \
    --load 0.5 --pattern wander:1:0.6
refused "... also when --load comes after --pattern" "LO 0.6 is more than the --load 0.5" \
    --pattern wander:1:0.6 --load 0.5
refused "--seed with the default pattern" \
    "option --seed has no effect with --pattern steady (the default)" --load 0.5 --seed 3
refused "--seed with --pattern bursts" "option --seed has no effect with --pattern bursts" \
    --load 0.5 --seed 3 --pattern bursts:1:0.1:0.1
refused "--seed past 2^32-1" \
    "option --seed: '4294967296' is not accepted; expected a whole number from 0 to 4294967295" \
    --load 0.5 --pattern wander:1:0 --seed 4294967296
refused "--seed negative" "option --seed: '-1' is not accepted" \
    --load 0.5 --pattern random:1:1:1:1 --seed -1
refused "--seed not whole" "option --seed: '1.5' is not accepted" \
    --load 0.5 --pattern random:1:1:1:1 --seed 1.5
refused "--seed without its value" "option --seed needs a value; expected --seed N" \
    --load 0.5 --pattern random:1:1:1:1 --seed

run --load 0.5 --duration 0.1 --log "$TMP/no-such-dir/log"
check "an unwritable --log exits 1 naming the option and the file" \
    sh -c "test $rc = 1 && grep -qF \"option --log: cannot open '$TMP/no-such-dir/log'\" '$TMP/err'"

# ---- runs ----
run --load 0.5 --duration 1
check "a 1 s steady run at load 0.5 exits 0" test "$rc" = 0
check "... printed its start line" grep -q '^xmpi-interfere: pid [0-9]* starts now: load 0.5 ' \
    "$TMP/out"
check "... and the summary, with 0 < busy <= ran" summary_ok 0.5
[ "$rc" = 0 ] || show

run --load=0.5 --period 20 --pattern bursts:2:0.2:0.1:0.3 --log "$TMP/bursts.log"
check "bursts:2:0.2:0.1:0.3 exits 0" test "$rc" = 0
check "... its log has the phases in order" \
    test "$(phases "$TMP/bursts.log")" = "burst idle burst idle long end"
check "... with the load of each phase" \
    test "$(awk '!/^#/ { printf "%s ", $4 }' "$TMP/bursts.log")" = "0.5 0 0.5 0 0.5 0 "
check "... and times that never go back" \
    awk '!/^#/ { if (n++ && ($1 < u || $2 < e)) bad = 1; u = $1; e = $2 } END { exit bad }' \
    "$TMP/bursts.log"
check "... and the summary counts the load phases" \
    grep -q 'target load 0.5 over [0-9.]* s of load phases$' "$TMP/out"
check "... with 0 < busy <= ran" summary_ok 0.5

start=$(date +%s.%N)
run --load 0.3 --delay 0.5 --duration 0.2 --log "$TMP/delay.log"
end=$(date +%s.%N)
check "--delay 0.5: exits 0, says when it starts" \
    sh -c "test $rc = 0 && grep -q 'starts in 0.5 s: load 0.3' '$TMP/out'"
check "... logs the delay, then the load, then the end" \
    test "$(phases "$TMP/delay.log")" = "delay steady end"
check "... the load starts after the delay" \
    awk '$3 == "steady" { exit !($2 >= 0.5) }' "$TMP/delay.log"
check "... and the run lasts at least delay + duration" awk "BEGIN { exit !($end - $start >= 0.7) }"
check "... the summary counts only the run after the delay" summary_ok 0.3

# Pinning: the first CPU this shell may use, read from the running tool's own status.
cpu=$(awk '/^Cpus_allowed_list/ { split($2, a, /[-,]/); print a[1] }' /proc/self/status)
timeout -k 1 5 "$IF" --load 0.1 --cpu "$cpu" --duration 0.8 >"$TMP/pin.out" 2>&1 &
guard=$!
allowed=""
for _ in $(seq 20); do
    pid=$(tool_pid "$TMP/pin.out")
    [ -n "$pid" ] && allowed=$(awk '/^Cpus_allowed_list/ { print $2 }' "/proc/$pid/status") && break
    sleep 0.05
done
wait $guard
rc=$?
check "--cpu $cpu pins the process to that CPU (Cpus_allowed_list '$allowed')" \
    test "$allowed" = "$cpu" -a "$rc" = 0
check "... and the start line says so" grep -q "on CPU $cpu, steady for 0.8 s" "$TMP/pin.out"

# Stopped by a signal sent to the tool itself: exit 0, the summary, the end of the log.
for sig in TERM INT; do
    timeout -k 1 5 "$IF" --load 0.2 --pattern bursts:2:0.1:0.1:inf --log "$TMP/$sig.log" \
        >"$TMP/out" 2>"$TMP/err" &
    guard=$!
    for _ in $(seq 20); do grep -q long "$TMP/$sig.log" 2>/dev/null && break; sleep 0.05; done
    pid=$(tool_pid "$TMP/out")
    [ -n "$pid" ] && kill -"$sig" "$pid"
    wait $guard
    rc=$?
    check "SIG$sig ends a run with no end: exit 0" test "$rc" = 0
    check "... it prints the summary and which signal" \
        grep -q "^xmpi-interfere: ran .* (stopped by SIG$sig)$" "$TMP/out"
    check "... and the log ends with the end line" \
        test "$(phases "$TMP/$sig.log")" = "burst idle burst idle long end"
done

# ---- random and wander ----
# Phase lengths are read from the log's ELAPSED column: each line is written when its phase
# begins, a little late on a busy machine, so lengths get SLACK seconds either way. The draws
# themselves depend on the seed alone, so the phases, the levels and the number of them are
# exact; only their times are not.
SLACK=0.1

# random_lengths_ok LOG ON_MIN ON_MAX OFF_MIN OFF_MAX: every burst and idle phase but the last
# (cut by --duration) lasted within its bounds, give or take SLACK.
random_lengths_ok() {
    awk -v a="$2" -v b="$3" -v c="$4" -v d="$5" -v s="$SLACK" '
        BEGIN { n = 0 }
        !/^#/ { ph[n] = $3; t[n++] = $2 }
        END {
            for (i = 0; i + 2 < n; i++) {
                len = t[i + 1] - t[i]
                lo = ph[i] == "burst" ? a : c; hi = ph[i] == "burst" ? b : d
                if (len < lo - s || len > hi + s) {
                    printf "#   %s at %s lasted %.3f s, not in [%s, %s]\n", ph[i], t[i], len, lo, hi
                    bad = 1
                }
            }
            exit bad || n < 3
        }' "$1"
}

# close_in_time LOG1 LOG2: the same phases with the same loads, each starting at the same time
# give or take SLACK (two runs of the same seed).
close_in_time() {
    paste -d' ' <(grep -v '^#' "$1") <(grep -v '^#' "$2") |
        awk -v s="$SLACK" 'NF != 8 || $3 != $7 || $4 != $8 || $2 - $6 > s || $6 - $2 > s { bad = 1 }
                           END { exit bad || NR < 2 }'
}

# levels LOG: the LOAD column of the level lines, one line.
levels() { awk '$3 == "level" { printf "%s%s", n++ ? " " : "", $4 }' "$1"; }

run --load 0.5 --period 5 --pattern random:0.25:0.4:0.05:0.1 --seed 3 --duration 1.2 \
    --log "$TMP/random3.log"
check "random:0.25:0.4:0.05:0.1 --seed 3 --duration 1.2 exits 0" test "$rc" = 0
check "... says what it will do" grep -qF "load 0.5 of every 5 ms on any CPU, bursts of 0.25 to \
0.4 s with 0.05 to 0.1 s idle between, drawn with seed 3, for 1.2 s" "$TMP/out"
check "... its log alternates burst and idle, from a burst on ($(phases "$TMP/random3.log"))" \
    eval '[[ "$(phases "$TMP/random3.log")" =~ ^burst(\ idle\ burst)+(\ idle)?\ end$ ]]'
check "... with load 0.5 in bursts and 0 when idle" \
    awk '!/^#/ && !($3 == "burst" && $4 == 0.5 || ($3 == "idle" || $3 == "end") && $4 == 0) {
             bad = 1 }
         END { exit bad }' "$TMP/random3.log"
check "... bursts of 0.25 to 0.4 s and gaps of 0.05 to 0.1 s (give or take $SLACK s)" \
    random_lengths_ok "$TMP/random3.log" 0.25 0.4 0.05 0.1
bursts=$(grep -c ' burst ' "$TMP/random3.log")
check "... the summary counts the load phases and the $bursts bursts of the log" \
    grep -q "target load 0.5 over [0-9.]* s of load phases in $bursts bursts$" "$TMP/out"
check "... with 0 < busy <= ran" summary_ok 0.5
[ "$rc" = 0 ] || show
cp "$TMP/random3.log" "$TMP/random3a.log"
run --load 0.5 --period 5 --pattern random:0.25:0.4:0.05:0.1 --seed 3 --duration 1.2 \
    --log "$TMP/random3.log"
check "random again with --seed 3: the same phases at the same times (give or take $SLACK s)" \
    close_in_time "$TMP/random3a.log" "$TMP/random3.log"
run --load 0.5 --period 5 --pattern random:0.25:0.4:0.05:0.1 --seed 4 --duration 1.2 \
    --log "$TMP/random4.log"
check "random with --seed 4: other phases or times than --seed 3" \
    eval 'test "$rc" = 0 && ! close_in_time "$TMP/random3a.log" "$TMP/random4.log"'

run --load 0.7 --period 5 --pattern wander:0.2:0.3 --seed 5 --duration 1.2 --log "$TMP/wander5.log"
check "wander:0.2:0.3 --load 0.7 --seed 5 --duration 1.2 exits 0" test "$rc" = 0
check "... says what it will do" grep -qF "load 0.3 to 0.7 of every 5 ms on any CPU, a new level \
every 0.2 s, drawn with seed 5, for 1.2 s" "$TMP/out"
check "... its log has 6 levels, then the end ($(phases "$TMP/wander5.log"))" \
    test "$(phases "$TMP/wander5.log")" = "level level level level level level end"
check "... all from 0.3 to 0.7, and not all the same ($(levels "$TMP/wander5.log"))" \
    awk '$3 == "level" { if ($4 < 0.3 || $4 > 0.7) bad = 1; if (n++ && $4 != first) moved = 1
                         if (n == 1) first = $4 }
         END { exit bad || !moved }' "$TMP/wander5.log"
check "... changing every 0.2 s (give or take $SLACK s)" \
    awk -v s="$SLACK" '!/^#/ { if (n++ && ($2 - t < 0.2 - s || $2 - t > 0.2 + s)) bad = 1; t = $2 }
                       END { exit bad }' "$TMP/wander5.log"
check "... the summary has a mean level from 0.3 to 0.7 over 6 levels" \
    awk '/ target load 0.7 wandering from 0.3: mean level [0-9.]* over 6 levels$/ {
             found = $(NF - 3) >= 0.3 && $(NF - 3) <= 0.7 }
         END { exit !found }' "$TMP/out"
check "... with 0 < busy <= ran" summary_ok 0.7
[ "$rc" = 0 ] || show
run --load 0.7 --period 5 --pattern wander:0.2:0.3 --seed 5 --duration 1.2 --log "$TMP/wander5a.log"
check "wander again with --seed 5: the same levels" \
    test "$(levels "$TMP/wander5a.log")" = "$(levels "$TMP/wander5.log")"
run --load 0.7 --period 5 --pattern wander:0.2:0.3 --seed 6 --duration 1.2 --log "$TMP/wander6.log"
check "wander with --seed 6: other levels ($(levels "$TMP/wander6.log"))" \
    eval 'test "$rc" = 0 && test -n "$(levels "$TMP/wander6.log")" &&
        test "$(levels "$TMP/wander6.log")" != "$(levels "$TMP/wander5.log")"'

run --load 0.5 --pattern wander:0.1:0 --duration 0.3 --log "$TMP/seedless.log"
run --load 0.5 --pattern wander:0.1:0 --duration 0.3 --seed 1 --log "$TMP/seed1.log"
check "the default seed is 1 (the same levels: $(levels "$TMP/seed1.log"))" \
    eval 'test -n "$(levels "$TMP/seed1.log")" &&
        test "$(levels "$TMP/seed1.log")" = "$(levels "$TMP/seedless.log")"'
run --load 0.5 --pattern wander:0.1:0 --duration 0.1 --seed 4294967295
check "--seed 4294967295 is accepted" \
    sh -c "test $rc = 0 && grep -q 'drawn with seed 4294967295, for 0.1 s' '$TMP/out'"
run --load 0.5 --pattern wander:0.1:0.5 --duration 0.3 --log "$TMP/flat.log"
check "wander with LO = F: one level line, the level never changing" \
    test "$(phases "$TMP/flat.log") $(levels "$TMP/flat.log")" = "level end 0.5"

# No --duration: both run until stopped, like steady.
for pattern in random:0.05:0.1:0.05:0.1 wander:0.05:0.1; do
    log="$TMP/until-${pattern%%:*}.log"
    timeout -k 1 5 "$IF" --load 0.2 --pattern "$pattern" --log "$log" >"$TMP/out" 2>"$TMP/err" &
    guard=$!
    for _ in $(seq 40); do
        n=$(grep -vc '^#' "$log" 2>/dev/null)
        [ "${n:-0}" -ge 4 ] && break
        sleep 0.05
    done
    pid=$(tool_pid "$TMP/out")
    [ -n "$pid" ] && kill -TERM "$pid"
    wait $guard
    rc=$?
    check "${pattern%%:*} with no --duration runs until SIGTERM: exit 0, the summary says so" \
        sh -c "test $rc = 0 && grep -q '(stopped by SIGTERM)\$' '$TMP/out'"
    check "... and the log ends with the end line after 4 or more phases" \
        awk '!/^#/ { n++; last = $3 } END { exit !(n >= 5 && last == "end") }' "$log"
done
