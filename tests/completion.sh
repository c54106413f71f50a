# gpuimg tests: shell completion (completion/gpuimg for bash, completion/_gpuimg for zsh, which
# make install puts where each shell looks). In bash: an operation for the pipeline's first word
# and after its last comma, options with their '=' where they take a value, an option's values,
# files after the pipeline; the zsh script parses (where zsh is installed).
. "${TOP_SRCDIR:-.}/tests/lib.sh"

command -v bash >/dev/null 2>&1 || { echo "no bash"; exit 77; }
PATH=$(dirname "$GPUIMG"):$PATH bash -c '
. "$TOP_SRCDIR/completion/gpuimg"
t() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _gpuimg; echo "${COMPREPLY[*]}"; }
check() { want=$1; shift; got=$(t gpuimg "$@"); [ "$got" = "$want" ] || { echo "gpuimg $*: got [$got], want [$want]"; exit 1; }; }
check gray gr
check "gray,resize" gray,res
check "blur" -v --backend=cpu bl
check "gray,blur" -o "out/%s.png" gray,b
check "--backend=" --backe
check "--backend=cpu" --backend=c
check "--format=ppm" --format=pp
check "--dry-run" --dry
check "" gray in
' >"$T/out" 2>&1 && ok || bad "bash: $(cat "$T/out")"
if command -v zsh >/dev/null 2>&1; then
    zsh -n "$TOP_SRCDIR/completion/_gpuimg" && ok || bad "zsh: the script does not parse"
fi
finish
