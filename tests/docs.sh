# gpuimg tests: the documentation keeps up with the code. Every long option in --help is in the
# man page and the README; every operation in the op table is in the man page's OPERATIONS
# (generated from the table) and in the README; the man page renders without warnings.
. "${TOP_SRCDIR:-.}/tests/lib.sh"

[ -f "$MANPAGE" ] || { bad "no man page at $MANPAGE"; finish; exit 1; }
README="$TOP_SRCDIR/README.md"
run --help
for opt in $(grep -o -- '--[a-z][a-z-]*' "$OUT" | sort -u); do
    esc=$(printf '%s' "$opt" | sed 's/-/\\\\-/g')
    grep -q -- "$esc" "$MANPAGE" && ok || bad "man page lacks $opt"
    grep -q -- "$opt" "$README" && ok || bad "README lacks $opt"
done
run --list
for op in $(grep -o '^[a-z]*' "$OUT" | sort -u); do
    grep -q "^\.B $op" "$MANPAGE" && ok || bad "man page OPERATIONS lacks $op"
    grep -q "\`$op" "$README" && ok || bad "README lacks the operation $op"
done
if command -v groff >/dev/null 2>&1; then
    w=$(groff -man -Tutf8 -ww -z "$MANPAGE" 2>&1)
    [ -z "$w" ] && ok || bad "man page warnings: $w"
fi
finish
