# gpuimg tests: the layers import one way (HACKING.md, "Layout"). Every #include "..." in src/
# and cuda/ names its layer, and a file includes only its own layer and those below:
#   cuda runtime and kernels' plain-C headers (cuda/gpu.h, cuda/NAME/kernels.h), the API's header
#   (include/gpuimg.h: declarations only) <- core <- io, ops (neither includes the other) <- engine
#   <- lib (the API, the option table) <- app
# src/ includes no CUDA header (.cuh, check.h); cuda/ includes nothing of src/; an operation's
# folder includes no other operation's (ops/common is theirs to share); no circle between files
# (a file and its header are one node).
. "${TOP_SRCDIR:-.}/tests/lib.sh"
cd "$TOP_SRCDIR" || exit 1

rank() {   # the layer of a path: a number, or "" for none
    case "$1" in
    cuda/* | include/*) echo 0 ;;
    src/core/*) echo 1 ;;
    src/io/* | src/ops/*) echo 2 ;;
    src/engine/*) echo 3 ;;
    src/lib/*) echo 4 ;;
    src/app/*) echo 5 ;;
    *) echo "" ;;
    esac
}

edges="$T/edges"
: >"$edges"
files=$(find src cuda include -name '*.[ch]' -o -name '*.cu' -o -name '*.cuh' | sort)
[ -n "$files" ] && ok || bad "no sources under $TOP_SRCDIR"
for f in $files; do
    rf=$(rank "$f")
    node=${f%.*}
    for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
        case "$inc" in
        ops.def) continue ;;   # the generated registry list (Makefile.am)
        esac
        # src/ is on the include path (core/..., ops/...), include/ (gpuimg.h, the API's declarations
        # and status enum, below every layer) and the top of the tree too (cuda/...)
        if [ -f "src/$inc" ]; then
            inc=src/$inc
        elif [ -f "include/$inc" ]; then
            inc=include/$inc
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

# The same rules where the code is linked: each object's undefined symbols resolved to the object
# that defines them, an edge from user to definer (a header that declares another unit's functions
# hides nothing here). The registry (core/registry.c) lists every operation's descriptor (op_NAME):
# those edges are the registration itself, the only ones allowed to go up.
build=$(cd "$(dirname "$GPUIMG")" && pwd)
if command -v nm >/dev/null 2>&1 && [ -f "$build/libgpuimg.a" ]; then
    objs=$(cd "$build" && find src cuda -name '*.o' 2>/dev/null | sort)
    defs="$T/defs" uses="$T/uses" links="$T/links"
    : >"$defs"
    : >"$uses"
    for o in $objs; do
        node=$(echo "$o" | sed 's/lib[a-z]*_a-//; s/\.o$//')
        (cd "$build" && nm -g --defined-only "$o" 2>/dev/null) | awk -v n="$node" 'NF >= 3 { print $3, n }' >>"$defs"
        (cd "$build" && nm -g --undefined-only "$o" 2>/dev/null) | awk -v n="$node" '{ print $NF, n }' >>"$uses"
    done
    sort -u "$defs" -o "$defs"
    sort -u "$uses" -o "$uses"
    join "$uses" "$defs" | awk '$2 != $3 { print $1, $2, $3 }' | sort -u >"$links"
    [ -s "$links" ] && ok || bad "no links found between the objects under $build"
    : >"$T/ledges"
    while read -r sym user def; do
        ru=$(rank "$user.c") rd=$(rank "$def.c")
        [ -n "$ru" ] && [ -n "$rd" ] || continue
        if [ "$rd" -gt "$ru" ] && ! { [ "$user" = src/core/registry ] && case "$sym" in op_*) true ;; *) false ;; esac; }; then
            bad "$user (layer $ru) calls $sym of $def (layer $rd): upward"
        fi
        [ "$user" = src/core/registry ] && continue
        echo "$user $def" >>"$T/ledges"
    done <"$links"
    loops=$(tsort "$T/ledges" 2>&1 >/dev/null)
    [ -z "$loops" ] && ok || bad "a circle between objects (who calls whom): $loops"
fi
finish
