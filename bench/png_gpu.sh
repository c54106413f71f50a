#!/bin/sh
# gpuimg bench: PNG deflated on the GPU (nvCOMP builds) in steady state. N copies of IMAGE go
# through flip=h as one batch of one job (the first file pays nvCOMP's start, the rest show the
# steady state), for each chunk size and nvCOMP algorithm, beside the CPU encoder on all threads
# at levels 1, 6 and 9: encode busy time a file and bytes a file.
#   sh bench/png_gpu.sh IMAGE [N]      (GPU machine; ./gpuimg built with nvCOMP)
set -eu
in=$1
n=${2:-12}
g=${GPUIMG:-./gpuimg}
d=$(mktemp -d /tmp/gpuimg-pnggpu.XXXXXX)
trap 'rm -rf "$d"' EXIT
ext=${in##*.}
i=0
while [ $i -lt "$n" ]; do cp "$in" "$d/in$i.$ext"; i=$((i + 1)); done
"$g" --version | grep "GPU encoder" || true
one() {   # LABEL LEVEL VAR=VALUE...: encode ms a file and bytes a file
    label=$1 level=$2
    shift 2
    rm -rf "$d/out"
    env "$@" "$g" -f --jobs=1 --backend=gpu --png-level="$level" --no-progress -o "$d/out/%s.png" flip=h "$d"/in*."$ext" \
        >/dev/null 2>"$d/err" || { echo "$label: failed: $(cat "$d/err")"; return; }
    enc=$(sed -n 's/.*encode \([0-9.]*\) s.*/\1/p' "$d/err" | tail -n 1)
    bytes=$(cat "$d"/out/*.png | wc -c)
    echo "$label: encode $(echo "$enc $n" | awk '{printf "%.1f", $1 * 1000 / $2}') ms a file, $((bytes / n)) bytes a file"
}
for l in 1 6 9; do one "cpu level $l" "$l" GPUIMG_PNG_GPU=0; done
for c in 65536 16384 4096; do
    for a in 0 1 2 4; do one "nvcomp chunk $c algorithm $a" 6 GPUIMG_PNG_GPU=1 GPUIMG_PNG_GPU_CHUNK=$c GPUIMG_PNG_GPU_ALGO=$a; done
done
