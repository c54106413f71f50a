#!/bin/sh
# gpuimg bench: two builds side by side on the same machine in one call, to show that a change
# keeps the end-to-end figures level (or what it moved): each through its own warm server,
# interleaved so that drift hits both alike.
#   sh bench/level_check.sh OLD_GPUIMG NEW_GPUIMG [N]
# N JPEGs of 2560x1600 (bench/batch_inputs.sh, made from .bench/'s images): gray,resize=50% to
# PNG level 6, resize=50% to JPEG quality 90; then a shell loop of 40 one-file commands (one
# 2560x1600 JPEG to PNG), its median and 90th percentile wall time; each batch twice a build.
# The outputs of the two builds are compared byte for byte.
set -u
old=$1 new=$2 n=${3:-400}
. bench/batch_inputs.sh
batch_inputs /tmp/gpuimg-level "$n" || exit 1
cat "$d"/in/*.jpg >/dev/null
export GPUIMG_SERVER_DIR="$d/srv"
mkdir -p "$GPUIMG_SERVER_DIR" && chmod 700 "$GPUIMG_SERVER_DIR"
for b in "$old" "$new"; do   # each build's server, warm before anything is timed
    "$b" --server --server-idle=900 -q &
    "$b" -q --backend=gpu --force -o "$d/warm/%s.png" gray,resize=50% $(head -n 20 "$d/in/list.txt") 2>/dev/null
done
rate() { sed -n 's/.* \([0-9.]*\) images\/s.*/\1/p' | head -n 1; }
for round in 1 2; do
    for tag in old new; do
        b=$old
        [ $tag = new ] && b=$new
        rm -rf "$d/$tag-png" "$d/$tag-jpg"
        r1=$("$b" --no-progress -o "$d/$tag-png/%s.png" --from-list="$d/in/list.txt" gray,resize=50% 2>&1 | rate)
        r2=$("$b" --no-progress -o "$d/$tag-jpg/%s.jpg" --from-list="$d/in/list.txt" resize=50% 2>&1 | rate)
        echo "round $round $tag: PNG batch $r1 images/s, JPEG batch $r2 images/s"
    done
done
for tag in old new; do
    b=$old
    [ $tag = new ] && b=$new
    one=$(head -n 1 "$d/in/list.txt")
    : >"$d/$tag-loop.txt"
    for i in $(seq 1 40); do
        t0=$(date +%s%N)
        "$b" -q --force gray,resize=50% "$one" "$d/loop.png"
        t1=$(date +%s%N)
        echo $(((t1 - t0) / 1000)) >>"$d/$tag-loop.txt"
    done
    sort -n "$d/$tag-loop.txt" | awk -v t=$tag '{ v[NR] = $1 } END { printf "%s: one-file loop p50 %.1f ms, p90 %.1f ms (40 commands)\n", t, v[int(NR / 2)] / 1000, v[int(NR * 0.9)] / 1000 }'
done
for kind in png jpg; do
    diff -rq "$d/old-$kind" "$d/new-$kind" >/dev/null && echo "$kind outputs: the same bytes" \
        || echo "$kind outputs: DIFFER ($(diff -rq "$d/old-$kind" "$d/new-$kind" | head -n 3))"
done
"$old" --server-stop >/dev/null 2>&1
"$new" --server-stop >/dev/null 2>&1
