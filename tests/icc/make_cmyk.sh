#!/bin/sh
# gpuimg tests: a CMYK JPEG whose colours only its embedded profile gives right, and its colours
# in sRGB as vips converts them (icc_transform through the embedded profile, relative
# colorimetric, into vips's sRGB), for tests/icc.sh. The profile is LittleCMS's, made by
# tests/icc/mkcmyk.c from a plain ink model; ImageMagick turns the sample's sRGB into its CMYK.
#   sh tests/icc/make_cmyk.sh      (Debian: liblcms2-dev, imagemagick, libvips-tools)
set -eu
here=$(dirname "$0")
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
cc -O2 "$here/mkcmyk.c" -llcms2 -o "$t/mkcmyk"
"$t/mkcmyk" "$t/cmyk.icc"
convert "$here/../../samples/elarun-640x400.png" -crop 61x37+211+97 +repage \
    -profile /usr/share/color/icc/ghostscript/srgb.icc -intent relative -profile "$t/cmyk.icc" -quality 95 \
    "$here/cmyk-icc.jpg"
vips icc_transform "$here/cmyk-icc.jpg" "$here/want-cmyk.png" srgb --embedded --intent relative
