# gpuimg tests: JPEG XL in and out (builds with libjxl; SKIP, said, without it).
# - Read: files made by cjxl (tests/jxl/make_jxl.py, libjxl-tools): lossless 8-bit RGB, grey and
#   16-bit RGB exactly as their sources, lossy RGB and RGBA within 1 level of djxl's own decoding,
#   32-bit floats as 16 bits within 1 level of djxl's 16-bit decoding, a recompressed JPEG whose
#   codestream says orientation 6 turned as djxl turns it (its EXIF's orientation made 1, its XMP
#   kept), an animation's first frame exactly ("frame 1 of 3" said by -v, --json and info), an
#   Adobe RGB profile kept byte for byte; each in the geometry the man page states.
# - Write (where djxl is installed: libjxl-tools): every layout, 8 and 16 bits, 33x17, lossless
#   (--jxl-distance=0) decoded by djxl to exactly the source; lossy (the default distance, 1.0)
#   decoded by djxl to within PSNR 34 dB of the source (measured 36.7 to 50) and to what gpuimg
#   reads back (within 1 level; measured equal); --jxl-distance and --jxl-effort change the file; --format=jxl; a bare codestream
#   without metadata.
# - Metadata: an ICC profile through lossless JPEG XL and back, byte for byte (djxl's and gpuimg's
#   reading); a lossy one read back as sRGB within 10 levels of LittleCMS's conversion (Pillow's,
#   tests/icc); EXIF and XMP written as Exif and xml boxes (read by tests/meta.py and jxlinfo) and
#   read back; EXIF's orientation written as the codestream's; --strip writes none; a profile
#   libjxl cannot read is left out (sRGB).
# - gpuimg info from a large file's head: its metadata boxes read, its frames not decoded.
# - Bad input: cut files, garbage after the signature, a header of 2^30 x 2^30 and one of
#   16384x16384 in 8 bytes: one line naming the file, exit 1, no output. --max-expansion counts
#   the planes libjxl decodes beside the pixels.
. "${TOP_SRCDIR:-.}/tests/lib.sh"
S=${TOP_SRCDIR:-.}
J="$S/tests/jxl"
if ! "$GPUIMG" --version | grep -q 'libjxl [0-9.]* (JPEG XL)'; then
    echo "SKIP: no libjxl in this build (install libjxl-dev, configure again)"
    exit 77
fi
py=0
command -v python3 >/dev/null 2>&1 && py=1
meta() { python3 "$S/tests/meta.py" "$@"; }
djxl=0
command -v djxl >/dev/null 2>&1 && djxl=1 || echo "note: no djxl (libjxl-tools): gpuimg's files are not decoded independently"

# read: against the sources and djxl's decodings
for spec in "rgb8 67x45 c3 d8 1" "rgba8 67x45 c4 d8 1" "grey8 33x17 c1 d8 0" "rgb16 33x17 c3 d16 0" \
    "lossless 67x45 c3 d8 0" "float 33x17 c3 d16 1" "orient 17x33 c3 d8 0" "anim 33x17 c4 d8 0"; do
    set -- $spec
    run -q -f --json="$T/j.json" copy "$J/$1.jxl" "$T/$1.png"
    [ "$RC" -eq 0 ] || { bad "$1.jxl: $(cat "$ERR")"; continue; }
    [ "$(json_geom "$T/j.json")" = "$2 $3 $4" ] && ok || bad "$1.jxl read as $(json_geom "$T/j.json"), not $2 $3 $4"
    if [ "$5" = 0 ]; then
        within "$T/$1.png" "$J/want-$1.png" 0 0 99 "$1.jxl against its source"
    else   # 16-bit floats: 1 of 65535
        within "$T/$1.png" "$J/want-$1.png" 1 1 40 "$1.jxl against djxl's decoding"
    fi
done
expect_ok -q -f --json="$T/j.json" copy "$J/icc.jxl" "$T/icc.png"
within "$T/icc.png" "$S/tests/icc/adobe-rgb8.png" 0 0 99 "icc.jxl against its source"
run -v -f --backend=cpu --json="$T/a.json" copy "$J/anim.jxl" "$T/anim.png"
[ "$RC" -eq 0 ] && grep -q "anim.jxl (33x17 RGBA 8-bit, libjxl [0-9.]*, frame 1 of 3)" "$ERR" \
    && grep -q '"frames": 3' "$T/a.json" && ok || bad "animated JPEG XL: exit $RC: $(cat "$ERR")"
run info "$J/anim.jxl" "$J/orient.jxl" "$J/icc.jxl" "$J/rgb16.jxl"
[ "$RC" -eq 0 ] && grep -q "anim.jxl: JPEG XL 33x17 RGBA 8-bit, 3 frames (307 bytes)$" "$OUT" \
    && grep -q "orient.jxl: JPEG XL 17x33 RGB 8-bit; exif 26 bytes, xmp 317 bytes (1066 bytes)$" "$OUT" \
    && grep -q "icc.jxl: JPEG XL 61x37 RGB 8-bit; icc 580 bytes (1219 bytes)$" "$OUT" \
    && grep -q "rgb16.jxl: JPEG XL 33x17 RGB 16-bit (678 bytes)$" "$OUT" && ok || bad "info: $(cat "$OUT" "$ERR")"
if [ $py = 1 ]; then
    [ "$(meta show "$T/icc.png" | cut -d' ' -f1)" = "$(meta show "$S/tests/icc/adobe-rgb8.png" | cut -d' ' -f1)" ] \
        && ok || bad "icc.jxl's profile: $(meta show "$T/icc.png"), want $(meta show "$S/tests/icc/adobe-rgb8.png")"
    # the codestream turned it: EXIF says 1 in the output; its XMP kept
    [ "$(meta show "$T/orient.png")" = "icc=none exif=26 orient=1 density=none" ] && ok || bad "orient.jxl's EXIF: $(meta show "$T/orient.png")"
    meta pieces-show "$T/orient.png" | grep -q "xmp=[0-9a-f]\{8\}" && ok || bad "orient.jxl's XMP: $(meta pieces-show "$T/orient.png")"
fi

# write, every layout, and read back by djxl and by gpuimg
for spec in "1 8" "2 8" "3 8" "4 8" "1 16" "2 16" "3 16" "4 16"; do
    set -- $spec
    "$MKIMG" 33 17 $1 $2 "$T/in.png" 5 || exit 99
    expect_ok -q -f --jxl-distance=0 copy "$T/in.png" "$T/l.jxl" || continue
    expect_ok -q -f --json="$T/j.json" copy "$T/l.jxl" "$T/l.png" && within "$T/l.png" "$T/in.png" 0 0 99 "lossless $spec read back"
    [ "$(json_geom "$T/j.json")" = "33x17 c$1 d$2" ] && ok || bad "lossless $spec read as $(json_geom "$T/j.json")"
    if [ $djxl = 1 ]; then
        djxl "$T/l.jxl" "$T/l-djxl.png" >/dev/null 2>&1 && within "$T/l-djxl.png" "$T/in.png" 0 0 99 "lossless $spec by djxl" \
            || bad "djxl cannot decode lossless $spec"
    fi
    "$GPUIMG" -q -f resize=200% "$T/in.png" "$T/src.png" || exit 99   # smooth: a lossy codec's kind of image
    expect_ok -q -f copy "$T/src.png" "$T/o.jxl" || continue
    expect_ok -q -f --json="$T/j.json" copy "$T/o.jxl" "$T/back.png"
    [ "$(json_geom "$T/j.json")" = "66x34 c$1 d$2" ] && ok || bad "lossy $spec read as $(json_geom "$T/j.json")"
    if [ $djxl = 1 ]; then
        djxl "$T/o.jxl" "$T/o-djxl.png" --bits_per_sample=$2 >/dev/null 2>&1 || bad "djxl cannot decode lossy $spec"
        within "$T/o-djxl.png" "$T/src.png" 65535 65535 34 "lossy $spec by djxl: PSNR"
        within "$T/back.png" "$T/o-djxl.png" 1 1 40 "lossy $spec: gpuimg's reading against djxl's"
    fi
done
expect_ok -q -f --format=jxl copy "$J/want-lossless.png" "$T/fmt.out"
[ "$(od -An -tx1 -N2 "$T/fmt.out" | tr -d ' ')" = "ff0a" ] && ok || bad "--format=jxl: not a bare JPEG XL codestream"
"$GPUIMG" -q -f crop=160x100+200+150 "$S/samples/elarun-640x400.png" "$T/photo.png" || exit 99
"$GPUIMG" -q -f --jxl-distance=0.5 copy "$T/photo.png" "$T/d05.jxl" \
    && "$GPUIMG" -q -f --jxl-distance=4 copy "$T/photo.png" "$T/d4.jxl" || bad "--jxl-distance"
[ "$(wc -c <"$T/d4.jxl")" -lt "$(wc -c <"$T/d05.jxl")" ] && ok || bad "--jxl-distance=4 is not smaller than 0.5"
"$GPUIMG" -q -f --jxl-distance=0 --jxl-effort=1 copy "$T/photo.png" "$T/e1.jxl" \
    && "$GPUIMG" -q -f --jxl-distance=0 --jxl-effort=9 copy "$T/photo.png" "$T/e9.jxl" || bad "--jxl-effort"
[ "$(wc -c <"$T/e9.jxl")" -lt "$(wc -c <"$T/e1.jxl")" ] && ok || bad "--jxl-effort=9 is not smaller than 1"
expect_fail 2 "--jxl-distance: expected a number from 0 to 25, not '26'" --jxl-distance=26 copy "$T/src.png" "$T/x.jxl"
expect_fail 2 "--jxl-effort: expected a whole number from 1 to 9, not '0'" --jxl-effort=0 copy "$T/src.png" "$T/x.jxl"

# metadata
if [ $djxl = 1 ] && [ $py = 1 ]; then   # an ICC profile, lossless: byte for byte both ways
    expect_ok -q -f --jxl-distance=0 copy "$S/tests/icc/adobe-rgb8.png" "$T/a0.jxl"
    djxl "$T/a0.jxl" "$T/a0.png" --orig_icc_out="$T/a0.icc" >/dev/null 2>&1
    want=$(meta show "$S/tests/icc/adobe-rgb8.png" | sed 's/icc=\([^ ]*\).*/\1/')
    got=$(python3 -c 'import sys, zlib; d = open(sys.argv[1], "rb").read(); print("%d:%08x" % (len(d), zlib.crc32(d)))' "$T/a0.icc")
    [ "$got" = "$want" ] && ok || bad "the profile through JPEG XL, by djxl: $got, want $want"
    expect_ok -q -f copy "$T/a0.jxl" "$T/a0-back.png"
    [ "$(meta show "$T/a0-back.png" | cut -d' ' -f1)" = "icc=$want" ] && ok || bad "the profile read back: $(meta show "$T/a0-back.png")"
fi
# lossy, with a profile: XYB, read as sRGB (no profile), near LittleCMS's conversion to sRGB
expect_ok -q -f --jxl-distance=0.1 copy "$S/tests/icc/adobe-rgb8.png" "$T/a1.jxl" \
    && expect_ok -q -f copy "$T/a1.jxl" "$T/a1.png" && within "$T/a1.png" "$S/tests/icc/want-rgb8.png" 10 1 35 "lossy Adobe RGB read as sRGB"
[ $py = 1 ] && { [ "$(meta show "$T/a1.png" | cut -d' ' -f1)" = "icc=none" ] && ok || bad "lossy JPEG XL read as sRGB keeps a profile"; }
if [ $py = 1 ]; then   # EXIF (a GPS directory among it) and XMP as boxes, and back; IPTC and the comment have no place
    "$GPUIMG" -q -f crop=61x37 "$S/samples/path-640x400.jpg" "$T/base.jpg" && meta pieces "$T/base.jpg" "$T/pieces.jpg" || exit 99
    expect_ok -q -f copy "$T/pieces.jpg" "$T/p.jxl" && expect_ok -q -f copy "$T/p.jxl" "$T/p.png"
    src=$(meta pieces-show "$T/pieces.jpg")
    xmp=$(echo "$src" | sed 's/.*xmp=\([^ ]*\).*/\1/')
    [ "$(meta pieces-show "$T/p.jxl")" = "exif=yes gps=yes gpsbytes=yes xmp=$xmp iptc=none comment=none icc=none" ] \
        && ok || bad "pieces in the JPEG XL's boxes: $(meta pieces-show "$T/p.jxl")"
    [ "$(meta pieces-show "$T/p.png")" = "exif=yes gps=yes gpsbytes=yes xmp=$xmp iptc=none comment=none icc=none" ] \
        && ok || bad "pieces read back from JPEG XL: $(meta pieces-show "$T/p.png")"
    command -v jxlinfo >/dev/null 2>&1 && { jxlinfo "$T/p.jxl" | grep -q "Exif metadata" && jxlinfo "$T/p.jxl" | grep -q "xml  metadata" \
        && ok || bad "jxlinfo finds no Exif or xml box: $(jxlinfo "$T/p.jxl")"; }
    expect_ok -q -f --strip=gps,xmp copy "$T/pieces.jpg" "$T/s.jxl"
    [ "$(meta pieces-show "$T/s.jxl")" = "exif=yes gps=no gpsbytes=no xmp=none iptc=none comment=none icc=none" ] \
        && ok || bad "--strip=gps,xmp: $(meta pieces-show "$T/s.jxl")"
    expect_ok -q -f --strip copy "$T/pieces.jpg" "$T/s.jxl"
    [ "$(od -An -tx1 -N2 "$T/s.jxl" | tr -d ' ')" = "ff0a" ] && ok || bad "--strip: not a bare codestream"
    # EXIF's orientation becomes the codestream's: a phone photo kept unturned is turned by readers
    meta jpeg "$T/base.jpg" "$T/m6.jpg" 6 72 72 || exit 99
    expect_ok -q -f --no-auto-orient copy "$T/m6.jpg" "$T/m6.jxl" && expect_ok -q -f --json="$T/j.json" copy "$T/m6.jxl" "$T/m6.png"
    [ "$(json_geom "$T/j.json")" = "37x61 c3 d8" ] && [ "$(meta show "$T/m6.png" | cut -d' ' -f2-3)" = "exif=26 orient=1" ] \
        && ok || bad "EXIF orientation 6 through JPEG XL: $(json_geom "$T/j.json"), $(meta show "$T/m6.png")"
    [ $djxl = 1 ] && { djxl "$T/m6.jxl" "$T/m6-djxl.png" >/dev/null 2>&1 && within "$T/m6-djxl.png" "$T/m6.png" 1 1 40 "orientation 6: djxl turns it as gpuimg"; }
fi

# info from a file's first 128 KiB: the metadata boxes before a codestream that ends the file
"$MKIMG" 300 300 3 8 "$T/noise.png" 5 || exit 99
if [ $py = 1 ]; then
    meta png "$T/noise.png" "$T/noise-m.png" 1 72 72 && expect_ok -q -f --jxl-distance=0 --jxl-effort=1 copy "$T/noise-m.png" "$T/big.jxl"
    [ "$(wc -c <"$T/big.jxl")" -gt 131072 ] || bad "big.jxl is not past info's head"
    run info "$T/big.jxl"
    grep -q "big.jxl: JPEG XL 300x300 RGB 8-bit; exif 26 bytes ([0-9]* bytes)$" "$OUT" && ok || bad "info of a large JPEG XL: $(cat "$OUT" "$ERR")"
fi

# cut and damaged: one line naming the file, no output
"$GPUIMG" -q -f --jxl-distance=0 copy "$T/noise.png" "$T/good.jxl" || exit 99
n=$(wc -c <"$T/good.jxl")
head -c $((n / 2)) "$T/good.jxl" >"$T/cut.jxl"
expect_fail 1 "cut\\.jxl: truncated JPEG XL: the file ends before its image does$" copy "$T/cut.jxl" "$T/cut-out.png"
[ ! -e "$T/cut-out.png" ] && ok || bad "a cut JPEG XL left an output"
head -c 100 "$J/anim.jxl" >"$T/cut-anim2.jxl"
expect_fail 1 "cut-anim2\\.jxl: truncated JPEG XL: the file ends before its last frame$" copy "$T/cut-anim2.jxl" "$T/x.png"
head -c 3 "$J/rgb8.jxl" >"$T/cut-head.jxl"
expect_fail 1 "cut-head\\.jxl: truncated JPEG XL: the file ends in its header$" copy "$T/cut-head.jxl" "$T/x.png"
{ head -c 2 "$T/good.jxl"; head -c 3000 "$T/good.jxl" | tail -c 2000 | tr '\000-\377' '\377\000-\376'; } >"$T/garbage.jxl"
expect_fail 1 "garbage\\.jxl: (invalid|corrupt|truncated) JPEG XL|garbage\\.jxl: cannot decode JPEG XL" copy "$T/garbage.jxl" "$T/x.png"
{ head -c 12 "$J/orient.jxl"; head -c 400 /dev/zero; } >"$T/zeroed.jxl"
expect_fail 1 "zeroed\\.jxl: .*JPEG XL" copy "$T/zeroed.jxl" "$T/x.png"
# headers alone (SizeHeader and all-default metadata, bits from the least significant): 2^30 a
# side, over --max-pixels; 16384x16384 in 8 bytes, a decompression bomb
printf '\377\012\376\377\377\377\361\377\377\377\037' >"$T/huge.jxl"
expect_fail 1 "huge\\.jxl: image is 1073741824x1073741824 \\([0-9]* pixels\\), over the limit of 268435456 pixels \\(--max-pixels\\)$" \
    copy "$T/huge.jxl" "$T/x.png"
printf '\377\012\374\377\001\376\377\020' >"$T/bomb.jxl"
expect_fail 1 "bomb\\.jxl: decoding this 16384x16384 image takes [0-9]* MiB, over 64 times the file's 8 bytes: a decompression bomb. \\(--max-expansion=0" \
    copy "$T/bomb.jxl" "$T/x.png"
# --max-expansion counts libjxl's planes beside the pixels (12 bytes a pixel, 16 more for alpha):
# a flat grey+alpha image of 1495x1495 (under 64 MiB so counted) is read, 1496x1496 is not
for n in 1495 1496; do
    "$MKBAD" flat png $n $n 2 "$T/flat$n.png" && "$GPUIMG" -q -f copy "$T/flat$n.png" "$T/flat$n.jxl" || exit 99
done
expect_ok -q -f copy "$T/flat1495.jxl" "$T/flat.png"
expect_fail 1 "flat1496\.jxl: decoding this 1496x1496 image takes 65 MiB, over 64 times the file's [0-9]* bytes" copy "$T/flat1496.jxl" "$T/x.png"
[ ! -e "$T/x.png" ] && ok || bad "a damaged JPEG XL left an output"
finish
