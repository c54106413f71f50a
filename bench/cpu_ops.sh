#!/bin/sh
# gpuimg bench: in-process time of each operation on the OpenMP path, median of N runs, read from
# gpuimg's own --json report (process milliseconds: the operation only, no decode or encode),
# with OpenCV's time for the same operation beside it when python3 can import cv2.
#   bench/cpu_ops.sh IMAGE [RUNS] [THREADS]
# Not part of make check: timings are measured and recorded (bench/RESULTS.md), never asserted.
set -eu
img=$1 runs=${2:-15} threads=${3:-$(nproc)}
gpuimg=${GPUIMG:-./gpuimg}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
echo "image: $img, $runs runs, $threads threads, $(date -u +%Y-%m-%dT%H:%MZ), $(uname -m), $(nproc) cores"
printf '%-34s %10s %10s\n' "pipeline" "gpuimg ms" "OpenCV ms"
for pipe in gray resize=50%:filter=bilinear resize=25%:filter=area blur=2 transpose rotate=90 flip=h gray,resize=50%,blur=2,transpose; do
    i=0
    : >"$tmp/t"
    while [ $i -lt "$runs" ]; do
        "$gpuimg" -q --threads="$threads" --backend=cpu --png-level=0 --json=- "$pipe" "$img" "$tmp/o.png" --force \
            | sed -n 's/.*"process": \([0-9.]*\).*/\1/p' >>"$tmp/t"
        i=$((i + 1))
    done
    ours=$(median <"$tmp/t")
    cv=$(python3 - "$img" "$pipe" "$runs" "$threads" 2>/dev/null <<'PY' || echo "-"
import sys, time
import cv2
img, pipe, runs, threads = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
cv2.setNumThreads(threads)
a = cv2.imread(img, cv2.IMREAD_UNCHANGED)
h, w = a.shape[:2]
ops = {
    "gray": lambda a: cv2.cvtColor(a, cv2.COLOR_BGR2GRAY),
    "resize=50%:filter=bilinear": lambda a: cv2.resize(a, ((w + 1) // 2, (h + 1) // 2), interpolation=cv2.INTER_LINEAR),
    "resize=25%:filter=area": lambda a: cv2.resize(a, ((w + 2) // 4, (h + 2) // 4), interpolation=cv2.INTER_AREA),
    "blur=2": lambda a: cv2.GaussianBlur(a, (13, 13), 2),
    "transpose": lambda a: cv2.transpose(a),
    "rotate=90": lambda a: cv2.rotate(a, cv2.ROTATE_90_CLOCKWISE),
    "flip=h": lambda a: cv2.flip(a, 1),
}
if pipe not in ops:
    print("-"); sys.exit()
ts = []
for _ in range(runs):
    t = time.perf_counter(); ops[pipe](a); ts.append((time.perf_counter() - t) * 1e3)
ts.sort()
print("%.2f" % ts[len(ts) // 2])
PY
)
    printf '%-34s %10s %10s\n' "$pipe" "$ours" "$cv"
done
