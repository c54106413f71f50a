# gpuimg tests: the portable loops. On a machine with AVX2 the hand-written SIMD paths run by
# default; this runs the golden and exact-property tests again with GPUIMG_NO_SIMD=1 so that the
# portable code stays checked too (both must give the same bits), and compares the two on images
# with alpha (transparent, barely opaque and opaque spans), on grey and on RGB through every
# filtering operation.
. "${TOP_SRCDIR:-.}/tests/lib.sh"
dir=$(dirname "$GPUIMG")/tests
GPUIMG_NO_SIMD=1 "$dir/golden_test" >"$T/g.log" 2>&1 && ok || bad "golden_test without SIMD: $(tail -n 5 "$T/g.log")"
GPUIMG_NO_SIMD=1 "$dir/props_test" >"$T/p.log" 2>&1 && ok || bad "props_test without SIMD: $(tail -n 5 "$T/p.log")"
grep -q '^hand-written SIMD: off' "$T/g.log" && grep -q '^hand-written SIMD: off' "$T/p.log" && ok \
    || bad "GPUIMG_NO_SIMD=1 left the hand-written SIMD on: $(grep -h 'SIMD' "$T/g.log" "$T/p.log")"
for c in 1 2 3 4; do
    for size in "1001 626" "7 3" "13 42" "97 5" "96 64" "1000 626"; do
        # shellcheck disable=SC2086
        "$MKIMG" $size $c 8 "$T/a.png" 5 1 1 || bad "mkimg $size $c"
        for p in blur=2 blur=1.2:border=constant blur=4:border=replicate resize=37% resize=230% \
            resize=61%:filter=area resize=50% resize=3x2!:filter=bilinear resize=173%:filter=cubic \
            resize=37%:filter=lanczos3 resize=9x400!:filter=cubic; do
            "$GPUIMG" -q -f --backend=cpu "$p" "$T/a.png" "$T/s.png" &&
                GPUIMG_NO_SIMD=1 "$GPUIMG" -q -f --backend=cpu "$p" "$T/a.png" "$T/n.png" &&
                cmp -s "$T/s.png" "$T/n.png" && ok || bad "$p of a ${size% *}x${size#* } $c-channel image: SIMD differs from portable"
        done
    done
done
finish
