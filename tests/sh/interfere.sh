# The xmpi-interfere tool: its help, one refusal per kind of bad option (exit 2, the option
# named), and short real runs: steady, bursts with their phase log, --delay, pinning, signals.
# Timing is only bounded loosely (busy > 0 and <= the run): the machines are shared.
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
    "LOG FILE" SIGTERM "EXIT STATUS"; do
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
refused "--pattern unknown" "option --pattern: 'sawtooth' is not accepted; expected steady, bursts:" \
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
