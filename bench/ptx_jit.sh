#!/bin/sh
# gpuimg: what a first run pays where the kernels were built as PTX alone (configure's default
# where no GPU is present, or --with-cuda-arch=ptx): the driver compiles a module's PTX for the
# GPU when the module is first used and keeps the result in its cache (~/.nv/ComputeCache, at
# most CUDA_CACHE_MAXSIZE bytes, 256 MiB by default; none with CUDA_CACHE_DISABLE=1).
# Builds that binary in _build/ptx, from a copy of this tree less what a build made (the tree may
# be configured in place), with what it carries (.stb/, .vendor/, .nvcomp/), then times, in process
# (--no-server), each with an empty cache of its own:
#   the sample pipeline: first run (JIT), second (cached), with the cache off (JIT every run);
#   --compare (every kernel variant: every module the pipeline touches JIT-compiled): first, second;
# beside the same commands of the machine-code build ./gpuimg where there is one.
#   sh bench/ptx_jit.sh            on the GPU machine, from the source tree
set -eu
top=$(pwd)
out=${OUT:-/tmp/gpuimg-out}
mkdir -p "$out"
img=$top/samples/canopee-960x540.png
pipe=gray,resize=50%,blur=2,transpose
p=$top/_build/ptx
if [ ! -x "$p/gpuimg" ]; then
    rm -rf "$p" && mkdir -p "$p"
    tar cf - --exclude=_build --exclude=.git --exclude='*.o' --exclude='*.a' --exclude='*.d' --exclude=.deps \
        --exclude=.dirstamp --exclude=autom4te.cache --exclude=build-aux --exclude=Makefile --exclude=Makefile.in \
        --exclude=configure --exclude=config.h --exclude=config.h.in --exclude=config.status --exclude=config.log \
        --exclude=aclocal.m4 --exclude=stamp-h1 . | (cd "$p" && tar xf -)
    v=$p/.vendor
    (cd "$p" && autoreconf -fi && ./configure --with-cuda-arch=ptx CPPFLAGS="-I$p/.stb -I$v/jpeg/include -I$v/deflate/include" \
        LDFLAGS="-L$v/jpeg/lib -L$v/deflate/lib" && make -j"$(nproc)" gpuimg) >"$out/ptx_build.log" 2>&1 \
        || { tail -n 30 "$out/ptx_build.log"; exit 1; }
fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -n 1
# one BIN LABEL ARGS...: wall ms of one run, and gpuimg's own total line
one() {
    bin=$1 label=$2
    shift 2
    t0=$(date +%s%N)
    "$bin" --no-server --backend=gpu -v --force "$@" >"$out/jit.out" 2>&1 || { cat "$out/jit.out"; exit 1; }
    t1=$(date +%s%N)
    printf '%-44s %6d ms   %s\n' "$label" "$(( (t1 - t0) / 1000000 ))" \
        "$(grep -m 1 -o 'total [0-9.]* ms' "$out/jit.out" || true)"
}
for b in _build/ptx/gpuimg ./gpuimg; do
    [ -x "$b" ] || continue
    echo "== $b: $("$b" --version | grep '^CUDA:')"
    cache=$(mktemp -d)
    export CUDA_CACHE_PATH="$cache"
    one "$b" "sample, empty cache" "$pipe" "$img" /tmp/jit-o.png
    one "$b" "sample, cached" "$pipe" "$img" /tmp/jit-o.png
    one "$b" "sample, cached again" "$pipe" "$img" /tmp/jit-o.png
    export CUDA_CACHE_DISABLE=1
    one "$b" "sample, cache off (CUDA_CACHE_DISABLE=1)" "$pipe" "$img" /tmp/jit-o.png
    unset CUDA_CACHE_DISABLE
    rm -rf "$cache" && mkdir -p "$cache"
    one "$b" "--compare --repeat=1, empty cache" --compare --repeat=1 "$pipe" "$img" /tmp/jit-o.png
    one "$b" "--compare --repeat=1, cached" --compare --repeat=1 "$pipe" "$img" /tmp/jit-o.png
    echo "   the cache after --compare: $(du -sh "$cache" | cut -f1)"
    rm -rf "$cache"
    unset CUDA_CACHE_PATH
done
