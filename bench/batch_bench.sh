#!/bin/sh
# gpuimg bench: a batch end to end on the GPU machine, beside OpenCV-Python in the same run.
# 200 JPEGs of 2560x1600 (made from the images in .bench/), gray,resize=50%, PNG out at zlib
# levels 6 and 1: gpuimg on the GPU and on the CPU, JPEG decoded by libjpeg-turbo (auto, where
# built) and by stb_image, PNG deflated by libdeflate (auto, where built) and by zlib, and bench/batch_opencv.py with a thread a core; then gpuimg's peak
# memory over 50 and over 200 files.
#   sh bench/batch_bench.sh [N]        (after a build; prints everything on stdout)
set -u
n=${1:-200}
. bench/batch_inputs.sh
batch_inputs /tmp/gpuimg-batch "$n" || exit 1
head -n 50 "$d/in/list.txt" >"$d/list50.txt"
echo "inputs: $n JPEGs 2560x1600, $(du -sm "$d/in" | cut -f1) MB; $(nproc) cores; $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)"
sync
cat "$d"/in/*.jpg >/dev/null   # in the page cache for every contender
for level in 6 1; do
    for b in "gpu auto" "gpu stb" "cpu auto" "cpu stb" "cpu auto zlib"; do
        set -- $b
        rm -rf "$d/out"
        GPUIMG_PNG_ZLIB=$([ $# -eq 3 ] && echo 1 || echo 0) ./gpuimg --backend=$1 --jpeg-decoder=$2 --png-level=$level --no-progress -o "$d/out/%s.png" \
            --from-list="$d/in/list.txt" gray,resize=50% 2>&1 | sed "s/^/level $level, $1, jpeg $2${3:+, $3}: /"
        echo "level $level, $1, jpeg $2${3:+, $3}: output $(cat "$d"/out/*.png | wc -c) bytes"
    done
    rm -rf "$d/cv"
    python3 bench/batch_opencv.py "$d/in/list.txt" "$d/cv" --level "$level" | sed "s/^/level $level: /"
    echo "level $level: opencv output $(cat "$d"/cv/*.png | wc -c) bytes"
done
for list in list50.txt in/list.txt; do
    rm -rf "$d/out"
    ./gpuimg -q --force --backend=gpu --json="$d/mem.json" -o "$d/out/%s.png" --from-list="$d/$list" gray,resize=50%
    echo "peak memory, $(grep -c . "$d/$list") files: $(sed -n 's/.*"peak_rss_kib": \([0-9]*\).*/\1/p' "$d/mem.json") KiB"
done
