# gpuimg tests: metadata kept from input to output (tests/meta.py puts it in and reads it back).
# - A JPEG with an RGB ICC profile in two APP2 pieces, EXIF orientation 6 and JFIF density
#   300x150: a JPEG and a PNG out keep the profile byte for byte, the EXIF with orientation 1, and
#   the density swapped by the turn; with --no-auto-orient the orientation stays 6, unswapped.
# - A PNG with iCCP, eXIf and pHYs: the same into JPEG and PNG, the orientation as it was (a PNG
#   is not turned); EXIF too large for a JPEG segment is left off a JPEG, kept in a PNG.
# - The same JPEG with 0xFF fill bytes before its markers (JPEG allows any number): turned upright
#   and its metadata kept all the same.
# - A grey result drops the RGB profile (it would misdescribe it) and keeps the rest; a profile
#   missing a piece is left out; --strip writes none; the server keeps it as in-process.
# - EXIF's pixel dimensions (an Exif IFD's, little-endian) say the output's size after a turn and
#   a resize, in JPEG and PNG; the rest of the block stays (a maker note too).
# - TIFF outputs carry the orientation in their own tag (1 once turned upright, 6 with
#   --no-auto-orient), EXIF's make in their IFD0 and its Exif IFD as their EXIF directory (the
#   pixel dimensions made the output's, the maker note left out); and a TIFF input's are read
#   into JPEG and PNG outputs.
# - WebP keeps the profile and EXIF, TIFF the profile and the density (read back both ways).
# - Every piece (EXIF with a GPS directory, XMP, IPTC, a comment, ICC) from a JPEG: JPEG keeps
#   all, PNG all but IPTC, WebP EXIF, XMP and ICC, TIFF XMP, IPTC and ICC (and back to JPEG);
#   --strip=LIST drops the pieces named (gps: the directory's entry and its bytes, the rest of EXIF
#   kept), --keep=LIST keeps only those; the server does the same as the process. Hostile GPS
#   directories (pointing at IFD0, chained, two pointers, EXIF 3.0's UTF-8 type) and a PNG eXIf
#   with JPEG's "Exif\0\0" prefix: --strip=gps leaves none of their bytes.
# - GPU builds on a GPU: nvJPEG's JPEG (GPUIMG_JPEG_GPU=1) and nvCOMP's PNG (GPUIMG_PNG_GPU=1)
#   carry the same metadata as the CPU's files.
. "${TOP_SRCDIR:-.}/tests/lib.sh"
S=${TOP_SRCDIR:-.}
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
meta() { python3 "$S/tests/meta.py" "$@"; }
ICC=$(meta icc)

# check LABEL FILE WANT: meta.py's line for FILE is WANT
check() {
    got=$(meta show "$2" 2>&1)
    [ "$got" = "$3" ] && ok || bad "$1: $got, want $3"
}
# check_dims LABEL FILE REST: EXIF's pixel dimensions in FILE are its image's, the line's rest
# (from make=) matches the pattern REST
check_dims() {
    got=$(meta dims "$2" 2>&1)
    px=${got#pixels=}
    px=${px%% *}
    im=${got#*image=}
    im=${im%% *}
    case "$got" in
    *" $3") [ "$px" = "$im" ] && ok || bad "$1: $got" ;;
    *) bad "$1: $got, want $3 after the sizes" ;;
    esac
}

expect_ok -q --backend=cpu resize=317x201! "$S/samples/path-640x400.jpg" "$T/base.jpg"
"$MKIMG" 203 131 4 8 "$T/base.png" 3 || exit 99
meta jpeg "$T/base.jpg" "$T/in.jpg" 6 300 150
meta jpeg "$T/base.jpg" "$T/broken.jpg" 1 72 72 broken
meta jpeg "$T/base.jpg" "$T/dims.jpg" 6 72 72 dims
meta jpeg "$T/base.jpg" "$T/fill.jpg" 6 300 150 fill
meta png "$T/base.png" "$T/in.png" 3 96 200
meta png "$T/base.png" "$T/bigexif.png" 1 96 96 70000
check "the input as made" "$T/in.jpg" "icc=$ICC exif=26 orient=6 density=300x150"
check "the input with fill bytes as made" "$T/fill.jpg" "icc=$ICC exif=26 orient=6 density=300x150"
got=$(meta dims "$T/dims.jpg")
[ "$got" = "pixels=4000x3000 image=317x201 make=gpuimg-test exposure=1/60 iso=200 makernote=yes" ] && ok \
    || bad "the input with pixel dimensions as made: $got"

for b in cpu gpu; do
    if [ $b = gpu ]; then
        "$GPUIMG" --version | grep -q '^GPU: device 0 of' || break
        export GPUIMG_JPEG_GPU=1 GPUIMG_PNG_GPU=1
    fi
    expect_ok -q --backend=$b resize=50% "$T/in.jpg" "$T/$b-o.jpg"
    check "$b: JPEG to JPEG" "$T/$b-o.jpg" "icc=$ICC exif=26 orient=1 density=150x300"
    expect_ok -q --backend=$b resize=50% "$T/in.jpg" "$T/$b-o.png"
    check "$b: JPEG to PNG" "$T/$b-o.png" "icc=$ICC exif=26 orient=1 density=150x300"
    expect_ok -q --backend=$b copy "$T/fill.jpg" "$T/$b-f.jpg"
    check "$b: fill bytes before the markers" "$T/$b-f.jpg" "icc=$ICC exif=26 orient=1 density=150x300"
    [ "$(dims "$T/$b-f.jpg")" = "201x317 c3 d8" ] && ok || bad "$b: fill bytes: $(dims "$T/$b-f.jpg"), not turned upright"
    expect_ok -q --backend=$b --no-auto-orient resize=50% "$T/in.jpg" "$T/$b-n.jpg"
    check "$b: --no-auto-orient" "$T/$b-n.jpg" "icc=$ICC exif=26 orient=6 density=300x150"
    expect_ok -q --backend=$b blur=1 "$T/in.png" "$T/$b-p.png"
    check "$b: PNG to PNG" "$T/$b-p.png" "icc=$ICC exif=26 orient=3 density=96x200"
    expect_ok -q --backend=$b blur=1 "$T/in.png" "$T/$b-p.jpg"
    check "$b: PNG to JPEG" "$T/$b-p.jpg" "icc=$ICC exif=26 orient=3 density=96x200"
    expect_ok -q --backend=$b gray "$T/in.jpg" "$T/$b-g.jpg"
    check "$b: grey result" "$T/$b-g.jpg" "icc=none exif=26 orient=1 density=150x300"
    expect_ok -q --backend=$b gray "$T/in.jpg" "$T/$b-g.png"
    check "$b: grey PNG" "$T/$b-g.png" "icc=none exif=26 orient=1 density=150x300"
    expect_ok -q --backend=$b --strip resize=50% "$T/in.jpg" "$T/$b-s.jpg"
    check "$b: --strip JPEG" "$T/$b-s.jpg" "icc=none exif=none orient=0 density=none"
    expect_ok -q --backend=$b --strip resize=50% "$T/in.png" "$T/$b-s.png"
    check "$b: --strip PNG" "$T/$b-s.png" "icc=none exif=none orient=0 density=none"
    expect_ok -q --backend=$b resize=50% "$T/dims.jpg" "$T/$b-d.jpg"
    check_dims "$b: EXIF's pixel dimensions, JPEG" "$T/$b-d.jpg" "make=gpuimg-test exposure=1/60 iso=200 makernote=yes"
    expect_ok -q --backend=$b resize=30% "$T/dims.jpg" "$T/$b-d.png"
    check_dims "$b: EXIF's pixel dimensions, PNG" "$T/$b-d.png" "make=gpuimg-test exposure=1/60 iso=200 makernote=yes"
    expect_ok -q --backend=$b flip=h "$T/broken.jpg" "$T/$b-b.jpg"
    check "$b: a profile missing a piece" "$T/$b-b.jpg" "icc=none exif=26 orient=1 density=72x72"
    expect_ok -q --backend=$b flip=h "$T/bigexif.png" "$T/$b-x.jpg"
    check "$b: EXIF too large for JPEG" "$T/$b-x.jpg" "icc=$ICC exif=none orient=0 density=96x96"
    expect_ok -q --backend=$b flip=h "$T/bigexif.png" "$T/$b-x.png"
    check "$b: large EXIF in PNG" "$T/$b-x.png" "icc=$ICC exif=70000 orient=1 density=96x96"
done
unset GPUIMG_JPEG_GPU GPUIMG_PNG_GPU

# WebP carries the profile and EXIF (no density); TIFF the profile and the density (EXIF not written)
if "$GPUIMG" --version | grep -q 'libwebp [0-9.]* (WebP)'; then
    expect_ok -q resize=50% "$T/in.jpg" "$T/o.webp"
    check "JPEG to WebP" "$T/o.webp" "icc=$ICC exif=26 orient=1 density=none"
    expect_ok -q flip=h "$T/o.webp" "$T/webp.png"
    check "WebP to PNG" "$T/webp.png" "icc=$ICC exif=26 orient=1 density=none"
    expect_ok -q --strip resize=50% "$T/in.jpg" "$T/s.webp"
    check "--strip WebP" "$T/s.webp" "icc=none exif=none orient=0 density=none"
fi
if "$GPUIMG" --version | grep -q 'libtiff [0-9.]* (TIFF)'; then
    expect_ok -q resize=50% "$T/in.jpg" "$T/o.tif"
    check "JPEG to TIFF" "$T/o.tif" "icc=$ICC exif=none orient=1 density=150x300"
    expect_ok -q flip=h "$T/o.tif" "$T/tif.jpg"
    check "TIFF to JPEG" "$T/tif.jpg" "icc=$ICC exif=none orient=0 density=150x300"
    expect_ok -q gray "$T/in.jpg" "$T/g.tif"
    check "grey TIFF" "$T/g.tif" "icc=none exif=none orient=1 density=150x300"
    expect_ok -q --no-auto-orient resize=50% "$T/in.jpg" "$T/n.tif"
    check "TIFF, --no-auto-orient" "$T/n.tif" "icc=$ICC exif=none orient=6 density=300x150"
    expect_ok -q resize=50% "$T/dims.jpg" "$T/d.tif"
    # libtiff takes an exposure's rational as a float and writes its own fraction of it
    check_dims "TIFF's EXIF" "$T/d.tif" "make=gpuimg-test exposure=8947849/536870912 iso=200 makernote=no"
    # and a TIFF's EXIF (its own IFD0's text and orientation, its EXIF directory) read into others
    expect_ok -q resize=50% "$T/d.tif" "$T/dt.jpg"
    check_dims "TIFF's EXIF into JPEG" "$T/dt.jpg" "make=gpuimg-test exposure=8947849/536870912 iso=200 makernote=no"
    expect_ok -q resize=50% "$T/d.tif" "$T/dt.png"
    check_dims "TIFF's EXIF into PNG" "$T/dt.png" "make=gpuimg-test exposure=8947849/536870912 iso=200 makernote=no"
    expect_ok -q copy "$T/n.tif" "$T/nt.jpg"
    check "a TIFF's orientation into JPEG" "$T/nt.jpg" "icc=$ICC exif=26 orient=6 density=300x150"
    expect_ok -q --strip resize=50% "$T/dims.jpg" "$T/ds.tif"
    got=$(meta dims "$T/ds.tif")
    case "$got" in
    "pixels=none image="*" make=None exposure=None iso=None makernote=no") ok ;;
    *) bad "TIFF, --strip: $got" ;;
    esac
fi

# every piece, and --strip and --keep piece by piece
"$GPUIMG" -q -f copy "$T/in.jpg" "$T/plain.jpg" || exit 99
meta pieces "$T/plain.jpg" "$T/pieces.jpg" || exit 99
ALL=$(meta pieces-show "$T/pieces.jpg")
case $ALL in
"exif=yes gps=yes gpsbytes=yes xmp="[0-9a-f]*" iptc="[0-9a-f]*" comment=made_by_gpuimg-test icc="[0-9a-f]*) ok ;;
*) bad "the pieces' input: $ALL" ;;
esac
xmp=$(echo "$ALL" | sed 's/.* xmp=\([^ ]*\).*/\1/') iptc=$(echo "$ALL" | sed 's/.* iptc=\([^ ]*\).*/\1/')
icc=$(echo "$ALL" | sed 's/.* icc=\([^ ]*\)$/\1/')
pieces() {   # LABEL FILE WANT [OPTIONS...]: FILE from pieces.jpg with OPTIONS shows WANT
    label=$1 file=$2 want=$3
    shift 3
    expect_ok -q -f "$@" copy "$T/pieces.jpg" "$T/$file" || return
    got=$(meta pieces-show "$T/$file")
    [ "$got" = "$want" ] && ok || bad "$label: $got, want $want"
}
keep="xmp=$xmp iptc=$iptc"
pieces "JPEG" p.jpg "$ALL"
pieces "PNG" p.png "exif=yes gps=yes gpsbytes=yes xmp=$xmp iptc=none comment=made_by_gpuimg-test icc=$icc"
if "$GPUIMG" --version | grep -q 'libwebp [0-9.]* (WebP)'; then
    pieces "WebP" p.webp "exif=yes gps=yes gpsbytes=yes xmp=$xmp iptc=none comment=none icc=$icc"
fi
if "$GPUIMG" --version | grep -q 'libtiff [0-9.]* (TIFF)'; then
    pieces "TIFF" p.tif "exif=no gps=no gpsbytes=no $keep comment=none icc=$icc"
    expect_ok -q -f copy "$T/p.tif" "$T/pt.jpg"
    got=$(meta pieces-show "$T/pt.jpg")
    [ "$got" = "exif=yes gps=no gpsbytes=no $keep comment=none icc=$icc" ] && ok || bad "TIFF to JPEG: $got"
fi
pieces "--strip=gps" s1.jpg "exif=yes gps=no gpsbytes=no $keep comment=made_by_gpuimg-test icc=$icc" --strip=gps
pieces "--strip=xmp,iptc,comment" s2.jpg "exif=yes gps=yes gpsbytes=yes xmp=none iptc=none comment=none icc=$icc" \
    --strip=xmp,iptc,comment
pieces "--strip=icc,exif" s3.png "exif=no gps=no gpsbytes=no xmp=$xmp iptc=none comment=made_by_gpuimg-test icc=none" \
    --strip=icc,exif
pieces "--keep=icc" k1.jpg "exif=no gps=no gpsbytes=no xmp=none iptc=none comment=none icc=$icc" --keep=icc
pieces "--keep=exif,comment" k2.jpg "exif=yes gps=yes gpsbytes=yes xmp=none iptc=none comment=made_by_gpuimg-test icc=none" \
    --keep=exif,comment
pieces "--strip=gps --strip=xmp" s5.jpg "exif=yes gps=no gpsbytes=no xmp=none iptc=$iptc comment=made_by_gpuimg-test icc=$icc" \
    --strip=gps --strip=xmp
pieces "--keep=exif,xmp --strip=gps" k3.jpg "exif=yes gps=no gpsbytes=no xmp=$xmp iptc=none comment=none icc=none" \
    --keep=exif,xmp --strip=gps
pieces "--strip=all" s4.jpg "exif=no gps=no gpsbytes=no xmp=none iptc=none comment=none icc=none" --strip=all
# hostile GPS directories (pointing at IFD0, chained, twice, a type EXIF 3.0 added) and a PNG
# eXIf that keeps JPEG's prefix: --strip=gps leaves none of the mark 0x5A5A5A5A ("ZZZZ")
meta gps-edge self "$T/plain.jpg" "$T/gps-self.jpg" || exit 99   # once corrupted the heap
expect_ok -q -f --strip=gps copy "$T/gps-self.jpg" "$T/gps-self-out.jpg"
got=$(meta pieces-show "$T/gps-self-out.jpg")
case $got in "exif=yes gps=no "*) ok ;; *) bad "a GPS pointer to IFD0, --strip=gps: $got" ;; esac
for k in utf8 chain twoptr; do
    meta gps-edge $k "$T/plain.jpg" "$T/gps-$k.jpg" || exit 99
    grep -q ZZZZ "$T/gps-$k.jpg" || bad "gps-edge $k: no mark to strip"
    expect_ok -q -f --strip=gps copy "$T/gps-$k.jpg" "$T/gps-$k-out.jpg" && { grep -q ZZZZ "$T/gps-$k-out.jpg" \
        && bad "--strip=gps left the GPS bytes of $k" || ok; }
done
"$GPUIMG" -q -f copy "$T/plain.jpg" "$T/plain.png" && meta png-prefix "$T/plain.png" "$T/prefix.png" || exit 99
expect_ok -q -f --strip=gps copy "$T/prefix.png" "$T/prefix-out.jpg"
got=$(meta pieces-show "$T/prefix-out.jpg")
case $got in "exif=yes gps=no gpsbytes=no "*) ok ;; *) bad "a PNG eXIf with JPEG's prefix, --strip=gps: $got" ;; esac
expect_fail 2 "--strip: each piece must be all, exif, gps, xmp, iptc, icc or comment, not 'gpx'" --strip=exif,gpx copy \
    "$T/pieces.jpg" "$T/bad.jpg"
expect_fail 2 "--keep: each piece must be exif, xmp, iptc, icc or comment, not 'all'" --keep=all copy \
    "$T/pieces.jpg" "$T/bad.jpg"

# a batch (the streamed PNG encoder on two threads) and the server keep it too
mkdir -p "$T/b"
expect_ok -q --backend=cpu --threads=2 resize=50% -o "$T/b/%s.png" "$T/in.jpg" "$T/bigexif.png"
check "batch, JPEG in" "$T/b/in.png" "icc=$ICC exif=26 orient=1 density=150x300"
check "batch, PNG in" "$T/b/bigexif.png" "icc=$ICC exif=70000 orient=1 density=96x96"
export GPUIMG_SERVER_DIR="$T/sd"
unset XDG_RUNTIME_DIR
GPUIMG_SERVER=1 run resize=50% "$T/in.jpg" "$T/srv.jpg"
[ "$RC" -eq 0 ] && grep -q 'served by the server' "$ERR" && ok || bad "through the server: exit $RC, $(cat "$ERR")"
check "through the server" "$T/srv.jpg" "icc=$ICC exif=26 orient=1 density=150x300"
GPUIMG_SERVER=1 run -f --strip=gps,comment copy "$T/pieces.jpg" "$T/srv-p.jpg"
got=$(meta pieces-show "$T/srv-p.jpg")
[ "$RC" -eq 0 ] && [ "$got" = "exif=yes gps=no gpsbytes=no $keep comment=none icc=$icc" ] && ok \
    || bad "--strip=gps,comment through the server: $got; $(cat "$ERR")"
"$GPUIMG" --server-stop >/dev/null 2>&1
finish
