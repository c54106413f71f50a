# gpuimg tests: WebP and TIFF, in and out (builds with libwebp and libtiff; each part SKIPs, said,
# where the build lacks its library).
# - TIFF out then in: every layout (grey, grey+alpha, RGB, RGBA; 8 and 16 bits) at an odd size
#   comes back exact. TIFF written by libtiff itself (tests/mktiff): strips, 16x16 tiles,
#   planes apart, associated alpha, a palette (libtiff's RGBA reader): each read exact.
# - WebP: lossless RGB and RGBA 8-bit come back exact; grey comes back as RGB of the same values;
#   16 bits are rounded to 8 as for JPEG; lossy within its quality's reach; --webp-quality changes
#   the size.
# - Where python3 has OpenCV: OpenCV reads gpuimg's TIFF and WebP to the same pixels (an
#   independent decoder).
# - Cut and damaged files: one line naming the file, exit 1, no output.
# - An animated WebP (tests/anim/make_anim.py, Pillow): its first frame exactly as Pillow decodes
#   it, "frame 1 of 3" said by -v, --json and info; a GIF's two frames counted alike.
# - EXIF whose Exif IFD holds nothing a TIFF's EXIF directory carries (a maker note, an
#   interoperability pointer, an unknown tag, a number written as text; with python3): the TIFF
#   is written, without that directory, its IFD0's make kept (read back by tests/meta.py).
. "${TOP_SRCDIR:-.}/tests/lib.sh"
dir=$(dirname "$GPUIMG")/tests
"$GPUIMG" --version >"$T/v"
tiff=0 webp=0
grep -q 'libtiff [0-9.]* (TIFF)' "$T/v" && tiff=1
grep -q 'libwebp [0-9.]* (WebP)' "$T/v" && webp=1
[ $tiff = 1 ] || echo "no libtiff in this build: TIFF not tested"
[ $webp = 1 ] || echo "no libwebp in this build: WebP not tested"
same() {   # same A B TOL LABEL: the pixels of A and B within TOL levels
    "$dir/golden_test" --diff "$1" "$2" "$3" >"$T/log" 2>&1 && ok || bad "$4: $(cat "$T/log")"
}
cv=0
command -v python3 >/dev/null 2>&1 && python3 -c 'import cv2' 2>/dev/null && cv=1
# cv_same FILE PNG [premultiplied]: OpenCV's reading of FILE (unchanged: depth and alpha kept)
# equals PNG's pixels; with premultiplied, also where its colour is PNG's premultiplied by alpha as
# libtiff's RGBA reader rounds it, through which OpenCV (4.6) reads 8-bit RGBA TIFF
cv_same() {
    python3 - "$@" <<'PY' && ok || bad "OpenCV reads $1 otherwise than gpuimg wrote it"
import sys, cv2, numpy as np
a = cv2.imread(sys.argv[1], cv2.IMREAD_UNCHANGED)
b = cv2.imread(sys.argv[2], cv2.IMREAD_UNCHANGED)
def same(b):
    return a is not None and a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b)
def premultiplied(b):
    p = b.astype(np.uint32)
    p[..., :3] = (p[..., :3] * p[..., 3:] + 127) // 255
    return p.astype(b.dtype)
sys.exit(0 if same(b) or (len(sys.argv) > 3 and same(premultiplied(b))) else 1)
PY
}

if [ $tiff = 1 ]; then
    for c in 1 2 3 4; do
        for d in 8 16; do
            "$MKIMG" 37 23 $c $d "$T/in.png" $((c + d)) || exit 99
            expect_ok -q -f flip=h "$T/in.png" "$T/o.tif"
            expect_ok -q -f flip=h "$T/o.tif" "$T/back.png"
            same "$T/back.png" "$T/in.png" 0 "TIFF round trip, $c channels $d bits"
            [ "$(dims "$T/o.tif")" = "37x23 c$c d$d" ] && ok || bad "TIFF $c/$d read as $(dims "$T/o.tif")"
            [ $cv = 1 ] && [ $c != 2 ] && { "$GPUIMG" -q -f flip=h "$T/in.png" "$T/want.png"
                cv_same "$T/o.tif" "$T/want.png" $([ $c$d = 48 ] && echo premultiplied); }
        done
    done
    [ "$(head -c 4 "$T/o.tif" | od -An -c | tr -d ' ')" = 'II*\0' ] && ok || bad "not a little-endian TIFF"
    for spec in "3 8 strips" "4 16 strips" "1 16 tiles" "4 8 tiles" "3 8 planar" "4 16 planar" "2 8 assoc" "4 16 assoc" \
        "1 8 palette"; do
        set -- $spec
        "$MKTIFF" 41 29 $1 $2 "$T/lib.tif" 5 $3 || { bad "mktiff $spec"; continue; }
        run -v -f --backend=cpu copy "$T/lib.tif" "$T/lib-read.png"
        [ "$RC" -eq 0 ] && grep -q "libtiff" "$ERR" && ok || bad "TIFF $spec: $(cat "$ERR")"
        same "$T/lib-read.png" "$T/lib.png" 0 "TIFF $spec read"
    done
    "$MKIMG" 64 48 3 8 "$T/big.png" 3 || exit 99
    "$GPUIMG" -q -f copy "$T/big.png" "$T/big.tif" || bad "TIFF out"
    head -c $(($(wc -c <"$T/big.tif") / 2)) "$T/big.tif" >"$T/cut.tif"
    expect_fail 1 "cut\\.tif: .*TIFF" copy "$T/cut.tif" "$T/cut-out.png"
    [ ! -e "$T/cut-out.png" ] && ok || bad "a cut TIFF left an output"
    printf 'II*\000\377\377\377\177' >"$T/bad.tif"
    expect_fail 1 "bad\\.tif: invalid TIFF" copy "$T/bad.tif" "$T/bad-out.png"
    if command -v python3 >/dev/null 2>&1; then
        "$GPUIMG" -q -f copy "$T/big.png" "$T/base.jpg" || exit 99
        for k in makernote interop unknown mismatch; do
            python3 "${TOP_SRCDIR:-.}/tests/meta.py" jpeg "$T/base.jpg" "$T/x-$k.jpg" 6 72 72 notiff-$k || exit 99
            expect_ok -q -f copy "$T/x-$k.jpg" "$T/x-$k.tif"
            got=$(python3 "${TOP_SRCDIR:-.}/tests/meta.py" dims "$T/x-$k.tif" 2>&1)
            [ "$got" = "pixels=none image=48x64 make=gpuimg-test exposure=None iso=None makernote=no" ] && ok \
                || bad "EXIF of nothing a TIFF carries ($k): $got"
        done
    fi
fi

if [ $webp = 1 ]; then
    for c in 3 4; do
        "$MKIMG" 37 23 $c 8 "$T/w.png" $c || exit 99
        expect_ok -q -f --webp-lossless flip=h "$T/w.png" "$T/w.webp"
        expect_ok -q -f flip=h "$T/w.webp" "$T/w-back.png"
        same "$T/w-back.png" "$T/w.png" 0 "lossless WebP, $c channels"
        [ $cv = 1 ] && { "$GPUIMG" -q -f flip=h "$T/w.png" "$T/w-want.png"; cv_same "$T/w.webp" "$T/w-want.png"; }
    done
    "$MKIMG" 37 23 1 8 "$T/g.png" 1 || exit 99
    expect_ok -q -f --webp-lossless copy "$T/g.png" "$T/g.webp"
    [ "$(dims "$T/g.webp")" = "37x23 c3 d8" ] && ok || bad "grey WebP read as $(dims "$T/g.webp")"
    expect_ok -q -f gray "$T/g.webp" "$T/g-back.png"
    same "$T/g-back.png" "$T/g.png" 0 "grey through WebP"
    "$MKIMG" 37 23 3 16 "$T/w16.png" 2 || exit 99
    expect_ok -q -f --webp-lossless copy "$T/w16.png" "$T/w16.webp"
    expect_ok -q -f --format=png copy "$T/w16.png" "$T/w16-jpeg-like.jpg"
    [ "$(dims "$T/w16.webp")" = "37x23 c3 d8" ] && ok || bad "16-bit into WebP: $(dims "$T/w16.webp")"
    "$MKIMG" 200 120 3 8 "$T/photo.png" 4 || exit 99
    expect_ok -q -f copy "$T/photo.png" "$T/q80.webp"
    expect_ok -q -f --webp-quality=20 copy "$T/photo.png" "$T/q20.webp"
    [ "$(wc -c <"$T/q20.webp")" -lt "$(wc -c <"$T/q80.webp")" ] && ok || bad "--webp-quality=20 is not smaller than 80"
    # --webp-effort is libwebp's method: 4 by default (the same bytes as the default), 0 a larger file
    expect_ok -q -f --webp-effort=4 copy "$T/photo.png" "$T/e4.webp"
    expect_ok -q -f --webp-effort=0 copy "$T/photo.png" "$T/e0.webp"
    cmp -s "$T/e4.webp" "$T/q80.webp" && ok || bad "--webp-effort=4 is not the default"
    [ "$(wc -c <"$T/e0.webp")" -gt "$(wc -c <"$T/e4.webp")" ] && ok || bad "--webp-effort=0 is not larger than 4"
    expect_fail 2 "--webp-effort: expected a whole number from 0 to 6, not '7'" --webp-effort=7 copy "$T/photo.png" "$T/e7.webp"
    expect_ok -q -f copy "$T/q80.webp" "$T/q80.png"
    "$dir/golden_test" --diff "$T/q80.png" "$T/photo.png" 255 >"$T/log" 2>&1 && ok || bad "lossy WebP: $(cat "$T/log")"
    head -c $(($(wc -c <"$T/q80.webp") / 2)) "$T/q80.webp" >"$T/cut.webp"
    expect_fail 1 "cut\\.webp: .*WebP" copy "$T/cut.webp" "$T/cut-out.png"
    [ ! -e "$T/cut-out.png" ] && ok || bad "a cut WebP left an output"
    printf 'RIFF\010\000\000\000WEBPVP8 ' >"$T/bad.webp"
    expect_fail 1 "bad\\.webp: invalid WebP" copy "$T/bad.webp" "$T/bad-out.png"
    expect_fail 1 "webp: WebP holds at most 16383 pixels a side" resize=16384x1! "$T/g.png" "$T/wide.webp"
fi
# an animation: its first frame on the canvas, said (-v, --json, info); a GIF's frames counted too
if [ $webp = 1 ]; then
    A="${TOP_SRCDIR:-.}/tests/anim"
    run -v -f --backend=cpu --json="$T/a.json" copy "$A/anim.webp" "$T/anim.png"
    [ "$RC" -eq 0 ] && grep -q "anim.webp (33x21 RGBA 8-bit, libwebp [0-9.]*, frame 1 of 3)" "$ERR" \
        && grep -q '"frames": 3' "$T/a.json" && ok || bad "animated WebP: exit $RC: $(cat "$ERR")"
    same "$T/anim.png" "$A/want-anim-webp.png" 0 "animated WebP: the first frame, as Pillow decodes it"
    run info "$A/anim.webp"
    grep -q "anim.webp: WebP 33x21 RGBA 8-bit, 3 frames" "$OUT" && ok || bad "info of an animation: $(cat "$OUT" "$ERR")"
fi
run -v -f --backend=cpu copy "${TOP_SRCDIR:-.}/tests/formats/image.gif" "$T/gif.png"
[ "$RC" -eq 0 ] && grep -q "image.gif (13x9 RGBA 8-bit, stb_image, frame 1 of 2)" "$ERR" && ok || bad "GIF frames: $(cat "$ERR")"
finish
