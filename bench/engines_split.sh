#!/bin/sh
# gpuimg bench: the thumbnail job on the GPU machine, the scheduler over the JPEG engines and the
# cores (GPUIMG_JPEG_SPLIT=1, the default) against the engines alone (=0), by jobs, in one call,
# beside the CPU path, shrink on load everywhere, --exact and OpenCV-Python's pool; then two warm
# servers, the engines alone and the scheduler, interleaved (at WIDTH and at 256 px). N JPEGs of 4032x3024, quality 92, 4:2:0,
# EXIF (bench/make_batch_inputs.py from .bench's images) to WIDTH-wide JPEGs of quality 85.
#   sh bench/engines_split.sh [N [WIDTH]]     (after a build; prints everything on stdout)
set -u
n=${1:-300}
width=${2:-800}
d=${SPLIT_DIR:-/tmp/gpuimg-split}
if [ ! -s "$d/in/list.txt" ] || [ "$(grep -c . "$d/in/list.txt")" -ne "$n" ]; then
    rm -rf "$d"
    python3 bench/make_batch_inputs.py "$d/in" "$n" 4032 3024 .bench/*.jpg .bench/*.png --quality 92 --exif || exit 1
fi
echo "split: $n JPEGs 4032x3024 q92 ($(du -sm "$d/in" | cut -f1) MB) -> ${width}px JPEG q85; $(nproc) cores;" \
    "$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)"
cat "$d"/in/*.jpg >/dev/null
batch() {   # LABEL [ENV=VALUE...] -- GPUIMG OPTIONS...
    label=$1
    shift
    rm -rf "$d/out"
    env "$@" -o "$d/out/%s.jpg" --no-progress --jpeg-quality=85 --from-list="$d/in/list.txt" "resize=${bw:-$width}x" \
        >"$d/log" 2>&1
    echo "$label: $(sed -n 's/.*batch: .* in \([0-9.]* s\), \([0-9.]* images\/s\).*/\2 (\1)/p' "$d/log")," \
        "$(cat "$d"/out/*.jpg 2>/dev/null | wc -c) bytes; $(grep 'decoded by' "$d/log" | sed 's/gpuimg: //')"
}
for jobs in 16 32 48; do
    for split in 1 0; do
        batch "no server, --jobs=$jobs, split $split" GPUIMG_JPEG_SPLIT=$split ./gpuimg --no-server --jobs=$jobs
    done
done
batch "no server, --shrink-on-load (the cores decode all)" ./gpuimg --no-server --shrink-on-load
batch "no server, --exact, split 1" ./gpuimg --no-server --exact --jobs=32
batch "no server, --backend=cpu" ./gpuimg --no-server --backend=cpu
# two warm servers of 16 workers, the engines alone (GPUIMG_JPEG_SPLIT=0 in the server's own
# environment) and the scheduler (=1), the same batch interleaved, ROUNDS rounds a width
for s in 0 1; do
    mkdir -p "$d/s$s" && chmod 700 "$d/s$s"
    GPUIMG_SERVER_DIR=$d/s$s GPUIMG_SERVER_WORKERS=16 GPUIMG_JPEG_SPLIT=$s ./gpuimg --server --server-idle=60 -q &
done
sleep 1
for s in 0 1; do
    GPUIMG_SERVER_DIR=$d/s$s ./gpuimg -q --force -o "$d/warm$s/%s.jpg" "resize=${width}x" $(head -n 60 "$d/in/list.txt") 2>/dev/null
done
for bw in "$width" 256; do
    for r in $(seq 1 "${ROUNDS:-5}"); do
        for s in 0 1; do
            batch "${bw}px round $r, server split $s" GPUIMG_SERVER_DIR="$d/s$s" ./gpuimg
        done
    done
done
bw=
for s in 0 1; do
    GPUIMG_SERVER_DIR=$d/s$s ./gpuimg --server-stop >/dev/null 2>&1
done
wait
for how in "" --reduced; do
    rm -rf "$d/cv"
    python3 bench/thumbs_opencv.py "$d/in/list.txt" "$d/cv" "$width" $how
done
