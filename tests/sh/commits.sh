#!/usr/bin/env bash
# The commit rule (scripts/check-commits): every commit since the rule began keeps it, and the
# checker refuses what it must, shown on sample messages.
# shared: the git history, no MPI
. "$(dirname "$0")/lib.sh"
C="$ROOT/scripts/check-commits"

msg() { printf '%s\n' "$@" >"$TMP/msg"; "$C" --message "$TMP/msg" >"$TMP/out" 2>&1; }
check "a good subject with a body is accepted" msg "monitor: one CPU-clock read per si_init" "" "Why."
msg "docs: $(printf 'x%.0s' $(seq 67))"
check "a subject of 73 characters is refused" grep -q "the subject has 73 characters" "$TMP/out"
msg "simplify: many things at once"
check "an unknown area is refused, naming the accepted ones" \
    grep -q "unknown area 'simplify'; accepted: api" "$TMP/out"
msg "docs: what changed" "no blank line before the body"
check "a body without the blank line is refused" grep -q "second line must be empty" "$TMP/out"
msg "no area at all"
check "a subject without 'area:' is refused" grep -q "is not 'area: what changed'" "$TMP/out"

if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
    out=$("$C" 2>&1)
    rc=$?
    check "every commit since the rule began keeps it ($(printf '%s\n' "$out" | tail -1))" [ $rc -eq 0 ]
    [ $rc -eq 0 ] || printf '%s\n' "$out" | sed 's/^/#   /'
else
    ok "the history is not checked # SKIP not a git checkout"
fi
