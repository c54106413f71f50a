#!/bin/sh
# gpuimg sample: process every image of a folder with one pipeline, one gpuimg call per file.
#   samples/batch.sh PIPELINE INDIR OUTDIR [EXTENSION]
# Writes OUTDIR/NAME.EXTENSION (default png) for each INDIR/NAME.{png,jpg,jpeg,bmp,tga}, skips
# outputs that already exist (delete them, or add --force below, to redo), goes on past a failing
# file, and ends with a summary; exit status 1 if any file failed.
set -u
if [ $# -lt 3 ]; then
    echo "usage: $0 PIPELINE INDIR OUTDIR [EXTENSION]" >&2
    exit 2
fi
pipeline=$1 indir=$2 outdir=$3 ext=${4:-png}
gpuimg=${GPUIMG:-gpuimg}
mkdir -p "$outdir" || exit 1
done_n=0 failed=0 skipped=0
start=$(date +%s)
for f in "$indir"/*.png "$indir"/*.jpg "$indir"/*.jpeg "$indir"/*.bmp "$indir"/*.tga; do
    [ -e "$f" ] || continue
    name=$(basename "$f")
    out="$outdir/${name%.*}.$ext"
    if [ -e "$out" ]; then
        skipped=$((skipped + 1))
        continue
    fi
    if "$gpuimg" -q "$pipeline" "$f" "$out"; then
        done_n=$((done_n + 1))
    else
        failed=$((failed + 1))   # gpuimg has already said which file and why
    fi
done
echo "batch: done $done_n, failed $failed, skipped $skipped in $(( $(date +%s) - start )) s"
[ "$failed" -eq 0 ]
