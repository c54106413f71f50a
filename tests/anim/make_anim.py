#!/usr/bin/python3
"""gpuimg tests: an animated WebP of three lossless RGBA frames of 33x21 (the first half
transparent) made by Pillow, and want-anim-webp.png, its first frame as Pillow decodes it: what
gpuimg reads from an animation (tests/webp_tiff.sh).
    python3 -m pip install --target /tmp/ph pillow
    PYTHONPATH=/tmp/ph python3 tests/anim/make_anim.py
"""
import os

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    frames = []
    for i in range(3):
        a = np.zeros((21, 33, 4), np.uint8)
        a[..., 0] = 40 * i + 30
        a[..., 1] = np.arange(33) * 7
        a[..., 2] = np.arange(21)[:, None] * 11
        a[..., 3] = 255 if i else 128
        frames.append(Image.fromarray(a, "RGBA"))
    path = os.path.join(HERE, "anim.webp")
    frames[0].save(path, save_all=True, append_images=frames[1:], duration=100, loop=0, lossless=True)
    im = Image.open(path)
    assert im.n_frames == 3
    im.seek(0)
    im.convert("RGBA").save(os.path.join(HERE, "want-anim-webp.png"))


if __name__ == "__main__":
    main()
