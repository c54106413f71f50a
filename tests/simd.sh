# gpuimg tests: the portable loops. On a machine with AVX2 the hand-written SIMD paths run by
# default; this runs the golden and exact-property tests again with GPUIMG_NO_SIMD=1 so that the
# portable code stays checked too (both must give the same bits).
. "${TOP_SRCDIR:-.}/tests/lib.sh"
dir=$(dirname "$GPUIMG")/tests
GPUIMG_NO_SIMD=1 "$dir/golden_test" >"$T/g.log" 2>&1 && ok || bad "golden_test without SIMD: $(tail -n 5 "$T/g.log")"
GPUIMG_NO_SIMD=1 "$dir/props_test" >"$T/p.log" 2>&1 && ok || bad "props_test without SIMD: $(tail -n 5 "$T/p.log")"
finish
