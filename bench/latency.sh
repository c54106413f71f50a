#!/bin/sh
# gpuimg bench: one file's wall time through the warm server, piece by piece (issue 57 item 6).
# For each way of running one 2560x1600 JPEG through gray,resize=50% to PNG 6 (or $PIPE to
# $EXT): N calls one after the other, their p50 and p90 (wall time measured by a C-free clock:
# python's, around each process), and the server's own stage times of one call (-v). Also the
# process alone (--help) and an empty process (true), so that wall = start + request + the
# server's run + reply.
#   sh bench/latency.sh [N]
set -u
n=${1:-60}
pipe=${PIPE:-gray,resize=50%}
ext=${EXT:-png}
. bench/batch_inputs.sh
batch_inputs /tmp/gpuimg-lat 20 >/dev/null || exit 1
ls "$d"/in/*.jpg >"$d/files.txt"
export GPUIMG_SERVER_DIR="$d/sd"
G=$PWD/gpuimg
"$G" --server-stop >/dev/null 2>&1
"$G" -q -f --backend=gpu "$pipe" "$(head -n 1 "$d/files.txt")" "$d/warm.$ext"   # starts the server
for i in 1 2 3; do "$G" -q -f "$pipe" "$(head -n 1 "$d/files.txt")" "$d/warm.$ext"; done
python3 - "$G" "$n" "$d" "$pipe" "$ext" <<'PY'
import statistics, subprocess, sys, time
g, n, d, pipe, ext = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
files = [l.strip() for l in open(d + "/files.txt")]
def walls(cmd_of):
    xs = []
    for i in range(n):
        cmd = cmd_of(files[i % len(files)])
        t = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        xs.append((time.perf_counter() - t) * 1000)
    xs.sort()
    return "p50 %.2f ms, p90 %.2f ms" % (xs[len(xs) // 2], xs[len(xs) * 9 // 10])
print("true:", walls(lambda f: ["true"]))
print("gpuimg --help:", walls(lambda f: [g, "--help"]))
for label, opts in [("default", []), ("--png-encoder=cpu", ["--png-encoder=cpu"]),
                    ("--jpeg-decoder=libjpeg", ["--jpeg-decoder=libjpeg"]),
                    ("--backend=cpu (in the server)", ["--backend=cpu"])]:
    if ext != "png" and "png" in label:
        continue
    w = walls(lambda f: [g, "-q", "-f"] + opts + [pipe, f, d + "/o." + ext])
    v = subprocess.run([g, "-v", "-f"] + opts + [pipe, files[0], d + "/o." + ext], capture_output=True, text=True).stderr
    line = [l for l in v.splitlines() if "total" in l]
    print("%s: %s; one call: %s" % (label, w, line[0].replace("gpuimg: ", "") if line else v.strip()))
PY
"$G" --server-status | cut -c1-300
"$G" --server-stop >/dev/null 2>&1
