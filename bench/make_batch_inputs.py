#!/usr/bin/env python3
"""gpuimg bench: N distinct JPEGs of WxH for the batch benchmark, cut from the source images
(random crops of a random scale, flips, a brightness shift), quality 90.
    python3 bench/make_batch_inputs.py OUTDIR N W H SOURCE...
Writes OUTDIR/img0000.jpg ... and OUTDIR/list.txt."""
import os, random, sys
import cv2
import numpy as np


def main():
    out, n, w, h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    srcs = [cv2.imread(p, cv2.IMREAD_COLOR) for p in sys.argv[5:]]
    os.makedirs(out, exist_ok=True)
    rng = random.Random(1)
    names = []
    for i in range(n):
        s = srcs[i % len(srcs)]
        scale = max(w / s.shape[1], h / s.shape[0]) * rng.uniform(1.0, 1.6)
        r = cv2.resize(s, (max(w, int(s.shape[1] * scale + 0.5)), max(h, int(s.shape[0] * scale + 0.5))),
                       interpolation=cv2.INTER_AREA)
        x, y = rng.randrange(r.shape[1] - w + 1), rng.randrange(r.shape[0] - h + 1)
        c = r[y:y + h, x:x + w]
        if rng.random() < 0.5:
            c = c[:, ::-1]
        c = np.clip(c.astype(np.int16) + rng.randint(-20, 20), 0, 255).astype(np.uint8)
        name = os.path.join(out, f"img{i:04d}.jpg")
        cv2.imwrite(name, c, [cv2.IMWRITE_JPEG_QUALITY, 90])
        names.append(name)
    with open(os.path.join(out, "list.txt"), "w") as f:
        f.write("\n".join(names) + "\n")


if __name__ == "__main__":
    main()
