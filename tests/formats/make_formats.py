#!/usr/bin/env python3
"""Make gpuimg's input-format fixtures: one small image in each format stb_image reads, with the
pixels it must decode to.

Run with Debian's python3-pil and python3-numpy: /usr/bin/python3 tests/formats/make_formats.py
It writes the files, want-*.png (the expected pixels) and MANIFEST (input, pipeline, expected,
tolerance) beside itself; tests/formats.sh runs them through gpuimg's loader. Pillow writes GIF,
BMP, TGA, PNM and JPEG; palette and Adam7-interlaced PNG, PSD and Radiance HDR are written here.
Lossy JPEG is compared with Pillow's (libjpeg-turbo's) decoding within a stated tolerance: two
correct JPEG decoders may round their inverse DCTs differently.
"""
import io
import os
import struct
import sys
import zlib

import numpy as np
from PIL import Image

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'golden'))
from make_goldens import write_png  # noqa: E402  (the goldens' PNG writer: every layout and depth)

HERE = os.path.dirname(os.path.abspath(__file__))
W, H = 13, 9


def pattern(c, depth=8):
    y, x = np.mgrid[0:H, 0:W]
    top = 65535 if depth == 16 else 255
    planes = [(x * 37 + y * 11 + k * 60) % 256 for k in range(c)]
    a = np.stack(planes, -1).astype(np.int64)
    if depth == 16:
        a = a * 257 + (x[..., None] * 3) % 257
    if c in (2, 4):
        a[..., -1] = np.where((x + y) % 5 == 0, 0, top - (x * 9 % 100))
    a = np.clip(a, 0, top).astype(np.uint16 if depth == 16 else np.uint8)
    return a[..., 0] if c == 1 else a


def chunk(t, d):
    return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)


def png_palette(path, rgb):
    """Colour type 3 with PLTE and tRNS: the decoded image is RGBA."""
    cols, idx = np.unique(rgb.reshape(-1, 3), axis=0, return_inverse=True)
    alpha = np.array([0 if i % 7 == 3 else 255 - i for i in range(len(cols))], np.uint8)
    raw = b''.join(b'\x00' + r.astype(np.uint8).tobytes() for r in idx.reshape(H, W))
    with open(path, 'wb') as f:
        f.write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', W, H, 8, 3, 0, 0, 0))
                + chunk(b'PLTE', cols.astype(np.uint8).tobytes()) + chunk(b'tRNS', alpha.tobytes())
                + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b''))
    return np.concatenate([cols[idx].reshape(H, W, 3), alpha[idx].reshape(H, W, 1)], -1).astype(np.uint8)


def png_adam7(path, a, ctype):
    """Adam7-interlaced PNG (filter 0 in every pass)."""
    depth = 16 if a.dtype == np.uint16 else 8
    c = 1 if a.ndim == 2 else a.shape[2]
    passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
    raw = b''
    for x0, y0, dx, dy in passes:
        sub = a[y0::dy, x0::dx]
        if sub.size == 0:
            continue
        rows = sub.reshape(sub.shape[0], -1).astype('>u2' if depth == 16 else np.uint8)
        raw += b''.join(b'\x00' + r.tobytes() for r in rows)
    with open(path, 'wb') as f:
        f.write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', W, H, depth, ctype, 0, 0, 1))
                + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b''))


def png_raw(path, a, depth, ctype, rows, extra=b''):
    """A PNG of the given rows (each already filtered: type byte + data), in one IDAT."""
    h, w = a.shape[0], a.shape[1]
    with open(path, 'wb') as f:
        f.write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, depth, ctype, 0, 0, 0)) + extra
                + chunk(b'IDAT', zlib.compress(b''.join(rows))) + chunk(b'IEND', b''))


def packed_rows(idx, bits):
    """Rows of samples below 8 bits packed big-end first, filter 0."""
    per = 8 // bits
    rows = []
    for r in idx:
        r = np.concatenate([r, np.zeros((-len(r)) % per, r.dtype)]).reshape(-1, per)
        rows.append(b'\x00' + bytes(int(sum(int(v) << (8 - bits * (k + 1)) for k, v in enumerate(g))) for g in r))
    return rows


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def filtered_rows(a, first=0):
    """Rows of a (uint8 or uint16, stored big-endian) with filter type (first + y) % 5 on row y:
    every filter, against the row above as PNG defines it (zeros above the first)."""
    h = a.shape[0]
    raw = a.reshape(h, -1).astype('>u2' if a.dtype == np.uint16 else np.uint8)
    bpp = (a.shape[2] if a.ndim == 3 else 1) * a.itemsize
    data = [np.frombuffer(r.tobytes(), np.uint8).astype(int) for r in raw]
    rows = []
    for y, x in enumerate(data):
        ft = (first + y) % 5
        up = data[y - 1] if y else np.zeros_like(x)
        out = []
        for i in range(len(x)):
            left = x[i - bpp] if i >= bpp else 0
            ul = up[i - bpp] if i >= bpp else 0
            pred = [0, left, up[i], (left + up[i]) // 2, paeth(left, up[i], ul)][ft]
            out.append((x[i] - pred) % 256)
        rows.append(bytes([ft]) + bytes(out))
    return rows


def psd(path, rgb):
    """Photoshop RGB 8-bit, raw (compression 0), planar image data."""
    with open(path, 'wb') as f:
        f.write(b'8BPS' + struct.pack('>H6xHIIHH', 1, 3, H, W, 8, 3))
        f.write(struct.pack('>III', 0, 0, 0))          # colour mode data, resources, layers: none
        f.write(struct.pack('>H', 0))                   # raw
        for k in range(3):
            f.write(rgb[..., k].astype(np.uint8).tobytes())


def hdr(path):
    """Radiance RGBE, flat scanlines. Expected: stb's conversion to 8 bits, (v ** (1/2.2)) * 255 + 0.5."""
    y, x = np.mgrid[0:H, 0:W]
    f = np.stack([(x + 1) / W, (y + 1) / H, ((x + y) % 4) / 3.0], -1).astype(np.float32)
    m = f.max(-1)
    e = np.where(m > 0, np.floor(np.log2(np.maximum(m, 1e-30))) + 1, 0)
    scale = np.where(m > 0, 256.0 / np.exp2(e), 0)
    mant = np.floor(f * scale[..., None]).astype(np.uint8)
    rgbe = np.concatenate([mant, np.where(m > 0, e + 128, 0)[..., None].astype(np.uint8)], -1)
    with open(path, 'wb') as fp:
        fp.write(b'#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y %d +X %d\n' % (H, W))
        fp.write(rgbe.tobytes())
    dec = np.where(rgbe[..., 3:] > 0, mant.astype(np.float32) * np.exp2(rgbe[..., 3:].astype(np.float32) - 136), 0)
    return np.clip(np.power(dec.astype(np.float32), np.float32(1 / 2.2)) * 255 + 0.5, 0, 255).astype(np.uint8)


def main():
    for f in os.listdir(HERE):
        if not f.endswith('.py'):
            os.remove(os.path.join(HERE, f))
    rgb, rgba, gray = pattern(3), pattern(4), pattern(1)
    cases = []  # (file, expected array, tolerance)
    arrays = {}


    def want(name, arr, tol=0, pipe='flip=h,flip=h'):
        wname = 'want-' + name.replace('.', '-') + '.png'
        write_png(os.path.join(HERE, wname), arr)
        arrays[name] = arr
        cases.append((name, pipe, wname, tol))

    want('palette.png', png_palette(os.path.join(HERE, 'palette.png'), rgb))
    png_adam7(os.path.join(HERE, 'interlaced.png'), rgb, 2)
    want('interlaced.png', rgb)
    g16 = pattern(1, 16)
    png_adam7(os.path.join(HERE, 'interlaced16.png'), g16, 0)
    want('interlaced16.png', g16)
    # every filter type, for each pixel size the default (libdeflate) decoder unfilters
    for c in (1, 2, 3, 4):
        for depth in (8, 16):
            a = pattern(c, depth)
            name = 'filters-c%d-d%d.png' % (c, depth)   # each filter type first in some file
            png_raw(os.path.join(HERE, name), a, depth, [0, 0, 4, 2, 6][c], filtered_rows(a, c + depth // 8))
            want(name, a)
    # grey below 8 bits (scaled to 8: 1 -> 255, 2 bits x 85, 4 bits x 17) and a 4-bit palette
    for bits in (1, 2, 4):
        idx = (gray.astype(int) * 7 // 5) % (1 << bits)
        png_raw(os.path.join(HERE, 'grey%d.png' % bits), idx, bits, 0, packed_rows(idx, bits))
        want('grey%d.png' % bits, (idx * (255 // ((1 << bits) - 1))).astype(np.uint8))
    idx = (gray.astype(int) * 3) % 16
    pal = np.array([[(k * 16) % 256, 255 - k * 9, (k * 53) % 256] for k in range(16)], np.uint8)
    png_raw(os.path.join(HERE, 'palette4.png'), idx, 4, 3, packed_rows(idx, 4), chunk(b'PLTE', pal.tobytes()))
    want('palette4.png', pal[idx])
    # tRNS on grey and colour: the key colour becomes transparent, every other pixel opaque
    key = int(gray[2, 3])
    png_raw(os.path.join(HERE, 'grey-trns.png'), gray, 8, 0, filtered_rows(gray), chunk(b'tRNS', struct.pack('>H', key)))
    want('grey-trns.png', np.stack([gray, np.where(gray == key, 0, 255).astype(np.uint8)], -1))
    rgb16 = pattern(3, 16)
    k16 = rgb16[4, 5]
    png_raw(os.path.join(HERE, 'rgb16-trns.png'), rgb16, 16, 2, filtered_rows(rgb16),
            chunk(b'tRNS', struct.pack('>HHH', *[int(v) for v in k16])))
    a16 = np.where((rgb16 == k16).all(-1), 0, 65535).astype(np.uint16)
    want('rgb16-trns.png', np.concatenate([rgb16, a16[..., None]], -1))
    png_adam7(os.path.join(HERE, 'interlaced-rgba.png'), rgba, 6)
    want('interlaced-rgba.png', rgba)
    # an independent decoder (Pillow) agrees with every expected image it can hold (8 bits)
    for name, w in arrays.items():
        if name.endswith('.png') and w.dtype == np.uint8:
            mode = {2: 'L', 3: {2: 'LA', 3: 'RGB', 4: 'RGBA'}.get(w.shape[-1])}[w.ndim]
            got = np.asarray(Image.open(os.path.join(HERE, name)).convert(mode))
            assert got.shape == w.shape and (got == w).all(), name
    for name, img, kw in [('image.bmp', Image.fromarray(rgb), {}), ('image.tga', Image.fromarray(rgba), {}),
                          ('image.ppm', Image.fromarray(rgb), {}), ('image.pgm', Image.fromarray(gray), {})]:
        img.save(os.path.join(HERE, name), **kw)
        want(name, np.asarray(Image.open(os.path.join(HERE, name))))
    # 16-bit PGM and PPM written here from netpbm's definition (maxval 65535, samples big-endian)
    for name, a in [('image16.pgm', pattern(1, 16)), ('image16.ppm', pattern(3, 16))]:
        with open(os.path.join(HERE, name), 'wb') as f:
            f.write(b'P%d\n%d %d\n65535\n' % (5 if a.ndim == 2 else 6, W, H) + a.astype('>u2').tobytes())
        want(name, a)
    # GIF: two frames, the first is what counts; palette images decode to RGBA in stb
    f1 = Image.fromarray(rgb).quantize(64)
    f2 = Image.fromarray(255 - rgb).quantize(64)
    f1.save(os.path.join(HERE, 'image.gif'), save_all=True, append_images=[f2])
    want('image.gif', np.asarray(Image.open(os.path.join(HERE, 'image.gif')).convert('RGBA')))
    psd(os.path.join(HERE, 'image.psd'), rgb)
    want('image.psd', np.concatenate([rgb, np.full((H, W, 1), 255, np.uint8)], -1))  # stb reads PSD as RGBA
    want('image.hdr', hdr(os.path.join(HERE, 'image.hdr')), 1)
    for name, prog in [('baseline.jpg', False), ('progressive.jpg', True)]:
        Image.fromarray(rgb).save(os.path.join(HERE, name), quality=95, progressive=prog)
        want(name, np.asarray(Image.open(os.path.join(HERE, name))), 3)
    gj = os.path.join(HERE, 'gray.jpg')
    Image.fromarray(gray).save(gj, quality=95)
    want('gray.jpg', np.asarray(Image.open(gj)), 3)
    with open(os.path.join(HERE, 'MANIFEST'), 'w') as f:
        f.write('# input pipeline expected tolerance (made by make_formats.py with Pillow %s)\n' % Image.__version__)
        f.write('\n'.join('%s %s %s %d' % c for c in cases) + '\n')
    print(len(cases), 'cases')


if __name__ == '__main__':
    main()
