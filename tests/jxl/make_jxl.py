#!/usr/bin/python3
"""gpuimg tests: JPEG XL inputs made, and decoded, by libjxl's own tools (cjxl and djxl of Debian's
libjxl-tools 0.7.0), not by gpuimg, for tests/jxl.sh. The sources are odd-sized crops of
samples/elarun-640x400.png (numpy and OpenCV); want-NAME.png is what NAME.jxl must read as: the
source itself where the file is lossless, djxl's decoding where it is lossy or turned.
    /usr/bin/python3 tests/jxl/make_jxl.py      (python3-opencv, python3-numpy, libjxl-tools)

  rgb8.jxl     lossy (cjxl -d 1), 67x45 RGB              want: djxl's decoding
  rgba8.jxl    lossy, 67x45 RGBA (alpha a ramp)           want: djxl's decoding
  grey8.jxl    lossless (cjxl -d 0), 33x17 grey           want: the source
  rgb16.jxl    lossless, 33x17 RGB of 16 bits             want: the source
  lossless.jxl lossless, 67x45 RGB                        want: the source
  float.jxl    lossless, 33x17 RGB of 32-bit floats (a PFM, which cjxl takes as sRGB): read as 16 bits
               want: djxl's decoding at 16 bits
  orient.jxl   a JPEG of 33x17 whose EXIF says orientation 6 (90 degrees clockwise) and which has
               XMP, recompressed losslessly by cjxl (the codestream's orientation 6; Exif and xml
               boxes, Brotli-compressed)         want: djxl's decoding (17x33)
  anim.jxl     an APNG of three 33x17 RGBA frames of 100 ms, lossless     want: its first frame
  icc.jxl      lossless, tests/icc/adobe-rgb8.png (an Adobe RGB compatible ICC profile)
               want: the source, its profile kept
"""
import os
import struct
import subprocess
import tempfile
import zlib

import cv2
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "..", "..", "samples", "elarun-640x400.png")
ICC_SRC = os.path.join(HERE, "..", "icc", "adobe-rgb8.png")


def chunk(t, d):
    return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)


def apng(frames, delay_ms):
    """An animated PNG of RGBA frames (8-bit, filter 0), each shown delay_ms."""
    h, w = frames[0].shape[:2]
    s = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0))
    s += chunk(b"acTL", struct.pack(">II", len(frames), 0))
    seq = 0
    for i, f in enumerate(frames):
        s += chunk(b"fcTL", struct.pack(">IIIIIHHBB", seq, w, h, 0, 0, delay_ms, 1000, 0, 0))
        seq += 1
        data = zlib.compress(b"".join(b"\0" + f[y].tobytes() for y in range(h)))
        if i == 0:
            s += chunk(b"IDAT", data)
        else:
            s += chunk(b"fdAT", struct.pack(">I", seq) + data)
            seq += 1
    return s + chunk(b"IEND", b"")


def exif_orientation(o):
    """EXIF (little-endian TIFF) with IFD0's orientation alone."""
    return b"II*\0" + struct.pack("<IH", 8, 1) + struct.pack("<HHIHH", 0x0112, 3, 1, o, 0) + struct.pack("<I", 0)


XMP = (b'<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/">'
       b'<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" '
       b'xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:creator>make_jxl</dc:creator></rdf:Description>'
       b'</rdf:RDF></x:xmpmeta><?xpacket end="r"?>')


def with_app1(jpg, payloads):
    """A JPEG with APP1 segments put after SOI."""
    segs = b"".join(b"\xff\xe1" + struct.pack(">H", len(p) + 2) + p for p in payloads)
    return jpg[:2] + segs + jpg[2:]


def run(*args):
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def djxl(src, dst, *extra):
    """djxl's decoding of src as an array (BGR order, as OpenCV reads), saved by OpenCV to dst."""
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "out.png")
        run("djxl", src, out, *extra)
        a = cv2.imread(out, cv2.IMREAD_UNCHANGED)
    cv2.imwrite(dst, a)
    return a


def main():
    src = cv2.imread(SRC, cv2.IMREAD_UNCHANGED)[:, :, :3]   # BGR
    big = src[57:57 + 45, 101:101 + 67]
    small = src[211:211 + 17, 301:301 + 33]
    made = []
    with tempfile.TemporaryDirectory() as d:
        def cjxl(name, image, *args):
            png = os.path.join(d, name + ".png")
            cv2.imwrite(png, image)
            run("cjxl", png, os.path.join(HERE, name + ".jxl"), *args)
            made.append(name)
            return png

        ramp = np.tile(np.linspace(0, 255, 67).astype(np.uint8), (45, 1))
        cjxl("rgb8", big, "-d", "1")
        cjxl("rgba8", np.dstack([big, ramp]), "-d", "1")
        for name in ("rgb8", "rgba8"):
            djxl(os.path.join(HERE, name + ".jxl"), os.path.join(HERE, "want-" + name + ".png"))
        grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
        cv2.imwrite(os.path.join(HERE, "want-grey8.png"), grey)
        cjxl("grey8", grey, "-d", "0")
        rgb16 = small.astype(np.uint16) * 257 + np.arange(33, dtype=np.uint16)[None, :, None] * 3
        cv2.imwrite(os.path.join(HERE, "want-rgb16.png"), rgb16)
        cjxl("rgb16", rgb16, "-d", "0")
        cv2.imwrite(os.path.join(HERE, "want-lossless.png"), big)
        cjxl("lossless", big, "-d", "0")

        # floats: a PFM (little-endian, bottom row first)
        f = (small[:, :, ::-1].astype(np.float32) / 255.0) ** 2.2
        pfm = os.path.join(d, "float.pfm")
        with open(pfm, "wb") as o:
            o.write(b"PF\n33 17\n-1.0\n" + np.ascontiguousarray(f[::-1]).astype("<f4").tobytes())
        run("cjxl", pfm, os.path.join(HERE, "float.jxl"), "-d", "0")
        made.append("float")
        djxl(os.path.join(HERE, "float.jxl"), os.path.join(HERE, "want-float.png"), "--bits_per_sample=16")

        # turned by its EXIF orientation, with XMP: cjxl recompresses the JPEG losslessly
        ok, jpg = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, 90])
        jpg = with_app1(jpg.tobytes(), [b"Exif\0\0" + exif_orientation(6), b"http://ns.adobe.com/xap/1.0/\0" + XMP])
        jpath = os.path.join(d, "orient.jpg")
        with open(jpath, "wb") as o:
            o.write(jpg)
        run("cjxl", jpath, os.path.join(HERE, "orient.jxl"))
        made.append("orient")
        a = djxl(os.path.join(HERE, "orient.jxl"), os.path.join(HERE, "want-orient.png"))
        assert a.shape[:2] == (33, 17), a.shape

        # an animation: three frames, the first half transparent
        frames = []
        for i in range(3):
            a = np.zeros((17, 33, 4), np.uint8)
            a[..., 0] = 40 * i + 30
            a[..., 1] = np.arange(33) * 7
            a[..., 2] = np.arange(17)[:, None] * 13
            a[..., 3] = 255 if i else 128
            frames.append(a)
        ap = os.path.join(d, "anim.png")
        with open(ap, "wb") as o:
            o.write(apng(frames, 100))
        run("cjxl", ap, os.path.join(HERE, "anim.jxl"), "-d", "0")
        made.append("anim")
        cv2.imwrite(os.path.join(HERE, "want-anim.png"), cv2.cvtColor(frames[0], cv2.COLOR_RGBA2BGRA))

        run("cjxl", ICC_SRC, os.path.join(HERE, "icc.jxl"), "-d", "0")
        made.append("icc")
    for name in made:
        print(name + ".jxl", os.path.getsize(os.path.join(HERE, name + ".jxl")), "bytes")


if __name__ == "__main__":
    main()
