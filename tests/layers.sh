# gpuimg tests: the layers import one way (HACKING.md, "Layout"). Every #include "..." in src/
# and cuda/ names its layer, and a file includes only its own layer and those below:
#   cuda runtime and kernels' plain-C headers (cuda/gpu.h, cuda/NAME/kernels.h)
#   <- core <- io, ops (neither includes the other) <- engine <- app
# src/ includes no CUDA header (.cuh, check.h); cuda/ includes nothing of src/; an operation's
# folder includes no other operation's (ops/common is theirs to share); no circle between files
# (a file and its header are one node).
. "${TOP_SRCDIR:-.}/tests/lib.sh"
cd "$TOP_SRCDIR" || exit 1

rank() {   # the layer of a path: a number, or "" for none
    case "$1" in
    cuda/*) echo 0 ;;
    src/core/*) echo 1 ;;
    src/io/* | src/ops/*) echo 2 ;;
    src/engine/*) echo 3 ;;
    src/app/*) echo 4 ;;
    *) echo "" ;;
    esac
}

edges="$T/edges"
: >"$edges"
files=$(find src cuda -name '*.[ch]' -o -name '*.cu' -o -name '*.cuh' | sort)
[ -n "$files" ] && ok || bad "no sources under $TOP_SRCDIR"
for f in $files; do
    rf=$(rank "$f")
    node=${f%.*}
    for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
        case "$inc" in
        ops.def) continue ;;   # the generated registry list (Makefile.am)
        esac
        # src/ is on the include path (core/..., ops/...), the top of the tree too (cuda/...)
        if [ -f "src/$inc" ]; then
            inc=src/$inc
        elif [ ! -f "$inc" ]; then
            bad "$f includes \"$inc\", which is neither under src/ nor under the top of the tree"
            continue
        fi
        ri=$(rank "$inc")
        if [ -z "$ri" ] || [ "$ri" -gt "$rf" ]; then
            bad "$f (layer $rf) includes $inc (layer ${ri:-none}): upward"
            continue
        fi
        case "$f:$inc" in
        src/io/*:src/ops/* | src/ops/*:src/io/*) bad "$f includes $inc: io and ops are side by side" ;;
        src/*:*.cuh | src/*:cuda/check.h) bad "$f includes the CUDA header $inc" ;;
        src/ops/*/*:src/ops/*)
            own=$(echo "$f" | cut -d/ -f3)
            other=$(echo "$inc" | cut -d/ -f3)
            [ "$own" = "$other" ] || [ "$other" = common ] || bad "$f includes another operation's $inc" ;;
        esac
        [ "$node" = "${inc%.*}" ] || echo "$node ${inc%.*}" >>"$edges"
    done
done
ok
# tsort reports a loop on stderr
loops=$(tsort "$edges" 2>&1 >/dev/null)
[ -z "$loops" ] && ok || bad "a circle between files: $loops"
finish
