#!/bin/sh
# gpuimg bench: the OpenMP path beside OpenCV in one run. For each operation, the steady-state time
# of gpuimg's CPU implementation (bench/cpu_steady: same decoded input, output buffer reused) and of
# OpenCV's function for it (python3-opencv, same image, same thread count, dst reused), median of
# RUNS calls each, the pair repeated REPEATS times back to back so that both see the same machine.
#   make bench/cpu_steady && sh bench/cpu_steady.sh IMAGE [RUNS] [REPEATS]   (OPS="op ...": only those)
# Not part of make check: timings are recorded in bench/RESULTS.md, never asserted.
set -eu
img=$1 runs=${2:-21} repeats=${3:-2}
threads=${OMP_NUM_THREADS:-$(nproc)}
export OMP_NUM_THREADS=$threads
# the first python that has OpenCV (a pyenv's python3 may not see python3-opencv)
py=-
for p in ${PYTHON:-} python3 /usr/bin/python3; do
    if "$p" -c 'import cv2' 2>/dev/null; then
        py=$p
        break
    fi
done
cvver=$([ "$py" = - ] && echo "not found" || "$py" -c 'import cv2; print(cv2.__version__)')
echo "image: $img, median of $runs, $repeats repeats, $threads threads, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, OpenCV $cvver"
printf '%-28s %-22s %-22s\n' "operation" "gpuimg ms" "OpenCV ms"
opencv() {
    [ "$py" = - ] && { echo -; return; }
    "$py" - "$img" "$1" "$runs" "$threads" <<'PY'
import sys, time
import cv2
img, op, runs, threads = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
cv2.setNumThreads(threads)
a = cv2.imread(img, cv2.IMREAD_UNCHANGED)
h, w = a.shape[:2]
ops = {
    "gray": lambda d: cv2.cvtColor(a, cv2.COLOR_BGR2GRAY, dst=d),
    "resize=50%:filter=bilinear": lambda d: cv2.resize(a, ((w + 1) // 2, (h + 1) // 2), dst=d, interpolation=cv2.INTER_LINEAR),
    "resize=25%:filter=area": lambda d: cv2.resize(a, ((w + 2) // 4, (h + 2) // 4), dst=d, interpolation=cv2.INTER_AREA),
    # OpenCV's cubic and lanczos4 do not widen when shrinking: less work than ours there
    "resize=200%:filter=cubic": lambda d: cv2.resize(a, (2 * w, 2 * h), dst=d, interpolation=cv2.INTER_CUBIC),
    "resize=50%:filter=cubic": lambda d: cv2.resize(a, ((w + 1) // 2, (h + 1) // 2), dst=d, interpolation=cv2.INTER_CUBIC),
    "resize=50%:filter=lanczos3": lambda d: cv2.resize(a, ((w + 1) // 2, (h + 1) // 2), dst=d,
                                                       interpolation=cv2.INTER_LANCZOS4),
    "blur=2": lambda d: cv2.GaussianBlur(a, (13, 13), 2, dst=d),
    "transpose": lambda d: cv2.transpose(a, dst=d),
    "rotate=90": lambda d: cv2.rotate(a, cv2.ROTATE_90_CLOCKWISE, dst=d),
    "rotate=180": lambda d: cv2.rotate(a, cv2.ROTATE_180, dst=d),
    "flip=h": lambda d: cv2.flip(a, 1, dst=d),
    "flip=v": lambda d: cv2.flip(a, 0, dst=d),
}
d = ops[op](None)   # the output buffer, reused by every timed call
ts = []
for _ in range(runs):
    t = time.perf_counter(); ops[op](d); ts.append((time.perf_counter() - t) * 1e3)
ts.sort()
print("%.2f" % ts[len(ts) // 2])
PY
}
for op in ${OPS:-gray resize=50%:filter=bilinear resize=25%:filter=area resize=200%:filter=cubic resize=50%:filter=cubic \
    resize=50%:filter=lanczos3 blur=2 transpose rotate=90 rotate=180 flip=h flip=v}; do
    ours="" cv=""
    r=0
    while [ $r -lt "$repeats" ]; do
        ours="$ours $(bench/cpu_steady "$img" "$op" "$runs" | awk '{print $2}')"
        cv="$cv $(opencv "$op")"
        r=$((r + 1))
    done
    printf '%-28s %-22s %-22s\n' "$op" "$ours" "$cv"
done
