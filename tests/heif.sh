# gpuimg tests: HEIC and AVIF in and out (builds with libheif; SKIP, said, without it).
# - Read: HEIC (8-bit RGB and RGBA, 10-bit) and AVIF files made by other encoders
#   (tests/heif/make_heif.py: pillow-heif's x265, Pillow's libavif) decode within 2 levels of
#   those programs' own decoders (libde265 and YCbCr-to-RGB of another libheif; dav1d through
#   libavif): want-*.png. 10-bit samples scale to 16 bits as the man page says.
# - Write: RGB, RGBA, grey and 16-bit images to .heic and .avif (--format too): ISO media with the
#   brand, the layout the man page states (grey as RGB, 8 bits, alpha kept), read back within the
#   lossy codec's reach (PSNR >= 30 dB at the default quality); --heif-quality changes the size.
# - Metadata: a JPEG's ICC profile and EXIF go through HEIC and come back out; a phone photo
#   (orientation 6) is turned once, its EXIF orientation 1 in the HEIC.
# - Cut and damaged files: one line naming the file (libheif's reason, read before its context is
#   freed), exit 1, no output; an item table of more than 1000 items refused before libheif.
. "${TOP_SRCDIR:-.}/tests/lib.sh"
H="${TOP_SRCDIR:-.}/tests/heif"
if ! "$GPUIMG" --version | grep -q 'libheif [0-9.]* (HEIC, AVIF)'; then
    echo "SKIP: no libheif in this build (install libheif-dev, configure again)"
    exit 77
fi

# read: against the independent decoders
for f in rgb8.heic rgba8.heic rgb10.heic rgb8.avif; do
    want="$H/want-${f%.*}-${f#*.}.png"
    run -q -f --json="$T/j.json" copy "$H/$f" "$T/o.png"
    [ "$RC" -eq 0 ] || { bad "$f: $(cat "$ERR")"; continue; }
    within "$T/o.png" "$want" 2 0.5 40 "$f against its independent decoding"
    case $f in
    rgba8*) g="67x45 c4 d8" ;; rgb10*) g="67x45 c3 d16" ;; *) g="67x45 c3 d8" ;;
    esac
    [ "$(json_geom "$T/j.json")" = "$g" ] && ok || bad "$f read as $(json_geom "$T/j.json"), not $g"
done

# write, every layout, and read back
for spec in "3 8" "4 8" "1 8" "3 16" "2 16"; do
    set -- $spec
    "$MKIMG" 61 37 $1 $2 "$T/in.png" 5 6 || exit 99
    "$GPUIMG" -q -f resize=200% "$T/in.png" "$T/src.png" || exit 99   # smooth: a lossy codec's kind of image
    for ext in heic avif; do
        expect_ok -q -f copy "$T/src.png" "$T/o.$ext" || continue
        brand=$(dd if="$T/o.$ext" bs=1 skip=4 count=8 2>/dev/null)
        [ "$brand" = "ftyp$ext" ] && ok || bad "$ext brand: $brand"
        expect_ok -q -f --json="$T/j.json" copy "$T/o.$ext" "$T/back.png" || continue
        c=$([ "$1" = 2 ] || [ "$1" = 4 ] && echo 4 || echo 3)
        [ "$(json_geom "$T/j.json")" = "122x74 c$c d8" ] && ok || bad "$ext of $spec read as $(json_geom "$T/j.json")"
        # the reference: the source as the encoder takes it (grey as RGB, 8 bits)
        "$GPUIMG" -q -f --format=webp --webp-lossless copy "$T/src.png" "$T/ref.webp" && "$GPUIMG" -q -f copy "$T/ref.webp" "$T/ref.png"
        within "$T/back.png" "$T/ref.png" 255 255 30 "$ext of $spec: PSNR"
    done
done
expect_ok -q -f --format=avif copy "$T/src.png" "$T/fmt.out"
[ "$(dd if="$T/fmt.out" bs=1 skip=4 count=8 2>/dev/null)" = "ftypavif" ] && ok || bad "--format=avif"
"$GPUIMG" -q -f --heif-quality=10 copy "$H/want-rgb8-heic.png" "$T/q10.heic" \
    && "$GPUIMG" -q -f --heif-quality=90 copy "$H/want-rgb8-heic.png" "$T/q90.heic" || bad "--heif-quality"
[ "$(wc -c <"$T/q10.heic")" -lt "$(wc -c <"$T/q90.heic")" ] && ok || bad "--heif-quality=10 is not smaller than 90"

# metadata through HEIC: the profile and EXIF kept, a phone photo turned once
if command -v python3 >/dev/null 2>&1; then
    "$GPUIMG" -q -f copy "$H/want-rgb8-heic.png" "$T/base.jpg" || exit 99
    python3 "${TOP_SRCDIR:-.}/tests/meta.py" jpeg "$T/base.jpg" "$T/m.jpg" 6 72 72 || exit 99
    expect_ok -q -f copy "$T/m.jpg" "$T/m.heic" && expect_ok -q -f --json="$T/j.json" copy "$T/m.heic" "$T/m.png" \
        && expect_ok -q -f copy "$T/m.jpg" "$T/direct.png"
    [ "$(json_geom "$T/j.json")" = "45x67 c3 d8" ] && ok || bad "orientation 6 through HEIC: $(json_geom "$T/j.json")"
    a=$(python3 "${TOP_SRCDIR:-.}/tests/meta.py" show "$T/m.png" | sed 's/ density=.*//')
    b=$(python3 "${TOP_SRCDIR:-.}/tests/meta.py" show "$T/direct.png" | sed 's/ density=.*//')
    [ -n "$a" ] && [ "$a" = "$b" ] && case $a in *icc=none* | *exif=none*) false ;; *orient=1*) true ;; *) false ;; esac \
        && ok || bad "metadata through HEIC: $a; directly: $b"
fi

# an item table past 1000 items is refused before libheif reads it (its reading grows with the
# square of the items); 901 decode
if command -v python3 >/dev/null 2>&1; then
    "$MKBAD" flat png 64 64 3 "$T/flat64.png" && "$GPUIMG" -q -f --heif-quality=0 copy "$T/flat64.png" "$T/flat64.heic" \
        && python3 "$H/mkgrid.py" "$T/flat64.heic" 40 40 2560 2560 "$T/grid1601.heic" \
        && python3 "$H/mkgrid.py" "$T/flat64.heic" 30 30 1920 1920 "$T/grid901.heic" || exit 99
    expect_fail 1 "grid1601\\.heic: a HEIF of 1601 items \\(gpuimg reads up to 1000\\)$" copy "$T/grid1601.heic" "$T/g.png"
    run -q -f --json="$T/j.json" copy "$T/grid901.heic" "$T/g.png"
    [ "$RC" -eq 0 ] && [ "$(json_geom "$T/j.json")" = "1920x1920 c3 d8" ] && ok || bad "901 items: exit $RC, $(cat "$ERR")"
fi

# cut and damaged
"$GPUIMG" -q -f copy "$H/want-rgb8-heic.png" "$T/good.heic" || exit 99
n=$(wc -c <"$T/good.heic")
head -c $((n / 2)) "$T/good.heic" >"$T/cut.heic"
expect_fail 1 "cut\\.heic: invalid HEIF: [A-Za-z][ -~]*$" copy "$T/cut.heic" "$T/cut-out.png"   # libheif's words, intact
[ ! -e "$T/cut-out.png" ] && ok || bad "a cut HEIC left an output"
{ head -c 40 "$T/good.heic"; head -c $((n - 40)) /dev/zero; } >"$T/zeroed.heic"
expect_fail 1 "zeroed\\.heic: .*HEIF" copy "$T/zeroed.heic" "$T/z-out.png"
finish
