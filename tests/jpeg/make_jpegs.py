#!/usr/bin/env python3
"""Make gpuimg's JPEG decoding fixtures: JPEGs of every chroma subsampling, progressive, grey and
CMYK, written by Pillow, with the pixels OpenCV's imread decodes them to (libjpeg-turbo, the
independent reference).

Run with Debian's python3-opencv and Pillow (pip install pillow):
    python3 tests/jpeg/make_jpegs.py
It writes the JPEGs, want-*.png and MANIFEST beside itself (input, pipeline, expected, tolerance
with stb_image, tolerance with libjpeg-turbo); tests/formats.sh runs them through gpuimg.
The stb_image tolerance is what stb_image was measured to differ by, rounded up: its inverse DCT
and chroma upsampling round differently. CMYK: gpuimg and OpenCV both scale each colour by the
black, rounding differently (1 level).
"""
import os
import sys

import cv2
import numpy as np
from PIL import Image

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'golden'))
from make_goldens import write_png  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
W, H = 37, 23   # not a whole number of 16x16 MCUs either way


def photo(W=W, H=H):
    """Smooth gradients, a hard colour edge and some texture, as photographs have."""
    y, x = np.mgrid[0:H, 0:W].astype(np.float64)
    r = 128 + 100 * np.sin(x / 6.0) * np.cos(y / 5.0)
    g = 60 + 150 * (x / W)
    b = np.where(x + 2 * y > 40, 220, 30) + 10 * np.sin(x * y / 7.0)
    return np.clip(np.stack([r, g, b], -1), 0, 255).astype(np.uint8)


def main():
    rgb = photo()
    cases = []

    def want(name, stb_tol, lj_tol):
        arr = cv2.imread(os.path.join(HERE, name), cv2.IMREAD_UNCHANGED if name.startswith('gray') else cv2.IMREAD_COLOR)
        if arr.ndim == 3:
            arr = arr[..., ::-1]
        wname = 'want-' + name.replace('.', '-') + '.png'
        write_png(os.path.join(HERE, wname), np.ascontiguousarray(arr))
        cases.append((name, 'flip=h,flip=h', wname, stb_tol, lj_tol))

    # stb_image's 4:2:2 upsampling differs most (30 levels at the colour edge, measured)
    for name, sub, prog, stb_tol in [('s444.jpg', 0, False, 3), ('s422.jpg', 1, False, 32), ('s420.jpg', 2, False, 3),
                                     ('s422-progressive.jpg', 1, True, 32), ('s420-progressive.jpg', 2, True, 3)]:
        Image.fromarray(rgb).save(os.path.join(HERE, name), quality=90, subsampling=sub, progressive=prog)
        want(name, stb_tol, 0)
    Image.fromarray(rgb).convert('L').save(os.path.join(HERE, 'gray.jpg'), quality=90)
    want('gray.jpg', 2, 0)
    Image.fromarray(rgb).convert('CMYK').save(os.path.join(HERE, 'cmyk.jpg'), quality=90)
    want('cmyk.jpg', 3, 1)
    # --shrink-on-load: OpenCV's reduced reads use the same DCT scaling; its INTER_AREA resize of
    # them is the reference (gpuimg's area filter is within 1 level of INTER_AREA). SHRINK lists
    # input, pipeline, the factor gpuimg must choose, expected, tolerance.
    big = photo(301, 203)
    shrink = []
    for name, img, flag, f, size in [('shrink-s420.jpg', Image.fromarray(big), cv2.IMREAD_REDUCED_COLOR_2, 2, (75, 51)),
                                     ('shrink-gray.jpg', Image.fromarray(big).convert('L'),
                                      cv2.IMREAD_REDUCED_GRAYSCALE_4, 4, (37, 25))]:
        img.save(os.path.join(HERE, name), quality=90)
        red = cv2.imread(os.path.join(HERE, name), flag)
        assert red.shape[:2] == ((203 + f - 1) // f, (301 + f - 1) // f), red.shape
        arr = cv2.resize(red, size, interpolation=cv2.INTER_AREA)
        if arr.ndim == 3:
            arr = arr[..., ::-1]
        wname = 'want-' + name.replace('.', '-') + '.png'
        write_png(os.path.join(HERE, wname), np.ascontiguousarray(arr))
        shrink.append((name, 'resize=%dx%d' % size, f, wname, 1))
    with open(os.path.join(HERE, 'SHRINK'), 'w') as f:
        f.write('# input pipeline factor expected tolerance (made by make_jpegs.py: OpenCV %s IMREAD_REDUCED_* '
                'and INTER_AREA)\n' % cv2.__version__)
        f.write('\n'.join('%s %s %d %s %d' % c for c in shrink) + '\n')
    with open(os.path.join(HERE, 'MANIFEST'), 'w') as f:
        f.write('# input pipeline expected tolerance-stb_image tolerance-libjpeg-turbo '
                '(made by make_jpegs.py: Pillow %s writes, OpenCV %s decodes)\n' % (Image.__version__, cv2.__version__))
        f.write('\n'.join('%s %s %s %d %d' % c for c in cases) + '\n')
    print(len(cases), 'cases')


if __name__ == '__main__':
    main()
