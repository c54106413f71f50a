#!/usr/bin/env python3
"""gpuimg bench: the OpenCV-Python anchor for the thumbnail job, the same work as
`gpuimg -o OUT/%s.jpg --jpeg-quality=Q resize=Wx INPUT...`: a thread pool (a thread a core) over
cv2.imread, resize to W wide with INTER_AREA and imwrite as JPEG (or --format webp: WebP) at
quality Q. --reduced reads
with IMREAD_REDUCED_COLOR_2, _4 or _8 (libjpeg's DCT scaling) by vipsthumbnail's rule (the largest
factor leaving the resize at least 2x), as shrink-on-load does.
    python3 bench/thumbs_opencv.py LIST OUTDIR WIDTH [--quality Q] [--format jpg|webp] [--reduced] [--threads N]
Prints one line: files, seconds, images/s, the outputs' bytes."""
import argparse, os, struct, sys, time
from concurrent.futures import ThreadPoolExecutor
import cv2

REDUCED = {1: cv2.IMREAD_COLOR, 2: cv2.IMREAD_REDUCED_COLOR_2, 4: cv2.IMREAD_REDUCED_COLOR_4,
           8: cv2.IMREAD_REDUCED_COLOR_8}


def jpeg_size(path):
    """A JPEG's width and height from its frame header (the reduced read needs them first)."""
    with open(path, "rb") as f:
        data = f.read(1 << 20)
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            i += 1
            continue
        m = data[i + 1]
        seg = struct.unpack(">H", data[i + 2:i + 4])[0]
        if 0xC0 <= m <= 0xCF and m not in (0xC4, 0xC8, 0xCC):
            h, w = struct.unpack(">HH", data[i + 5:i + 9])
            return w, h
        i += 2 + seg
    return 0, 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("list")
    ap.add_argument("outdir")
    ap.add_argument("width", type=int)
    ap.add_argument("--quality", type=int, default=85)
    ap.add_argument("--format", choices=["jpg", "webp"], default="jpg")
    ap.add_argument("--reduced", action="store_true")
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    a = ap.parse_args()
    files = [l.strip() for l in open(a.list) if l.strip()]
    os.makedirs(a.outdir, exist_ok=True)
    cv2.setNumThreads(1)   # the pool gives the parallelism, one file a thread

    def one(path):
        f = 1
        if a.reduced:
            w, h = jpeg_size(path)
            th = h * a.width // w if w else 0
            for k in (8, 4, 2):
                if w and (w + k - 1) // k >= 2 * a.width and (h + k - 1) // k >= 2 * th:
                    f = k
                    break
        im = cv2.imread(path, REDUCED[f])
        if im is None:
            return -1
        h = max(1, round(im.shape[0] * a.width / im.shape[1]))
        t = cv2.resize(im, (a.width, h), interpolation=cv2.INTER_AREA)
        name = os.path.join(a.outdir, os.path.splitext(os.path.basename(path))[0] + "." + a.format)
        q = cv2.IMWRITE_JPEG_QUALITY if a.format == "jpg" else cv2.IMWRITE_WEBP_QUALITY
        if not cv2.imwrite(name, t, [q, a.quality]):
            return -1
        return os.path.getsize(name)

    t0 = time.perf_counter()
    with ThreadPoolExecutor(a.threads) as pool:
        sizes = list(pool.map(one, files))
    dt = time.perf_counter() - t0
    bad = sum(1 for s in sizes if s < 0)
    print("opencv%s %s: %d files in %.2f s, %.1f images/s, %d bytes%s" % (
        " reduced" if a.reduced else "", cv2.__version__, len(files), dt, len(files) / dt,
        sum(s for s in sizes if s > 0), ", %d failed" % bad if bad else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
