#!/usr/bin/python3
"""gpuimg: write the seed corpus of the fuzz targets (tests/fuzz/corpus/{load,parse,pipeline}).

Small images in every format and layout stb_image reads: PNG (1/2/4/8/16-bit, grey, grey+alpha,
RGB, RGBA, palette, tRNS, interlaced) and JPEG (baseline, progressive, grey) and BMP and PNM and
HDR from OpenCV (python3-opencv); GIF, TGA (raw and RLE), PSD (raw and RLE, 8 and 16 bit) and
Softimage PIC (which gpuimg refuses: a seed for the refusal) are written by hand here from their
published layouts. The parse corpus is
pipeline texts; the pipeline corpus is "PIPELINE\\n" followed by a small image; the request corpus is
the server's messages (src/app/proto.h: magic, then 64-bit little-endian integers and
length-prefixed texts in order), requests and replies. Run from anywhere:
    /usr/bin/python3 tests/fuzz/make_corpus.py
"""
import os
import struct
import subprocess
import tempfile
import zlib

import cv2
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20261121)


def out(kind, name, data):
    d = os.path.join(HERE, "corpus", kind)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def img(w, h, c, dtype=np.uint8):
    hi = 256 if dtype == np.uint8 else 65536
    a = rng.integers(0, hi, size=(h, w, c) if c > 1 else (h, w), dtype=np.int64)
    return a.astype(dtype)


def enc(ext, a, params=()):
    ok, b = cv2.imencode(ext, a, list(params))
    assert ok
    return b.tobytes()


def chunk(t, d):
    return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)


def png_raw(w, h, bitdepth, ctype, rows, plte=None, trns=None, interlace=0):
    """A PNG from already packed rows (filter 0), for layouts OpenCV does not write."""
    s = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, bitdepth, ctype, 0, 0, interlace))
    if plte:
        s += chunk(b"PLTE", plte)
    if trns:
        s += chunk(b"tRNS", trns)
    return s + chunk(b"IDAT", zlib.compress(b"".join(b"\0" + r for r in rows))) + chunk(b"IEND", b"")


def gif(w, h):
    """A 4-colour GIF; LZW codes stay 9 bits wide because a clear code comes every 200 pixels."""
    pal = bytes(rng.integers(0, 256, 256 * 3, dtype=np.uint8))
    px = rng.integers(0, 4, w * h)
    codes, bits, nbits, data = [256], 0, 0, bytearray()
    for i, p in enumerate(px):
        if i and i % 200 == 0:
            codes.append(256)
        codes.append(int(p))
    codes.append(257)
    for c in codes:
        bits |= c << nbits
        nbits += 9
        while nbits >= 8:
            data.append(bits & 255)
            bits >>= 8
            nbits -= 8
    if nbits:
        data.append(bits)
    sub = b"".join(bytes([len(data[i:i + 255])]) + data[i:i + 255] for i in range(0, len(data), 255))
    return (b"GIF89a" + struct.pack("<HHBBB", w, h, 0xF7, 0, 0) + pal
            + b"\x2c" + struct.pack("<HHHHB", 0, 0, w, h, 0) + b"\x08" + sub + b"\x00\x3b")


def tga(w, h, c, rle):
    a = img(w, h, c)
    s = struct.pack("<BBBHHBHHHHBB", 0, 0, 10 if rle else 2, 0, 0, 0, 0, 0, w, h, 8 * c, 0x20 | (8 if c == 4 else 0))
    rows = a.reshape(h, w, c)[:, :, ::-1] if c >= 3 else a.reshape(h, w, c)
    if c == 1:
        s = s[:2] + bytes([11 if rle else 3]) + s[3:]
    px = [bytes(rows[y, x]) for y in range(h) for x in range(w)]
    if not rle:
        return s + b"".join(px)
    body, i = bytearray(), 0
    while i < len(px):   # alternate a repeat packet of 3 and a raw packet of up to 4
        n = min(3, len(px) - i)
        body += bytes([0x80 | (n - 1)]) + px[i]
        i += n
        n = min(4, len(px) - i)
        if n:
            body += bytes([n - 1]) + b"".join(px[i:i + n])
            i += n
    return s + bytes(body)


def psd(w, h, c, depth, rle):
    s = b"8BPS" + struct.pack(">H6xHIIHH", 1, c, h, w, depth, 3) + struct.pack(">I", 0) * 3
    planes = [img(w, h, 1, np.uint8 if depth == 8 else np.uint16) for _ in range(c)]
    if not rle or depth == 16:
        s += struct.pack(">H", 0)
        return s + b"".join(p.astype(">u2" if depth == 16 else np.uint8).tobytes() for p in planes)
    lines = []
    for p in planes:
        for y in range(h):
            row = p[y].tobytes()   # PackBits: literal runs of up to 128
            lines.append(b"".join(bytes([len(row[i:i + 128]) - 1]) + row[i:i + 128] for i in range(0, len(row), 128)))
    return s + struct.pack(">H", 1) + b"".join(struct.pack(">H", len(l)) for l in lines) + b"".join(lines)


def pic(w, h, alpha, mixed):
    s = b"\x53\x80\xF6\x34" + b"\0" * 84 + b"PICT" + struct.pack(">HHfHH", w, h, 1.0, 3, 0)
    s += bytes([1 if alpha else 0, 8, 2 if mixed else 0, 0xE0])
    if alpha:
        s += bytes([0, 8, 0, 0x10])
    body = bytearray()
    for y in range(h):
        rgb = img(w, 1, 3).reshape(w, 3)
        if mixed:   # one repeat run of the first pixel, then the rest raw
            body += bytes([128 + 1]) + bytes(rgb[0]) + bytes([w - 3]) + b"".join(bytes(p) for p in rgb[2:])
        else:
            body += b"".join(bytes(p) for p in rgb)
        if alpha:
            body += bytes(img(w, 1, 1).reshape(w))
    return s + bytes(body)


def tiff_exif():
    """An uncompressed 2x2 RGB TIFF whose IFD0 has a make, orientation 6 and an EXIF directory
    (an exposure, ISO, a maker note): what meta_tiff_exif reads into other formats' EXIF."""
    ifd0 = [(256, 3, [2]), (257, 3, [2]), (258, 3, [8, 8, 8]), (259, 3, [1]), (262, 3, [2]),
            (271, 2, list(b"fuzz\0")), (273, 4, [0]), (274, 3, [6]), (277, 3, [3]), (278, 3, [2]),
            (279, 4, [12]), (34665, 4, [0])]
    sub = [(0x829A, 5, [1, 125]), (0x8827, 3, [400]), (0x927C, 7, list(b"maker notes"))]
    fmt = {2: "B", 3: "H", 4: "I", 5: "I", 7: "B"}
    size = {2: 1, 3: 2, 4: 4, 5: 8, 7: 1}

    def ifd(entries, at, patch):
        n = len(entries)
        extra_at = at + 2 + 12 * n + 4
        head, extra = struct.pack("<H", n), b""
        for tag, typ, vals in entries:
            vals = patch.get(tag, vals)
            raw = struct.pack("<" + fmt[typ] * len(vals), *vals)
            cnt = len(raw) // size[typ]
            if len(raw) <= 4:
                head += struct.pack("<HHI", tag, typ, cnt) + raw.ljust(4, b"\0")
            else:
                head += struct.pack("<HHII", tag, typ, cnt, extra_at + len(extra))
                extra += raw + b"\0" * (len(raw) & 1)
        return head + struct.pack("<I", 0) + extra

    pixels = bytes(range(0, 240, 20))
    first = ifd(ifd0, 8, {})
    sub_at = 8 + len(first)
    second = ifd(sub, sub_at, {})
    strip = sub_at + len(second)
    return b"II*\0" + struct.pack("<I", 8) + ifd(ifd0, 8, {273: [strip], 34665: [sub_at]}) + second + pixels


def tiff_strips(w, h, rows, shared):
    """An RGB TIFF of 8 bits in Deflate strips of `rows` rows, each its own (or, shared, every
    strip the first one's bytes: refused before decoding)."""
    px = img(w, h, 3)
    strips = [zlib.compress(px[y:y + rows].tobytes()) for y in range(0, h, rows)]
    if shared:
        strips = [strips[0]] * len(strips)
    n = len(strips)
    head = 8 + 2 + 12 * 10 + 4
    bps_at, offs_at = head, head + 6
    counts_at = offs_at + 4 * n
    data_at = counts_at + 4 * n
    offs, at = [], data_at
    for s in strips:
        offs.append(at if not shared else data_at)
        at += 0 if shared else len(s)
    entries = [(256, 4, [w]), (257, 4, [h]), (258, 3, [bps_at]), (259, 3, [8]), (262, 3, [2]), (273, 4, [offs_at]),
               (277, 3, [3]), (278, 4, [rows]), (279, 4, [counts_at]), (284, 3, [1])]
    ifd = struct.pack("<H", len(entries))
    for tag, typ, (v,) in entries:
        cnt = 3 if tag == 258 else n if tag in (273, 279) else 1
        ifd += struct.pack("<HHI", tag, typ, cnt) + struct.pack("<I" if typ == 4 else "<HH", *((v,) if typ == 4 else (v, 0)))
    data = b"".join(strips[:1] if shared else strips)
    return (b"II*\0" + struct.pack("<I", 8) + ifd + struct.pack("<I", 0) + struct.pack("<HHH", 8, 8, 8)
            + b"".join(struct.pack("<I", o) for o in offs) + b"".join(struct.pack("<I", len(s)) for s in strips) + data)


def progressive(w, h, scans):
    """A grey progressive JPEG of all 128 in `scans` scans, as tests/mkbad's: the DC, then each AC
    coefficient from bit 13 with its 13 refinements, every scan end-of-band runs."""
    seg = lambda m, p: b"\xff" + bytes([m]) + struct.pack(">H", len(p) + 2) + p
    out = b"\xff\xd8" + seg(0xDB, b"\0" + b"\1" * 64) + seg(0xC2, struct.pack(">BHHBBBB", 8, h, w, 1, 1, 0x11, 0))
    out += seg(0xC4, b"\x00\x01" + b"\0" * 15 + b"\x00" + b"\x10" + b"\0" * 3 + b"\x0f" + b"\0" * 12
               + bytes(i << 4 for i in range(15)))
    blocks = ((w + 7) // 8) * ((h + 7) // 8)
    for s in range(scans):
        band, step = (1 + (s - 1) // 14, (s - 1) % 14) if s else (0, 0)
        ah, al = (14 - step if step else 0), (13 - step if s else 0)
        out += seg(0xDA, bytes([1, 1, 0, band, band, ah << 4 | al]))
        bits = ""
        if not s:
            bits = "0" * blocks
        else:
            left = blocks
            while left:
                run = min(left, 32767)
                n = run.bit_length() - 1
                bits += format(n, "04b") + (format(run - (1 << n), "0%db" % n) if n else "")
                left -= run
        bits += "1" * (-len(bits) % 8)
        data = bytes(int(bits[i:i + 8], 2) for i in range(0, len(bits), 8))
        out += data.replace(b"\xff", b"\xff\x00")
    return out + b"\xff\xd9"


def with_fill(jpg):
    """The JPEG with 0xFF fill bytes before each marker from SOI's next to the first scan's"""
    out, pos = jpg[:2], 2
    while jpg[pos + 1] != 0xDA:
        n = struct.unpack(">H", jpg[pos + 2:pos + 4])[0]
        out += b"\xff\xff\xff" + jpg[pos:pos + 2 + n]
        pos += 2 + n
    return out + b"\xff\xff" + jpg[pos:]


def u64(v):
    return struct.pack("<q", v)


def text(s):
    return u64(len(s)) + s


def request(kind, *command):
    """A request as gpuimg sends it: its options' fields follow the option table
    (src/lib/options.def), so the run requests are written by tests/sockpoke --request from a
    command line ($SOCKPOKE, default: the build's); status and stop carry nothing more."""
    if kind != 1:
        return b"gpuimgQ\x05" + u64(kind)
    tool = os.environ.get("SOCKPOKE", os.path.join(HERE, "..", "sockpoke"))
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "request")
        subprocess.run([tool, "--request", path, *command], check=True, env={"PATH": os.environ.get("PATH", "")})
        with open(path, "rb") as f:
            return f.read()


def reply(answer, status, message, nsteps=0):
    m = b"gpuimgA\x05" + u64(answer) + u64(status) + text(message)
    m += text(b"") + text(b"gpu") + text(b"NVIDIA H100") + text(b"") + text(b"nvJPEG") + text(b"libdeflate") + text(b"")
    m += text(b"not streamed: one thread")
    m += b"".join(u64(v) for v in (64, 48, 3, 8, 32, 24, 1, 8)) + b"".join(u64(v) for v in (1, 6, 1, 0, 0, 0, 0, 16, nsteps))
    m += b"".join(struct.pack("<d", v) for v in (1.5, 0.2, 0.3, -1, 2.0, 4.1, -1, 230.0))
    for i in range(nsteps):
        m += text(b"gray+resize=50%") + struct.pack("<d", 0.05 * i)
    return m + u64(7)


def max_pixels_as(v):
    """A run request whose pixel limit is v, which no command line sends: the limit's 8 bytes,
    found by the odd value a command gave them, replaced."""
    m = request(1, "--max-pixels=1234567", "resize=30000x30000", "in.png", "out.png")
    at = m.index(u64(1234567))
    return m[:at] + struct.pack("<Q", v) + m[at + 8:]


def requests():
    for i, m in enumerate([request(1, "gray", "in.png", "out.png"), request(2), request(3),
                           request(1, "--backend=gpu", "--device=1", "--kernel=tiled", "--no-fuse", "--jpeg-decoder=libjpeg",
                                   "--png-decoder=libpng", "--shrink-on-load", "--png-level=9", "--jpeg-quality=100",
                                   "--jpeg-sampling=444", "--jpeg-progressive", "--no-auto-orient", "--strip",
                                   "--webp-quality=100", "--webp-lossless", "--png-encoder=gpu", "--jpeg-encoder=gpu",
                                   "--format=webp", "--max-pixels=1000", "gray,resize=50%,blur=2,transpose", "-", "-"),
                           request(1, "--backend=cpu", "--decoder=stb", "--png-level=0", "--jpeg-quality=1",
                                   "--jpeg-sampling=420", "x" * 300, "in\n", "o.jpg"),
                           reply(0, 0, b"", 2), reply(1, 0, b"the server's queue is full"),
                           reply(2, 1, b"a number out of range"), reply(0, 4, b"in.png: cannot open: No such file"),
                           reply(3, 0, b""),   # 09: the server's "alive" while a request runs
                           # 10, 11: max_pixels 0 (no limit) and 2^64-1, outside --max-pixels's range: refused
                           max_pixels_as(0), max_pixels_as(2 ** 64 - 1)]):
        out("request", f"{i:02d}", m)


def main():
    requests()
    load = {}
    for c in (1, 3, 4):
        for dt, tag in ((np.uint8, "8"), (np.uint16, "16")):
            load[f"png-{c}ch-{tag}.png"] = enc(".png", img(7, 5, c, dt))
    load["png-1x1.png"] = enc(".png", img(1, 1, 3))
    load["png-ga8.png"] = png_raw(5, 3, 8, 4, [bytes(img(10, 1, 1).reshape(-1)) for _ in range(3)])
    load["png-ga16.png"] = png_raw(3, 2, 16, 4, [bytes(img(12, 1, 1).reshape(-1)) for _ in range(2)])
    for bd in (1, 2, 4):
        rowb = (9 * bd + 7) // 8
        load[f"png-grey{bd}.png"] = png_raw(9, 4, bd, 0, [bytes(img(rowb, 1, 1).reshape(-1)) for _ in range(4)])
        load[f"png-pal{bd}.png"] = png_raw(9, 4, bd, 3, [bytes(img(rowb, 1, 1).reshape(-1)) for _ in range(4)],
                                           plte=bytes(img(3 << bd, 1, 1).reshape(-1)), trns=b"\x00\x80")
    # Adam7 on 8x8 RGB: passes of 1x1, 1x1, 2x1, 2x2, 4x2, 4x4, 8x4 pixels, each row filtered
    adam7 = [(1, 1), (1, 1), (2, 1), (2, 2), (4, 2), (4, 4), (8, 4)]
    load["png-interlaced.png"] = png_raw(8, 8, 8, 2, [bytes(img(3 * pw, 1, 1).reshape(-1)) for pw, ph in adam7
                                                      for _ in range(ph)], interlace=1)
    load["jpeg-rgb.jpg"] = enc(".jpg", img(13, 9, 3), (cv2.IMWRITE_JPEG_QUALITY, 80))
    load["jpeg-grey.jpg"] = enc(".jpg", img(9, 13, 1))
    load["jpeg-progressive.jpg"] = enc(".jpg", img(17, 8, 3), (cv2.IMWRITE_JPEG_PROGRESSIVE, 1))
    load["jpeg-q100.jpg"] = enc(".jpg", img(8, 8, 3), (cv2.IMWRITE_JPEG_QUALITY, 100))
    load["bmp-24.bmp"] = enc(".bmp", img(7, 3, 3))
    load["bmp-8.bmp"] = enc(".bmp", img(5, 4, 1))
    load["bmp-32.bmp"] = enc(".bmp", img(3, 3, 4))
    load["pnm-p6.ppm"] = enc(".ppm", img(6, 4, 3))
    load["pnm-p5.pgm"] = enc(".pgm", img(6, 4, 1))
    load["pnm-p5-16.pgm"] = enc(".pgm", img(4, 3, 1, np.uint16))
    load["hdr.hdr"] = enc(".hdr", rng.random((4, 5, 3), dtype=np.float32) * 4)
    load["gif.gif"] = gif(11, 7)
    for c in (1, 3, 4):
        load[f"tga-{c}ch.tga"] = tga(5, 3, c, False)
        load[f"tga-{c}ch-rle.tga"] = tga(6, 4, c, True)
    load["psd-rgb8.psd"] = psd(5, 3, 3, 8, False)
    load["psd-rgba8-rle.psd"] = psd(6, 2, 4, 8, True)
    load["psd-rgb16.psd"] = psd(3, 2, 3, 16, False)
    load["pic-rgb.pic"] = pic(5, 3, False, False)
    load["pic-rgba-mixed.pic"] = pic(6, 2, True, True)
    # EXIF orientation 6 in an APP1 segment (big-endian TIFF, one IFD0 entry), as a phone writes it
    # (the JPEG's own pixels drawn apart, so that the files above stay as they were)
    exif = b"Exif\0\0MM\0\x2a\0\0\0\x08\0\x01\x01\x12\0\x03\0\0\0\x01\0\x06\0\0\0\0\0\0"
    rot = enc(".jpg", np.random.default_rng(6).integers(0, 256, (6, 11, 3), dtype=np.uint8))
    load["jpeg-exif6.jpg"] = rot[:2] + b"\xff\xe1" + struct.pack(">H", len(exif) + 2) + exif + rot[2:]
    # metadata kept: a JFIF density, EXIF and an ICC profile in two APP2 pieces; a PNG's iCCP, eXIf, pHYs
    icc = struct.pack(">I", 132) + b"\0" * 12 + b"RGB XYZ " + b"\0" * 12 + b"acsp" + b"\0" * 88 + b"\0" * 4
    meta = enc(".jpg", np.random.default_rng(7).integers(0, 256, (5, 7, 3), dtype=np.uint8))
    seg = lambda m, p: b"\xff" + bytes([m]) + struct.pack(">H", len(p) + 2) + p
    load["jpeg-meta.jpg"] = (meta[:2] + seg(0xE0, b"JFIF\0\x01\x01\x01\x01\x2c\0\x96\0\0") + seg(0xE1, exif)
                             + seg(0xE2, b"ICC_PROFILE\0\x01\x02" + icc[:70]) + seg(0xE2, b"ICC_PROFILE\0\x02\x02" + icc[70:])
                             + meta[2:])
    # an Exif IFD with the pixel dimensions (a SHORT and a LONG), little-endian, which outputs rewrite
    dims = (b"Exif\0\0II\x2a\0" + struct.pack("<IH", 8, 2) + struct.pack("<HHIHH", 0x0112, 3, 1, 6, 0)
            + struct.pack("<HHIIIH", 0x8769, 4, 1, 38, 0, 2) + struct.pack("<HHIHH", 0xA002, 3, 1, 4000, 0)
            + struct.pack("<HHIII", 0xA003, 4, 1, 3000, 0))
    load["jpeg-exif-dims.jpg"] = meta[:2] + seg(0xE1, dims) + meta[2:]
    p = enc(".png", np.random.default_rng(8).integers(0, 256, (4, 6, 3), dtype=np.uint8))
    load["png-meta.png"] = (p[:33] + chunk(b"iCCP", b"icc\0\0" + zlib.compress(icc)) + chunk(b"eXIf", exif[6:])
                            + chunk(b"pHYs", struct.pack(">IIB", 11811, 3937, 1)) + p[33:])
    wt = np.random.default_rng(9).integers(0, 256, (5, 7, 4), dtype=np.uint8)
    load["webp-lossless.webp"] = enc(".webp", wt, (cv2.IMWRITE_WEBP_QUALITY, 101))
    load["webp-lossy.webp"] = enc(".webp", wt[..., :3], (cv2.IMWRITE_WEBP_QUALITY, 50))
    load["tiff-rgb8.tif"] = enc(".tiff", wt[..., :3])
    load["tiff-grey16.tif"] = enc(".tiff", (wt[..., 0].astype(np.uint16) * 257))
    load["tiff-exif.tif"] = tiff_exif()
    # bounded work: Deflate strips apart (read) and sharing their bytes (refused), progressive
    # JPEGs of 100 scans (read) and 101 (refused); metadata behind fill bytes; an Exif IFD of
    # nothing a TIFF's EXIF directory carries (a maker note, an unknown tag, ISO as text)
    load["tiff-strips.tif"] = tiff_strips(9, 7, 3, False)
    load["tiff-strips-shared.tif"] = tiff_strips(9, 7, 3, True)
    load["jpeg-scans-100.jpg"] = progressive(16, 8, 100)
    load["jpeg-scans-101.jpg"] = progressive(16, 8, 101)
    load["jpeg-fill-bytes.jpg"] = with_fill(load["jpeg-meta.jpg"])
    notiff = (b"Exif\0\0II\x2a\0" + struct.pack("<IH", 8, 1) + struct.pack("<HHIII", 0x8769, 4, 1, 26, 0)
              + struct.pack("<H", 3) + struct.pack("<HHII", 0x8827, 2, 4, 0x303032) + struct.pack("<HHIHH", 0x927C, 7, 2, 7, 7)
              + struct.pack("<HHIHH", 0xEEEE, 3, 1, 7, 0) + struct.pack("<I", 0))
    load["jpeg-exif-notiff.jpg"] = meta[:2] + seg(0xE1, notiff) + meta[2:]
    # HEIC and AVIF as other encoders make them (tests/heif/make_heif.py)
    for name in ("rgb8.heic", "rgb10.heic", "rgb8.avif"):
        with open(os.path.join(HERE, "..", "heif", name), "rb") as f:
            load["heif-" + name] = f.read()
    # JPEG XL as cjxl makes them (tests/jxl/make_jxl.py): a bare codestream lossy and lossless,
    # 16 bits, floats, a container with Brotli-compressed Exif and xml boxes and a JPEG's
    # reconstruction data, an animation
    for name in ("rgba8.jxl", "lossless.jxl", "rgb16.jxl", "float.jxl", "orient.jxl", "anim.jxl"):
        with open(os.path.join(HERE, "..", "jxl", name), "rb") as f:
            load["jxl-" + name] = f.read()
    for k, v in load.items():
        out("load", k, v)

    pipes = ["gray", "resize=50%", "resize=7x3:filter=nearest", "resize=x9:filter=area", "resize=200%:filter=bilinear",
             "blur=2", "blur=0.7:border=replicate", "blur=3:border=constant", "transpose", "rotate=90", "rotate=270",
             "flip=h", "flip=v", "gray,resize=50%,blur=2,transpose", "resize=13x42,blur=1.5,rotate=180",
             "gray:standard=709", "flip", "blur=1e9", "resize=0%", "gray,,blur", "resize=99999x99999"]
    for i, p in enumerate(pipes):
        out("parse", f"{i:02d}", p.encode())
    seeds = [("gray", "png-4ch-16.png"), ("resize=50%", "jpeg-rgb.jpg"), ("blur=1", "png-ga8.png"),
             ("transpose", "tga-3ch-rle.tga"), ("rotate=90,flip=h", "gif.gif"), ("resize=3x2:filter=area", "psd-rgb16.psd"),
             ("gray,resize=200%,blur=0.8,transpose", "bmp-24.bmp"), ("blur=2:border=replicate", "psd-rgba8-rle.psd"),
             ("resize=11x1,rotate=180", "png-pal2.png"), ("flip=v", "hdr.hdr"), ("gray", "pnm-p5-16.pgm")]
    for i, (p, f) in enumerate(seeds):
        out("pipeline", f"{i:02d}", p.encode() + b"\n" + load[f])


if __name__ == "__main__":
    main()
