#!/bin/sh
# gpuimg bench: a batch with the GPU's codecs, beside OpenCV-Python in the same run. N JPEGs of
# 2560x1600 (bench/batch_inputs.sh makes up to 200 different ones; past 200 the list repeats them
# under other names) through PIPELINE to PNG at level L: OpenCV's thread pool (for
# gray,resize=50% and gray,resize=50%,blur=2,transpose); gpuimg on the CPU; on the GPU with
# libjpeg-turbo and the CPU's encoders; the default (the JPEG engines once ready; PNG by nvCOMP
# and the CPU from 100 files); the default with the CPU's PNG encoder (GPUIMG_PNG_GPU=0); the
# engines waited for (--jpeg-decoder=nvjpeg); for JPEG out, the default with nvJPEG's encoder
# (GPUIMG_JPEG_GPU=1); and nvCOMP with one algorithm for each of ALGOS. Each line: images/s and
# seconds (the batch summary), the outputs' bytes and peak memory, then the busy and decoders lines.
# EXT jpg: JPEG out at quality 90 instead (OpenCV likewise).
#   sh bench/gpu_codecs.sh [N] [PIPELINE] [L] [ALGOS] [EXT]   (GPU machine, after a build)
set -u
n=${1:-200}
pipe=${2:-gray,resize=50%}
level=${3:-6}
algos=${4:-}
ext=${5:-png}
q=""
[ "$ext" = jpg ] && q="--jpeg-quality=90"
. bench/batch_inputs.sh
u=$n
[ "$u" -gt 200 ] && u=200
batch_inputs /tmp/gpuimg-codecs "$u" >/dev/null || exit 1
i=$u
while [ "$i" -lt "$n" ]; do
    ln -s "$d/in/$(sed -n "$((i % u + 1))p" "$d/in/list.txt" | xargs basename)" "$d/in/r$i.jpg"
    i=$((i + 1))
done
ls "$d"/in/*.jpg >"$d/list.txt"
echo "inputs: $n JPEGs 2560x1600 ($u different), $(du -sLm "$d/in" | cut -f1) MB; $pipe; PNG level $level; $(nproc) cores; $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)"
cat "$d"/in/*.jpg >/dev/null   # in the page cache for every contender
one() {   # LABEL VAR=VALUE... ./gpuimg OPTIONS...
    label=$1
    shift
    rm -rf "$d/out" "$d/j.json"
    env "$@" --png-level="$level"  $q --no-progress --json="$d/j.json" -o "$d/out/%s.$ext" --from-list="$d/list.txt" "$pipe" \
        >/dev/null 2>"$d/err"
    echo "$label: $(sed -n 's/.* in \([0-9.]* s\), \([0-9.]*\) images\/s.*/\2 images\/s (\1)/p' "$d/err"), $(cat "$d"/out/*."$ext" | wc -c) bytes, peak $(sed -n 's/.*"peak_rss_kib": \([0-9]*\).*/\1/p' "$d/j.json") KiB"
    grep -E 'busy|decoded by|failed' "$d/err" | grep -v ' 0 failed' | sed 's/^/    /'
}
cv=""
[ "$pipe" = "gray,resize=50%,blur=2,transpose" ] && cv="--four"
[ "$ext" = jpg ] && cv="$cv --jpeg 90"
if [ "$pipe" = "gray,resize=50%" ] || [ "$pipe" = "gray,resize=50%,blur=2,transpose" ]; then
    rm -rf "$d/cv"
    python3 bench/batch_opencv.py "$d/list.txt" "$d/cv" --level "$level" $cv
    echo "opencv output: $(cat "$d"/cv/*."$ext" | wc -c) bytes"
fi
one "gpuimg cpu" ./gpuimg --backend=cpu
one "gpuimg gpu, libjpeg-turbo, CPU encoder" GPUIMG_PNG_GPU=0 GPUIMG_JPEG_GPU=0 ./gpuimg --backend=gpu --jpeg-decoder=libjpeg
one "gpuimg gpu, default" ./gpuimg --backend=gpu
one "gpuimg gpu, default, CPU PNG encoder" GPUIMG_PNG_GPU=0 ./gpuimg --backend=gpu
one "gpuimg gpu, engines waited for" ./gpuimg --backend=gpu --jpeg-decoder=nvjpeg
[ "$ext" = jpg ] && one "gpuimg gpu, default, nvJPEG encoder" GPUIMG_JPEG_GPU=1 ./gpuimg --backend=gpu
for a in $algos; do
    one "gpuimg gpu, default, nvCOMP algorithm $a alone" GPUIMG_PNG_GPU=1 GPUIMG_PNG_GPU_ALGO=$a ./gpuimg --backend=gpu
done
