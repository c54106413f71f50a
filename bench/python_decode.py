"""A data loader's work through the Python module (issue 61's GPU goal), one call: JPEGs decoded
and resized to 224x224 into CUDA device arrays, in batches of B, with gpuimg.decode(...,
device="cuda"), against the command's batch of the same files and pipeline (one process, its
outputs PNG level 1 into /tmp; its own images/s line) and, where PyTorch is importable,
torchvision.io.decode_jpeg(device="cuda") + interpolate.
Usage: python3 bench/python_decode.py LISTFILE GPUIMG [B]  (PYTHONPATH=python GPUIMG_LIBRARY=...)."""
import os
import re
import shutil
import subprocess
import sys
import time

import gpuimg

PIPE = "resize=224x224!"


def main():
    listfile, exe = sys.argv[1], sys.argv[2]
    b = int(sys.argv[3]) if len(sys.argv) > 3 else 64
    paths = [p.strip() for p in open(listfile) if p.strip()]
    n = len(paths)
    # PYDEC_JOBS=16,32: contexts with those jobs too, beside the default (four a core on the GPU)
    jobs = [None] + [int(j) for j in os.environ.get("PYDEC_JOBS", "").split(",") if j]
    ctxs = {j: gpuimg.Context(jobs=j) if j else gpuimg.Context() for j in jobs}
    for ctx in ctxs.values():
        ctx.decode(paths[:b], pipeline=PIPE, device="cuda")   # the engines made, the kernels loaded
    for rnd in range(2):
        for j, ctx in ctxs.items():
            t = time.perf_counter()
            got = 0
            for i in range(0, n, b):
                out = ctx.decode(paths[i:i + b], pipeline=PIPE, device="cuda")
                got += len(out)
                del out
            dt = time.perf_counter() - t
            print(f"gpuimg.decode, batches of {b}, jobs {j or 'default'}, into device arrays: {n / dt:.1f} images/s "
                  f"({got} images, {ctx.backend})")
    ctx = gpuimg.Context()
    datas = [open(p, "rb").read() for p in paths]
    t = time.perf_counter()
    for i in range(0, n, b):
        out = ctx.decode(datas[i:i + b], pipeline=PIPE, device="cuda")
        del out
    print(f"gpuimg.decode of the files' bytes in memory into device arrays: {n / (time.perf_counter() - t):.1f} images/s")
    host = time.perf_counter()
    for i in range(0, n, b):
        ctx.decode(paths[i:i + b], pipeline=PIPE)
    print(f"gpuimg.decode into numpy arrays: {n / (time.perf_counter() - host):.1f} images/s")
    shutil.rmtree("/tmp/pydec-out", ignore_errors=True)
    r = subprocess.run([exe, "--no-server", "-o", "/tmp/pydec-out/%s.png", "--png-level=1", "--no-progress",
                        "--from-list=" + listfile, PIPE], capture_output=True, text=True)
    line = [x for x in r.stderr.splitlines() if "images/s" in x]
    print("the command, in process:", line[-1] if line else r.stderr[-300:])
    try:
        import torch
        import torchvision
        from torchvision.io import decode_jpeg, read_file
    except ImportError:
        print("no PyTorch here")
        return
    datas = [read_file(p) for p in paths]
    for rnd in range(2):
      t = time.perf_counter()
      for i in range(0, n, b):
          imgs = decode_jpeg(datas[i:i + b], device="cuda")
          out = [torch.nn.functional.interpolate(x[None].float(), size=(224, 224), mode="bilinear") for x in imgs]
      torch.cuda.synchronize()
      print(f"torchvision {torchvision.__version__} decode_jpeg(cuda) of the bytes in memory + interpolate: "
            f"{n / (time.perf_counter() - t):.1f} images/s")


main()
