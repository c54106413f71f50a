#!/bin/sh
# gpuimg bench: each operation end to end (decode, operation, PNG encode at zlib level 6) on the
# CPU path beside the vips command that does the same, in one hyperfine run.
#   sh bench/vips_compare.sh IMAGE.png [OUTDIR]     (needs hyperfine and vips: libvips-tools)
set -eu
in=$1
out=${2:-/tmp/gpuimg-vips}
g=${GPUIMG:-./gpuimg}
mkdir -p "$out"
vips --version
nproc
hyperfine --warmup 1 --min-runs 10 --export-markdown "$out/vips.md" \
    -n 'gpuimg gray' "$g -q -f --backend=cpu gray $in $out/g-gray.png" \
    -n 'vips colourspace b-w' "vips colourspace $in $out/v-gray.png b-w" \
    -n 'gpuimg resize=50%' "$g -q -f --backend=cpu resize=50% $in $out/g-resize.png" \
    -n 'vips resize 0.5' "vips resize $in $out/v-resize.png 0.5" \
    -n 'gpuimg blur=2' "$g -q -f --backend=cpu blur=2 $in $out/g-blur.png" \
    -n 'vips gaussblur 2' "vips gaussblur $in $out/v-blur.png 2" \
    -n 'gpuimg transpose' "$g -q -f --backend=cpu transpose $in $out/g-transpose.png" \
    -n 'vips rot d90' "vips rot $in $out/v-rot.png d90"
cat "$out/vips.md"
ls -l "$out"
