#!/usr/bin/env bash
# Promise coverage of the contract tests (issue 36): every sentence of include/xmpi.h's comments
# is quoted by a contract test or listed, with a reason, in tests/contract/unquoted.txt, and every
# quote is still in the text it quotes.
#
# Quotes: PROMISE("...") (or QUOTED_PROMISE) in tests/contract/*.c, not the helpers' header,
# quotes include/xmpi.h; DOC_PROMISE("docs/F.md", "...") quotes a page of the docs. The argument
# is one C string literal or adjacent ones (only \" and \\ are unescaped). In
# tests/sh/contract.sh a line '# promise: "..."' quotes the header for the check after it. Texts
# are compared whitespace-normalised (every run of blanks, tabs and line ends is one space), as
# plain substrings.
#
# Sentences of the header: the text of every /* ... */ comment, with each line's leading blanks
# and first '*' removed and section headings ("---- Title ----") dropped, is cut after
#   - a ';', or
#   - a '.', '!' or '?' followed by a space, except the '.' of the abbreviations i.e., e.g., etc.,
#     cf. and vs.,
# both only outside parentheses, and at the end of each comment. A sentence keeps its ';' or
# '.'. A sentence is quoted when some PROMISE's text contains it whole.
#
# unquoted.txt: one line per sentence, "SENTENCE || REASON" ('#' lines and blank lines ignored).
#
# Fails (not ok): (a) a quote that is not in its file (the promise was dropped or reworded: fix the
# test or drop it); (b) a header sentence neither quoted nor listed ("a promise without a test");
# (c) a listed sentence that is no longer in the header, is quoted after all, or has no reason.
# Last, the check is run on temporary copies of the header with a quoted sentence reworded and a
# new sentence added, and must catch both.
# shared: the header's and the contract tests' text, no MPI
. "$(dirname "$0")/lib.sh"
SRC="$ROOT/tests/contract"

cat >"$TMP/promises.awk" <<'AWK'
function norm(s) { gsub(/[ \t\r\n]+/, " ", s); sub(/^ /, "", s); sub(/ $/, "", s); return s }
function slurp(f,    t, l) {
    t = ""
    while ((getline l < f) > 0) t = t l "\n"
    close(f)
    return t
}
function emit(s) { s = norm(s); if (s != "") sent[++nsent] = s }
# The sentences of one comment's normalised text.
function sentences(s,    i, c, depth, cur, n) {
    depth = 0; cur = ""; n = length(s)
    for (i = 1; i <= n; i++) {
        c = substr(s, i, 1); cur = cur c
        if (c == "(") depth++
        else if (c == ")") { if (depth > 0) depth-- }
        else if (depth == 0 && c == ";") { emit(cur); cur = "" }
        else if (depth == 0 && (c == "." || c == "!" || c == "?") && substr(s, i + 1, 1) == " " &&
                 cur !~ /(^| )(i\.e|e\.g|etc|cf|vs)\.$/) { emit(cur); cur = "" }
    }
    emit(cur)
}
# Every comment of the header: its sentences into sent[], its text into comments.
function header(f,    text, i, j, body, n, k, lines, ln, b) {
    text = slurp(f); comments = ""
    while ((i = index(text, "/*")) > 0) {
        text = substr(text, i + 2)
        j = index(text, "*/"); if (!j) break
        body = substr(text, 1, j - 1); text = substr(text, j + 2)
        n = split(body, lines, "\n"); b = ""
        for (k = 1; k <= n; k++) {
            ln = lines[k]; sub(/^[ \t]*\*?/, "", ln)
            if (ln ~ /^ *---- / && ln ~ /----+ *$/) ln = ""
            b = b " " ln
        }
        b = norm(b)
        comments = comments "\001" b
        sentences(b)
    }
}
# The quotes of one source file (its whole text in t).
function quotes(t, file,    p, rest, line, kind, arg, c, lit, i, n, docf, nargs) {
    while ((p = index(t, "PROMISE(")) > 0) {
        kind = (p > 4 && substr(t, p - 4, 4) == "DOC_") ? "D" : "H"
        rest = substr(t, 1, p); line += gsub(/\n/, "\n", rest)   # lines before the match
        t = substr(t, p + 8)
        # the arguments: string literals, a comma between DOC_PROMISE's two
        arg = ""; docf = ""; nargs = 0; i = 1; n = length(t)
        while (i <= n) {
            c = substr(t, i, 1)
            if (c ~ /[ \t\n]/) { i++; continue }
            if (c == "\"") {
                i++; lit = ""
                while (i <= n && (c = substr(t, i, 1)) != "\"") {
                    if (c == "\\") { i++; c = substr(t, i, 1) }
                    lit = lit c; i++
                }
                i++; arg = arg lit; nargs++; continue
            }
            if (c == "," && kind == "D" && docf == "") { docf = arg; arg = ""; i++; continue }
            break
        }
        if (c != ")" || nargs == 0) continue   # the macro's definition, or not a literal
        nq++; qkind[nq] = kind; qtext[nq] = norm(arg); qdoc[nq] = docf
        qloc[nq] = file ":" (line + 1)
        t = substr(t, i)
    }
}
BEGIN {
    header(hdr)
    if (dump) { for (i = 1; i <= nsent; i++) print sent[i]; exit 0 }
    # the sources
    nsrc = split(srcs, files, " ")
    for (f = 1; f <= nsrc; f++) quotes(slurp(files[f]), files[f])
    # the runner's quotes: a line '# promise: "..."'
    ln = 0
    while ((getline l < runner) > 0) {
        ln++
        if (l !~ /^[ \t]*# promise: "/) continue
        sub(/^[ \t]*# promise: "/, "", l); sub(/"[ \t]*$/, "", l)
        nq++; qkind[nq] = "H"; qtext[nq] = norm(l); qdoc[nq] = ""; qloc[nq] = runner ":" ln
    }
    close(runner)
    fails = 0
    # (a) every quote is in its text
    bad = 0
    for (q = 1; q <= nq; q++) {
        if (qkind[q] == "H") ok = index(comments, qtext[q]) > 0
        else {
            if (!(qdoc[q] in doc)) doc[qdoc[q]] = norm(slurp(root "/" qdoc[q]))
            ok = index(doc[qdoc[q]], qtext[q]) > 0
        }
        if (!ok) {
            bad++
            printf "not ok - promises: the quote at %s is not in %s: \"%s\"\n", qloc[q],
                qkind[q] == "H" ? "include/xmpi.h" : qdoc[q], qtext[q]
        }
    }
    if (!bad) printf "ok - promises: all %d quotes are verbatim in include/xmpi.h or the docs they name\n", nq
    fails += bad
    # the list of unquoted sentences
    nl = 0
    while ((getline l < list) > 0) {
        nl_line++
        if (l ~ /^[ \t]*#/ || l ~ /^[ \t]*$/) continue
        k = index(l, " || ")
        s = k ? norm(substr(l, 1, k - 1)) : norm(l)
        why = k ? norm(substr(l, k + 4)) : ""
        listed[s] = why; listline[s] = nl_line; nl++
    }
    close(list)
    # (b) every sentence is quoted or listed
    quoted = 0; unq = 0; bad = 0
    for (i = 1; i <= nsent; i++) {
        s = sent[i]; by = ""
        for (q = 1; q <= nq && by == ""; q++)
            if (qkind[q] == "H" && index(qtext[q], s) > 0) by = qloc[q]
        if (by != "") {
            quoted++
            if (s in listed) {
                bad++
                printf "not ok - promises: unquoted.txt:%d lists a sentence that %s quotes: \"%s\"\n",
                    listline[s], by, s
            }
        } else if (s in listed) {
            unq++
            if (listed[s] == "") {
                bad++
                printf "not ok - promises: unquoted.txt:%d gives no reason for \"%s\"\n", listline[s], s
            }
        } else {
            bad++
            printf "not ok - promises: a promise without a test: \"%s\"\n", s
        }
        insent[s] = 1
    }
    # (c) every listed sentence is still one of the header's
    for (s in listed)
        if (!(s in insent)) {
            bad++
            printf "not ok - promises: unquoted.txt:%d lists what is no sentence of include/xmpi.h: \"%s\"\n",
                listline[s], s
        }
    if (!bad)
        printf "ok - promises: every sentence of include/xmpi.h is quoted by a contract test or listed unquoted with a reason\n"
    fails += bad
    printf "# promises: %d sentences in include/xmpi.h: %d quoted, %d listed unquoted, %d neither; %d quotes (%d of the header)\n",
        nsent, quoted, unq, nsent - quoted - unq, nq, nq_h()
    exit fails > 0
}
function nq_h(    q, c) { c = 0; for (q = 1; q <= nq; q++) if (qkind[q] == "H") c++; return c }
AWK

# promises HEADER: the check of the contract tests against HEADER. PROMISES_DUMP=1 prints the
# header's sentences instead, one a line (to write unquoted.txt).
promises() {
    (cd "$ROOT" && awk -v hdr="$1" -v root="$ROOT" -v list="tests/contract/unquoted.txt" \
        -v dump="${PROMISES_DUMP:-}" -v srcs="$(echo tests/contract/*.c)" -v runner=tests/sh/contract.sh \
        -f "$TMP/promises.awk")
}
if [ -n "${PROMISES_DUMP:-}" ]; then promises "$ROOT/include/xmpi.h"; exit 0; fi

before=$(cksum <"$ROOT/include/xmpi.h")
promises "$ROOT/include/xmpi.h" | tee "$TMP/real.out"

# The check catches both failures, on temporary copies of the header (never the tree's).
h=$(mktemp "$TMP/xmpi.h.XXXXXX")
sed 's/A sentence describing `code`; never NULL\./A sentence describing `code`; not NULL./' \
    "$ROOT/include/xmpi.h" >"$h"
promises "$h" >"$TMP/dropped.out"
rc=$?
check "a reworded header sentence fails its quote (a promise dropped from the header)" \
    sh -c "test $rc -ne 0 && grep -q 'not ok - promises: the quote at .* is not in include/xmpi.h: \"A sentence describing .code.; never NULL.\"' '$TMP/dropped.out'"
h=$(mktemp "$TMP/xmpi.h.XXXXXX")
sed 's|^XMPI_PUBLIC int XMPI_Remove(|/* XMPI_Remove also waters the plants. */\n&|' "$ROOT/include/xmpi.h" >"$h"
promises "$h" >"$TMP/added.out"
rc=$?
check "a new header sentence that no test quotes fails (a promise without a test)" \
    sh -c "test $rc -ne 0 && grep -q 'not ok - promises: a promise without a test: \"XMPI_Remove also waters the plants.\"' '$TMP/added.out' &&
           test \$(grep -c '^not ok' '$TMP/added.out') = \$((\$(grep -c '^not ok' '$TMP/real.out') + 1))"
check "the tree's header is not touched by the checks above" test "$(cksum <"$ROOT/include/xmpi.h")" = "$before"
