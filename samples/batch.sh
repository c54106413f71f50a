#!/bin/sh
# gpuimg sample: process every image of a folder with one pipeline, in one gpuimg process.
#   samples/batch.sh PIPELINE INDIR OUTDIR [EXTENSION]
# Writes OUTDIR/NAME.EXTENSION (default png) for each INDIR/NAME.{png,jpg,jpeg,bmp,tga}. gpuimg
# skips outputs that already exist (add --force below to redo them), goes on past a failing file
# and ends with a summary; exit status 1 if any file failed.
set -u
if [ $# -lt 3 ]; then
    echo "usage: $0 PIPELINE INDIR OUTDIR [EXTENSION]" >&2
    exit 2
fi
pipeline=$1 indir=$2 outdir=$3 ext=${4:-png}
find "$indir" -maxdepth 1 -type f \( -iname '*.png' -o -iname '*.jpg' -o -iname '*.jpeg' -o -iname '*.bmp' \
    -o -iname '*.tga' \) | sort |
    "${GPUIMG:-gpuimg}" -o "$outdir/%s.$ext" --from-list=- "$pipeline"
