# gpuimg tests: the documentation keeps up with the code. Every long option in --help is in the
# man page and the README; every operation in the op table is in the man page's OPERATIONS
# (generated from the table) and in the README; the man page is its source with only the
# operations and the version filled in, and renders without warnings.
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
# the page is its source with OPERATIONS and the version filled in, every other line unchanged
version=$("$GPUIMG" --version | sed -n '1s/^gpuimg //p')
grep -q "^\.TH GPUIMG 1 .*\"gpuimg $version\"" "$MANPAGE" && ok || bad "the man page's title lacks version $version"
changed=$(grep -Fxv -f "$MANPAGE" "$TOP_SRCDIR/man/gpuimg.1.in" | grep -v '^@OPERATIONS@$' | grep -v '^\.TH ')
[ -z "$changed" ] && ok || bad "man page lines changed from their source: $(echo "$changed" | head -c 300)"
grep -q '@[A-Z]*@' "$MANPAGE" && bad "a placeholder left in the man page: $(grep -o '@[A-Z]*@' "$MANPAGE" | head -1)" || ok
if command -v groff >/dev/null 2>&1; then
    w=$(groff -man -Tutf8 -ww -z "$MANPAGE" 2>&1)
    [ -z "$w" ] && ok || bad "man page warnings: $w"
fi
finish
