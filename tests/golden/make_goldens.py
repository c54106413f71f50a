#!/usr/bin/env python3
"""Make gpuimg's golden fixtures with OpenCV, an implementation independent of gpuimg.

Run from anywhere with Debian's python3-opencv (4.6) and python3-numpy:
    /usr/bin/python3 tests/golden/make_goldens.py
(and libvips-tools: the lanczos3 shrink's reference is vips's). It writes in-*.png (inputs),
out-*.png (the references' results) and MANIFEST (one case a line: input, pipeline, expected
output, tolerance in levels) beside itself. The test suite reads these files with gpuimg's own
loader and never needs OpenCV.

An input is named by its size and layout, in-WxH-cC-dD.png; a result by its input and pipeline,
out-WxH-cC-dD.PIPE.png (golden_name), so that adding or moving a case renames no other file.

Alpha layouts (gray+alpha, RGBA) follow gpuimg's definition around OpenCV: colour is
premultiplied in float64, OpenCV filters the float64 planes, colour is divided back by the
filtered alpha and both are rounded (colour 0 where the filtered alpha is 0).
"""
import os
import re
import struct
import zlib

import cv2
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SMALL = [(1, 1), (7, 3), (13, 42)]
BIG = (1001, 626)
# (channels, depth) pairs. The big size is kept to two 8-bit layouts and a few cases: 16-bit
# gradients barely compress in PNG, and the exact-property tests cover every layout at that size.
LAYOUTS = [(c, d) for d in (8, 16) for c in (1, 2, 3, 4)]
BIG_LAYOUTS = [(3, 8), (4, 8)]


def write_png(path, a):
    h, w = a.shape[:2]
    c = 1 if a.ndim == 2 else a.shape[2]
    depth = 16 if a.dtype == np.uint16 else 8
    ctype = {1: 0, 2: 4, 3: 2, 4: 6}[c]
    rows = a.reshape(h, w * c).astype('>u2' if depth == 16 else np.uint8).view(np.uint8).reshape(h, -1)
    bpp = c * depth // 8
    # PNG filter 1 (Sub) on every row: smooth images then deflate to a fraction of their size.
    sub = rows.copy()
    sub[:, bpp:] = rows[:, bpp:] - rows[:, :-bpp]
    raw = b''.join(b'\x01' + r.tobytes() for r in sub)

    def chunk(t, d):
        return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
    with open(path, 'wb') as f:
        f.write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, depth, ctype, 0, 0, 0))
                + chunk(b'IDAT', zlib.compress(raw, 9)) + chunk(b'IEND', b''))


def make_input(w, h, c, depth, seed, noise):
    """Smooth colour waves plus noise, and an alpha with transparent, partial and opaque parts."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    if noise < 0.01:  # big inputs: longer waves, which deflate far better
        y, x = y / 12.0, x / 12.0
    top = 65535.0 if depth == 16 else 255.0
    planes = []
    for k in range(c):
        base = 0.5 + 0.35 * np.sin(x / (5.0 + 3 * k) + k) * np.cos(y / (7.0 + 2 * k))
        planes.append(base + rng.normal(0, noise, (h, w)))
    if c in (2, 4):
        alpha = np.clip(0.5 + 0.8 * np.sin((x + 2 * y) / 9.0), 0, 1)
        if noise > 0.01:  # scattered fully transparent pixels (small inputs only: they cost bytes)
            alpha[rng.random((h, w)) < 0.05] = 0.0
        planes[-1] = alpha
    a = np.clip(np.rint(np.stack(planes, -1) * top), 0, top)
    a = a.astype(np.uint16 if depth == 16 else np.uint8)
    return a[..., 0] if c == 1 else a


def out_size(w, h, pct):
    return max(1, int(np.floor(w * pct / 100 + 0.5))), max(1, int(np.floor(h * pct / 100 + 0.5)))


def cv_filter(a, fn):
    """Apply fn (an OpenCV call on a float64 or integer image) the gpuimg way for alpha layouts."""
    c = 1 if a.ndim == 2 else a.shape[2]
    if c not in (2, 4):
        return fn(a)
    top = 65535 if a.dtype == np.uint16 else 255
    f = a.astype(np.float64)
    al = f[..., -1]
    pm = f.copy()
    pm[..., :-1] *= al[..., None]
    r = fn(pm)
    if r.ndim == 2:
        r = r[..., None]
    ra = r[..., -1]
    col = np.where(ra[..., None] > 0, r[..., :-1] / np.where(ra > 0, ra, 1)[..., None], 0)
    out = np.concatenate([col, ra[..., None]], -1)
    return np.clip(np.rint(out), 0, top).astype(a.dtype)


def cv_plain(a, fn):
    """Integer images without alpha go through OpenCV as they are (its 8U/16U paths)."""
    return fn(a)


def gray(a, std):
    c = 1 if a.ndim == 2 else a.shape[2]
    if c <= 2:
        return a
    rgb = np.ascontiguousarray(a[..., :3])
    if std == 601:
        y = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)
    else:  # BT.709 has no OpenCV conversion: the same Q15 formula in numpy, 6966/23436/2366
        r, g, b = (rgb[..., i].astype(np.int64) for i in range(3))
        y = ((6966 * r + 23436 * g + 2366 * b + 16384) >> 15).astype(a.dtype)
    return y if c == 3 else np.stack([y, a[..., 3]], -1)


BIG_CASES = {"gray=709", "resize=50%", "resize=30%", "resize=50%:filter=nearest", "blur=2", "blur=2:border=constant",
             "crop=35%:gravity=entropy", "crop=35%:gravity=attention", "trim=60:background=white"}


def cases_for(w, h, c, depth, big):
    """(pipeline, function of the input, tolerance) for one input; the big size gets a few."""
    return [k for k in all_cases(w, h, c, depth) if not big or k[0] in BIG_CASES]


def gray_cases(w, h, c, depth, run):
    out = [("gray", lambda a: gray(a, 601), 0)]
    if c >= 3:
        out.append(("gray=709", lambda a: gray(a, 709), 0))
    return out


def resize_cases(w, h, c, depth, run):
    out = []
    for pct, filt in [(50, None), (200, None), (30, None), (50, 'nearest'), (300, 'nearest'),
                      (200, 'area'), (75, 'area')]:
        ow, oh = out_size(w, h, pct)
        auto = 'area' if (w > 2 * ow or h > 2 * oh) else 'bilinear'
        f = filt or auto
        interp = {'nearest': cv2.INTER_NEAREST_EXACT, 'bilinear': cv2.INTER_LINEAR, 'area': cv2.INTER_AREA}[f]
        if f == 'area' and ((ow > w) != (oh > h)) and ow != w and oh != h:
            continue  # OpenCV's INTER_AREA mixes methods when one axis grows and the other shrinks
        name = "resize=%d%%" % pct + (":filter=" + filt if filt else "")
        fn = (lambda ow=ow, oh=oh, interp=interp: (lambda a: cv2.resize(a, (ow, oh), interpolation=interp)))()
        if f == 'nearest':
            out.append((name, fn, 0))
        else:
            out.append((name, run(fn), 1))
    return out


def fit_cases(w, h, c, depth, run):
    """Boxes: inside (the smaller ratio decides), ! (stretched), cover (the larger, then the centre
    crop), contain (inside, then padded at the centre), each OpenCV's INTER_LINEAR or INTER_AREA as
    auto picks it on the size the box gives."""
    def resized(ow, oh):
        interp = cv2.INTER_AREA if (w > 2 * ow or h > 2 * oh) else cv2.INTER_LINEAR
        return run(lambda a: cv2.resize(a, (ow, oh), interpolation=interp))
    out = []
    W, H = 2 * w + 1, 3 * h + 2   # inside: the width decides (W / w < H / h)
    ow, oh = W, max(1, int(np.floor(h * W / w + 0.5)))
    out.append(("resize=%dx%d" % (W, H), resized(ow, oh), 1))
    out.append(("resize=%dx%d!" % (W, H), resized(W, H), 1))
    W, H = max(1, w // 2), max(1, h // 3)
    if H * w >= W * h:   # cover: the height's ratio is the larger
        ow, oh = max(1, int(np.floor(w * H / h + 0.5))), H
    else:
        ow, oh = W, max(1, int(np.floor(h * W / w + 0.5)))
    x0, y0 = (ow - W) // 2, (oh - H) // 2
    r = resized(ow, oh)
    out.append(("resize=%dx%d:fit=cover" % (W, H), (lambda r=r: lambda a: r(a)[y0:y0 + H, x0:x0 + W])(), 1))
    return out


def crop_cases(w, h, c, depth, run):
    cw, ch = max(1, int(np.floor(w * 0.5 + 0.5))), max(1, int(np.floor(h * 0.5 + 0.5)))
    x0, y0 = (w - cw) // 2, (h - ch) // 2
    out = [("crop=50%", lambda a: a[y0:y0 + ch, x0:x0 + cw].copy(), 0),
           ("crop=%dx%d:gravity=southeast" % (cw, ch), lambda a: a[h - ch:, w - cw:].copy(), 0)]
    if w > 2 and h > 2:   # a rectangle past the right edge is clipped to the image
        out.append(("crop=%dx%d+1+2" % (w, h // 2), lambda a: a[2:2 + h // 2, 1:].copy(), 0))
    return out


def pad_cases(w, h, c, depth, run):
    top = 65535 if depth == 16 else 255
    border = lambda t, b, l, r, v: (lambda a: cv2.copyMakeBorder(a, t, b, l, r, cv2.BORDER_CONSTANT, value=(v,) * 4))
    W, H = w + 5, h + 4
    return [("pad=%dx%d" % (W, H), border(2, 2, 2, 3, 0), 0),
            ("pad=%dx%d:gravity=northwest:color=white" % (W, H), border(0, 4, 0, 5, top), 0),
            ("pad=%dx%d+1+3" % (W, h + 3), border(3, 0, 1, 4, 0), 0)]


def wide_kernel(kind):
    """gpuimg's cubic (Keys, a = -0.75, OpenCV's) and lanczos3, widened by the shrink factor."""
    def cubic(x):
        x = np.abs(x)
        a = -0.75
        return np.where(x < 1, ((a + 2) * x - (a + 3)) * x * x + 1,
                        np.where(x < 2, ((a * x - 5 * a) * x + 8 * a) * x - 4 * a, 0.0))

    def lanczos3(x):
        return np.where(np.abs(x) < 3, np.sinc(x) * np.sinc(x / 3), 0.0)
    return (cubic, 2) if kind == 'cubic' else (lanczos3, 3)


def wide_matrix(kind, n_in, n_out):
    """The n_out x n_in matrix of the filter on one axis: float64, edges replicated."""
    k, support = wide_kernel(kind)
    scale = n_in / n_out
    s = max(scale, 1.0)
    m = np.zeros((n_out, n_in))
    for o in range(n_out):
        c = (o + 0.5) * scale - 0.5
        first = int(np.floor(c - support * s)) + 1
        idx = np.arange(first, first + int(np.ceil(2 * support * s)) + 1)
        w = k((idx - c) / s)
        w = w / w.sum()
        np.add.at(m[o], np.clip(idx, 0, n_in - 1), w)
    return m


def wide_resize(kind, ow, oh):
    """numpy's float64 of gpuimg's definition; integer inputs come back rounded and clipped."""
    def fn(a):
        f = a.astype(np.float64)
        mx, my = wide_matrix(kind, a.shape[1], ow), wide_matrix(kind, a.shape[0], oh)
        r = np.einsum('ij,jk...->ik...', my, np.einsum('ij,kj...->ki...', mx, f))
        if a.dtype == np.float64:
            return r
        return np.clip(np.rint(r), 0, 65535 if a.dtype == np.uint16 else 255).astype(a.dtype)
    return fn


def vips_resize(ow, oh, kernel):
    """vips resize with the kernel, to exactly ow x oh (its scales from the sizes)."""
    import subprocess
    import tempfile

    def fn(a):
        with tempfile.TemporaryDirectory() as d:
            src, dst = os.path.join(d, 'in.png'), os.path.join(d, 'out.png')
            write_png(src, a)
            h, w = a.shape[:2]
            subprocess.run(['vips', 'resize', src, dst, repr(ow / w), '--vscale', repr(oh / h), '--kernel', kernel],
                           check=True)
            r = cv2.imread(dst, cv2.IMREAD_UNCHANGED)
            if r.ndim == 3 and r.shape[2] in (3, 4):   # OpenCV's BGR(A) back to RGB(A)
                r = r[..., [2, 1, 0, 3][:r.shape[2]]]
            if a.ndim == 3 and a.shape[2] == 2:        # OpenCV reads grey+alpha as RGBA
                r = r[..., [0, 3]]
            return np.ascontiguousarray(r)
    return fn


def wide_cases(w, h, c, depth, run):
    """cubic: OpenCV's INTER_CUBIC when enlarging (it does not widen when shrinking: there
    gpuimg's definition in float64); lanczos3: vips's (8.14) when shrinking, within 2 levels
    (vips rounds between its two passes), and the definition when enlarging (vips enlarges
    otherwise).
    The bound on cubic enlarging is 1 level at 8 bits and 16 at 16 bits: gpuimg's weights are
    rounded to 1/16384, five taps an axis, which a search over scales puts at most 14 levels of
    65535 from the exact sums (OpenCV's 16-bit path sums in floats). It is checked at 170%, where
    the weights are not multiples of 1/16384 (at 200% they are, and any bound would pass), on the
    layouts without alpha: with alpha the colour is divided by the filtered alpha, which cubic's
    negative lobes can bring near 0, magnifying any difference there; those take 200%."""
    tol = 1 if depth == 8 else 16
    up, down, half = out_size(w, h, 200), out_size(w, h, 30), out_size(w, h, 50)
    enlarge = 200 if c in (2, 4) else 170
    big = out_size(w, h, enlarge)
    out = [("resize=%d%%:filter=cubic" % enlarge, run(lambda a: cv2.resize(a, big, interpolation=cv2.INTER_CUBIC)), tol),
           ("resize=200%:filter=lanczos3", run(wide_resize('lanczos3', *up)), tol),
           ("resize=30%:filter=cubic", run(wide_resize('cubic', *down)), tol)]
    if c in (1, 3) and min(w, h) >= 13:   # vips premultiplies alpha in floats of its own
        out.append(("resize=50%:filter=lanczos3", vips_resize(*half, 'lanczos3'), 2 if depth == 8 else 2 * 257))
    return out


def blur_cases(w, h, c, depth, run):
    alpha = c in (2, 4)
    out = []
    for sigma, border in [(0.8, None), (2, None), (2, 'replicate'), (2, 'constant'), (3.3, None)]:
        bt = {None: cv2.BORDER_REFLECT_101, 'replicate': cv2.BORDER_REPLICATE, 'constant': cv2.BORDER_CONSTANT}[border]
        name = "blur=%g" % sigma + (":border=" + border if border else "")
        # The kernel size OpenCV picks for the image's own depth; given explicitly because the
        # float64 planes of the alpha path would otherwise get the 16-bit size.
        k = int(np.floor(sigma * (6 if depth == 8 else 8) + 1 + 0.5)) | 1
        fn = (lambda s=sigma, bt=bt, k=k: (lambda a: cv2.GaussianBlur(a, (k, k), s, borderType=bt)))()
        # Without alpha gpuimg builds OpenCV's fixed-point kernel (Q8 for 8 bits, Q16 for 16) and
        # sums exactly as OpenCV does: bit for bit. With alpha the reference is float64 planes.
        out.append((name, run(fn), (1 if depth == 8 else 4) if alpha else 0))
    return out


def cv_fixed_kernel(k, sigma, depth):
    """OpenCV's own fixed-point gaussian of k taps (Q8 at 8 bits, Q16 at 16, the integers), read from
    GaussianBlur on an integer column holding one sample of the top value: a one-pixel-wide image's
    row taps sum to one, so each output is top * w / 2^bits rounded, which is w for every tap but a
    centre of half the sum or more; the centre is what makes the sum 2^bits."""
    bits = 8 if depth == 8 else 16
    col = np.zeros((2 * k + 1, 1), np.uint8 if depth == 8 else np.uint16)
    col[k, 0] = (1 << bits) - 1
    r = cv2.GaussianBlur(col, (k, k), sigma, borderType=cv2.BORDER_REFLECT_101)[:, 0].astype(np.int64)
    w = r[k - k // 2:k + k // 2 + 1].copy()
    w[k // 2] = (1 << bits) - (w.sum() - w[k // 2])
    return w


def unsharp(sigma, amount, threshold):
    """The unsharp mask: b = blur=sigma's result, out = floor(v + amount (v - b) + 0.5) in float64,
    clamped, where |v - b| > threshold (levels of 255, times 257 at 16 bits), else v; alpha kept.
    Without alpha b is cv2.GaussianBlur's (gpuimg's blur equals it bit for bit). With alpha b follows
    gpuimg's definition around OpenCV with OpenCV's fixed-point kernel (so that a difference of a
    level in b never moves a sample across the threshold): colour premultiplied in float64,
    cv2.sepFilter2D with the kernel's weights (exact sums at 8 bits; at 16 the second pass rounds),
    divided by the filtered alpha and rounded halves up (0 where that alpha is 0)."""
    def fn(a):
        depth = 16 if a.dtype == np.uint16 else 8
        top = 65535.0 if depth == 16 else 255.0
        k = int(np.floor(sigma * (6 if depth == 8 else 8) + 1 + 0.5)) | 1
        f = a.astype(np.float64)
        if f.ndim == 2:
            f = f[..., None]
        if f.shape[2] in (2, 4):
            w = cv_fixed_kernel(k, sigma, depth) / float(1 << depth)
            pm = f.copy()
            pm[..., :-1] *= f[..., -1:]
            r = cv2.sepFilter2D(pm, cv2.CV_64F, w, w, borderType=cv2.BORDER_REFLECT_101)
            al = r[..., -1:]
            b = np.where(al > 0, np.floor(r[..., :-1] / np.where(al > 0, al, 1) + 0.5), 0)
            v = f[..., :-1]
        else:
            b = cv2.GaussianBlur(a, (k, k), sigma, borderType=cv2.BORDER_REFLECT_101).astype(np.float64)
            v = f
            if b.ndim == 2:
                b = b[..., None]
        d = v - b
        s = np.clip(np.floor(v + amount * d + 0.5), 0, top)
        s = np.where(np.abs(d) > threshold * (top / 255), s, v)
        out = np.concatenate([s, f[..., v.shape[2]:]], -1).astype(a.dtype)
        return out[..., 0] if a.ndim == 2 else out
    return fn


def sharpen_cases(w, h, c, depth, run):
    # Without alpha and at 8 bits with it the same bits; 16-bit alpha's rounded second pass may
    # differ from the exact sums at a tie of the colour's rounding.
    tol = 1 if depth == 16 and c in (2, 4) else 0
    return [("sharpen=1", unsharp(1, 1.0, 0), tol), ("sharpen=2:amount=0.7:threshold=3", unsharp(2, 0.7, 3), tol)]


def invert(a):
    top = 65535 if a.dtype == np.uint16 else 255
    if a.ndim == 2:
        return top - a
    r = a.copy()
    n = a.shape[2] - 1 if a.shape[2] in (2, 4) else a.shape[2]   # alpha kept
    r[..., :n] = top - a[..., :n]
    return r


def flatten(a, rgb):
    """Colour over the background by alpha in float64, rounded (top is odd: no ties), alpha dropped;
    a grey image's background is OpenCV's BT.601 grey of the colour; 16 bits take v * 257."""
    c = 1 if a.ndim == 2 else a.shape[2]
    if c in (1, 3):
        return a
    top = 65535 if a.dtype == np.uint16 else 255
    bg = list(rgb) if c == 4 else [int(cv2.cvtColor(np.uint8([[rgb]]), cv2.COLOR_RGB2GRAY)[0, 0])]
    al = a[..., -1].astype(np.float64) / top
    out = [a[..., k].astype(np.float64) * al + b * (top // 255) * (1 - al) for k, b in enumerate(bg)]
    r = np.rint(np.stack(out, -1)).astype(a.dtype)
    return r[..., 0] if c == 2 else r


def tone(fn, margin):
    """A tone operation's reference: fn (float64 levels of the input, top, s) gives the exact value,
    rounded to nearest with halves up (floor(x + 0.5)) and clipped; alpha kept. s = 257 at 16 bits
    (levels of 8 bits scaled). With margin, every value of every input level must lie more than
    1e-6 from a rounding boundary: then a pow that differs from the C library's by an ulp (numpy's
    may) gives the same integers, and tolerance 0 holds."""
    def ref(a):
        top = 65535 if a.dtype == np.uint16 else 255
        s = 257.0 if top == 65535 else 1.0
        if margin:
            x = fn(np.arange(top + 1, dtype=np.float64), top, s)
            if np.any(np.abs(x - np.floor(x) - 0.5) < 1e-6):
                raise SystemExit("make_goldens.py: a tone case has a value at a rounding boundary: pick others")
        r = a.copy()
        n = a.shape[2] - 1 if a.ndim == 3 and a.shape[2] in (2, 4) else None
        col = a if n is None else a[..., :n]
        out = np.clip(np.floor(fn(col.astype(np.float64), top, s) + 0.5), 0, top).astype(a.dtype)
        if n is None:
            return out
        r[..., :n] = out
        return r
    return ref


def linear(k, b):
    return tone(lambda f, top, s: k * f + b * s, False)


def vips_rotate(angle, interp, rgba):
    """vips (8.14) rotate through its float path, centred: vips turns about the input's top left
    corner and rounds that corner's place (its rotate 90 drops the first row), so its input and
    output offsets (idx, idy, odx, ody) are set to put pixel centre on pixel centre as gpuimg
    does; its canvas is the same. Background rgba as gpuimg's color (grey: BT.601, 16 bits v * 257,
    alpha dropped without alpha). nearest runs the bands as plain ones (vips would premultiply, zeroing the
    colour of transparent pixels, which nearest copies), the source position moved by +0.5 (vips floors
    it)."""
    import math
    import subprocess
    import tempfile

    def rnd(r):   # VIPS_ROUND_INT
        return int(r + 0.5) if r > 0 else int(r - 0.5)

    def fn(a):
        h, w = a.shape[:2]
        c = 1 if a.ndim == 2 else a.shape[2]
        top = 65535 if a.dtype == np.uint16 else 255
        t = angle % 360
        co, si = math.cos(math.radians(t)), math.sin(math.radians(t))
        xs = [co * x - si * y for x, y in ((0, 0), (w, 0), (0, h), (w, h))]
        ys = [si * x + co * y for x, y in ((0, 0), (w, 0), (0, h), (w, h))]
        L, T, W, H = rnd(min(xs)), rnd(min(ys)), rnd(max(xs) - min(xs)), rnd(max(ys) - min(ys))
        rgb = list(rgba[:3])
        grey = int(cv2.cvtColor(np.uint8([[rgb]]), cv2.COLOR_RGB2GRAY)[0, 0])
        bg = {1: [grey], 2: [grey, rgba[3]], 3: rgb, 4: rgb + [rgba[3]]}[c]
        bg = [v * (top // 255) for v in bg]
        shift = 0.5 if interp == 'nearest' else 0.0
        with tempfile.TemporaryDirectory() as d:
            src, f, o, raw = (os.path.join(d, n) for n in ('in.png', 'f.v', 'o.v', 'o.raw'))
            write_png(src, a)
            cast = ['vips', 'cast', src, f, 'float']
            if interp == 'nearest':
                subprocess.run(['vips', 'copy', src, os.path.join(d, 'm.v'), '--interpretation', 'multiband'], check=True)
                cast[2] = os.path.join(d, 'm.v')
            subprocess.run(cast, check=True)
            subprocess.run(['vips', 'rotate', f, o, repr(t), '--interpolate', interp,
                            '--odx', repr(L - 0.5 + W / 2), '--ody', repr(T - 0.5 + H / 2),
                            '--idx', repr(0.5 - w / 2 - shift), '--idy', repr(0.5 - h / 2 - shift),
                            '--background', ' '.join(str(v) for v in bg)], check=True)
            subprocess.run(['vips', 'rawsave', o, raw], check=True)
            r = np.fromfile(raw, np.float32).reshape(H, W, c).astype(np.float64)
        r = np.clip(np.floor(r + 0.5), 0, top).astype(a.dtype)
        return r[..., 0] if c == 1 else r
    return fn


def rotate_cases(w, h, c, depth, run):
    """Multiples of 90: OpenCV's exact rotations. Other angles: vips_rotate. bilinear within 1
    level at 8 bits; at 16 bits 4, 24 with alpha (gpuimg rounds the source position to 1/16384,
    and a colour divided by a small alpha magnifies that). bicubic: vips rounds the position to
    1/64 (3 levels at 8 bits, 3 * 257 at 16), on the layouts without alpha (its negative lobes
    bring the filtered alpha near 0, where the colour is anyone's). nearest: exact."""
    alpha = c in (2, 4)
    lin = 1 if depth == 8 else (24 if alpha else 4)
    out = [("rotate=90", lambda a: cv2.rotate(a, cv2.ROTATE_90_CLOCKWISE), 0),
           ("rotate=180", lambda a: cv2.rotate(a, cv2.ROTATE_180), 0),
           ("rotate=270", lambda a: cv2.rotate(a, cv2.ROTATE_90_COUNTERCLOCKWISE), 0),
           ("rotate=30", vips_rotate(30, 'bilinear', (0, 0, 0, 0)), lin),
           ("rotate=-12.5:color=red", vips_rotate(-12.5, 'bilinear', (255, 0, 0, 255)), lin),
           ("rotate=75:interp=nearest:color=white", vips_rotate(75, 'nearest', (255, 255, 255, 255)), 0)]
    if not alpha:
        out.append(("rotate=200:interp=bicubic", vips_rotate(200, 'bicubic', (0, 0, 0, 0)), 3 if depth == 8 else 3 * 257))
    return out


def gamma(g):
    return tone(lambda f, top, s: top * np.power(f / top, 1.0 / g), True)


def levels(black, white, g):
    def fn(f, top, s):
        lo, hi = black * s, white * s
        return top * np.power((np.clip(f, lo, hi) - lo) / (hi - lo), 1.0 / g)
    return tone(fn, True)


# composite's overlays: small images of each layout beside the inputs, named as the pipelines name
# them (the directory is the files' root in tests/golden_test)
OVERLAYS = {'overlay-c4-d8.png': (9, 6, 4, 8, 101), 'overlay-c1-d16.png': (5, 4, 1, 16, 102),
            'overlay-c3-d8.png': (6, 5, 3, 8, 103), 'overlay-c2-d16.png': (8, 7, 2, 16, 104)}
GRAVITY_SIDES = {'northwest': (-1, -1), 'north': (0, -1), 'northeast': (1, -1), 'west': (-1, 0), 'centre': (0, 0),
                 'east': (1, 0), 'southwest': (-1, 1), 'south': (0, 1), 'southeast': (1, 1)}


def overlay_for(name, c, depth):
    """The overlay as gpuimg makes it for an image of c channels at depth: the image's colours
    (RGB to grey by OpenCV's BT.601 grey, grey to RGB copied), an alpha (opaque where it has none),
    the image's depth (v * 257 up, round(v * 255 / 65535) down). Levels of 0..top as float64."""
    ow, oh, oc, od, seed = OVERLAYS[name]
    o = make_input(ow, oh, oc, od, seed, 0.06).reshape(oh, ow, oc)
    cols, alpha = o[..., :oc - (oc in (2, 4))], o[..., oc - 1] if oc in (2, 4) else None
    cc = c - (c in (2, 4))
    if cols.shape[2] == 3 and cc == 1:
        cols = cv2.cvtColor(np.ascontiguousarray(cols), cv2.COLOR_RGB2GRAY).reshape(oh, ow, 1)
    elif cols.shape[2] == 1 and cc == 3:
        cols = np.repeat(cols, 3, 2)
    stop = 65535 if od == 16 else 255
    f = np.concatenate([cols, (alpha if alpha is not None else np.full((oh, ow), stop)).reshape(oh, ow, 1)], 2)
    f = f.astype(np.float64)
    if od != depth:
        f = f * 257 if depth == 16 else np.floor(f * 255 / 65535 + 0.5)
    return f


def composite(name, gravity, x, y, opacity, mode):
    """W3C Compositing in float64, independent of gpuimg's integers: source-over with the separable
    blend B (normal, multiply, screen) on normalised values, co = as (1 - ab) s + as ab B(b, s) +
    (1 - as) ab b, ao = as + ab (1 - as), colour co / ao and alpha ao rounded (halves up); as the
    overlay's alpha times opacity, ab 1 without alpha; pixels where as = 0 unchanged."""
    def ref(a):
        h, w = a.shape[:2]
        c = 1 if a.ndim == 2 else a.shape[2]
        depth = 16 if a.dtype == np.uint16 else 8
        top = 65535.0 if depth == 16 else 255.0
        o = overlay_for(name, c, depth) / top
        oh, ow = o.shape[:2]
        sx, sy = GRAVITY_SIDES[gravity]
        X = (0 if sx < 0 else w - ow if sx > 0 else (w - ow) // 2) + (-x if sx > 0 else x)
        Y = (0 if sy < 0 else h - oh if sy > 0 else (h - oh) // 2) + (-y if sy > 0 else y)
        r = a.reshape(h, w, c).copy()
        x0, y0, x1, y1 = max(X, 0), max(Y, 0), min(X + ow, w), min(Y + oh, h)
        if x0 >= x1 or y0 >= y1:
            return a.copy()
        bb = r[y0:y1, x0:x1].astype(np.float64) / top
        ov = o[y0 - Y:y1 - Y, x0 - X:x1 - X]
        cc = c - (c in (2, 4))
        s, As = ov[..., :cc], ov[..., cc:cc + 1] * opacity
        b = bb[..., :cc]
        ab = bb[..., cc:cc + 1] if c in (2, 4) else np.ones_like(As)
        B = {'over': s, 'multiply': s * b, 'screen': s + b - s * b}[mode]
        co = As * (1 - ab) * s + As * ab * B + (1 - As) * ab * b
        ao = As + ab * (1 - As)
        with np.errstate(invalid='ignore', divide='ignore'):
            col = np.where(ao > 0, co / ao, 0)
        res = np.concatenate([col, ao], 2) if c in (2, 4) else col
        res = np.clip(np.floor(res * top + 0.5), 0, top)
        # where the overlay's alpha (after opacity, to gpuimg's 16-bit fixed point) is 0: unchanged
        keep = np.floor(ov[..., cc:cc + 1] * top * np.floor(opacity * 65536 + 0.5) / 65536 + 0.5) == 0
        r[y0:y1, x0:x1] = np.where(keep, r[y0:y1, x0:x1], res.astype(a.dtype))
        return r[..., 0] if c == 1 else r
    return ref


def composite_cases(w, h, c, depth, run):
    return [(p, composite(*args), 1) for p, args in [
        ("composite=overlay-c4-d8.png:gravity=southeast:x=1:y=2",
         ('overlay-c4-d8.png', 'southeast', 1, 2, 1.0, 'over')),
        ("composite=overlay-c1-d16.png:gravity=centre:opacity=0.5",
         ('overlay-c1-d16.png', 'centre', 0, 0, 0.5, 'over')),
        ("composite=overlay-c3-d8.png:x=2:y=-1:mode=multiply",
         ('overlay-c3-d8.png', 'northwest', 2, -1, 1.0, 'multiply')),
        ("composite=overlay-c2-d16.png:gravity=east:opacity=0.75:mode=screen",
         ('overlay-c2-d16.png', 'east', 0, 0, 0.75, 'screen')),
        ("composite=overlay-c4-d8.png:x=-20", ('overlay-c4-d8.png', 'northwest', -20, 0, 1.0, 'over'))]]


def vips_cli(a, *args, out=True):
    """vips (8.14) on a as a PNG: with out, the image it writes (read back raw), else what it prints."""
    import subprocess
    import tempfile
    c = 1 if a.ndim == 2 else a.shape[2]
    with tempfile.TemporaryDirectory() as d:
        src, dst, raw = (os.path.join(d, n) for n in ('in.png', 'out.v', 'out.raw'))
        write_png(src, a)
        args = [x.replace('IN', src).replace('OUT', dst) for x in args]
        r = subprocess.run(['vips'] + args, check=True, capture_output=True, text=True)
        if not out:
            return r.stdout
        subprocess.run(['vips', 'rawsave', dst, raw], check=True)
        h, w = (int(subprocess.run(['vipsheader', '-f', f, dst], check=True, capture_output=True, text=True).stdout)
                for f in ('height', 'width'))
        r = np.fromfile(raw, a.dtype).reshape(h, w, c)
        return r[..., 0] if c == 1 else r


def vips_trim(threshold, rgb):
    """vips find_trim's box, then the crop: the background rgb (grey: BT.601 luma; 16 bits v * 257),
    or None for the top-left pixel's colour samples; the threshold in levels of 8 bits (x 257). An
    empty box (all background) leaves the image."""
    def fn(a):
        c = 1 if a.ndim == 2 else a.shape[2]
        nc = c - 1 if c in (2, 4) else c
        scale = 257 if a.dtype == np.uint16 else 1
        if rgb is None:
            bg = [int(v) for v in (a[0, 0] if c > 1 else [a[0, 0]])][:nc]
        else:
            grey = int(cv2.cvtColor(np.uint8([[list(rgb)]]), cv2.COLOR_RGB2GRAY)[0, 0])
            bg = [v * scale for v in (list(rgb) if nc == 3 else [grey])]
        got = vips_cli(a, 'find_trim', 'IN', '--threshold', repr(threshold * scale),
                       '--background', ' '.join(str(v) for v in bg), out=False).split()
        left, top, w, h = (int(v) for v in got)
        return a.copy() if w == 0 or h == 0 else a[top:top + h, left:left + w].copy()
    return fn


def trim_cases(w, h, c, depth, run):
    top = 65535 if depth == 16 else 255
    W, H = w + 7, h + 5   # pad's white border (centred: 3 left, 4 right, 2 above, 3 below), trimmed back

    def padded(a):
        b = cv2.copyMakeBorder(a, 2, 3, 3, 4, cv2.BORDER_CONSTANT, value=(top,) * 4)
        return vips_trim(10, (255, 255, 255))(b)
    own = [("trim", vips_trim(10, None), 0), ("trim=60:background=white", vips_trim(60, (255, 255, 255)), 0)]
    # (vips's median refuses an image under 3 pixels on a side; padded, every input has a case)
    return (own if min(w, h) >= 3 else []) + [
            ("pad=%dx%d:color=white,trim:background=white" % (W, H), padded, 0),
            ("pad=%dx%d:color=white,trim=0.5" % (W, H), lambda a: vips_trim(0.5, None)(
                cv2.copyMakeBorder(a, 2, 3, 3, 4, cv2.BORDER_CONSTANT, value=(top,) * 4)), 0)]


def entropy_tie(a, cw, ch):
    """Whether vips's entropy loop on a meets two slices of equal entropy (the same multiset of counts)
    where its histogram is 16 bits wide (16-bit samples, or alpha: vips premultiplies to floats and
    counts them as ushort): its float sums over 65536 bins then break the tie by their rounding
    order, which no definition repeats. Such a case is left out."""
    c = 1 if a.ndim == 2 else a.shape[2]
    if a.dtype != np.uint16 and c not in (2, 4):
        return False
    b = a.reshape(a.shape[0], a.shape[1], c).astype(np.int64)
    if c in (2, 4):
        top = 65535.0 if a.dtype == np.uint16 else 255.0
        na = (b[..., -1] / top).astype(np.float32)
        for k in range(c - 1):
            b[..., k] = (b[..., k].astype(np.float32) * na).astype(np.int64)

    def counts(x, y, w, h):
        return sorted(n for k in range(c) for n in np.unique(b[y:y + h, x:x + w, k], return_counts=True)[1])

    def lower(r1, r2):
        s1, s2 = (sum(n * np.log2(n) for n in counts(*r)) for r in (r1, r2))
        return counts(*r1) == counts(*r2), s1 > s2
    H, W = b.shape[:2]
    left = top_ = 0
    width, height = W, H
    step = max(-(-(W - cw) // 8), -(-(H - ch) // 8))
    while width > cw or height > ch:
        sw, sh = min(width - cw, step), min(height - ch, step)
        if sw > 0:
            tie, low = lower((left, top_, sw, height), (left + width - sw, top_, sw, height))
            if tie:
                return True
            width -= sw
            left += sw if low else 0
        if sh > 0:
            tie, low = lower((left, top_, width, sh), (left, top_ + height - sh, width, sh))
            if tie:
                return True
            height -= sh
            top_ += sh if low else 0
    return False


def smartcrop_cases(w, h, c, depth, run):
    """vips smartcrop with interesting=entropy, the rectangle's size as crop's P% gives it; None (no
    case) where vips breaks a tie by rounding (entropy_tie)."""
    out = []
    for pct in (60, 35):
        cw, ch = max(1, int(np.floor(w * pct / 100 + 0.5))), max(1, int(np.floor(h * pct / 100 + 0.5)))
        out.append(("crop=%d%%:gravity=entropy" % pct,
                    (lambda cw=cw, ch=ch: lambda a: None if entropy_tie(a, cw, ch) else
                     vips_cli(a, 'smartcrop', 'IN', 'OUT', str(cw), str(ch), '--interesting', 'entropy'))(), 0))
    return out


def attention_corner(a, cw, ch):
    """crop's gravity=attention corner by its definition (src/ops/crop/attention.c), written again
    here in Python's float64 math (the C library's pow, cbrt and exp, as gpuimg's)."""
    import math
    N = 32
    c = 1 if a.ndim == 2 else a.shape[2]
    b = a.reshape(a.shape[0], a.shape[1], c).astype(np.uint64)
    H, W = b.shape[:2]
    top = 65535.0 if a.dtype == np.uint16 else 255.0
    nb = 1 if c <= 2 else 3
    col = b[..., :nb] * b[..., c - 1:c] if c in (2, 4) else b[..., :nb]
    scale = top * top if c in (2, 4) else top

    def span(n, i):
        lo, hi = i * n // N, (i + 1) * n // N
        return lo, max(hi, lo + 1)

    def lin(u):
        return u / 12.92 if u <= 0.04045 else math.pow((u + 0.055) / 1.055, 2.4)

    X, Y, Z = {}, {}, {}
    for j in range(N):
        y0, y1 = span(H, j)
        for i in range(N):
            x0, x1 = span(W, i)
            n = float((x1 - x0) * (y1 - y0))
            sums = [int(col[y0:y1, x0:x1, k].sum(dtype=np.uint64)) for k in range(nb)]
            r, g, bb = (lin(sums[k if nb == 3 else 0] / (n * scale)) for k in range(3))
            X[j, i] = 100 * (0.4124 * r + 0.3576 * g + 0.1805 * bb)
            Y[j, i] = 100 * (0.2126 * r + 0.7152 * g + 0.0722 * bb)
            Z[j, i] = 100 * (0.0193 * r + 0.1192 * g + 0.9505 * bb)
    cl = lambda v: min(max(v, 0), N - 1)
    labf = lambda t: lab_cbrt(t) if t > (6.0 / 29) ** 3 else t / (3 * (6.0 / 29) ** 2) + 4.0 / 29
    score = np.zeros((N, N))
    for j in range(N):
        for i in range(N):
            lap = 4 * Y[j, i] - Y[j, cl(i - 1)] - Y[j, cl(i + 1)] - Y[cl(j - 1), i] - Y[cl(j + 1), i]
            s = abs(5 * lap)
            if Y[j, i] > 5:
                v = (X[j, i], Y[j, i], Z[j, i])
                m = math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
                d2 = sum(((v[k] / m if m > 0 else 0) - sk) ** 2 for k, sk in enumerate((0.78, 0.57, 0.44)))
                s += 100 - 100 * math.sqrt(d2)
                s += 500 * (labf(X[j, i] / 95.047) - labf(Y[j, i] / 100.0))
            score[j, i] = s
    hs, vs = N / W, N / H
    sigma = max(math.sqrt(math.pow(cw * hs, 2) + math.pow(ch * vs, 2)) / 10, 1.0)
    sig2 = 2 * sigma * sigma
    x = 0
    while x < int(min(8 * sigma, 10000)) and math.exp(-(x * x) / sig2) >= 0.2:
        x += 1
    rad = max(x - 1, 0)
    tap = [float(c_rint(20 * math.exp(-(k * k) / sig2))) for k in range(-rad, rad + 1)]
    tot = sum(tap)

    def blur(m, horiz):
        o = np.zeros((N, N))
        for j in range(N):
            for i in range(N):
                acc = 0.0
                for k in range(-rad, rad + 1):
                    acc += tap[k + rad] * (m[j, cl(i + k)] if horiz else m[cl(j + k), i])
                o[j, i] = acc / tot
        return o
    score = blur(blur(score, True), False)
    best = int(np.argmax(score))   # the first of equal maxima, in raster order
    ax, ay = int((best % N) / hs), int((best // N) / vs)
    return min(max(ax - cw // 2, 0), W - cw), min(max(ay - ch // 2, 0), H - ch)


def c_rint(v):
    """C's rint (ties to even, as Python's round) for the gaussian's taps"""
    return round(v)


def lab_cbrt(t):
    """C's cbrt through ctypes (Python's ** 1/3 rounds differently)"""
    import ctypes
    import ctypes.util
    global _libm
    if '_libm' not in globals():
        _libm = ctypes.CDLL(ctypes.util.find_library('m'))
        _libm.cbrt.restype = ctypes.c_double
        _libm.cbrt.argtypes = [ctypes.c_double]
    return _libm.cbrt(t)


def attention_cases(w, h, c, depth, run):
    """vips smartcrop with interesting=attention where its rectangle is the one crop's definition
    gives (attention_corner); elsewhere (vips's own resize and float colour place it a cell apart) no
    case."""
    out = []
    for pct in (60, 35):
        cw, ch = max(1, int(np.floor(w * pct / 100 + 0.5))), max(1, int(np.floor(h * pct / 100 + 0.5)))

        def fn(a, cw=cw, ch=ch):
            x, y = attention_corner(a, cw, ch)
            v = vips_cli(a, 'smartcrop', 'IN', 'OUT', str(cw), str(ch), '--interesting', 'attention')
            own = a[y:y + ch, x:x + cw]
            return v if v.shape == own.shape and np.array_equal(v, own) else None
        out.append(("crop=%d%%:gravity=attention" % pct, fn, 0))
    return out


# Each operation's reference (the registry's names): cases (pipeline, function of the input,
# tolerance in levels) for one input. Adding an operation adds its entry here.
REFERENCES = {
    'gray': gray_cases,
    'invert': lambda w, h, c, d, run: [("invert", invert, 0)],
    # numpy in float64: linear is the same arithmetic, gamma and levels numpy's power (tone's margin)
    'linear': lambda w, h, c, d, run: [("linear=1.2:b=-10", linear(1.2, -10), 0),
                                       ("linear=0.7,60.5", linear(0.7, 60.5), 0)],
    'gamma': lambda w, h, c, d, run: [("gamma", gamma(2.4), 0), ("gamma=0.45", gamma(0.45), 0)],
    'levels': lambda w, h, c, d, run: [("levels=20,230,1.4", levels(20, 230, 1.4), 0),
                                       ("levels=10.5,200:gamma=0.8", levels(10.5, 200, 0.8), 0)],
    'flatten': lambda w, h, c, d, run: [("flatten", lambda a: flatten(a, (255, 255, 255)), 0),
                                        ("flatten=20,120,250", lambda a: flatten(a, (20, 120, 250)), 0)],
    'resize': lambda w, h, c, d, run: resize_cases(w, h, c, d, run) + fit_cases(w, h, c, d, run)
    + wide_cases(w, h, c, d, run),
    'blur': blur_cases,
    'sharpen': sharpen_cases,
    'transpose': lambda w, h, c, d, run: [("transpose", lambda a: np.ascontiguousarray(np.swapaxes(a, 0, 1)), 0)],
    'rotate': rotate_cases,
    'flip': lambda w, h, c, d, run: [("flip=h", lambda a: cv2.flip(a, 1), 0), ("flip=v", lambda a: cv2.flip(a, 0), 0)],
    'copy': lambda w, h, c, d, run: [("copy", lambda a: a.copy(), 0)],
    'crop': lambda w, h, c, d, run: crop_cases(w, h, c, d, run) + smartcrop_cases(w, h, c, d, run)
    + attention_cases(w, h, c, d, run),
    # vips 8.14's find_trim's box (its median, flatten and threshold), then the crop
    'trim': trim_cases,
    'pad': pad_cases,
    # W3C's formulas in float64 against gpuimg's integers: 1 level (a rounding at a half)
    'composite': composite_cases,
}


def registry():
    """The operations in registry order: Makefile.am's include lines of src/ops/NAME/local.mk."""
    top = os.path.dirname(os.path.dirname(HERE))
    names = re.findall(r'^include src/ops/(\w+)/local\.mk$', open(os.path.join(top, 'Makefile.am')).read(), re.M)
    ops = [n for n in names if n != 'common']
    missing = [n for n in ops if n not in REFERENCES]
    if missing:
        raise SystemExit("make_goldens.py: no OpenCV reference for: " + " ".join(missing))
    return ops


def all_cases(w, h, c, depth):
    alpha = c in (2, 4)
    run = (lambda fn: (lambda a: cv_filter(a, fn))) if alpha else (lambda fn: (lambda a: cv_plain(a, fn)))
    out = []
    for op in registry():
        out += REFERENCES[op](w, h, c, depth, run)
    return out


# PIPE is the pipeline text with the characters that file names, make and tar mind spelled out:
# '=' as '-', ':' as '.', ',' as '_', and after a digit (sizes' and percentages' marks) '%' as
# 'pct', '!' as 'bang', '^' as 'caret', '<' as 'lt', '>' as 'gt'. Letters, digits, '.', '+' and
# '-' stay. pipeline_of reverses it (a '.' before a digit is a decimal point, the first '-' of a
# step or parameter its '='); main checks every name against it and against the others.
NAME_MARKS = {'%': 'pct', '!': 'bang', '^': 'caret', '<': 'lt', '>': 'gt'}
NAME_SEPS = {'=': '-', ':': '.', ',': '_'}


def golden_name(tag, pipe):
    out = []
    for i, ch in enumerate(pipe):
        if ch in NAME_MARKS and i > 0 and pipe[i - 1].isdigit():
            out.append(NAME_MARKS[ch])
        elif ch in NAME_SEPS:
            out.append(NAME_SEPS[ch])
        elif re.match(r'[a-z0-9.+-]$', ch):
            out.append(ch)
        else:
            raise SystemExit("make_goldens.py: no file name for '%s' in %s (add it to NAME_MARKS)" % (ch, pipe))
    return "out-%s.%s.png" % (tag, ''.join(out))


def pipeline_of(name):
    """The input's tag and the pipeline a golden's name says (golden_name reversed)."""
    tag, text = re.fullmatch(r'out-([^.]+)\.(.+)\.png', name).groups()
    unmark = {v: k for k, v in NAME_MARKS.items()}
    text = re.sub(r'(?<=\d)(%s)' % '|'.join(unmark), lambda m: unmark[m.group(1)], text)
    text = re.sub(r'\.(?!\d)(?!png(\.|$))', ':', text).replace('_', ',')
    return tag, re.sub(r'(^|[:,])([^:,=-]*)-', r'\1\2=', text)


def main():
    for f in os.listdir(HERE):
        if f.endswith('.png'):
            os.remove(os.path.join(HERE, f))
    lines, names = [], set()
    for name, (ow, oh, oc, od, seed) in OVERLAYS.items():
        write_png(os.path.join(HERE, name), make_input(ow, oh, oc, od, seed, 0.06))
    jobs = [(w, h, c, d) for (w, h) in SMALL for (c, d) in LAYOUTS]
    jobs += [(BIG[0], BIG[1], c, d) for (c, d) in BIG_LAYOUTS]
    for seed, (w, h, c, d) in enumerate(jobs):
        big = (w, h) == BIG
        a = make_input(w, h, c, d, seed, 0.002 if big else 0.06)
        tag = "%dx%d-c%d-d%d" % (w, h, c, d)
        inname = "in-%s.png" % tag
        write_png(os.path.join(HERE, inname), a)
        for pipe, fn, tol in cases_for(w, h, c, d, big):
            r = fn(a)
            if r is None:   # no case for this input (smartcrop_cases)
                continue
            if r.ndim == 3 and r.shape[2] == 1:
                r = r[..., 0]
            outname = golden_name(tag, pipe)
            if pipeline_of(outname) != (tag, pipe):
                raise SystemExit("make_goldens.py: %s does not name %s %s back" % (outname, tag, pipe))
            if outname.lower() in names:   # (case-insensitive file systems too)
                raise SystemExit("make_goldens.py: two cases named %s" % outname)
            names.add(outname.lower())
            write_png(os.path.join(HERE, outname), r)
            lines.append("%s %s %s %d" % (inname, pipe, outname, tol))
    with open(os.path.join(HERE, 'MANIFEST'), 'w') as f:
        f.write("# input pipeline expected tolerance (made by make_goldens.py with OpenCV %s)\n" % cv2.__version__)
        f.write("\n".join(lines) + "\n")
    print(len(lines), "cases")


if __name__ == '__main__':
    main()
