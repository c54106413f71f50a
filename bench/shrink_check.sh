#!/bin/sh
# gpuimg bench: shrink on load (the CPU's default) against the full decode (--exact) on
# photographs, through four thumbnail pipelines: the largest and mean difference and the PSNR of
# each, the figures the man page states (--shrink-on-load). JPEG inputs as they are, PNG ones
# encoded as JPEG quality 92 first (OpenCV), and a 4032x3024 camera-sized one from the first JPEG.
#   sh bench/shrink_check.sh IMAGE...        (after a build; PYTHON=python3 with OpenCV)
set -u
py=${PYTHON:-python3}
d=${TMPDIR:-/tmp}/gpuimg-shrink
rm -rf "$d" && mkdir -p "$d"
for f in "$@"; do
    case $f in
    *.png) $py -c "import cv2, sys; cv2.imwrite(sys.argv[2], cv2.imread(sys.argv[1]), [cv2.IMWRITE_JPEG_QUALITY, 92])" \
               "$f" "$d/$(basename "$f" .png).jpg" ;;
    *) cp "$f" "$d/" ;;
    esac
done
first=$(ls "$d"/*.jpg | head -n 1)
$py -c "import cv2, sys; cv2.imwrite(sys.argv[2], cv2.resize(cv2.imread(sys.argv[1]), (4032, 3024), interpolation=cv2.INTER_AREA), [cv2.IMWRITE_JPEG_QUALITY, 92])" \
    "$first" "$d/camera-4032x3024.jpg"
for f in "$d"/*.jpg; do
    for p in resize=800x resize=256x resize=12.5% gray,resize=400x; do
        ./gpuimg -q -f --backend=cpu "$p" "$f" "$d/shrunk.png" && ./gpuimg -q -f --backend=cpu --exact "$p" "$f" "$d/full.png" \
            && echo "$(basename "$f") $p: $(tests/golden_test --diff "$d/shrunk.png" "$d/full.png" 255)"
    done
done
