#!/usr/bin/python3
"""gpuimg tests: HEIC and AVIF inputs made and decoded by other programs than gpuimg's libheif,
for tests/heif.sh: pillow-heif (its own libheif 1.2x with libde265 and x265) for HEIC, Pillow's
libavif (dav1d or aom) for AVIF. Each input is an odd-sized crop of samples/elarun-640x400.png;
want-NAME.png is the independent decoder's reading of it.
    python3 -m pip install --target /tmp/ph pillow pillow-heif
    PYTHONPATH=/tmp/ph python3 tests/heif/make_heif.py
"""
import os

import numpy as np
import pillow_heif
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "..", "..", "samples", "elarun-640x400.png")


def main():
    im = Image.open(SRC).convert("RGB").crop((101, 57, 101 + 67, 57 + 45))
    a = np.asarray(im)
    alpha = np.tile(np.linspace(0, 255, 67).astype(np.uint8), (45, 1))
    rgba = Image.fromarray(np.dstack([a, alpha]), "RGBA")
    made = {}
    # HEIC, 8-bit RGB and RGBA, and 10-bit (16-bit samples given, 10 written)
    pillow_heif.from_pillow(im).save(os.path.join(HERE, "rgb8.heic"), quality=80)
    pillow_heif.from_pillow(rgba).save(os.path.join(HERE, "rgba8.heic"), quality=80)
    a16 = (a.astype(np.uint16) * 257)
    h16 = pillow_heif.from_bytes(mode="RGB;16", size=(67, 45), data=a16.tobytes())
    h16.save(os.path.join(HERE, "rgb10.heic"), quality=80, save_to_12bit=False)
    made["rgb8.heic"] = made["rgba8.heic"] = made["rgb10.heic"] = "heic"
    # AVIF, 8-bit RGB
    im.save(os.path.join(HERE, "rgb8.avif"), quality=80)
    made["rgb8.avif"] = "avif"
    for name, kind in made.items():
        path = os.path.join(HERE, name)
        if kind == "heic":
            h = pillow_heif.open_heif(path, convert_hdr_to_8bit=False)
            arr = np.asarray(h)
            if arr.dtype == np.uint16:   # 10 bits in the high bits of 16: as gpuimg scales them
                v = arr >> 6
                arr = ((v.astype(np.uint32) * 65535 + 511) // 1023).astype(np.uint16)
        else:
            arr = np.asarray(Image.open(path))
        out = os.path.join(HERE, "want-" + name.replace(".", "-") + ".png")
        if arr.dtype == np.uint16:
            import cv2   # Pillow writes no 16-bit RGB PNG
            cv2.imwrite(out, cv2.cvtColor(arr, cv2.COLOR_RGB2BGR if arr.shape[2] == 3 else cv2.COLOR_RGBA2BGRA))
        else:
            Image.fromarray(arr).save(out)
        print(name, os.path.getsize(path), "bytes;", out, arr.shape, arr.dtype)


if __name__ == "__main__":
    main()
