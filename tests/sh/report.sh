# xmpi-report: bad input (missing, empty, no rows, another file, an unknown format version, a
# malformed row) is refused with exit status 2 and one message; traces of a one-row run, a
# malleable run (SMP, 2 -> 3 -> 4 -> 2) and an AMP run are drawn, their summary's numbers equal
# an independent awk over the CSV, the page is self-contained and, opened in headless
# Chromium, shows its plots; a cut last row, an older format version and a missing gnuplot are
# handled with a note.
. "$(dirname "$0")/lib.sh"
# Blocking spawns: the malleable run's sizes come in a fixed order (async.sh covers the other).
export XMPI_SPAWN_ASYNC=off
J="$ROOT/$BUILD/bin/jacobi"
R="$ROOT/$BUILD/bin/xmpi-report"
cd "$TMP" || exit 1

# The PNG checker (tests/sh/pngstat.c, zlib).
PNGSTAT="$TMP/pngstat"
${CC:-cc} -std=c11 -O2 -o "$PNGSTAT" "$ROOT/tests/sh/pngstat.c" -lz 2>pngstat.err ||
    { notok "tests/sh/pngstat.c compiles"; sed 's/^/#   /' pngstat.err; PNGSTAT=; }

# refused DESC FILE PATTERN: exit 2, exactly one line on stderr, containing PATTERN, no page.
refused() {
    local desc=$1 file=$2 pattern=$3
    rm -rf out
    "$R" -o out "$file" >stdout 2>stderr
    local rc=$? n
    n=$(grep -c . stderr)
    if [ $rc = 2 ] && [ "$n" = 1 ] && grep -qF -- "$pattern" stderr && ! test -e out/report.html; then
        ok "$desc"
    else
        notok "$desc (exit $rc, $n lines)"; sed 's/^/#   /' stderr | head -5
    fi
}

refused "a missing trace is refused" none.csv "cannot read 'none.csv': No such file or directory"
: >empty.csv
refused "an empty file is refused" empty.csv "empty.csv: empty file"
printf '%s:fast:2:1\n' "$(hostname)" >res.txt
refused "a file that is not a trace is refused" res.txt "res.txt:1: not a libxmpi trace"
refused "a directory is refused" . "'.' is a directory"
"$R" >stdout 2>stderr
rc=$?
check "no trace at all is refused with exit 2 and one line (exit $rc)" \
    sh -c "test $rc = 2 && test \$(grep -c . stderr) = 1 && grep -q 'no trace given' stderr"
"$R" --colour x.csv >stdout 2>stderr
rc=$?
check "an unknown option is refused with exit 2 and one line (exit $rc)" \
    sh -c "test $rc = 2 && test \$(grep -c . stderr) = 1 && grep -q \"unknown option '--colour'\" stderr"
"$R" --help >help.txt
check "--help prints the synopsis and the exit status (exit $?)" \
    sh -c "grep -q 'xmpi-report \[-o DIR\] TRACE.csv' help.txt && grep -q 'EXIT STATUS' help.txt"

# ---- a one-row run: 20 iterations, one interval of 20 -------------------------------------------
"$LAUNCH" -np 2 "$J" -n 100 -i 20 --xmpi-si=20 --xmpi-trace=one.csv >one.out 2>&1
rc=$?
check "the one-row run exits 0 with a trace of one row (exit $rc)" \
    sh -c "test $rc = 0 && test \$(wc -l <one.csv) = 2"
head -1 one.csv >header.csv
refused "a trace without rows is refused" header.csv "header.csv: no rows"
sed '1s/$/,a_newer_column/' one.csv >newer.csv
refused "a header of an unknown (newer) format version is refused" newer.csv \
    "newer.csv:1: a trace header of an unknown format version (36 columns, 1 more than this reader knows (the first: 'a_newer_column')"
{ cat one.csv; tail -1 one.csv | sed 's/,declared,/,declared,extra,/'; tail -1 one.csv; } >malformed.csv
refused "a malformed row in the middle is refused, naming its line" malformed.csv \
    "malformed.csv:3: 36 fields where the header has 35"
sed '2s/^1,20,2,/1,20,two,/' one.csv >badnum.csv
refused "a field that is not a number is refused, naming line and column" badnum.csv \
    "badnum.csv:2: column nprocs: 'two' is not accepted"

# expected CSV: the summary's figures computed from the CSV by awk, the definitions of
# docs/tools.md (xmpi-report) and not the tool's code: KEY VALUE lines.
expected() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        { n++; np = $c["nprocs"] + 0
          if (n == 1) { first = mn = mx = np }
          if (np < mn) mn = np
          if (np > mx) mx = np
          if (n > 1) { d = np - prev; if (d > 0) up += d; else down -= d }
          prev = np
          a = "+" $c["action"] "+"
          sp += index(a, "+spawn+") > 0; rmv += index(a, "+remove+") > 0
          rb += index(a, "+rebalance+") > 0; rd += index(a, "+redistribute+") > 0
          ck += index(a, "+checkpoint+") > 0
          ev = $c["event"]; rm_ev += ev ~ /^(offer|reclaim) /
          dec = $c["decision"]
          if (dec != "") { nd++; kp += dec == "keep"; ds += dec ~ /^spawn /; dr += dec ~ /^remove / }
          if ($c["cost_interval"] != "") { costed = 1; cost += $c["cost_interval"] }
          if (!krow && ev ~ /^goal [0-9.e+-]+ s$/) { split(ev, g, " "); goal = g[2]; krow = n }
          cmp += $c["predicted_for"] != ""
          E[n] = $c["elapsed"]; IT[n] = $c["iteration"]; TR[n] = $c["t_real_max"]
          NI[n] = $c["iterations"]; CI[n] = $c["cost_interval"] }
        END { k = krow ? krow : 1
              st = E[k] + (IT[n] - IT[k]) * TR[k] / NI[k]
              printf "rows %d\ntime_s %.9g\niterations %d\nprocs_first %d\nprocs_last %d\n", n, E[n], IT[n], first, prev
              printf "procs_min %d\nprocs_max %d\nspawned_procs %d\nremoved_procs %d\n", mn, mx, up, down
              printf "spawn_events %d\nremove_events %d\nrebalances %d\nredistributions %d\n", sp, rmv, rb, rd
              printf "checkpoints %d\nrm_events %d\ndecisions %d\ndecisions_keep %d\n", ck, rm_ev, nd, kp
              printf "decisions_spawn %d\ndecisions_remove %d\ncompared %d\n", ds, dr, cmp
              printf "static_time_s %.9g\n", st
              if (costed) printf "cost %.12g\nstatic_cost %.12g\n", cost, CI[1] / E[1] * st
              if (goal != "") printf "goal_s %s\n", goal }' "$1"
}

# same_summary NAME CSV DIR: every figure of `expected` equals summary.tsv's (numbers within
# the 6 decimals the tool prints).
same_summary() {
    local name=$1 csv=$2 dir=$3 bad=""
    while read -r key want; do
        local got
        got=$(awk -F'\t' -v k="$key" '$1 == k { print $2 }' "$dir/summary.tsv")
        awk -v a="$got" -v b="$want" 'BEGIN { if (a == "") exit 1; d = a - b; if (d < 0) d = -d
            m = b < 0 ? -b : b; exit !(d <= 1e-6 + 1e-6 * m) }' || bad+=" $key=$got (awk: $want)"
    done < <(expected "$csv")
    check "$name: the summary's figures equal the CSV's by awk${bad:+:$bad}" test -z "$bad"
}

# drawn NAME CSV PNGS...: xmpi-report writes the page and PNGS, each a real image with colours.
drawn() {
    local name=$1 csv=$2; shift 2
    rm -rf "$name-report"
    "$R" -o "$name-report" "$csv" >"$name.report.out" 2>"$name.report.err"
    local rc=$?
    check "$name: xmpi-report exits 0 and says where the page is (exit $rc)" \
        sh -c "test $rc = 0 && grep -qx '$name-report/report.html' '$name.report.out' && test -s '$name-report/report.html'"
    for png in "$@"; do
        local st=""
        [ -n "$PNGSTAT" ] && st=$("$PNGSTAT" "$name-report/$png" 2>&1)
        check "$name: $png is an image with plotted colours ($st)" \
            awk -v s="$st" 'BEGIN { split(s, f, " "); exit !(f[1] > 100 && f[4] >= 4 && f[5] > 100) }'
    done
    local imgs
    imgs=$(grep -o '<img [^>]*src="data:image/png;base64,[A-Za-z0-9+/=]*"' "$name-report/report.html" | wc -l)
    check "$name: the page embeds its $# plots and links nothing ($imgs embedded)" \
        sh -c "test $imgs = $# && ! grep -qiE 'src=\"[^d]|href=|https?://|url\\(' '$name-report/report.html'"
    same_summary "$name" "$csv" "$name-report"
}

drawn one one.csv processes.png ranks.png cost.png
check "one: no model plot without a compared row, and the page says why" \
    sh -c "! test -e one-report/model.png && grep -q 'No row compares a prediction' one-report/report.html"

# screenshot NAME DIR: headless Chromium renders DIR/report.html; the picture is not blank and
# shows the plots' colours.
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
screenshot() {
    local name=$1 dir=$2
    if [ -z "$CHROMIUM" ]; then
        echo "ok - $name: the page in headless Chromium # SKIP no chromium (scripts/install-deps.sh installs it)"
        return
    fi
    if [ -z "$PNGSTAT" ]; then
        echo "ok - $name: the page in headless Chromium # SKIP no PNG checker (no zlib)"
        return
    fi
    local udd="$TMP/chromium-$name"
    mkdir -p "$udd"
    rm -f "$TMP/$name-shot.png"
    timeout -k 5 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        "--user-data-dir=$udd" "--screenshot=$TMP/$name-shot.png" --window-size=1200,2000 \
        "file://$TMP/$dir/report.html" >"$TMP/$name-chromium.log" 2>&1
    local rc=$? st
    # Nothing of this browser stays: its processes carry the profile directory made for it.
    for pid in $(pgrep -f -- "--user-data-dir=$udd" 2>/dev/null); do kill -9 "$pid" 2>/dev/null; done
    st=$("$PNGSTAT" "$TMP/$name-shot.png" 2>&1)
    check "$name: headless Chromium shows the page with its plots (exit $rc; $st)" \
        awk -v s="$st" 'BEGIN { split(s, f, " "); exit !(f[1] == 1200 && f[2] == 2000 &&
                                 f[3] > 0.01 * f[1] * f[2] && f[4] > 50 && f[5] > 1000) }'
}
screenshot one one-report

# A cut last row (a job killed while writing it): left out, with one note.
{ cat one.csv; tail -1 one.csv | cut -c1-40 | tr -d '\n'; } >cut.csv
"$R" -o cut-report cut.csv >/dev/null 2>cut.err
rc=$?
check "a cut last row is left out with one note (exit $rc)" \
    sh -c "test $rc = 0 && test \$(grep -c . cut.err) = 1 && grep -q 'cut.csv: the last line is cut short' cut.err &&
           grep -q 'rows	1' cut-report/summary.tsv && grep -q 'cut short' cut-report/report.html"
# Without gnuplot: the page and the summary, no plots, one note.
GNUPLOT=/nonexistent/gnuplot "$R" -o nognu-report one.csv >/dev/null 2>nognu.err
rc=$?
check "without gnuplot the page has the summary, no plots, and one note (exit $rc)" \
    sh -c "test $rc = 0 && test \$(grep -c . nognu.err) = 1 && grep -q 'gnuplot was not found' nognu.err &&
           ! grep -q '<img' nognu-report/report.html && grep -q '<th>iterations</th><td>20</td>' nognu-report/report.html"

require_spawn "xmpi-report on malleable and AMP runs"

# ---- a malleable run: SMP under a schedule, 2 -> 3 -> 4 -> 2, rows moved by the balancer ----------
printf '# iteration action count class\n20 spawn 1 local\n40 spawn 1 local\n80 remove 2 local\n' >events
RETRY_HOOK="rm -f mall.csv" launch_retry mall.out -np 2 "$J" -n 300 -i 120 -s 5 -d -b --xmpi-lb-th1=0 \
    --xmpi-lb-k=1 --xmpi-si=20 --xmpi-policy=smp --xmpi-rms=schedule:events --xmpi-oversubscribe \
    --xmpi-trace=mall.csv
rc=$?
check "malleable: jacobi exits 0 and grows 2 -> 3 -> 4 -> 2 (exit $rc)" \
    sh -c "test $rc = 0 && test \"\$(awk -F, 'NR > 1 && \$3 != l { printf \"%s \", \$3; l = \$3 }' mall.csv)\" = '2 3 4 2 '"
drawn mall mall.csv processes.png ranks.png model.png cost.png
# The page's table says what the summary says.
sp=$(awk -F'\t' '$1 == "spawn_events" { print $2 }' mall-report/summary.tsv)
up=$(awk -F'\t' '$1 == "spawned_procs" { print $2 }' mall-report/summary.tsv)
check "malleable: the page's table gives the spawns ($sp, $up processes) and the resource manager's 3 events" \
    sh -c "grep -q '<th>spawns</th><td>$sp ($up process' mall-report/report.html &&
           grep -q '<th>resource manager</th><td>3 offers or reclaims' mall-report/report.html"
check "malleable: every decision is listed with its reason" \
    test "$(grep -c '<tr><td class="n">[0-9]*</td><td class="n">[0-9.e+-]*</td><td>smp</td>' mall-report/report.html)" = \
         "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "decision") d = i; next } $d != "" { n++ } END { print n + 0 }' mall.csv)"
screenshot mall mall-report

# An older format version (2: 17 columns) of the same rows is drawn with what it has.
cut -d, -f1-17 mall.csv >v2.csv
"$R" -o v2-report v2.csv >/dev/null 2>v2.err
rc=$?
check "a version-2 trace is drawn, the page saying what it lacks (exit $rc)" \
    sh -c "test $rc = 0 && test -s v2-report/processes.png && test -s v2-report/ranks.png &&
           grep -q 'An older trace format (version 2)' v2-report/report.html && ! test -s v2.err"

# A resize by checkpoint and restart: the job ends at a row whose action says relaunch and
# comes back at another size. That change is no removal (mall.csv's removal row made one).
awk -F, -v OFS=, 'NR > 1 && $3 == 4 && $11 == "remove" { $11 = "relaunch" } { print }' mall.csv >relaunch.csv
"$R" -o relaunch-report relaunch.csv >/dev/null 2>&1
check "a relaunch's change of size is no removal (exit $?)" \
    sh -c "grep -qx 'relaunches	1' relaunch-report/summary.tsv && grep -qx 'removed_procs	0' relaunch-report/summary.tsv &&
           grep -qx 'remove_events	0' relaunch-report/summary.tsv"
# Rows of two runs joined by hand (elapsed goes back): laid one launch after the other.
{ cat one.csv; tail -1 one.csv | awk -F, -v OFS=, '{ $12 = $12 / 2; print }'; } >joined.csv
"$R" -o joined-report joined.csv >/dev/null 2>&1
check "rows whose elapsed goes back are laid after the earlier ones (exit $?)" \
    awk -F'\t' -v e="$(awk -F, 'NR == 2 { print $12 }' one.csv)" \
        '$1 == "time_s" { d = $2 - 1.5 * e; exit !(d < 1e-5 && d > -1e-5) }' joined-report/summary.tsv

# ---- an AMP run: 40% sooner than the static estimate, at the least cost ---------------------------
H=$(hostname)
printf '%s:fast:2:4\n%s:slow:4:1:0.15\n' "$H" "$H" >res
RETRY_HOOK="rm -f amp.csv" launch_retry amp.out -np 2 "$J" -n 1200 -i 400 -d --xmpi-si=40 \
    --xmpi-policy=amp --xmpi-goal=40% --xmpi-constraint=cost --xmpi-resources=res \
    --xmpi-initial=slow:2 --xmpi-oversubscribe --xmpi-trace=amp.csv
check "amp: jacobi exits 0" test $? = 0
# Whether AMP grows the job here depends on the machine's pace: the model's plot with it.
model=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "predicted_for") p = i; next }
                 $p != "" { print "model.png"; exit }' amp.csv)
drawn amp amp.csv processes.png ranks.png $model cost.png
goal=$(awk -F'\t' '$1 == "goal_s" { print $2 }' amp-report/summary.tsv)
check "amp: the cost plot draws the goal ($goal s) and the static estimate" \
    sh -c "test -n '$goal' && grep -q 'set arrow from $goal' amp-report/report.gp &&
           grep -q \"static.dat' using 1:2\" amp-report/report.gp && test \$(grep -c . amp-report/static.dat) = 3"
check "amp: the page names the goal" grep -q '<th>AMP goal</th>' amp-report/report.html
screenshot amp amp-report

left=$(leftovers "$J")
check "no process left behind${left:+ (pids $left)}" test -z "$left"
