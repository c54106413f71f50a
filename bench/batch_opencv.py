#!/usr/bin/env python3
"""gpuimg bench: the OpenCV-Python anchor for a batch, the same work as
`gpuimg -o OUT/%s.png gray,resize=50% INPUT...`: a thread pool over cv2.imread, cvtColor to grey,
resize to half with INTER_AREA and imwrite as PNG at a zlib level. --four adds blur=2 (a 13-tap
GaussianBlur, reflect101) and transpose (gray,resize=50%,blur=2,transpose); --jpeg Q writes JPEG
at quality Q instead. cv2 releases the GIL inside each call, so the threads use the cores.
    python3 bench/batch_opencv.py LIST OUTDIR [--threads N] [--level L] [--four] [--jpeg Q]
Prints one line: files, seconds, images/s, peak resident memory."""
import argparse, os, resource, sys, time
from concurrent.futures import ThreadPoolExecutor
import cv2


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("list")
    ap.add_argument("outdir")
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--level", type=int, default=6)
    ap.add_argument("--four", action="store_true")
    ap.add_argument("--jpeg", type=int, default=0)
    a = ap.parse_args()
    files = [l.strip() for l in open(a.list) if l.strip()]
    os.makedirs(a.outdir, exist_ok=True)
    cv2.setNumThreads(1)   # the pool gives the parallelism, one file a thread
    params = [cv2.IMWRITE_JPEG_QUALITY, a.jpeg] if a.jpeg else [cv2.IMWRITE_PNG_COMPRESSION, a.level]
    ext = ".jpg" if a.jpeg else ".png"

    def one(path):
        im = cv2.imread(path, cv2.IMREAD_COLOR)
        if im is None:
            return 1
        g = cv2.cvtColor(im, cv2.COLOR_BGR2GRAY)
        h = cv2.resize(g, (g.shape[1] // 2, g.shape[0] // 2), interpolation=cv2.INTER_AREA)
        if a.four:
            h = cv2.GaussianBlur(h, (13, 13), 2, borderType=cv2.BORDER_REFLECT_101).T.copy()
        name = os.path.splitext(os.path.basename(path))[0] + ext
        return 0 if cv2.imwrite(os.path.join(a.outdir, name), h, params) else 1

    t0 = time.perf_counter()
    with ThreadPoolExecutor(a.threads) as ex:
        failed = sum(ex.map(one, files))
    s = time.perf_counter() - t0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"opencv {cv2.__version__}: {len(files)} files, {failed} failed, {s:.2f} s, {len(files) / s:.1f} images/s, "
          f"{a.threads} threads, {f'JPEG quality {a.jpeg}' if a.jpeg else f'PNG level {a.level}'}"
          f"{', 4 steps' if a.four else ''}, peak {rss:.0f} MiB")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
