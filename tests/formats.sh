# gpuimg tests: every input format stb_image reads, from tests/formats/ (made by make_formats.py):
# palette PNG with transparency, Adam7-interlaced PNG (8 and 16 bit), BMP, TGA with alpha, PPM,
# PGM, GIF (two frames: the first is read), PSD (which stb reads as RGBA), Radiance HDR (converted to 8 bits), baseline,
# progressive and gray JPEG. Each must decode to its want-*.png (exact; HDR within 1 level of
# stb's documented conversion; JPEG within 3 of libjpeg-turbo, whose inverse DCT rounds differently).
. "${TOP_SRCDIR:-.}/tests/lib.sh"
dir=$(dirname "$GPUIMG")/tests
"$dir/golden_test" "$TOP_SRCDIR/tests/formats" >"$T/log" 2>&1 && ok || bad "$(cat "$T/log")"
grep -q 'cases, 0 failed' "$T/log" && ok || bad "no cases ran: $(cat "$T/log")"
# and through the command line, from stdin too
"$GPUIMG" -q --backend=cpu transpose - "$T/o.png" <"$TOP_SRCDIR/tests/formats/image.psd" && ok || bad "PSD from stdin"
finish
