#!/usr/bin/env bash
# The documentation stays true to the tree: balanced code fences, `make TARGET`s the Makefile
# has, links that resolve, a short README, docs/options.md as xmpi-info prints it, man pages
# groff renders without a warning, docs/architecture.md's Layout naming every source file of
# the four layers, one version everywhere, and README's first program runs.
# Every check is first shown to catch a planted mistake, so that a pass means something.
. "$(dirname "$0")/lib.sh"
BUILDDIR=$(cd "$BUILD" 2>/dev/null && pwd) || { notok "build directory '$BUILD' exists"; exit 1; }
INFO="$BUILDDIR/bin/xmpi-info"
README_MAX=15360

# fence_problems FILE...: one line per file whose last ``` code fence is never closed. A fence
# opens with ``` (any info string) and closes with a bare ```, as CommonMark has it.
fence_problems() {
    local f
    for f in "$@"; do
        awk -v file="$f" '
            /^ ? ? ?```/ { if (!open) open = FNR; else if ($0 ~ /^ ? ? ?```[ \t]*$/) open = 0 }
            END { if (open) print file ": the code fence opened at line " open " is never closed" }
        ' "$f"
    done
}

# code_text FILE: the code of a Markdown file, one piece per line: the lines inside fences and
# every `inline code` span outside them.
code_text() {
    awk '
        /^ ? ? ?```/ { if (!infence) { infence = 1; next } else if ($0 ~ /^ ? ? ?```[ \t]*$/) { infence = 0; next } }
        infence { print; next }
        {
            s = $0
            while (match(s, /`[^`]+`/)) {
                print substr(s, RSTART + 1, RLENGTH - 2)
                s = substr(s, RSTART + RLENGTH)
            }
        }
    ' "$1"
}

# make_targets: every target the Makefile defines (its database, without running a rule).
make_targets() {
    make -pRrq -f "$ROOT/Makefile" -C "$ROOT" BUILD="$BUILD" __docs_sh_no_target__ 2>/dev/null |
        awk -F: '/^[a-zA-Z0-9][^$#\/\t=]*:([^=]|$)/ { n = split($1, t, / /); for (i = 1; i <= n; i++) print t[i] }' |
        sort -u
}

# target_problems TARGETS_FILE FILE...: one line per `make TARGET` in the code of FILE whose
# TARGET is not in TARGETS_FILE. Options and VAR=VALUE words between make and the target are
# skipped; a bare `make` is the default target.
target_problems() {
    local targets=$1 f; shift
    for f in "$@"; do
        code_text "$f" | awk -v file="$f" -v tfile="$targets" '
            BEGIN { while ((getline t < tfile) > 0) have[t] = 1 }
            {
                n = split($0, w, /[ \t]+/)
                for (i = 1; i <= n; i++) {
                    if (w[i] != "make") continue
                    for (j = i + 1; j <= n; j++) {
                        if (w[j] ~ /^(-C|-f|-j|-l|-o|-W)$/) { j++; continue }
                        if (w[j] ~ /^-/ || w[j] ~ /=/) continue
                        break
                    }
                    if (j > n) continue
                    t = w[j]; sub(/[.,;:)]+$/, "", t)
                    if (t ~ /^[a-z][a-z0-9_-]*$/ && !(t in have))
                        print file ": `make " t "` names no target of the Makefile"
                }
            }'
    done
}

# slugs FILE: the anchors of FILE's headings, as GitHub makes them (headings in code are none).
slugs() {
    awk '
        /^ ? ? ?```/ { if (!infence) { infence = 1; next } else if ($0 ~ /^ ? ? ?```[ \t]*$/) { infence = 0; next } }
        infence { next }
        /^#+ / { s = tolower($0); sub(/^#+ /, "", s); gsub(/[^a-z0-9 _-]/, "", s); gsub(/ /, "-", s); print s }
    ' "$1"
}

# code_free FILE: FILE without its fenced code.
code_free() {
    awk '/^ ? ? ?```/ { if (!infence) { infence = 1; next } else if ($0 ~ /^ ? ? ?```[ \t]*$/) { infence = 0; next } } !infence' "$1"
}

# link_problems FILE...: one line per relative link [text](path#anchor) whose file or heading
# does not exist.
link_problems() {
    local f link path anchor dir target
    for f in "$@"; do
        dir=$(dirname "$f")
        while IFS= read -r link; do
            case $link in http:*|https:*|mailto:*) continue ;; esac
            path=${link%%#*}
            anchor=""
            [[ $link == *#* ]] && anchor=${link#*#}
            target=$f
            [ -n "$path" ] && target="$dir/$path"
            if [ ! -e "$target" ]; then
                echo "$f: link to '$link': no such file"
            elif [ -n "$anchor" ] && ! slugs "$target" | grep -qxF -- "$anchor"; then
                echo "$f: link to '$link': no such heading"
            fi
        done < <(code_free "$f" | grep -o '\](\([^)]*\))' | sed 's/^](\(.*\))$/\1/')
    done
}

# size_problems FILE: a line if FILE is over README_MAX bytes.
size_problems() {
    local n; n=$(wc -c <"$1")
    [ "$n" -le $README_MAX ] || echo "$1: $n bytes, more than $README_MAX"
}

# options_problems FILE: the diff between FILE and what xmpi-info prints (run `make docs`).
options_problems() {
    "$INFO" --options-markdown | diff -u "$1" - | head -20
}

# man_problems MANDIR: groff's warnings for every page under MANDIR/man*/ (aliases are
# symbolic links to the page that describes them).
man_problems() {
    local page out
    for page in "$1"/man*/*; do
        [ -e "$page" ] || continue
        out=$(groff -man -ww -z "$page" 2>&1)
        [ -z "$out" ] || echo "$page: $out"
    done
}

# layout_names DOC: the repository paths (`dir/...` in backticks) that the "## Layout" section
# of DOC names, one per line.
layout_names() {
    awk '/^## / { on = ($0 == "## Layout") } on' "$1" |
        grep -oE '`[a-z_]+/[A-Za-z0-9_./-]*`' | tr -d '`' | sort -u
}

# layout_problems TREE DOC: one line per source file of TREE's io/, models/, policies/ and
# libxmpi/ (every .c, and every .h without a .c of the same name) that DOC's Layout section does
# not name, and one per path it names that TREE lacks.
layout_problems() {
    local tree=$1 doc=$2 f names
    names=$(layout_names "$doc")
    while IFS= read -r f; do
        [[ $f == *.h && -e $tree/${f%.h}.c ]] && continue
        grep -qxF -- "$f" <<<"$names" || echo "$doc: the Layout section does not name $f"
    done < <(cd "$tree" && find io models policies libxmpi -maxdepth 1 -name '*.[ch]' 2>/dev/null | sort)
    while IFS= read -r f; do
        [ -z "$f" ] || [ -e "$tree/$f" ] || echo "$doc: the Layout section names $f, which does not exist"
    done <<<"$names"
}

# ---- each check catches a planted mistake -----------------------------------------------
S="$TMP/sample"
mkdir -p "$S/man/man1"
make_targets >"$TMP/targets"
check "the Makefile's targets are read (all, check, install, docs among them)" \
    sh -c "grep -qx all '$TMP/targets' && grep -qx check '$TMP/targets' && grep -qx install '$TMP/targets' && grep -qx docs '$TMP/targets'"

printf '# T\n\n```sh\nmake check\n```\n\n```c\nint x;\n' >"$S/fence.md"
check "(a) an unclosed code fence is caught" test -n "$(fence_problems "$S/fence.md")"
printf '# T\n\n```sh\nmake check\n```\n' >"$S/fence-ok.md"
check "(a) a closed code fence passes" test -z "$(fence_problems "$S/fence-ok.md")"

printf 'Run `make no-such-target` or\n\n```sh\nPAIRS=3 make -s also-missing\n```\n' >"$S/target.md"
check "(b) a make target the Makefile lacks is caught, inline and in a code block" \
    test "$(target_problems "$TMP/targets" "$S/target.md" | wc -l)" = 2
printf 'Run `make check`, `PAIRS=3 make bench-dlb` and `make -C . install PREFIX=/x`.\n' >"$S/target-ok.md"
check "(b) targets the Makefile has pass" test -z "$(target_problems "$TMP/targets" "$S/target-ok.md")"

head -c $((README_MAX + 1)) /dev/zero | tr '\0' x >"$S/README.md"
check "(c) a README over $README_MAX bytes is caught" test -n "$(size_problems "$S/README.md")"

sed '$s/$/ (edited by hand)/' "$ROOT/docs/options.md" >"$S/options.md"
check "(d) an options.md that differs from xmpi-info --options-markdown is caught" \
    test -n "$(options_problems "$S/options.md")"

printf '.TH BAD 1\n.SH NAME\nbad \\- a page\n.XX an undefined macro\n' >"$S/man/man1/bad.1"
check "(e) a man page groff warns about is caught" test -n "$(man_problems "$S/man")"

printf '# Here\n\n[a](nowhere.md), [b](#not-here), [c](fence.md#t), [d](#here)\n' >"$S/links.md"
check "(f) links to a missing file or heading are caught, good ones pass" \
    test "$(link_problems "$S/links.md" | wc -l)" = 2

# (g) on a small tree: a .c, a header with its .c, a header alone in each kind of place.
L="$S/tree"
mkdir -p "$L/io" "$L/models" "$L/policies" "$L/libxmpi"
touch "$L/io/a.c" "$L/io/a.h" "$L/io/version.h" "$L/models/b.c" "$L/policies/c.c" "$L/libxmpi/d.c" \
    "$L/libxmpi/context.h"
printf '# A\n\n## Layers\n\n`io/new.c` named outside the Layout does not count.\n\n## Layout\n\n- `io/a.c`: a\n- `io/version.h`: v\n- `models/b.c`: b\n- `policies/c.c`: c\n- `libxmpi/d.c`: d\n- `libxmpi/context.h`: x\n\n## After\n\n`models/gone.c` after the Layout does not count.\n' >"$S/arch.md"
check "(g) a Layout naming every source file, and nothing else, passes" test -z "$(layout_problems "$L" "$S/arch.md")"
touch "$L/io/new.c" "$L/policies/new.h"
check "(g) a .c file, or a header without one, added without its Layout line is caught" \
    test "$(layout_problems "$L" "$S/arch.md" | grep -c -e 'not name io/new.c$' -e 'not name policies/new.h$')" = 2
rm "$L/io/new.c" "$L/policies/new.h" "$L/models/b.c"
check "(g) a file the Layout names that does not exist is caught" \
    test "$(layout_problems "$L" "$S/arch.md")" = "$S/arch.md: the Layout section names models/b.c, which does not exist"

# (g) on a temporary copy of this tree's four layers and docs/architecture.md (the other paths
# its Layout names, such as tests/sh/docs.sh, as empty stand-ins).
C="$TMP/copy"
mkdir -p "$C/docs"
cp -r "$ROOT/io" "$ROOT/models" "$ROOT/policies" "$ROOT/libxmpi" "$C/"
cp "$ROOT/docs/architecture.md" "$C/docs/"
while IFS= read -r f; do
    if [ -d "$ROOT/$f" ]; then mkdir -p "$C/$f"
    elif [ -e "$ROOT/$f" ] && [ ! -e "$C/$f" ]; then mkdir -p "$C/$(dirname "$f")" && touch "$C/$f"
    fi
done < <(layout_names "$ROOT/docs/architecture.md")
# What the copy adds to the problems the tree has of itself (the last check reports those).
layout_base=$(layout_problems "$C" "$C/docs/architecture.md")
layout_new() { layout_problems "$C" "$C/docs/architecture.md" | grep -vxF -e "$layout_base"; }
touch "$C/models/undocumented.c"
check "(g) the copy: a new models/undocumented.c is caught" \
    test "$(layout_new)" = "$C/docs/architecture.md: the Layout section does not name models/undocumented.c"
gone=$(layout_names "$C/docs/architecture.md" | grep -m1 '^libxmpi/.*\.c$')
rm -f "$C/models/undocumented.c" "$C/$gone" "$C/${gone%.c}.h"
check "(g) the copy: ${gone:-a .c file} and its header removed while the Layout names it is caught" \
    test "$(layout_new)" = "$C/docs/architecture.md: the Layout section names $gone, which does not exist"

# ---- the tree -----------------------------------------------------------------------------
mapfile -t MD < <(cd "$ROOT" && ls README.md docs/*.md)
mapfile -t NOTES < <(cd "$ROOT" && ls docs/notes/*.md 2>/dev/null)
cd "$ROOT" || exit 1
out=$(fence_problems "${MD[@]}" "${NOTES[@]}")
check "(a) every code fence in README.md, docs/*.md and docs/notes/ is closed${out:+: $out}" test -z "$out"
out=$(target_problems "$TMP/targets" "${MD[@]}")
check "(b) every make target named in README.md and docs/ exists${out:+: $out}" test -z "$out"
out=$(size_problems README.md)
check "(c) README.md is at most $README_MAX bytes${out:+: $out}" test -z "$out"
out=$(options_problems docs/options.md)
check "(d) docs/options.md is xmpi-info --options-markdown (else run make docs)${out:+: $out}" test -z "$out"
out=$(man_problems docs/man)
check "(e) every man page renders without a groff warning${out:+: $out}" test -z "$out"
check "(e) there are man pages in docs/man/man1 and docs/man/man3" \
    sh -c 'ls docs/man/man1/*.1 docs/man/man3/*.3 >/dev/null'
out=$(link_problems "${MD[@]}" "${NOTES[@]}")
check "(f) every relative link in README.md, docs/ and docs/notes/ resolves${out:+: $out}" test -z "$out"
out=$(layout_problems "$ROOT" docs/architecture.md)
check "(g) docs/architecture.md's Layout names every source file of io/, models/, policies/, libxmpi/, and only files that exist${out:+: $out}" test -z "$out"

# ---- one version --------------------------------------------------------------------------
v_header=$(sed -n 's/^#define XMPI_VERSION_STRING "\(.*\)"/\1/p' include/xmpi.h)
v_make=$(sed -n 's/^VERSION *= *//p' Makefile)
v_info=$("$INFO" --version)
check "one version: xmpi.h '$v_header', Makefile '$v_make', xmpi-info '$v_info'" \
    test -n "$v_header" -a "$v_header" = "$v_make" -a "libxmpi $v_header" = "$v_info"
out=$(grep -L "^\.TH .* \"libxmpi $v_header\" " docs/man/man*/*)
check "every man page's .TH names libxmpi $v_header${out:+: not $out}" test -z "$out"

# ---- (h) the man pages' C synopses are the header's prototypes ----------------------------
# The API is written once, in include/xmpi.h: each XMPI_PUBLIC function's prototype must appear
# in the SYNOPSIS of its man page (roff markup and quotes taken out, blanks ignored), so that a
# changed signature fails here until its page follows.
protos() { # protos HEADER: "NAME<TAB>prototype" for each public function, blanks removed
    awk '/^XMPI_PUBLIC/ { p = $0; while (p !~ /;/ && (getline l) > 0) p = p l; print p }' "$1" |
        sed -e 's/^XMPI_PUBLIC //' -e 's/[[:space:]]//g' -e 's/;.*//' |
        sed -n 's/^\(.*[*[:alnum:]_]\)\(XMPI_[A-Za-z_]*\)(\(.*\))$/\2\t\1\2(\3)/p'
}
synopsis() { # synopsis PAGE: the C lines of its SYNOPSIS, markup and blanks removed, joined
    awk '/^\.SH SYNOPSIS/ { on = 1; next } /^\.SH / { on = 0 } on' "$1" |
        grep -v -i -e '^\.B *use' -e 'fortran' -e 'ierror' |
        sed -e 's/^\.[A-Z][A-Z]* *//' -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/"//g' -e 's/[[:space:]]//g' | tr -d '\n'
}
man_problems() { # man_problems HEADER MANDIR
    protos "$1" | while IFS=$'\t' read -r name proto; do
        page="$2/$name.3"
        if [ ! -f "$page" ]; then echo "$name: no page $page"
        elif ! synopsis "$page" | grep -qF -- "$proto"; then echo "$name: the synopsis of $page lacks $proto"; fi
    done
}
out=$(man_problems include/xmpi.h docs/man/man3)
check "(h) every public function's man page shows its prototype as xmpi.h has it${out:+: $out}" test -z "$out"
cp include/xmpi.h "$TMP/xmpi-h.h"
sed -i 's/XMPI_PUBLIC int XMPI_Exchange(void \*address);/XMPI_PUBLIC int XMPI_Exchange(void *address, int flags);/' "$TMP/xmpi-h.h"
planted=$(man_problems "$TMP/xmpi-h.h" docs/man/man3)
check "(h) a prototype changed in the header without its page is caught (on a copy)" \
    test "$planted" = "XMPI_Exchange: the synopsis of docs/man/man3/XMPI_Exchange.3 lacks intXMPI_Exchange(void*address,intflags)"

# ---- xmpi-info's refusals -----------------------------------------------------------------
"$INFO" --bogus >"$TMP/info.out" 2>"$TMP/info.err"
rc=$?
check "xmpi-info --bogus: exit 2, one message naming it, nothing on stdout" \
    sh -c "test $rc = 2 && test ! -s '$TMP/info.out' && test \$(wc -l <'$TMP/info.err') = 1 && grep -q -- \"'--bogus'\" '$TMP/info.err'"
"$INFO" --options extra >/dev/null 2>"$TMP/info.err"
rc=$?
check "xmpi-info with two arguments: exit 2, one message" \
    sh -c "test $rc = 2 && test \$(wc -l <'$TMP/info.err') = 1"
check "xmpi-info --options is the --xmpi-help text" sh -c "'$INFO' --options | grep -q -- '--xmpi-si=VALUE'"
check "xmpi-info --help names every argument" sh -c "'$INFO' --help | grep -q -- --options-markdown"

# ---- README's first program ---------------------------------------------------------------
awk '/^```c$/ && !done { on = 1; next } on && /^```$/ { on = 0; done = 1 } on' README.md >"$TMP/first.c"
APP="$TMP/xmpi-ext-readme"
${MPICC:-mpicc} -std=c11 -Wall -Wextra -Werror "$TMP/first.c" -o "$APP" -I"$ROOT/include" \
    -L"$BUILDDIR/lib" -lxmpi -Wl,-rpath,"$BUILDDIR/lib" >"$TMP/first.cc" 2>&1
check "README's first program compiles with -Wall -Wextra -Werror" test -x "$APP"
"$LAUNCH" -np 2 "$APP" --xmpi-si=50 "--xmpi-trace=$TMP/first.csv" >"$TMP/first.out" 2>&1
rc=$?
check "README's first program runs on 2 processes and prints its sum" \
    sh -c "test $rc = 0 && grep -q '^sum 2000000.000 on 2 processes' '$TMP/first.out'"
check "its trace has one row per interval (500 iterations / si 50 = 10)" \
    test "$(wc -l <"$TMP/first.csv" 2>/dev/null)" = 11
