# gpuimg tests: the documentation keeps up with the code. --help's options, the man page's
# OPTIONS and ENVIRONMENT and README's table of options are made from one table
# (src/lib/options.def): the man page is its source with only OPERATIONS, OPTIONS, ENVIRONMENT
# and the version filled in, README's table is what gendocs makes, every option README or the
# man page names exists, every option of --help is in the man page; every operation in the op
# table is in the man page's OPERATIONS and in the README; the page renders without warnings.
. "${TOP_SRCDIR:-.}/tests/lib.sh"

[ -f "$MANPAGE" ] || { bad "no man page at $MANPAGE"; finish; exit 1; }
README="$TOP_SRCDIR/README.md"
run --help
help="$T/help"
cp "$OUT" "$help"
for opt in $(grep -o -- '--[a-z][a-z0-9-]*' "$help" | sort -u); do
    esc=$(printf '%s' "$opt" | sed 's/-/\\\\-/g')
    grep -q -- "$esc" "$MANPAGE" && ok || bad "man page lacks $opt"
done
# every option README or the man page's hand-written sections name is one gpuimg has (tune's own aside)
for opt in $(grep -o -- '--[a-z][a-z0-9-]*' "$README" | sort -u) \
           $(sed 's/\\-/-/g' "$TOP_SRCDIR/man/gpuimg.1.in" | grep -o -- '--[a-z][a-z0-9-]*' | sort -u); do
    case "$opt" in --size | --quick | --no-save | --sshlogin | --array* | --with* | --enable* | --crop | --cflags | --libs) continue ;; esac   # tune's, configure's, pkg-config's, others' tools
    grep -q -- "$opt\b" "$help" && ok || bad "README or the man page names $opt, which gpuimg --help lacks"
done
# README's table of options: gendocs readme's, between its markers
sed -n '/^<!-- options: made by gendocs readme -->$/,/^<!-- end of options -->$/p' "$README" | sed '1d;$d' >"$T/readme-table"
"$GENDOCS" readme >"$T/table"
[ -s "$T/table" ] && cmp -s "$T/table" "$T/readme-table" && ok \
    || bad "README's table of options is not gendocs readme's: $(diff "$T/table" "$T/readme-table" | head -c 600)"
run --list
for op in $(grep -o '^[a-z]*' "$OUT" | sort -u); do
    grep -q "^\.B $op" "$MANPAGE" && ok || bad "man page OPERATIONS lacks $op"
    grep -q "\`$op" "$README" && ok || bad "README lacks the operation $op"
done
# the page is its source with OPERATIONS, OPTIONS, ENVIRONMENT and the version filled in, every
# other line unchanged
version=$("$GPUIMG" --version | sed -n '1s/^gpuimg //p')
grep -q "^\.TH GPUIMG 1 .*\"gpuimg $version\"" "$MANPAGE" && ok || bad "the man page's title lacks version $version"
changed=$(grep -Fxv -f "$MANPAGE" "$TOP_SRCDIR/man/gpuimg.1.in" | grep -v '^@\(OPERATIONS\|OPTIONS\|ENVIRONMENT\)@$' | grep -v '^\.TH ')
[ -z "$changed" ] && ok || bad "man page lines changed from their source: $(echo "$changed" | head -c 300)"
grep -q '@[A-Z]*@' "$MANPAGE" && bad "a placeholder left in the man page: $(grep -o '@[A-Z]*@' "$MANPAGE" | head -1)" || ok
"$GENDOCS" options >"$T/options.roff"
sed -n '/^\.SH OPTIONS$/,/^\.SH /p' "$MANPAGE" | sed '1d;$d' >"$T/options.man"
[ -s "$T/options.roff" ] && cmp -s "$T/options.roff" "$T/options.man" && ok || bad "the man page's OPTIONS are not gendocs options'"
if command -v groff >/dev/null 2>&1; then
    w=$(groff -man -Tutf8 -ww -z "$MANPAGE" 2>&1)
    [ -z "$w" ] && ok || bad "man page warnings: $w"
fi
finish
