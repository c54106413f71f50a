#!/bin/sh
# gpuimg bench: the thumbnail job users run most, camera JPEGs to JPEG thumbnails, end to end,
# beside the tools a user would run instead, in one call: vipsthumbnail (xargs -P a core, 10
# files a process), OpenCV-Python's thread pool (full decode, and the reduced read), and gpuimg's
# batch by default, --exact, and on the CPU (where a GPU is). Inputs: N JPEGs of 4032x3024,
# quality 92, 4:2:0, with a camera's EXIF, cut from SOURCES (bench/make_batch_inputs.py).
# THUMBS_FORMAT=webp writes WebP thumbnails of quality 85 instead (libwebp's default method, 4,
# everywhere: gpuimg's --webp-effort, vips's effort, OpenCV's simple API). THUMBS_SIZE=WxH makes
# inputs of another size (issue 57's second job: THUMBS_SIZE=2560x1600 THUMBS_QUALITY=90, WIDTH
# 1280, resize=50%), THUMBS_QUALITY the outputs' quality (85).
#   sh bench/thumbs.sh [N [WIDTH [SOURCE...]]]    (after a build; VIPSHOME=DIR: vips's folder,
#                                                   DIR/bin and DIR/lib, when not installed)
# Prints a line a contender: images/s and the outputs' bytes.
set -u
n=${1:-50}
width=${2:-800}
[ $# -ge 2 ] && shift 2 || shift $#
size=${THUMBS_SIZE:-4032x3024}
q=${THUMBS_QUALITY:-85}
[ "$size" = 4032x3024 ] && d=/tmp/gpuimg-thumbs || d=/tmp/gpuimg-thumbs-$size
d=${THUMBS_DIR:-$d}
py=${PYTHON:-python3}
if [ -n "${VIPSHOME:-}" ]; then
    PATH=$VIPSHOME/bin:$PATH
    LD_LIBRARY_PATH=$VIPSHOME/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    export PATH LD_LIBRARY_PATH
fi
if [ ! -s "$d/in/list.txt" ] || [ "$(grep -c . "$d/in/list.txt")" -ne "$n" ]; then
    rm -rf "$d"
    # shellcheck disable=SC2046
    $py bench/make_batch_inputs.py "$d/in" "$n" "${size%x*}" "${size#*x}" ${*:-$(ls .bench/*.jpg .bench/*.png ../shared/images/*.jpg ../shared/images/*.png 2>/dev/null)} \
        --quality 92 --exif || exit 1
fi
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
ext=${THUMBS_FORMAT:-jpg}
echo "thumbs: $n JPEGs $size q92 4:2:0 ($(du -sm "$d/in" | cut -f1) MB) -> ${width}px wide, $ext q$q; $(nproc) cores; ${gpu:-no GPU}"
cat "$d"/in/*.jpg >/dev/null   # in the page cache for every contender
now() { date +%s.%N; }
rate() { awk -v n="$n" -v a="$1" -v b="$2" 'BEGIN { printf "%.1f images/s (%.2f s)", n / (b - a), b - a }'; }
bytes() { cat "$d"/out/*."$ext" 2>/dev/null | wc -c; }
contender() {   # NAME COMMAND...
    name=$1
    shift
    rm -rf "$d/out"
    mkdir -p "$d/out"
    t0=$(now)
    "$@" >"$d/log" 2>&1 || { echo "$name: failed: $(tail -n 3 "$d/log")"; return; }
    t1=$(now)
    echo "$name: $(rate "$t0" "$t1"), $(ls "$d/out" | wc -l) outputs, $(bytes) bytes"
}
gp() { ./gpuimg -q --no-progress --jpeg-quality="$q" --webp-quality="$q" -o "$d/out/%s.$ext" --from-list="$d/in/list.txt" "$@" "resize=${width}x"; }
vt() { xargs -P "$(nproc)" -n 10 vipsthumbnail -s "${width}x" -o "$d/out/%s.$ext[Q=$q]" <"$d/in/list.txt"; }
if command -v vipsthumbnail >/dev/null 2>&1; then
    contender "vipsthumbnail $(vips --version 2>/dev/null | head -n 1), xargs -P$(nproc) -n10" vt
else
    echo "vipsthumbnail: not found (VIPSHOME=DIR)"
fi
contender "gpuimg default" gp
[ -n "$gpu" ] && contender "gpuimg default, again (the server warm)" gp
[ -n "$gpu" ] && contender "gpuimg --no-server --backend=gpu (in process)" gp --no-server --backend=gpu
contender "gpuimg --exact" gp --exact
[ -n "$gpu" ] && contender "gpuimg --backend=cpu" gp --backend=cpu
[ -n "$gpu" ] && contender "gpuimg --shrink-on-load" gp --shrink-on-load
for how in "" --reduced; do
    rm -rf "$d/out"
    $py bench/thumbs_opencv.py "$d/in/list.txt" "$d/out" "$width" --quality "$q" --format "$ext" $how
done
