#!/usr/bin/python3
"""gpuimg tests: inputs with an Adobe RGB (1998) compatible profile and their colour converted to
sRGB by Pillow's ImageCms (LittleCMS through another binding and build), for tests/icc.sh: the
relative colorimetric intent, no black point compensation, into LittleCMS's own sRGB profile, as
gpuimg's --profile=srgb. The profile is Debian's icc-profiles-free compatibleWithAdobeRGB1998.icc.
    python3 -m pip install --target /tmp/ph pillow
    PYTHONPATH=/tmp/ph python3 tests/icc/make_icc.py
"""
import os
import struct
import zlib

import numpy as np
from PIL import Image, ImageCms

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "..", "..", "samples", "elarun-640x400.png")
ADOBE = "/usr/share/color/icc/compatibleWithAdobeRGB1998.icc"


def main():
    adobe = open(ADOBE, "rb").read()
    # a photograph's corner beside saturated colours (a hue sweep), where the gamuts differ most
    photo = np.asarray(Image.open(SRC).convert("RGB").crop((211, 97, 211 + 61, 97 + 37))).astype(np.float64)
    y, x = np.mgrid[0:37, 0:61]
    hsv = np.dstack([(x * 179 // 60).astype(np.uint8), (80 + y * 175 // 36).astype(np.uint8),
                     np.full((37, 61), 230, np.uint8)])
    sweep = np.asarray(Image.fromarray(hsv, "HSV").convert("RGB")).astype(np.float64)
    a = np.where(x[..., None] < 20, photo, sweep).astype(np.uint8)
    im = Image.fromarray(a, "RGB")
    alpha = np.tile(np.linspace(0, 255, 61).astype(np.uint8), (37, 1))
    im.save(os.path.join(HERE, "adobe-rgb8.png"), icc_profile=adobe)
    Image.fromarray(np.dstack([a, alpha]), "RGBA").save(os.path.join(HERE, "adobe-rgba8.png"), icc_profile=adobe)
    src = ImageCms.ImageCmsProfile(ADOBE)
    srgb = ImageCms.createProfile("sRGB")
    out = ImageCms.profileToProfile(im, src, srgb, renderingIntent=ImageCms.Intent.RELATIVE_COLORIMETRIC,
                                    outputMode="RGB")
    out.save(os.path.join(HERE, "want-rgb8.png"))
    o = np.asarray(out)
    Image.fromarray(np.dstack([o, alpha]), "RGBA").save(os.path.join(HERE, "want-rgba8.png"))
    # the same pixels at 16 bits (v * 257), the profile in iCCP: Pillow converts no 16-bit RGB, so
    # the test holds its result to the 8-bit one
    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
    rows = b"".join(b"\0" + r.astype(">u2").tobytes() for r in a.astype(np.uint16) * 257)
    with open(os.path.join(HERE, "adobe-rgb16.png"), "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 61, 37, 16, 2, 0, 0, 0))
                + chunk(b"iCCP", b"Adobe RGB\0\0" + zlib.compress(adobe)) + chunk(b"IDAT", zlib.compress(rows, 9))
                + chunk(b"IEND", b""))
    d = np.abs(o.astype(int) - a.astype(int))
    print("converted: mean change %.2f levels, max %d" % (d.mean(), d.max()))


if __name__ == "__main__":
    main()
