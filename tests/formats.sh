# gpuimg tests: every input format stb_image reads, from tests/formats/ (made by make_formats.py):
# palette PNG with transparency, Adam7-interlaced PNG (8 and 16 bit), BMP, TGA with alpha, PPM,
# PGM, GIF (two frames: the first is read), PSD (which stb reads as RGBA), Radiance HDR (converted to 8 bits), baseline,
# progressive and gray JPEG; then tests/jpeg. Each must decode to its want-*.png (exact; HDR within 1 level of
# stb's documented conversion; JPEG within 3 of libjpeg-turbo, whose inverse DCT rounds differently).
# Then the outputs: JPEG's components and sampling, PGM and PPM.
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
# PGM and PPM out (P5 grey, P6 RGB; 16 bits as maxval 65535, big-endian): the header, the size,
# and read back the same pixels; an image with alpha is refused, nothing written
for spec in "1 8 P5 255 1" "3 8 P6 255 3" "1 16 P5 65535 2" "3 16 P6 65535 6"; do
    set -- $spec
    "$MKIMG" 13 7 "$1" "$2" "$T/pnm-in.png" 9 || exit 99
    "$GPUIMG" -q -f flip=h "$T/pnm-in.png" "$T/pnm.ppm" && "$GPUIMG" -q -f flip=h "$T/pnm-in.png" "$T/pnm-want.png" \
        || bad "PNM out, $1 channels $2 bits"
    [ "$(head -c 2 "$T/pnm.ppm")" = "$3" ] && [ "$(sed -n 3p "$T/pnm.ppm" | head -c ${#4})" = "$4" ] && [ "$(wc -c <"$T/pnm.ppm")" -eq $((${#3} + 6 + ${#4} + 1 + 13 * 7 * $5)) ] \
        && ok || bad "PNM out, $1 channels $2 bits: header $(head -c 20 "$T/pnm.ppm" | od -c | head -2)"
    "$GPUIMG" -q -f flip=v,flip=v "$T/pnm.ppm" "$T/pnm-back.png" \
        && "$dir/golden_test" --diff "$T/pnm-back.png" "$T/pnm-want.png" 0 >"$T/log" && ok || bad "PNM read back: $(cat "$T/log")"
done
# EXIF orientation: a phone photo as a camera writes it (an APP1 "Exif" segment with IFD0's tag
# 0x0112, big- and little-endian, made here) is turned upright before the pipeline, the same bytes
# as the pipeline preceded by the turn on the stored image; --no-auto-orient leaves it as stored;
# a broken segment is ignored (as orientation 1)
"$MKIMG" 21 13 3 8 "$T/ori.png" 5 || exit 99
"$GPUIMG" -q -f flip=h,flip=h "$T/ori.png" "$T/ori.jpg" || bad "a JPEG to orient"
phone() { exif_jpeg "$T/ori.jpg" "$1" "$2" >"$T/phone.jpg"; }
set -- x "" flip=h, rotate=180, flip=v, transpose, rotate=90, transpose,rotate=180, rotate=270,
for v in 1 2 3 4 5 6 7 8; do
    for order in MM II; do
        phone $order $v
        turn=$(eval "echo \${$((v + 1))}")
        run -v -f --strip gray "$T/phone.jpg" "$T/up.png"
        "$GPUIMG" -q -f --strip --no-auto-orient "${turn}gray" "$T/phone.jpg" "$T/want.png"
        [ "$RC" -eq 0 ] && cmp -s "$T/up.png" "$T/want.png" && ok || bad "EXIF orientation $v ($order): $(cat "$ERR")"
        if [ $v -gt 1 ]; then
            grep -q "EXIF orientation $v turned upright" "$ERR" && ok || bad "-v does not say orientation $v: $(cat "$ERR")"
        fi
    done
done
phone MM 6
[ "$(dims "$T/phone.jpg")" = "13x21 c3 d8" ] && ok || bad "orientation 6: $(dims "$T/phone.jpg"), want 13x21"
"$GPUIMG" -q -f --strip --no-auto-orient gray "$T/phone.jpg" "$T/stored.png" && "$GPUIMG" -q -f --strip gray "$T/ori.jpg" "$T/ori-gray.png" \
    && cmp -s "$T/stored.png" "$T/ori-gray.png" && ok || bad "--no-auto-orient turned the image"
# IFD0 said to lie past the segment's end
{ head -c 2 "$T/ori.jpg"; exif MM 6 | head -c 16; printf '\377\377'; exif MM 6 | tail -c +19; tail -c +3 "$T/ori.jpg"; } >"$T/broken.jpg"
"$GPUIMG" -q -f --strip gray "$T/broken.jpg" "$T/broken.png" && cmp -s "$T/broken.png" "$T/ori-gray.png" && ok || bad "a broken EXIF segment"
# Shrink on load (libjpeg-turbo builds; the CPU's default): the factor chosen, and the result
# against OpenCV's reduced read (the same DCT scaling) resized with INTER_AREA
# (tests/jpeg/make_jpegs.py); --exact decodes whole. (The list is read without a pipe, so that a
# failure inside the loop counts.)
if "$GPUIMG" --version | grep -q "libjpeg-turbo"; then
    grep -v '^#' "$TOP_SRCDIR/tests/jpeg/SHRINK" >"$T/shrink.list"
    while read -r in pipe f want tol; do
        for how in "" --shrink-on-load; do
            "$GPUIMG" -v -f --backend=cpu $how "$pipe" "$TOP_SRCDIR/tests/jpeg/$in" "$T/shrunk.png" 2>"$T/err" \
                && grep -q "shrunk 1/$f on load" "$T/err" && ok || bad "$in ${how:-(default)}: not shrunk 1/$f on load: $(cat "$T/err")"
            "$dir/golden_test" --diff "$T/shrunk.png" "$TOP_SRCDIR/tests/jpeg/$want" "$tol" >"$T/log" && ok \
                || bad "$in ${how:-(default)} $pipe: $(cat "$T/log")"
        done
        "$GPUIMG" -v -f --backend=cpu --exact "$pipe" "$TOP_SRCDIR/tests/jpeg/$in" "$T/full.png" 2>"$T/err" \
            && ! grep -q "on load" "$T/err" && ok || bad "$in: shrunk on load with --exact"
        rm -f "$T/shrunk.png" "$T/full.png"
    done <"$T/shrink.list"
    [ "$(grep -c . "$T/shrink.list")" -ge 2 ] && ok || bad "tests/jpeg/SHRINK lists no cases"
    # a pipeline whose resize comes after a step that is not pointwise is not shrunk
    "$GPUIMG" -v --backend=cpu --shrink-on-load blur=1,resize=37x25! "$TOP_SRCDIR/tests/jpeg/shrink-gray.jpg" \
        "$T/b.png" 2>"$T/err" && ! grep -q "on load" "$T/err" && ok || bad "blur then resize was shrunk on load"
    # a phone's photograph (EXIF orientation 6) shrinks on load as well: the decoder's scaling
    # comes before the turn upright, then the resize; within the tolerance of the full decode
    exif_jpeg "$TOP_SRCDIR/samples/path-640x400.jpg" MM 6 >"$T/phone6.jpg"
    "$GPUIMG" -v -f --backend=cpu resize=60x "$T/phone6.jpg" "$T/p6.png" 2>"$T/err" \
        && grep -q "shrunk 1/2 on load, EXIF orientation 6 turned upright) -> .* (60x96 " "$T/err" && ok \
        || bad "orientation 6 and a resize: not shrunk 1/2, or not upright: $(cat "$T/err")"
    "$GPUIMG" -q -f --backend=cpu --exact resize=60x "$T/phone6.jpg" "$T/p6-exact.png" \
        && "$dir/golden_test" --diff "$T/p6.png" "$T/p6-exact.png" 24 1.0 40 >"$T/log" && ok \
        || bad "orientation 6, shrunk against --exact: $(cat "$T/log")"
    # CMYK is decoded whole (scaled before its conversion it lands further off)
    "$GPUIMG" -v -f --backend=cpu resize=25% "$TOP_SRCDIR/tests/jpeg/cmyk.jpg" "$T/cmyk.png" 2>"$T/err" \
        && ! grep -q "on load" "$T/err" && ok || bad "a CMYK JPEG was shrunk on load: $(cat "$T/err")"
    # --compare times the pipeline on the whole image its header names
    "$GPUIMG" --compare --repeat=1 --backend=cpu resize=25% "$TOP_SRCDIR/samples/path-640x400.jpg" "$T/cmp.png" \
        >"$T/cmp.out" 2>&1 && "$GPUIMG" -q -f --backend=cpu --exact resize=25% "$TOP_SRCDIR/samples/path-640x400.jpg" \
        "$T/cmp-exact.png" && cmp -s "$T/cmp.png" "$T/cmp-exact.png" && ok \
        || bad "--compare's output is not the full decode's: $(cat "$T/cmp.out")"
    # the default against the full decode on a photograph, within what the man page states
    # (--shrink-on-load: 24 levels at most, 1.0 on average, PSNR 40 dB or more)
    for pipe in resize=25% gray,resize=160x resize=100x60; do
        "$GPUIMG" -q -f --backend=cpu "$pipe" "$TOP_SRCDIR/samples/path-640x400.jpg" "$T/def.png" \
            && "$GPUIMG" -q -f --backend=cpu --exact "$pipe" "$TOP_SRCDIR/samples/path-640x400.jpg" "$T/exact.png" \
            && "$dir/golden_test" --diff "$T/def.png" "$T/exact.png" 24 1.0 40 >"$T/log" && ok \
            || bad "path-640x400.jpg $pipe: the default's shrink on load against --exact: $(cat "$T/log")"
        ! cmp -s "$T/def.png" "$T/exact.png" && ok || bad "$pipe: the default and --exact gave the same bytes (no shrink?)"
    done
fi
# and through the command line, from stdin too
"$GPUIMG" -q --backend=cpu transpose - "$T/o.png" <"$TOP_SRCDIR/tests/formats/image.psd" && ok || bad "PSD from stdin"
# JPEG and PNM hold no alpha: grey+alpha and RGBA are flattened onto --background (white by
# default), (c a + b (top - a) + top / 2) / top, then for JPEG 16 bits rounded to 8. numpy flattens
# the same input independently; gpuimg's JPEG of that must be the same file, byte for byte (same
# encoder, same pixels), and its PNM the same pixels. The transparent columns hide colour the
# outputs must not show.
if command -v python3 >/dev/null 2>&1 && python3 -c 'import cv2, numpy' 2>/dev/null; then
    for spec in "4 8 white" "4 16 #336699" "2 8 10,20,30" "2 16 black" "4 8 #fff"; do
        set -- $spec
        "$MKIMG" 37 23 $1 $2 "$T/fa.png" 9 6 1 || exit 99
        expect_ok -q -f --jpeg-quality=100 --jpeg-sampling=444 --background="$3" copy "$T/fa.png" "$T/fa.jpg" || continue
        expect_ok -q -f --background="$3" copy "$T/fa.png" "$T/fa.pnm" || continue
        python3 - "$T/fa.png" "$T/fref.png" "$3" "$T/fref-deep.png" <<'PY' || { bad "flatten reference $spec"; continue; }
import sys, cv2, numpy as np
a = cv2.imread(sys.argv[1], cv2.IMREAD_UNCHANGED)   # BGRA (grey+alpha comes as BGRA too)
top = 65535 if a.dtype == np.uint16 else 255
c = sys.argv[3]
names = {"white": (255, 255, 255), "black": (0, 0, 0)}
if c in names:
    rgb = names[c]
elif c.startswith("#"):
    h = c[1:] if len(c) == 7 else "".join(ch * 2 for ch in c[1:])
    rgb = tuple(int(h[i:i + 2], 16) for i in (0, 2, 4))
else:
    rgb = tuple(int(v) for v in c.split(","))
grey = len(sys.argv[1]) and np.array_equal(a[..., 0], a[..., 1]) and np.array_equal(a[..., 1], a[..., 2])
al = a[..., 3].astype(np.uint64)
if grey:
    bg = [((9798 * rgb[0] + 19235 * rgb[1] + 3735 * rgb[2] + 16384) >> 15) * (top // 255)]
    col = [a[..., 0]]
else:
    bg = [v * (top // 255) for v in rgb]
    col = [a[..., 2], a[..., 1], a[..., 0]]   # R, G, B
out = [((ch.astype(np.uint64) * al + b * (top - al) + top // 2) // top) for ch, b in zip(col, bg)]
d = np.dstack(out).astype(a.dtype)
cv2.imwrite(sys.argv[4], d[..., 0] if grey else d[..., ::-1])
if top == 65535:
    out = [(v + 128) // 257 for v in out]
o = np.dstack(out).astype(np.uint8)
cv2.imwrite(sys.argv[2], o[..., 0] if grey else o[..., ::-1])
PY
        expect_ok -q -f --jpeg-quality=100 --jpeg-sampling=444 copy "$T/fref.png" "$T/fref.jpg" \
            && cmp -s "$T/fa.jpg" "$T/fref.jpg" && ok || bad "flattened onto $3 ($1 channels, $2 bits): not numpy's"
        "$GPUIMG" -q -f copy "$T/fa.pnm" "$T/fa-pnm.png" && "$dir/golden_test" --diff "$T/fa-pnm.png" "$T/fref-deep.png" 0 \
            >"$T/log" && ok || bad "PNM flattened onto $3 ($1 channels, $2 bits): not numpy's: $(cat "$T/log")"
    done
    # an RGBA PNG, red hidden under alpha 0 on the left, opaque green on the right: its JPEG and PPM
    # show the background on the left (OpenCV reads them back), by the CPU and the backend auto
    # picks (a GPU's flatten where there is one); BMP keeps grey+alpha's alpha (as RGBA)
    python3 -c '
import sys, cv2, numpy as np
a = np.zeros((24, 32, 4), np.uint8)
a[:, :16] = (0, 0, 255, 0)       # BGRA: red, transparent
a[:, 16:] = (0, 255, 0, 255)     # green, opaque
cv2.imwrite(sys.argv[1], a)
v, al = np.meshgrid(np.arange(32) * 7, np.arange(24) * 10)
cv2.imwrite(sys.argv[2], np.dstack([v, v, v, al]).astype(np.uint8))   # grey in RGBA: gray makes grey+alpha
' "$T/hidden.png" "$T/ga-in.png" || bad "hidden colour input"
    "$GPUIMG" -q -f gray "$T/ga-in.png" "$T/ga.png" || bad "grey+alpha input"
    for backend in cpu auto; do
        for bg in white "#3366cc" 200,100,0; do
            expect_ok -q -f --backend=$backend --jpeg-quality=95 --background="$bg" copy "$T/hidden.png" "$T/h.jpg" \
                && expect_ok -q -f --backend=$backend --background="$bg" copy "$T/hidden.png" "$T/h.ppm" || continue
            python3 - "$T/h.jpg" "$T/h.ppm" "$bg" <<'PY' && ok || bad "$backend: RGBA with hidden red to JPEG and PPM on $bg"
import sys, cv2, numpy as np
bg = {"white": (255, 255, 255), "#3366cc": (0x33, 0x66, 0xcc)}.get(sys.argv[3])
bg = bg or tuple(int(v) for v in sys.argv[3].split(","))
for path, tol in ((sys.argv[1], 6), (sys.argv[2], 0)):
    o = cv2.imread(path, cv2.IMREAD_UNCHANGED)[..., ::-1].astype(int)   # RGB
    left, right = o[:, 2:14], o[:, 18:30]
    if o.shape != (24, 32, 3) or np.abs(left - bg).max() > tol or np.abs(right - (0, 255, 0)).max() > tol:
        sys.exit("%s: %s left %s right %s" % (path, o.shape, left[0, 0], right[0, 0]))
PY
        done
    done
    "$GPUIMG" -v -f --background=#3366cc copy "$T/hidden.png" "$T/h.jpg" 2>"$T/err" \
        && grep -q "flatten=#3366cc (--background: JPEG holds no alpha)" "$T/err" && ok || bad "-v does not say the flatten: $(cat "$T/err")"
    expect_ok -q -f copy "$T/ga.png" "$T/ga.bmp" && python3 -c '
import sys, cv2, numpy as np
a, b = (cv2.imread(p, cv2.IMREAD_UNCHANGED) for p in sys.argv[1:3])
sys.exit(0 if b.ndim == 3 and b.shape[2] == 4 and np.array_equal(a, b) else "%s: %s" % (sys.argv[2], b.shape))
' "$T/ga.png" "$T/ga.bmp" && ok || bad "grey+alpha to BMP does not keep its alpha"
fi
# the writer alone (tests/mkimg writes through it) refuses alpha where the format has none: nothing dropped silently
for f in x.jpg x.pgm; do
    if "$MKIMG" 5 4 2 8 "$T/$f" 2>"$T/err"; then
        bad "$f: alpha written into a format without"
    elif grep -q "holds no alpha and the image has one (grey+alpha)" "$T/err" && [ ! -e "$T/$f" ]; then
        ok
    else
        bad "$f with alpha: $(cat "$T/err")"
    fi
done
expect_fail 2 "--background: a colour is a name \\(white, black, .*\\), #rgb, #rrggbb, #rrggbbaa, R,G,B or R,G,B,A \\(0 to 255 each\\), not '#12'" \
    --background='#12' copy "$T/fa.png" "$T/x.jpg"
expect_fail 2 "--background: .* not '1,2,300'" --background=1,2,300 copy "$T/fa.png" "$T/x.jpg"
expect_fail 2 "--background: the colour must be opaque \\(what it fills holds no alpha\\), not 'transparent'" \
    --background=transparent copy "$T/fa.png" "$T/x.jpg"

# The format libraries and nvCOMP are loaded at their first use (src/core/dynlib.h), not at every
# process start, where libjxl's and libheif's constructors alone cost milliseconds a command: a
# PNG to JPEG command loads none of them; a TIFF, HEIF or JPEG XL file loads its own.
loaded() { LD_DEBUG=files "$GPUIMG" "$@" 2>&1 >/dev/null | sed -n 's/.*file=\([^ ]*\/\)\{0,1\}\(lib[a-z_0-9]*\)\.so.*/\2/p' | sort -u | tr '\n' ' '; }
got=$(loaded -q -f --backend=cpu gray "$TOP_SRCDIR/tests/formats/baseline.jpg" "$T/lazy.png")
case $got in
"") echo "SKIP: the loader's LD_DEBUG is not glibc's: which libraries load is not checked" ;;
*libheif*|*libjxl*|*libtiff*|*libnvcomp*|*libde265*|*libhwy*) bad "a JPEG to PNG command loads format libraries it does not use: $got" ;;
*) ok ;;
esac
# a library this build has must load: the suites of its formats would skip, not fail
"$GPUIMG" --version | grep -q 'cannot be loaded' && bad "a library cannot be loaded: $("$GPUIMG" --version | grep -o '[a-z0-9]* (cannot be loaded)' | sort -u | tr '\n' ' ')"
for f in "$TOP_SRCDIR/tests/heif/rgb8.heic:libheif" "$TOP_SRCDIR/tests/jxl/rgb8.jxl:libjxl"; do
    [ -f "${f%:*}" ] && "$GPUIMG" --version | grep -q "${f#*:} [0-9]" || continue
    case $(loaded info "${f%:*}") in *"${f#*:} "*) ok ;; "") ;; *) bad "info ${f%:*} did not load ${f#*:}" ;; esac
done
finish
