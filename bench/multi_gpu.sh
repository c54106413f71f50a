#!/bin/sh
# gpuimg bench: one batch on one GPU and on two (the nvidia-h200-x2 machine), same files, same
# jobs, same run; and the tiled GPU path (--gpu-mem-limit) beside the whole-image run on a large
# image. Prints everything on stdout. After a build, with .bench/ holding the source images.
#   sh bench/multi_gpu.sh [N]
set -u
n=${1:-200}
. bench/batch_inputs.sh
batch_inputs /tmp/gpuimg-multi "$n" || exit 1
echo "inputs: $n JPEGs 2560x1600; $(nproc) cores; $(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c | tr -s ' ')"
cat "$d"/in/*.jpg >/dev/null
jobs=$(nproc)
# workers as built (copies through their pinned staging buffers, device memory kept between
# files), without keeping the memory, and as before both (pageable copies, cudaMalloc/cudaFree)
for pipe in gray,resize=50% blur=4,resize=50%; do
    for level in 1 0; do
        for rep in 1 2; do
            for devs in 0 0,1; do
                for mode in staged+kept staged pageable; do
                    rm -rf "$d/out"
                    unset GPUIMG_NO_KEEP
                    export GPUIMG_NO_STAGE=0
                    case $mode in
                    staged) export GPUIMG_NO_KEEP=1 ;;
                    pageable) export GPUIMG_NO_KEEP=1 GPUIMG_NO_STAGE=1 ;;
                    esac
                    ./gpuimg --backend=gpu --devices=$devs --jobs=$jobs --png-level=$level --no-progress -o "$d/out/%s.png" \
                        --from-list="$d/in/list.txt" "$pipe" 2>&1 | sed "s/^/$pipe, level $level, devices $devs, $mode: /"
                done
            done
        done
    done
done
unset GPUIMG_NO_STAGE GPUIMG_NO_KEEP
echo "== tiles: 10109x4542 RGB, whole vs --gpu-mem-limit"
./gpuimg -q --force --png-level=0 resize=10109x4542! .bench/flow-5120x2880.jpg /tmp/big.png
for pipe in blur=2 gray,blur=2,transpose transpose; do
    for lim in none 512M 128M; do
        opt=
        [ "$lim" = none ] || opt=--gpu-mem-limit=$lim
        for rep in 1 2 3; do
            ./gpuimg -v --force --backend=gpu --png-level=0 $opt "$pipe" /tmp/big.png /tmp/t-$lim.png 2>&1 | grep 'kernels' \
                | sed "s/^/$pipe, limit $lim, run $rep: /"
        done
    done
    cmp /tmp/t-none.png /tmp/t-512M.png && cmp /tmp/t-none.png /tmp/t-128M.png && echo "$pipe: tiled outputs identical to the whole run"
done
