#!/bin/sh
# gpuimg: one whole GPU-machine session in one call: build and test (GPUIMG_REQUIRE_GPU=1), the
# parity test under compute-sanitizer memcheck, racecheck, initcheck and synccheck, then
# bench/gpu_bench (the whole table), --compare on real images and NVIDIA NPP's anchor benchmark in
# the same call. Needs .stb (stb
# headers) and .bench (flow-5120x2880.jpg, elarun-2560x1600.png, shared/anchors/npp_bench.cu).
#   sh bench/gpu_session.sh [all|test|bench]
set -u
what=${1:-all}
out=${OUT:-/tmp/gpuimg-out}
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
if [ ! -x gpuimg ]; then
    sh bench/device_check.sh >"$out/check.log" 2>&1
    echo "== make check with GPUIMG_REQUIRE_GPU=1: exit $?"
    grep -E '^(PASS|FAIL|SKIP|ERROR):|^# (PASS|FAIL|SKIP)|^GPU:' "$out/check.log"
    grep -h -E '^FAIL|gpu parity' tests/*.log | head -20
fi
if [ "$what" != bench ]; then
    # div_small (cuda/common.cuh) against integer division over its whole range
    nvcc -O3 -std=c++17 -Icuda -I. -arch=sm_90 -o /tmp/div_check bench/div_check.cu >"$out/div_check.log" 2>&1 \
        && /tmp/div_check >>"$out/div_check.log" 2>&1
    echo "== bench/div_check: exit $?"
    cat "$out/div_check.log"
    for tool in memcheck racecheck initcheck synccheck; do
        # initcheck: not inside nvJPEG, whose own rgba2rgb kernel reads its uninitialised staging
        excl=
        [ $tool = initcheck ] && excl="--kernel-name-exclude kns=nvjpeg"
        # shellcheck disable=SC2086
        GPUIMG_PARITY_QUICK=1 timeout 240 compute-sanitizer --tool $tool $excl --error-exitcode 9 tests/gpu_parity \
            >"$out/sanitizer-$tool.log" 2>&1
        tail -n 4 "$out/sanitizer-$tool.log"
        echo "== compute-sanitizer --tool $tool tests/gpu_parity (quick sizes): exit $?"
        grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|gpu parity|FAIL' "$out/sanitizer-$tool.log" | head -5
    done
fi
[ "$what" = test ] && exit 0
b=.bench
# the whole table: every operation x variant x layout, NPP beside, each row checked first
make -j"$(nproc)" bench >"$out/bench-build.log" 2>&1 || tail -n 20 "$out/bench-build.log"
bench/gpu_bench --csv "$out/gpu_bench.csv" >"$out/gpu_bench.txt" 2>&1
echo "== bench/gpu_bench: exit $?"
cat "$out/gpu_bench.txt"
{
    echo "== GPU run, default kernels"
    ./gpuimg -v --force gray,resize=50%,blur=2,transpose $b/flow-5120x2880.jpg /tmp/o.png
    GPUIMG_PIN=1 ./gpuimg -v --force gray,resize=50%,blur=2,transpose $b/flow-5120x2880.jpg /tmp/o.png
    echo "== --compare on flow-5120x2880.jpg"
    ./gpuimg --compare --repeat=30 --force gray,resize=50%,blur=2,transpose $b/flow-5120x2880.jpg /tmp/c.png
    ./gpuimg --compare --repeat=30 --force resize=200%,rotate=90,flip=h $b/flow-5120x2880.jpg /tmp/c2.png
    ./gpuimg --compare --repeat=30 --force blur=2,resize=25% $b/elarun-2560x1600.png /tmp/c3.png
    echo "== 10109x4542 RGB (45.9 Mpx), made from flow-5120x2880.jpg"
    ./gpuimg -q --force --png-level=0 resize=10109x4542! $b/flow-5120x2880.jpg /tmp/big.png
    for p in gray resize=50% resize=200% resize=77%:filter=bilinear resize=150% blur=2 transpose gray,transpose; do
        ./gpuimg --compare --repeat=30 --force "$p" /tmp/big.png /tmp/c4.png
    done
} >"$out/compare.log" 2>&1
cat "$out/compare.log"
nvcc -O2 -arch=sm_90 -o /tmp/npp_bench $b/npp_bench.cu -lnppig -lnppif -lnppicc -lnppidei -lnppc >"$out/npp.log" 2>&1 \
    && /tmp/npp_bench >>"$out/npp.log" 2>&1
echo "== NPP anchor (same call)"
cat "$out/npp.log"
