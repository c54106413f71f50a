# gpuimg tests: every input format stb_image reads, from tests/formats/ (made by make_formats.py):
# palette PNG with transparency, Adam7-interlaced PNG (8 and 16 bit), BMP, TGA with alpha, PPM,
# PGM, GIF (two frames: the first is read), PSD (which stb reads as RGBA), Radiance HDR (converted to 8 bits), baseline,
# progressive and gray JPEG; then tests/jpeg. Each must decode to its want-*.png (exact; HDR within 1 level of
# stb's documented conversion; JPEG within 3 of libjpeg-turbo, whose inverse DCT rounds differently).
. "${TOP_SRCDIR:-.}/tests/lib.sh"
dir=$(dirname "$GPUIMG")/tests
"$dir/golden_test" "$TOP_SRCDIR/tests/formats" >"$T/log" 2>&1 && ok || bad "$(cat "$T/log")"
grep -q 'cases, 0 failed' "$T/log" && ok || bad "no cases ran: $(cat "$T/log")"
# JPEG of every chroma subsampling, progressive, grey and CMYK against OpenCV's decoding
# (tests/jpeg/make_jpegs.py): libjpeg-turbo's bytes exactly (CMYK within 1), stb_image within
# its measured difference
"$dir/golden_test" "$TOP_SRCDIR/tests/jpeg" >"$T/log" 2>&1 && ok || bad "$(cat "$T/log")"
if "$GPUIMG" --version | grep -q "libjpeg-turbo"; then n=14; else n=7; fi
grep -q ": $n cases, 0 failed" "$T/log" && ok || bad "tests/jpeg: want $n cases: $(cat "$T/log")"
# JPEG output (libjpeg-turbo builds): grey as one component, the chroma subsampling asked for (the
# luma's sampling factors in the frame header), progressive on request
if "$GPUIMG" --version | grep -q "libjpeg-turbo"; then
    src="$TOP_SRCDIR/tests/jpeg/want-s444-jpg.png"
    sof() { od -An -v -tx1 "$1" | tr -d '\n' | sed 's/  */ /g' | grep -o "ff c[02] 00 [0-9a-f][0-9a-f] 08 .. .. .. .. 0[13] 01 [0-9a-f][0-9a-f]"; }
    "$GPUIMG" -q gray "$src" "$T/g.jpg" && sof "$T/g.jpg" | grep -q "ff c0 .* 01 01 11$" && ok \
        || bad "grey JPEG is not one component: $(sof "$T/g.jpg")"
    for s in 420:22 422:21 444:11; do
        "$GPUIMG" -q --jpeg-sampling=${s%:*} flip=h "$src" "$T/s${s%:*}.jpg" \
            && sof "$T/s${s%:*}.jpg" | grep -q "ff c0 .* 03 01 ${s#*:}$" && ok \
            || bad "--jpeg-sampling=${s%:*}: $(sof "$T/s${s%:*}.jpg")"
    done
    "$GPUIMG" -q --jpeg-quality=95 flip=h "$src" "$T/q95.jpg" && sof "$T/q95.jpg" | grep -q " 03 01 11$" && ok \
        || bad "quality 95 is not 4:4:4 by default: $(sof "$T/q95.jpg")"
    "$GPUIMG" -q --jpeg-progressive flip=h "$src" "$T/p.jpg" && sof "$T/p.jpg" | grep -q "^ff c2" && ok \
        || bad "--jpeg-progressive wrote no progressive frame: $(sof "$T/p.jpg")"
fi
# --shrink-on-load (libjpeg-turbo builds): the factor chosen, and the result against OpenCV's
# reduced read (the same DCT scaling) resized with INTER_AREA (tests/jpeg/make_jpegs.py)
if "$GPUIMG" --version | grep -q "libjpeg-turbo"; then
    grep -v '^#' "$TOP_SRCDIR/tests/jpeg/SHRINK" | while read -r in pipe f want tol; do
        "$GPUIMG" -v --backend=cpu --shrink-on-load "$pipe" "$TOP_SRCDIR/tests/jpeg/$in" "$T/shrunk.png" 2>"$T/err" \
            && grep -q "shrunk 1/$f on load" "$T/err" && ok || bad "$in: not shrunk 1/$f on load: $(cat "$T/err")"
        "$dir/golden_test" --diff "$T/shrunk.png" "$TOP_SRCDIR/tests/jpeg/$want" "$tol" >"$T/log" && ok \
            || bad "$in --shrink-on-load $pipe: $(cat "$T/log")"
        "$GPUIMG" -v --backend=cpu "$pipe" "$TOP_SRCDIR/tests/jpeg/$in" "$T/full.png" 2>"$T/err" \
            && ! grep -q "on load" "$T/err" && ok || bad "$in: shrunk on load without --shrink-on-load"
        rm -f "$T/shrunk.png" "$T/full.png"
    done
    # a pipeline whose resize comes after a step that is not pointwise is not shrunk
    "$GPUIMG" -v --backend=cpu --shrink-on-load blur=1,resize=37x25 "$TOP_SRCDIR/tests/jpeg/shrink-gray.jpg" \
        "$T/b.png" 2>"$T/err" && ! grep -q "on load" "$T/err" && ok || bad "blur then resize was shrunk on load"
fi
# and through the command line, from stdin too
"$GPUIMG" -q --backend=cpu transpose - "$T/o.png" <"$TOP_SRCDIR/tests/formats/image.psd" && ok || bad "PSD from stdin"
finish
