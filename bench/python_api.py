"""The Python module beside the command (issue 61's goals), one machine, one call:
  - gpuimg.run("gray,resize=50%", a) on a decoded image against the command's process time for the
    same steps (--backend=cpu, GPUIMG_STREAM=0: decoded, then run; the median of 15 commands);
  - the cost of a call beside its work: run("copy") on a 1x1 image, the median of 2000;
  - on a GPU: the same pipeline on a device image (the result left there) and on a host image
    through the GPU backend.
Usage: python3 bench/python_api.py IMAGE GPUIMG (PYTHONPATH=python GPUIMG_LIBRARY=libgpuimg.so.0)."""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import gpuimg

PIPE = "gray,resize=50%"


def median_ms(f, n):
    f()
    ts = []
    for _ in range(n):
        t = time.perf_counter()
        f()
        ts.append((time.perf_counter() - t) * 1e3)
    return statistics.median(ts)


def main():
    path, exe = sys.argv[1], sys.argv[2]
    ctx = gpuimg.Context(backend="cpu")
    a = ctx.read(path)
    print(f"image {a.shape} {a.dtype}, gpuimg {gpuimg.__version__}, {os.cpu_count()} cores")
    py = median_ms(lambda: ctx.run(PIPE, a), 30)
    proc = []
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, GPUIMG_STREAM="0", GPUIMG_SERVER="0")
        for i in range(15):
            subprocess.run([exe, "--backend=cpu", "--json=" + d + "/t.json", "-q", "--force", PIPE, path, d + "/o.png"],
                           env=env, check=True, capture_output=True)
            with open(d + "/t.json") as f:
                proc.append(json.load(f)["ms"]["process"])
    cmd = statistics.median(proc)
    print(f"cpu: gpuimg.run {py:.2f} ms, the command's process {cmd:.2f} ms: {py / cmd:.2f}x (goal <= 1.1x)")
    tiny = np.zeros((1, 1, 3), np.uint8)
    ov = median_ms(lambda: ctx.run("copy", tiny), 2000) * 1e3
    one = gpuimg.Context(backend="cpu", threads=1)
    ov1 = median_ms(lambda: one.run("copy", tiny), 2000) * 1e3
    print(f"a call's cost beside its work (1x1 copy): {ov:.1f} us, {ov1:.1f} us on one thread (goal < 50 us)")
    g = gpuimg.Context(backend="gpu")
    try:
        d = g.to_device(a)
    except gpuimg.Error as e:
        print(f"no GPU: {e}")
        return
    dev = median_ms(lambda: g.run(PIPE, d), 30)
    host = median_ms(lambda: g.run(PIPE, a), 30)
    print(f"gpu: device image in and out {dev:.2f} ms; host image through the GPU {host:.2f} ms")


main()
