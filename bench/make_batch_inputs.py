#!/usr/bin/env python3
"""gpuimg bench: N distinct JPEGs of WxH for the batch benchmarks, cut from the source images
(random crops of a random scale, flips, a brightness shift), 4:2:0.
    python3 bench/make_batch_inputs.py OUTDIR N W H SOURCE... [--quality Q] [--exif]
Quality 90 unless --quality; --exif gives each file a camera's APP1 Exif segment (make, model,
orientation 1, date: what vipsthumbnail and gpuimg read and carry). Each file is made from its
own seed, a process a core. Writes OUTDIR/img0000.jpg ... and OUTDIR/list.txt."""
import argparse, os, random, struct
from multiprocessing import Pool
import cv2
import numpy as np

A = None
SRCS = None


def exif_segment(i):
    """A little-endian TIFF header and IFD0 of Make, Model, Orientation, DateTime, as an APP1."""
    vals = [(0x010F, 2, b"gpuimg bench\0"), (0x0110, 2, b"camera-%04d\0" % i),
            (0x0112, 3, struct.pack("<HH", 1, 0)), (0x0132, 2, b"2026:11:28 12:00:00\0")]
    n = len(vals)
    data_at = 8 + 2 + 12 * n + 4
    ifd, extra = struct.pack("<H", n), b""
    for tag, typ, v in vals:
        count = len(v) if typ == 2 else 1
        if len(v) <= 4:
            ifd += struct.pack("<HHI", tag, typ, count) + v.ljust(4, b"\0")
        else:
            ifd += struct.pack("<HHII", tag, typ, count, data_at + len(extra))
            extra += v + (b"\0" if len(v) % 2 else b"")
    body = b"Exif\0\0" + b"II*\0" + struct.pack("<I", 8) + ifd + struct.pack("<I", 0) + extra
    return b"\xff\xe1" + struct.pack(">H", len(body) + 2) + body


def make(i):
    w, h = A.w, A.h
    rng = random.Random(i + 1)
    s = SRCS[i % len(SRCS)]
    scale = max(w / s.shape[1], h / s.shape[0]) * rng.uniform(1.0, 1.6)
    r = cv2.resize(s, (max(w, int(s.shape[1] * scale + 0.5)), max(h, int(s.shape[0] * scale + 0.5))),
                   interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC)
    x, y = rng.randrange(r.shape[1] - w + 1), rng.randrange(r.shape[0] - h + 1)
    c = r[y:y + h, x:x + w]
    if rng.random() < 0.5:
        c = c[:, ::-1]
    c = np.clip(c.astype(np.int16) + rng.randint(-20, 20), 0, 255).astype(np.uint8)
    params = [cv2.IMWRITE_JPEG_QUALITY, A.quality]
    if hasattr(cv2, "IMWRITE_JPEG_SAMPLING_FACTOR"):   # OpenCV 4.7 on; 4:2:0 is libjpeg's default
        params += [cv2.IMWRITE_JPEG_SAMPLING_FACTOR, cv2.IMWRITE_JPEG_SAMPLING_FACTOR_420]
    ok, buf = cv2.imencode(".jpg", c, params)
    if not ok:
        raise SystemExit("make_batch_inputs: OpenCV could not encode image %d" % i)
    data = buf.tobytes()
    if A.exif:
        data = data[:2] + exif_segment(i) + data[2:]
    name = os.path.join(A.out, f"img{i:04d}.jpg")
    with open(name, "wb") as f:
        f.write(data)
    return name


def main():
    global A, SRCS
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("n", type=int)
    ap.add_argument("w", type=int)
    ap.add_argument("h", type=int)
    ap.add_argument("sources", nargs="+")
    ap.add_argument("--quality", type=int, default=90)
    ap.add_argument("--exif", action="store_true")
    A = ap.parse_args()
    SRCS = [cv2.imread(p, cv2.IMREAD_COLOR) for p in A.sources]
    for p, s in zip(A.sources, SRCS):
        if s is None:
            raise SystemExit("make_batch_inputs: %s: OpenCV cannot read it" % p)
    os.makedirs(A.out, exist_ok=True)
    cv2.setNumThreads(1)
    with Pool() as pool:   # forked: the workers see A and SRCS
        names = pool.map(make, range(A.n))
    with open(os.path.join(A.out, "list.txt"), "w") as f:
        f.write("\n".join(names) + "\n")


if __name__ == "__main__":
    main()
