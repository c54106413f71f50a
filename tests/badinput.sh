# gpuimg tests: bad inputs and unwritable outputs. Each gives one line on stderr naming the file
# and the cause, exit status 1, no signal, no output file, no temporary file left behind, and
# the input untouched.
. "${TOP_SRCDIR:-.}/tests/lib.sh"

"$MKIMG" 64 48 3 8 "$T/good.png" 7 || exit 99
"$GPUIMG" -q --jpeg-quality=90 flip=h "$T/good.png" "$T/good.jpg" || exit 99
"$GPUIMG" -q --format=jpg flip=h "$T/good.png" - >/dev/null || exit 99
size=$(wc -c <"$T/good.png")
jsize=$(wc -c <"$T/good.jpg")

: >"$T/empty.png"
printf 'this is not an image, just some text\n' >"$T/text.png"
head -c $((size / 2)) "$T/good.png" >"$T/trunc.png"
head -c $((size - 7)) "$T/good.png" >"$T/noiend.png"
head -c $((jsize * 2 / 3)) "$T/good.jpg" >"$T/trunc.jpg"
head -c 300 "$T/good.jpg" >"$T/short.jpg"
"$MKBAD" badcrc "$T/good.png" "$T/badcrc.png" || exit 99
"$MKBAD" header 0 48 "$T/zerow.png" || exit 99
"$MKBAD" header 100000 100000 "$T/huge.png" || exit 99
mkdir "$T/adir"

# check_bad CODE REGEX INPUT [OUTPUT] [OPTIONS...]
check_bad() {
    code=$1 re=$2 in=$3 out=${4:-$T/out/o.png}
    if [ $# -ge 4 ]; then shift 4; else shift $#; fi
    mkdir -p "$T/out"
    before=$(ls -A "$T/out" | sort | tr '\n' ' ')
    sum=$( [ -f "$in" ] && cksum <"$in")
    expect_fail "$code" "$re" "$@" gray "$in" "$out"
    after=$(ls -A "$T/out" | sort | tr '\n' ' ')
    [ "$before" = "$after" ] && ok || bad "$in: files left in the output folder: $after (before: $before)"
    [ -z "$sum" ] || [ "$sum" = "$(cksum <"$in")" ] && ok || bad "$in was modified"
}

check_bad 1 "empty.png: empty file$" "$T/empty.png"
check_bad 1 "text.png: not an image in a format gpuimg reads" "$T/text.png"
check_bad 1 "trunc.png: truncated PNG" "$T/trunc.png"
check_bad 1 "noiend.png: truncated PNG: file ends at byte [0-9]+, before the IEND chunk" "$T/noiend.png"
check_bad 1 "trunc.jpg: truncated JPEG" "$T/trunc.jpg"
check_bad 1 "short.jpg: truncated JPEG" "$T/short.jpg"
check_bad 1 "badcrc.png: corrupt PNG: bad CRC in chunk 'IDAT'" "$T/badcrc.png"
check_bad 1 "zerow.png: invalid PNG: image has zero width" "$T/zerow.png"
check_bad 1 "huge.png: image is 100000x100000 \(10000000000 pixels\), over the limit of 268435456 pixels \(--max-pixels\)" "$T/huge.png"
check_bad 1 "missing.png: cannot open: No such file or directory" "$T/missing.png"
check_bad 1 "adir: is a directory" "$T/adir"
check_bad 1 "good.png: image is 64x48 \(3072 pixels\), over the limit of 3000" "$T/good.png" "$T/out/o.png" --max-pixels=3000
# WebP and TIFF (where built in): cut, damaged and over the pixel limit
"$GPUIMG" --version >"$T/version"
for f in webp tif; do
    grep -q "$( [ $f = webp ] && echo 'libwebp [0-9.]* (WebP)' || echo 'libtiff [0-9.]* (TIFF)')" "$T/version" || continue
    "$GPUIMG" -q --webp-lossless flip=h "$T/good.png" "$T/good.$f" || exit 99
    fsize=$(wc -c <"$T/good.$f")
    head -c $((fsize * 2 / 3)) "$T/good.$f" >"$T/trunc.$f"
    check_bad 1 "trunc\.$f: .*(WebP|TIFF)" "$T/trunc.$f"
    { head -c 40 "$T/good.$f"; head -c $((fsize - 40)) /dev/zero; } >"$T/zeroed.$f"
    check_bad 1 "zeroed\.$f: .*(WebP|TIFF)" "$T/zeroed.$f"
    check_bad 1 "good\.$f: image is 64x48 \(3072 pixels\), over the limit of 3000" "$T/good.$f" "$T/out/o.png" --max-pixels=3000
done

# the header check is fast: a 10-gigapixel claim is refused without decoding
start=$(date +%s)
"$GPUIMG" -q gray "$T/huge.png" "$T/out/h.png" 2>/dev/null
[ $(( $(date +%s) - start )) -le 2 ] && ok || bad "refusing a huge header took too long"

# outputs that cannot be written
check_bad 1 "nodir/o.png: cannot write: directory .*nodir: No such file or directory" "$T/good.png" "$T/nodir/o.png"
check_bad 1 "cannot write: .*good.png is not a directory" "$T/good.png" "$T/good.png/o.png"
check_bad 1 "adir: is a directory" "$T/good.png" "$T/adir"
if [ "$(id -u)" -ne 0 ]; then
    mkdir "$T/ro" && chmod 555 "$T/ro"
    check_bad 1 "ro/o.png: cannot write: directory .*: Permission denied" "$T/good.png" "$T/ro/o.png"
fi
if [ -w /dev/full ]; then
    check_bad 1 "/dev/full: write failed: No space left on device" "$T/good.png" /dev/full
    check_bad 1 "/dev/full: write failed: No space left on device" "$T/good.png" /dev/full --format=jpg
fi
# an existing output is kept, byte for byte
cp "$T/good.jpg" "$T/out/exists.png"
check_bad 1 "exists.png: output exists \(use --force to replace it\)" "$T/good.png" "$T/out/exists.png"
cmp -s "$T/good.jpg" "$T/out/exists.png" && ok || bad "existing output was modified"
rm -f "$T/out/exists.png"

# the output is the input: refused and untouched without --force; with it, replaced by the result
cp "$T/good.png" "$T/self.png"
sum=$(cksum <"$T/self.png")
expect_fail 1 "self.png: output exists \(use --force to replace it\)" gray "$T/self.png" "$T/./self.png"
[ "$sum" = "$(cksum <"$T/self.png")" ] && ok || bad "the input was modified"
expect_ok -q --force gray "$T/good.png" "$T/self-want.png"
expect_ok -q --force gray "$T/self.png" "$T/self.png"
cmp -s "$T/self.png" "$T/self-want.png" && ok || bad "--force in place: not the result"
rm -f "$T/self.png" "$T/self-want.png"

# stdin that is not an image
printf 'junk' | "$GPUIMG" -q gray - "$T/out/s.png" 2>"$T/err"
[ $? -eq 1 ] && grep -q '^gpuimg: <stdin>: not an image' "$T/err" && [ ! -e "$T/out/s.png" ] && ok || bad "junk on stdin: $(cat "$T/err")"

# each encoder's size limit is checked when the plan is made, before any work: one line, exit 1,
# nothing written (JPEG and TGA once wrote the sides modulo 65536 and exited 0)
"$MKIMG" 5 4 3 8 "$T/small.png" 3 || exit 99
for ext in jpg tga; do
    expect_fail 1 "o\.$ext: (JPEG holds at most 65500|TGA holds at most 65535) pixels a side; the result would be 70000x1" \
        resize=70000x1! "$T/small.png" "$T/out/o.$ext"
    expect_fail 1 "o\.$ext: .* the result would be 1x65536" resize=1x65536! "$T/small.png" "$T/out/o.$ext"
done
expect_fail 1 "o\.png: PNG \(libpng\) holds at most 1000000 pixels a side" resize=1000001x1! "$T/small.png" "$T/out/o.png"
run -o "$T/out/%s.jpg" resize=70000x1! "$T/small.png"   # a batch: the file fails, the summary says so
[ "$RC" -eq 1 ] && head -n 1 "$ERR" | grep -q "small\.jpg: JPEG holds at most 65500" && ok || bad "batch: exit $RC: $(cat "$ERR")"
expect_ok -q resize=65500x1! "$T/small.png" "$T/out/edge.jpg" && [ "$(dims "$T/out/edge.jpg")" = "65500x1 c3 d8" ] && ok \
    || bad "a 65500-pixel JPEG: $(dims "$T/out/edge.jpg")"
rm -f "$T/out/edge.jpg"
expect_fail 1 "edge\.jpg: JPEG holds at most 65500 pixels a side; the result would be 65501x1" \
    resize=65501x1! "$T/small.png" "$T/out/edge.jpg"
left=$(ls -A "$T/out")
[ -z "$left" ] && ok || bad "over-size results left: $left"

# short files of every format stb_image decodes: refused, never decoded into a padded image
for f in image.bmp image.hdr image.pgm image.ppm image.psd image.tga; do
    src="$TOP_SRCDIR/tests/formats/$f"
    head -c $(( $(wc -c <"$src") / 2 )) "$src" >"$T/half-$f"
    check_bad 1 "half-$f: truncated (BMP|HDR|PNM|PSD|TGA)" "$T/half-$f"
done
head -c 130 "$TOP_SRCDIR/tests/formats/image.gif" >"$T/short.gif"
check_bad 1 "short.gif: (truncated GIF|cannot decode: Corrupt GIF)" "$T/short.gif"
# vlimit CMD...: CMD with its address space held to 400 MB, far under what reading or decoding the
# inputs below whole would take (not under the sanitizers, whose shadow memory needs terabytes of
# address space: there the messages are still checked)
vlimit() { if [ -n "${GPUIMG_SANITIZERS:-}" ]; then "$@"; else (ulimit -v 400000; exec "$@"); fi; }
# a header claiming far more pixels than the file holds is refused before the pixels are allocated
# (a 118-byte run-length TGA of 20000x20000, a 140-byte PSD of 30000x30000): within 100 MB
printf '\000\000\012\000\000\000\000\000\000\000\000\000\040\116\040\116\030\000' >"$T/big.tga"
head -c 100 /dev/zero >>"$T/big.tga"
printf '8BPS\000\001\000\000\000\000\000\000\000\003\000\000\165\060\000\000\165\060\000\010\000\003' >"$T/big.psd"
head -c 114 /dev/zero >>"$T/big.psd"
"$MKBAD" jpegsize 16000 16000 "$T/good.jpg" "$T/big.jpg" || exit 99   # 256 Mpx in a few KB
for f in big.tga big.psd big.jpg; do
    vlimit "$GPUIMG" gray "$T/$f" "$T/out/o.png" 2>"$T/err"
    rc=$?
    [ $rc -eq 1 ] && grep -q "^gpuimg: .*$f: truncated .*: the header says .*, more than its [0-9]* bytes can hold" "$T/err" \
        && ok || bad "$f: exit $rc, $(cat "$T/err")"
done
# vbad FILE REGEX: FILE refused within the address-space limit: exit 1, one line matching REGEX,
# no output
vbad() {
    rm -f "$T/out/o.png"
    vlimit "$GPUIMG" gray "$T/$1" "$T/out/o.png" 2>"$T/err"
    rc=$?
    [ $rc -eq 1 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -Eq "^gpuimg: .*$1: $2" "$T/err" && [ ! -e "$T/out/o.png" ] \
        && ok || bad "$1: exit $rc, $(cat "$T/err")"
}
# scans are bounded (each one is a pass over the whole image, whatever its size): a valid 930 KB
# 16384x16384 progressive JPEG of 883 scans, mostly end-of-band runs, is refused before decoding
# by every JPEG decoder; 100 scans decode, to the image one scan makes
"$MKBAD" progressive 16384 16384 883 "$T/scans.jpg" && "$MKBAD" progressive 64 48 101 "$T/scans101.jpg" \
    && "$MKBAD" progressive 64 48 100 "$T/scans100.jpg" && "$MKBAD" progressive 64 48 1 "$T/scans1.jpg" || exit 99
vbad scans.jpg "a JPEG of more than 100 scans \(gpuimg decodes up to 100\)$"
check_bad 1 "scans101.jpg: a JPEG of more than 100 scans" "$T/scans101.jpg" "$T/out/o.png" --jpeg-decoder=stb
expect_ok -q gray "$T/scans100.jpg" "$T/out/s100.png" && expect_ok -q gray "$T/scans1.jpg" "$T/out/s1.png" \
    && cmp -s "$T/out/s100.png" "$T/out/s1.png" && ok || bad "100 scans: not the image one scan makes"
rm -f "$T/out/s100.png" "$T/out/s1.png"
# progressive scans times pixels are bounded by the bytes (2^30, or 1024 a byte): 17 scans over
# 8192x8192 in 133 KB are refused for every decoder, 16 decode
"$MKBAD" progressive 8192 8192 17 "$T/scans17.jpg" && "$MKBAD" progressive 2048 2048 100 "$T/scans2k.jpg" || exit 99
vbad scans17.jpg "a progressive JPEG of 17 scans over 8192x8192, more decoding than its [0-9]+ bytes carry"
check_bad 1 "scans17.jpg: a progressive JPEG of 17 scans" "$T/scans17.jpg" "$T/out/o.png" --jpeg-decoder=stb
expect_ok -q gray "$T/scans2k.jpg" "$T/out/s2k.png"
rm -f "$T/out/s2k.png"
# decompression bombs: past 64 MiB decoded, at most --max-expansion (64) bytes a byte of the
# file, whatever the format (HDR counted with its floats, GIF with its canvas): a 768 KB PNG of
# zeros claiming 16384x16384 RGB is refused on its header, in the process and from standard
# input; 4096x4096 RGBA (64 MiB) decodes; one column more is refused, and decodes with
# --max-expansion=0
"$MKBAD" flat png 16384 16384 3 "$T/zeros.png" && "$MKBAD" flat png 4097 4096 4 "$T/flat4097.png" \
    && "$MKBAD" flat hdr 2200 2200 3 "$T/flat.hdr" && "$MKBAD" flat gif 3000 3000 1 "$T/flat.gif" || exit 99
vbad zeros.png "decoding this 16384x16384 image takes 768 MiB, over 64 times the file's [0-9]+ bytes: a decompression bomb\? \(--max-expansion=0 reads it\)$"
vlimit "$GPUIMG" gray - "$T/out/o.png" <"$T/zeros.png" 2>"$T/err"
[ $? -eq 1 ] && grep -q "^gpuimg: <stdin>: decoding this 16384x16384 image" "$T/err" && [ ! -e "$T/out/o.png" ] && ok \
    || bad "zeros.png from stdin: $(cat "$T/err")"
check_bad 1 "flat4097.png: decoding this 4097x4096 image takes 65 MiB" "$T/flat4097.png"
check_bad 1 "flat.hdr: decoding this 2200x2200 image takes 70 MiB" "$T/flat.hdr"
check_bad 1 "flat.gif: decoding this 3000x3000 image takes 69 MiB" "$T/flat.gif"
check_bad 1 "flat4097.png: decoding this 4097x4096 image takes 65 MiB, over 2 times" "$T/flat4097.png" "$T/out/o.png" --max-expansion=2
expect_ok -q --max-expansion=0 copy "$T/flat4097.png" "$T/out/f.png"
rm -f "$T/out/f.png"
# a TIFF's strips must hold its pixels, checked before they are allocated: strips sharing their
# bytes (9 KB of Deflate for 16384x16384 RGBA, 66 KB uncompressed for 4096x4096 at 16 bits), a
# 150-byte header whose strip lies past its end, strips apart but too small for what Deflate
# makes of a byte
if grep -q 'libtiff [0-9.]* (TIFF)' "$T/version"; then
    "$MKBAD" tiff shared 16384 16384 "$T/shared.tif" && "$MKBAD" tiff rawshared 4096 4096 "$T/rawshared.tif" \
        && "$MKBAD" tiff past 16384 16384 "$T/past.tif" && "$MKBAD" tiff thin 16384 16384 "$T/thin.tif" || exit 99
    vbad shared.tif "invalid TIFF: strips 0 and 1 share bytes \(from byte [0-9]+\)$"
    vbad rawshared.tif "invalid TIFF: strips 0 and 1 share bytes"
    vbad past.tif "truncated TIFF: 16384 strips, more than its 150 bytes can hold$"
    vbad thin.tif "truncated TIFF: the header says 16384x16384, more than its strips' 8192 bytes can hold$"
fi
# reads are bounded: /dev/zero, an endless stdin, a file past 2 GiB and a list of /dev/zero are
# refused without reading them whole (the limits below are far under what reading would take)
vlimit "$GPUIMG" gray /dev/zero "$T/out/o.png" 2>"$T/err"
[ $? -eq 1 ] && grep -q "^gpuimg: /dev/zero: not an image" "$T/err" && ok || bad "/dev/zero: $(cat "$T/err")"
head -c 3000000000 /dev/zero 2>/dev/null | vlimit "$GPUIMG" gray - "$T/out/o.png" 2>"$T/err"
grep -q "^gpuimg: <stdin>: not an image" "$T/err" && ok || bad "endless stdin: $(cat "$T/err")"
# and through the server (GPUIMG_SERVER=1, whose client reads standard input into a memory file
# before sending it): refused at its first bytes as well, the rest of the stream left unread
for s in 0 1; do
    head -c 200000000 /dev/zero 2>/dev/null | {
        GPUIMG_SERVER=$s GPUIMG_SERVER_DIR="$T/sd" "$GPUIMG" -q gray - "$T/out/o.png" 2>"$T/err"
        echo $? >"$T/rc"
        wc -c >"$T/left"
    }
    [ "$(cat "$T/rc")" -eq 1 ] && grep -q "^gpuimg: <stdin>: not an image" "$T/err" && [ "$(cat "$T/left")" -gt 190000000 ] \
        && ok || bad "GPUIMG_SERVER=$s, stdin of zeros: exit $(cat "$T/rc"), $(cat "$T/left") bytes left unread, $(cat "$T/err")"
done
GPUIMG_SERVER_DIR="$T/sd" "$GPUIMG" --server-stop >/dev/null 2>&1
if truncate -s 3G "$T/sparse.png" 2>/dev/null; then
    vlimit "$GPUIMG" gray "$T/sparse.png" "$T/out/o.png" 2>"$T/err"
    [ $? -eq 1 ] && grep -q "sparse.png: file of 3221225472 bytes is larger than the decoder takes" "$T/err" && ok \
        || bad "3 GiB file: $(cat "$T/err")"
    rm -f "$T/sparse.png"
fi
vlimit "$GPUIMG" -o "$T/out/%s.png" --from-list=/dev/zero gray 2>"$T/err"
[ $? -eq 2 ] && grep -q "^gpuimg: --from-list: /dev/zero: line 1 holds a NUL byte" "$T/err" && ok \
    || bad "--from-list=/dev/zero: $(cat "$T/err")"
# a JPEG cut short and closed with an end marker passes the marker walk; libjpeg-turbo sees its
# entropy-coded data end early (stb_image would pad the image with grey)
if "$GPUIMG" --version | grep -q "libjpeg-turbo"; then
    { head -c $((jsize * 2 / 3)) "$T/good.jpg"; printf '\377\331'; } >"$T/closed.jpg"
    check_bad 1 "closed.jpg: bad JPEG: Corrupt JPEG data: premature end" "$T/closed.jpg"
fi
# a legal PNG whose first IDAT is empty decodes (stb_image would copy from NULL)
"$MKBAD" emptyidat "$T/good.png" "$T/emptyidat.png" || exit 99
expect_ok -q gray "$T/emptyidat.png" "$T/out/ei.png" && expect_ok -q gray "$T/good.png" "$T/out/g.png" \
    && cmp -s "$T/out/ei.png" "$T/out/g.png" && ok || bad "an empty first IDAT: not the same image"
rm -f "$T/out/ei.png" "$T/out/g.png"
# messages name the real cause, on one line whatever the file's name holds
"$MKBAD" badzlib "$T/good.png" "$T/badzlib.png" || exit 99
check_bad 1 "badzlib.png: corrupt PNG: its compressed data does not inflate" "$T/badzlib.png"
check_bad 1 "badzlib.png: corrupt PNG: IDAT: invalid block type" "$T/badzlib.png" "$T/out/o.png" --png-decoder=libpng
check_bad 1 "badzlib.png: cannot decode: [^J]*PNG" "$T/badzlib.png" "$T/out/o.png" --decoder=stb
# the zlib stream's checksum is checked (stb_image, --decoder=stb, skips it), data ending before
# the last row and an unknown filter type are errors in both decoders; data after the last row
# is ignored, as libpng and stb_image do
for m in badadler shortdata badfilter extradata; do "$MKBAD" $m "$T/good.png" "$T/$m.png" || exit 99; done
check_bad 1 "badadler.png: corrupt PNG: its compressed data does not inflate \\(a bad block or a wrong Adler-32\\)$" \
    "$T/badadler.png"
check_bad 1 "badadler.png: corrupt PNG: IDAT: incorrect data check" "$T/badadler.png" "$T/out/o.png" --png-decoder=libpng
check_bad 1 "shortdata.png: truncated PNG: its compressed data ends before the image does" "$T/shortdata.png"
check_bad 1 "shortdata.png: corrupt PNG: Not enough image data" "$T/shortdata.png" "$T/out/o.png" --png-decoder=libpng
check_bad 1 "badfilter.png: corrupt PNG: row 1 has filter type 7 \\(0 to 4 exist\\)" "$T/badfilter.png"
check_bad 1 "badfilter.png: corrupt PNG: bad adaptive filter value" "$T/badfilter.png" "$T/out/o.png" --png-decoder=libpng
expect_ok -q gray "$T/extradata.png" "$T/out/x.png" && expect_ok -q gray "$T/good.png" "$T/out/g.png" \
    && cmp -s "$T/out/x.png" "$T/out/g.png" && ok || bad "data after the last row: not the same image"
rm -f "$T/out/x.png" "$T/out/g.png"
"$MKBAD" ihdrlen "$T/good.png" "$T/ihdrlen.png" || exit 99
check_bad 1 "ihdrlen.png: corrupt PNG: IHDR chunk of 12 bytes, not 13" "$T/ihdrlen.png"
odd=$(printf 'line\nbreak\033[31m.png')
cp "$T/trunc.png" "$T/$odd"
check_bad 1 'line\\nbreak\\x1b\[31m.png: truncated PNG' "$T/$odd"

# a killed run leaves no temporary file: stop a slow encode with SIGTERM (on a fast machine the
# run may finish first: then its output, and only that, is there)
"$MKIMG" 2000 2000 4 16 "$T/big.png" 1 0 || exit 99
"$GPUIMG" -q --force --png-level=9 blur=8 "$T/big.png" "$T/out/k.png" 2>/dev/null &
pid=$!
sleep 1
kill -TERM $pid 2>/dev/null
wait $pid
rc=$?
left=$(ls -A "$T/out")
{ [ -z "$left" ] || { [ $rc -eq 0 ] && [ "$left" = k.png ]; }; } && ok || bad "SIGTERM (exit $rc) left: $left"
finish
