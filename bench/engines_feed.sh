#!/bin/sh
# gpuimg bench: what keeps the JPEG engines fed in the thumbnail job, on the GPU machine, in one
# call: warm servers that differ in their workers (GPUIMG_SERVER_WORKERS, the client's --jobs
# alike) and in their environment (VAR=VALUE,... : the scheduler's GPUIMG_JPEG_SPLIT, say),
# the same batch through each in turn, ROUNDS rounds, at WIDTH and at 256 px; the cores' busy share
# of each run from /proc/stat. N JPEGs of 4032x3024, quality 92, 4:2:0, EXIF
# (bench/make_batch_inputs.py from .bench's and SOURCES' images) to JPEGs of quality 85.
# FEED_SIZE=WxH makes inputs of another size, FEED_QUALITY the outputs' quality (85), FEED_SMALL
# the second width (256; empty: none).
# Prints each run's rate, bytes, cores busy, the decoders and the engines' calls (the server's
# status before and after); the batch's whole report in FEED_DIR/logs.
#   sh bench/engines_feed.sh [N [WIDTH [CONFIG...]]]   CONFIG: WORKERS[:VAR=VALUE,...] (default a set)
set -u
n=${1:-1000}
width=${2:-800}
[ $# -ge 2 ] && shift 2 || shift $#
configs=${*:-16 64 64:GPUIMG_JPEG_SPLIT=0}
size=${FEED_SIZE:-4032x3024}
q=${FEED_QUALITY:-85}
small=${FEED_SMALL-256}
[ "$size" = 4032x3024 ] && d=/tmp/gpuimg-thumbs || d=/tmp/gpuimg-thumbs-$size
d=${FEED_DIR:-$d}
if [ ! -s "$d/in/list.txt" ] || [ "$(grep -c . "$d/in/list.txt")" -ne "$n" ]; then
    rm -rf "$d"
    # shellcheck disable=SC2046
    python3 bench/make_batch_inputs.py "$d/in" "$n" "${size%x*}" "${size#*x}" $(ls .bench/*.jpg .bench/*.png ../shared/images/*.jpg 2>/dev/null) \
        --quality 92 --exif || exit 1
fi
echo "feed: $n JPEGs $size q92 ($(du -sm "$d/in" | cut -f1) MB) -> ${width}px ${small:+and ${small}px }JPEG q$q; $(nproc) cores;" \
    "$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)"
cat "$d"/in/*.jpg >/dev/null
cpu() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $2 + $3 + $4 + $5 + $6 + $7 + $8 }' /proc/stat; }
engines() { GPUIMG_SERVER_DIR=$1 ./gpuimg --server-status 2>&1 | sed -n 's/.*JPEG engines: \([0-9]*\) images in \([0-9]*\) calls.*, \([0-9.]*\) s.*/\1 \2 \3/p'; }
mkdir -p "$d/logs"
run() {   # LABEL SERVER-DIR JOBS
    rm -rf "$d/out"
    e0=$(engines "$2")
    a=$(cpu)
    GPUIMG_SERVER_DIR=$2 ./gpuimg -o "$d/out/%s.jpg" --no-progress --jobs="$3" --jpeg-quality="$q" \
        --from-list="$d/in/list.txt" "resize=${bw}x" >"$d/log" 2>&1
    b=$(cpu)
    e1=$(engines "$2")
    busy=$(echo "$a $b" | awk -v c="$(nproc)" '{ printf "%.1f", ($3 - $1) / ($4 - $2) * c }')
    eng=$(echo "${e0:-0 0 0} ${e1:-0 0 0}" | awk '{ i = $4 - $1; c = $5 - $2; printf "engines %d images in %d calls (%.1f a call, %.2f s)", i, c, c ? i / c : 0, $6 - $3 }')
    echo "$1: $(sed -n 's/.*batch: .* in \([0-9.]* s\), \([0-9.]* images\/s\).*/\2 (\1)/p' "$d/log")," \
        "$(cat "$d"/out/*.jpg 2>/dev/null | wc -c) bytes, cores busy $busy, $eng; $(grep 'decoded by' "$d/log" | sed 's/gpuimg: //')"
    cp "$d/log" "$d/logs/$(echo "$1" | tr -c 'a-zA-Z0-9=\n' _).log"
}
i=0
for c in $configs; do
    w=${c%%:*}
    vars=
    [ "$c" != "$w" ] && vars=$(echo "${c#*:}" | tr , ' ')
    mkdir -p "$d/s$i" && chmod 700 "$d/s$i"
    # shellcheck disable=SC2086
    env GPUIMG_SERVER_DIR="$d/s$i" GPUIMG_SERVER_WORKERS="$w" $vars ./gpuimg --server --server-idle=120 -q &
    i=$((i + 1))
done
sleep 1
i=0
for c in $configs; do   # warm: the engines made, each worker's buffers
    GPUIMG_SERVER_DIR=$d/s$i ./gpuimg -q --force --jobs="${c%%:*}" --jpeg-quality="$q" -o "$d/warm/%s.jpg" "resize=${width}x" \
        $(head -n 128 "$d/in/list.txt") 2>/dev/null
    i=$((i + 1))
done
for bw in "$width" $small; do
    for r in $(seq 1 "${ROUNDS:-2}"); do
        i=0
        for c in $configs; do
            run "${bw}px round $r, workers $c" "$d/s$i" "${c%%:*}"
            i=$((i + 1))
        done
    done
done
i=0
for c in $configs; do
    GPUIMG_SERVER_DIR=$d/s$i ./gpuimg --server-stop >/dev/null 2>&1
    i=$((i + 1))
done
wait
