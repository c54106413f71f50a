#!/bin/sh
# gpuimg: what a fresh build costs. Clones REV (default HEAD) of this repository into a temporary
# directory (where the tree has no git, as the GPU machine's copy: its files, less what a build
# makes) and times each phase there: wall, user and sys seconds (other people's load moves user +
# sys far less than wall; the load average is printed beside), then every nvcc run (start and end
# in the make phase, CPU seconds, object), longest first.
#   sh bench/build_time.sh [REV]               autoreconf, configure, make -jJOBS, the sample job
#   sh bench/build_time.sh --quickstart [REV]  ./quickstart as a newcomer runs it, as one phase
# JOBS (default: the cores), CONFIGURE_FLAGS (e.g. --with-cuda-arch=80,90), KEEP=1 keeps the
# clone (its path is printed), OUT: a folder to copy the per-file log into.
# What the GPU machine lacks and the source tree carries (.nvcomp/, .stb/, .vendor/: HACKING.md)
# is copied into the clone and used, so that no phase needs the network; the dependencies are
# otherwise expected installed (./quickstart installs them).
set -eu
mode=phases
if [ "${1:-}" = --quickstart ]; then
    mode=quickstart
    shift
fi
src=$(cd "$(dirname "$0")/.." && pwd)
jobs=${JOBS:-$(nproc)}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpuimg-build.XXXXXX")
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$tmp"' EXIT
if [ -d "$src/.git" ] || [ -f "$src/.git" ]; then
    rev=$(git -C "$src" rev-parse "${1:-HEAD}")
    git clone -q "$src" "$tmp/src"
    git -C "$tmp/src" checkout -q "$rev"
else
    # a copy without git's history (the GPU machine's): its files, less what a build makes
    [ -z "${1:-}" ] || { echo "build_time: $src is no git repository: no REV to check out" >&2; exit 2; }
    mkdir "$tmp/src"
    (cd "$src" && tar cf - --exclude=.git --exclude='*.o' --exclude='*.a' --exclude='*.d' --exclude=.deps --exclude=.dirstamp \
        --exclude=autom4te.cache --exclude=build-aux --exclude=_build --exclude=Makefile --exclude=Makefile.in \
        --exclude=configure --exclude=config.h --exclude=config.h.in --exclude=config.status --exclude=config.log \
        --exclude=aclocal.m4 --exclude=stamp-h1 --exclude=.nvcomp --exclude=.stb --exclude=.vendor .) | (cd "$tmp/src" && tar xf -)
fi
for d in .nvcomp .stb .vendor; do
    if [ -d "$src/$d" ]; then cp -R "$src/$d" "$tmp/src/$d"; fi
done
cd "$tmp/src"
v=$PWD/.vendor
if [ -d .stb ]; then CPPFLAGS="${CPPFLAGS:-} -I$PWD/.stb"; fi
if [ -d .vendor ]; then
    CPPFLAGS="${CPPFLAGS:-} -I$v/jpeg/include -I$v/deflate/include"
    LDFLAGS="${LDFLAGS:-} -L$v/jpeg/lib -L$v/deflate/lib"
fi
if [ -n "${CPPFLAGS:-}" ]; then export CPPFLAGS; fi
if [ -n "${LDFLAGS:-}" ]; then export LDFLAGS; fi

# nvcc through a wrapper that logs a line a run: start, end (s since the epoch), user, sys, object
log=$tmp/nvcc.log
: >"$log"
cat >"$tmp/nvcc" <<'EOF'
#!/bin/sh
s=$(date +%s.%N)
o=?
prev=
for a in "$@"; do
    [ "$prev" = -o ] && o=$a
    prev=$a
done
rc=0
"$BUILD_TIME_NVCC" "$@" || rc=$?
e=$(date +%s.%N)
times >"$BUILD_TIME_LOG.$$"   # (in this shell: a subshell's times start from zero)
echo "$s $e $(sed -n 2p "$BUILD_TIME_LOG.$$") $o" >>"$BUILD_TIME_LOG"
rm -f "$BUILD_TIME_LOG.$$"
exit $rc
EOF
chmod +x "$tmp/nvcc"
export BUILD_TIME_LOG="$log"

secs() { echo "$1" | awk '{ split($0, p, "m"); sub("s", "", p[2]); printf "%.1f", p[1] * 60 + p[2] }'; }
# phase NAME COMMAND...: runs COMMAND (its output into $tmp/NAME.log), prints wall, user, sys
total_w=0 total_u=0 total_s=0 make_t0=
phase() {
    name=$1
    shift
    load=$(cut -d' ' -f1 /proc/loadavg)
    t0=$(date +%s.%N)
    times >"$tmp/times"
    u0=$(secs "$(sed -n 2p "$tmp/times" | cut -d' ' -f1)")
    s0=$(secs "$(sed -n 2p "$tmp/times" | cut -d' ' -f2)")
    if ! "$@" >"$tmp/$name.log" 2>&1; then
        tail -n 30 "$tmp/$name.log"
        echo "build_time: $name failed (clone in $tmp)"
        trap - EXIT
        exit 1
    fi
    t1=$(date +%s.%N)
    times >"$tmp/times"
    w=$(echo "$t0 $t1" | awk '{ printf "%.1f", $2 - $1 }')
    u=$(echo "$u0 $(secs "$(sed -n 2p "$tmp/times" | cut -d' ' -f1)")" | awk '{ printf "%.1f", $2 - $1 }')
    s=$(echo "$s0 $(secs "$(sed -n 2p "$tmp/times" | cut -d' ' -f2)")" | awk '{ printf "%.1f", $2 - $1 }')
    printf '%-12s %7s %7s %7s   load %s to %s\n' "$name" "$w" "$u" "$s" "$load" "$(cut -d' ' -f1 /proc/loadavg)"
    total_w=$(echo "$total_w $w" | awk '{ print $1 + $2 }')
    total_u=$(echo "$total_u $u" | awk '{ print $1 + $2 }')
    total_s=$(echo "$total_s $s" | awk '{ print $1 + $2 }')
    [ "$name" = make ] && make_t0=$t0
    return 0
}

echo "build_time: $(git log -1 --format='%h %s' 2>/dev/null | cut -c1-80 || echo "a copy of $src")"
echo "build_time: $(nproc) cores, make -j$jobs, $(uname -n), $(nvcc --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/CUDA \1/p' || true)${CONFIGURE_FLAGS:+, configure $CONFIGURE_FLAGS}"
printf '%-12s %7s %7s %7s\n' phase wall user sys
if [ $mode = quickstart ]; then
    export MAKEFLAGS="NVCC=$tmp/nvcc"
    export BUILD_TIME_NVCC="${CUDA_HOME:-/usr/local/cuda}/bin/nvcc"
    export QUICKSTART_CONFIGURE="${CONFIGURE_FLAGS:-}"
    phase quickstart ./quickstart
    sed -n 's/^\(quickstart: .*\)/  \1/p' "$tmp/quickstart.log"
else
    phase autoreconf autoreconf -fi
    # shellcheck disable=SC2086
    phase configure ./configure ${CONFIGURE_FLAGS:-}
    sed -n 's/^ *\(CUDA: .*\)/  \1/p' "$tmp/configure.log"
    export BUILD_TIME_NVCC="$(sed -n 's/^NVCC = //p' Makefile)"
    if [ -n "$BUILD_TIME_NVCC" ]; then
        phase make make -j"$jobs" NVCC="$tmp/nvcc"
    else
        phase make make -j"$jobs"
    fi
    mkdir -p quickstart-out
    phase sample ./gpuimg --no-server -v --force gray,resize=50%,blur=2,transpose samples/canopee-960x540.png quickstart-out/canopee.png
fi
printf '%-12s %7s %7s %7s\n' total "$total_w" "$total_u" "$total_s"

if [ -s "$log" ]; then
    # make's start: the first nvcc in quickstart mode (its start is not known here)
    [ $mode = quickstart ] && make_t0=$(sort -n "$log" | head -n 1 | cut -d' ' -f1)
    echo
    echo "nvcc: $(wc -l <"$log") files; start and end in s from the make phase's start, CPU s (user + sys), longest first"
    awk -v t0="$make_t0" '
        function s(x, p) { split(x, p, "m"); sub("s", "", p[2]); return p[1] * 60 + p[2] }
        { c = s($3) + s($4); cpu += c; if ($2 - t0 > last) last = $2 - t0
          printf "%7.1f %7.1f %7.1f  %s\n", $1 - t0, $2 - t0, c, $5 }
        END { printf "%7s %7.1f %7.1f  (all nvcc runs; the make phase'\''s other CPU time is the C files and links)\n", "", last, cpu > "/dev/stderr" }' \
        "$log" 2>"$tmp/nvcc.sum" | sort -k3,3 -rn
    cat "$tmp/nvcc.sum"
    [ -n "${OUT:-}" ] && mkdir -p "$OUT" && cp "$log" "$OUT/nvcc.log"
fi
[ "${KEEP:-0}" = 1 ] && echo "build_time: the clone is $tmp/src"
exit 0
