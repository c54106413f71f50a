#!/bin/sh
# gpuimg bench: one-file commands in a shell loop, with and without the server (issue figures:
# the loop against --backend=cpu, a warm call's latency, parallel clients against one batch).
# JPEGs of 2560x1600 (bench/batch_inputs.sh) -> gray,resize=50% -> PNG, on the GPU machine after a
# build; the server gets a directory of its own. Prints, each on a line:
# - loops of N one-file calls: the default (the server; the first call starts it), --backend=cpu,
#   --no-server (auto: the CPU for one file), --no-server --backend=gpu (a context a call);
# - p50, p90, p99 and max of a call's wall time with the server warm (N calls, one at a time);
# - a process's own start (gpuimg --help), and the dynamic loader's share of it;
# - xargs -P 16 over M one-file calls through the server, against one batch process of the same
#   M files (the server's and in-process), and OpenCV's thread pool;
# - crossover: K files as a batch, --no-server, on the CPU and on the GPU, and through a cold
#   server (started by the command), for K in 1 10 50 100 200 500 1000.
#   sh bench/server.sh [N] [M]
set -u
n=${1:-200}
m=${2:-1000}
. bench/batch_inputs.sh
batch_inputs /tmp/gpuimg-server 200 >/dev/null || exit 1
i=200
while [ "$i" -lt "$m" ]; do
    ln -s "$d/in/$(sed -n "$((i % 200 + 1))p" "$d/in/list.txt" | xargs basename)" "$d/in/r$i.jpg"
    i=$((i + 1))
done
ls "$d"/in/*.jpg >"$d/all.txt"
head -n "$n" "$d/all.txt" >"$d/loop.txt"
cat "$d"/in/*.jpg >/dev/null
export GPUIMG_SERVER_DIR="$d/sd"
G=$PWD/gpuimg
echo "inputs: $m JPEGs 2560x1600, gray,resize=50% to PNG 6; $(nproc) cores; $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)"
now() { date +%s%N; }
loop() {   # LABEL OPTIONS...: N calls one after the other
    label=$1
    shift
    rm -rf "$d/o"
    mkdir -p "$d/o"
    t0=$(now)
    while read -r f; do
        "$G" -q "$@" gray,resize=50% "$f" "$d/o/$(basename "$f").png" || echo "failed: $f"
    done <"$d/loop.txt"
    t1=$(now)
    echo "loop of $n, $label: $(( (t1 - t0) / 1000000 )) ms, $(( (t1 - t0) / 1000 / n )) us a call"
}
"$G" --server-stop >/dev/null 2>&1
loop "default (server started by the first call)"
loop "default, server warm"
loop "--backend=cpu" --backend=cpu
loop "--no-server (auto: CPU)" --no-server
loop "--no-server --backend=gpu" --no-server --backend=gpu
# latency with the server warm
rm -f "$d/lat"
while read -r f; do
    t0=$(now)
    "$G" -q -f gray,resize=50% "$f" "$d/o/lat.png"
    echo $(( ($(now) - t0) / 1000 )) >>"$d/lat"
done <"$d/loop.txt"
sort -n "$d/lat" >"$d/lat.s"
pct() { sed -n "$(( ($(wc -l <"$d/lat.s") * $1 + 99) / 100 ))p" "$d/lat.s"; }
echo "warm call wall time, $n calls: p50 $(pct 50) us, p90 $(pct 90) us, p99 $(pct 99) us, max $(tail -n 1 "$d/lat.s") us"
"$G" -v -f gray,resize=50% "$(head -n 1 "$d/loop.txt")" "$d/o/one.png" 2>&1 | sed 's/^/    /'
# the process alone: start, parse, exit (what every call of a loop pays before any work)
t0=$(now)
i=0
while [ $i -lt 100 ]; do "$G" --help >/dev/null; i=$((i + 1)); done
echo "gpuimg --help, 100 times: $(( ($(now) - t0) / 100000 )) us a process; $(ldd "$G" | wc -l) shared libraries"
LD_DEBUG=statistics "$G" --help 2>&1 >/dev/null | grep -E 'total startup time|time needed for relocation' | sed 's/^ *[0-9]*: */    /'
# parallel clients against one batch: xargs runs gpuimg itself, 16 at once
rm -rf "$d/p"
mkdir -p "$d/p"
sed "s|.*/\(.*\)|& $d/p/\1.png|" "$d/all.txt" >"$d/pairs.txt"
t0=$(now)
xargs -P 16 -L 1 "$G" -q gray,resize=50% <"$d/pairs.txt"
t1=$(now)
echo "xargs -P 16, $m one-file calls through the server: $(( (t1 - t0) / 1000000 )) ms, $(( m * 1000000000 / (t1 - t0) )) images/s"
for how in "" "--no-server --backend=gpu"; do
    rm -rf "$d/b"
    # shellcheck disable=SC2086
    "$G" $how --no-progress -o "$d/b/%s.png" --from-list="$d/all.txt" gray,resize=50% 2>&1 >/dev/null | head -n 1 \
        | sed "s/^/one batch process ${how:-through the server}: /"
done
rm -rf "$d/cv"
python3 bench/batch_opencv.py "$d/all.txt" "$d/cv" --level 6 | sed 's/^/    /'
# crossover: K files, a process on the CPU, on the GPU, and a cold server (CROSSOVER=0: none)
[ "${CROSSOVER:-1}" = 0 ] && { "$G" --server-stop >/dev/null 2>&1; exit 0; }
"$G" --server-stop >/dev/null 2>&1
for k in 1 10 50 100 200 500 1000; do
    head -n "$k" "$d/all.txt" >"$d/k.txt"
    for how in "--no-server --backend=cpu" "--no-server --backend=gpu" "--backend=gpu"; do
        "$G" --server-stop >/dev/null 2>&1
        sleep 0.3
        rm -rf "$d/k"
        t0=$(now)
        # shellcheck disable=SC2086
        "$G" -q $how --no-progress -o "$d/k/%s.png" --from-list="$d/k.txt" gray,resize=50%
        echo "crossover: $k files, $how$([ "$how" = --backend=gpu ] && echo ' (cold server)'): $(( ($(now) - t0) / 1000000 )) ms"
    done
done
"$G" --server-stop >/dev/null 2>&1
