#!/bin/sh
# gpuimg: build and test on the GPU machine in one call. Expects what the machine lacks (it has no
# network) carried: .stb/, .vendor/ and .nvcomp/ (HACKING.md). Writes logs under $OUT when set.
#   sh bench/device_check.sh            configure, build, make check with GPUIMG_REQUIRE_GPU=1
# Extra configure flags: CONFIGURE_FLAGS="--with-cuda-arch=90" sh bench/device_check.sh
set -u
out=${OUT:-/tmp/gpuimg-out}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
nvcc --version | tail -n 2
nproc
v=$PWD/.vendor   # libjpeg-turbo and libdeflate where carried (HACKING.md); .nvcomp/ is found by configure
(autoreconf -fi && ./configure CPPFLAGS="-I$PWD/.stb -I$v/jpeg/include -I$v/deflate/include" \
    LDFLAGS="-L$v/jpeg/lib -L$v/deflate/lib" ${CONFIGURE_FLAGS:-}) >"$out/configure.log" 2>&1 \
    || { tail -n 30 "$out/configure.log"; exit 1; }
sed -n '/gpuimg .* configured:/,$p' "$out/configure.log"
make -j"$(nproc)" >"$out/build.log" 2>&1 || { tail -n 30 "$out/build.log"; exit 1; }
./gpuimg --version
GPUIMG_REQUIRE_GPU=1 make -j"$(nproc)" check >"$out/check.log" 2>&1
rc=$?
grep -E '^(PASS|FAIL|SKIP|ERROR):|^# ' "$out/check.log"
cp tests/*.log "$out/" 2>/dev/null
exit $rc
