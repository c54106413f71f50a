# gpuimg tests: --profile=srgb, colour from the input's ICC profile to sRGB through LittleCMS 2
# (builds with it; SKIP, said, without). Inputs with an Adobe RGB (1998) compatible profile and
# the sRGB Pillow's ImageCms makes of them (tests/icc/make_icc.py: relative colorimetric, no
# black point compensation, into LittleCMS's sRGB):
# - 8-bit RGB and RGBA: within 1 level of Pillow's (alpha copied); the output carries sRGB's
#   profile, not the input's; --strip or --strip=icc: the same pixels, no profile.
# - 16 bits: LittleCMS's 16-bit transform, within 16 levels of the 8-bit one after rounding to 8
#   and 0.2 on average (the two optimised transforms part at the sRGB gamut's edge).
# - The default (keep): the pixels and the Adobe profile as they were. A JPEG input converts the
#   same through the CPU's decoder; an input without a profile is untouched; a profile LittleCMS
#   cannot read is an error naming the file.
# - A CMYK JPEG through its embedded profile, within 1 level of vips's (tests/icc/make_cmyk.sh).
. "${TOP_SRCDIR:-.}/tests/lib.sh"
dir=$(dirname "$GPUIMG")/tests
H="${TOP_SRCDIR:-.}/tests/icc"
if "$GPUIMG" --version | grep -q 'colour: none'; then
    echo "SKIP: no LittleCMS 2 in this build (install liblcms2-dev, configure again)"
    exit 77
fi
same() {   # same A B TOL MEAN LABEL
    "$dir/golden_test" --diff "$1" "$2" "$3" "$4" >"$T/log" 2>&1 && ok || bad "$5: $(cat "$T/log")"
}
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3 (tests/meta.py reads the profiles)"; exit 77; }
icc() { python3 "${TOP_SRCDIR:-.}/tests/meta.py" show "$1" | sed 's/^icc=\([^ ]*\).*/\1/'; }
adobe=$(icc "$H/adobe-rgb8.png")
[ "$adobe" != none ] && ok || bad "the input has no profile"

for f in rgb8 rgba8; do
    expect_ok -q -f --profile=srgb copy "$H/adobe-$f.png" "$T/$f.png" || continue
    same "$T/$f.png" "$H/want-$f.png" 1 0.05 "$f to sRGB against Pillow's"
    p=$(icc "$T/$f.png")
    [ "$p" != none ] && [ "$p" != "$adobe" ] && ok || bad "$f: the output's profile is $p (the input's: $adobe)"
    expect_ok -q -f copy "$H/adobe-$f.png" "$T/keep-$f.png"
    same "$T/keep-$f.png" "$H/adobe-$f.png" 0 0 "$f kept"
    [ "$(icc "$T/keep-$f.png")" = "$adobe" ] && ok || bad "$f: the default did not keep the profile"
done
srgb=$(icc "$T/rgb8.png")
for s in --strip --strip=icc; do
    expect_ok -q -f --profile=srgb $s copy "$H/adobe-rgb8.png" "$T/s.png"
    same "$T/s.png" "$H/want-rgb8.png" 1 0.05 "--profile=srgb $s: pixels"
    [ "$(icc "$T/s.png")" = none ] && ok || bad "--profile=srgb $s: a profile was written"
done
# the converted file converts no further: sRGB to sRGB
expect_ok -q -f --profile=srgb copy "$T/rgb8.png" "$T/again.png"
same "$T/again.png" "$T/rgb8.png" 1 0.05 "sRGB to sRGB"
expect_ok -q -f --profile=srgb copy "$H/adobe-rgb16.png" "$T/rgb16.png"
"$GPUIMG" -q -f copy "$T/rgb16.png" "$T/rgb16-8.tga" || exit 99   # TGA: 8 bits, round(v / 257)
[ "$(dims "$T/rgb16.png")" = "61x37 c3 d16" ] && ok || bad "16 bits not kept: $(dims "$T/rgb16.png")"
same "$T/rgb16-8.tga" "$H/want-rgb8.png" 16 0.2 "16 bits to sRGB against the 8-bit conversion"
# a JPEG with the profile: the same conversion after the CPU's decode (JPEG's own loss aside)
expect_ok -q -f --jpeg-quality=100 --jpeg-sampling=444 copy "$H/adobe-rgb8.png" "$T/adobe.jpg"
expect_ok -q -f copy "$T/adobe.jpg" "$T/adobe-jpg.png"
expect_ok -q -f --profile=srgb copy "$T/adobe.jpg" "$T/jpg-srgb.png"
expect_ok -q -f --profile=srgb copy "$T/adobe-jpg.png" "$T/png-srgb.png"
same "$T/jpg-srgb.png" "$T/png-srgb.png" 0 0 "a JPEG's conversion"
# no profile: untouched
"$GPUIMG" -q -f --strip copy "$H/adobe-rgb8.png" "$T/bare.png" || exit 99
expect_ok -q -f --profile=srgb copy "$T/bare.png" "$T/bare-out.png"
same "$T/bare-out.png" "$T/bare.png" 0 0 "no profile"
# a profile LittleCMS cannot read (a header without tags): one line, exit 1, no output
python3 "${TOP_SRCDIR:-.}/tests/meta.py" png "$T/bare.png" "$T/badicc.png" 1 72 72 || exit 99
expect_fail 1 "badicc\\.png: (its ICC profile is one LittleCMS cannot read|LittleCMS cannot convert from its ICC profile to sRGB) \\(--profile=srgb\\)" \
    --profile=srgb copy "$T/badicc.png" "$T/bad-out.png"
[ ! -e "$T/bad-out.png" ] && ok || bad "a refused profile left an output"

# A CMYK JPEG goes through its embedded profile to sRGB, with or without --profile=srgb (LittleCMS's
# relative colorimetric; tests/icc/make_cmyk.sh: a profile of plain inks, so near the bare scaling
# by the black that that misses by 3 levels at most, 0.8 on average; a press profile's colours it
# misses by about 30): within 1 level of vips's icc_transform, and the output carries no profile
for opt in "" --profile=srgb; do
    expect_ok -q -f $opt copy "$H/cmyk-icc.jpg" "$T/cmyk.png" || continue
    same "$T/cmyk.png" "$H/want-cmyk.png" 1 0.05 "CMYK through its profile${opt:+ with $opt}, against vips's"
    [ "$(icc "$T/cmyk.png")" = none ] && ok || bad "CMYK${opt:+ with $opt}: the output carries a profile"
done
finish
